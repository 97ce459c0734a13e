/**
 * Creating and deleting projects with the safety a group delete has, and the order the platform needs: a project's
 * export archive is downloaded, checked and saved before it is deleted (or not at all with --no-backup); a project
 * marked absent inside a group marked absent is deleted on its own first, with its own archive; an archived project
 * is unarchived before anything in it changes and archived after; a project and its group change visibility in the
 * order the platform allows; what only an Owner may do is refused in the plan for a Maintainer.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planFromManifests } from "../../src/cli/workflow.js";
import { ADMIN_TOKEN, Bench, USER_TOKEN } from "./helpers.js";
import { type RunningProxy, startProxy } from "./proxy.js";

const BADGE = '{ name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }';

/** keep/app archived with a new badge and its stale one pruned; keep/frozen unarchived with a new badge. */
const ARCHIVE_ONE_UNARCHIVE_ONE = `version: 1
projects:
  keep/app:
    archived: true
    badges:
      - ${BADGE}
    unmanaged: { badges: delete }
  keep/frozen:
    archived: false
    badges:
      - ${BADGE}
`;

const fixture = {
  groups: [
    { path: "gone", visibility: "private" },
    { path: "keep", visibility: "public", members: { "sandbox-user": "maintainer" } },
  ],
  projects: [
    { path: "gone/p1", description: "goes with its group" },
    { path: "gone/p2", description: "marked absent too" },
    { path: "keep/old", description: "to delete" },
    { path: "keep/app", visibility: "public" },
    { path: "keep/frozen", archived: true },
  ],
  badges: [
    {
      project: "keep/app",
      name: "stale",
      link_url: "https://s.example",
      image_url: "https://s.example/b.svg",
    },
  ],
};

describe("projects created and deleted, in order", () => {
  let bench: Bench;
  let proxy: RunningProxy | undefined;
  /** Writes through the proxy, in the order they were sent (`POST /projects/keep%2Fapp/archive`). */
  let sent: string[];
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
    sent = [];
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await bench.stop();
  });

  /** The id of the group or project at `path`, as the platform numbers it. */
  const id = async (kind: "groups" | "projects", path: string) =>
    (await bench.get<{ id: number }>(`/${kind}/${encodeURIComponent(path)}`)).id;

  const exists = (path: string) =>
    bench.get(path).then(
      () => true,
      () => false,
    );

  /**
   * A proxy that records every write and lets it through (or answers the download itself). A write matching `hold`
   * is held until the next write arrives, or for 200 ms, and goes on after it: a write that waits for it, as it
   * should, cannot overtake it; one that does not wait does, whatever the order apply started them in.
   */
  async function recording(download?: Buffer, hold?: RegExp): Promise<Record<string, string>> {
    let held: (() => void) | undefined;
    proxy = await startProxy(bench.sandbox.url, (req, res) => {
      const path = (req.url ?? "").replace(/^\/api\/v4/, "").replace(/\?.*$/, "");
      const write = `${req.method} ${path}`;
      if (hold && req.method !== "GET" && hold.test(write)) {
        // Recorded when it goes on to the sandbox.
        return new Promise<boolean>((resolve) => {
          let gone = false;
          const go = () => {
            if (gone) return;
            gone = true;
            held = undefined;
            sent.push(write);
            resolve(false);
          };
          held = () => setTimeout(go, 20);
          setTimeout(go, 200);
        });
      }
      if (req.method !== "GET") {
        sent.push(write);
        held?.();
      }
      if (download && /\/export\/download$/.test(path)) {
        res.writeHead(200, { "Content-Type": "text/html", "Content-Length": String(download.length) });
        res.end(download);
        return true;
      }
      return false;
    });
    return { FORGEFORM_URL: proxy.url };
  }

  it("deletes a project only once its checked export archive is saved, and not at all when it does not check out", async () => {
    const m = bench.manifest("version: 1\nprojects:\n  keep/old:\n    state: absent\n");
    const dir = join(bench.dir, "backups");
    const old = await id("projects", "keep/old");
    const env = await recording(Buffer.from("<!DOCTYPE html><html>Sign in</html>"));
    const refused = await bench.cli(["apply", "--yes", "--backup-dir", dir, m], env);
    expect(refused.code).toBe(1);
    const said = refused.out.replace(/\n\s+/g, " ");
    expect(said).toContain('project["keep/old"]: failed: not deleted: saving its backup to');
    expect(said).toContain("the download is not a gzip archive");
    expect(said).toContain("or apply with --no-backup to delete it without one");
    expect(await exists("/projects/keep%2Fold")).toBe(true);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    // The export was asked for and waited for; nothing was deleted.
    expect(sent).toEqual([`POST /projects/${old}/export`]);

    await proxy?.close();
    proxy = undefined;
    const applied = await bench.cli(["apply", "--yes", "--backup-dir", dir, m]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(readdirSync(dir)).toEqual(["project-keep%2Fold.tar.gz"]);
    expect(await exists("/projects/keep%2Fold")).toBe(false);
    const again = await bench.cli(["plan", "--detailed-exitcode", m]);
    expect(again.code, again.out).toBe(0);
  });

  it("downloads the export only once the platform says it is finished, and deletes nothing when it failed", async () => {
    const m = bench.manifest("version: 1\nprojects:\n  keep/old:\n    state: absent\n");
    const old = await id("projects", "keep/old");
    // The platform's answers to the checks of the export's status, in turn (the sandbox's own after them).
    let statuses: string[] = [];
    const checks: string[] = [];
    proxy = await startProxy(bench.sandbox.url, (req, res) => {
      const path = (req.url ?? "").replace(/^\/api\/v4/, "").replace(/\?.*$/, "");
      if (req.method === "GET" && /\/export(\/download)?$/.test(path)) checks.push(path);
      if (req.method !== "GET" || !path.endsWith("/export")) return false;
      const status = statuses.shift();
      if (status === undefined) return false;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ id: old, export_status: status }));
      return true;
    });
    const env = { FORGEFORM_URL: proxy.url };
    statuses = ["failed"];
    const failed = await bench.cli(["apply", "--yes", "--backup-dir", join(bench.dir, "failed"), m], env);
    expect(failed.code).toBe(1);
    expect(failed.out.replace(/\n\s+/g, " ")).toContain(
      `(the platform's export of the project failed (export_status "failed" after 1 check))`,
    );
    expect(await exists("/projects/keep%2Fold")).toBe(true);
    expect(checks).toEqual([`/projects/${old}/export`]);

    checks.length = 0;
    statuses = ["started"];
    const dir = join(bench.dir, "later");
    const applied = await bench.cli(["apply", "--yes", "--backup-dir", dir, m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(checks).toEqual([
      `/projects/${old}/export`,
      `/projects/${old}/export`,
      `/projects/${old}/export/download`,
    ]);
    expect(readdirSync(dir)).toEqual(["project-keep%2Fold.tar.gz"]);
    expect(await exists("/projects/keep%2Fold")).toBe(false);
  });

  it("deletes without an archive with --no-backup, and says so in the plan", async () => {
    const m = bench.manifest("version: 1\nprojects:\n  keep/old:\n    state: absent\n");
    const plan = await bench.cli(["plan", "--no-backup", m]);
    expect(plan.out).toContain('- project["keep/old"] will be deleted');
    expect(plan.out).not.toContain("export archive");
    const old = await id("projects", "keep/old");
    const env = await recording();
    const applied = await bench.cli(["apply", "--yes", "--no-backup", m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(sent).toEqual([`DELETE /projects/${old}`]);
    expect(existsSync(join(bench.dir, ".forgeform"))).toBe(false);
  });

  it("reads a project marked absent that lists what it holds: the delete shows what it was, and a missing one plans nothing", async () => {
    // Collections under an entry marked absent are the user's leftovers: the project itself is read, as any
    // project marked absent (one addressed by path without a read would be "deleted" whether or not it exists).
    const m = bench.manifest(
      `version: 1\nprojects:\n  keep/old:\n    state: absent\n    badges: [${BADGE}]\n  keep/never:\n    state: absent\n    badges: [${BADGE}]\n`,
    );
    const run = await bench.cli(["plan", "--no-backup", "--format", "json", m]);
    expect(run.code, run.err).toBe(0);
    const plan = JSON.parse(run.out) as {
      changes: {
        address: string;
        action: string;
        live_id?: number;
        fields: { field: string; before?: unknown }[];
      }[];
    };
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([['project["keep/old"]', "delete"]]);
    expect(plan.changes[0]!.live_id).toBe(await id("projects", "keep/old"));
    expect(plan.changes[0]!.fields).toContainEqual({ field: "description", before: "to delete" });
  });

  it("deletes a project marked absent inside a group marked absent on its own, with its archive, before the group", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  gone:\n    state: absent\nprojects:\n  gone/p2:\n    state: absent\n",
    );
    const plan = await bench.cli(["plan", "--format", "json", m]);
    const changes = (JSON.parse(plan.out) as { changes: { address: string; deleted_with?: string }[] })
      .changes;
    expect(changes.map((c) => [c.address, c.deleted_with])).toEqual(
      [
        ['project["gone/p1"]', 'group["gone"]'],
        ['group["gone"]', undefined],
        ['project["gone/p2"]', undefined],
      ].sort(
        (a, b) => changes.findIndex((c) => c.address === a[0]) - changes.findIndex((c) => c.address === b[0]),
      ),
    );
    const dir = join(bench.dir, "saved");
    const [group, p2] = [await id("groups", "gone"), await id("projects", "gone/p2")];
    const env = await recording();
    const applied = await bench.cli(["apply", "--yes", "--max-deletes", "3", "--backup-dir", dir, m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["group-gone.tar.gz", "project-gone%2Fp2.tar.gz"]);
    const deleteProject = sent.indexOf(`DELETE /projects/${p2}`);
    expect(deleteProject).toBeGreaterThan(sent.indexOf(`POST /projects/${p2}/export`));
    expect(sent.indexOf(`POST /projects/${p2}/export`)).toBeGreaterThan(-1);
    expect(sent.indexOf(`DELETE /groups/${group}`)).toBeGreaterThan(deleteProject);
  });

  it("archives a project after what changes inside it, deletes included, and unarchives one before", async () => {
    const m = bench.manifest(ARCHIVE_ONE_UNARCHIVE_ONE);
    const [app, frozen] = [await id("projects", "keep/app"), await id("projects", "keep/frozen")];
    // The unarchive is held until another write comes: a badge that did not wait for it would reach the archived
    // project first, and be refused.
    const env = await recording(undefined, /^POST \/projects\/\d+\/unarchive$/);
    const applied = await bench.cli(["apply", "--yes", m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const at = (write: string) => sent.findIndex((s) => s.startsWith(write));
    // keep/app: its new badge and the pruned one first, then the archive.
    const archive = at(`POST /projects/${app}/archive`);
    expect(archive).toBeGreaterThan(at(`POST /projects/${app}/badges`));
    expect(archive).toBeGreaterThan(at(`DELETE /projects/${app}/badges/`));
    expect(at(`DELETE /projects/${app}/badges/`)).toBeGreaterThan(-1);
    // keep/frozen: unarchived, then its badge.
    const unarchive = at(`POST /projects/${frozen}/unarchive`);
    expect(unarchive).toBeGreaterThan(-1);
    expect(unarchive).toBeLessThan(at(`POST /projects/${frozen}/badges`));
    expect(await bench.get("/projects/keep%2Fapp")).toMatchObject({ archived: true });
    expect(await bench.get("/projects/keep%2Ffrozen")).toMatchObject({ archived: false });
    const again = await bench.cli(["plan", "--detailed-exitcode", m]);
    expect(again.code, again.out).toBe(0);
  });

  it("orders without a cycle: what is inside waits for an unarchive, and an archive waits for what is inside", async () => {
    const m = bench.manifest(ARCHIVE_ONE_UNARCHIVE_ONE);
    const outcome = await planFromManifests({
      paths: [m],
      connection: { url: bench.sandbox.url, token: ADMIN_TOKEN },
    });
    await outcome.api?.close();
    const deps = Object.fromEntries(outcome.result!.steps.map((s) => [s.change.address, s.deps]));
    expect(deps).toEqual({
      'project["keep/app"]': ['project["keep/app"].badge["docs"]', 'project["keep/app"].badge["stale"]'],
      'project["keep/app"].badge["docs"]': [],
      'project["keep/app"].badge["stale"]': [],
      'project["keep/frozen"]': [],
      'project["keep/frozen"].badge["docs"]': ['project["keep/frozen"]'],
    });
  });

  it("warns that changes inside an archived project that stays archived may be refused", async () => {
    // Read for its settings (a project that declares none is not read, and its archived state is not known).
    const m = bench.manifest(
      `version: 1\nprojects:\n  keep/frozen:\n    request_access_enabled: true\n    badges:\n      - ${BADGE}\n`,
    );
    const plan = await bench.cli(["plan", m]);
    const warning =
      'project["keep/frozen"]: 1 change below it may be refused: it is archived, and the platform keeps an archived project read-only: set archived: false to unarchive it first';
    expect(plan.out.replace(/\n\s+/g, " ")).toContain(warning);
    // Declared archived, it stays archived all the same.
    const declared = bench.manifest(
      `version: 1\nprojects:\n  keep/frozen:\n    archived: true\n    badges:\n      - ${BADGE}\n`,
    );
    const again = await bench.cli(["plan", declared]);
    expect(again.out.replace(/\n\s+/g, " ")).toContain(warning);
  });

  it("counts only changes as what may be refused inside an archived project, not the objects it leaves alone", async () => {
    // An undeclared badge in the archived project, left alone (prune policy warn): it changes nothing.
    const frozen = await id("projects", "keep/frozen");
    await bench.send("POST", `/projects/${frozen}/unarchive`);
    await bench.send("POST", `/projects/${frozen}/badges`, {
      name: "stale",
      link_url: "https://s.example",
      image_url: "https://s.example/b.svg",
    });
    await bench.send("POST", `/projects/${frozen}/archive`);
    const text = (manifest: string) =>
      bench.cli(["plan", bench.manifest(manifest)]).then((r) => r.out.replace(/\n\s+/g, " "));
    const one = await text(
      `version: 1\nprojects:\n  keep/frozen:\n    request_access_enabled: true\n    badges:\n      - ${BADGE}\n`,
    );
    expect(one).toContain('project["keep/frozen"]: 1 change below it may be refused');
    expect(one).toContain('badge["stale"]');
    const none = await text(
      "version: 1\nprojects:\n  keep/frozen:\n    request_access_enabled: true\n    badges: []\n",
    );
    expect(none).toContain('badge["stale"]');
    expect(none).not.toContain("may be refused");
  });

  it("refuses to create a project archived with changes inside it, which would follow its create", async () => {
    const m = bench.manifest(
      `version: 1\nprojects:\n  keep/vault:\n    archived: true\n    badges:\n      - ${BADGE}\n`,
    );
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\n\s+/g, " ")).toContain(
      "it is created archived, and 1 change inside it would follow its create",
    );
    // Archived and empty: created, then archived.
    const empty = bench.manifest("version: 1\nprojects:\n  keep/vault:\n    archived: true\n", "empty.yaml");
    expect((await bench.cli(["apply", "--yes", empty])).code).toBe(0);
    expect(await bench.get("/projects/keep%2Fvault")).toMatchObject({ archived: true });
  });

  it("lowers a project's visibility before its group's, and raises a group's before its project's", async () => {
    const lower = bench.manifest(
      "version: 1\ngroups:\n  keep: { visibility: private }\nprojects:\n  keep/app: { visibility: private }\n",
    );
    const [group, app] = [await id("groups", "keep"), await id("projects", "keep/app")];
    const env = await recording();
    const applied = await bench.cli(["apply", "--yes", lower], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(sent.indexOf(`PUT /projects/${app}`)).toBeLessThan(sent.indexOf(`PUT /groups/${group}`));
    expect(sent.indexOf(`PUT /projects/${app}`)).toBeGreaterThan(-1);
    sent.length = 0;
    const raise = bench.manifest(
      "version: 1\ngroups:\n  keep: { visibility: internal }\nprojects:\n  keep/app: { visibility: internal }\n",
      "raise.yaml",
    );
    const raised = await bench.cli(["apply", "--yes", raise], env);
    expect(raised.code, raised.out + raised.err).toBe(0);
    expect(sent.indexOf(`PUT /groups/${group}`)).toBeLessThan(sent.indexOf(`PUT /projects/${app}`));
    expect(sent.indexOf(`PUT /groups/${group}`)).toBeGreaterThan(-1);
    expect(await bench.get("/projects/keep%2Fapp")).toMatchObject({ visibility: "internal" });
  });

  it("refuses a project more visible than its group, a group lowered below a project that stays, and a replaced project", async () => {
    // The group as it is on the platform: found in the plan.
    const m = bench.manifest("version: 1\nprojects:\n  gone/p1: { visibility: internal }\n");
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\n\s+/g, " ")).toContain(
      'project["gone/p1"].visibility: visibility internal is not allowed: its group gone is private, and the platform refuses a project more visible than its group',
    );
    // The group as the manifests declare it: found by validate.
    const declared = bench.manifest(
      "version: 1\ngroups:\n  gone: { visibility: private }\nprojects:\n  gone/p1: { visibility: internal }\n",
      "declared.yaml",
    );
    const invalid = await bench.cli(["validate", declared]);
    expect(invalid.code).toBe(1);
    expect(invalid.out + invalid.err).toContain(
      'projects["gone/p1"].visibility: internal is not allowed since the project\'s group gone is private; use private or less',
    );
    const app = bench.manifest("version: 1\nprojects:\n  keep/app: { description: kept }\n", "app.yaml");
    const replaced = await bench.cli(["plan", "--replace", 'project["keep/app"]', app]);
    expect(replaced.code).toBe(1);
    expect(replaced.out.replace(/\n\s+/g, " ")).toContain(
      "a project is never replaced: deleting it would take everything in it",
    );
    const group = bench.manifest("version: 1\ngroups:\n  keep: { visibility: private }\n", "group.yaml");
    const refused = await bench.cli(["plan", group]);
    expect(refused.code).toBe(1);
    expect(refused.out.replace(/\n\s+/g, " ")).toContain("project keep/app (public)");
  });

  it("refuses in the plan what only an Owner may do, for a Maintainer's token", async () => {
    const m = bench.manifest(
      "version: 1\nprojects:\n  keep/app: { visibility: internal, description: fine, emails_disabled: true }\n  keep/old: { state: absent }\n",
    );
    const plan = await bench.cli(["plan", "--format", "json", m], { FORGEFORM_TOKEN: USER_TOKEN });
    expect(plan.code).toBe(1);
    const errors = (JSON.parse(plan.out) as { errors: { address: string; message: string }[] }).errors;
    expect(errors.map((e) => [e.address, e.message])).toEqual([
      [
        'project["keep/app"].visibility',
        "changing visibility needs the Owner role on the project, and the token's user is a Maintainer (the platform refuses it): use an Owner's or an administrator's token, or leave visibility out",
      ],
      [
        'project["keep/app"].emails_disabled',
        "changing emails_disabled needs the Owner role on the project, and the token's user is a Maintainer (the platform ignores it): use an Owner's or an administrator's token, or leave emails_disabled out",
      ],
      [
        'project["keep/old"]',
        "deleting a project needs the Owner role on it, and the token's user is a Maintainer: use an Owner's or an administrator's token",
      ],
    ]);
    // What a Maintainer may change plans clean.
    const fine = bench.manifest("version: 1\nprojects:\n  keep/app: { description: fine }\n", "fine.yaml");
    expect((await bench.cli(["apply", "--yes", fine], { FORGEFORM_TOKEN: USER_TOKEN })).code).toBe(0);
    // An Owner (exactly the level needed, here of the project's group) may delete it: nothing refused.
    const [user] = await bench.get<{ id: number }[]>("/users?username=sandbox-user");
    const owned = await bench.send<{ id: number }>("POST", "/groups", { name: "owned", path: "owned" });
    await bench.send("POST", `/groups/${owned.id}/members`, { user_id: user!.id, access_level: 50 });
    await bench.send("POST", "/projects", { path: "doomed", namespace_id: owned.id });
    const owner = bench.manifest("version: 1\nprojects:\n  owned/doomed: { state: absent }\n", "owner.yaml");
    const planned = JSON.parse(
      (await bench.cli(["plan", "--format", "json", owner], { FORGEFORM_TOKEN: USER_TOKEN })).out,
    ) as { errors: unknown[]; changes: { address: string; action: string }[] };
    expect(planned.errors).toEqual([]);
    expect(planned.changes.map((c) => [c.address, c.action])).toEqual([
      ['project["owned/doomed"]', "delete"],
    ]);
    // A public project the token's user has no role on at all.
    const open = await bench.send<{ id: number }>("POST", "/groups", {
      name: "open",
      path: "open",
      visibility: "public",
    });
    await bench.send("POST", "/projects", { path: "thing", namespace_id: open.id, visibility: "public" });
    const stranger = bench.manifest("version: 1\nprojects:\n  open/thing: { state: absent }\n", "open.yaml");
    const refused = JSON.parse(
      (await bench.cli(["plan", "--format", "json", stranger], { FORGEFORM_TOKEN: USER_TOKEN })).out,
    ) as { errors: { address: string; message: string }[] };
    expect(refused.errors.map((e) => [e.address, e.message])).toEqual([
      [
        'project["open/thing"]',
        "deleting a project needs the Owner role on it, and the token's user is not a member: use an Owner's or an administrator's token",
      ],
    ]);
    const renamed = bench.manifest("version: 1\nprojects:\n  open/thing: { name: Renamed }\n", "rename.yaml");
    const refusedName = JSON.parse(
      (await bench.cli(["plan", "--format", "json", renamed], { FORGEFORM_TOKEN: USER_TOKEN })).out,
    ) as { errors: { address: string; message: string }[] };
    expect(refusedName.errors.map((e) => [e.address, e.message])).toEqual([
      [
        'project["open/thing"].name',
        "changing name needs the Owner role on the project, and the token's user is not a member (the platform refuses it): use an Owner's or an administrator's token, or leave name out",
      ],
    ]);
  });

  it("refuses to create a project inside a group this plan deletes, and says how marking a project absent helps", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  gone:\n    state: absent\nprojects:\n  gone/fresh:\n    description: new\n  gone/p1:\n    description: kept\n",
    );
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    const said = plan.out.replace(/\n\s+/g, " ");
    expect(said).toContain(
      'project["gone/fresh"]: it would be created inside group gone, which is marked "state: absent": the platform would delete it with the group',
    );
    expect(said).toContain(
      "Remove gone/p1 from the manifests (or mark it absent too: it is then deleted first, after its own backup), or keep gone",
    );
  });

  it("creates a project in a group the same apply creates, after it, and plans nothing more", async () => {
    const m = bench.manifest(`version: 1
groups:
  keep/team: { visibility: internal }
projects:
  keep/team/svc:
    description: a new service
    visibility: internal
    badges:
      - ${BADGE}
`);
    const plan = await bench.cli(["plan", m]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain('+ group["keep/team"] will be created');
    expect(plan.out).toContain('+ project["keep/team/svc"] will be created');
    const applied = await bench.cli(["apply", "--yes", m]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(await bench.get("/projects/keep%2Fteam%2Fsvc")).toMatchObject({
      description: "a new service",
      visibility: "internal",
      namespace: { full_path: "keep/team" },
    });
    const again = await bench.cli(["plan", "--detailed-exitcode", m]);
    expect(again.code, again.out).toBe(0);
  });

  it("never deletes through a pattern", async () => {
    const m = bench.manifest("version: 1\nprojects:\n  keep/*:\n    state: absent\n");
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain("a pattern never deletes");
  });
});
