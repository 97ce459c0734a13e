// biome-ignore-all lint/suspicious/noTemplateCurlyInString: live values hold `${` on purpose, and export writes references
/**
 * Export as a property over HTTP: for a randomly drawn live state, `forgeform export` of it, then `forgeform plan`
 * of the exported files (with the `${env:...}` variables export lists set to the live values), plans no changes
 * at all, and apply of them does nothing; no secret value shows in the exported files or in any output.
 *
 * The universe is where export meets the YAML and the platform's spellings: groups `a`, `ab` and `a/b` (names that
 * share prefixes) with projects in each, names and texts that need quoting in YAML (`yes`, `on`, `null`, `1.0`,
 * `#x`, `: x`, blanks around them, unicode, `${` that export must write `$${`), empty strings against unset,
 * colours as CSS names, access levels at every level, dates today and far off, protected branches with wildcards,
 * one variable key in two environment scopes, labels differing only in case, 100 or 101 labels in a project
 * (pagination), hooks with credentials in their URLs (a named query parameter, `user:pass@`, a Slack hook's path
 * secret) and write-only tokens, masked variables and variables named like secrets. Memberships and group shares are
 * made through the API after start, so that what the platform refuses (a level below an inherited one) is never
 * live. The shrunk counterexample is printed as the fixture and the API calls.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fc } from "../property.js";
import { Bench, type CliResult } from "./helpers.js";

const GROUPS = ["a", "ab", "a/b"] as const;
const PROJECTS = ["a/p", "a/b/p", "ab/p"] as const;
const OWNERS = [...GROUPS.map((g) => `groups:${g}`), ...PROJECTS.map((p) => `projects:${p}`)];
const USERS = ["alice", "yes", "null", "1.0", "Bob"];
const TODAY = new Date().toISOString().slice(0, 10);
const FAR = "2999-12-31";

/** Texts that YAML reads otherwise unless quoted, blanks, unicode, `${`. */
const TEXTS = [
  "plain",
  "yes",
  "on",
  "null",
  "1.0",
  "0123",
  "#x",
  ": x",
  "a: b",
  "- x",
  " lead",
  "trail ",
  "Ünïcödé ✓",
  "uses ${HOME} here",
  "$${x}",
  "${env:NOT_A_REF}",
  "two\nlines",
  "ends in a newline\n",
  "crlf\r\nline",
  "\ttab",
  "  ",
  "'quoted'",
  '"dq"',
];

/** An ed25519 public key made from a number (the same number, the same key). */
function sshKey(n: number): string {
  const raw = createHash("sha256").update(`key ${n}`).digest();
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} k${n}@example`;
}

/** A secret: mixed letters and digits, so that it looks random (a Slack path secret is found that way). */
function secretOf(nonce: number, i: number, length = 24): string {
  const hash = createHash("sha256")
    .update(`${nonce}:${i}`)
    .digest("base64")
    .replace(/[^A-Za-z0-9]/g, "");
  return `Q7${hash}`.slice(0, length - 2).concat("x9");
}

interface Universe {
  fixture: Record<string, unknown>;
  /** Calls made after start: memberships (with expiry) and group shares; a refused one is not live. */
  calls: { method: string; path: string; body: Record<string, unknown> }[];
  /** Values that must never show. */
  secrets: string[];
  /** Live values of whole-value references, by `owner|collection|identity` (see `contextOf`). */
  values: Map<string, string>;
  /** Live values of other whole-value references (a text in a token's format), by the address export lists. */
  fields: Map<string, string>;
  /** Live strings that may hold credentials (URLs), each unique. */
  urls: string[];
  factor: boolean;
  includeArchived: boolean;
}

type Owner = { kind: "groups" | "projects"; path: string } | { kind: "instance" };

const ownerOf = (key: string): Owner => {
  const [kind, path] = key.split(":") as ["groups" | "projects", string];
  return { kind, path };
};
const ownerRef = (o: Owner) =>
  o.kind === "instance" ? { instance: true } : { [o.kind.slice(0, -1)]: o.path };
const ownerKey = (o: Owner) => (o.kind === "instance" ? "instance" : `${o.kind}:${o.path}`);

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

/** The raw draw: choices per owner, turned into a fixture by `build`. */
const draw = fc.record({
  nonce: fc.integer({ min: 0, max: 1_000_000 }),
  visibility: fc.array(pick(["private", "internal", "public"] as const), { minLength: 6, maxLength: 6 }),
  groupFields: fc.array(
    fc.record({
      // A group's name: letters, digits, emojis, `_`, `.`, `-`, blanks and parentheses, not starting with a blank.
      name: maybe(pick(["yes", "null", "1.0", "on", "Ünïcödé", "trail ", "x (y)", "_x"])),
      description: maybe(pick([...TEXTS, "TOKEN"])),
      settings: maybe(
        fc.record(
          {
            share_with_group_lock: fc.boolean(),
            require_two_factor_authentication: fc.boolean(),
            two_factor_grace_period: pick([0, 48, 1000]),
            project_creation_level: pick(["noone", "maintainer", "developer"]),
            subgroup_creation_level: pick(["owner", "maintainer"]),
            auto_devops_enabled: fc.boolean(),
            emails_disabled: fc.boolean(),
            mentions_disabled: fc.boolean(),
            lfs_enabled: fc.boolean(),
            default_branch_protection: pick([0, 1, 2, 3]),
            request_access_enabled: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  projectFields: fc.array(
    fc.record({
      description: maybe(pick([...TEXTS, "TOKEN"])),
      settings: maybe(
        fc.record(
          {
            merge_method: pick(["merge", "ff", "rebase_merge"]),
            only_allow_merge_if_pipeline_succeeds: fc.boolean(),
            build_timeout: pick([3600, 5400, 600]),
            ci_config_path: pick(["", "ci/.gitlab-ci.yml", "yes"]),
            issues_access_level: pick(["disabled", "private", "enabled"]),
            wiki_access_level: pick(["disabled", "private", "enabled"]),
            squash_option: pick(["never", "always", "default_on", "default_off"]),
            remove_source_branch_after_merge: fc.boolean(),
            ci_default_git_depth: pick([0, 50, 1000]),
            auto_cancel_pending_pipelines: pick(["enabled", "disabled"]),
            suggestion_commit_message: pick(["", "yes", "Apply %{suggestions_count} suggestion(s)"]),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  members: fc.array(
    fc.array(fc.record({ level: pick([10, 20, 30, 40, 50]), expires: pick([null, null, TODAY, FAR]) }), {
      minLength: USERS.length,
      maxLength: USERS.length,
    }),
    { minLength: 6, maxLength: 6 },
  ),
  memberOf: fc.array(fc.subarray(USERS), { minLength: 6, maxLength: 6 }),
  shares: fc.subarray([
    { from: "projects:a/p", to: "ab" },
    { from: "projects:ab/p", to: "a/b" },
    { from: "groups:a/b", to: "ab" },
    { from: "groups:ab", to: "a" },
  ]),
  shareLevel: fc.array(fc.record({ level: pick([10, 20, 30, 40]), expires: pick([null, TODAY, FAR]) }), {
    minLength: 4,
    maxLength: 4,
  }),
  labels: fc.array(
    fc.array(
      fc.record({
        name: pick(["bug", "Bug", "BUG", "yes", "null", "1.0", "#x", ": x", "ünï", "a${b}", "on", "a", "ab"]),
        color: pick(["red", "#fff", "#ABCDEF", "#428bca", "darkgreen", "LightBlue", "#000000"]),
        description: maybe(pick([...TEXTS.filter((t) => t.trim() === t && !t.includes("\n")), "TOKEN"])),
      }),
      { maxLength: 4 },
    ),
    { minLength: 6, maxLength: 6 },
  ),
  manyLabels: fc.oneof(
    { weight: 8, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.constantFrom(100, 101) },
  ),
  /** Around a page's size of something else paginated, in ab/p. */
  many: fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.record({
        what: pick(["variables", "milestones", "badges", "schedules"] as const),
        count: pick([100, 101]),
      }),
    },
  ),
  /** A member blocked after joining. */
  blocked: fc.boolean(),
  variables: fc.array(
    fc.array(
      fc.record({
        key: pick(["A", "a", "BUILD", "DB_PASSWORD", "DEPLOY_TOKEN", "yes", "NULL"]),
        scope: pick(["*", "*", "production", "review/*", "review/${x}", "my env"]),
        value: pick([...TEXTS, "", "MASKED"]),
        protected: fc.boolean(),
        file: fc.boolean(),
      }),
      { maxLength: 4 },
    ),
    { minLength: 7, maxLength: 7 },
  ),
  hooks: fc.array(
    fc.array(
      fc.record({
        shape: pick(["plain", "query", "userinfo", "slack", "both", "uuid"] as const),
        token: fc.boolean(),
        push_events: fc.boolean(),
        merge_requests_events: fc.boolean(),
        enable_ssl_verification: fc.boolean(),
        branch_filter: pick([undefined, "main", "release/*"]),
        subgroup_events: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
    { minLength: 5, maxLength: 5 },
  ),
  systemHooks: fc.array(
    fc.record({
      shape: pick(["plain", "query", "userinfo", "slack", "both", "uuid"] as const),
      token: fc.boolean(),
      push_events: fc.boolean(),
      tag_push_events: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  deployTokens: fc.array(
    fc.array(
      fc.record({
        name: pick(["deploy", "Deploy", "yes", "null", "1.0", "registry pull", "x "]),
        scopes: fc.subarray(["read_repository", "read_registry", "write_registry"], { minLength: 1 }),
        // An expired one too: the platform lists it with the others.
        expires: pick([null, TODAY, FAR, "2020-01-31"]),
        username: maybe(pick(["deployer", "yes"])),
      }),
      { maxLength: 2 },
    ),
    { minLength: 6, maxLength: 6 },
  ),
  branches: fc.array(
    fc.array(
      fc.record({
        name: pick(["main", "release/*", "*-stable", "yes", "*"]),
        push: pick([0, 30, 40, 60]),
        merge: pick([0, 30, 40, 60]),
        unprotect: pick([40, 60]),
        force: fc.boolean(),
        codeOwner: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
    { minLength: 3, maxLength: 3 },
  ),
  tags: fc.array(
    fc.array(fc.record({ name: pick(["v*", "yes", "*", "1.0"]), create: pick([0, 30, 40, 60]) }), {
      maxLength: 2,
    }),
    { minLength: 3, maxLength: 3 },
  ),
  badges: fc.array(
    fc.array(
      fc.record({
        name: pick(["coverage", "yes", "null", "1.0", "", "my badge "]),
        secret: fc.boolean(),
        placeholder: fc.boolean(),
      }),
      { maxLength: 2 },
    ),
    { minLength: 6, maxLength: 6 },
  ),
  milestones: fc.array(
    fc.array(
      fc.record({
        title: pick(["1.0", "yes", "v1", "#x", "null", "v2 "]),
        description: maybe(pick(TEXTS)),
        start: pick([null, TODAY]),
        due: pick([null, TODAY, FAR]),
        closed: fc.boolean(),
      }),
      { maxLength: 2 },
    ),
    { minLength: 6, maxLength: 6 },
  ),
  /** Protections made through the API once the memberships and shares are: users and groups allowed. */
  allowances: fc.array(
    fc.record({
      branch: fc.subarray([
        { user: "alice" },
        { user: "yes" },
        { group: "ab" },
        { group: "a/b" },
        { access_level: 30 },
      ]),
      merge: fc.subarray([{ user: "null" }, { group: "ab" }, { access_level: 40 }]),
      deployers: fc.subarray(
        [{ user: "alice" }, { user: "1.0" }, { group: "ab" }, { group: "a/b" }, { access_level: 40 }],
        {
          minLength: 1,
        },
      ),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  /** Projects alike (the first one's settings, one badge and protection in each), for `--factor` to share. */
  alike: fc.boolean(),
  /** `--factor`, `--include-archived`, and an archived project a/b/old. */
  factor: fc.boolean(),
  includeArchived: fc.boolean(),
  archived: fc.boolean(),
  projectNames: fc.array(maybe(pick(["yes", "null", "1.0", "Ünïcödé", "trail ", "x (y)"])), {
    minLength: 3,
    maxLength: 3,
  }),
  defaultBranches: fc.array(maybe(pick(["trunk", "yes", "release/1.0"])), { minLength: 3, maxLength: 3 }),
  priorities: fc.array(pick([undefined, 0, 3]), { minLength: 4, maxLength: 4 }),
  allowed: fc.array(pick([[], [{ access_level: 30 }], [{ access_level: 40 }, { access_level: 60 }]]), {
    minLength: 3,
    maxLength: 3,
  }),
  deployKeys: fc.array(
    fc.array(fc.record({ title: pick(["ci", "yes", "null", "1.0", "ci key "]), canPush: fc.boolean() }), {
      maxLength: 2,
    }),
    { minLength: 3, maxLength: 3 },
  ),
  triggers: fc.array(fc.array(pick(["deploy from chat", "yes", "1.0", "null"]), { maxLength: 3 }), {
    minLength: 3,
    maxLength: 3,
  }),
  wikis: fc.array(
    fc.array(
      fc.record({
        title: pick(["Home", "yes", "guides/Set-up the laptop", "a b", "1.0", "x ${y}"]),
        // A page's content may not be blank.
        content: pick(TEXTS.filter((t) => t.trim() !== "")),
        format: pick(["markdown", "markdown", "asciidoc", "rdoc", "org"]),
      }),
      { maxLength: 2 },
    ),
    { minLength: 3, maxLength: 3 },
  ),
  environments: fc.array(
    fc
      .subarray(["production", "yes", "review/*", "1.0"])
      .chain((names) =>
        fc.tuple(...names.map((name) => fc.record({ name: fc.constant(name), level: pick([30, 40, 60]) }))),
      ),
    { minLength: 3, maxLength: 3 },
  ),
  settings: maybe(
    fc.record(
      {
        signup_enabled: fc.boolean(),
        default_projects_limit: pick([0, 100000, 42]),
        after_sign_up_text: pick(TEXTS),
        home_page_url: pick(["https://home.example/", "PASSWORD"]),
        // Settings named like secrets: written as references.
        searchengine_hosted_access_key: fc.constant("SECRET"),
        spam_service_api_key: fc.constant("SECRET"),
      },
      { requiredKeys: [] },
    ),
  ),
  broadcasts: fc.array(
    fc.record({
      message: pick(TEXTS),
      ends: pick([FAR, "2999-12-31T23:59:59Z"]),
      color: pick(["#E75E40", "#e75e40"]),
    }),
    { maxLength: 2 },
  ),
  notifications: fc.array(pick([undefined, "watch", "participating", "disabled", "global", "custom"]), {
    minLength: 7,
    maxLength: 7,
  }),
  schedules: fc.array(
    fc.array(
      fc.record({
        description: pick(["Nightly", "yes", "1.0", "null", "#x", "Nightly ", " x"]),
        ref: pick(["main", "refs/heads/main", "yes"]),
        cron: pick(["0 2 * * *", "*/5 * * * *", "0  3 * * 1-5"]),
        timezone: pick(["UTC", "Europe/Berlin", "London", "Etc/UTC"]),
        active: fc.boolean(),
        variables: fc.array(
          fc.record({
            key: pick(["MODE", "DEPLOY_TOKEN", "yes"]),
            value: pick([...TEXTS, ""]),
            file: fc.boolean(),
          }),
          { maxLength: 2 },
        ),
      }),
      { maxLength: 2 },
    ),
    { minLength: 3, maxLength: 3 },
  ),
});

type Draw = typeof draw extends fc.Arbitrary<infer T> ? T : never;

const LEVEL_ORDER = ["private", "internal", "public"];
const uniqueBy = <T>(xs: T[], key: (x: T) => string) => {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

/** The fixture and the API calls of a draw, with the secrets and the values references stand for. */
function build(d: Draw): Universe {
  let n = 0;
  const secret = (length = 24) => secretOf(d.nonce, n++, length);
  const secrets: string[] = [];
  const values = new Map<string, string>();
  const fields = new Map<string, string>();
  /** `TOKEN` drawn for a text: a personal access token, which export writes as a reference whatever the field. */
  const text = (drawn: string | undefined, address: string): string | undefined => {
    if (drawn !== "TOKEN") return drawn;
    const token = `glpat-${secret(20)}`;
    secrets.push(token);
    fields.set(address, token);
    return token;
  };
  const urls: string[] = [];
  let host = 0;
  // Visibility: a subgroup and a project no more visible than their group.
  const vis = new Map<string, string>();
  const capped = (path: string, i: number) => {
    const parent = path.includes("/") ? vis.get(path.slice(0, path.lastIndexOf("/"))) : "public";
    const want = d.visibility[i]!;
    const v = LEVEL_ORDER.indexOf(want) <= LEVEL_ORDER.indexOf(parent!) ? want : parent!;
    vis.set(path, v);
    return v;
  };
  const groups = GROUPS.map((path, i) => {
    let f = d.groupFields[i]!;
    // Top-level groups' names are unique, as the platform has them.
    if (path === "ab" && f.name !== undefined && f.name === d.groupFields[0]!.name)
      f = { ...f, name: undefined };
    return {
      path,
      visibility: capped(path, i),
      ...(f.name !== undefined ? { name: f.name } : {}),
      ...(f.description !== undefined
        ? { description: text(f.description, `group[${JSON.stringify(path)}].description`) }
        : {}),
      ...(f.settings ?? {}),
    };
  });
  const projects: Record<string, unknown>[] = PROJECTS.map((path, i) => {
    const f = d.projectFields[i]!;
    return {
      path,
      visibility: capped(path, i + 3),
      ...(d.projectNames[i] !== undefined ? { name: d.projectNames[i] } : {}),
      ...(d.defaultBranches[i] !== undefined ? { default_branch: d.defaultBranches[i] } : {}),
      ...(f.description !== undefined
        ? { description: text(f.description, `project[${JSON.stringify(path)}].description`) }
        : {}),
    };
  });
  if (d.archived) projects.push({ path: "a/b/old", archived: true, description: "yes" });
  // A project in a user's namespace, exported by --project.
  projects.push({ path: "alice/own", description: "on" });
  const project_settings = PROJECTS.flatMap((project, i) => {
    const s = d.alike ? d.projectFields[0]!.settings : d.projectFields[i]!.settings;
    return s && Object.keys(s).length > 0 ? [{ project, ...s }] : [];
  });

  // Labels and milestones: a name once along a chain of groups and projects (the platform refuses a label or a
  // milestone whose name a group above or a project below has).
  const chainOf = (path: string) => {
    const parts = path.split("/");
    return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  };
  const alongChains = <T>(lists: T[][], name: (x: T) => string): [Owner, T][] => {
    const taken = new Map<string, Set<string>>();
    const out: [Owner, T][] = [];
    OWNERS.forEach((key, i) => {
      const o = ownerOf(key) as { kind: "groups" | "projects"; path: string };
      const mine = new Set<string>();
      for (const x of uniqueBy(lists[i]!, name)) {
        const clash = [...taken].some(
          ([other, names]) =>
            names.has(name(x)) && (chainOf(o.path).includes(other) || chainOf(other).includes(o.path)),
        );
        if (clash) continue;
        mine.add(name(x));
        out.push([o, x]);
      }
      taken.set(o.path, new Set([...(taken.get(o.path) ?? []), ...mine]));
    });
    return out;
  };
  const labels: Record<string, unknown>[] = alongChains(d.labels, (l) => l.name).map(([o, l], i) => {
    const priority = o.kind === "projects" ? d.priorities[i % d.priorities.length] : undefined;
    return {
      ...ownerRef(o),
      name: l.name,
      color: l.color,
      ...(l.description !== undefined
        ? {
            description: text(
              l.description,
              `${o.kind === "instance" ? "instance" : `${o.kind.slice(0, -1)}[${JSON.stringify(o.path)}]`}.label[${JSON.stringify(l.name)}].description`,
            ),
          }
        : {}),
      ...(priority !== undefined ? { priority } : {}),
    };
  });
  if (d.archived) labels.push({ project: "a/b/old", name: "old", color: "red" });
  labels.push({ project: "alice/own", name: "yes", color: "yellow" });
  for (let i = 0; i < d.manyLabels; i++)
    labels.push({ project: "ab/p", name: `l${String(i).padStart(3, "0")}`, color: "#00ff00" });

  // CI/CD variables: instance (no scope), groups, projects; a key once per scope.
  const ci_variables: Record<string, unknown>[] = [];
  const variableOwners: Owner[] = [{ kind: "instance" }, ...OWNERS.map(ownerOf)];
  variableOwners.forEach((o, i) => {
    const list = d.variables[i]!.map((v) => (o.kind === "instance" ? { ...v, scope: "*" } : v));
    for (const v of uniqueBy(list, (v) => `${v.key}#${v.scope}`)) {
      const masked = v.value === "MASKED";
      const named = /TOKEN|PASSWORD/.test(v.key);
      // A plain value that looks random is written as it is (export cannot tell): secrets are masked or named so.
      const value = masked || named ? secret() : v.value;
      if (masked || named) secrets.push(value);
      const identity = o.kind === "instance" ? v.key : `${v.key}#${v.scope}`;
      values.set(`${ownerKey(o)}|variables|${identity}`, value);
      ci_variables.push({
        ...ownerRef(o),
        key: v.key,
        value,
        ...(masked ? { masked: true } : {}),
        ...(v.protected ? { protected: true } : {}),
        ...(v.file ? { variable_type: "file" } : {}),
        ...(o.kind !== "instance" && v.scope !== "*" ? { environment_scope: v.scope } : {}),
      });
    }
  });

  const urlOf = (shape: "plain" | "query" | "userinfo" | "slack" | "both" | "uuid") => {
    const h = `h${host++}.example.com`;
    let url: string;
    if (shape === "plain") url = `https://${h}/in`;
    else if (shape === "query") {
      const s = secret(16);
      secrets.push(s);
      url = `https://${h}/in?token=${s}&channel=yes`;
    } else if (shape === "userinfo") {
      const s = secret(16);
      secrets.push(s);
      url = `https://user:${s}@${h}/in`;
    } else if (shape === "both") {
      const a = secret(16);
      const b = secret(16);
      secrets.push(a, b);
      url = `https://ci:${a}@${h}/in?key=${b}&x=$\{y}`;
    } else if (shape === "uuid") {
      const hex = createHash("sha256").update(`uuid ${d.nonce} ${n++}`).digest("hex");
      const s = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      secrets.push(s);
      url = `https://${h}/webhooks/${s}`;
    } else {
      const s = secret(24);
      secrets.push(s);
      // A Slack hook: ids before the secret, the host made unique by its team id.
      url = `https://hooks.slack.com/services/T${String(host).padStart(8, "0")}/B0456EFGH/${s}`;
    }
    urls.push(url);
    return url;
  };
  const hookToken = () => {
    const t = secret(20);
    secrets.push(t);
    return t;
  };
  const project_hooks: Record<string, unknown>[] = [];
  const group_hooks: Record<string, unknown>[] = [];
  // Hooks of a, ab (groups) and the three projects.
  const hookOwners: Owner[] = [
    { kind: "groups", path: "a" },
    { kind: "groups", path: "ab" },
    ...PROJECTS.map((path) => ({ kind: "projects" as const, path })),
  ];
  hookOwners.forEach((o, i) => {
    for (const h of d.hooks[i]!) {
      const entry = {
        ...ownerRef(o),
        url: urlOf(h.shape),
        ...(h.token ? { token: hookToken() } : {}),
        push_events: h.push_events,
        merge_requests_events: h.merge_requests_events,
        enable_ssl_verification: h.enable_ssl_verification,
        ...(h.branch_filter !== undefined ? { push_events_branch_filter: h.branch_filter } : {}),
        ...(o.kind === "groups" && h.subgroup_events ? { subgroup_events: true } : {}),
      };
      (o.kind === "groups" ? group_hooks : project_hooks).push(entry);
    }
  });
  const system_hooks = d.systemHooks.map((h) => ({
    url: urlOf(h.shape),
    ...(h.token ? { token: hookToken() } : {}),
    push_events: h.push_events,
    tag_push_events: h.tag_push_events,
  }));

  const deploy_tokens: Record<string, unknown>[] = [];
  OWNERS.forEach((key, i) => {
    // Names may repeat, as the platform allows: export writes the one the plan manages.
    for (const t of d.deployTokens[i]!) {
      const token = secret(24);
      secrets.push(token);
      deploy_tokens.push({
        ...ownerRef(ownerOf(key)),
        name: t.name,
        scopes: t.scopes,
        token,
        ...(t.expires ? { expires_at: t.expires } : {}),
        ...(t.username ? { username: t.username } : {}),
      });
    }
  });

  const protected_branches: Record<string, unknown>[] = PROJECTS.flatMap((project, i) =>
    uniqueBy(d.branches[i]!, (b) => b.name).map((b) => ({
      project,
      name: b.name,
      push_access_level: b.push,
      merge_access_level: b.merge,
      unprotect_access_level: b.unprotect,
      allow_force_push: b.force,
      code_owner_approval_required: b.codeOwner,
      ...(d.allowed[i]!.length > 0 ? { allowed_to_push: d.allowed[i] } : {}),
    })),
  );
  if (d.alike)
    for (const project of PROJECTS)
      protected_branches.push({ project, name: "stable", push_access_level: 40, merge_access_level: 30 });
  const protected_tags = PROJECTS.flatMap((project, i) =>
    uniqueBy(d.tags[i]!, (t) => t.name).map((t) => ({
      project,
      name: t.name,
      create_access_level: t.create,
    })),
  );

  const badges: Record<string, unknown>[] = [];
  OWNERS.forEach((key, i) => {
    const o = ownerOf(key);
    for (const b of uniqueBy(d.badges[i]!, (b) => b.name)) {
      const h = `b${host++}.example.com`;
      const place = b.placeholder && o.kind === "projects" ? "%{project_path}/" : "";
      let link = `https://${h}/${place}x`;
      if (b.secret) {
        const s = secret(16);
        secrets.push(s);
        link = `${link}?private_token=${s}&ref=main`;
      }
      urls.push(link);
      badges.push({ ...ownerRef(o), name: b.name, link_url: link, image_url: `https://${h}/i.svg` });
    }
  });

  if (d.alike)
    for (const project of PROJECTS) {
      const url = "https://docs.example/%{project_path}";
      if (!urls.includes(url)) urls.push(url);
      badges.push({ project, name: "docs", link_url: url, image_url: "https://docs.example/badge.svg" });
    }
  const milestones: Record<string, unknown>[] = alongChains(d.milestones, (m) => m.title).map(([o, m]) => {
    const due = m.due !== null && m.start !== null && m.due < m.start ? null : m.due;
    return {
      ...ownerRef(o),
      title: m.title,
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.start ? { start_date: m.start } : {}),
      ...(due ? { due_date: due } : {}),
      ...(m.closed ? { state: "closed" } : {}),
    };
  });

  const pipeline_schedules = PROJECTS.flatMap((project, i) =>
    // Descriptions may repeat, as the platform allows (the last one's variables are the values referred to).
    d.schedules[i]!.map((s) => ({
      project,
      description: s.description,
      ref: s.ref,
      cron: s.cron,
      cron_timezone: s.timezone,
      active: s.active,
      variables: uniqueBy(s.variables, (v) => v.key).map((v) => {
        const named = /TOKEN/.test(v.key);
        const value = named ? secret() : v.value;
        if (named) secrets.push(value);
        values.set(`projects:${project}|schedule|${s.description}|${v.key}`, value);
        return { key: v.key, value, ...(v.file ? { variable_type: "file" } : {}) };
      }),
    })),
  );

  const deploy_keys = PROJECTS.flatMap((project, i) =>
    uniqueBy(d.deployKeys[i]!, (k) => k.title).map((k, j) => ({
      project,
      title: k.title,
      key: sshKey(d.nonce * 10 + i * 3 + j),
      can_push: k.canPush,
    })),
  );
  const pipeline_triggers = PROJECTS.flatMap((project, i) =>
    d.triggers[i]!.map((description) => {
      // A trigger's token: 30 lowercase hex characters.
      const token = createHash("sha256").update(`trigger ${d.nonce} ${n++}`).digest("hex").slice(0, 30);
      secrets.push(token);
      return { project, description, token };
    }),
  );
  const wikis = PROJECTS.flatMap((project, i) =>
    uniqueBy(d.wikis[i]!, (w) => w.title).map((w) => ({
      project,
      title: w.title,
      content: w.content,
      format: w.format,
    })),
  );
  const protected_environments = PROJECTS.flatMap((project, i) =>
    d.environments[i]!.map((e) => ({
      project,
      name: e.name,
      deploy_access_levels: [{ access_level: e.level }],
    })),
  );
  let application_settings: Record<string, unknown> | undefined;
  if (d.settings && Object.keys(d.settings).length > 0) {
    const { home_page_url, searchengine_hosted_access_key, spam_service_api_key, ...rest } = d.settings;
    application_settings = { ...rest };
    for (const [name, v] of Object.entries({ searchengine_hosted_access_key, spam_service_api_key })) {
      if (v === undefined) continue;
      const value = secret();
      secrets.push(value);
      values.set(`instance|application_settings|${name}`, value);
      application_settings[name] = value;
    }
    if (home_page_url !== undefined) {
      let url = home_page_url;
      if (url === "PASSWORD") {
        const s = secret(16);
        secrets.push(s);
        url = `https://admin:${s}@home${host++}.example/`;
      }
      urls.push(url);
      application_settings["home_page_url"] = url;
    }
  }

  if (d.many?.what === "variables")
    for (let i = 0; i < d.many.count; i++)
      ci_variables.push({ project: "ab/p", key: `V${i}`, value: `v${i}` });
  if (d.many?.what === "milestones")
    for (let i = 0; i < d.many.count; i++) milestones.push({ project: "ab/p", title: `m${i}` });
  if (d.many?.what === "badges")
    for (let i = 0; i < d.many.count; i++) {
      const url = `https://many.example/${i}`;
      urls.push(url);
      badges.push({ project: "ab/p", name: `b${i}`, link_url: url, image_url: `${url}.svg` });
    }
  const manySchedules =
    d.many?.what === "schedules"
      ? Array.from({ length: d.many.count }, (_, i) => ({
          project: "ab/p",
          description: `s${i}`,
          cron: "0 1 * * *",
        }))
      : [];

  const calls: Universe["calls"] = [];
  for (const b of d.broadcasts)
    calls.push({
      method: "POST",
      path: "/broadcast_messages",
      body: { message: b.message, starts_at: `${TODAY}T00:00:00Z`, ends_at: b.ends, color: b.color },
    });
  [...OWNERS, "instance"].forEach((key, i) => {
    const level = d.notifications[i];
    if (level === undefined) return;
    const o = key === "instance" ? undefined : (ownerOf(key) as { kind: string; path: string });
    calls.push({
      method: "PUT",
      path: o ? `/${o.kind}/${encodeURIComponent(o.path)}/notification_settings` : "/notification_settings",
      body: { level, ...(level === "custom" ? { new_merge_request: true, failed_pipeline: false } : {}) },
    });
  });
  OWNERS.forEach((key, i) => {
    const o = ownerOf(key) as { kind: "groups" | "projects"; path: string };
    for (const user of d.memberOf[i]!) {
      const m = d.members[i]![USERS.indexOf(user)]!;
      // Minimal access: on top-level groups only (licensed).
      const level =
        o.kind === "projects"
          ? Math.min(m.level, 40)
          : m.level === 10 && !o.path.includes("/") && user === "Bob"
            ? 5
            : m.level;
      calls.push({
        method: "POST",
        path: `/${o.kind}/${encodeURIComponent(o.path)}/members`,
        body: { user: user, access_level: level, ...(m.expires ? { expires_at: m.expires } : {}) },
      });
    }
  });
  if (d.blocked) {
    calls.push({ method: "POST", path: "/groups/a/members", body: { user: "zed", access_level: 30 } });
    calls.push({ method: "POST", path: "/projects/ab%2Fp/members", body: { user: "zed", access_level: 20 } });
    calls.push({ method: "POST", path: "/users/:zed/block", body: {} });
  }
  d.shares.forEach((s, i) => {
    const o = ownerOf(s.from) as { kind: "groups" | "projects"; path: string };
    const l = d.shareLevel[i]!;
    calls.push({
      method: "POST",
      path: `/${o.kind}/${encodeURIComponent(o.path)}/share`,
      body: { group: s.to, group_access: l.level, ...(l.expires ? { expires_at: l.expires } : {}) },
    });
  });

  // A protection that names users and groups needs them to have access (made by the calls above); one the
  // platform refuses is not live.
  PROJECTS.forEach((project, i) => {
    const a = d.allowances[i]!;
    const path = `/projects/${encodeURIComponent(project)}`;
    // One protection an allowance, so that one the platform refuses leaves the others.
    for (const [k, who] of a.branch.entries())
      calls.push({
        method: "POST",
        path: `${path}/protected_branches`,
        body: {
          name: `dev/${k}`,
          allowed_to_push: [who],
          ...(a.merge[k] ? { allowed_to_merge: [a.merge[k]] } : {}),
        },
      });
    for (const [k, who] of a.deployers.entries())
      calls.push({
        method: "POST",
        path: `${path}/protected_environments`,
        body: { name: `staging ${k}`, deploy_access_levels: k === 0 ? a.deployers : [who] },
      });
  });

  return {
    fixture: {
      users: [...USERS, "zed"].map((username) => ({ username })),
      groups,
      projects,
      project_settings,
      labels,
      ci_variables,
      project_hooks,
      group_hooks,
      system_hooks,
      deploy_tokens,
      protected_branches,
      protected_tags,
      badges,
      milestones,
      pipeline_schedules: [...pipeline_schedules, ...manySchedules],
      deploy_keys,
      pipeline_triggers,
      wikis,
      protected_environments,
      ...(application_settings ? { application_settings } : {}),
    },
    factor: d.factor,
    includeArchived: d.includeArchived,
    calls,
    secrets,
    values,
    fields,
    urls,
  };
}

/** Makes the calls (users and groups by name), each as the platform takes it: one it refuses is not live. */
async function makeCalls(bench: Bench, calls: Universe["calls"]): Promise<void> {
  const store = bench.sandbox.store;
  // `user` and `group` by name become the ids the API takes, wherever they are in the body.
  const ids = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(ids);
    if (value === null || typeof value !== "object") return value;
    const { user, group, ...rest } = value as { user?: string; group?: string };
    return {
      ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, ids(v)])),
      ...(user !== undefined ? { user_id: store.userByUsername(user)!.id } : {}),
      ...(group !== undefined ? { group_id: store.groupByFullPath(group)!.id } : {}),
    };
  };
  for (const c of calls) {
    const body = ids(c.body);
    // `:name` in a path is the user's id.
    const path = c.path.replace(/:([a-z0-9.]+)/, (_, name: string) => String(store.userByUsername(name)!.id));
    const res = await fetch(`${bench.sandbox.url}/api/v4${path}`, {
      method: c.method,
      headers: { "PRIVATE-TOKEN": bench.sandbox.adminToken, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    console.log("CALL", c.path, res.status, res.status >= 400 ? await res.clone().text() : "");
    if (res.status >= 500) throw new Error(`${c.method} ${c.path} -> ${res.status} ${await res.text()}`);
  }
}

const REF = /\$\{env:([A-Za-z0-9_]+)\}/g;

/** A regular expression that matches what an exported text with references stands for (`$${` is `${`). */
function patternOf(text: string): { re: RegExp; names: string[] } {
  const names: string[] = [];
  let source = "";
  let from = 0;
  const literal = (s: string) => s.replaceAll("$${", "${").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const m of text.matchAll(REF)) {
    // `$${env:X}` is a literal, not a reference.
    if (m.index > 0 && text[m.index - 1] === "$") continue;
    source += literal(text.slice(from, m.index));
    source += "(.+?)";
    names.push(m[1]!);
    from = m.index + m[0].length;
  }
  source += literal(text.slice(from));
  return { re: new RegExp(`^${source}$`, "s"), names };
}

/**
 * The values of the references of the exported files: a whole value by the object it belongs to (a variable by
 * owner, key and scope; a schedule's variable by project, schedule and key), a reference inside a text (a URL) by
 * the one live URL it matches.
 */
function environmentOf(
  files: Record<string, unknown>[],
  u: Universe,
  /** What export lists: each variable's address and field. */
  listed: Map<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  const set = (name: string, value: string, where: string) => {
    if (env[name] !== undefined && env[name] !== value)
      throw new Error(`${name} stands for two values (${where})`);
    env[name] = value;
  };
  const walk = (
    value: unknown,
    path: (string | number)[],
    owner: string,
    parents: Record<string, unknown>[],
  ) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, [...path, i], owner, parents);
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value))
        walk(v, [...path, k], owner, [...parents, value as Record<string, unknown>]);
      return;
    }
    if (typeof value !== "string") return;
    const { re, names } = patternOf(value);
    if (names.length === 0) return;
    const where = path.join(".");
    if (names.length === 1 && value === `\${env:${names[0]}}`) {
      const item = parents.at(-1)!;
      // A text as the loader reads it: `$${` is `${`.
      const text = (v: unknown) => String(v).replaceAll("$${", "${");
      const last = path.at(-1);
      let key: string | undefined;
      if (last === "value" && path.includes("pipeline_schedules")) {
        const schedule = parents.at(-2)!;
        key = `${owner}|schedule|${text(schedule["description"])}|${text(item["key"])}`;
      } else if (path[1] === "application_settings") {
        key = `instance|application_settings|${String(last)}`;
      } else if (last === "value" && path.includes("variables")) {
        const identity =
          owner === "instance"
            ? text(item["key"])
            : `${text(item["key"])}#${text(item["environment_scope"] ?? "*")}`;
        key = `${owner}|variables|${identity}`;
      }
      const live = key === undefined ? u.fields.get(listed.get(names[0]!) ?? "") : u.values.get(key);
      if (live === undefined) throw new Error(`a reference no live value is known for: ${where} = ${value}`);
      set(names[0]!, live, where);
      return;
    }
    const matches = u.urls.filter((url) => re.test(url));
    if (matches.length !== 1)
      throw new Error(`${where} = ${value} matches ${matches.length} live URLs: ${matches.join(", ")}`);
    const m = re.exec(matches[0]!)!;
    for (const [i, name] of names.entries()) set(name, m[i + 1]!, where);
  };
  for (const file of files) {
    const f = file as {
      instance?: unknown;
      groups?: Record<string, unknown>;
      projects?: Record<string, unknown>;
    };
    if (f.instance) walk(f.instance, ["instance"], "instance", []);
    for (const kind of ["groups", "projects"] as const)
      for (const [path, body] of Object.entries(f[kind] ?? {}))
        walk(body, [kind, path], `${kind}:${path}`, []);
  }
  return env;
}

const RUNS = process.env["FORGEFORM_PROPERTY_RUNS"] ? Number(process.env["FORGEFORM_PROPERTY_RUNS"]) : 25;

function show(r: CliResult): string {
  return `exit ${r.code}\n${r.out}\n${r.err}`;
}

async function exportPlansNothing(u: Universe): Promise<void> {
  const bench = await Bench.start({ fixture: u.fixture, edition: "licensed" });
  try {
    await makeCalls(bench, u.calls);
    const out = join(bench.dir, "exported");
    const exported = await bench.cli([
      "export",
      "--instance",
      "--group",
      "a",
      "--group",
      "ab",
      "--project",
      "alice/own",
      ...(u.factor ? ["--factor"] : []),
      ...(u.includeArchived ? ["--include-archived"] : []),
      "--out",
      out,
    ]);
    expect(exported.code, show(exported)).toBe(0);
    const names = readdirSync(out).sort();
    const texts = names.map((n) => readFileSync(join(out, n), "utf8"));
    const all = texts.join("\n");
    const listed = new Map(
      [...exported.err.matchAll(/^ {2}([A-Z0-9_]+) {2}\((.*)\)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const env = environmentOf(
      texts.map((t) => parse(t) as Record<string, unknown>),
      u,
      listed,
    );
    // Every reference export lists on stderr is one the files use, and the other way round.
    expect([...listed.keys()].sort(), exported.err).toEqual(Object.keys(env).sort());
    const plan = await bench.cli(["plan", "--detailed-exitcode", out], env);
    expect(plan.code, `${show(plan)}\n--- exported:\n${all}`).toBe(0);
    expect(plan.out).toContain("No changes.");
    const apply = await bench.cli(["apply", "--yes", "--no-backup", out], env);
    expect(apply.code, show(apply)).toBe(0);
    expect(apply.out, show(apply)).toMatch(/No changes/);
    for (const s of u.secrets) {
      expect(all, `secret ${s} in the exported files`).not.toContain(s);
      for (const r of [exported, plan, apply])
        expect(r.out + r.err, `secret ${s} in an output`).not.toContain(s);
    }
  } finally {
    await bench.stop();
  }
}

describe("export as a property", () => {
  it("the export of any live state plans no changes and shows no secret", async () => {
    await fc.assert(
      fc.asyncProperty(draw.map(build), (u) => exportPlansNothing(u)),
      { numRuns: RUNS },
    );
  }, 600_000);
});
