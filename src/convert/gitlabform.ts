/**
 * GitLabForm's `config.yml` (config_version 3 and 4, as its documentation describes them) as forgeform manifests.
 *
 * `projects_and_groups` keys keep their meaning and precedence: `"*"` (every group and project) becomes the patterns
 * `**` of `groups:` and `projects:`; `group/*` (the group, its subgroups and every project below) becomes the group's
 * own entry and the patterns `group/**`; `group/project` its exact entry. Longer roots are more specific in both
 * tools, and an exact entry wins, so the merged configuration of each group and project is the same. `skip_groups`
 * and `skip_projects` become `except:` on the patterns they cut into; `enforce: true` becomes the collection's prune
 * policy `delete`. Sections keyed by labels (variables, badges, deploy keys) become lists with identities; a label
 * that a more specific level repeats to change one field keeps the identity its less specific level gave.
 */
import { namePart } from "../export/export.js";
import { pathProblem } from "../manifest/paths.js";
import { At, asText, fileOf, setLevel, setSetting } from "./common.js";
import type { SNode } from "./source.js";
import type { Obj, Target } from "./target.js";

type Level = "common" | "group" | "project";

interface GfEntry {
  key: string;
  at: At;
  level: Level;
  /** `*`: "", a group level: the group's path, a project: the project's path. */
  path: string;
}

const PROJECT_SECTIONS: Record<string, (c: Converter, s: At, obj: Obj, e: GfEntry) => void> = {
  project_settings: (c, s, obj) => c.settings(s, obj, "project"),
  project: (c, s, obj) => c.archive(s, obj),
  variables: (c, s, obj, e) => c.variables(s, obj, e),
  secret_variables: (c, s, obj, e) => c.renamed(s, "variables", () => c.variables(s, obj, e)),
  members: (c, s, obj) => c.members(s, obj, "project"),
  badges: (c, s, obj, e) => c.badges(s, obj, e),
  labels: (c, s, obj) => c.labels(s, obj),
  hooks: (c, s, obj, e) => c.hooks(s, obj, e),
  branches: (c, s, obj) => c.branches(s, obj),
  tags: (c, s, obj) => c.tags(s, obj),
  deploy_keys: (c, s, obj, e) => c.deployKeys(s, obj, e),
  schedules: (c, s, obj, e) => c.schedules(s, obj, e),
  protected_environments: (c, s, obj) => c.protectedEnvironments(s, obj),
};

const GROUP_SECTIONS: Record<string, (c: Converter, s: At, obj: Obj, e: GfEntry) => void> = {
  group_settings: (c, s, obj) => c.settings(s, obj, "group"),
  group_variables: (c, s, obj, e) => c.variables(s, obj, e),
  group_secret_variables: (c, s, obj, e) => c.renamed(s, "group_variables", () => c.variables(s, obj, e)),
  group_members: (c, s, obj) => c.members(s, obj, "group"),
  group_badges: (c, s, obj, e) => c.badges(s, obj, e),
  group_labels: (c, s, obj) => c.labels(s, obj),
  group_hooks: (c, s, obj, e) => c.hooks(s, obj, e),
};

/** Sections forgeform has no equivalent for, and why. */
const NOT_MANAGED: Record<string, string> = {
  files: "forgeform does not manage repository files",
  integrations: "forgeform does not manage integrations",
  services: "forgeform does not manage integrations (services is their name before GitLabForm 3)",
  merge_requests_approvals: "forgeform does not manage merge request approval settings",
  merge_requests_approval_rules: "forgeform does not manage merge request approval rules",
  merge_requests: "forgeform does not manage merge request approvals (the syntax GitLabForm 5 removed)",
  project_push_rules: "forgeform does not manage push rules",
  group_push_rules: "forgeform does not manage push rules",
  job_token_scope: "forgeform does not manage the CI/CD job token scope",
  resource_groups: "forgeform does not manage resource groups",
  remote_mirrors: "forgeform does not manage push mirrors",
  project_security_settings: "forgeform does not manage security settings",
  avatar: "forgeform does not manage avatars",
  group_avatar: "forgeform does not manage avatars",
  project_transfer: "forgeform does not move projects",
  group_ldap_links: "forgeform does not manage LDAP group links",
  group_saml_links: "forgeform does not manage SAML group links",
  saml_group_links:
    "forgeform does not manage SAML group links (saml_group_links is their name before GitLabForm 5)",
  group_protected_branches:
    "forgeform manages protected branches per project (GitLab's group-level protected branches came after 13.12)",
};

/** Hook events GitLabForm passes to the API as written. */
const HOOK_SKIP = new Set(["delete"]);

class Converter {
  private entries: GfEntry[] = [];
  private skippedGroups: At | undefined;
  private skippedProjects: At | undefined;

  constructor(
    private readonly t: Target,
    private readonly root: At,
  ) {}

  run(): void {
    const r = this.root;
    if (!r.isMap) {
      this.t.report.notConverted(r.node.at, "", "a GitLabForm configuration is a map of top-level keys");
      return;
    }
    for (const [key, at] of r.entries()) {
      switch (key) {
        case "config_version":
          if (![2, 3, 4].includes(at.value as number))
            this.t.report.check(
              at.node.at,
              at.source,
              `config_version ${JSON.stringify(at.value)}: converted as the syntax of config_version 3 and 4 (GitLabForm's upgrade guide says what changed)`,
            );
          break;
        case "gitlab":
          this.t.report.notConverted(
            at.keyAt,
            at.source,
            "connection settings are not part of manifests: give forgeform the platform's URL and a token with FORGEFORM_URL and FORGEFORM_TOKEN (or --url and --token-file)",
          );
          break;
        case "example_config":
          break;
        case "skip_groups":
          this.skippedGroups = at;
          break;
        case "skip_projects":
          this.skippedProjects = at;
          break;
        case "application":
          this.application(at);
          break;
        case "projects_and_groups":
          break;
        case "common_settings":
        case "group_settings":
        case "project_settings":
          this.t.report.notConverted(
            at.keyAt,
            at.source,
            `${key} at the top level is the syntax of GitLabForm 1: move it under projects_and_groups as GitLabForm's upgrade guide says, then convert again`,
          );
          break;
        default:
          this.t.report.notConverted(at.keyAt, at.source, `${key} is not a top-level key of GitLabForm`);
      }
    }
    const pg = r.get("projects_and_groups");
    if (pg) this.projectsAndGroups(pg);
  }

  private application(at: At): void {
    for (const [key, s] of at.entries()) {
      if (key !== "settings") {
        this.t.report.notConverted(s.keyAt, s.source, `forgeform does not manage application ${key}`);
        continue;
      }
      const inst = this.t.instanceEntry(s.origin, "instance.yaml");
      const settings: Obj = {};
      this.t.set(inst, "application_settings", settings, s.origin);
      for (const [name, v] of s.entries()) this.t.set(settings, name, v.value, v.origin, true);
    }
  }

  private projectsAndGroups(pg: At): void {
    for (const [key, at] of pg.entries()) {
      const level: Level = key === "*" ? "common" : key.endsWith("/*") ? "group" : "project";
      const path = level === "common" ? "" : level === "group" ? key.slice(0, -2) : key;
      if (level !== "common" && (path.includes("*") || pathProblem(path) !== undefined)) {
        this.t.report.notConverted(
          at.keyAt,
          at.source,
          path.includes("*")
            ? "a pattern inside a name (fnmatch) has no equivalent: forgeform's patterns are a group's direct (*) or all (**) groups and projects; list the projects, or use the group's pattern with except:"
            : (pathProblem(path) ?? ""),
        );
        continue;
      }
      if (level === "project" && !path.includes("/")) {
        this.t.report.notConverted(
          at.keyAt,
          at.source,
          `${key} names no group: a project is group/project, a group's configuration is ${key}/*`,
        );
        continue;
      }
      if (!at.isMap) {
        if (at.value !== null)
          this.t.report.notConverted(
            at.node.at,
            at.source,
            "the configuration of an entry is a map of sections",
          );
        continue;
      }
      this.entries.push({ key, at, level, path });
    }
    for (const e of this.entries) {
      const skipped = this.skipped(e);
      if (skipped) {
        this.t.report.check(
          e.at.keyAt,
          e.at.source,
          `${skipped}: the entry is not converted, as GitLabForm does not apply it (remove it from the skip list and convert again to keep it)`,
        );
        continue;
      }
      this.entry(e);
    }
    this.excepts();
  }

  /** Why an entry is skipped by skip_groups or skip_projects, or undefined. */
  private skipped(e: GfEntry): string | undefined {
    const match = (list: At | undefined, path: string, what: string): string | undefined => {
      for (const item of list?.items() ?? []) {
        const s = item.text?.toLowerCase();
        if (s === undefined) continue;
        const p = path.toLowerCase();
        if (s === p || (s.endsWith("/*") && (p === s.slice(0, -2) || p.startsWith(s.slice(0, -1)))))
          return `${what} ${JSON.stringify(item.text)} (${item.source})`;
      }
      return undefined;
    };
    if (e.level === "group") return match(this.skippedGroups, e.path, "skip_groups lists");
    if (e.level === "project")
      return (
        match(this.skippedProjects, e.path, "skip_projects lists") ??
        match(this.skippedGroups, e.path.slice(0, e.path.lastIndexOf("/")), "skip_groups lists its group as")
      );
    return undefined;
  }

  /** The entries a level writes into: the project entry, and the group entries. */
  private projectEntry(e: GfEntry): Obj {
    const key = e.level === "common" ? "**" : e.level === "group" ? `${e.path}/**` : e.path;
    return this.t.entry("projects", key, e.at.origin, fileOf(e.path));
  }

  /**
   * The group entries a group section of a level writes into: every group for "*", the group and its subgroups
   * for group/*. Labels are the exception: a group's labels are its subgroups' too on the platform, and GitLabForm
   * creates a label in a subgroup only where no group above has it, so they go to the top-level groups ("*") or
   * the group alone.
   */
  private groupEntries(e: GfEntry, section: string): Obj[] {
    const inherited = section === "group_labels";
    if (e.level === "common")
      return [this.t.entry("groups", inherited ? "*" : "**", e.at.origin, fileOf(e.path))];
    const own = this.t.entry("groups", e.path, e.at.origin, fileOf(e.path));
    this.t.keep(own);
    return inherited ? [own] : [own, this.t.entry("groups", `${e.path}/**`, e.at.origin, fileOf(e.path))];
  }

  private entry(e: GfEntry): void {
    for (const [section, s] of e.at.entries()) {
      const notManaged = NOT_MANAGED[section];
      if (notManaged !== undefined) {
        this.t.report.notConverted(s.keyAt, s.source, notManaged);
        continue;
      }
      const project = PROJECT_SECTIONS[section];
      const group = GROUP_SECTIONS[section];
      if (!project && !group) {
        this.t.report.notConverted(s.keyAt, s.source, `${section} is not a section GitLabForm documents`);
        continue;
      }
      if (this.controls(s)) continue;
      if (project) {
        project(this, s, this.projectEntry(e), e);
        continue;
      }
      if (e.level === "project") {
        this.t.report.notConverted(
          s.keyAt,
          s.source,
          `${section} is a group section: on a project's entry GitLabForm does not apply it`,
        );
        continue;
      }
      for (const g of this.groupEntries(e, section)) group!(this, s, g, e);
    }
  }

  /**
   * `skip: true` and `inherit: false`, which have no equivalent in forgeform's merge by identity: reported; a
   * section that is only `skip: true` is not converted at all.
   */
  private controls(s: At): boolean {
    const skip = s.get("skip");
    if (skip?.value === true) {
      this.t.report.notConverted(
        skip.keyAt,
        skip.source,
        "skip: true has no equivalent: forgeform manages a collection wherever an entry mentions it; leave this group or project out of the less specific patterns with except: instead",
      );
      return true;
    }
    const walk = (a: At): void => {
      for (const [k, v] of a.entries()) {
        if (k === "inherit" && v.value === false)
          this.t.report.notConverted(
            v.keyAt,
            v.source,
            'inherit: false has no equivalent: forgeform merges the entries that match one group or project by identity, so what less specific entries ("*", group/*) give here still applies; mark the items this entry must not have state: absent, or leave it out of those patterns with except:',
          );
        else if (v.isMap) walk(v);
      }
    };
    walk(s);
    return false;
  }

  renamed(s: At, to: string, then: () => void): void {
    this.t.report.check(s.keyAt, s.source, `${s.path.at(-1)} is the name of ${to} before GitLabForm 3`);
    then();
  }

  /** A map keyed by labels, without GitLabForm's own keys (`enforce`, `inherit`, `skip`). */
  private items(s: At): [string, At][] {
    return s
      .entries()
      .filter(([k]) => k !== "enforce" && k !== "inherit" && k !== "skip" && k !== "keep_bots");
  }

  private enforce(s: At, obj: Obj, collection: string): void {
    const enforce = s.get("enforce");
    if (enforce?.value === true) this.t.policy(obj, collection, "delete", enforce.origin);
  }

  /** group_settings and project_settings: the API's own names, passed through. */
  settings(s: At, obj: Obj, kind: "group" | "project"): void {
    for (const [key, v] of this.items(s)) {
      if (key === "topics" && kind === "project" && v.isList) {
        const topics: string[] = [];
        for (const item of v.items()) {
          if (item.isMap) {
            const [name, opts] = item.entries()[0] ?? [];
            if (name === "keep_existing")
              this.t.report.check(
                item.node.at,
                item.source,
                "keep_existing has no equivalent: forgeform's topics are the project's whole set of topics; add the topics to keep",
              );
            else if (name !== undefined && opts?.get("delete")?.value !== true && opts) topics.push(name);
            continue;
          }
          if (item.text !== undefined) topics.push(item.text);
        }
        this.t.set(obj, "topics", topics, v.origin, true);
        continue;
      }
      if (key === "path" || key === "id") {
        this.t.report.notConverted(v.keyAt, v.source, `${key} is given by the entry's key in forgeform`);
        continue;
      }
      setSetting(this.t, obj, key, v, v.value);
    }
  }

  archive(s: At, obj: Obj): void {
    for (const [key, v] of s.entries()) {
      if (key === "archive" && typeof v.value === "boolean") this.t.set(obj, "archived", v.value, v.origin);
      else
        this.t.report.notConverted(v.keyAt, v.source, `${key} is not a key of GitLabForm's project section`);
    }
  }

  /** Less specific entries that apply to what `e` applies to, most specific first. */
  private above(e: GfEntry): GfEntry[] {
    return this.entries
      .filter(
        (o) =>
          o !== e &&
          (o.level === "common" ||
            (o.level === "group" &&
              e.level !== "common" &&
              `${e.path}/`.startsWith(`${o.path}/`) &&
              o.path !== e.path)),
      )
      .sort((a, b) => b.path.length - a.path.length);
  }

  /**
   * A field of a labelled item, or, when a more specific level repeats a label to change some fields only (as
   * GitLabForm merges labels), the value its less specific levels give.
   */
  private labelled(e: GfEntry, s: At, label: string, field: string): At | undefined {
    const own = s.get(label)?.get(field);
    if (own) return own;
    const section = String(s.path.at(-1));
    for (const o of this.above(e)) {
      const found = o.at.get(section)?.get(label)?.get(field);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * The fields of a labelled item, with the required ones it leaves to its less specific levels (a schedule whose
   * project level changes only the cron) taken from there, so the entry is complete wherever it applies: what
   * GitLabForm's merge of the levels gives.
   */
  private withInherited(e: GfEntry, s: At, label: string, required: string[]): [string, At][] {
    const own = s.get(label)?.entries() ?? [];
    const out = [...own];
    for (const field of required) {
      if (own.some(([k]) => k === field)) continue;
      const found = this.labelled(e, s, label, field);
      if (found) out.push([field, found]);
    }
    return out;
  }

  private names(e: GfEntry): string[] {
    return e.path === "" ? [] : [e.path.slice(e.path.lastIndexOf("/") + 1)];
  }

  variables(s: At, obj: Obj, e: GfEntry): void {
    this.enforce(s, obj, "variables");
    const list = this.t.list(obj, "variables", s.origin);
    for (const [label, v] of this.items(s)) {
      const keyAt = this.labelled(e, s, label, "key");
      const key = keyAt?.text;
      if (key === undefined) {
        this.t.report.notConverted(v.keyAt, v.source, "a variable needs its key");
        continue;
      }
      const item: Obj = {};
      this.t.set(item, "key", key, keyAt!.valueOrigin);
      const scope = this.labelled(e, s, label, "environment_scope");
      if (v.get("delete")?.value === true) {
        if (scope?.text !== undefined) this.t.set(item, "environment_scope", scope.text, scope.valueOrigin);
        this.t.set(item, "state", "absent", v.get("delete")!.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of this.withInherited(e, s, label, ["value"])) {
        if (field === "key" || field === "delete" || field === "filter[environment_scope]") continue;
        if (field === "value") {
          const names = [...this.names(e), key, scope?.text && scope.text !== "*" ? scope.text : ""];
          this.t.set(
            item,
            "value",
            this.t.secret(names, f.valueOrigin, "the variable's value"),
            f.valueOrigin,
          );
          continue;
        }
        this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  members(s: At, obj: Obj, kind: "group" | "project"): void {
    const enforce = s.get("enforce");
    const keepBots = s.get("keep_bots");
    for (const [key, part] of s.entries()) {
      if (key === "users") {
        if (enforce?.value === true) this.t.policy(obj, "members", "delete", enforce.origin);
        const list = this.t.list(obj, "members", part.origin);
        for (const [user, m] of part.entries()) {
          const item: Obj = {};
          this.t.set(item, "user", user, m.origin);
          const level = m.get("access_level");
          if (!level || !setLevel(this.t, item, "access_level", level, `the member ${user}`)) {
            if (!level) this.t.report.notConverted(m.keyAt, m.source, "a member needs an access_level");
            continue;
          }
          for (const [field, f] of m.entries())
            if (field !== "access_level") this.t.set(item, field, f.value, f.valueOrigin);
          list.push(item);
        }
      } else if (key === "groups") {
        if (enforce?.value === true) this.t.policy(obj, "shared_with_groups", "delete", enforce.origin);
        const list = this.t.list(obj, "shared_with_groups", part.origin);
        for (const [group, g] of part.entries()) {
          const item: Obj = {};
          this.t.set(item, "group", group, g.origin);
          const level = g.get("group_access") ?? g.get("group_access_level");
          if (!level) {
            this.t.report.notConverted(g.keyAt, g.source, "a shared group needs a group_access");
            continue;
          }
          if (!setLevel(this.t, item, "group_access", level, `the share with ${group}`)) continue;
          if (item["group_access"] === "no_access" || item["group_access"] === 0) {
            this.t.report.notConverted(
              level.node.at,
              level.source,
              "a share gives at least guest access: a share without access is not made (mark it state: absent to remove one)",
            );
            continue;
          }
          for (const [field, f] of g.entries())
            if (field !== "group_access" && field !== "group_access_level")
              this.t.set(item, field, f.value, f.valueOrigin);
          list.push(item);
        }
      } else if (key === "keep_bots") {
        if (keepBots?.value === true && enforce?.value === true)
          this.t.report.check(
            keepBots.keyAt,
            keepBots.source,
            `keep_bots has no equivalent: with the prune policy delete, forgeform removes the ${kind}'s bot members the manifest does not list too; list them`,
          );
      } else if (key !== "enforce" && key !== "inherit")
        this.t.report.notConverted(
          part.keyAt,
          part.source,
          `${key} is not a key of GitLabForm's members sections`,
        );
    }
  }

  badges(s: At, obj: Obj, e: GfEntry): void {
    this.enforce(s, obj, "badges");
    const list = this.t.list(obj, "badges", s.origin);
    for (const [label, b] of this.items(s)) {
      const nameAt = this.labelled(e, s, label, "name");
      const name = nameAt?.text;
      if (name === undefined) {
        this.t.report.notConverted(b.keyAt, b.source, "a badge needs its name (GitLabForm requires it too)");
        continue;
      }
      const item: Obj = {};
      this.t.set(item, "name", name, nameAt!.valueOrigin);
      if (b.get("delete")?.value === true) {
        this.t.set(item, "state", "absent", b.get("delete")!.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of this.withInherited(e, s, label, ["link_url", "image_url"])) {
        if (field === "name") continue;
        const text = f.text;
        this.t.set(
          item,
          field,
          text !== undefined ? this.t.text(text, [...this.names(e), name, field], f.valueOrigin) : f.value,
          f.valueOrigin,
        );
      }
      list.push(item);
    }
  }

  labels(s: At, obj: Obj): void {
    this.enforce(s, obj, "labels");
    const list = this.t.list(obj, "labels", s.origin);
    for (const [name, l] of this.items(s)) {
      const item: Obj = {};
      this.t.set(item, "name", l.get("name")?.text ?? name, l.origin);
      if (l.get("delete")?.value === true) {
        this.t.set(item, "state", "absent", l.get("delete")!.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of l.entries())
        if (field !== "name" && field !== "delete") this.t.set(item, field, f.value, f.valueOrigin);
      list.push(item);
    }
  }

  hooks(s: At, obj: Obj, e: GfEntry): void {
    this.enforce(s, obj, "hooks");
    const list = this.t.list(obj, "hooks", s.origin);
    for (const [url, h] of this.items(s)) {
      const item: Obj = {};
      const names = [...this.names(e), namePart(url)];
      this.t.set(item, "url", this.t.text(url, names, h.origin), h.origin);
      if (h.get("delete")?.value === true) {
        this.t.set(item, "state", "absent", h.get("delete")!.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of h.entries()) {
        if (HOOK_SKIP.has(field)) continue;
        if (field === "token") {
          this.t.set(
            item,
            "token",
            this.t.secret([...names, "token"], f.valueOrigin, "the hook's token"),
            f.valueOrigin,
          );
          continue;
        }
        this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  /** `branches`: protected branches by name or wildcard; `protected: false` unprotects. */
  branches(s: At, obj: Obj): void {
    const list = this.t.list(obj, "protected_branches", s.origin);
    for (const [name, b] of this.items(s)) {
      const item: Obj = {};
      this.t.set(item, "name", name, b.origin);
      const isProtected = b.get("protected");
      if (isProtected?.value === false) {
        this.t.set(item, "state", "absent", isProtected.origin);
        list.push(item);
        continue;
      }
      if (isProtected === undefined)
        this.t.report.check(
          b.keyAt,
          b.source,
          "protected is not given (GitLabForm 5 requires it): converted as a protected branch",
        );
      for (const [field, f] of b.entries()) {
        if (field === "protected") continue;
        if (field.endsWith("_access_level")) setLevel(this.t, item, field, f, `${field} of ${name}`);
        else if (field.startsWith("allowed_to_")) this.allowances(item, field, f);
        else this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  /** `allowed_to_push` and the like: users and groups by name, roles by level; ids cannot be converted. */
  private allowances(item: Obj, field: string, f: At): void {
    const out: Obj[] = [];
    for (const a of f.items()) {
      const one: Obj = {};
      for (const [k, v] of a.entries()) {
        if (k === "user" || k === "group") this.t.set(one, k, v.value, v.valueOrigin);
        else if (k === "access_level") setLevel(this.t, one, k, v, "");
        else
          this.t.report.notConverted(
            v.keyAt,
            v.source,
            `${k} ${JSON.stringify(v.value)}: forgeform names users and groups by their username and path, not by id; write it as ${k === "user_id" ? "user: <username>" : "group: <full path>"}`,
          );
      }
      if (Object.keys(one).length > 0) out.push(one);
    }
    this.t.set(item, field, out, f.origin);
  }

  tags(s: At, obj: Obj): void {
    const list = this.t.list(obj, "protected_tags", s.origin);
    for (const [name, tag] of this.items(s)) {
      const item: Obj = {};
      this.t.set(item, "name", name, tag.origin);
      const isProtected = tag.get("protected");
      if (isProtected?.value === false) {
        this.t.set(item, "state", "absent", isProtected.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of tag.entries()) {
        if (field === "protected") continue;
        if (field === "create_access_level") setLevel(this.t, item, field, f, `${field} of ${name}`);
        else if (field === "allowed_to_create") this.allowances(item, field, f);
        else this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  deployKeys(s: At, obj: Obj, e: GfEntry): void {
    this.enforce(s, obj, "deploy_keys");
    const list = this.t.list(obj, "deploy_keys", s.origin);
    for (const [label, k] of this.items(s)) {
      const keyAt = this.labelled(e, s, label, "key");
      if (keyAt?.text === undefined) {
        this.t.report.notConverted(
          k.keyAt,
          k.source,
          k.get("delete")?.value === true
            ? "a deploy key to delete by its title only: forgeform finds deploy keys by their key; give the key with state: absent"
            : "a deploy key needs its key",
        );
        continue;
      }
      const item: Obj = {};
      this.t.set(item, "key", keyAt.text, keyAt.valueOrigin);
      if (k.get("delete")?.value === true) {
        this.t.set(item, "state", "absent", k.get("delete")!.origin);
        list.push(item);
        continue;
      }
      const title = this.labelled(e, s, label, "title");
      if (title?.text !== undefined) this.t.set(item, "title", title.text, title.valueOrigin);
      for (const [field, f] of k.entries()) {
        if (field === "key" || field === "title") continue;
        if (field === "can_push")
          this.t.report.check(
            f.keyAt,
            f.source,
            "the platform sets can_push when a key is first added to a project: forgeform compares it and plans a change where it differs",
          );
        this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  schedules(s: At, obj: Obj, e: GfEntry): void {
    this.enforce(s, obj, "pipeline_schedules");
    const list = this.t.list(obj, "pipeline_schedules", s.origin);
    for (const [description, sc] of this.items(s)) {
      const item: Obj = {};
      this.t.set(item, "description", description, sc.origin);
      if (sc.get("delete")?.value === true) {
        this.t.set(item, "state", "absent", sc.get("delete")!.origin);
        list.push(item);
        continue;
      }
      for (const [field, f] of this.withInherited(e, s, description, ["ref", "cron"])) {
        if (field === "description") {
          this.t.report.check(
            f.keyAt,
            f.source,
            "description is the schedule's key in GitLabForm (which says not to set it): the key is kept as the description",
          );
          continue;
        }
        if (field === "cron") {
          this.cron(item, f);
          continue;
        }
        if (field === "variables") {
          const vars = this.t.list(item, "variables", f.origin);
          for (const [key, v] of f.entries()) {
            const variable: Obj = {};
            this.t.set(variable, "key", key, v.origin);
            const value = v.get("value");
            if (value)
              this.t.set(
                variable,
                "value",
                this.t.secret([description, key], value.valueOrigin, "the schedule variable's value"),
                value.valueOrigin,
              );
            for (const [vf, vv] of v.entries())
              if (vf !== "value") this.t.set(variable, vf, vv.value, vv.valueOrigin);
            vars.push(variable);
          }
          continue;
        }
        const text =
          field === "ref" || field === "cron_timezone" ? asText(f, this.t.report, field) : undefined;
        this.t.set(item, field, text ?? f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  /** A cron, with GitLabForm's aliases written out; `H` is reported (forgeform picks other values). */
  private cron(item: Obj, f: At): void {
    let cron = f.text ?? "";
    const aliases: Record<string, string> = {
      "@hourly": "H * * * *",
      "@daily": "H H * * *",
      "@weekly": "H H * * H",
      "@nightly": "H H(0-6) * * *",
    };
    const alias = aliases[cron.trim().toLowerCase()];
    if (alias) cron = alias;
    if (/H/.test(cron))
      this.t.report.check(
        f.node.at,
        f.source,
        `the cron ${JSON.stringify(f.text)} picks its values with H: forgeform hashes the project's path and the schedule's description, GitLabForm the project's id, so each such schedule runs at another time once converted${alias ? ` (written ${JSON.stringify(cron)})` : ""}`,
      );
    this.t.set(item, "cron", cron, f.valueOrigin);
  }

  protectedEnvironments(s: At, obj: Obj): void {
    this.enforce(s, obj, "protected_environments");
    const list = this.t.list(obj, "protected_environments", s.origin);
    for (const [label, pe] of this.items(s)) {
      const item: Obj = {};
      this.t.set(item, "name", pe.get("name")?.text ?? label, pe.origin);
      for (const [field, f] of pe.entries()) {
        if (field === "name") continue;
        if (field === "deploy_access_levels") this.allowances(item, field, f);
        else this.t.set(item, field, f.value, f.valueOrigin);
      }
      list.push(item);
    }
  }

  /**
   * skip_groups and skip_projects as `except:` on the patterns whose root holds them: a group leaves out the
   * group and everything below it (its subgroups and projects), `path/*` the same; a project, that project.
   */
  private excepts(): void {
    const add = (section: "groups" | "projects", except: string, at: At) => {
      for (const [key, e] of this.t.sections[section]) {
        if (!key.endsWith("*")) continue;
        // `*` of groups is the top-level groups: only a top-level group is left out of it.
        if (section === "groups" && key === "*" && except.includes("/")) continue;
        const root = key === "**" || key === "*" ? "" : key.slice(0, key.lastIndexOf("/"));
        if (root !== "" && !except.toLowerCase().startsWith(`${root.toLowerCase()}/`)) continue;
        const list = this.t.list(e.body, "except", at.origin);
        if (!list.includes(except)) list.push(except);
      }
    };
    for (const item of this.skippedGroups?.items() ?? []) {
      const text = item.text;
      if (text === undefined) continue;
      const path = text.endsWith("/*") ? text.slice(0, -2) : text;
      if (path.includes("*") || pathProblem(path) !== undefined) {
        this.t.report.notConverted(
          item.node.at,
          item.source,
          "a pattern inside a name has no equivalent in except: (paths and group/** only)",
        );
        continue;
      }
      if (!text.endsWith("/*"))
        this.t.report.check(
          item.node.at,
          item.source,
          `forgeform's except: [${path}] leaves out the group with its subgroups and projects`,
        );
      add("groups", path, item);
      add("projects", path, item);
    }
    for (const item of this.skippedProjects?.items() ?? []) {
      const text = item.text;
      if (text === undefined) continue;
      const path = text.endsWith("/*") ? `${text}*` : text;
      const root = text.endsWith("/*") ? text.slice(0, -2) : text;
      if (root.includes("*") || pathProblem(root) !== undefined) {
        this.t.report.notConverted(
          item.node.at,
          item.source,
          "a pattern inside a name has no equivalent in except: (paths and group/** only)",
        );
        continue;
      }
      add("projects", path, item);
    }
  }
}

/** Converts one GitLabForm configuration file into `t`. */
export function convertGitlabform(t: Target, root: SNode): void {
  new Converter(t, new At(root, [])).run();
}
