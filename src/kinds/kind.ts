/**
 * The Kind interface: one managed kind of platform object. The engine knows kinds only through this interface
 * (read, create, update, remove, and the field declarations from the kind's JSON Schema); everything that is the
 * same for all kinds (matching by identity, diffing, ordering, prune policy, addresses, concurrency, failure
 * handling) lives in src/engine.
 */
import type { ApiClient } from "../api/index.js";
import type { ArchiveEntries } from "../files/archive.js";
import type { SourceRef } from "../manifest/model.js";

/** A live object, normalised into the manifest's terms. */
export interface Live {
  /** The identity, computed the same way as for a desired object of this kind. */
  key: string;
  /** The platform id used in API paths (numeric id, name, slug or key). */
  id?: string | number;
  /** Fields in manifest terms, for comparison with the desired fields. */
  fields: Record<string, unknown>;
  /** The API's own representation, for kinds whose children are read from it (a schedule's variables). */
  raw?: unknown;
  /** Set when the object is listed here but can only be changed elsewhere (a group's badge in a project's list). */
  readOnly?: string;
  /**
   * Addressed by its identity without being read (a project whose own fields the manifests do not set, see
   * ReadOptions.addressOnly): whether it exists shows on the first read below it.
   */
  unverified?: boolean;
  /**
   * What the plan says of the object in any change it is in, besides its fields (`alice is blocked`, a deploy token
   * that has expired).
   */
  note?: string;
  /**
   * Where the object comes in what a read of the whole collection returns, when the read was of a part of it (see
   * ReadOptions.among): how a plan made in chunks puts the parts' undeclared objects in one order.
   */
  order?: number;
}

/** The owner of a collection: the instance, a group, a project, a pipeline schedule... */
export interface Parent {
  /** Address of the owner (`instance`, `group["acme"]`, `project["acme/api"]`). */
  address: string;
  /** The owner's collection key (`instance`, `groups`, `projects`, `pipeline_schedules`). */
  collection: string;
  /** The owner's identity (a full path for groups and projects). */
  key: string;
  /** The owner's platform id for API paths; undefined while the owner does not exist yet (it is planned). */
  ref?: string | number;
  /** The owner's live object, when it exists. */
  live?: Live;
  /** The owner's own parent (a schedule variable needs its project). */
  parent?: Parent;
}

/** Desired fields of one object, with values as declared (secrets as Secret instances). */
export type Fields = Record<string, unknown>;

/** A user as name lookups find it: its id, its username as the platform spells it, and its state. */
export interface PlatformUser {
  id: number;
  username: string;
  /** `active`, `blocked`, ... */
  state: string;
}

/** Looks up platform ids for names used in manifests; answers are cached for the run. */
export interface Resolver {
  /** The user with this username, in any case; undefined when there is none the token's user can see. */
  user(username: string): Promise<PlatformUser | undefined>;
  userId(username: string): Promise<number | undefined>;
  groupId(fullPath: string): Promise<number | undefined>;
  /** The group at this full path, in any case, with its full path as the platform spells it. */
  group(fullPath: string): Promise<{ id: number; fullPath: string } | undefined>;
  /** Records a group created during apply, so later lookups (children, access levels) find it. */
  rememberGroup(fullPath: string, id: number): void;
}

export interface KindContext {
  api: ApiClient;
  resolve: Resolver;
  /** What the platform says of its edition (`licensed` when /version says -ee). */
  edition: "licensed" | "core";
  /**
   * Per-run memo shared by all kinds, for reads that serve many parents at once
   * (e.g. one bulk list of all groups instead of one request per group).
   */
  memo: Map<string, unknown>;
}

/** An error about one declared field, thrown by `prepare`; the plan points at that field's place in the manifest. */
export class FieldError extends Error {
  override name = "FieldError";
  /** The field's path within the object, as in the manifest (`deploy_access_levels[1].user`). */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export interface ReadOptions {
  /**
   * The caller also wants live objects the manifests do not declare (the collection's prune policy watches them).
   * A kind that reads only the wanted objects (groups) reads the undeclared ones it can report too.
   */
  undeclared?: boolean;
  /**
   * The wanted identities whose undeclared children are reported (default: all of them). Groups that only a
   * pattern matched are left out: `groups: acme/*` sets a policy for acme's subgroups, it does not put the trees
   * below them under management.
   */
  reportBelow?: string[];
  /**
   * Fields the manifests set under `unchecked:` (settings newer than the schema): read too, as they are, into
   * `fields["unchecked.<name>"]`.
   */
  unchecked?: readonly string[];
  /**
   * Wanted identities whose own entries set an `unchecked` setting (default: all of them, as an export asks): a kind
   * that reads lists reads one of these on its own when its list's copy lacks them; the others do without (what
   * they do not set is not compared).
   */
  uncheckedOf?: readonly string[];
  /**
   * Wanted identities whose own fields the manifests do not set: a kind that can address an object by its identity
   * (a project by its path) returns them unread, marked `unverified`, and spends no request on them.
   */
  addressOnly?: readonly string[];
  /**
   * Wanted identities whose declared fields include one the platform shows only in a read of the object itself
   * (`x-detail-only`), not in lists: a kind that reads lists reads these one by one.
   */
  detailOf?: readonly string[];
  /**
   * Read from the platform, not from anything cached earlier in the run (a parent's detail view read while
   * planning): apply re-reads this way to learn whether a create whose outcome was lost took effect.
   */
  fresh?: boolean;
  /**
   * Every identity the whole plan wants of this collection, in the plan's order, when this read wants a part of
   * them (a plan made in chunks reads each chunk's part): the read makes the requests one read of all of them would
   * (a listing is read once and shared by the parts), and gives each undeclared object its `order` in that read.
   */
  among?: readonly string[];
}

/** A problem found while planning one object (the engine adds address and source). */
export interface KindProblem {
  message: string;
  /** The field it concerns, when there is one. */
  field?: string;
  /**
   * For an object a `delete` prune policy would remove: not an error, the object is left as it is and reported as
   * unmanaged, with the message as the reason (the token's own membership). An object marked absent is an error.
   */
  keep?: boolean;
  /**
   * `warning`: reported, and the plan goes on (a deploy token that has expired, a new project whose path is close to
   * an existing one's); otherwise an error.
   */
  severity?: "warning";
}

export interface Kind {
  /** The manifest key of the collection (`pipeline_schedules`), also the key in the JSON Schema. */
  collection: string;
  /** The address segment (`pipeline_schedule`). */
  segment: string;
  /** The collections this kind can live under. */
  parents: readonly string[];
  /** A singleton kind has exactly one object per parent (settings); it is never created or deleted. */
  singleton?: boolean;
  /** `replace` when the platform has no update call: a changed object is deleted and created again. */
  updateMode: "update" | "replace";
  /** Why an update is a replacement, for the plan. */
  replaceReason?: string;
  /** Objects of this kind are never deleted by prune policies, only when explicitly marked absent. */
  explicitDeleteOnly?: boolean;

  /** The identity of a desired object (defaults to the value of the schema's `x-identity` field). */
  identity?(fields: Fields): string;
  /**
   * Identities are one in any case, as on the platform (a member's username, a share's group path): a live object
   * is matched to the declared one in any case, and takes its spelling.
   */
  anyCase?: boolean;

  /**
   * Reads the live objects of this kind under `parent`: bulk list reads, detail reads only where unavoidable.
   * `wanted` holds the identities the manifests declare; a kind may read just those when that is cheaper
   * (a few groups out of thousands), but must return every object when it reads a whole list.
   */
  read(ctx: KindContext, parent: Parent, wanted: string[], options?: ReadOptions): Promise<Live[]>;

  /**
   * Desired fields in the terms `read` produces (e.g. names resolved to ids), for comparison. `scope`: the
   * collection's, with what the plan makes of the top-level groups and projects (a group it creates).
   */
  prepare?(ctx: KindContext, parent: Parent, fields: Fields, scope?: CollectionScope): Promise<Fields>;

  /**
   * A value as plans show it, in the manifest's terms (ids resolved by `prepare` shown as the names the manifest
   * used). For display only: comparison uses the values as they are.
   */
  display?(ctx: KindContext, field: string, value: unknown): Promise<unknown>;

  /** Problems that make the desired object impossible to reach from the live one (e.g. a group's new parent). */
  check?(ctx: KindContext, parent: Parent, desired: Fields, live: Live | undefined): KindProblem[];

  /** Creates the object whose identity is `key`; resolves to it as `read` would return it. */
  create?(ctx: KindContext, parent: Parent, desired: Fields, key: string): Promise<Live>;
  /**
   * For a kind whose create is more than its first request (settings the platform takes on update only, an
   * archive): does the rest to `found`, the object a create whose answer was lost made, as a re-read returned it;
   * resolves to it as `read` would return it. Apply calls it for every create found on re-reading, and again after
   * a re-read when its own answer is lost, so it must send only what `found` still lacks, or what may be sent twice.
   */
  finishCreate?(ctx: KindContext, parent: Parent, found: Live, desired: Fields): Promise<Live>;
  /**
   * Problems with creating `key` that need the platform to find (a group that looks moved from elsewhere; a parent
   * that does not exist and that this plan does not create).
   */
  checkCreate?(
    ctx: KindContext,
    parent: Parent,
    key: string,
    desired: Fields,
    scope: CollectionScope,
  ): Promise<KindProblem[]>;
  /**
   * Problems with updating `live` that need the platform to find (a group whose visibility cannot be lowered while
   * it holds more visible projects that stay so).
   */
  checkUpdate?(
    ctx: KindContext,
    parent: Parent,
    live: Live,
    desired: Fields,
    changed: string[],
    scope: CollectionScope,
  ): Promise<KindProblem[]>;
  /** A note for the plan on how `key` will be created (an existing deploy key enabled rather than uploaded). */
  createReason?(ctx: KindContext, parent: Parent, desired: Fields, key: string): Promise<string | undefined>;
  /**
   * The local file a create (or replacement) of the object writes, if any, and the field that names it (a token
   * file): two objects one plan creates may not name the same file, as the second's would take the first's place
   * (a plan error at both).
   */
  localFile?(desired: Fields): { field: string; path: string } | undefined;
  /**
   * Problems that make deleting `live` unsafe (a milestone that still has open issues). `desired` holds the fields
   * of the entry marked absent, or is undefined when a prune policy deletes an undeclared object. `scope`: what the
   * manifests say of the collection (the members a group keeps).
   */
  checkDelete?(
    ctx: KindContext,
    parent: Parent,
    live: Live,
    desired: Fields | undefined,
    scope: CollectionScope,
  ): Promise<KindProblem[]>;
  /** What the plan says of a replacement beside its reason (where the new token is written). */
  replaceNote?(ctx: KindContext, parent: Parent, desired: Fields, key: string): Promise<string | undefined>;
  /**
   * Problems with replacing `live` (deleting it and creating `desired`) that the plan must stop on: a new token's
   * file that is taken. Asked whenever a replacement is planned, for a change or for `--replace`.
   */
  checkReplace?(ctx: KindContext, parent: Parent, live: Live, desired: Fields): Promise<KindProblem[]>;
  /** Sends the changed fields (and any fields the platform requires alongside them). */
  update?(
    ctx: KindContext,
    parent: Parent,
    live: Live,
    desired: Fields,
    changed: string[],
  ): Promise<Live | undefined>;
  remove?(ctx: KindContext, parent: Parent, live: Live): Promise<void>;
  /**
   * For an entry marked absent whose object is not there: why something like it still is, for a warning (a user
   * whose membership is inherited from a group above, which no delete here removes).
   */
  notHere?(ctx: KindContext, parent: Parent, key: string): Promise<string | undefined>;

  /**
   * The live object's fields in manifest terms, for `forgeform export`, where `live.fields` are not already
   * (ids that the manifest names by username or path). Defaults to `live.fields`.
   */
  export?(ctx: KindContext, parent: Parent, live: Live): Promise<Fields>;

  /**
   * Addresses of steps that must succeed first, beyond the parent's create (a group's parent group). `live` is
   * the object as it is, when it exists.
   */
  dependsOn?(parent: Parent, key: string, desired: Fields, live: Live | undefined): string[];
  /**
   * Addresses of steps that must succeed first when the plan makes them (a create or a replacement): the group a
   * share names. An update of them is not waited for (the share is made whether or not it succeeds).
   */
  dependsOnCreate?(parent: Parent, key: string, desired: Fields, live: Live | undefined): string[];
  /** Addresses of steps that must wait for this one (a parent group lowering its visibility after its subgroup). */
  before?(parent: Parent, key: string, desired: Fields, live: Live | undefined): string[];

  /**
   * How changes below this object order with its own change: `first`, they wait for it (a project unarchived
   * before anything in it changes); `last`, it waits for them (a project archived after); `frozen`, it stays as it
   * is and the platform refuses changes below it (an archived project), which the plan warns of.
   */
  childOrder?(
    desired: Fields,
    live: Live | undefined,
  ): { order: "first" | "last" } | { frozen: string } | undefined;

  /** What the platform deletes with an object of this kind besides what `cascade` lists, for the plan's reason. */
  deletes?: string;
  /** The fields a planned delete lists, where not every field (a project's name, visibility...: not its 50 settings). */
  shownOnDelete?: readonly string[];

  /**
   * The objects the platform deletes together with `live` (a group's subgroups and projects), so the plan can name
   * each of them and count them as deletes.
   */
  cascade?(ctx: KindContext, parent: Parent, live: Live): Promise<CascadedObject[]>;
  /**
   * Whether a read error means the feature is not set up for this parent (a group without SAML SSO has no SCIM):
   * export then leaves the collection out silently. Any other read error (a missing or refused token for a parent
   * that has the feature) is said in the exported file and on stderr.
   */
  notConfigured?(ctx: KindContext, parent: Parent, error: unknown): Promise<boolean>;
  /**
   * How a restorable copy of an object is taken before it is deleted (a group's export archive): the engine
   * downloads it, checks that it holds `entries`, writes it where the plan said, and only then deletes.
   */
  backup?: {
    /** Asks the platform for the export and downloads the archive (a .tar.gz). */
    download(ctx: KindContext, parent: Parent, live: Live): Promise<Uint8Array>;
    /** The files the platform's export archive always holds: a download without them is no backup. */
    entries: ArchiveEntries;
    /** What the archive holds and what it does not, for the plan (`its settings, ...; not its projects`). */
    holds: string;
  };
}

/** What the manifests say about one collection, for checks that look beyond one object. */
export interface CollectionScope {
  /** Every identity the manifests declare in this collection (present or absent, within the targets or not). */
  declared: ReadonlySet<string>;
  /** The desired fields of the objects of this collection that the plan manages (present, within the targets). */
  planned: ReadonlyMap<string, Fields>;
  /** The identities this plan deletes because their entries are marked absent (within the targets). */
  absent: ReadonlySet<string>;
  /** The collection's prune policy: what happens to the live objects it does not declare. */
  policy: "warn" | "delete" | "ignore";
  /**
   * The same for the top-level groups or projects, by lower-cased full path: what a project's group will be, and
   * which of a group's projects the plan changes.
   */
  top?(collection: "groups" | "projects"): ReadonlyMap<string, Fields>;
}

/** An object deleted by the platform along with another. */
export interface CascadedObject {
  /** Its top-level collection (`groups`, `projects`) and address segment (`group`, `project`). */
  collection: string;
  segment: string;
  key: string;
  id: string | number;
  /** A few fields that tell the object apart in the plan (visibility, ...). */
  fields: Fields;
}

/** The address of an object: `parent.segment["key"]`, or `segment["key"]` at the top, `parent.segment` for singletons. */
export function addressOf(
  parentAddress: string,
  kind: Pick<Kind, "segment" | "singleton">,
  key: string,
): string {
  const own = kind.singleton ? kind.segment : `${kind.segment}[${JSON.stringify(key)}]`;
  return parentAddress === "" ? own : `${parentAddress}.${own}`;
}

export type { SourceRef };
