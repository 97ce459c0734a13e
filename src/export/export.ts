/**
 * `forgeform export`: describes the live state as manifests in the language users write by hand. Every kind is
 * read through its own `read` (and `export`, where its live fields are not already in manifest terms); the fields
 * written are the ones the kind's schema declares. Sensitive values, and credentials in URLs (`?key=`, `user:pass@`),
 * become `${env:NAME}` references (the names are returned and listed at the top of each file, never the values);
 * write-only values cannot be read back and are left out with a comment.
 */
import { Document, isMap, isSeq, type Node } from "yaml";
import { apiPath } from "../api/index.js";
import { sameValue } from "../engine/compare.js";
import type { KindRegistry } from "../engine/registry.js";
import { orNotFound, UNCHECKED } from "../kinds/common.js";
import type { FieldSpec } from "../kinds/fields.js";
import type { Fields, KindContext, Live, Parent, ReadOptions } from "../kinds/kind.js";
import { itemSchema } from "../kinds/schemas.js";
import {
  credentialPlace,
  findCredentials,
  isSecretName,
  looksLikeCredential,
  maskCredentials,
} from "../manifest/credentials.js";
import { displayValue } from "../manifest/normalize.js";
import { identityOf } from "../manifest/rules.js";
import { isSecret } from "../manifest/secret.js";
import { factorEntries } from "./factor.js";

export interface ExportRequest {
  instance: boolean;
  /** Group full paths: each is exported with its subgroups and their projects, into one file. */
  groups: string[];
  /** Project full paths, one file each. */
  projects: string[];
  /** The `$schema` reference written in each file's header. */
  schemaRef: string;
  /** The platform's host name (defaults such as `users.noreply.<host>` derive from it). */
  host: string;
  /** Settings the schema does not know, written under `unchecked:` where the platform shows them (`--unchecked`). */
  unchecked?: string[];
  /** Archived projects too (`--include-archived`); otherwise a group's archived projects are left out. */
  includeArchived?: boolean;
  /**
   * What the projects (and the subgroups) of an exported group share is written once, as a `group/**` pattern
   * entry, with each object keeping only what differs (`--factor`).
   */
  factor?: boolean;
}

/** An environment variable an exported manifest refers to for a sensitive value. */
export interface EnvReference {
  name: string;
  /** The address and field it stands for, e.g. `project["acme/api"].pipeline_schedule["Nightly"].variable["TOKEN"].value`. */
  field: string;
}

export interface ExportedFile {
  /** File name, e.g. `instance.yaml`, `acme.yaml`. */
  name: string;
  text: string;
  env: EnvReference[];
}

export interface ExportResult {
  files: ExportedFile[];
  /** Collections that could not be read (no SCIM token, a licensed area on the core edition...), per address. */
  skipped: string[];
}

const INSTANCE: Parent = { address: "instance", collection: "instance", key: "instance", ref: "instance" };

/** Longest word taken from one part of an address for a variable name, and longest name. */
const NAME_WORD_MAX = 24;
const NAME_MAX = 48;

/**
 * A short, shell-safe, upper-case variable name from the parts of an address (`API`, `NIGHTLY_BUILD`,
 * `DEPLOY_TOKEN`): each part cut to a few words, the whole to a length a person types.
 */
export function envName(parts: string[]): string {
  const words = parts
    .map((p) =>
      p
        .replace(/[^A-Za-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, "")
        .toUpperCase()
        .slice(0, NAME_WORD_MAX)
        .replace(/_+$/, ""),
    )
    .filter((w) => w !== "");
  return words.join("_").slice(0, NAME_MAX).replace(/_+$/, "").replace(/^(\d)/, "_$1");
}

/** How an object's identity is named in variable names: a URL by its host (never its query or credentials). */
export function namePart(key: string): string {
  try {
    const url = new URL(key);
    if (url.hostname !== "") return url.hostname.replace(/^www\./, "");
  } catch {
    // not a URL: the identity as it is
  }
  return key;
}

/** `${` in live text is written `$${`, so the loader does not take it for a reference. */
function escapeRefs(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("${", () => "$${");
  if (Array.isArray(value)) return value.map(escapeRefs);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeRefs(v)]));
  return value;
}

/** Nothing to write: unset, null, empty text, or an empty list (the platform's default for every list). */
function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)
  );
}

class Exporter {
  readonly skipped: string[] = [];
  private env: EnvReference[] = [];
  private envNames = new Set<string>();
  /** Comments written before an object of the file (an entry, an item), kept by the object itself. */
  private comments = new Map<object, string[]>();

  constructor(
    private readonly ctx: KindContext,
    private readonly registry: KindRegistry,
    /** The platform's host name, for defaults derived from it. */
    private readonly host: string,
    /** The read options that bring the `--unchecked` settings along. */
    private readonly readOptions: ReadOptions = {},
  ) {}

  /**
   * The platform's default for a field of the object `key` (`default`, or `x-default-template` with `{host}`,
   * `{user_email}` and `{path_segment}`, the last segment of the object's path), or undefined when it has none.
   */
  private async defaultOf(spec: FieldSpec, key: string): Promise<{ value: unknown } | undefined> {
    if (spec.default !== undefined) return { value: spec.default };
    if (spec.defaultTemplate === undefined) return undefined;
    let expected = spec.defaultTemplate
      .replace("{host}", this.host)
      .replace("{path_segment}", key.slice(key.lastIndexOf("/") + 1));
    if (expected.includes("{user_email}"))
      expected = expected.replace("{user_email}", await this.userEmail());
    return { value: expected };
  }

  /** Fields each written object left out because the platform has them by default, with those defaults. */
  readonly defaults = new WeakMap<object, Map<string, unknown>>();

  private userEmailP: Promise<string> | undefined;
  private userEmail(): Promise<string> {
    this.userEmailP ??= this.ctx.api.get<{ email?: string }>("/user", { shape: { email: "string?" } }).then(
      (u) => u.email ?? "",
      () => "",
    );
    return this.userEmailP;
  }

  /**
   * Whether a live value is a secret, written as a reference: a value the kind reads as one (a masked variable's),
   * a credential in a well-known format wherever it is, and a sensitive field's value (a schedule variable's, a
   * setting's key) when the field or the object is named like a secret (`DEPLOY_TOKEN`, `external_auth_client_key`).
   * Other values are written as they are, `BUILD_TYPE: nightly` too; credentials inside URLs become references
   * where the text is written.
   */
  private isSecretValue(spec: FieldSpec, value: unknown, key: string): boolean {
    if (isSecret(value)) return true;
    if (typeof value === "string" && looksLikeCredential(value)) return true;
    // A variable's value (a CI/CD variable left unmasked) is judged by the variable's name as well.
    if (!spec.sensitive && spec.name !== "value") return false;
    if (typeof value !== "string") return spec.sensitive;
    return isSecretName(spec.name) || isSecretName(key);
  }

  /** Notes a comment to write before `target` (an entry or an item of the file). */
  comment(target: object, { text }: { text: string }): void {
    const texts = this.comments.get(target) ?? [];
    texts.push(text);
    this.comments.set(target, texts);
  }

  /** Moves the comments of `from` to `to` (an entry copied when its pattern is factored out). */
  moveComments(from: object, to: object): void {
    const texts = this.comments.get(from);
    if (texts && from !== to) {
      this.comments.delete(from);
      this.comments.set(to, [...(this.comments.get(to) ?? []), ...texts]);
    }
  }

  /** Starts a new file: its own env references and comments. */
  begin(): void {
    this.env = [];
    this.comments = new Map();
  }

  private reference(nameParts: string[], field: string, address: string): string {
    const base = envName(nameParts) || "FORGEFORM_SECRET";
    let name = base;
    for (let i = 2; this.envNames.has(name); i++) name = `${base}_${i}`;
    this.envNames.add(name);
    this.env.push({ name, field: `${address}.${field}` });
    return `\${env:${name}}`;
  }

  /**
   * A live value as written in the file: `${` escaped, and each credential found in a URL inside it (a hook's
   * `?key=...`, `user:pass@`) made a reference, so that nothing secret goes into a file meant for git.
   */
  private written(value: unknown, nameParts: string[], field: string, address: string): unknown {
    if (Array.isArray(value)) return value.map((v) => this.written(v, nameParts, field, address));
    if (value !== null && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.written(v, nameParts, `${field}.${k}`, address)]),
      );
    if (typeof value !== "string") return value;
    let out = "";
    let from = 0;
    // Live values: what looks random is taken for a secret too (a Slack hook's path), whatever it is named.
    for (const c of findCredentials(value, { guess: true })) {
      const what =
        c.place === "query" ? `query parameter ${c.label}` : credentialPlace(c).replace(/^the /, "");
      out += escapeRefs(value.slice(from, c.start));
      out += this.reference(
        [...nameParts, field === "url" ? "" : field, c.label],
        `${field} (${what})`,
        address,
      );
      from = c.end;
    }
    return out + (escapeRefs(value.slice(from)) as string);
  }

  /** The manifest body of one live object: its declared fields, then its child collections. */
  async object(
    parent: Parent,
    collection: string,
    live: Live,
    self: Parent,
    nameParts: string[],
  ): Promise<Record<string, unknown>> {
    const kind = this.registry.kind(parent.collection, collection);
    const specs = this.registry.fields(parent.collection, collection);
    const schema = itemSchema(parent.collection, collection);
    const fields: Fields = kind?.export ? await kind.export(this.ctx, parent, live) : live.fields;
    const out: Record<string, unknown> = {};
    const identity = schema?.["x-identity"];
    // The identity is written unless the manifest derives the same one from the other fields (a wiki page's
    // slug from its title).
    if (
      typeof identity === "string" &&
      specs.has(identity) &&
      isEmpty(fields[identity]) &&
      identityOf(fields, identity, collection)?.key !== live.key
    )
      out[identity] = this.written(live.key, nameParts, identity, self.address);
    // A kind whose `state` holds more than present/absent (a milestone's active/closed) exports it.
    const stateSchema = (schema?.["properties"] as Record<string, Record<string, unknown>> | undefined)?.[
      "state"
    ];
    const states = Array.isArray(stateSchema?.["enum"]) ? (stateSchema["enum"] as unknown[]) : [];
    const ownState =
      typeof fields["state"] === "string" && fields["state"] !== "present" && states.includes(fields["state"])
        ? fields["state"]
        : undefined;
    const writeOnly: string[] = [];
    const defaults = new Map<string, unknown>();
    this.defaults.set(out, defaults);
    for (const [name, spec] of specs) {
      if (spec.child || spec.local) continue;
      if (spec.writeOnly) {
        writeOnly.push(name);
        continue;
      }
      if (out[name] !== undefined) continue;
      const value = fields[name];
      // A required field the platform holds empty (a variable's value "") is written empty: left out, the
      // manifest would be invalid.
      if (spec.required && value === "" && !spec.deprecatedBy) {
        out[name] = "";
        continue;
      }
      if (isEmpty(value) || spec.deprecatedBy) continue;
      if (spec.licensed && this.ctx.edition === "core") continue;
      // A value the platform has by default is left out: the export says what someone set, not everything.
      const byDefault = await this.defaultOf(spec, live.key);
      if (
        byDefault !== undefined &&
        sameValue(byDefault.value, value, {
          set: spec.set,
          ...(spec.normalize ? { normalize: spec.normalize } : {}),
        })
      ) {
        defaults.set(name, byDefault.value);
        continue;
      }
      // A variable's `value` is named after the variable alone (`API_NIGHTLY_DEPLOY_TOKEN`).
      out[name] = this.isSecretValue(spec, value, live.key)
        ? this.reference([...nameParts, name === "value" ? "" : name], name, self.address)
        : this.written(displayValue(spec.normalize, value), nameParts, name, self.address);
    }
    if (ownState !== undefined && ownState !== stateSchema?.["default"]) out["state"] = ownState;
    // Settings the schema does not know, asked for with --unchecked: as the platform shows them.
    const extra = Object.entries(fields).filter(([name, v]) => name.startsWith(UNCHECKED) && !isEmpty(v));
    if (extra.length > 0) {
      out["unchecked"] = Object.fromEntries(
        extra.map(([name, v]) => [
          name.slice(UNCHECKED.length),
          this.written(v, nameParts, name.slice(UNCHECKED.length), self.address),
        ]),
      );
    }
    // A setting that is on (or set) needs its partners declared with it; when a partner is empty or write-only
    // on the platform, the manifest cannot say the same, so the setting is left out and a comment says why.
    for (const [name, spec] of specs) {
      const value = out[name];
      if (spec.requires.length === 0 || !(value === true || (typeof value === "string" && value !== "")))
        continue;
      const missing = spec.requires.filter((r) => isEmpty(out[r]));
      if (missing.length === 0) continue;
      delete out[name];
      this.comment(out, {
        text: ` ${name} is not exported: it needs ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} empty or write-only on the platform`,
      });
    }
    if (writeOnly.length > 0) {
      this.comment(out, {
        text: ` write-only, not readable from the platform, so not exported: ${writeOnly.join(", ")}`,
      });
    }
    for (const [name, spec] of specs) {
      if (!spec.child) continue;
      const child = await this.collection(self, name, out, nameParts, spec);
      if (child !== undefined) out[name] = child;
    }
    return out;
  }

  /** A child collection (a list, or a singleton's object) of `parent`, or undefined when it is empty or unreadable. */
  async collection(
    parent: Parent,
    collection: string,
    /** The object the collection is written in: a comment there says when it cannot be read. */
    holder: object,
    nameParts: string[],
    spec: FieldSpec,
  ): Promise<unknown> {
    const kind = this.registry.kind(parent.collection, collection);
    if (!kind) return undefined;
    const where = `${parent.address}.${collection}`;
    if (spec.licensed && this.ctx.edition === "core") return undefined;
    let lives: Live[];
    try {
      lives = (await kind.read(this.ctx, parent, [], this.readOptions)).filter((l) => !l.readOnly);
    } catch (error) {
      if (await kind.notConfigured?.(this.ctx, parent, error)) return undefined;
      this.skipped.push(`${where}: ${(error as Error).message}`);
      this.comment(holder, {
        text: ` ${collection} not exported: ${(error as Error).message}`,
      });
      return undefined;
    }
    if (kind.singleton) {
      const live = lives[0];
      if (!live) return undefined;
      const self: Parent = {
        address: `${parent.address}.${kind.segment}`,
        collection,
        key: live.key,
        ref: live.id,
        live,
        parent,
      };
      const body = await this.object(parent, collection, live, self, [...nameParts, collection]);
      return Object.keys(body).length > 0 ? body : undefined;
    }
    if (lives.length === 0) return undefined;
    const identity = itemSchema(parent.collection, collection)?.["x-identity"];
    // Several live objects with one identity (deploy tokens, schedules, broadcast messages of one name): the plan
    // manages the last one read (the newest that works), so that one is written; a manifest cannot declare two.
    const lastOf = new Map(lives.map((l) => [l.key, l]));
    for (const [key, last] of lastOf) {
      const others = lives.filter((l) => l.key === key && l !== last).length;
      if (others === 0) continue;
      const why = `${others + 1} live ${kind.segment.replaceAll("_", " ")}s have the identity ${JSON.stringify(maskCredentials(key, { guess: true }))}, which a manifest declares once: the one forgeform manages (id ${last.id}) is exported, the other${others === 1 ? " is" : "s are"} not`;
      this.skipped.push(`${where}: ${why}`);
      this.comment(holder, { text: ` not exported: ${why}` });
    }
    const items: Record<string, unknown>[] = [];
    for (const live of lives.filter((l) => lastOf.get(l.key) === l)) {
      // An object without the field that identifies it (a badge made before badges had names) cannot be declared:
      // writing the key the plan knows it by would give it that name.
      if (typeof identity === "string" && isEmpty(live.fields[identity])) {
        const shown = live.key === "" ? "" : ` (${maskCredentials(live.key, { guess: true })})`;
        const why = `a ${kind.segment.replaceAll("_", " ")} without a ${identity}${shown}, which a manifest cannot declare; give it one on the platform to manage it`;
        this.skipped.push(`${where}: ${why}`);
        this.comment(holder, { text: ` not exported: ${why}` });
        continue;
      }
      const self: Parent = {
        // A credential in an identity (a hook URL's key) is not shown in the address that lists the variables.
        address: `${parent.address}.${kind.segment}[${JSON.stringify(maskCredentials(live.key, { guess: true }))}]`,
        collection,
        key: live.key,
        ref: live.id,
        live,
        parent,
      };
      items.push(await this.object(parent, collection, live, self, [...nameParts, namePart(live.key)]));
    }
    return items.length > 0 ? items : undefined;
  }

  /** Writes one manifest file from its top-level sections. */
  render(name: string, header: string[], body: Record<string, unknown>, schemaRef: string): ExportedFile {
    const doc = new Document({ version: 1, ...body });
    // The variables the file needs come first, where a person opening it looks.
    doc.commentBefore = [
      ` yaml-language-server: $schema=${schemaRef}`,
      "",
      ...header.map((h) => ` ${h}`),
      ...(this.env.length > 0
        ? [
            "",
            " Secret values are read from these environment variables (set them before planning):",
            ...this.env.map((e) => `   ${e.name}  (${e.field})`),
          ]
        : []),
    ].join("\n");
    // Each comment goes before its object, wherever the object ended up in the file.
    const place = (value: unknown, path: (string | number)[]): void => {
      if (value === null || typeof value !== "object") return;
      const texts = this.comments.get(value);
      const node = texts && (doc.getIn(path, true) as Node | undefined);
      if (texts && node && (isMap(node) || isSeq(node))) {
        const text = texts.join("\n");
        node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${text}` : text;
      }
      const children: [string | number, unknown][] = Array.isArray(value)
        ? value.map((v, i) => [i, v])
        : Object.entries(value);
      for (const [k, v] of children) place(v, [...path, k]);
    };
    for (const [k, v] of Object.entries(body)) place(v, [k]);
    return { name, text: doc.toString({ lineWidth: 0 }), env: this.env };
  }

  /** The top-level entry of a group or project (its fields and collections). */
  async top(collection: "groups" | "projects", live: Live): Promise<Record<string, unknown>> {
    const segment = collection === "groups" ? "group" : "project";
    const self: Parent = {
      address: `${segment}[${JSON.stringify(live.key)}]`,
      collection,
      key: live.key,
      ref: live.id,
      live,
      parent: INSTANCE,
    };
    return this.object(INSTANCE, collection, live, self, [live.key.slice(live.key.lastIndexOf("/") + 1)]);
  }

  /**
   * The entries of a group's file under `groups:` or `projects:`, in path order: with `factor`, what the objects
   * below the group share goes into a `root/**` pattern entry first. A project entry that says nothing is left
   * out (it would manage nothing); a group's stays, as its absence would be reported, unless a pattern covers it.
   */
  arrange(
    collection: "groups" | "projects",
    root: string,
    entries: Map<string, Record<string, unknown>>,
    request: Pick<ExportRequest, "factor" | "includeArchived">,
  ): Record<string, unknown> {
    const below = new Map([...entries].filter(([key]) => key !== root));
    let pattern: Record<string, unknown> = {};
    if (request.factor) {
      const factored = factorEntries({
        entries: below,
        defaults: (entry) => this.defaults.get(entry),
        specs: this.registry.fields("instance", collection),
      });
      for (const [key, entry] of factored.entries) this.moveComments(below.get(key)!, entry);
      pattern = factored.pattern;
      for (const [key, entry] of factored.entries) below.set(key, entry);
    }
    const out: Record<string, unknown> = {};
    const own = entries.get(root);
    if (own !== undefined) out[root] = own;
    if (Object.keys(pattern).length > 0) {
      out[`${root}/**`] =
        collection === "projects" && request.includeArchived
          ? { include_archived: true, ...pattern }
          : pattern;
    }
    // A subgroup stays even when it says nothing: a declared group's undeclared subgroups are reported as
    // unmanaged, unless a pattern entry matches them.
    const keepEmpty = collection === "groups" && Object.keys(pattern).length === 0;
    for (const [key, entry] of below) if (keepEmpty || Object.keys(entry).length > 0) out[key] = entry;
    return out;
  }

  async readTop(collection: "groups" | "projects", keys: string[]): Promise<Live[]> {
    const kind = this.registry.kind("instance", collection);
    if (!kind) return [];
    // Every field is wanted, those lists do not show too (a project's build_git_strategy).
    return kind.read(this.ctx, INSTANCE, keys, { ...this.readOptions, detailOf: keys });
  }
}

interface ApiGroupRef {
  full_path: string;
}
interface ApiProjectRef {
  path_with_namespace: string;
}
const PROJECT_REF_SHAPE = { path_with_namespace: "string" } as const;

/** File name for a group or project path: `/` becomes `__`. */
export function fileNameFor(path: string): string {
  return `${path.replaceAll("/", "__")}.yaml`;
}

/** Reads the live state of the requested scope and renders it as manifests. */
export async function exportManifests(
  ctx: KindContext,
  registry: KindRegistry,
  request: ExportRequest,
): Promise<ExportResult> {
  const exporter = new Exporter(
    ctx,
    registry,
    request.host,
    request.unchecked?.length ? { unchecked: request.unchecked } : {},
  );
  const files: ExportedFile[] = [];
  /** Group and project paths already written, so none is declared in two files. */
  const exportedPaths = new Set<string>();

  if (request.instance) {
    exporter.begin();
    const instance: Record<string, unknown> = {};
    for (const [name, spec] of registry.fields("", "instance")) {
      if (!spec.child || name === "groups" || name === "projects") continue;
      const value = await exporter.collection(INSTANCE, name, instance, [], spec);
      if (value !== undefined) instance[name] = value;
    }
    files.push(
      exporter.render(
        "instance.yaml",
        ["Exported by forgeform from the live instance-level settings."],
        { instance },
        request.schemaRef,
      ),
    );
  }

  // Parents first, so a group inside another requested group is written once, in its parent's file.
  const groupPaths = [...request.groups].sort((a, b) => a.split("/").length - b.split("/").length);
  for (const path of groupPaths) {
    if (exportedPaths.has(path.toLowerCase())) {
      exporter.skipped.push(
        `group["${path}"]: already in the file of its parent group (a group is declared once)`,
      );
      continue;
    }
    exporter.begin();
    const [group] = await exporter.readTop("groups", [path]);
    if (!group) throw new Error(`group ${path} does not exist or is not visible to the token's user`);
    const subgroups = await ctx.api.list<ApiGroupRef>(apiPath`/groups/${group.id!}/descendant_groups`, {
      query: { all_available: true },
      shape: { full_path: "string" },
    });
    const groupPaths = [group.key, ...subgroups.map((g) => g.full_path).sort()];
    const groupEntries = new Map<string, Record<string, unknown>>();
    for (const live of [group, ...(await exporter.readTop("groups", groupPaths.slice(1)))])
      groupEntries.set(live.key, await exporter.top("groups", live));
    // The group's own projects (projects shared with it belong to other groups' files); archived ones only when
    // asked for, as patterns leave them out unless they say include_archived.
    const projectRefs = await ctx.api.list<ApiProjectRef>(apiPath`/groups/${group.id!}/projects`, {
      query: {
        include_subgroups: true,
        with_shared: false,
        ...(request.includeArchived ? {} : { archived: false }),
      },
      shape: PROJECT_REF_SHAPE,
    });
    const projectPaths = projectRefs.map((p) => p.path_with_namespace).sort();
    const projectEntries = new Map<string, Record<string, unknown>>();
    for (const live of await exporter.readTop("projects", projectPaths))
      projectEntries.set(live.key, await exporter.top("projects", live));
    for (const key of [...groupEntries.keys(), ...projectPaths]) exportedPaths.add(key.toLowerCase());
    const arrange = (collection: "groups" | "projects", entries: Map<string, Record<string, unknown>>) =>
      exporter.arrange(collection, group.key, entries, request);
    const groups = arrange("groups", groupEntries);
    const projects = arrange("projects", projectEntries);
    files.push(
      exporter.render(
        fileNameFor(group.key),
        [`Exported by forgeform from the live group ${group.key}, its subgroups and their projects.`],
        { groups, ...(Object.keys(projects).length > 0 ? { projects } : {}) },
        request.schemaRef,
      ),
    );
  }

  for (const path of request.projects) {
    if (exportedPaths.has(path.toLowerCase())) {
      exporter.skipped.push(
        `project["${path}"]: already in the file of its group (a project is declared once)`,
      );
      continue;
    }
    exportedPaths.add(path.toLowerCase());
    exporter.begin();
    // The plan addresses projects by path without a lookup; an export checks that the project exists.
    const found = await orNotFound(
      ctx.api.get<ApiProjectRef>(apiPath`/projects/${path}`, { shape: PROJECT_REF_SHAPE }),
    );
    if (!found) throw new Error(`project ${path} does not exist or is not visible to the token's user`);
    const [project] = await exporter.readTop("projects", [found.path_with_namespace]);
    if (!project) throw new Error(`project ${path} could not be read`);
    files.push(
      exporter.render(
        fileNameFor(project.key),
        [`Exported by forgeform from the live project ${project.key}.`],
        { projects: { [project.key]: await exporter.top("projects", project) } },
        request.schemaRef,
      ),
    );
  }

  return { files, skipped: exporter.skipped };
}
