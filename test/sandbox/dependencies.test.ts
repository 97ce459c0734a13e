import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "gst", token: "gst-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { dev: "developer", rep: "reporter", gst: "guest" } },
    { path: "pub", visibility: "public" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "pub/lib", visibility: "public" },
  ],
  dependencies: [
    {
      project: "acme/api",
      dependencies: [
        {
          name: "rails",
          version: "6.0.3",
          package_manager: "bundler",
          dependency_file_path: "Gemfile.lock",
          vulnerabilities: [{ name: "CVE-2020-8164 in rails", severity: "high" }],
        },
        {
          name: "lodash",
          version: "4.17.15",
          package_manager: "yarn",
          dependency_file_path: "yarn.lock",
          vulnerabilities: [{ name: "Prototype pollution in lodash", severity: "critical" }],
        },
        {
          name: "express",
          version: "4.17.1",
          package_manager: "npm",
          dependency_file_path: "package-lock.json",
        },
        {
          name: "requests",
          version: "2.24.0",
          package_manager: "pip",
          dependency_file_path: "requirements.txt",
        },
      ],
    },
    {
      project: "pub/lib",
      dependencies: [
        { name: "junit", version: "4.13", package_manager: "maven", dependency_file_path: "pom.xml" },
      ],
    },
  ],
};

type Dependency = { name: string; vulnerabilities?: unknown[] };

describe("dependencies [licensed, unstable]", () => {
  let c: Client;
  let core: Client;
  const path = "/projects/acme%2Fapi/dependencies";
  const names = async (query: string, token = "dev-token") => {
    const r = await c.call("GET", `${path}${query}`, { token });
    expect(r.status, r.text).toBe(200);
    return (r.body as Dependency[]).map((d) => d.name);
  };

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture, edition: "core" });
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  it("lists the project's dependencies by name, with vulnerabilities for a Developer; paginated", async () => {
    const r = await c.call("GET", path, { token: "dev-token" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        name: "express",
        version: "4.17.1",
        package_manager: "npm",
        dependency_file_path: "package-lock.json",
        vulnerabilities: [],
      },
      {
        name: "lodash",
        version: "4.17.15",
        package_manager: "yarn",
        dependency_file_path: "yarn.lock",
        vulnerabilities: [{ name: "Prototype pollution in lodash", severity: "critical" }],
      },
      {
        name: "rails",
        version: "6.0.3",
        package_manager: "bundler",
        dependency_file_path: "Gemfile.lock",
        vulnerabilities: [{ name: "CVE-2020-8164 in rails", severity: "high" }],
      },
      {
        name: "requests",
        version: "2.24.0",
        package_manager: "pip",
        dependency_file_path: "requirements.txt",
        vulnerabilities: [],
      },
    ]);
    expect(r.headers.get("x-total")).toBe("4");
    const page = await c.call("GET", `${path}?per_page=3&page=2`, { token: "dev-token" });
    expect((page.body as Dependency[]).map((d) => d.name)).toEqual(["requests"]);
  });

  it("package_manager: a single value, an array, comma-joined; other values are 400", async () => {
    expect(await names("?package_manager=yarn")).toEqual(["lodash"]);
    expect(await names("?package_manager[]=npm&package_manager[]=bundler")).toEqual(["express", "rails"]);
    expect(await names("?package_manager=pip,yarn")).toEqual(["lodash", "requests"]);
    expect(await names("?package_manager=maven")).toEqual([]);
    for (const query of ["?package_manager=gradle", "?package_manager=npm,cargo"]) {
      const r = await c.call("GET", `${path}${query}`, { token: "dev-token" });
      expect([r.status, r.body]).toEqual([400, { error: "package_manager does not have a valid value" }]);
    }
  });

  it("vulnerabilities only for callers who may read the security dashboard (Developer and above)", async () => {
    const rep = (await c.call("GET", path, { token: "rep-token" })).body as Dependency[];
    expect(rep.map((d) => d.name)).toEqual(["express", "lodash", "rails", "requests"]);
    expect(rep.every((d) => !("vulnerabilities" in d))).toBe(true);
    const admin = (await c.admin("GET", path)).body as Dependency[];
    expect(admin[1]!.vulnerabilities).toEqual([
      { name: "Prototype pollution in lodash", severity: "critical" },
    ]);
  });

  it("reading the repository is required: 401 guest, 404 invisible, 403 for a Guest member", async () => {
    const guest = await c.call("GET", path, { token: null });
    expect([guest.status, guest.body]).toEqual([401, { message: "401 Unauthorized" }]);
    const outsider = await c.call("GET", path, { token: "outsider-token" });
    expect([outsider.status, outsider.body]).toEqual([404, { message: "404 Project Not Found" }]);
    const member = await c.call("GET", path, { token: "gst-token" });
    expect([member.status, member.body]).toEqual([403, { message: "403 Forbidden" }]);
    const pub = await c.call("GET", "/projects/pub%2Flib/dependencies", { token: "outsider-token" });
    expect(pub.body).toEqual([
      { name: "junit", version: "4.13", package_manager: "maven", dependency_file_path: "pom.xml" },
    ]);
    expect((await c.call("GET", "/projects/pub%2Flib/dependencies", { token: null })).status).toBe(401);
  });

  it("absent on the core edition", async () => {
    const r = await core.call("GET", path, { token: "dev-token" });
    expect([r.status, r.body]).toEqual([404, { error: "404 Not Found" }]);
  });
});
