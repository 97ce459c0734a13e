/**
 * Project export and import (`routes/project-import-export.ts`): the platform's 13.12 interface, the archive's
 * layout, a round trip of the settings, permissions, and imports the platform's worker would fail.
 */
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { readTarGz, writeTarGz } from "../../src/sandbox/tar.js";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", email: "owner@example.com", token: "owner-token" },
    { username: "maint", email: "maint@example.com", token: "maint-token" },
    { username: "dev", email: "dev@example.com", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
    { path: "vault", visibility: "private", members: { owner: "owner" } },
    { path: "hidden", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "internal", members: [{ user: "dev", access_level: "developer" }] },
  ],
  project_settings: [
    {
      project: "acme/api",
      merge_method: "ff",
      squash_option: "always",
      build_timeout: 7200,
      ci_default_git_depth: 10,
      wiki_access_level: "disabled",
      pages_access_level: "public",
      ci_config_path: "ci/main.yml",
      auto_devops_enabled: false,
      auto_devops_deploy_strategy: "manual",
    },
  ],
  ci_variables: [{ project: "acme/api", key: "SECRET", value: "never-exported" }],
};

const API = "/projects/acme%2Fapi";

let c: Client;
afterEach(async () => {
  await c?.sb.stop();
});

async function download(
  path: string,
  token = "maint-token",
): Promise<{ status: number; data: Buffer; headers: Headers }> {
  const res = await fetch(`${c.sb.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": token } });
  return { status: res.status, data: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

function importForm(file: Buffer, fields: Record<string, string>, filename = "export.tar.gz"): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  fd.set("file", new Blob([file]), filename);
  return fd;
}

async function exported(): Promise<Buffer> {
  expect((await c.call("POST", `${API}/export`, { token: "maint-token" })).status).toBe(202);
  return (await download(`${API}/export/download`)).data;
}

function archive(files: Record<string, string>): Buffer {
  return writeTarGz(
    Object.entries(files).map(([name, text]) => ({ name, data: Buffer.from(text) })),
    new Date("2021-05-22T00:00:00Z"),
  );
}

describe("project export", () => {
  it("status is none before an export, and the download is 404 Not found or has expired", async () => {
    c = await sandbox({ fixture });
    const status = await c.call("GET", `${API}/export`, { token: "maint-token" });
    expect(status.body).toMatchObject({ path_with_namespace: "acme/api", export_status: "none" });
    expect(status.body).not.toHaveProperty("_links");
    const d = await c.call("GET", `${API}/export/download`, { token: "maint-token" });
    expect([d.status, d.body]).toEqual([404, { message: "404 Not found or has expired" }]);
  });

  it("needs a Maintainer: a Developer is 403, a guest 401", async () => {
    c = await sandbox({ fixture });
    expect((await c.call("POST", `${API}/export`, { token: "dev-token" })).status).toBe(403);
    expect((await c.call("GET", `${API}/export`, { token: "dev-token" })).status).toBe(403);
    expect((await c.call("POST", `${API}/export`, { token: null })).body).toEqual({
      message: "401 Unauthorized",
    });
    const r = await c.call("POST", `${API}/export`, { token: "maint-token" });
    expect([r.status, r.body]).toEqual([202, { message: "202 Accepted" }]);
    expect((await download(`${API}/export/download`, "dev-token")).status).toBe(403);
  });

  it("is finished at once, with links, and downloads the platform's layout: VERSION and project.json", async () => {
    c = await sandbox({ fixture, clock: () => new Date("2021-06-01T10:20:30.456Z") });
    await c.call("POST", `${API}/export`, { token: "maint-token", json: { description: "Exported copy" } });
    const status = await c.call("GET", `${API}/export`, { token: "maint-token" });
    expect(status.body).toMatchObject({
      export_status: "finished",
      _links: {
        api_url: `${c.sb.url}/api/v4/projects/1/export/download`,
        web_url: `${c.sb.url}/acme/api/download_export`,
      },
    });
    const d = await download(`${API}/export/download`);
    expect(d.headers.get("content-disposition")).toBe(
      'attachment; filename="2021-06-01_10-20-456_acme_api_export.tar.gz"',
    );
    const files = new Map(
      readTarGz(d.data, { maxBytes: 1 << 20, maxEntries: 10 }).map((f) => [f.name, f.data.toString()]),
    );
    expect([...files.keys()].sort()).toEqual([
      "GITLAB_REVISION",
      "GITLAB_VERSION",
      "VERSION",
      "project.json",
    ]);
    expect(files.get("VERSION")).toBe("0.2.4");
    const tree = JSON.parse(files.get("project.json")!);
    expect(tree).toMatchObject({
      description: "Exported copy",
      visibility_level: 10,
      merge_requests_ff_only_enabled: true,
      merge_requests_rebase_enabled: true,
      build_timeout: 7200,
      ci_config_path: "ci/main.yml",
      project_feature: { wiki_access_level: 0, pages_access_level: 30, issues_access_level: 20 },
      ci_cd_settings: { default_git_depth: 10 },
      project_setting: { squash_option: 1 },
      auto_devops: { enabled: false, deploy_strategy: 1 },
      project_members: [{ access_level: 30, user: { email: "dev@example.com", username: "dev" } }],
    });
    // CI/CD variables are never exported.
    expect(files.get("project.json")).not.toContain("never-exported");
  });
});

describe("project import", () => {
  it("restores the settings of an export into a new project (201, finished), shown by GET /projects/:id", async () => {
    c = await sandbox({ fixture });
    const file = await exported();
    const r = await c.call("POST", "/projects/import", {
      token: "maint-token",
      multipart: importForm(file, { path: "copy", name: "Copy", namespace: "acme" }),
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      name: "Copy",
      path: "copy",
      path_with_namespace: "acme/copy",
      import_status: "finished",
      failed_relations: [],
      import_error: null,
    });
    expect((r.body as { correlation_id: string }).correlation_id).toMatch(/^[0-9a-f]{32}$/);
    const p = await c.call("GET", "/projects/acme%2Fcopy", { token: "maint-token" });
    expect(p.body).toMatchObject({
      import_status: "finished",
      visibility: "internal",
      merge_method: "ff",
      squash_option: "always",
      build_timeout: 7200,
      ci_default_git_depth: 10,
      wiki_access_level: "disabled",
      wiki_enabled: false,
      pages_access_level: "public",
      ci_config_path: "ci/main.yml",
      auto_devops_enabled: false,
      auto_devops_deploy_strategy: "manual",
    });
    const status = await c.call("GET", "/projects/acme%2Fcopy/import", { token: "dev-token" });
    expect(status.body).toMatchObject({ import_status: "finished", import_error: null });
    // No variables came with it; the importer is a Maintainer; a non-administrator's import maps no members.
    expect((await c.call("GET", "/projects/acme%2Fcopy/variables", { token: "maint-token" })).body).toEqual(
      [],
    );
    const members = c.sb.store.members("project", (p.body as { id: number }).id);
    expect(members.map((m) => [c.sb.store.user(m.user_id)?.username, m.access_level])).toEqual([
      ["maint", 40],
    ]);
  });

  it("an administrator's import maps members by e-mail", async () => {
    c = await sandbox({ fixture });
    const file = await exported();
    const r = await c.call("POST", "/projects/import", {
      token: "admin-token",
      multipart: importForm(file, { path: "copy", namespace: "acme" }),
    });
    expect(r.status, r.text).toBe(201);
    const members = c.sb.store.members("project", (r.body as { id: number }).id);
    expect(members.map((m) => [c.sb.store.user(m.user_id)?.username, m.access_level]).sort()).toEqual([
      ["dev", 30],
      ["root", 40],
    ]);
  });

  it("lowers the visibility to the namespace's and applies override_params", async () => {
    c = await sandbox({ fixture });
    const file = await exported();
    const r = await c.call("POST", "/projects/import", {
      token: "owner-token",
      multipart: importForm(file, {
        path: "copy",
        namespace: "vault",
        "override_params[merge_method]": "rebase_merge",
        "override_params[description]": "Overridden",
      }),
    });
    expect(r.status, r.text).toBe(201);
    expect((await c.call("GET", "/projects/vault%2Fcopy", { token: "owner-token" })).body).toMatchObject({
      visibility: "private",
      merge_method: "rebase_merge",
      description: "Overridden",
    });
  });

  it("refuses override_params the API refuses, naming them as Grape does", async () => {
    c = await sandbox({ fixture });
    const r = await c.call("POST", "/projects/import", {
      token: "maint-token",
      multipart: importForm(await exported(), {
        path: "copy",
        namespace: "acme",
        "override_params[merge_method]": "squash",
      }),
    });
    expect([r.status, r.body]).toEqual([
      400,
      { error: "override_params[merge_method] does not have a valid value" },
    ]);
  });

  it("path and file are required", async () => {
    c = await sandbox({ fixture });
    const fd = new FormData();
    fd.set("namespace", "acme");
    const r = await c.call("POST", "/projects/import", { token: "maint-token", multipart: fd });
    expect([r.status, r.body]).toEqual([400, { error: "path is missing, file is missing" }]);
  });

  it("a taken path is 400 Path has already been taken; overwrite by the Owner replaces it, by a Maintainer is 403", async () => {
    c = await sandbox({ fixture });
    const file = await exported();
    const taken = await c.call("POST", "/projects/import", {
      token: "maint-token",
      multipart: importForm(file, { path: "api", namespace: "acme" }),
    });
    expect([taken.status, taken.body]).toEqual([400, { message: "Path has already been taken" }]);
    const byMaintainer = await c.call("POST", "/projects/import", {
      token: "maint-token",
      multipart: importForm(file, { path: "api", namespace: "acme", overwrite: "true" }),
    });
    expect(byMaintainer.status).toBe(403);
    const byOwner = await c.call("POST", "/projects/import", {
      token: "owner-token",
      multipart: importForm(file, { path: "api", namespace: "acme", overwrite: "true" }),
    });
    expect(byOwner.status, byOwner.text).toBe(201);
    const now = await c.call("GET", API, { token: "owner-token" });
    expect((now.body as { id: number }).id).toBe((byOwner.body as { id: number }).id);
    expect(c.sb.store.data.projects.filter((p) => p.path === "api")).toHaveLength(1);
  });

  it("needs a namespace the caller may create projects in (400), and one the caller can see (404)", async () => {
    c = await sandbox({ fixture });
    const file = await exported();
    const r = await c.call("POST", "/projects/import", {
      token: "dev-token",
      multipart: importForm(file, { path: "copy", namespace: "vault" }),
    });
    expect([r.status, r.body]).toEqual([404, { message: "404 Namespace Not Found" }]);
    const reporterLike = await c.call("POST", "/projects/import", {
      token: "outsider-token",
      multipart: importForm(file, { path: "copy", namespace: "acme" }),
    });
    expect([reporterLike.status, reporterLike.body]).toEqual([400, { message: "Namespace is not valid" }]);
    const own = await c.call("POST", "/projects/import", {
      token: "outsider-token",
      multipart: importForm(file, { path: "copy" }),
    });
    expect([own.status, (own.body as { path_with_namespace: string }).path_with_namespace]).toEqual([
      201,
      "outsider/copy",
    ]);
  });

  it.each([
    ["not gzip", Buffer.from("plain text"), "export.tar.gz: it is not a gzip-compressed tar archive"],
    ["gzip but not tar", gzipSync(Buffer.from("x".repeat(600))), "export.tar.gz: it is not a tar archive"],
    ["no project.json", archive({ VERSION: "0.2.4" }), "export.tar.gz: The import file is incompatible"],
    [
      "another format version",
      archive({ VERSION: "0.2.3", "project.json": "{}" }),
      "export.tar.gz: Import version mismatch: Required 0.2.4 but was 0.2.3",
    ],
    [
      "project.json not JSON",
      archive({ "project.json": "{" }),
      "export.tar.gz: project.json is not valid JSON",
    ],
    [
      "JSON nested deeper than 100 levels",
      archive({ "project.json": `{"a":${"[".repeat(101)}${"]".repeat(101)}}` }),
      "export.tar.gz: project.json nests deeper than 100 levels",
    ],
    [
      "a forbidden name",
      archive({ "project.json": '{"project_feature":{"__proto__":{}}}' }),
      'export.tar.gz: project.json: the name "__proto__" is not allowed',
    ],
    [
      "a field of the wrong type",
      archive({ "project.json": '{"build_timeout":"long"}' }),
      "export.tar.gz: project.json: build_timeout must be an integer",
    ],
    [
      "a public level on a feature other than pages",
      archive({ "project.json": '{"project_feature":{"issues_access_level":30}}' }),
      "export.tar.gz: project.json: project_feature.issues_access_level must be 0, 10 or 20",
    ],
    [
      "more than 10,000 members",
      archive({
        "project.json": JSON.stringify({
          project_members: Array.from({ length: 10_001 }, () => ({
            access_level: 30,
            user: { email: "a@b" },
          })),
        }),
      }),
      "export.tar.gz: project.json: more than 10000 project_members",
    ],
  ])(
    "an archive the worker would fail (%s): the project is created, import_status failed with the reason",
    async (_what, file, reason) => {
      c = await sandbox({ fixture });
      const r = await c.call("POST", "/projects/import", {
        token: "maint-token",
        multipart: importForm(file, { path: "broken", namespace: "acme" }),
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ import_status: "failed" });
      expect((r.body as { import_error: string }).import_error).toContain(reason);
      const status = await c.call("GET", "/projects/acme%2Fbroken/import", { token: "maint-token" });
      expect(status.body).toMatchObject({ import_status: "failed" });
      expect((await c.call("GET", "/projects/acme%2Fbroken", { token: "maint-token" })).body).toMatchObject({
        import_status: "failed",
        merge_method: "merge",
      });
    },
  );

  it("an archive GNU tar made from an export imports (./ prefixes)", async () => {
    c = await sandbox({ fixture });
    const file = archive({
      "./VERSION": "0.2.4",
      "./project.json": JSON.stringify({ description: "From tar", project_setting: { squash_option: 0 } }),
    });
    const r = await c.call("POST", "/projects/import", {
      token: "maint-token",
      multipart: importForm(file, { path: "from-tar", namespace: "acme" }),
    });
    expect(r.body).toMatchObject({ import_status: "finished", description: "From tar" });
    expect((await c.call("GET", "/projects/acme%2Ffrom-tar", { token: "maint-token" })).body).toMatchObject({
      squash_option: "never",
    });
  });

  it("GET /projects/:id/import of a project that was not imported says none; a hidden project is 404", async () => {
    c = await sandbox({ fixture });
    expect((await c.call("GET", `${API}/import`, { token: "dev-token" })).body).toMatchObject({
      import_status: "none",
      import_error: null,
    });
    expect((await c.call("GET", `${API}/import`, { token: null })).status).toBe(404);
  });
});
