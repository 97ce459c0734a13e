import { request } from "node:http";
import { crc32, inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2022-06-07T08:09:10.111Z";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "guesty", token: "guest-token" },
  ],
  groups: [{ path: "acme", visibility: "private", members: { dev: "developer", guesty: "guest" } }],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/empty", visibility: "private" },
  ],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          user: "dev",
          created_at: "2022-06-01T10:00:00Z",
          commit: { title: "Add API", message: "Add API\n\nbody" },
          jobs: [
            {
              name: "build",
              stage: "build",
              started_at: "2022-06-01T10:00:00Z",
              finished_at: "2022-06-01T10:01:30Z",
              artifacts: { "out/app.txt": "version 1\n", "report.json": '{"ok":true}' },
            },
            { name: "test", status: "failed", allow_failure: true },
          ],
        },
        {
          ref: "main",
          user: "dev",
          jobs: [
            { name: "build", stage: "build", artifacts: { "out/app.txt": "version 2\n" } },
            { name: "deploy", stage: "deploy", status: "manual" },
          ],
          status: "success",
        },
        {
          ref: "main",
          jobs: [
            { name: "build", stage: "build", status: "failed", artifacts: { "out/app.txt": "broken\n" } },
          ],
        },
        {
          ref: "feature",
          jobs: [
            { name: "build", status: "running", token: "running-job-token", artifacts: { "a.txt": "a" } },
          ],
        },
      ],
    },
  ],
};

interface Job {
  id: number;
  name: string;
  status: string;
  pipeline: { id: number };
}

/** Reads a zip archive (central directory, deflated or stored entries) and checks each entry's CRC. */
function unzip(buf: Buffer): Record<string, string> {
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThanOrEqual(0);
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    expect(buf.readUInt32LE(p)).toBe(0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extra = buf.readUInt16LE(p + 30);
    const comment = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString("utf8");
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const packed = buf.subarray(dataStart, dataStart + size);
    const data = method === 8 ? inflateRawSync(packed) : packed;
    expect(crc32(data)).toBe(crc);
    out[name] = data.toString("utf8");
    p += 46 + nameLen + extra + comment;
  }
  return out;
}

/** A GET sent with the path exactly as given (fetch would resolve `%2E%2E` dot segments before sending). */
function rawGet(base: string, path: string, token: string): Promise<{ status: number; body: unknown }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: "GET", headers: { "PRIVATE-TOKEN": token } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("jobs and artifacts", () => {
  let c: Client;
  let jobs: Job[];
  const id = (name: string, n = 0) => jobs.filter((j) => j.name === name).sort((a, b) => a.id - b.id)[n]!.id;
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture, edition: "licensed" });
    jobs = (await c.admin("GET", "/projects/acme%2Fapi/jobs")).body as Job[];
  });
  afterAll(() => c.sb.stop());

  it("lists a project's jobs by descending id with the Job entity", async () => {
    expect(jobs.map((j) => j.id)).toEqual([...jobs.map((j) => j.id)].sort((a, b) => b - a));
    expect(jobs.length).toBe(6);
    const r = await c.call("GET", `/projects/acme%2Fapi/jobs/${id("build")}`, { token: "dev-token" });
    expect(r.status).toBe(200);
    const job = r.body as Record<string, unknown>;
    expect(job).toMatchObject({
      id: id("build"),
      name: "build",
      stage: "build",
      status: "success",
      ref: "main",
      tag: false,
      allow_failure: false,
      coverage: null,
      created_at: "2022-06-01T10:00:00.000Z",
      started_at: "2022-06-01T10:00:00.000Z",
      finished_at: "2022-06-01T10:01:30.000Z",
      duration: 90,
      user: expect.objectContaining({ username: "dev" }),
      commit: expect.objectContaining({ title: "Add API", message: "Add API\n\nbody", author_name: "dev" }),
      pipeline: expect.objectContaining({ ref: "main", status: "success" }),
      web_url: `${c.sb.url}/acme/api/-/jobs/${id("build")}`,
      artifacts_file: { filename: "artifacts.zip", size: expect.any(Number) },
      artifacts: [expect.objectContaining({ file_type: "archive", file_format: "zip" })],
      artifacts_expire_at: null,
    });
    expect((job["commit"] as { id: string }).id).toMatch(/^[0-9a-f]{40}$/);
    const without = await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("test")}`);
    expect(without.body).not.toHaveProperty("artifacts_file");
    expect((without.body as { artifacts: unknown[] }).artifacts).toEqual([]);
  });

  it("scope filters by one status or an array; an unknown status is 400", async () => {
    const one = await c.admin("GET", "/projects/acme%2Fapi/jobs?scope=failed");
    expect((one.body as Job[]).map((j) => j.status)).toEqual(["failed", "failed"]);
    const two = await c.admin("GET", "/projects/acme%2Fapi/jobs?scope[]=manual&scope[]=running");
    expect((two.body as Job[]).map((j) => j.status).sort()).toEqual(["manual", "running"]);
    const bad = await c.admin("GET", "/projects/acme%2Fapi/jobs?scope=done");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: "Scope contains invalid value(s)" });
  });

  it("lists a pipeline's jobs; a missing pipeline or job is 404 Not found", async () => {
    const pipeline = jobs.find((j) => j.id === id("build", 1))!.pipeline.id;
    const r = await c.admin("GET", `/projects/acme%2Fapi/pipelines/${pipeline}/jobs`);
    expect(r.status).toBe(200);
    expect((r.body as Job[]).map((j) => j.name)).toEqual(["build", "deploy"]);
    expect(r.headers.get("x-total")).toBe("2");
    const scoped = await c.admin("GET", `/projects/acme%2Fapi/pipelines/${pipeline}/jobs?scope=manual`);
    expect((scoped.body as Job[]).map((j) => j.name)).toEqual(["deploy"]);
    expect((await c.admin("GET", "/projects/acme%2Fapi/pipelines/99999/jobs")).body).toEqual({
      message: "404 Not found",
    });
    const missing = await c.admin("GET", "/projects/acme%2Fapi/jobs/99999");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "404 Not found" });
  });

  it("access: 401 for a guest, 403 below Reporter, 404 for a project the caller cannot see", async () => {
    expect((await c.call("GET", "/projects/acme%2Fapi/jobs", { token: null })).status).toBe(401);
    expect((await c.call("GET", "/projects/acme%2Fapi/jobs", { token: "guest-token" })).status).toBe(403);
    const hidden = await c.call("GET", "/projects/acme%2Fapi/jobs", { token: "user-token" });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: "404 Project Not Found" });
  });

  it("downloads a job's artifacts as a real zip archive", async () => {
    const res = await fetch(`${c.sb.url}/api/v4/projects/acme%2Fapi/jobs/${id("build")}/artifacts`, {
      headers: { "PRIVATE-TOKEN": "dev-token" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toContain("artifacts.zip");
    const zip = Buffer.from(await res.arrayBuffer());
    expect(unzip(zip)).toEqual({ "out/app.txt": "version 1\n", "report.json": '{"ok":true}' });
    const job = (await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("build")}`)).body as {
      artifacts_file: { size: number };
    };
    expect(job.artifacts_file.size).toBe(zip.length);
  });

  it("artifacts: 404 when no job or no artifacts", async () => {
    const noJob = await c.admin("GET", "/projects/acme%2Fapi/jobs/99999/artifacts");
    expect(noJob.status).toBe(404);
    const noArtifacts = await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("test")}/artifacts`);
    expect(noArtifacts.status).toBe(404);
    expect(noArtifacts.body).toEqual({ message: "404 Not Found" });
  });

  it("downloads by ref and job name from the latest successful pipeline; 404 otherwise; job is required", async () => {
    const res = await fetch(`${c.sb.url}/api/v4/projects/acme%2Fapi/jobs/artifacts/main/download?job=build`, {
      headers: { "PRIVATE-TOKEN": "admin-token" },
    });
    expect(res.status).toBe(200);
    // pipeline 3 (failed) is newer, but the latest successful pipeline of main is pipeline 2
    expect(unzip(Buffer.from(await res.arrayBuffer()))).toEqual({ "out/app.txt": "version 2\n" });
    expect((await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download?job=nope")).status).toBe(
      404,
    );
    expect((await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/gone/download?job=build")).status).toBe(
      404,
    );
    expect(
      (await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download?job=deploy")).status,
    ).toBe(404);
    const missing = await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download");
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "job is missing" });
  });

  it("serves a single artifact file; 400 for an invalid path; 404 for a missing file", async () => {
    const r = await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("build")}/artifacts/out/app.txt`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toBe("version 1\n");
    const j = await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("build")}/artifacts/report.json`);
    expect(j.headers.get("content-type")).toBe("application/json");
    for (const bad of ["out/%2E%2E/report.json", "%2E%2E/secret", "out%00x", "out//app.txt"]) {
      const res = await rawGet(
        c.sb.url,
        `/api/v4/projects/acme%2Fapi/jobs/${id("build")}/artifacts/${bad}`,
        "admin-token",
      );
      expect(res.status, bad).toBe(400);
      expect(res.body).toEqual({ message: "400 (Bad request)" });
    }
    expect(
      (await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("build")}/artifacts/out/none.txt`)).status,
    ).toBe(404);
    expect(
      (await c.admin("GET", `/projects/acme%2Fapi/jobs/${id("test")}/artifacts/out/app.txt`)).status,
    ).toBe(404);
  });

  it("job tokens of running jobs are accepted on artifact downloads only (licensed)", async () => {
    const running = id("build", 3);
    const header = await c.call("GET", `/projects/acme%2Fapi/jobs/${running}/artifacts/a.txt`, {
      token: null,
      headers: { "JOB-TOKEN": "running-job-token" },
    });
    expect(header.status).toBe(200);
    expect(header.text).toBe("a");
    const param = await c.call(
      "GET",
      `/projects/acme%2Fapi/jobs/${id("build")}/artifacts?job_token=running-job-token`,
      {
        token: null,
      },
    );
    expect(param.status).toBe(200);
    const byRef = await c.call("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download?job=build", {
      token: null,
      headers: { "JOB-TOKEN": "running-job-token" },
    });
    expect(byRef.status).toBe(200);
    const wrong = await c.call("GET", `/projects/acme%2Fapi/jobs/${running}/artifacts`, {
      token: null,
      headers: { "JOB-TOKEN": "nope" },
    });
    expect(wrong.status).toBe(401);
    const notArtifacts = await c.call("GET", "/projects/acme%2Fapi/jobs", {
      token: null,
      headers: { "JOB-TOKEN": "running-job-token" },
    });
    expect(notArtifacts.status).toBe(401);
  });

  it("on core, job tokens are not accepted", async () => {
    const core = await sandbox({ fixture, edition: "core" });
    try {
      const r = await core.call("GET", "/projects/acme%2Fapi/jobs/1/artifacts", {
        token: null,
        headers: { "JOB-TOKEN": "running-job-token" },
      });
      expect(r.status).toBe(401);
      expect((await core.admin("GET", "/projects/acme%2Fapi/jobs/1/artifacts")).status).toBe(200);
    } finally {
      await core.sb.stop();
    }
  });

  it("paginates the job list", async () => {
    const r = await c.admin("GET", "/projects/acme%2Fapi/jobs?per_page=4&page=2");
    expect(r.headers.get("x-total")).toBe("6");
    expect(r.headers.get("x-total-pages")).toBe("2");
    expect((r.body as Job[]).map((j) => j.id)).toEqual(jobs.slice(4).map((j) => j.id));
  });
});
