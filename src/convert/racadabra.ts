/**
 * gitlabracadabra's action files as forgeform manifests, one output file per action file (an included file is its
 * own). Its format, as its documentation and its parser read it: each top-level key is an object (`group/` or a key
 * with `type: group` a group, `type: project` or any other key a project, `type: user`, `type:
 * application-settings`); keys starting with a dot are hidden objects that others `extends`; `include:` merges
 * other files' objects as defaults. Hidden objects become templates and `extends` stays `extends`: both tools apply
 * the templates first and merge maps deeply with lists replaced. Where the results would differ (a map of members
 * that forgeform writes as a list, the `aggregate` and `replace` strategies, an object extending a declared object),
 * the body says what gitlabracadabra's merge gives. `unknown_*` policies are `unmanaged:` policies (`remove` is
 * `delete`, `skip` is `ignore`).
 */
import { dirname, join, posix } from "node:path";
import { namePart } from "../export/export.js";
import { loadSchemas } from "../manifest/index.js";
import { pathProblem } from "../manifest/paths.js";
import { At, asText, pruneWord, setLevel, setSetting } from "./common.js";
import type { SMap, SNode, SSeq } from "./source.js";
import type { Obj, Target } from "./target.js";

interface SourceFileLike {
  name: string;
  text: string;
}

interface Declared {
  node: SNode;
  /** The file that declared it first (the including file wins, as gitlabracadabra merges includes as defaults). */
  file: string;
  keyAt: At;
}

type Strategy = "deep" | "replace" | "aggregate";

/** Collections gitlabracadabra writes as maps (name: level or settings) that forgeform writes as lists. */
const MAP_COLLECTIONS = new Set(["members", "groups", "protected_branches", "protected_tags"]);

/** What forgeform has no equivalent for, and why. */
const NOT_MANAGED: Record<string, string> = {
  gitlab_id: "forgeform works against one platform per run (FORGEFORM_URL): split the files by platform",
  initialize_with_readme: "forgeform does not write repository content",
  boards: "forgeform does not manage issue boards",
  unknown_boards: "forgeform does not manage issue boards",
  unknown_board_lists: "forgeform does not manage issue boards",
  mirrors: "forgeform does not manage mirroring",
  mirror: "forgeform does not manage mirroring",
  import_url: "forgeform does not manage mirroring",
  mirror_user_id: "forgeform does not manage mirroring",
  mirror_overwrites_diverged_branches: "forgeform does not manage mirroring",
  mirror_trigger_builds: "forgeform does not manage mirroring",
  only_mirror_protected_branches: "forgeform does not manage mirroring",
  image_mirrors: "forgeform does not mirror container images",
  package_mirrors: "forgeform does not mirror packages",
  branches: "forgeform does not create branches",
  rename_branches: "forgeform does not rename branches",
  container_expiration_policy: "forgeform does not manage the container registry's cleanup policy",
};

/** Deprecated project switches and the access level setting that replaced each. */
const DEPRECATED_SWITCHES: Record<string, string> = {
  issues_enabled: "issues_access_level",
  merge_requests_enabled: "merge_requests_access_level",
  jobs_enabled: "builds_access_level",
  wiki_enabled: "wiki_access_level",
  snippets_enabled: "snippets_access_level",
};

/** The key forgeform writes for a key of gitlabracadabra (a policy: the collection it is for). */
function ourKey(key: string): string {
  const collections: Record<string, string> = {
    groups: "shared_with_groups",
    webhooks: "hooks",
    unknown_groups: "shared_with_groups",
    unknown_webhooks: "hooks",
    unknown_pipeline_schedule_variables: "pipeline_schedules",
    tag_list: "topics",
    public_builds: "public_jobs",
    emails_enabled: "emails_disabled",
    delete_object: "state",
  };
  const mapped = collections[key] ?? DEPRECATED_SWITCHES[key];
  if (mapped) return mapped;
  return key.startsWith("unknown_") ? key.slice("unknown_".length) : key;
}

/** gitlabracadabra's `update_dict_with_defaults`: `defaults` fills in what `target` lacks, maps deeply. */
function withDefaults(target: SNode, defaults: SNode, aggregate: boolean): SNode {
  if (target.kind !== "map" || defaults.kind !== "map") return target;
  const entries = target.entries.map((e) => {
    const d = defaults.entries.find((x) => x.key === e.key);
    if (!d) return e;
    if (e.value.kind === "map") return { ...e, value: withDefaults(e.value, d.value, aggregate) };
    if (e.value.kind === "seq" && aggregate && d.value.kind === "seq")
      return { ...e, value: { ...e.value, items: [...d.value.items, ...e.value.items] } as SSeq };
    return e;
  });
  for (const d of defaults.entries) if (!entries.some((e) => e.key === d.key)) entries.push(d);
  return { ...target, entries } as SMap;
}

function without(node: SNode, keys: string[]): SNode {
  return node.kind === "map" ? { ...node, entries: node.entries.filter((e) => !keys.includes(e.key)) } : node;
}

class Converter {
  readonly objects = new Map<string, Declared>();
  /** What a template of this version of forgeform may hold: the rest is written into the objects that extend it. */
  private readonly templatable: ReadonlySet<string>;
  /** Output file of each source file. */
  private outName = new Map<string, string>();

  constructor(
    private readonly t: Target,
    private readonly parse: (s: SourceFileLike) => SNode,
    private readonly read: ((name: string, from: string) => SourceFileLike | undefined) | undefined,
    templateKeys: Iterable<string>,
  ) {
    this.templatable = new Set(templateKeys);
  }

  /** Whether a key of a hidden object can stay in forgeform's template (`type` and `create_object` say nothing there). */
  private inTemplate(key: string): boolean {
    return (
      key === "extends" || key === "type" || key === "create_object" || this.templatable.has(ourKey(key))
    );
  }

  /** Reads a file and what it includes, depth first; objects already declared keep their first file. */
  load(source: SourceFileLike, base: string, depth: number, seen: Set<string>): void {
    if (seen.has(source.name)) return;
    seen.add(source.name);
    const root = new At(this.parse(source), []);
    const rel = posix.normalize(source.name.startsWith(base) ? source.name.slice(base.length) : source.name);
    this.outName.set(source.name, rel.replace(/\.ya?ml$/i, "").replace(/^\/+/, "") + ".yaml");
    if (!root.isMap) {
      if (root.value !== null)
        this.t.report.notConverted(root.node.at, "", "an action file is a map of objects by name");
      return;
    }
    for (const [key, at] of root.entries()) {
      if (key === "include") continue;
      const known = this.objects.get(key);
      if (known) {
        // An included file's object is merged into the first one as defaults, as gitlabracadabra merges includes.
        known.node = withDefaults(known.node, at.node, false);
        this.t.report.check(
          at.keyAt,
          at.source,
          `${key} is declared in ${known.file} too: merged into its entry there, as gitlabracadabra merges an included file's objects`,
        );
        continue;
      }
      this.objects.set(key, { node: at.node, file: source.name, keyAt: at });
    }
    const include = root.get("include");
    if (!include) return;
    for (const item of include.isList ? include.items() : [include]) {
      const name = item.text ?? item.get("local")?.text;
      if (name === undefined || (item.isMap && item.entries().length !== 1)) {
        this.t.report.notConverted(
          item.node.at,
          item.source,
          "an include is a file name or {local: file name}",
        );
        continue;
      }
      if (name.includes("..") || name.startsWith("/")) {
        this.t.report.notConverted(
          item.node.at,
          item.source,
          `${JSON.stringify(name)}: gitlabracadabra refuses a path with .. or starting with /`,
        );
        continue;
      }
      if (depth >= 10) {
        this.t.report.notConverted(item.node.at, item.source, "includes nest deeper than 10 files");
        continue;
      }
      const path = join(dirname(source.name), name);
      const included = this.read?.(path, source.name);
      if (!included) {
        this.t.report.notConverted(item.node.at, item.source, `the included file ${path} cannot be read`);
        continue;
      }
      this.load(included, base, depth + 1, seen);
    }
  }

  fileOf(source: string): string {
    return this.outName.get(source) ?? "converted.yaml";
  }

  /** The `extends` of a node as (name, strategy) pairs. */
  private extendsOf(node: SNode): { name: string; strategy: Strategy; at: At }[] | undefined {
    const at = new At(node, []).get("extends");
    if (!at) return undefined;
    const out: { name: string; strategy: Strategy; at: At }[] = [];
    for (const item of at.isList ? at.items() : [at]) {
      if (item.text !== undefined) out.push({ name: item.text, strategy: "deep", at: item });
      else
        for (const [name, s] of item.entries()) {
          const strategy = s.text;
          if (strategy === "deep" || strategy === "replace" || strategy === "aggregate")
            out.push({ name, strategy, at: s });
          else
            this.t.report.notConverted(
              s.node.at,
              s.source,
              `${JSON.stringify(s.value)} is not a merge strategy`,
            );
        }
    }
    return out;
  }

  /** gitlabracadabra's resolution of `extends`: the object's configuration with every parent merged in. */
  effective(node: SNode, depth = 0): SNode {
    const parents = this.extendsOf(node);
    if (!parents || depth > 10) return without(node, ["extends"]);
    let v = without(node, ["extends"]);
    for (const p of [...parents].reverse()) {
      const parent = this.objects.get(p.name);
      if (!parent) continue;
      const resolved = this.effective(parent.node, depth + 1);
      if (p.strategy === "replace") {
        if (v.kind === "map" && resolved.kind === "map")
          v = {
            ...v,
            entries: [
              ...resolved.entries.filter((e) => !(v as SMap).entries.some((x) => x.key === e.key)),
              ...v.entries,
            ],
          };
      } else v = withDefaults(v, resolved, p.strategy === "aggregate");
    }
    return v;
  }

  /** Every key the chain of parents of a node gives, with the strategies met on the way. */
  private chainKeys(node: SNode, depth = 0): { keys: Set<string>; aggregate: boolean; replace: boolean } {
    const out = { keys: new Set<string>(), aggregate: false, replace: false };
    for (const p of this.extendsOf(node) ?? []) {
      const parent = this.objects.get(p.name);
      if (!parent || depth > 10) continue;
      if (parent.node.kind === "map") for (const e of parent.node.entries) out.keys.add(e.key);
      out.aggregate ||= p.strategy === "aggregate";
      out.replace ||= p.strategy === "replace";
      const deeper = this.chainKeys(parent.node, depth + 1);
      for (const k of deeper.keys) out.keys.add(k);
      out.aggregate ||= deeper.aggregate;
    }
    return out;
  }

  run(): void {
    const keys = [...this.objects.keys()].sort();
    for (const key of keys) {
      const d = this.objects.get(key)!;
      if (key.startsWith(".")) {
        this.template(key, d);
        continue;
      }
      this.object(key, d);
    }
  }

  /**
   * The body to write and its `extends`: templates where every parent is a hidden object (with the keys whose
   * merge would differ written as gitlabracadabra merges them), or the whole merged configuration where a parent is
   * a declared object.
   */
  private bodyOf(d: Declared): { body: At; extends?: string[]; extendsAt?: At } {
    const parents = this.extendsOf(d.node);
    const at = (node: SNode) => new At(node, d.keyAt.path, d.keyAt.keyAt);
    if (!parents || parents.length === 0) return { body: at(without(d.node, ["extends"])) };
    const missing = parents.find((p) => !this.objects.has(p.name));
    if (missing) {
      this.t.report.notConverted(
        missing.at.node.at,
        missing.at.source,
        `${missing.name} is not an object of the action files: not applied`,
      );
    }
    const known = parents.filter((p) => this.objects.has(p.name));
    if (known.some((p) => !p.name.startsWith("."))) {
      const visible = known.find((p) => !p.name.startsWith("."))!;
      this.t.report.check(
        visible.at.node.at,
        d.keyAt.source,
        `extends the declared object ${visible.name}: written out in full (forgeform's templates are not groups or projects)`,
      );
      return { body: at(this.effective(d.node)) };
    }
    const effective = this.effective(d.node);
    const chain = this.chainKeys(d.node);
    const own = without(d.node, ["extends"]);
    const replaced: SNode =
      own.kind === "map" && effective.kind === "map"
        ? {
            ...own,
            entries: [
              ...own.entries.map((e) => {
                if (!chain.keys.has(e.key)) return e;
                const differs =
                  MAP_COLLECTIONS.has(e.key) ||
                  !this.inTemplate(e.key) ||
                  (chain.aggregate && e.value.kind === "seq") ||
                  (chain.replace && e.value.kind === "map");
                return differs ? (effective.entries.find((x) => x.key === e.key) ?? e) : e;
              }),
              // What a template cannot hold in this version is written where it applies.
              ...effective.entries.filter(
                (e) => !this.inTemplate(e.key) && !own.entries.some((x) => x.key === e.key),
              ),
            ],
          }
        : own;
    const extendsAt = new At(d.node, [...d.keyAt.path]).get("extends");
    return {
      body: at(replaced),
      extends: known.map((p) => p.name.replace(/^\.+/, "")),
      ...(extendsAt ? { extendsAt } : {}),
    };
  }

  private template(key: string, d: Declared): void {
    const name = key.replace(/^\.+/, "");
    const { body, extends: parents, extendsAt } = this.bodyOf(d);
    const obj = this.t.entry("templates", name, d.keyAt.origin, this.fileOf(d.file));
    if (parents && extendsAt) this.t.set(obj, "extends", parents, extendsAt.origin);
    const kept =
      body.node.kind === "map"
        ? { ...body.node, entries: body.node.entries.filter((e) => this.inTemplate(e.key)) }
        : body.node;
    this.fields(new At(kept, body.path, body.keyAt), obj, [name]);
  }

  private object(key: string, d: Declared): void {
    const { body, extends: parents, extendsAt } = this.bodyOf(d);
    const typeAt = body.get("type");
    const type = typeAt?.text ?? (key.endsWith("/") ? "group" : "project");
    const path = key.replace(/\/+$/, "");
    if (type === "user") {
      this.t.report.notConverted(d.keyAt.keyAt, d.keyAt.source, "forgeform does not manage users");
      return;
    }
    if (type === "application-settings" || type === "application_settings") {
      const inst = this.t.instanceEntry(d.keyAt.origin, this.fileOf(d.file));
      const settings: Obj = (inst["application_settings"] as Obj | undefined) ?? {};
      this.t.set(inst, "application_settings", settings, d.keyAt.origin);
      for (const [k, v] of body.entries()) {
        if (k === "type") continue;
        if (k === "gitlab_id") {
          this.t.report.notConverted(v.keyAt, v.source, NOT_MANAGED["gitlab_id"]!);
          continue;
        }
        this.t.set(settings, k, v.value, v.origin, true);
      }
      return;
    }
    if (type !== "group" && type !== "project") {
      this.t.report.notConverted(
        typeAt!.node.at,
        typeAt!.source,
        `gitlabracadabra has no object type ${type}`,
      );
      return;
    }
    const problem = pathProblem(path);
    if (problem !== undefined || (type === "project" && !path.includes("/"))) {
      this.t.report.notConverted(
        d.keyAt.keyAt,
        d.keyAt.source,
        problem ?? `${path} names no group: a project is group/project (a group's key ends with /)`,
      );
      return;
    }
    if (new At(this.effective(d.node), []).get("create_object")?.value !== true)
      this.t.report.check(
        d.keyAt.keyAt,
        d.keyAt.source,
        `gitlabracadabra leaves a ${type} that does not exist alone (create_object is not true); forgeform creates a declared ${type} that does not exist`,
      );
    const obj = this.t.entry(
      type === "group" ? "groups" : "projects",
      path,
      d.keyAt.origin,
      this.fileOf(d.file),
    );
    if (type === "group") this.t.keep(obj);
    if (parents && extendsAt) this.t.set(obj, "extends", parents, extendsAt.origin);
    this.fields(body, obj, [path.slice(path.lastIndexOf("/") + 1)]);
  }

  /** The keys of one object (or template) body. */
  private fields(body: At, obj: Obj, names: string[]): void {
    const scheduleVariablesPolicy = body.get("unknown_pipeline_schedule_variables");
    for (const [key, v] of body.entries()) {
      if (key === "type" || key === "unknown_pipeline_schedule_variables") continue;
      const notManaged = NOT_MANAGED[key];
      if (notManaged !== undefined) {
        this.t.report.notConverted(v.keyAt, v.source, notManaged);
        continue;
      }
      if (key.startsWith("unknown_")) {
        this.unknownPolicy(obj, key, v);
        continue;
      }
      switch (key) {
        case "create_object":
          break;
        case "delete_object":
          if (v.value === true) this.t.set(obj, "state", "absent", v.origin);
          break;
        case "members":
          this.levels(v, obj, "members", "user", "access_level");
          break;
        case "groups":
          this.levels(v, obj, "shared_with_groups", "group", "group_access");
          break;
        case "variables":
          this.variables(v, obj, names);
          break;
        case "webhooks":
          this.hooks(v, obj, names);
          break;
        case "protected_branches":
          this.protectedBranches(v, obj);
          break;
        case "protected_tags":
          this.protectedTags(v, obj);
          break;
        case "labels":
          this.labels(v, obj);
          break;
        case "milestones":
          this.list(v, obj, "milestones");
          break;
        case "pipeline_schedules":
          this.schedules(v, obj, names, scheduleVariablesPolicy);
          break;
        default: {
          const replacement = DEPRECATED_SWITCHES[key];
          if (replacement && typeof v.value === "boolean") {
            this.t.report.check(
              v.keyAt,
              v.source,
              `${key} is deprecated: written ${replacement}: ${v.value ? "enabled" : "disabled"}`,
            );
            this.t.set(obj, replacement, v.value ? "enabled" : "disabled", v.origin);
            break;
          }
          setSetting(this.t, obj, key, v, v.value);
        }
      }
    }
  }

  private unknownPolicy(obj: Obj, key: string, v: At): void {
    const collection: Record<string, string> = {
      unknown_members: "members",
      unknown_groups: "shared_with_groups",
      unknown_webhooks: "hooks",
      unknown_protected_branches: "protected_branches",
      unknown_protected_tags: "protected_tags",
      unknown_variables: "variables",
      unknown_labels: "labels",
      unknown_milestones: "milestones",
      unknown_pipeline_schedules: "pipeline_schedules",
    };
    const to = collection[key];
    const policy = pruneWord(v.value);
    if (!to || !policy) {
      this.t.report.notConverted(v.keyAt, v.source, `${key}: ${JSON.stringify(v.value)} has no equivalent`);
      return;
    }
    this.t.policy(obj, to, policy, v.origin);
  }

  /** `members: {user: level}` and `groups: {group: level}`. */
  private levels(v: At, obj: Obj, collection: string, idField: string, levelField: string): void {
    const list = this.t.list(obj, collection, v.origin);
    for (const [name, level] of v.entries()) {
      const item: Obj = {};
      this.t.set(item, idField, name, level.origin);
      if (setLevel(this.t, item, levelField, level, `${idField} ${name}`)) list.push(item);
    }
  }

  private variables(v: At, obj: Obj, names: string[]): void {
    const list = this.t.list(obj, "variables", v.origin);
    for (const item of v.items()) {
      const out: Obj = {};
      const key = item.get("key")?.text;
      if (key === undefined) {
        this.t.report.notConverted(item.node.at, item.source, "a variable needs its key");
        continue;
      }
      const scope = item.get("environment_scope")?.text;
      for (const [field, f] of item.entries()) {
        if (field === "value")
          this.t.set(
            out,
            "value",
            this.t.secret(
              [...names, key, scope && scope !== "*" ? scope : ""],
              f.valueOrigin,
              "the variable's value",
            ),
            f.valueOrigin,
          );
        else this.t.set(out, field, f.value, f.valueOrigin);
      }
      list.push(out);
    }
  }

  private hooks(v: At, obj: Obj, names: string[]): void {
    const list = this.t.list(obj, "hooks", v.origin);
    for (const item of v.items()) {
      const out: Obj = {};
      const url = item.get("url")?.text;
      if (url === undefined) {
        this.t.report.notConverted(item.node.at, item.source, "a webhook needs its url");
        continue;
      }
      for (const [field, f] of item.entries()) {
        if (field === "url")
          this.t.set(out, "url", this.t.text(url, [...names, namePart(url)], f.valueOrigin), f.valueOrigin);
        else if (field === "token")
          this.t.set(
            out,
            "token",
            this.t.secret([...names, namePart(url), "token"], f.valueOrigin, "the hook's token"),
            f.valueOrigin,
          );
        else this.t.set(out, field, f.value, f.valueOrigin);
      }
      list.push(out);
    }
  }

  private protectedBranches(v: At, obj: Obj): void {
    const list = this.t.list(obj, "protected_branches", v.origin);
    for (const [name, b] of v.entries()) {
      const out: Obj = {};
      this.t.set(out, "name", name, b.origin);
      for (const [field, f] of b.entries()) {
        if (field.endsWith("_access_level")) setLevel(this.t, out, field, f, "");
        else this.t.set(out, field, f.value, f.valueOrigin);
      }
      list.push(out);
    }
  }

  private protectedTags(v: At, obj: Obj): void {
    const list = this.t.list(obj, "protected_tags", v.origin);
    for (const [name, level] of v.entries()) {
      const out: Obj = {};
      this.t.set(out, "name", name, level.origin);
      if (setLevel(this.t, out, "create_access_level", level, `the tag ${name}`)) list.push(out);
    }
  }

  private labels(v: At, obj: Obj): void {
    const list = this.t.list(obj, "labels", v.origin);
    for (const item of v.items()) {
      if (item.get("color") === undefined) {
        this.t.report.notConverted(
          item.node.at,
          item.source,
          "a label without a color sets the priority of a label of the groups above: forgeform manages a label where it is defined, and a group label's priority in each project is set in the platform's interface",
        );
        continue;
      }
      const out: Obj = {};
      for (const [field, f] of item.entries()) this.t.set(out, field, f.value, f.valueOrigin);
      list.push(out);
    }
  }

  /** A list of items whose fields are forgeform's (milestones). */
  private list(v: At, obj: Obj, collection: string): void {
    const list = this.t.list(obj, collection, v.origin);
    for (const item of v.items()) {
      const out: Obj = {};
      for (const [field, f] of item.entries()) this.t.set(out, field, f.value, f.valueOrigin);
      list.push(out);
    }
  }

  private schedules(v: At, obj: Obj, names: string[], variablesPolicy: At | undefined): void {
    const list = this.t.list(obj, "pipeline_schedules", v.origin);
    for (const item of v.items()) {
      const out: Obj = {};
      const description = item.get("description")?.text ?? "";
      for (const [field, f] of item.entries()) {
        if (field === "variables") {
          const vars = this.t.list(out, "variables", f.origin);
          for (const variable of f.items()) {
            const o: Obj = {};
            for (const [vf, vv] of variable.entries()) {
              if (vf === "value")
                this.t.set(
                  o,
                  "value",
                  this.t.secret(
                    [...names, description, variable.get("key")?.text ?? ""],
                    vv.valueOrigin,
                    "the schedule variable's value",
                  ),
                  vv.valueOrigin,
                );
              else this.t.set(o, vf, vv.value, vv.valueOrigin);
            }
            vars.push(o);
          }
        } else if (field === "unknown_variables") {
          const policy = pruneWord(f.value);
          if (policy) this.t.policy(out, "variables", policy, f.origin);
        } else if (
          field === "ref" ||
          field === "cron" ||
          field === "cron_timezone" ||
          field === "description"
        ) {
          const text = asText(f, this.t.report, field);
          if (text !== undefined) this.t.set(out, field, text, f.valueOrigin);
        } else this.t.set(out, field, f.value, f.valueOrigin);
      }
      // gitlabracadabra's own default for a schedule's variables is unknown_pipeline_schedule_variables (warn).
      if (variablesPolicy && item.get("unknown_variables") === undefined) {
        const policy = pruneWord(variablesPolicy.value);
        if (policy) this.t.policy(out, "variables", policy, variablesPolicy.origin);
      }
      list.push(out);
    }
  }
}

/** Converts gitlabracadabra action files (and the files they include) into `t`, one output file per action file. */
export function convertRacadabra(
  t: Target,
  sources: SourceFileLike[],
  parse: (s: SourceFileLike) => SNode,
  read: ((name: string, from: string) => SourceFileLike | undefined) | undefined,
): void {
  const templateSchema = loadSchemas().files["template.schema.json"]!;
  const c = new Converter(t, parse, read, Object.keys((templateSchema.properties ?? {}) as object));
  const base = sources.length > 0 ? `${dirname(sources[0]!.name)}/` : "";
  const seen = new Set<string>();
  for (const s of sources) c.load(s, base === "./" ? "" : base, 0, seen);
  c.run();
}
