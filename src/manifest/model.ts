/**
 * The desired graph: what the manifest loader hands to the engine. The loader builds it from the manifests and
 * the schemas alone (it knows kinds only through schema annotations); the engine reads nothing but this.
 *
 * Shape of the tree:
 *   root (collection "instance", key "instance")
 *     children.application_settings -> one node (a singleton kind), key "application_settings"
 *     children.system_hooks         -> nodes keyed by url
 *     children.broadcast_messages   -> nodes keyed by their identity
 *     children.groups               -> nodes keyed by full path ("acme", "acme/platform"), parents before children
 *     children.projects             -> nodes keyed by full path ("acme/platform/api")
 *   a group or project node's children are its collections (badges, milestones, pipeline_schedules, ...),
 *   a pipeline schedule node's children.variables are its variables, and so on.
 *
 * Schema annotations the loader reads (see schemas/README.md):
 *   x-identity: "<field>"   on an array property's item schema: the array is a child collection of kind nodes,
 *                           identified by that field (for groups/projects, the map key is the identity)
 *   x-singleton: true       on an object property: a child node of its own (settings-like kinds)
 *   writeOnly / x-sensitive on fields: never printed (writeOnly: also never compared with live state)
 */

/** A place in a manifest file; lines and columns are 1-based. */
export interface SourceRef {
  file: string;
  line: number;
  col: number;
}

/** What to do with live objects of a collection that the manifest does not mention. */
export type PrunePolicy = "warn" | "delete" | "ignore";

export interface DesiredNode {
  /** The manifest key of the collection this node belongs to, e.g. "pipeline_schedules", "groups", "instance". */
  collection: string;
  /**
   * The node's identity within its collection (a schedule's description, a variable's key, a group's full path),
   * from the resolved values: it may hold a secret, so it is never shown (see `label`).
   */
  key: string;
  /** The identity as it may be shown, secret parts masked; set only when it differs from `key`. */
  label?: string;
  /**
   * The identity in the terms of its fields' normalisers (`x-normalize`: a member's user in lower case); set only
   * when it differs from `key`. Items of two entries with the same one are one object, and merge.
   */
  compare?: string;
  /** `absent` asks for deletion of the live object with this identity. */
  state: "present" | "absent";
  /**
   * The fields the manifest sets, templates and interpolation applied, child collections and meta keys
   * (`state`, `unmanaged`, `extends`) removed. Secret references are `Secret` instances.
   */
  fields: Record<string, unknown>;
  /** Where the node was declared (its first key). */
  source: SourceRef;
  /** Positions of each declared field, for error messages (`path.to.field` relative to this node). */
  fieldSources: Record<string, SourceRef>;
  /** Child collections by manifest key. Singletons are collections with one item. */
  children: Record<string, DesiredCollection>;
  /** Set on a group or project that no full-path entry declares: patterns matched it on the platform. */
  fromPattern?: boolean;
  /**
   * Required fields the entry leaves to a less specific pattern entry declaring the same item (validation allowed
   * it); merging drops those the patterns give, and the engine refuses an item that still needs some.
   */
  needs?: string[];
}

export interface DesiredCollection {
  /** Policy for live objects of this collection that are not declared. Default "warn". */
  policy: PrunePolicy;
  /** The policy was written (in `unmanaged:`), not the default: a more specific entry's written policy wins. */
  policyDeclared?: boolean;
  items: DesiredNode[];
}

export interface DesiredState {
  root: DesiredNode;
  /** The manifest files that were read, in the order read. */
  files: string[];
  /**
   * The SHA-256 of each file's text, by its name in `files` (references as written, not their values): a saved plan
   * tells from them which files changed since it was made.
   */
  digests?: Record<string, string>;
  /**
   * Entries of `groups:` and `projects:` whose key is a pattern (`acme/**`). They apply to existing objects the
   * engine finds on the platform, merged with each other and with exact entries (see src/manifest/selectors.ts).
   */
  selectors: Selector[];
}

/** A `groups:` or `projects:` entry whose key is a pattern. */
export interface Selector {
  collection: "groups" | "projects";
  /** As written: `acme/**`, `acme/*`, `**`. */
  pattern: string;
  /** The literal path before the wildcard; "" for the whole instance. */
  prefix: string;
  /** `*`: the direct children of the prefix (top-level groups for a bare `*`); `**`: everything below it. */
  depth: "children" | "subtree";
  /** Paths and patterns left out (`except:`); a path leaves out everything below it too. */
  except: string[];
  /** Where each `except:` entry is written. */
  exceptSources?: SourceRef[];
  /** Archived projects are left out unless this is set (`include_archived: true`). */
  includeArchived: boolean;
  /** The entry's body, built like any group or project (its key is the pattern). */
  node: DesiredNode;
}
