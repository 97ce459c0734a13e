/**
 * What the three converters share: walking a source with the path of each node in the source's terms, access
 * levels written in the many ways the tools accept, settings the platform renamed, and the file an entry goes to.
 */
import { renderPath } from "../manifest/diagnostics.js";
import { ACCESS_LEVELS } from "../manifest/normalize.js";
import type { Report } from "./report.js";
import { type Place, plain, type SNode } from "./source.js";
import type { Obj, Origin, Target } from "./target.js";

/** A node with its path in the source (`projects_and_groups["acme/*"].variables`). */
export class At {
  constructor(
    readonly node: SNode,
    readonly path: readonly (string | number)[],
    /** Where the key of this node was written (for a map's value); its own place otherwise. */
    readonly keyAt: Place = node.at,
    /** How the source names it, where its path is not the way (a Terraform resource's address and attribute). */
    readonly label?: string,
  ) {}

  get source(): string {
    return this.label ?? renderPath(this.path);
  }

  private childLabel(key: string | number): string | undefined {
    if (this.label === undefined) return undefined;
    return typeof key === "number" ? `${this.label}[${key}]` : `${this.label}.${key}`;
  }

  /** Where it was written, for the report and the origins of values made from it. */
  get origin(): Origin {
    return { at: this.keyAt, source: this.source };
  }

  /** The value's own place (the scalar, not its key). */
  get valueOrigin(): Origin {
    return { at: this.node.at, source: this.source };
  }

  /** The entries of a map, each as an At (none for a list or a scalar). */
  entries(): [string, At][] {
    return this.node.kind === "map"
      ? this.node.entries.map((e) => [
          e.key,
          new At(e.value, [...this.path, e.key], e.keyAt, this.childLabel(e.key)),
        ])
      : [];
  }

  /** The items of a list. */
  items(): At[] {
    return this.node.kind === "seq"
      ? this.node.items.map((n, i) => new At(n, [...this.path, i], n.at, this.childLabel(i)))
      : [];
  }

  get(key: string): At | undefined {
    if (this.node.kind !== "map") return undefined;
    const e = this.node.entries.find((x) => x.key === key);
    return e ? new At(e.value, [...this.path, key], e.keyAt, this.childLabel(key)) : undefined;
  }

  get isMap(): boolean {
    return this.node.kind === "map";
  }

  get isList(): boolean {
    return this.node.kind === "seq";
  }

  /** The plain value (objects and arrays for maps and lists). */
  get value(): unknown {
    return plain(this.node);
  }

  /** A scalar's value as text (numbers and booleans as YAML writes them), or undefined for maps, lists and null. */
  get text(): string | undefined {
    if (this.node.kind !== "scalar" || this.node.value === null) return undefined;
    return String(this.node.value);
  }
}

/**
 * An access level as the platform takes it, from a name written any way the tools accept (`maintainer`,
 * `Maintainer`, `no access`, `noone`, `no one`, `minimal`) or a number: the name forgeform writes, and whether it
 * was written differently (which the report lists, so a person can check it).
 */
export function accessLevel(
  written: unknown,
): { level: string | number; renamed: boolean } | { unknown: string } | undefined {
  if (typeof written === "number") {
    const name = Object.entries(ACCESS_LEVELS).find(([, n]) => n === written)?.[0];
    return name ? { level: written, renamed: false } : { unknown: String(written) };
  }
  if (typeof written !== "string") return undefined;
  const word = written
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  const name =
    word === "noone" || word === "no_one" || word === "none"
      ? "no_access"
      : word === "minimal"
        ? "minimal_access"
        : word;
  if (/^\d+$/.test(name)) return accessLevel(Number(name));
  if (ACCESS_LEVELS[name] === undefined) return { unknown: written };
  return { level: name, renamed: name !== written };
}

/**
 * Sets an access level field from the source, reporting a level written differently (to check) and one the
 * platform does not have (not converted). Returns false when nothing was set.
 */
export function setLevel(t: Target, obj: Obj, key: string, at: At, what: string): boolean {
  const level = accessLevel(at.value);
  if (level === undefined || "unknown" in level) {
    t.report.notConverted(
      at.node.at,
      at.source,
      `${level ? JSON.stringify(level.unknown) : "this value"} is not an access level the platform's 13.12 interface has (${Object.keys(ACCESS_LEVELS).join(", ")})${what ? `: ${what} left out` : ""}`,
    );
    return false;
  }
  if (level.renamed)
    t.report.check(
      at.node.at,
      at.source,
      `the access level ${JSON.stringify(at.value)} is written ${level.level}`,
    );
  t.set(obj, key, level.level, at.valueOrigin);
  return true;
}

/** A prune policy of gitlabracadabra's `unknown_*` (warn, delete/remove, ignore/skip) in forgeform's words. */
export function pruneWord(word: unknown): "warn" | "delete" | "ignore" | undefined {
  if (word === "warn") return "warn";
  if (word === "delete" || word === "remove") return "delete";
  if (word === "ignore" || word === "skip") return "ignore";
  return undefined;
}

/**
 * Project settings whose API name changed since the 13.12 interface forgeform speaks: the newer name, the name
 * forgeform writes, and how the value turns into it.
 */
export const SETTING_RENAMES: Readonly<
  Record<string, { to: string; value: (v: unknown) => unknown; note: string }>
> = {
  emails_enabled: {
    to: "emails_disabled",
    value: (v) => (typeof v === "boolean" ? !v : v),
    note: "emails_enabled is the newer name of the opposite of emails_disabled, which the 13.12 interface takes: written emails_disabled with the value turned around",
  },
  public_builds: {
    to: "public_jobs",
    value: (v) => v,
    note: "public_builds is the older name of public_jobs",
  },
  tag_list: {
    to: "topics",
    value: (v) => v,
    note: "tag_list is the older name of topics",
  },
};

/** Applies a setting, following the renames above (each one reported for a person to check). */
export function setSetting(
  t: Target,
  obj: Obj,
  key: string,
  at: At,
  value: unknown,
  renames: Readonly<
    Record<string, { to: string; value: (v: unknown) => unknown; note: string }>
  > = SETTING_RENAMES,
): void {
  const rename = renames[key];
  if (rename) {
    t.report.check(at.keyAt, at.source, rename.note);
    t.set(obj, rename.to, rename.value(value), at.origin, true);
    return;
  }
  t.set(obj, key, value, at.origin, true);
}

/** The output file of a group or project path: its top-level namespace (`acme/platform/api` → `acme.yaml`). */
export function fileOf(path: string): string {
  const top = path.split("/")[0] ?? "";
  return top === "" || top === "*" || top === "**" ? "all.yaml" : `${top}.yaml`;
}

/** A scalar of a source as the string a manifest field takes (YAML may have read `1.0` or `true`). */
export function asText(at: At, report: Report, what: string): string | undefined {
  const v = at.node.kind === "scalar" ? at.node.value : undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") {
    report.check(
      at.node.at,
      at.source,
      `${what} was read as the ${typeof v} ${String(v)}: written as the text ${JSON.stringify(String(v))} (quote it in the source if it meant something else)`,
    );
    return String(v);
  }
  return undefined;
}
