/**
 * Protected branches and tags over HTTP: the lifecycle of each (a change the platform cannot make in place is a
 * replacement that says the branch is unprotected between the two calls; code owner approval changes in place),
 * wildcards, levels by name, the licensed allowances by username and group path (waiting for the members and
 * shares the same plan makes), the platform's defaults compared where a manifest leaves a field out, and the core
 * edition.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";
import { startProxy } from "./proxy.js";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@example.com" },
    { username: "dave", name: "Dave Example", email: "dave@example.com" },
  ],
  groups: [
    { path: "acme", members: { alice: "maintainer" } },
    { path: "acme/platform" },
    { path: "partners" },
    { path: "vendors" },
  ],
  projects: [{ path: "acme/platform/api", default_branch: "main", shared_with: { partners: "developer" } }],
};

const API = "acme/platform/api";

interface Branch {
  push?: string | number;
  merge?: string | number;
  unprotect?: string;
  force?: boolean;
  codeOwner?: boolean;
  allowedToPush?: string[];
}

const yamlBranch = (name: string, b: Branch) =>
  [
    `      - name: "${name}"`,
    ...(b.push !== undefined ? [`        push_access_level: ${b.push}`] : []),
    ...(b.merge !== undefined ? [`        merge_access_level: ${b.merge}`] : []),
    ...(b.unprotect !== undefined ? [`        unprotect_access_level: ${b.unprotect}`] : []),
    ...(b.force !== undefined ? [`        allow_force_push: ${b.force}`] : []),
    ...(b.codeOwner !== undefined ? [`        code_owner_approval_required: ${b.codeOwner}`] : []),
    ...(b.allowedToPush ? [`        allowed_to_push: [${b.allowedToPush.join(", ")}]`] : []),
  ].join("\n");

function branches(list: [string, Branch][] | undefined, policy?: string, extra = ""): string {
  return `version: 1
projects:
  ${API}:
${extra}    protected_branches:${list ? `\n${list.map(([n, b]) => yamlBranch(n, b)).join("\n")}` : " []"}
${policy ? `    unmanaged: { protected_branches: ${policy} }\n` : ""}`;
}

const LEVEL: Record<string, number> = { no_access: 0, developer: 30, maintainer: 40, admin: 60 };
const num = (v: string | number | undefined, dflt = 40) =>
  v === undefined ? dflt : typeof v === "number" ? v : LEVEL[v]!;

type ApiAccess = { access_level: number | null; user_id?: number | null; group_id?: number | null };
type ApiBranch = {
  name: string;
  push_access_levels: ApiAccess[];
  merge_access_levels: ApiAccess[];
  unprotect_access_levels?: ApiAccess[];
  allow_force_push: boolean;
  code_owner_approval_required?: boolean;
};

describe("protected branches and tags [licensed]", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** An entry in words, users and groups by name (independent reads): `role:40`, `user:alice`, `group:partners`. */
  const words = async (levels: ApiAccess[]) =>
    (
      await Promise.all(
        levels.map(async (l) =>
          l.user_id != null
            ? `user:${(await bench.get<{ username: string }>(`/users/${l.user_id}`)).username}`
            : l.group_id != null
              ? `group:${(await bench.get<{ full_path: string }>(`/groups/${l.group_id}`)).full_path}`
              : `role:${l.access_level}`,
        ),
      )
    ).sort();

  const readBranches = async (name: string) =>
    Promise.all(
      (await bench.get<ApiBranch[]>(`/projects/${encodeURIComponent(API)}/protected_branches`))
        .filter((b) => b.name === name)
        .map(async (b) => ({
          name: b.name,
          push: await words(b.push_access_levels),
          merge: await words(b.merge_access_levels),
          unprotect: await words(b.unprotect_access_levels ?? []),
          allow_force_push: b.allow_force_push,
          code_owner_approval_required: b.code_owner_approval_required,
        })),
    );

  const expected = (b: Branch) => ({
    // `{ user: alice }` in words: `user:alice`.
    push: [`role:${num(b.push)}`, ...(b.allowedToPush ?? []).map((a) => a.replace(/[{} ]/g, ""))].sort(),
    merge: [`role:${num(b.merge)}`],
    unprotect: [`role:${num(b.unprotect)}`],
    allow_force_push: b.force ?? false,
    code_owner_approval_required: b.codeOwner ?? false,
  });

  it("a protected branch goes through the whole lifecycle: replacements that say why, code owners in place", async () => {
    const base: Branch = { push: "maintainer", merge: "maintainer" };
    await lifecycle<Branch>({
      bench,
      address: `project["${API}"].protected_branch["main"]`,
      render: (b, policy) => branches([["main", b]], policy),
      base,
      edits: [
        { values: { ...base, push: "developer" }, fields: ["push_access_level"], action: "replace" },
        { values: { ...base, push: 30, force: true }, fields: ["allow_force_push"], action: "replace" },
        {
          values: { ...base, push: 30, force: true, codeOwner: true },
          fields: ["code_owner_approval_required"],
        },
        {
          values: {
            ...base,
            push: 30,
            force: true,
            codeOwner: true,
            merge: "developer",
            unprotect: "developer",
          },
          fields: ["merge_access_level", "unprotect_access_level"],
          action: "replace",
        },
        {
          values: {
            ...base,
            push: 30,
            force: true,
            codeOwner: true,
            merge: "developer",
            unprotect: "developer",
            allowedToPush: ["{ user: alice }", "{ group: partners }"],
          },
          fields: ["allowed_to_push"],
          action: "replace",
        },
      ],
      without: (policy) => branches(undefined, policy),
      read: () => readBranches("main"),
      expected,
    });
  });

  it("says in the plan that a replaced branch is unprotected between the two calls, and ends protected", async () => {
    await apply(bench, bench.manifest(branches([["main", { push: "maintainer" }]])));
    const changed = bench.manifest(branches([["main", { push: "no_access" }]]));
    const plan = await bench.cli(["plan", changed]);
    expect(plan.code).toBe(0);
    // Reasons wrap over comment lines (`# ...`).
    const text = plan.out.replace(/\s+#\s+/g, " ").replace(/\s+/g, " ");
    expect(text).toContain(`-/+ project["${API}"].protected_branch["main"] will be replaced`);
    expect(text).toContain(
      "the platform (13.12) changes only code_owner_approval_required in place: the branch is unprotected, then protected again, and is unprotected for the moment between the two calls",
    );
    expect(text).toContain('~ push_access_level: "maintainer" -> "no_access"');
    const applied = await bench.cli(["apply", "--yes", "--debug", changed]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    // Unprotected, then protected again at once: the DELETE is followed by the POST.
    const writes = applied.err
      .split("\n")
      .filter((l) => /\b(DELETE|POST) \S*protected_branches/.test(l))
      .map((l) => l.match(/\b(DELETE|POST)\b/)![1]);
    expect(writes).toEqual(["DELETE", "POST"]);
    expect(await readBranches("main")).toMatchObject([{ push: ["role:0"] }]);
    await expectNoChanges(bench, changed);
  });

  it("protects a wildcard, with no_access, and compares the platform's defaults where a field is left out", async () => {
    const file = bench.manifest(branches([["release/*", { push: "no_access" }]], "delete"));
    const plan = await planJson(bench, file);
    expect(plan.changes.find((c) => c.action === "create")?.fields).toEqual([
      { field: "name", after: "release/*" },
      { field: "push_access_level", after: "no_access" },
      { field: "merge_access_level", after: "maintainer" },
      { field: "unprotect_access_level", after: "maintainer" },
      { field: "allow_force_push", after: false },
      { field: "code_owner_approval_required", after: false },
    ]);
    await apply(bench, file);
    expect(await readBranches("release/*")).toEqual([
      {
        name: "release/*",
        push: ["role:0"],
        merge: ["role:40"],
        unprotect: ["role:40"],
        allow_force_push: false,
        code_owner_approval_required: false,
      },
    ]);
    await expectNoChanges(bench, file);
    // Force push allowed by hand is drift, although the manifest does not name the field.
    await bench.send("DELETE", `/projects/${encodeURIComponent(API)}/protected_branches/release%2F*`);
    await bench.send("POST", `/projects/${encodeURIComponent(API)}/protected_branches`, {
      name: "release/*",
      push_access_level: 0,
      allow_force_push: true,
    });
    const drift = await planJson(bench, file);
    expectChanges(drift, [
      {
        address: `project["${API}"].protected_branch["release/*"]`,
        action: "replace",
        fields: ["allow_force_push"],
      },
    ]);
  });

  it("waits for the members and shares an allowance needs when the same plan makes them", async () => {
    const extra = `    members:\n      - { user: dave, access_level: developer }\n    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: vendors, group_access: developer }\n`;
    const file = bench.manifest(
      branches(
        [["hotfix/*", { push: "no_access", allowedToPush: ["{ user: dave }", "{ group: vendors }"] }]],
        // The branches of the tests before are not this test's.
        "ignore",
        extra,
      ),
    );
    await apply(bench, file);
    expect(await readBranches("hotfix/*")).toMatchObject([
      { push: ["group:vendors", "role:0", "user:dave"] },
    ]);
    await expectNoChanges(bench, file);
  });

  it("shows an allowance's user and group as the platform spells them, whichever spelling the manifest uses", async () => {
    const extra = `    members:\n      - { user: dave, access_level: developer }\n    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: vendors, group_access: developer }\n`;
    const file = bench.manifest(
      branches(
        [
          ["one/*", { push: "no_access", allowedToPush: ["{ user: DAVE }", "{ group: VENDORS }"] }],
          ["two/*", { push: "no_access", allowedToPush: ["{ user: dave }", "{ group: vendors }"] }],
        ],
        "ignore",
        extra,
      ),
    );
    // One name each, so that a plan shows a protection alike whatever else it plans (a pull request's plan, the
    // full plan).
    const plan = await planJson(bench, file);
    const pushes = plan.changes
      .filter((c) => c.collection === "protected_branches")
      .map((c) => [c.key, c.fields.find((f) => f.field === "allowed_to_push")?.after]);
    expect(pushes).toEqual([
      ["one/*", [{ group: "vendors" }, { user: "dave" }]],
      ["two/*", [{ group: "vendors" }, { user: "dave" }]],
    ]);
  });

  it("allows a group the same plan creates: the group, then the share, then the protection and the environment", async () => {
    const file = bench.manifest(`version: 1
groups:
  contractors: {}
projects:
  ${API}:
    shared_with_groups:
      - { group: contractors, group_access: developer }
    protected_branches:
      - { name: "contract/*", allowed_to_push: [{ group: contractors }] }
    protected_environments:
      - { name: production, deploy_access_levels: [{ group: contractors }] }
    unmanaged: { shared_with_groups: ignore, protected_branches: ignore, protected_environments: ignore }
`);
    const plan = await planJson(bench, file);
    expect(plan.errors).toEqual([]);
    const order = plan.changes.map((c) => `${c.action} ${c.address}`);
    expect(order).toEqual(
      expect.arrayContaining([
        'create group["contractors"]',
        `create project["${API}"].share["contractors"]`,
        `create project["${API}"].protected_branch["contract/*"]`,
        `create project["${API}"].protected_environment["production"]`,
      ]),
    );
    // The plan names the group as the manifest does, before it has an id.
    const text = await bench.cli(["plan", file]);
    expect(text.out).toMatch(/allowed_to_push: +\[\{ *"?group"?: *"contractors" *\}\]/);
    await apply(bench, file);
    expect(await readBranches("contract/*")).toMatchObject([{ push: ["group:contractors"] }]);
    const envs = await bench.get<{ name: string; deploy_access_levels: ApiAccess[] }[]>(
      `/projects/${encodeURIComponent(API)}/protected_environments`,
    );
    expect(await words(envs.find((e) => e.name === "production")!.deploy_access_levels)).toEqual([
      "group:contractors",
    ]);
    await expectNoChanges(bench, file);
  });

  const tags = (level: string | number | undefined, policy?: string) => `version: 1
projects:
  ${API}:
    protected_tags:${level === null ? " []" : `\n      - name: "v*"${level !== undefined ? `\n        create_access_level: ${level}` : ""}`}
${policy ? `    unmanaged: { protected_tags: ${policy} }\n` : ""}`;

  it("a protected tag goes through the whole lifecycle; any change is a replacement that says why", async () => {
    await lifecycle<{ level: string | number | undefined }>({
      bench,
      address: `project["${API}"].protected_tag["v*"]`,
      render: (v, policy) => tags(v.level, policy),
      base: { level: undefined },
      edits: [
        { values: { level: "developer" }, fields: ["create_access_level"], action: "replace" },
        { values: { level: 0 }, fields: ["create_access_level"], action: "replace" },
      ],
      without: (policy) => tags(null as unknown as undefined, policy),
      read: async () =>
        (
          await bench.get<{ name: string; create_access_levels: ApiAccess[] }[]>(
            `/projects/${encodeURIComponent(API)}/protected_tags`,
          )
        ).filter((t) => t.name === "v*"),
      expected: (v) => ({ create_access_levels: [expect.objectContaining({ access_level: num(v.level) })] }),
    });
    await apply(bench, bench.manifest(tags("developer")));
    const plan = await planJson(bench, bench.manifest(tags("maintainer")));
    expect(plan.changes[0]?.reason).toBe(
      "protected tags have no update call in the API: the tag is unprotected, then protected again, and is unprotected for the moment between the two calls",
    );
  });

  it("on the licensed edition: admin (60) is a level like the others, for a branch and for a tag", async () => {
    const file = bench.manifest(`version: 1
projects:
  ${API}:
    unmanaged: { protected_branches: ignore, protected_tags: ignore }
    protected_tags:
      - name: "release-*"
        create_access_level: admin
    protected_branches:
${yamlBranch("admin-only", { push: "admin", merge: "admin" })}
`);
    expect((await planJson(bench, file)).errors).toEqual([]);
    await apply(bench, file);
    await expectNoChanges(bench, file);
    const path = `/projects/${encodeURIComponent(API)}`;
    const branch = (await bench.get<ApiBranch[]>(`${path}/protected_branches`)).find(
      (b) => b.name === "admin-only",
    );
    expect(branch).toMatchObject({
      push_access_levels: [{ access_level: 60 }],
      merge_access_levels: [{ access_level: 60 }],
    });
    const tag = (
      await bench.get<{ name: string; create_access_levels: ApiAccess[] }[]>(`${path}/protected_tags`)
    ).find((t) => t.name === "release-*");
    expect(tag?.create_access_levels).toMatchObject([{ access_level: 60 }]);
  });

  it("on the core edition: no allowances, no admin level, and the rest as on the licensed one", async () => {
    const core = await Bench.start({ fixture, edition: "core" });
    try {
      const licensedOnly = await core.cli([
        "plan",
        core.manifest(branches([["main", { push: "admin", allowedToPush: ["{ user: alice }"] }]])),
      ]);
      expect(licensedOnly.code).toBe(1);
      const text = licensedOnly.out.replace(/\s+/g, " ");
      expect(text).toContain(
        `project["${API}"].protected_branch["main"].allowed_to_push: allowed_to_push exists only on the licensed edition`,
      );
      expect(text).toContain(
        `project["${API}"].protected_branch["main"].push_access_level: admin (60) exists only on the licensed edition`,
      );
      // A protected tag's admin level too; maintainer is fine.
      const tag = await core.cli(["plan", core.manifest(tags("admin"))]);
      expect(tag.code).toBe(1);
      expect(tag.out.replace(/\s+/g, " ")).toContain(
        `project["${API}"].protected_tag["v*"].create_access_level: admin (60) exists only on the licensed edition, and this platform is the core edition`,
      );
      expect((await planJson(core, core.manifest(tags("maintainer")))).errors).toEqual([]);
      const file = core.manifest(branches([["main", { push: "developer", force: true }]]));
      await apply(core, file);
      await expectNoChanges(core, file);
      const [main] = await core.get<ApiBranch[]>(`/projects/${encodeURIComponent(API)}/protected_branches`);
      expect(main).toMatchObject({ push_access_levels: [{ access_level: 30 }], allow_force_push: true });
    } finally {
      await core.stop();
    }
  });
});

describe("a protection whose allowances need members and shares the same plan makes", () => {
  it("waits for them however slow the platform is to make them, and names them in the plan", async () => {
    const own = await Bench.start({ fixture, edition: "licensed" });
    // The platform is slow to add the member and the share: the protection that names them must wait.
    const proxy = await startProxy(own.sandbox.url, (req) => {
      const path = (req.url ?? "").replace(/\?.*$/, "");
      if (req.method !== "POST" || !/\/(members|share)$/.test(path)) return false;
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300));
    });
    try {
      const file = own.manifest(
        branches(
          [["release/*", { push: "no_access", allowedToPush: ["{ user: dave }", "{ group: vendors }"] }]],
          undefined,
          "    members:\n      - { user: dave, access_level: developer }\n    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: vendors, group_access: developer }\n",
        ),
      );
      // The plan names the allowances as the manifest does, not by the platform's ids.
      expect((await own.cli(["plan", file])).out).toContain(
        '+ allowed_to_push: [{"group":"vendors"},{"user":"dave"}]',
      );
      const r = await own.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code, r.out + r.err).toBe(0);
      await expectNoChanges(own, file);
    } finally {
      await proxy.close();
      await own.stop();
    }
  });

  it("waits for them when the manifest writes the user and the group in another case than the allowances", async () => {
    const own = await Bench.start({ fixture, edition: "licensed" });
    const proxy = await startProxy(own.sandbox.url, (req) => {
      const path = (req.url ?? "").replace(/\?.*$/, "");
      if (req.method !== "POST" || !/\/(members|share)$/.test(path)) return false;
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300));
    });
    try {
      // A member's user and a share's group are one name in any case: `Dave` is the member dave, `VENDORS` the
      // share with vendors, and the protection that allows dave and vendors waits for both.
      const file = own.manifest(
        branches(
          [["release/*", { push: "no_access", allowedToPush: ["{ user: dave }", "{ group: vendors }"] }]],
          undefined,
          "    members:\n      - { user: Dave, access_level: developer }\n    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: VENDORS, group_access: developer }\n",
        ),
      );
      const r = await own.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code, r.out + r.err).toBe(0);
      await expectNoChanges(own, file);
    } finally {
      await proxy.close();
      await own.stop();
    }
  });
});
