/**
 * The manifests a conversion builds: templates, the instance, groups and projects, each value with the place in the
 * source it came from. A converter writes the platform's names (the target language of forgeform, including the
 * kinds a given version may not manage yet); `fit` then holds the result against the schemas this version of
 * forgeform has, so what it cannot take goes to the report instead of into an invalid file, and `render` writes the
 * files: YAML with the `$schema` line, secrets as `${env:NAME}` references listed at the top.
 */
import { Document, isMap, isScalar } from "yaml";
import { envName, namePart } from "../export/export.js";
import {
  credentialPlace,
  findCredentials,
  isSecretParameter,
  maskCredentials,
} from "../manifest/credentials.js";
import type { JsonSchema, SchemaSet } from "../manifest/index.js";
import type { Report } from "./report.js";
import type { Place } from "./source.js";

export type Obj = Record<string, unknown>;

/** A value in the output that reads a secret from the environment (`${env:NAME}`), possibly inside other text. */
export class Secretful {
  constructor(readonly parts: readonly (string | { env: string })[]) {}

  /** The text as it is written in a manifest: literal parts with `${` escaped, references as `${env:NAME}`. */
  written(): string {
    return this.parts
      .map((p) => (typeof p === "string" ? p.replaceAll("${", () => "$${") : `\${env:${p.env}}`))
      .join("");
  }

  get envNames(): string[] {
    return this.parts.flatMap((p) => (typeof p === "string" ? [] : [p.env]));
  }
}

/** Where a value came from: its place and its path in the source's terms. */
export interface Origin {
  at: Place;
  source: string;
}

export interface Entry {
  body: Obj;
  /** The output file it goes to. */
  file: string;
  origin: Origin;
}

type Section = "templates" | "groups" | "projects";

const isObj = (v: unknown): v is Obj =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Secretful);

interface Pending {
  env: string;
  origin: Origin;
  message: string;
}

export class Target {
  readonly sections: Record<Section, Map<string, Entry>> = {
    templates: new Map(),
    groups: new Map(),
    projects: new Map(),
  };
  instance: Entry | undefined;
  /** Where each key of each object came from. */
  readonly #origins = new WeakMap<object, Map<string, Origin>>();
  /** Keys written by their API name as the source passed them through (may go under `unchecked:`). */
  readonly #raw = new WeakMap<object, Set<string>>();
  readonly #envNames = new Set<string>();
  readonly #secrets: Pending[] = [];
  readonly #memo = new Map<string, Secretful>();

  constructor(readonly report: Report) {}

  /** The entry of a group, project or template (created on first use, in the given file). */
  entry(section: Section, key: string, origin: Origin, file: string): Obj {
    const map = this.sections[section];
    let e = map.get(key);
    if (!e) {
      e = { body: {}, file, origin };
      map.set(key, e);
    }
    return e.body;
  }

  /** The instance section (created on first use, in the given file). */
  instanceEntry(origin: Origin, file: string): Obj {
    this.instance ??= { body: {}, file, origin };
    return this.instance.body;
  }

  /** Sets `obj[key]`, remembering where it came from; `raw`: the key is the API's own name, sent as the source sent it. */
  set(obj: Obj, key: string, value: unknown, origin: Origin, raw = false): void {
    obj[key] = value;
    let m = this.#origins.get(obj);
    if (!m) {
      m = new Map();
      this.#origins.set(obj, m);
    }
    m.set(key, origin);
    if (raw) {
      let r = this.#raw.get(obj);
      if (!r) {
        r = new Set();
        this.#raw.set(obj, r);
      }
      r.add(key);
    }
  }

  originOf(obj: object, key: string): Origin | undefined {
    return this.#origins.get(obj)?.get(key);
  }

  /** An object's items of a list (created on first use). */
  list(obj: Obj, key: string, origin: Origin): unknown[] {
    const existing = obj[key];
    if (Array.isArray(existing)) return existing;
    const list: unknown[] = [];
    this.set(obj, key, list, origin);
    return list;
  }

  /** The policy for live objects of `collection` the manifest does not list (`unmanaged: {collection: policy}`). */
  policy(obj: Obj, collection: string, policy: "warn" | "delete" | "ignore", origin: Origin): void {
    let unmanaged = obj["unmanaged"];
    if (!isObj(unmanaged)) {
      unmanaged = {};
      this.set(obj, "unmanaged", unmanaged, origin);
    }
    this.set(unmanaged as Obj, collection, policy, origin);
  }

  /**
   * A secret of the source: the value is not kept; the manifest reads it from an environment variable with a short
   * name made from `nameParts`, and the report lists the name with the place.
   */
  secret(nameParts: string[], origin: Origin, what: string): Secretful {
    // One value of the source written in two entries (a GitLabForm group/* section, written for the group and its
    // subgroups) reads one variable.
    const memo = `${origin.at.file}:${origin.at.line}:${origin.at.col}:${what}`;
    const known = this.#memo.get(memo);
    if (known) return known;
    const base = envName(nameParts) || "FORGEFORM_SECRET";
    let name = base;
    for (let i = 2; this.#envNames.has(name); i++) name = `${base}_${i}`;
    this.#envNames.add(name);
    this.#secrets.push({ env: name, origin, message: `${what}: read from the environment variable ${name}` });
    const ref = new Secretful([{ env: name }]);
    this.#memo.set(memo, ref);
    return ref;
  }

  /**
   * Text of the source as the manifest writes it: each credential in a URL inside it (`user:pass@`, `?key=...`, and
   * a part that looks random: a Slack hook's path secret) becomes a reference, as in export. A Terraform state
   * holds the platform's values, which no file in git may; another tool's file in git is no reason to copy one
   * into the next.
   */
  text(value: string, nameParts: string[], origin: Origin): string | Secretful {
    const found = findCredentials(value, { guess: true });
    if (found.length === 0) return value;
    const parts: (string | { env: string })[] = [];
    let from = 0;
    for (const c of found) {
      parts.push(value.slice(from, c.start));
      parts.push(
        this.secret([...nameParts, "url", c.label], origin, credentialPlace(c)).parts[0] as { env: string },
      );
      from = c.end;
    }
    parts.push(value.slice(from));
    return new Secretful(parts);
  }

  /**
   * Holds every entry against the schemas of this version of forgeform: a key it does not have is dropped and
   * reported (a setting passed through by its API name goes under `unchecked:` where the object has one); a secret
   * the schema marks (write-only, sensitive) that the converter left in clear becomes a reference; of two items
   * with one identity in one list the later is kept. Then the report gets the secrets that are still referenced.
   */
  fit(schemas: SchemaSet | undefined, version: string): void {
    if (schemas) {
      const fitter = new Fitter(this, schemas, version);
      for (const [key, e] of this.sections.templates)
        fitter.object(e.body, schemas.files["template.schema.json"]!, `template "${key}"`, [key]);
      if (this.instance)
        fitter.object(this.instance.body, schemas.files["instance.schema.json"]!, "the instance", []);
      for (const [key, e] of this.sections.groups)
        fitter.object(e.body, schemas.files["group.schema.json"]!, "a group", [lastSegment(key)]);
      for (const [key, e] of this.sections.projects)
        fitter.object(e.body, schemas.files["project.schema.json"]!, "a project", [lastSegment(key)]);
      this.report.dropUnder(fitter.dropped);
    }
    const used = new Set<string>();
    const collect = (v: unknown): void => {
      if (v instanceof Secretful) for (const n of v.envNames) used.add(n);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (isObj(v)) Object.values(v).forEach(collect);
    };
    for (const e of this.entries()) collect(e.body);
    for (const s of this.#secrets)
      if (used.has(s.env)) this.report.secret(s.origin.at, s.origin.source, s.env, s.message);
  }

  /** Every entry, templates first. */
  entries(): Entry[] {
    return [
      ...this.sections.templates.values(),
      ...(this.instance ? [this.instance] : []),
      ...this.sections.groups.values(),
      ...this.sections.projects.values(),
    ];
  }

  isRaw(obj: object, key: string): boolean {
    return this.#raw.get(obj)?.has(key) === true;
  }

  /**
   * The output files: per file, its templates, instance, groups and projects in the order they were made, with
   * the `$schema` line and the environment variables it reads at the top.
   */
  render(schemaRef: string, header: string[]): { name: string; text: string; env: string[] }[] {
    const files = new Map<string, Obj>();
    const bodyOf = (file: string): Obj => {
      let b = files.get(file);
      if (!b) {
        b = { version: 1 };
        files.set(file, b);
      }
      return b;
    };
    for (const [section, map] of Object.entries(this.sections) as [Section, Map<string, Entry>][]) {
      for (const [key, e] of map) {
        if (section !== "templates" && Object.keys(e.body).length === 0 && !this.keepEmpty(e)) continue;
        const b = bodyOf(e.file);
        if (b[section] === undefined) b[section] = {};
        (b[section] as Obj)[key] = e.body;
      }
    }
    if (this.instance && Object.keys(this.instance.body).length > 0)
      bodyOf(this.instance.file)["instance"] = this.instance.body;
    const out: { name: string; text: string; env: string[] }[] = [];
    for (const [name, body] of files) {
      const ordered: Obj = { version: 1 };
      for (const k of ["templates", "instance", "groups", "projects"])
        if (body[k] !== undefined) ordered[k] = body[k];
      const env: string[] = [];
      const doc = new Document(toWritten(ordered, env));
      const secretLines = env.length
        ? [
            "",
            " Secret values are read from these environment variables (set them before planning;",
            " the conversion report says where each one was in the source):",
            ...[...new Set(env)].map((e) => `   ${e}`),
          ]
        : [];
      doc.commentBefore = [
        ` yaml-language-server: $schema=${schemaRef}`,
        "",
        ...header.map((h) => ` ${h}`),
        ...secretLines,
      ].join("\n");
      // A blank line before each section, where a person reading the file looks for them.
      const top = doc.contents;
      if (isMap(top))
        for (const pair of top.items)
          if (isScalar(pair.key) && pair.key.value !== "version") pair.key.spaceBefore = true;
      out.push({ name, text: doc.toString({ lineWidth: 0 }), env: [...new Set(env)] });
    }
    return out;
  }

  /** A group entry with nothing in it still declares the group (a GitLabForm `group/*` with only project sections does not). */
  private keepEmpty(e: Entry): boolean {
    return e.body !== undefined && this.#keep.has(e.body);
  }

  readonly #keep = new WeakSet<object>();
  /** Keeps an entry in the output even when it has nothing in it (a declared group). */
  keep(obj: Obj): void {
    this.#keep.add(obj);
  }
}

function lastSegment(path: string): string {
  const clean = path.replace(/\/\*\*?$/, "");
  return clean === "*" || clean === "**" || clean === "" ? "" : clean.slice(clean.lastIndexOf("/") + 1);
}

/** Plain YAML values, with each Secretful as its written text; the references met are added to `env`. */
function toWritten(v: unknown, env: string[]): unknown {
  if (v instanceof Secretful) {
    env.push(...v.envNames);
    return v.written();
  }
  if (typeof v === "string") return v.replaceAll("${", () => "$${");
  if (Array.isArray(v)) return v.map((x) => toWritten(x, env));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toWritten(x, env)]));
  return v;
}

type Props = Record<string, JsonSchema>;

class Fitter {
  /** The source paths of what was not converted as a whole. */
  readonly dropped: string[] = [];

  constructor(
    private readonly target: Target,
    private readonly schemas: SchemaSet,
    private readonly version: string,
  ) {}

  private origin(obj: object, key: string, fallback?: Origin): Origin {
    return this.target.originOf(obj, key) ?? fallback ?? { at: { file: "", line: 0, col: 0 }, source: key };
  }

  /** One object against its (resolved) schema; `what` names it in messages, `names` its part of variable names. */
  object(obj: Obj, schema: JsonSchema, what: string, names: string[]): void {
    const props = (this.schemas.resolve(schema).properties ?? {}) as Props;
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      const origin = this.origin(obj, key);
      const raw = props[key];
      if (raw === undefined) {
        delete obj[key];
        if (this.target.isRaw(obj, key) && props["unchecked"] !== undefined && !isObj(value)) {
          let unchecked = obj["unchecked"];
          if (!isObj(unchecked)) {
            unchecked = {};
            this.target.set(obj, "unchecked", unchecked, origin);
          }
          // A secret must come from the environment under unchecked: too (the loader refuses one in clear).
          const written =
            typeof value === "string" && isSecretParameter(key)
              ? this.target.secret([...names, key], origin, `the setting ${key}`)
              : value;
          this.target.set(unchecked as Obj, key, written, origin);
          this.target.report.check(
            origin.at,
            origin.source,
            `forgeform ${this.version} does not know the setting ${key}: written under unchecked:, sent and compared as written (remove it if the platform does not know it either)`,
          );
        } else {
          this.target.report.notConverted(
            origin.at,
            origin.source,
            `forgeform ${this.version} has no ${key} for ${what}`,
          );
          this.dropped.push(maskCredentials(origin.source));
        }
        continue;
      }
      if (key === "unmanaged" && isObj(value)) {
        // A policy for a collection this version does not have goes with the collection, which is reported.
        const policies = this.schemas.resolve(raw);
        const known = (policies.properties ?? {}) as Props;
        for (const c of Object.keys(value))
          if (props[c] === undefined || (known[c] === undefined && policies.additionalProperties === false))
            delete value[c];
        if (Object.keys(value).length === 0) delete obj[key];
        continue;
      }
      this.value(obj, key, value, raw, what, names, origin);
    }
  }

  private value(
    obj: Obj,
    key: string,
    value: unknown,
    raw: JsonSchema,
    what: string,
    names: string[],
    origin: Origin,
  ): void {
    const schema = this.schemas.resolve(raw);
    if (key === "unchecked" || key === "except" || key === "extends") return;
    if (Array.isArray(value)) {
      const items = schema.items ? this.schemas.resolve(schema.items as JsonSchema) : undefined;
      if (items?.properties) {
        const identity = raw["x-identity"] ?? schema["x-identity"] ?? items["x-identity"];
        const kept = this.unique(value, identity, items, origin);
        if (kept.length !== value.length) value.splice(0, value.length, ...kept);
        for (const item of value) {
          if (!isObj(item)) continue;
          const idField = typeof identity === "string" ? item[identity] : undefined;
          this.object(item, items, `an item of ${key}`, [
            ...names,
            typeof idField === "string" ? namePart(idField) : "",
          ]);
        }
      } else if (items) {
        for (const [i, v] of value.entries()) value[i] = this.scalar(v, items, origin, key, names);
      }
      return;
    }
    if (isObj(value)) {
      if (schema.properties) this.object(value, schema, `${what}'s ${key}`, [...names, key]);
      return;
    }
    obj[key] = this.scalar(value, schema, origin, key, names);
  }

  /** A scalar against its schema: a secret the schema marks (write-only, sensitive) left in clear made a reference. */
  private scalar(value: unknown, schema: JsonSchema, origin: Origin, key: string, names: string[]): unknown {
    if ((schema.writeOnly === true || schema["x-sensitive"] === true) && typeof value === "string")
      return this.target.secret([...names, key === "value" ? "" : key], origin, `the ${key}`);
    return value;
  }

  /** The items of a list with the later of two items with one identity kept, the earlier reported. */
  private unique(items: unknown[], identity: unknown, schema: JsonSchema, origin: Origin): unknown[] {
    const fields =
      typeof identity === "string" ? [identity] : Array.isArray(identity) ? (identity as string[]) : [];
    if (fields.length === 0) return items;
    const props = (schema.properties ?? {}) as Props;
    const idOf = (item: unknown): string | undefined => {
      if (!isObj(item)) return undefined;
      const parts = fields.map((f) => {
        const v = item[f] ?? props[f]?.["default"];
        return v instanceof Secretful ? v.written() : v === undefined ? undefined : String(v);
      });
      return parts.some((p) => p === undefined) ? undefined : parts.join("#");
    };
    const last = new Map<string, number>();
    items.forEach((item, i) => {
      const id = idOf(item);
      if (id !== undefined) last.set(id, i);
    });
    return items.filter((item, i) => {
      const id = idOf(item);
      if (id === undefined || last.get(id) === i) return true;
      const at = isObj(item) ? this.origin(item, fields[0]!, origin) : origin;
      this.target.report.check(
        at.at,
        at.source,
        `the same ${fields.join(" and ")} as a later item of the same list: only the later one is kept`,
      );
      return false;
    });
  }
}
