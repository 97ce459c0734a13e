import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyFixture } from "../../src/sandbox/fixture.js";
import { createSandboxApp, startSandbox } from "../../src/sandbox/server.js";
import { Store } from "../../src/sandbox/store.js";
import { sandbox } from "./helpers.js";

const dir = () => mkdtempSync(join(tmpdir(), "sbx-state-"));

describe("state persistence", () => {
  it("writes after every write request and loads it on the next start", async () => {
    const statePath = join(dir(), "state.json");
    const a = await sandbox({ statePath });
    const created = await a.admin("POST", "/groups", { name: "kept", path: "kept" });
    expect(created.status).toBe(201);
    const onDisk = JSON.parse(readFileSync(statePath, "utf8")) as { groups: { path: string }[] };
    expect(onDisk.groups.map((g) => g.path)).toEqual(["kept"]);
    await a.sb.stop();

    const b = await sandbox({ statePath, fixture: { groups: [{ path: "ignored" }] } });
    try {
      const r = await b.admin("GET", "/groups/kept");
      expect(r.status).toBe(200);
      expect((r.body as { id: number }).id).toBe((created.body as { id: number }).id);
      expect((await b.admin("GET", "/groups/ignored")).status).toBe(404);
      const next = await b.admin("POST", "/groups", { name: "next", path: "next" });
      expect((next.body as { id: number }).id).toBeGreaterThan((created.body as { id: number }).id);
    } finally {
      await b.sb.stop();
    }
  });

  it("a corrupt state file is a clear error and is left untouched", () => {
    const statePath = join(dir(), "state.json");
    writeFileSync(statePath, '{"format": "forgeform-sandbox-state", ');
    expect(() => createSandboxApp({ statePath })).toThrow(
      `sandbox: state file ${statePath} is not valid JSON at line 1, column 39 (Expected double-quoted property name); move it away or fix it`,
    );
    expect(readFileSync(statePath, "utf8")).toBe('{"format": "forgeform-sandbox-state", ');
  });

  it("a JSON file that is not sandbox state is refused too", () => {
    const statePath = join(dir(), "state.json");
    writeFileSync(statePath, '{"hello": 1}');
    expect(() => createSandboxApp({ statePath })).toThrow(
      /is not a forgeform sandbox state.*move it away or fix it/,
    );
  });

  it("module areas persist with the rest", async () => {
    const statePath = join(dir(), "state.json");
    const first = createSandboxApp({ statePath });
    first.store.area("example", () => ({ rows: [1, 2] }));
    first.store.persist();
    const second = createSandboxApp({ statePath });
    expect(second.store.area("example", () => ({ rows: [] as number[] }))).toEqual({ rows: [1, 2] });
  });
});

describe("fixture loading", () => {
  it("loads users with tokens, groups with members, projects, from YAML", async () => {
    const path = join(dir(), "fixture.yaml");
    writeFileSync(
      path,
      [
        "users:",
        "  - { username: dana, name: Dana, token: dana-token }",
        "groups:",
        "  - { path: top, visibility: private, members: { dana: maintainer } }",
        "projects:",
        "  - { path: top/app, default_branch: trunk }",
      ].join("\n"),
    );
    const c = await sandbox({ fixture: path });
    try {
      const me = await c.call("GET", "/user", { token: "dana-token" });
      expect(me.body).toMatchObject({ username: "dana", name: "Dana", email: "dana@example.com" });
      const p = await c.call("GET", "/projects/top%2Fapp", { token: "dana-token" });
      expect(p.body).toMatchObject({ default_branch: "trunk", path_with_namespace: "top/app" });
      const members = (await c.admin("GET", "/groups/top/members")).body as {
        username: string;
        access_level: number;
      }[];
      expect(members).toEqual([expect.objectContaining({ username: "dana", access_level: 40 })]);
    } finally {
      await c.sb.stop();
    }
  });

  it("names the entry and the fix when something is wrong", () => {
    expect(() => createSandboxApp({ fixture: { groups: [{ path: "a/b" }] } })).toThrow(
      'sandbox: fixture <inline>: groups[0] (a/b): parent group "a" is not defined; list parents before children',
    );
    expect(() => createSandboxApp({ fixture: { groups: [{ path: "g", members: { nobody: 30 } }] } })).toThrow(
      /groups\[0\] \(g\)\.members names user "nobody", which is not in users/,
    );
    expect(() => createSandboxApp({ fixture: { widgets: [] } })).toThrow(
      /top-level key "widgets" is not known/,
    );
  });

  it("hands unknown keys to the module that registered them, after the core records exist", () => {
    const seen: unknown[] = [];
    const store = new Store();
    const hook = (v: unknown, fx: { store: Store; source: string }) => {
      seen.push([v, fx.store.groupByFullPath("g")?.path, fx.source]);
    };
    applyFixture(store, { widgets: [1, 2], groups: [{ path: "g" }] }, new Map([["widgets", hook]]), "f.yaml");
    expect(seen).toEqual([[[1, 2], "g", "f.yaml"]]);
    const { app } = createSandboxApp({});
    app.onFixture("widgets", () => {});
    expect(() => app.onFixture("widgets", () => {})).toThrow(/two handlers/);
  });

  it("the example fixture loads", async () => {
    const c = await sandbox({ fixture: "examples/sandbox-fixture.yaml" });
    try {
      const r = await c.call("GET", "/projects/acme%2Fplatform%2Fapi", { token: "bob-sandbox-token" });
      expect(r.status).toBe(200);
      expect((r.body as { shared_with_groups: unknown[] }).shared_with_groups).toEqual([
        expect.objectContaining({ group_full_path: "acme/platform", group_access_level: 30 }),
      ]);
      const members = (await c.admin("GET", "/projects/acme%2Fplatform%2Fapi/members")).body as {
        username: string;
      }[];
      expect(members.map((m) => m.username)).toEqual(["release-bot"]);
    } finally {
      await c.sb.stop();
    }
  });
});

describe("state file location", () => {
  it("says which directory is missing when the state file cannot be written", () => {
    const statePath = join(dir(), "missing-dir", "state.json");
    expect(() => createSandboxApp({ statePath })).toThrow(
      `sandbox: cannot write state file ${statePath}: the directory ${join(statePath, "..")} does not exist; create it or choose another state file`,
    );
  });
});

describe("a write whose state cannot be saved", () => {
  it("is a 500, changes nothing in memory, loses no earlier write, and the sandbox saves again once it can", async () => {
    const home = join(dir(), "state-dir");
    mkdirSync(home);
    const statePath = join(home, "state.json");
    const log: string[] = [];
    const c = await sandbox({ statePath, log: (line) => log.push(line) });
    try {
      expect((await c.admin("POST", "/groups", { name: "kept", path: "kept" })).status).toBe(201);
      // The state cannot be written any more: its directory is gone (a disk unmounted, a directory removed).
      rmSync(home, { recursive: true });
      const lost = await c.call("POST", "/groups", {
        token: "user-token",
        json: { name: "lost", path: "lost" },
      });
      expect([lost.status, lost.body]).toEqual([500, { message: "500 Internal Server Error" }]);
      // Memory is as it was before the failed write: the group is not there, the earlier one is.
      expect((await c.admin("GET", "/groups/lost")).status).toBe(404);
      expect((await c.admin("GET", "/groups/kept")).status).toBe(200);
      // The operator learns why, in the sandbox's log.
      expect(log.join("\n")).toContain(
        `sandbox: cannot write state file ${statePath}: the directory ${home}`,
      );
      expect(log.join("\n")).toContain("POST /api/v4/groups answered 500 and was undone");
      // Every write fails the same way while the state cannot be saved, and undoes itself.
      const update = await c.admin("PUT", "/groups/kept", { description: "changed" });
      expect(update.status).toBe(500);
      expect(((await c.admin("GET", "/groups/kept")).body as { description: string }).description).toBe("");
      // Once the state can be written again, the next write saves everything kept so far, and nothing undone.
      mkdirSync(home);
      expect((await c.admin("POST", "/groups", { name: "next", path: "next" })).status).toBe(201);
      const onDisk = JSON.parse(readFileSync(statePath, "utf8")) as { groups: { path: string }[] };
      expect(onDisk.groups.map((g) => g.path)).toEqual(["kept", "next"]);
      expect(readdirSync(home)).toEqual(["state.json"]);
    } finally {
      await c.sb.stop();
    }
    const again = await sandbox({ statePath });
    try {
      expect((await again.admin("GET", "/groups/kept")).status).toBe(200);
      expect((await again.admin("GET", "/groups/next")).status).toBe(200);
      expect((await again.admin("GET", "/groups/lost")).status).toBe(404);
    } finally {
      await again.sb.stop();
    }
  });
});

describe("tokens given at start", () => {
  const whoAmI = async (url: string, token: string) => {
    const res = await fetch(`${url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": token } });
    return res.status === 200 ? ((await res.json()) as { username: string }).username : res.status;
  };

  it("replace those of earlier starts: a restart with another token revokes the old one; fixture tokens stay", async () => {
    const statePath = join(dir(), "state.json");
    const fixture = { users: [{ username: "dana", token: "dana-token" }] };
    const first = await startSandbox({ statePath, fixture, adminToken: "admin-1", userToken: "user-1" });
    expect(await whoAmI(first.url, "admin-1")).toBe("root");
    expect(await whoAmI(first.url, "user-1")).toBe("sandbox-user");
    await first.stop();

    const second = await startSandbox({ statePath, adminToken: "admin-2" });
    try {
      expect(await whoAmI(second.url, "admin-1")).toBe(401);
      expect(await whoAmI(second.url, "admin-2")).toBe("root");
      // Started without --user-token: a new random token, and the one of the earlier start no longer works.
      expect(await whoAmI(second.url, "user-1")).toBe(401);
      expect(await whoAmI(second.url, second.userToken)).toBe("sandbox-user");
      expect(await whoAmI(second.url, "dana-token")).toBe("dana");
    } finally {
      await second.stop();
    }

    const third = await startSandbox({ statePath, adminToken: "admin-2" });
    try {
      // Each start without --user-token leaves exactly one valid token of sandbox-user: its own.
      expect(await whoAmI(third.url, second.userToken)).toBe(401);
      expect(await whoAmI(third.url, third.userToken)).toBe("sandbox-user");
      expect(await whoAmI(third.url, "admin-2")).toBe("root");
    } finally {
      await third.stop();
    }
    const tokens = (JSON.parse(readFileSync(statePath, "utf8")) as { tokens: { name: string }[] }).tokens;
    expect(tokens.map((t) => t.name).sort()).toEqual(["admin", "fixture", "user"]);
  });
});
