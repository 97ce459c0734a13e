/**
 * A pull request's plan (`--changed-since REF`) over access, as a property over HTTP: with the platform as the
 * manifests at REF made it, the plan of any edit made to them since plans exactly what the full plan of the edited
 * manifests plans, and no secret shows in either; the shards' plans together are the full plan; and the plan of a
 * `--target` (or of two at once) is exactly the full plan's changes in the targets' subtrees.
 *
 * The universe is the access kinds: members of groups and projects (users in any case, levels by name or number,
 * Minimal Access on top-level groups, an expiry), groups and projects shared with groups (`group_access`, an
 * expiry), protected branches (`main`, the wildcard `release/*`, push, merge and unprotect levels, force push, code
 * owners, allowances for a user and a group in any case and for a level) and protected tags (`v*`, `release-*`) of
 * projects, and deploy tokens of groups and projects (their token never in any output: every 20 letters and digits
 * of an output are checked against the sandbox's token digests); on projects by full path (a/n one the apply of
 * REF or the plan creates), through patterns (`a/**`, with or without `except: [a/g/**]`, `a/g/*`, `ab/*`) and
 * through a template, on groups by full path and through `a/*`; prune policies (`unmanaged:`) on any of them;
 * live objects the manifests do not mention (members, shares, a protection of each kind, deploy tokens: two of one
 * name, one expired). An edit keeps most entries as they were and draws the rest again. The shrunk counterexample
 * is printed as the two versions of the files.
 *
 * What the generator leaves out, as plan errors the docs name (not what this property is about):
 * - `owner` for a member: olga owns a and ab in the fixture and no manifest names her, so no plan demotes or removes
 *   a last owner (under a `delete` policy she is reported, with the reason);
 * - a member below a level inherited from a group above: each level of the tree has users of its own (a and ab:
 *   alice, bob; a/g: carol, gina; projects: dave, erin), but for alice, declared below a only at maintainer (the
 *   most a gives her); groups are shared only with b and c, whose members no manifest names;
 * - an allowance of a user or group without access to the project: the user allowed is olga (an owner above every
 *   project), the group b, with which the fixture shares every project; every list of a project's shares holds b
 *   (never absent), and a project's shares policy is set only beside such a list, so b's share is never pruned;
 * - `token_file` (a replacement whose file exists is a plan error, and the apply of REF writes the file);
 * - groups through a template (a template's member list on a group and a subgroup would give the subgroup a level
 *   below the one inherited).
 */
import { describe, it } from "vitest";
import { fc } from "../property.js";
import { pullRequestPlansAsFullPlan, shardsPlanAsFullPlan, targetPlansAsFullPlan } from "./since-property.js";

const FILES = 2;
/** a/n is not in the fixture: a version that declares it creates it (and a/** matches it once it exists). */
const NEW = "a/n";
const PROJECTS = ["a/p", "a/g/p", "ab/p", NEW];
const PATTERNS = ["a/**", "a/g/*", "ab/*"];
/** Group entries (keys of Version.entries with GROUP before the path), a pattern over groups among them. */
const GROUP = "groups:";
const GROUPS = ["a", "a/g", "ab", "a/*"];
/** Tokens of the fixture's deploy tokens. */
const TOKENS = [
  "delta-secret-token-0001",
  "epsilon-secret-token-02",
  "zeta-secret-token-00003",
  "eta-secret-token-000004",
  "theta-secret-token-0005",
];
const USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy", "olga"];
const fixture = {
  users: USERS.map((username) => ({ username })),
  // b and c: the groups things are shared with (no manifest declares them; b/p a third unit for the shards).
  groups: [
    { path: "a", members: { olga: "owner", alice: "developer", frank: "reporter" } },
    { path: "ab", members: { olga: "owner", bob: "maintainer" } },
    { path: "a/g", members: { carol: "guest", gina: "developer" } },
    { path: "b", members: { ivan: "developer" } },
    { path: "c", members: { judy: "reporter" } },
  ],
  projects: [
    { path: "a/p", members: { dave: "reporter", hank: "developer" }, shared_with: { b: "developer" } },
    { path: "a/g/p", members: { erin: "developer" }, shared_with: { b: "developer", c: "reporter" } },
    { path: "ab/p", shared_with: { b: "developer" } },
    { path: "b/p" },
  ],
  protected_branches: [
    { project: "a/p", name: "main", push_access_level: 40, merge_access_level: 40 },
    { project: "a/g/p", name: "release/*", push_access_level: 0, merge_access_level: 40 },
    { project: "ab/p", name: "hotfix", push_access_level: 40, allowed_to_push: [{ user: "olga" }] },
  ],
  protected_tags: [
    { project: "ab/p", name: "v*", create_access_level: 30 },
    { project: "a/p", name: "old-*", create_access_level: 40 },
  ],
  deploy_tokens: [
    { project: "a/p", name: "ci", scopes: ["read_repository"], token: TOKENS[0] },
    { group: "a", name: "old", scopes: ["read_registry"], token: TOKENS[1] },
    {
      project: "ab/p",
      name: "stale",
      scopes: ["read_repository"],
      expires_at: "2020-01-01",
      token: TOKENS[2],
    },
  ],
};

type Policy = "delete" | "warn" | "ignore";
/** A level as written: a name or a number. */
type Level = string | number;
interface Member {
  user: string;
  access_level?: Level;
  expires_at?: string;
  absent?: true;
}
interface Share {
  group: string;
  group_access?: Level;
  expires_at?: string;
  absent?: true;
}
type Allowance = { user: string } | { group: string } | { access_level: Level };
interface Branch {
  name: string;
  push_access_level?: Level;
  merge_access_level?: Level;
  allow_force_push?: boolean;
  code_owner_approval_required?: boolean;
  unprotect_access_level?: Level;
  allowed_to_push?: Allowance[];
  allowed_to_merge?: Allowance[];
  absent?: true;
}
interface Tag {
  name: string;
  create_access_level?: Level;
  absent?: true;
}
interface Token {
  name: string;
  scopes?: string[];
  expires_at?: string;
  username?: string;
  absent?: true;
}
type Collection =
  | "members"
  | "shared_with_groups"
  | "protected_branches"
  | "protected_tags"
  | "deploy_tokens";
/** An entry (or the template): its file, collections (null: not declared) and prune policies. */
interface Body {
  file: number;
  extends: boolean;
  /** `a/**` only: `except: [a/g/**]`. */
  except?: true;
  members: Member[] | null;
  shares: Share[] | null;
  branches: Branch[] | null;
  tags: Tag[] | null;
  tokens: Token[] | null;
  unmanaged: Partial<Record<Collection, Policy>> | null;
}
interface Version {
  template: Body;
  entries: Record<string, Body | null>;
}

const policy = fc.constantFrom<Policy>("delete", "warn", "ignore");
/** Optional in a record: left out (undefined) or drawn. */
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Drops the keys whose value is undefined (exactOptionalPropertyTypes). */
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
/** A level by name or by number. */
const level = (names: Record<string, number>) =>
  fc.constantFrom(...Object.entries(names)).chain(([name, n]) => fc.constantFrom<Level>(name, n));
const MEMBER_LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 };
/** A top-level group's members on the licensed edition: Minimal Access too. */
const TOP_MEMBER_LEVELS = { minimal_access: 5, ...MEMBER_LEVELS };
const GROUP_SHARE_LEVELS = { ...MEMBER_LEVELS, owner: 50 };
const REF_LEVELS = { no_access: 0, developer: 30, maintainer: 40, admin: 60 };
const date = fc.constantFrom("2030-01-31", "2031-06-30");
/** A username in any case. */
const spelling = (name: string) =>
  fc.constantFrom(name, name[0]!.toUpperCase() + name.slice(1), name.toUpperCase());

/** Some of `ids`, each drawn by `item`, or null (not declared). */
const listOf = <T>(ids: readonly string[], item: (id: string) => fc.Arbitrary<T>) =>
  fc.option(
    fc.subarray([...ids]).chain((some) => fc.tuple(...some.map(item)) as fc.Arbitrary<T[]>),
    {
      nil: null,
      freq: 2,
    },
  );
/**
 * A member: `alice`, a member of a above, only at maintainer where she is declared below a (never below the level
 * a gives her, a plan error); the others at any level.
 */
const member = (user: string, top = false): fc.Arbitrary<Member> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          user: spelling(user),
          access_level:
            user === "alice" && !top
              ? fc.constantFrom<Level>("maintainer", 40)
              : level(top ? TOP_MEMBER_LEVELS : MEMBER_LEVELS),
          expires_at: maybe(date),
        })
        .map(defined),
    },
    { weight: 1, arbitrary: spelling(user).map((u): Member => ({ user: u, absent: true })) },
  );
/** Shares: b always (a group allowance names it), c drawn (or marked absent), in either order. */
const sharesOf = (levels: Record<string, number>) => {
  const share = (group: string) =>
    fc.record({ group: spelling(group), group_access: level(levels), expires_at: maybe(date) }).map(defined);
  const c = fc.oneof(
    { weight: 3, arbitrary: share("c") },
    { weight: 1, arbitrary: spelling("c").map((g): Share => ({ group: g, absent: true })) },
  );
  return fc.option(
    fc
      .tuple(share("b"), fc.option(c, { nil: null }), fc.boolean())
      .map(([b, c, first]) => (c === null ? [b] : first ? [c, b] : [b, c])),
    { nil: null, freq: 2 },
  );
};
const allowances = maybe(
  fc
    .subarray<Allowance | "olga" | "b">(["olga", "b", { access_level: "admin" }], { minLength: 1 })
    .chain(
      (some) =>
        fc.tuple(
          ...some.map((a) =>
            a === "olga"
              ? spelling(a).map((user): Allowance => ({ user }))
              : a === "b"
                ? spelling(a).map((group): Allowance => ({ group }))
                : fc.constant(a),
          ),
        ) as fc.Arbitrary<Allowance[]>,
    ),
);
const branch = (name: string): fc.Arbitrary<Branch> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          name: fc.constant(name),
          push_access_level: maybe(level(REF_LEVELS)),
          merge_access_level: maybe(level(REF_LEVELS)),
          allow_force_push: maybe(fc.boolean()),
          code_owner_approval_required: maybe(fc.boolean()),
          unprotect_access_level: maybe(level({ developer: 30, maintainer: 40, admin: 60 })),
          allowed_to_push: allowances,
          allowed_to_merge: allowances,
        })
        .map(defined),
    },
    { weight: 1, arbitrary: fc.constant<Branch>({ name, absent: true }) },
  );
const tag = (name: string): fc.Arbitrary<Tag> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({ name: fc.constant(name), create_access_level: maybe(level(REF_LEVELS)) })
        .map(defined),
    },
    { weight: 1, arbitrary: fc.constant<Tag>({ name, absent: true }) },
  );
const token = (name: string): fc.Arbitrary<Token> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          name: fc.constant(name),
          scopes: fc.shuffledSubarray(["read_repository", "read_registry", "write_registry"], {
            minLength: 1,
          }),
          expires_at: maybe(fc.constantFrom("2030-01-31", "2031-06-30T12:00:00Z")),
          username: maybe(fc.constant("ci-bot")),
        })
        .map(defined),
    },
    { weight: 1, arbitrary: fc.constant<Token>({ name, absent: true }) },
  );
const COLLECTIONS: Collection[] = [
  "members",
  "shared_with_groups",
  "protected_branches",
  "protected_tags",
  "deploy_tokens",
];
/** Policies of the collections a body may name; a shares policy only beside a list of shares (see above). */
const unmanagedOf = (collections: readonly Collection[]) =>
  fc.option(
    fc.record(
      Object.fromEntries(collections.map((c) => [c, policy])) as Record<Collection, fc.Arbitrary<Policy>>,
      {
        requiredKeys: [],
      },
    ),
    { nil: null, freq: 2 },
  );
const withSharesPolicy = (b: Body): Body => {
  if (b.shares === null && b.unmanaged?.shared_with_groups !== undefined) {
    const { shared_with_groups: _, ...rest } = b.unmanaged;
    return { ...b, unmanaged: rest };
  }
  return b;
};
const body = (canExtend: boolean): fc.Arbitrary<Body> =>
  fc
    .record({
      file: fc.integer({ min: 0, max: FILES - 1 }),
      extends: canExtend ? fc.boolean() : fc.constant(false),
      members: listOf(["dave", "erin", "alice"], (u) => member(u)),
      shares: sharesOf(MEMBER_LEVELS),
      branches: listOf(["main", "release/*"], branch),
      tags: listOf(["v*", "release-*"], tag),
      tokens: listOf(["ci", "registry"], token),
      unmanaged: unmanagedOf(COLLECTIONS),
    })
    .map(withSharesPolicy);
/** A group's entry: members of its level of the tree, shares, deploy tokens, their policies; no template. */
const groupBody = (key: string): fc.Arbitrary<Body> =>
  fc.record({
    file: fc.integer({ min: 0, max: FILES - 1 }),
    extends: fc.constant(false),
    members: key.includes("/")
      ? listOf(["carol", "gina", "alice"], (u) => member(u))
      : listOf(["alice", "bob"], (u) => member(u, true)),
    shares: sharesOf(GROUP_SHARE_LEVELS),
    branches: fc.constant(null),
    tags: fc.constant(null),
    tokens: listOf(["ci", "old"], token),
    unmanaged: unmanagedOf(["members", "shared_with_groups", "deploy_tokens"]),
  });
/**
 * The new project's entry always lists its shares (with b, for the allowances that name it): no fixture shares it,
 * and a protection that allows b in a project not shared with it is refused.
 */
const sharedWithB = (b: Body): Body =>
  b.shares ? b : { ...b, shares: [{ group: "b", group_access: "developer" }] };
const keys = [...GROUPS.map((g) => `${GROUP}${g}`), ...PROJECTS, ...PATTERNS];
// A pattern extends no template: a template's list replaces a pattern's at the objects both reach, which is
// what the settings property covers.
const slotOf = (key: string) =>
  fc.option(
    key.startsWith(GROUP)
      ? groupBody(key)
      : key === "a/**"
        ? fc
            .tuple(body(false), fc.boolean())
            .map(([b, except]): Body => (except ? { ...b, except: true } : b))
        : key === NEW
          ? body(true).map(sharedWithB)
          : body(!key.includes("*")),
    { nil: null, freq: 3 },
  );

/** REF, and the edit: most of it kept, the rest drawn again. */
const versions = fc
  .record({
    template: body(false),
    entries: fc.record(Object.fromEntries(keys.map((k) => [k, slotOf(k)]))),
  })
  .chain((ref: Version) => {
    const edited = <T>(was: T, again: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(was) }, { weight: 1, arbitrary: again });
    return fc
      .record({
        template: edited(ref.template, body(false)),
        entries: fc.record(Object.fromEntries(keys.map((k) => [k, edited(ref.entries[k]!, slotOf(k))]))),
      })
      .map((head: Version) => ({ ref, head }));
  });

/** A flow map of the fields set, strings quoted. */
function flow(o: object): string {
  const value = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(value).join(", ")}]`
      : typeof v === "object" && v !== null
        ? flow(v)
        : typeof v === "string"
          ? JSON.stringify(v)
          : String(v);
  const fields = Object.entries(o).map(([k, v]) => (k === "absent" ? "state: absent" : `${k}: ${value(v)}`));
  return `{ ${fields.join(", ")} }`;
}

/** A body's YAML lines, indented under its key. */
function lines(b: Body): string[] {
  const out: string[] = [];
  if (b.extends) out.push("extends: [t1]");
  if (b.except) out.push("except: [a/g/**]");
  const list = (key: string, items: object[] | null) => {
    if (items) out.push(`${key}: [${items.map(flow).join(", ")}]`);
  };
  list("members", b.members);
  list("shared_with_groups", b.shares);
  list("protected_branches", b.branches);
  list("protected_tags", b.tags);
  list("deploy_tokens", b.tokens);
  if (b.unmanaged && Object.keys(b.unmanaged).length)
    out.push(`unmanaged: ${flow(b.unmanaged).replaceAll('"', "")}`);
  return out;
}

/** The files of a version, by name (every file written, `version: 1` alone when it holds nothing). */
function filesOf(v: Version): Record<string, string> {
  const entry = (key: string, b: Body) => {
    const ls = lines(b);
    return ls.length ? `  "${key}":\n${ls.map((l) => `    ${l}\n`).join("")}` : `  "${key}": {}\n`;
  };
  const out: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    let text = "version: 1\n";
    if (v.template.file === i) text += `templates:\n${entry("t1", v.template)}`;
    const mine = keys.filter((k) => v.entries[k]?.file === i);
    const groups = mine.filter((k) => k.startsWith(GROUP));
    const projects = mine.filter((k) => !k.startsWith(GROUP));
    if (groups.length)
      text += `groups:\n${groups.map((k) => entry(k.slice(GROUP.length), v.entries[k]!)).join("")}`;
    if (projects.length) text += `projects:\n${projects.map((k) => entry(k, v.entries[k]!)).join("")}`;
    out[`f${i}.yaml`] = text;
  }
  return out;
}

/** What each pattern matches in the fixture (a/**: see targetsOf). */
const MATCHES: Record<string, string[]> = {
  [`${GROUP}a/*`]: ["a/g"],
  "a/g/*": ["a/g/p"],
  "ab/*": ["ab/p"],
};
/**
 * The paths a `--target` may name in a version: a group or project path at or above one that an entry declares or
 * a pattern matches (a target that selects nothing is an error, targets.test.ts).
 */
const TARGETS = ["a", "a/g", "ab", "a/p", "a/g/p", "ab/p", NEW];
function targetsOf(ref: Version, v: Version): string[] {
  // The new project exists once REF made it, or is made by the plan.
  const made = ref.entries[NEW] !== null || v.entries[NEW] !== null ? [NEW] : [];
  const reached = keys
    .filter((k) => v.entries[k] !== null)
    .flatMap((k) =>
      k === "a/**"
        ? [...(v.entries[k]?.except ? ["a/p"] : ["a/p", "a/g/p"]), ...made]
        : (MATCHES[k] ?? [k.startsWith(GROUP) ? k.slice(GROUP.length) : k]),
    );
  return TARGETS.filter((t) => reached.some((p) => p === t || p.startsWith(`${t}/`)));
}

const RUNS = process.env["FORGEFORM_PROPERTY_RUNS"] ? Number(process.env["FORGEFORM_PROPERTY_RUNS"]) : 25;
const FEW_RUNS = process.env["FORGEFORM_PROPERTY_RUNS"] ? Number(process.env["FORGEFORM_PROPERTY_RUNS"]) : 10;
const HIDDEN = TOKENS;

describe("--changed-since over access as a property", () => {
  it("after REF is applied, a pull request's plan is the full plan of the edited manifests", async () => {
    await fc.assert(
      fc.asyncProperty(versions, ({ ref, head }) =>
        pullRequestPlansAsFullPlan({
          fixture,
          hidden: HIDDEN,
          ref: filesOf(ref),
          head: filesOf(head),
        }),
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it("the shards' plans together are the full plan", async () => {
    await fc.assert(
      fc.asyncProperty(versions, ({ ref, head }) =>
        shardsPlanAsFullPlan({ fixture, hidden: HIDDEN, ref: filesOf(ref), head: filesOf(head) }, [2, 3]),
      ),
      { numRuns: FEW_RUNS },
    );
  }, 300_000);

  it("a target's plan is the full plan's changes in the target's subtree", async () => {
    await fc.assert(
      fc.asyncProperty(
        versions.chain(({ ref, head }) =>
          fc
            .shuffledSubarray(TARGETS, { minLength: 1, maxLength: 2 })
            .map((drawn) => ({ ref, head, targets: drawn })),
        ),
        ({ ref, head, targets }) => {
          // Among the drawn targets, those that select something: each alone, and both at once.
          const valid = targetsOf(ref, head);
          const chosen = targets.filter((t) => valid.includes(t));
          const runs = chosen.length ? chosen.map((t) => [t]) : valid.slice(0, 1).map((t) => [t]);
          if (chosen.length > 1) runs.push(chosen);
          return targetPlansAsFullPlan(
            { fixture, hidden: HIDDEN, ref: filesOf(ref), head: filesOf(head) },
            runs,
          );
        },
      ),
      { numRuns: FEW_RUNS },
    );
  }, 300_000);
});
