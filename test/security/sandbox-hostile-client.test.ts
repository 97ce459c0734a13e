/**
 * The sandbox against a hostile client, over real HTTP: prototype pollution through every input path, bodies read
 * before authentication, unbounded bodies and nesting, the state file, and authorization (sharing with a hidden
 * group; sweeps of every route as an anonymous caller and as a non-member). One test per probe.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { StateFileError } from "../../src/sandbox/store.js";
import { type Client, sandbox } from "../sandbox/helpers.js";

const polluted = () =>
  (Object.prototype as Record<string, unknown>)["sudo"] ?? (Object.prototype as Record<string, unknown>)["x"];

describe("prototype pollution", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture: { groups: [{ path: "pp" }] } });
  });
  afterAll(async () => {
    await c.sb.stop();
  });
  afterEach(() => {
    // Nothing ever reaches the prototype every object of this process shares with the sandbox.
    expect(polluted()).toBeUndefined();
  });

  it("a query parameter __proto__[sudo] is refused before anything else, and later requests are unaffected", async () => {
    const r = await c.call("GET", "/version?__proto__%5Bsudo%5D=root", { token: null });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'parameter names may not use "__proto__"' });
    expect((await c.user("GET", "/user")).status).toBe(200);
  });

  it("a form field __proto__[sudo] does not make the admin token act as another user", async () => {
    const r = await c.call("POST", "/groups", { form: "__proto__%5Bsudo%5D=sandbox-user&name=x&path=x" });
    expect(r.status).toBe(400);
    const me = await c.admin("GET", "/user");
    expect((me.body as { username: string }).username).toBe("root");
  });

  it("JSON keys __proto__, constructor and prototype are refused at any depth", async () => {
    for (const raw of [
      '{"__proto__": {"sudo": "root"}}',
      '{"name": "y", "path": "y", "nested": {"constructor": {"prototype": {"x": 1}}}}',
      '[{"__proto__": {"x": 1}}]',
    ]) {
      const r = await c.call("POST", "/groups", { raw, headers: { "Content-Type": "application/json" } });
      expect(r.status, raw).toBe(400);
    }
  });

  it("multipart field names are checked the same way", async () => {
    const form = new FormData();
    form.append("__proto__[x]", "1");
    form.append("name", "z");
    const res = await fetch(`${c.sb.url}/api/v4/groups`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": "admin-token" },
      body: form,
    });
    expect(res.status).toBe(400);
  });

  it("nested keys a[b][constructor][prototype] are refused too", async () => {
    const r = await c.call("GET", "/groups?a%5Bb%5D%5Bconstructor%5D%5Bprototype%5D%5Bx%5D=1");
    expect(r.status).toBe(400);
  });

  it("nesting 100,000 levels deep is a clear 400, not a 500", async () => {
    const name = `a${"[b]".repeat(100_000)}`;
    const r = await c.call("POST", "/groups", { form: `${encodeURIComponent(name)}=1` });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "parameter names may nest at most 32 levels deep" });
  });
});

/**
 * Streams a body of `size` bytes to `path` and resolves when the answer comes, with how many bytes had been handed
 * to the connection by then. A server that refuses without reading answers while most of the body is still
 * unsent (the kernel buffers a few MiB at most); one that reads first answers only after the whole body.
 */
function stream(
  url: string,
  path: string,
  size: number,
  headers: Record<string, string>,
): Promise<{ status: number | "closed"; sent: number }> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    const done = (status: number | "closed") => {
      if (answered) return;
      answered = true;
      resolve({ status, sent });
      req.destroy();
    };
    const req = request(
      `${url}${path}`,
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => done(res.statusCode ?? 0),
    );
    req.on("error", () => done("closed"));
    const chunk = Buffer.alloc(64 * 1024, 32);
    const pump = () => {
      while (!answered && sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/**
 * Sends `head` and then `body` over a plain TCP connection, exactly as given (a client library would refuse a
 * Content-Length that does not match the body, and never reach the sandbox), and resolves with what came back when
 * the server closed the connection.
 */
function rawHttp(url: string, head: string[], body: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(Number(port), hostname, () => socket.write(`${head.join("\r\n")}\r\n\r\n${body}`));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      data += chunk;
    });
    socket.on("error", (error) => (data === "" ? reject(error) : undefined));
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(data)?.[1] ?? 0);
      const split = data.indexOf("\r\n\r\n");
      let rest = data.slice(split + 4);
      if (!/^transfer-encoding: chunked$/im.test(data.slice(0, split)))
        return resolve({ status, body: rest });
      let body = "";
      for (let size = Number.parseInt(rest, 16); size > 0; size = Number.parseInt(rest, 16)) {
        const start = rest.indexOf("\r\n") + 2;
        body += rest.slice(start, start + size);
        rest = rest.slice(start + size + 2);
      }
      resolve({ status, body });
    });
  });
}

describe("bodies", () => {
  const MiB = 1024 * 1024;
  // A body well under the cap but far more than socket buffers hold: reading it or not shows in `sent`.
  const BODY = 24 * MiB;
  const UNREAD = 8 * MiB;
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      maxBodyMb: 32,
      fixture: {
        groups: [{ path: "acme" }],
        scim: [{ group: "acme", token: "scim-secret" }],
        projects: [{ path: "acme/app" }],
        jobs: [
          {
            project: "acme/app",
            pipelines: [{ ref: "main", jobs: [{ name: "j", status: "running", token: "job-secret" }] }],
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  it("an anonymous caller may not send a large body: 401 before it is read", async () => {
    const r = await stream(c.sb.url, "/api/v4/groups", BODY, {});
    expect(r.status).toBe(401);
    expect(r.sent).toBeLessThan(UNREAD);
    expect(c.sb.store.data.groups.map((g) => g.path)).toEqual(["acme"]);
  });

  it.each([
    ["PRIVATE-TOKEN", "/api/v4/groups", { "PRIVATE-TOKEN": "no-such-token" }],
    ["Authorization: Bearer", "/api/v4/groups", { Authorization: "Bearer garbage" }],
    ["Authorization: Basic", "/api/v4/groups", { Authorization: "Basic Z2FyYmFnZQ==" }],
    ["?private_token=", "/api/v4/groups?private_token=garbage", {}],
    ["?access_token=", "/api/v4/groups?access_token=garbage", {}],
    ["an empty ?private_token=", "/api/v4/groups?private_token=", {}],
    ["JOB-TOKEN", "/api/v4/projects/acme%2Fapp/jobs/1/artifacts", { "JOB-TOKEN": "garbage" }],
    ["?job_token=", "/api/v4/projects/acme%2Fapp/jobs/1/artifacts?job_token=garbage", {}],
    ["a SCIM Bearer", "/api/scim/v2/groups/acme/Users", { Authorization: "Bearer garbage" }],
    [
      "a known token next to an unknown one",
      "/api/v4/groups?private_token=admin-token",
      { "JOB-TOKEN": "garbage" },
    ],
  ])(
    "a credential that is not a token of the sandbox (%s) is refused before the body is read",
    async (_, path, headers) => {
      const r = await stream(c.sb.url, path, BODY, headers);
      expect(r.status).toBe(401);
      expect(r.sent).toBeLessThan(UNREAD);
    },
  );

  it.each([
    ["PRIVATE-TOKEN", "/api/v4/groups", { "PRIVATE-TOKEN": "admin-token" }],
    ["Authorization: Bearer", "/api/v4/groups", { Authorization: "Bearer admin-token" }],
    ["?private_token=", "/api/v4/groups?private_token=admin-token", {}],
    ["a SCIM token", "/api/scim/v2/groups/acme/Users", { Authorization: "Bearer scim-secret" }],
  ])("a known credential (%s) may send a large body, which is read whole", async (_, path, headers) => {
    const r = await stream(c.sb.url, path, 2 * MiB, headers);
    expect(r.status).not.toBe(401);
    expect(r.status).not.toBe(413);
    expect(r.sent).toBe(2 * MiB);
  });

  it("a body over the cap is 413, whether its length is declared or streamed", async () => {
    const streamed = await stream(c.sb.url, "/api/v4/groups", 48 * MiB, { "PRIVATE-TOKEN": "admin-token" });
    expect(streamed.status).toBe(413);
    expect(streamed.sent).toBeLessThan(32 * MiB + UNREAD);
    // A declared length over the cap is answered at once: the one byte sent is all there is, so a server that
    // waited for the body would never answer, and the connection is closed.
    const host = new URL(c.sb.url).host;
    const declared = await rawHttp(
      c.sb.url,
      [
        "POST /api/v4/groups HTTP/1.1",
        `Host: ${host}`,
        "PRIVATE-TOKEN: admin-token",
        "Content-Type: application/json",
        `Content-Length: ${40 * MiB}`,
      ],
      "x",
    );
    expect([declared.status, JSON.parse(declared.body)]).toEqual([
      413,
      { message: "413 Request Entity Too Large: bodies may have at most 32 MiB" },
    ]);
    expect(c.sb.store.data.groups.map((g) => g.path)).toEqual(["acme"]);
    // Within the cap, all is as usual.
    expect((await c.admin("POST", "/groups", { name: "ok", path: "ok" })).status).toBe(201);
  });

  it("a form may carry at most 4096 parameters: one more is a 400, and other callers are still answered", async () => {
    const TOO_MANY = { error: "a request may carry at most 4096 parameters" };
    // The limit itself is taken (the group is then refused for what it lacks), one past it is not.
    const at = await c.call("POST", "/groups", { form: "a%5B%5D=1&".repeat(4096).slice(0, -1) });
    expect(at.status).toBe(400);
    expect(at.body).not.toEqual(TOO_MANY);
    const past = await c.call("POST", "/groups", { form: "a%5B%5D=1&".repeat(4097).slice(0, -1) });
    expect([past.status, past.body]).toEqual([400, TOO_MANY]);
    // 200,000 of them (2 MB) are refused the same way while another caller is answered.
    const form = "a%5B%5D=1&".repeat(200_000);
    const [r, version] = await Promise.all([c.call("POST", "/groups", { form }), c.call("GET", "/version")]);
    expect([r.status, r.body]).toEqual([400, TOO_MANY]);
    expect(version.status).toBe(200);
    expect(c.sb.store.data.groups.map((g) => g.path)).not.toContain("a");
    const query = await c.call("GET", `/groups?${"x&".repeat(5000)}`);
    expect(query.status).toBe(400);
  });

  it("a JSON body nested deeper than 100 levels says so", async () => {
    const raw = `${"[".repeat(3000)}${"]".repeat(3000)}`;
    const r = await c.call("POST", "/groups", { raw, headers: { "Content-Type": "application/json" } });
    expect([r.status, r.body]).toEqual([400, { error: "the JSON body nests deeper than 100 levels" }]);
    const fine = `{"name": "deep", "path": "deep", "x": ${"[".repeat(90)}${"]".repeat(90)}}`;
    expect(
      (await c.call("POST", "/groups", { raw: fine, headers: { "Content-Type": "application/json" } }))
        .status,
    ).toBe(201);
  });
});

const USER = {
  id: 1,
  username: "root",
  name: "Administrator",
  email: "admin@example.com",
  state: "active",
  admin: true,
  namespace_id: 1,
};
const GROUP = { id: 1, name: "a", path: "a", parent_id: null, visibility: "private" };
const VALID_STATE = {
  format: "forgeform-sandbox-state",
  version: 1,
  users: [USER],
  groups: [],
  projects: [],
};

describe("the state file", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "forgeform-state-"));

  it("is written owner-only and holds no token in clear", async () => {
    const statePath = join(dir(), "state.json");
    const sb = await startSandbox({
      statePath,
      adminToken: "admin-secret-token-1",
      userToken: "user-secret-token-2",
    });
    await fetch(`${sb.url}/api/v4/groups`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": "admin-secret-token-1", "content-type": "application/json" },
      body: JSON.stringify({ name: "s", path: "s" }),
    });
    await sb.stop();
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    const text = readFileSync(statePath, "utf8");
    expect(text).not.toContain("admin-secret-token-1");
    expect(text).not.toContain("user-secret-token-2");
    expect(text).toContain("token_sha256");
  });

  it("a module table of the wrong shape costs the requests that read it, never the server", async () => {
    const statePath = join(dir(), "tables.json");
    const areas = { jobs: { pipelines: [], jobs: 5 }, scim: { providers: "x", identities: [] } };
    writeFileSync(statePath, JSON.stringify({ ...VALID_STATE, areas }));
    const sb = await startSandbox({ statePath, adminToken: "tables-admin" });
    try {
      for (const [path, headers] of [
        ["/api/v4/projects/1/jobs/1/artifacts", { "JOB-TOKEN": "x" }],
        ["/api/scim/v2/groups/acme/Users", { Authorization: "Bearer x" }],
      ] as const) {
        const res = await fetch(`${sb.url}${path}`, { headers });
        expect(res.status).toBeGreaterThanOrEqual(400);
      }
      const version = await fetch(`${sb.url}/api/v4/version`, {
        headers: { "PRIVATE-TOKEN": "tables-admin" },
      });
      expect(version.status).toBe(200);
    } finally {
      await sb.stop();
    }
  });

  it("keeps job tokens as digests only, and a running job's token still works", async () => {
    const statePath = join(dir(), "jobs.json");
    const fixture = {
      groups: [{ path: "acme" }],
      projects: [{ path: "acme/app" }],
      jobs: [
        {
          project: "acme/app",
          pipelines: [
            {
              ref: "main",
              jobs: [
                { name: "j", status: "running", token: "job-secret-token-3", artifacts: { "a.txt": "a" } },
              ],
            },
          ],
        },
      ],
    };
    const download = (sb: { url: string }) =>
      fetch(`${sb.url}/api/v4/projects/acme%2Fapp/jobs/1/artifacts`, {
        headers: { "JOB-TOKEN": "job-secret-token-3" },
      });
    let sb = await startSandbox({ statePath, fixture });
    expect((await download(sb)).status).toBe(200);
    await sb.stop();
    const text = readFileSync(statePath, "utf8");
    expect(text).not.toContain("job-secret-token-3");
    // A state written before job tokens were hashed still loads, its tokens work, and the next write hashes them.
    const state = JSON.parse(text) as { areas: { jobs: { jobs: Record<string, unknown>[] } } };
    const job = state.areas.jobs.jobs[0]!;
    delete job["token_sha256"];
    job["token"] = "job-secret-token-3";
    writeFileSync(statePath, JSON.stringify(state));
    sb = await startSandbox({ statePath });
    try {
      expect((await download(sb)).status).toBe(200);
      await fetch(`${sb.url}/api/v4/groups`, {
        method: "POST",
        headers: { "PRIVATE-TOKEN": sb.adminToken, "content-type": "application/json" },
        body: JSON.stringify({ name: "w", path: "w" }),
      });
    } finally {
      await sb.stop();
    }
    expect(readFileSync(statePath, "utf8")).not.toContain("job-secret-token-3");
  });

  it("a state file with clear tokens (written before) loads, and the tokens still work", async () => {
    const statePath = join(dir(), "old.json");
    await (await startSandbox({ statePath, adminToken: "first-admin-token" })).stop();
    // Rewrite it the way older versions wrote tokens: in clear.
    const state = JSON.parse(readFileSync(statePath, "utf8")) as {
      tokens: { user_id: number; name: string }[];
    };
    const root = state.tokens[0]!;
    state.tokens = [{ token: "legacy-clear-token", user_id: root.user_id, name: "old" } as never];
    writeFileSync(statePath, JSON.stringify(state));
    const sb = await startSandbox({ statePath, adminToken: "fresh-admin-token" });
    try {
      const res = await fetch(`${sb.url}/api/v4/user`, {
        headers: { "PRIVATE-TOKEN": "legacy-clear-token" },
      });
      expect(res.status).toBe(200);
    } finally {
      await sb.stop();
    }
    expect(readFileSync(statePath, "utf8")).not.toContain("legacy-clear-token");
  });

  it("wrong nested types are the documented clear error, and the file is left as it is", async () => {
    const statePath = join(dir(), "bad.json");
    const text = JSON.stringify({
      format: "forgeform-sandbox-state",
      version: 1,
      users: [],
      groups: [],
      projects: [],
      tokens: {},
    });
    writeFileSync(statePath, text);
    await expect(startSandbox({ statePath })).rejects.toThrow(StateFileError);
    await expect(startSandbox({ statePath })).rejects.toThrow(
      /state file .*bad\.json is not a forgeform sandbox state \("tokens" must be a list\); move it away or fix it/,
    );
    expect(readFileSync(statePath, "utf8")).toBe(text);
  });

  it("is written only when a request changed something: refused writes leave it alone", async () => {
    const statePath = join(dir(), "quiet.json");
    const sb = await startSandbox({ statePath, adminToken: "quiet-admin", userToken: "quiet-user" });
    const post = (token: string | undefined, body: unknown) =>
      fetch(`${sb.url}/api/v4/groups`, {
        method: "POST",
        headers: { ...(token ? { "PRIVATE-TOKEN": token } : {}), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    try {
      expect((await post("quiet-admin", { name: "q", path: "q" })).status).toBe(201);
      // The sandbox never reads its state file after start: a marker added now is gone once it writes the file.
      const marked = `${readFileSync(statePath, "utf8")}\n`;
      writeFileSync(statePath, marked);
      const refused = await Promise.all([
        ...Array.from({ length: 5 }, () => post(undefined, { name: "a", path: "a" })),
        ...Array.from({ length: 5 }, () => post("quiet-admin", { name: "q", path: "q" })),
        post("quiet-admin", { path: "no-name" }),
        fetch(`${sb.url}/api/v4/groups/q`, { method: "DELETE", headers: { "PRIVATE-TOKEN": "quiet-user" } }),
      ]);
      expect(refused.map((r) => r.status)).toEqual([
        401, 401, 401, 401, 401, 400, 400, 400, 400, 400, 400, 404,
      ]);
      expect(readFileSync(statePath, "utf8")).toBe(marked);
      expect((await post("quiet-admin", { name: "r", path: "r" })).status).toBe(201);
      expect(readFileSync(statePath, "utf8")).not.toBe(marked);
    } finally {
      await sb.stop();
    }
  });

  it.each([
    [
      "a username that is a number",
      { users: [{ ...USER, username: 5 }] },
      '"users"[0].username must be a string, not 5',
    ],
    [
      "a user without a username",
      { users: [{ id: 1 }] },
      '"users"[0].username must be a string, not missing',
    ],
    ["a sequence that is not a number", { seq: { users: "x" } }, '"seq".users must be a whole number'],
    [
      "a parent id that is a string",
      { groups: [{ ...GROUP, parent_id: "x" }] },
      '"groups"[0].parent_id must be an integer or null, not "x"',
    ],
    [
      "a path that is a number",
      { groups: [{ ...GROUP, path: 3 }] },
      '"groups"[0].path must be a string, not 3',
    ],
    [
      "a visibility the platform does not have",
      { groups: [{ ...GROUP, visibility: "secret" }] },
      '"groups"[0].visibility must be one of "private", "internal", "public", not "secret"',
    ],
    [
      "a share that is not a record",
      { groups: [{ ...GROUP, shared_with_groups: [null] }] },
      '"groups"[0].shared_with_groups must be a list of records, not [null]',
    ],
    [
      "groups that are each other's parent",
      {
        groups: [
          { ...GROUP, parent_id: 2 },
          { ...GROUP, id: 2, path: "b", parent_id: 1 },
        ],
      },
      '"groups"[0].parent_id leads round in a cycle',
    ],
    [
      "a member with a made-up source",
      { members: [{ source_type: "team", source_id: 1, user_id: 1, access_level: 30 }] },
      '"members"[0].source_type must be one of "group", "project", not "team"',
    ],
    ["a module table that is a list", { areas: { badges: [] } }, '"areas".badges must be an object'],
  ])(
    "a record with wrong types (%s) is the documented clear error, and the file is left as it is",
    async (_, change, problem) => {
      const statePath = join(dir(), "typed.json");
      const text = JSON.stringify({ ...VALID_STATE, ...change });
      writeFileSync(statePath, text);
      const error = await startSandbox({ statePath }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toBe(
        `sandbox: state file ${statePath} is not a forgeform sandbox state (${problem}); move it away or fix it`,
      );
      expect(readFileSync(statePath, "utf8")).toBe(text);
    },
  );

  it("kill -9 in the middle of writes: every write answered before it is there after the restart, and the file is never half-written", async () => {
    const bin = join(import.meta.dirname, "../../bin/forgeform.js");
    if (!existsSync(join(import.meta.dirname, "../../lib/cli/index.js")))
      throw new Error("lib/ is not built: npm test builds it first");
    const statePath = join(dir(), "killed.json");
    const child = spawn(
      process.execPath,
      [bin, "sandbox", "--port", "0", "--state", statePath, "--admin-token", "kill-token"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        const m = /listening (http\S+)/.exec(d.toString());
        if (m) resolve(m[1]!);
      });
      child.on("exit", () => reject(new Error("the sandbox exited")));
    });
    // Whenever the file is read, it is a whole state: it is only ever replaced by a rename.
    const torn: string[] = [];
    let reads = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const text = readFileSync(statePath, "utf8");
        try {
          JSON.parse(text);
          reads++;
        } catch {
          torn.push(text.slice(-80));
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const create = (path: string) =>
      fetch(`${url}/api/v4/groups`, {
        method: "POST",
        headers: { "PRIVATE-TOKEN": "kill-token", "content-type": "application/json" },
        body: JSON.stringify({ name: path, path }),
      });
    // Writes answered one after the other...
    const answered: string[] = [];
    for (let i = 0; i < 10; i++) {
      expect((await create(`before-${i}`)).status).toBe(201);
      answered.push(`before-${i}`);
    }
    // ...then forty at once, and the process is killed as soon as five of them are answered.
    let killed = false;
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 40; i++) {
        create(`burst-${i}`).then(
          (res) => {
            if (killed) return;
            if (res.status === 201) answered.push(`burst-${i}`);
            if (answered.length === 15) {
              killed = true;
              child.kill("SIGKILL");
              resolve();
            }
          },
          () => undefined,
        );
      }
    });
    await exited;
    polling = false;
    await poll;
    expect(torn).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    const sb = await startSandbox({ statePath, adminToken: "kill-token" });
    try {
      const res = await fetch(`${sb.url}/api/v4/groups?per_page=100`, {
        headers: { "PRIVATE-TOKEN": "kill-token" },
      });
      const kept = ((await res.json()) as { path: string }[]).map((g) => g.path);
      for (const path of answered) expect(kept, path).toContain(path);
      // Nothing else than what was asked for: no group half made.
      for (const path of kept) expect(path).toMatch(/^(before|burst)-\d+$/);
    } finally {
      await sb.stop();
    }
  });
});

describe("the debug state endpoint", () => {
  const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
  const TRIGGER = "0123456789abcdef0123456789abcd";
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [{ username: "alice", token: "alice-secret-token" }],
        groups: [{ path: "acme", members: { alice: "owner" } }],
        projects: [{ path: "acme/app" }],
        pipeline_triggers: [{ project: "acme/app", description: "deploy", owner: "alice", token: TRIGGER }],
        scim: [{ group: "acme", token: "scim-secret-token" }],
        system_hooks: [{ url: "https://hooks.example/a", token: "hook-secret-token" }],
        project_hooks: [
          { project: "acme/app", url: "https://hooks.example/p", token: "project-hook-secret" },
        ],
        deploy_tokens: [
          { project: "acme/app", name: "ci", scopes: ["read_repository"], token: "deploy-token-secret-0001" },
        ],
        jobs: [
          {
            project: "acme/app",
            pipelines: [{ ref: "main", jobs: [{ name: "j", status: "running", token: "job-secret-token" }] }],
          },
        ],
      },
    });
    const r = await c.admin("PUT", "/application/settings", {
      asset_proxy_enabled: true,
      asset_proxy_url: "https://proxy.example.com",
      asset_proxy_secret_key: "proxy-secret-value",
    });
    expect(r.status).toBe(200);
  });
  afterAll(() => c.sb.stop());

  it("GET /-/sandbox/state holds no token of any kind, nor a digest of one", async () => {
    const state = await c.call("GET", "/-/sandbox/state");
    expect(state.status).toBe(200);
    const group = c.sb.store.groupByFullPath("acme")!;
    const secrets = {
      "the group's runners token": group.runners_token,
      "the trigger token": TRIGGER,
      "the admin token's digest": sha256("admin-token"),
      "a user token's digest": sha256("alice-secret-token"),
      "the SCIM token's digest": sha256("scim-secret-token"),
      "the hook token's digest": sha256("hook-secret-token"),
      "the project hook token's digest": sha256("project-hook-secret"),
      "the deploy token's digest": sha256("deploy-token-secret-0001"),
      "the job token's digest": sha256("job-secret-token"),
      "the write-only setting's digest": sha256("proxy-secret-value"),
    };
    for (const [what, secret] of Object.entries(secrets)) expect(state.text, what).not.toContain(secret);
    expect(state.text).not.toMatch(/token_sha256|runners_token/);
    expect(state.body).not.toHaveProperty("tokens");
    // The rest is there: it is the state, without its credentials.
    const body = state.body as { groups: { path: string }[]; areas: Record<string, unknown> };
    expect(body.groups.map((g) => g.path)).toEqual(["acme"]);
    expect(body.areas).toHaveProperty("pipeline_triggers");
    expect(JSON.stringify(body.areas["pipeline_triggers"])).toContain('"description":"deploy"');
  });
});

describe("authorization", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [{ username: "member", name: "Member", email: "member@example.com", token: "member-token" }],
        groups: [
          { path: "hidden", visibility: "private" },
          { path: "open", visibility: "public" },
        ],
        projects: [
          {
            path: "open/app",
            visibility: "public",
            members: [{ user: "member", access_level: "maintainer" }],
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  it("sharing a project with a group the caller cannot see is answered as for a group that does not exist", async () => {
    const hidden = c.sb.store.data.groups.find((g) => g.path === "hidden")!;
    const r = await c.call("POST", "/projects/open%2Fapp/share", {
      token: "member-token",
      json: { group_id: hidden.id, group_access: 30 },
    });
    // The platform's GroupLinks::CreateService answer (routes/shares.ts), the same whether the group exists or not.
    expect([r.status, r.body]).toEqual([404, { message: "Not Found" }]);
    const missing = await c.call("POST", "/projects/open%2Fapp/share", {
      token: "member-token",
      json: { group_id: 999_999, group_access: 30 },
    });
    expect([missing.status, missing.body]).toEqual([r.status, r.body]);
  });

  it("fifty parallel creates of one group: exactly one is created", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => c.admin("POST", "/groups", { name: "race", path: "race" })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(49);
    expect(c.sb.store.data.groups.filter((g) => g.path === "race")).toHaveLength(1);
  });
});

describe("authorization sweeps: every route, against a private group and project that exist", () => {
  const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDpmtUfokFOEewAbIYyjN3+DT4ge6CS1unRyXwq3tDuu ci";
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "insider", name: "Insider", email: "insider@example.com", token: "insider-token" },
          { username: "outsider", name: "Outsider", email: "outsider@example.com", token: "outsider-token" },
          {
            username: "contractor",
            name: "Contractor",
            email: "contractor@example.com",
            token: "external-token",
            external: true,
          },
        ],
        groups: [{ path: "vault", visibility: "private", members: { insider: "owner" } }],
        projects: [{ path: "vault/app", visibility: "private", default_branch: "main" }],
        milestones: [
          { project: "vault/app", title: "m1" },
          { group: "vault", title: "g1" },
        ],
        issues: [{ project: "vault/app", iid: 1, title: "secret issue" }],
        epics: [{ group: "vault", iid: 1, title: "secret epic", issues: ["vault/app#1"] }],
        badges: [
          {
            project: "vault/app",
            name: "b",
            link_url: "https://x.example",
            image_url: "https://x.example/b.svg",
          },
          { group: "vault", name: "g", link_url: "https://x.example", image_url: "https://x.example/g.svg" },
        ],
        pipeline_schedules: [
          { project: "vault/app", description: "nightly", cron: "0 1 * * *", variables: { V: "secret" } },
        ],
        pipeline_triggers: [{ project: "vault/app", description: "deploy", owner: "insider" }],
        protected_environments: [
          { project: "vault/app", name: "production", deploy_access_levels: [{ access_level: 40 }] },
        ],
        deploy_keys: [{ project: "vault/app", title: "ci", key: KEY }],
        wikis: [{ project: "vault/app", title: "home", content: "secret" }],
        error_tracking: [
          {
            project: "vault/app",
            project_name: "app",
            tracker_external_url: "https://errors.example/app",
            api_url: "https://errors.example/api/0/projects/vault/app",
          },
        ],
        jobs: [
          {
            project: "vault/app",
            pipelines: [{ ref: "main", jobs: [{ name: "build", artifacts: { "a.txt": "secret" } }] }],
          },
        ],
        scim: [
          { group: "vault", token: "vault-scim-token", identities: [{ user: "insider", extern_uid: "ins" }] },
        ],
      },
    });
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  /** A route's pattern with its parameters naming the private group, its project and the objects inside them. */
  function fill(pattern: string): string {
    const store = c.sb.store;
    const group = store.data.groups.find((g) => g.path === "vault")!;
    const project = store.data.projects.find((p) => p.path === "app")!;
    const insider = store.userByUsername("insider")!;
    const values: Record<string, string> = {
      group: "vault",
      group_id: String(group.id),
      project_id: String(project.id),
      user_id: String(insider.id),
      key: "V",
      slug: "home",
      name: "production",
      ref_name: "main",
      artifact_path: "a.txt",
      file_path: "x.png",
    };
    let first = true;
    return pattern.replace(/[:*]([a-z_]+)/g, (_, name: string) => {
      const isFirst = first;
      first = false;
      if (name === "id" && isFirst && pattern.startsWith("/groups/")) return "vault";
      if (name === "id" && isFirst && pattern.startsWith("/projects/")) return "vault%2Fapp";
      if (name === "id" && pattern.includes("/Users/")) return "ins";
      return values[name] ?? "1";
    });
  }

  const PREFIX = { rest: "/api/v4", scim: "/api/scim/v2", root: "" } as const;
  const BODY = {
    name: "x",
    path: "x",
    title: "x",
    description: "x",
    key: KEY,
    value: "x",
    url: "https://x.example",
    link_url: "https://x.example",
    image_url: "https://x.example/a.svg",
    group_id: 1,
    group_access: 30,
    user_id: 1,
    access_level: 30,
    ref: "main",
    cron: "0 2 * * *",
    content: "x",
    level: "global",
    active: true,
    userName: "x",
    externalId: "x",
    emails: [{ type: "work", value: "x@example.com", primary: true }],
  };

  it("anonymous callers, non-members and external users reach nothing of the private group and project, write nothing anonymously, and a refused request changes nothing", async () => {
    const problems: string[] = [];
    for (const route of c.sb.app.router.list()) {
      const path = fill(route.pattern);
      const url = `${c.sb.url}${PREFIX[route.mount]}${path}`;
      const inside = /^\/(groups|projects)\/:id/.test(route.pattern) || route.mount === "scim";
      const admin = /^\/(application|hooks|-\/sandbox)/.test(route.pattern);
      const write = route.method !== "GET" && route.method !== "HEAD";
      for (const [who, token] of [
        ["anonymous", undefined],
        ["a non-member", "outsider-token"],
        ["an external user", "external-token"],
      ] as const) {
        const before = JSON.stringify(c.sb.store.data);
        const res = await fetch(url, {
          method: route.method,
          headers: { ...(token ? { "PRIVATE-TOKEN": token } : {}), "content-type": "application/json" },
          ...(write ? { body: JSON.stringify(BODY) } : {}),
        });
        const text = await res.text();
        const where = `${route.method} ${PREFIX[route.mount]}${path} as ${who}: ${res.status} ${text.slice(0, 80)}`;
        if (res.status >= 500) problems.push(where);
        else if (res.status < 400 && (inside || admin || (write && who === "anonymous")))
          problems.push(where);
        else if (
          write &&
          who === "anonymous" &&
          route.mount === "rest" &&
          res.status !== 401 &&
          res.status !== 404
        )
          problems.push(`${where}: an anonymous write must be 401 (or 404 for what it may not see)`);
        else if (res.status >= 400 && JSON.stringify(c.sb.store.data) !== before)
          problems.push(`${where}: refused, but the state changed`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("the sweep reaches the objects: their owner is let in", async () => {
    for (const path of [
      "/groups/vault/badges/2",
      "/projects/vault%2Fapp/pipeline_schedules/1",
      "/projects/vault%2Fapp/milestones/1",
      "/projects/vault%2Fapp/wikis/home",
      "/groups/vault/epics/1/issues",
    ]) {
      expect((await c.call("GET", path, { token: "insider-token" })).status, path).toBe(200);
    }
  });
});
