import { createHash } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authorizeProject,
  findProject,
  projectAccessLevel,
  requireAdmin,
  requireAuth,
} from "../auth.js";
import { userFull } from "../entities.js";
import { badRequest, notFound, recordNotFound, validation } from "../errors.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { ProjectRec, Store, UserRec } from "../store.js";
import { settingValue } from "./application-settings.js";

/**
 * Deploy keys and SSH key lookup (contract "Deploy keys", "SSH keys lookup"; platform-behavior §3.9, 13.x).
 *
 * Users' SSH keys and deploy keys live in one table with one id sequence (`keys`), as on the platform, so a
 * fingerprint is unique across both.
 *
 * - `GET /deploy_keys` (administrators): every deploy key: id, title, key, created_at, fingerprint (MD5),
 *   fingerprint_sha256 (`SHA256:...`).
 * - Project endpoints need Maintainer (401 guest, 404 invisible project, 403 below Maintainer). Views are the
 *   contract's Deploy key: id, title, key, created_at, can_push.
 *   - POST strips the key. The same key already on the project: 201 with the existing link, title and can_push
 *     unchanged. The same key on a project where the caller is Maintainer (or a public key): linked. Otherwise a new
 *     key; a key whose fingerprint exists elsewhere is 400 `{"message":{"deploy_key.fingerprint":["has already been
 *     taken"]}}` (the caller may use a key of projects where they are a Maintainer member; administrator rights do
 *     not count); an unreadable key is 400 `{"message":{"deploy_key.key":["is invalid"],"deploy_key.fingerprint":
 *     ["cannot be generated"]}}` (nested keys of the platform's nested attributes); the instance's key restrictions
 *     (application settings `*_key_restriction`) apply.
 *   - PUT needs title or can_push (`at_least_one_of`); the title changes only for the key's creator or an
 *     administrator (ignored otherwise, as in 13.x).
 *   - `POST .../:key_id/enable` links a key the caller may use: 201 with id, title, key, created_at (no can_push);
 *     otherwise `404 Deploy Key Not Found`. Administrators may enable any deploy key (as on the platform).
 *   - DELETE unlinks (204); the key itself is deleted when no project uses it any more.
 *   - A key not on the project: GET is `404 Not found` (`find_by!`), PUT too, DELETE `404 Deploy Key Not Found`.
 * - `GET /keys/:id` and `GET /keys?fingerprint=` (administrators, per the contract): the SSH key with its user
 *   (User extended) and, for a deploy key found by fingerprint, `deploy_keys_projects`. The fingerprint is the MD5
 *   colon form or `SHA256:<base64>`; anything else is 400 `{"message":"Failed to return the key"}`; no match is
 *   `404 Key Not Found`; `/keys/:id` with no such key is `404 Not found`.
 *
 * Fixture keys:
 * ```yaml
 * ssh_keys:            # users' own SSH keys
 *   - { user: alice, title: laptop, key: "ssh-ed25519 AAAA... alice@laptop" }
 * deploy_keys:         # created by root unless `user:` names the creator
 *   - { project: acme/api, title: ci, key: "ssh-rsa AAAA...", can_push: true }
 * ```
 */

export interface KeyRec {
  id: number;
  type: "Key" | "DeployKey";
  user_id: number;
  title: string;
  key: string;
  fingerprint: string;
  fingerprint_sha256: string;
  public: boolean;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
}

export interface DeployKeysProjectRec {
  id: number;
  deploy_key_id: number;
  project_id: number;
  can_push: boolean;
  created_at: string;
  updated_at: string;
}

interface KeysArea {
  keys: KeyRec[];
  links: DeployKeysProjectRec[];
}

// ---- SSH public keys ----

export interface ParsedKey {
  /** `rsa`, `dsa`, `ecdsa`, `ed25519`, `ecdsa_sk`, `ed25519_sk` (the settings' key-restriction names). */
  kind: string;
  bits: number;
  /** `aa:bb:...` MD5 of the blob. */
  md5: string;
  /** Unpadded base64 SHA-256 of the blob (without the `SHA256:` prefix). */
  sha256: string;
  /** The key as stored: `type blob [comment]` on one line. */
  text: string;
}

const ALGORITHMS: Record<string, string> = {
  "ssh-rsa": "rsa",
  "ssh-dss": "dsa",
  "ecdsa-sha2-nistp256": "ecdsa",
  "ecdsa-sha2-nistp384": "ecdsa",
  "ecdsa-sha2-nistp521": "ecdsa",
  "ssh-ed25519": "ed25519",
  "sk-ecdsa-sha2-nistp256@openssh.com": "ecdsa_sk",
  "sk-ssh-ed25519@openssh.com": "ed25519_sk",
};

/** Reads the length-prefixed fields of an SSH wire-format blob; `undefined` when malformed. */
function wireFields(blob: Buffer): Buffer[] | undefined {
  const out: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) return undefined;
    const len = blob.readUInt32BE(at);
    at += 4;
    if (at + len > blob.length) return undefined;
    out.push(blob.subarray(at, at + len));
    at += len;
  }
  return out;
}

function bitLength(mpint: Buffer): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  if (i === mpint.length) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i] ?? 0));
}

/** Parses an OpenSSH public key line (`type base64 [comment]`); `undefined` when it is not a valid key. */
export function parseSshKey(input: string): ParsedKey | undefined {
  const parts = input
    .replace(/[\r\n]/g, "")
    .trim()
    .split(/\s+/);
  const [type, b64, ...comment] = parts;
  if (!type || !b64) return undefined;
  const kind = ALGORITHMS[type];
  if (!kind || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const blob = Buffer.from(b64, "base64");
  if (blob.toString("base64").replace(/=+$/, "") !== b64.replace(/=+$/, "")) return undefined;
  const fields = wireFields(blob);
  if (!fields || fields[0]?.toString("latin1") !== type) return undefined;
  let bits: number;
  switch (kind) {
    case "rsa":
      if (fields.length !== 3) return undefined;
      bits = bitLength(fields[2] as Buffer);
      break;
    case "dsa":
      if (fields.length !== 5) return undefined;
      bits = bitLength(fields[1] as Buffer);
      break;
    case "ecdsa":
      if (fields.length !== 3) return undefined;
      bits = Number(type.slice(-3));
      break;
    case "ed25519":
      if (fields.length !== 2 || fields[1]?.length !== 32) return undefined;
      bits = 256;
      break;
    default:
      bits = 256;
  }
  const md5 = createHash("md5")
    .update(blob)
    .digest("hex")
    .replace(/(..)(?!$)/g, "$1:");
  const sha256 = createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
  return { kind, bits, md5, sha256, text: [type, b64, ...comment].join(" ") };
}

const KIND_LABEL: Record<string, string> = {
  rsa: "RSA",
  dsa: "DSA",
  ecdsa: "ECDSA",
  ed25519: "ED25519",
  ecdsa_sk: "ECDSA_SK",
  ed25519_sk: "ED25519_SK",
};

/** The instance's key restriction for a key kind (application settings; 0 = none, -1 = forbidden). */
function keyRestriction(store: Store, kind: string): number {
  const v = settingValue(store, `${kind}_key_restriction`);
  return typeof v === "number" ? v : 0;
}

/** The model's validations of a key, as `{field: [messages]}` (empty when valid). */
function keyErrors(
  store: Store,
  title: string,
  text: string,
  parsed: ParsedKey | undefined,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (title.trim() === "") errors["title"] = ["can't be blank"];
  else if (title.length > 255) errors["title"] = ["is too long (maximum is 255 characters)"];
  if (text.trim() === "") errors["key"] = ["can't be blank"];
  else if (text.length > 5000) errors["key"] = ["is too long (maximum is 5000 characters)"];
  else if (!parsed) errors["key"] = ["is invalid"];
  if (!parsed) {
    errors["fingerprint"] = ["cannot be generated"];
    return errors;
  }
  const restriction = keyRestriction(store, parsed.kind);
  if (restriction === -1) {
    const allowed = Object.keys(KIND_LABEL)
      .filter((k) => keyRestriction(store, k) !== -1)
      .map((k) => KIND_LABEL[k] as string);
    const sentence =
      allowed.length <= 1
        ? (allowed[0] ?? "")
        : `${allowed.slice(0, -1).join(", ")}, or ${allowed[allowed.length - 1]}`;
    errors["key"] = [`type is forbidden. Must be ${sentence}`];
  } else if (restriction > 0 && parsed.bits < restriction) {
    errors["key"] = [`must be at least ${restriction} bits`];
  }
  if (store.data.areas["deploy_keys"] !== undefined) {
    const taken = (store.data.areas["deploy_keys"] as KeysArea).keys.some(
      (k) => k.fingerprint === parsed.md5 || k.fingerprint_sha256 === parsed.sha256,
    );
    if (taken) errors["fingerprint"] = ["has already been taken"];
  }
  return errors;
}

function nested(errors: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(errors).map(([k, v]) => [`deploy_key.${k}`, v]));
}

// ---- module ----

export function register(app: SandboxApp): void {
  const area = (store: Store = app.store) =>
    store.area<KeysArea>("deploy_keys", () => ({ keys: [], links: [] }));

  /**
   * Deleting a project removes its links (`dependent: :destroy`) and so the keys no other project uses; the core
   * store does not know this table, so stale rows are dropped before each request reads it.
   */
  const prune = (store: Store): void => {
    const a = area(store);
    const before = a.links.length;
    a.links = a.links.filter((l) => store.project(l.project_id) !== undefined);
    if (a.links.length === before) return;
    const used = new Set(a.links.map((l) => l.deploy_key_id));
    a.keys = a.keys.filter((k) => k.type !== "DeployKey" || k.public || used.has(k.id));
  };

  const keyBasic = (k: KeyRec) => ({ id: k.id, title: k.title, key: k.key, created_at: k.created_at });
  const linkJson = (k: KeyRec, l: DeployKeysProjectRec) => ({ ...keyBasic(k), can_push: l.can_push });
  const keyOf = (l: DeployKeysProjectRec) => area().keys.find((k) => k.id === l.deploy_key_id) as KeyRec;

  const newKey = (
    store: Store,
    input: {
      type: KeyRec["type"];
      user_id: number;
      title: string;
      parsed: ParsedKey;
      expires_at?: string | null;
    },
  ): KeyRec => {
    const now = store.nowIso();
    const rec: KeyRec = {
      id: store.nextId("keys"),
      type: input.type,
      user_id: input.user_id,
      title: input.title,
      key: input.parsed.text,
      fingerprint: input.parsed.md5,
      fingerprint_sha256: input.parsed.sha256,
      public: false,
      created_at: now,
      updated_at: now,
      expires_at: input.expires_at ?? null,
    };
    area(store).keys.push(rec);
    return rec;
  };

  const link = (store: Store, key: KeyRec, project: ProjectRec, canPush: boolean): DeployKeysProjectRec => {
    const now = store.nowIso();
    const rec: DeployKeysProjectRec = {
      id: store.nextId("deploy_keys_projects"),
      deploy_key_id: key.id,
      project_id: project.id,
      can_push: canPush,
      created_at: now,
      updated_at: now,
    };
    area(store).links.push(rec);
    return rec;
  };

  /**
   * `accessible_deploy_keys`: keys of projects where the user is a Maintainer member (membership, inherited or
   * through a share; administrator rights do not count, as on the platform), and public keys.
   */
  const accessible = (ctx: Ctx, user: UserRec, key: KeyRec): boolean => {
    if (key.type !== "DeployKey") return false;
    if (key.public) return true;
    return area().links.some((l) => {
      if (l.deploy_key_id !== key.id) return false;
      const p = ctx.store.project(l.project_id);
      return p !== undefined && projectAccessLevel(ctx.store, user, p) >= ACCESS.maintainer;
    });
  };

  const projectFor = (ctx: Ctx): { user: UserRec; project: ProjectRec } => {
    const user = requireAuth(ctx);
    prune(ctx.store);
    const project = findProject(ctx, ctx.path["id"] as string);
    authorizeProject(ctx, project, ACCESS.maintainer);
    return { user, project };
  };

  const keyIdParam = (ctx: Ctx): number =>
    ctx.declare({ key_id: { type: "integer", required: true } }).key_id;

  app.get("/deploy_keys", (ctx) => {
    requireAdmin(ctx);
    prune(ctx.store);
    const keys = area()
      .keys.filter((k) => k.type === "DeployKey")
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(keys, (k) => ({
      ...keyBasic(k),
      fingerprint: k.fingerprint,
      fingerprint_sha256: `SHA256:${k.fingerprint_sha256}`,
    }));
  });

  app.get("/projects/:id/deploy_keys", (ctx) => {
    const { project } = projectFor(ctx);
    const links = area()
      .links.filter((l) => l.project_id === project.id)
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(links, (l) => linkJson(keyOf(l), l));
  });

  app.get("/projects/:id/deploy_keys/:key_id", (ctx) => {
    const { project } = projectFor(ctx);
    const keyId = keyIdParam(ctx);
    const l = area().links.find((x) => x.project_id === project.id && x.deploy_key_id === keyId);
    if (!l) throw recordNotFound();
    return linkJson(keyOf(l), l);
  });

  app.post("/projects/:id/deploy_keys", (ctx) => {
    const { user, project } = projectFor(ctx);
    const p = ctx.declare({
      key: { type: "string", required: true },
      title: { type: "string", required: true },
      can_push: { type: "boolean" },
    });
    const text = p.key.trim();
    const parsed = parseSshKey(text);
    const stored = parsed?.text ?? text;
    const a = area();
    const existing = a.links.find((l) => l.project_id === project.id && keyOf(l).key === stored);
    if (existing) return created(linkJson(keyOf(existing), existing));
    const elsewhere = a.keys.find((k) => k.key === stored && accessible(ctx, user, k));
    if (elsewhere) {
      const l = link(ctx.store, elsewhere, project, p.can_push ?? false);
      return created(linkJson(elsewhere, l));
    }
    const errors = keyErrors(ctx.store, p.title, text, parsed);
    if (Object.keys(errors).length > 0 || !parsed) throw validation(nested(errors));
    const key = newKey(ctx.store, { type: "DeployKey", user_id: user.id, title: p.title, parsed });
    const l = link(ctx.store, key, project, p.can_push ?? false);
    return created(linkJson(key, l));
  });

  app.put("/projects/:id/deploy_keys/:key_id", (ctx) => {
    const { user, project } = projectFor(ctx);
    const p = ctx.declare(
      {
        key_id: { type: "integer", required: true },
        title: { type: "string" },
        can_push: { type: "boolean" },
      },
      { atLeastOneOf: ["title", "can_push"] },
    );
    const l = area().links.find((x) => x.project_id === project.id && x.deploy_key_id === p.key_id);
    if (!l) throw recordNotFound();
    const key = keyOf(l);
    const now = ctx.store.nowIso();
    if (p.title !== undefined && (user.admin || key.user_id === user.id)) {
      if (p.title.trim() === "") throw validation({ "deploy_key.title": ["can't be blank"] });
      if (p.title.length > 255)
        throw validation({ "deploy_key.title": ["is too long (maximum is 255 characters)"] });
      if (key.title !== p.title) {
        key.title = p.title;
        key.updated_at = now;
      }
    }
    if (p.can_push !== undefined && l.can_push !== p.can_push) {
      l.can_push = p.can_push;
      l.updated_at = now;
    }
    return linkJson(key, l);
  });

  app.post("/projects/:id/deploy_keys/:key_id/enable", (ctx) => {
    const { user, project } = projectFor(ctx);
    const keyId = keyIdParam(ctx);
    const key = area().keys.find((k) => k.id === keyId);
    // EnableDeployKeyService#find_accessible_key: an administrator may enable any deploy key of the instance;
    // anyone else only the keys of projects they maintain (and public ones). Uploading stays per-user.
    const usable = key !== undefined && (user.admin ? key.type === "DeployKey" : accessible(ctx, user, key));
    if (!key || !usable) throw notFound("Deploy Key");
    if (!area().links.some((l) => l.project_id === project.id && l.deploy_key_id === key.id))
      link(ctx.store, key, project, false);
    return created(keyBasic(key));
  });

  app.delete("/projects/:id/deploy_keys/:key_id", (ctx) => {
    const { project } = projectFor(ctx);
    const keyId = keyIdParam(ctx);
    const a = area();
    const l = a.links.find((x) => x.project_id === project.id && x.deploy_key_id === keyId);
    if (!l) throw notFound("Deploy Key");
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), l.updated_at);
    a.links = a.links.filter((x) => x.id !== l.id);
    const key = a.keys.find((k) => k.id === keyId);
    if (key && !key.public && !a.links.some((x) => x.deploy_key_id === key.id))
      a.keys = a.keys.filter((k) => k.id !== key.id);
    return noContent();
  });

  // ---- SSH key lookup ----

  const keyWithUser = (ctx: Ctx, k: KeyRec, withProjects: boolean): Record<string, unknown> => {
    const owner = ctx.store.user(k.user_id);
    const out: Record<string, unknown> = {
      ...keyBasic(k),
      expires_at: k.expires_at,
      user: owner ? userFull(ctx, owner) : null,
    };
    if (withProjects && k.type === "DeployKey") {
      out["deploy_keys_projects"] = area()
        .links.filter((l) => l.deploy_key_id === k.id)
        .sort((a, b) => a.id - b.id)
        .map((l) => ({
          id: l.id,
          deploy_key_id: l.deploy_key_id,
          project_id: l.project_id,
          created_at: l.created_at,
          updated_at: l.updated_at,
          can_push: l.can_push,
        }));
    }
    return out;
  };

  app.get("/keys/:id", (ctx) => {
    requireAdmin(ctx);
    prune(ctx.store);
    const { id } = ctx.declare({ id: { type: "integer", required: true } });
    const key = area().keys.find((k) => k.id === id);
    if (!key) throw recordNotFound();
    return keyWithUser(ctx, key, false);
  });

  app.get("/keys", (ctx) => {
    requireAdmin(ctx);
    prune(ctx.store);
    const { fingerprint } = ctx.declare({ fingerprint: { type: "string", required: true } });
    let key: KeyRec | undefined;
    if (/^SHA256:/i.test(fingerprint)) {
      const wanted = fingerprint.slice(7).replace(/=+$/, "");
      key = area().keys.find((k) => k.fingerprint_sha256 === wanted);
    } else if (/^([0-9a-fA-F]{2}:){15}[0-9a-fA-F]{2}$/.test(fingerprint)) {
      const wanted = fingerprint.toLowerCase();
      key = area().keys.find((k) => k.fingerprint === wanted);
    } else {
      throw badRequest("Failed to return the key");
    }
    if (!key) throw notFound("Key");
    return keyWithUser(ctx, key, true);
  });

  // ---- fixture ----

  const fixtureError = (source: string, where: string, what: string) =>
    new Error(`sandbox: fixture ${source}: ${where}: ${what}`);

  const fixtureKey = (
    store: Store,
    source: string,
    where: string,
    item: unknown,
  ): { user: UserRec; title: string; parsed: ParsedKey; raw: Record<string, unknown> } => {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      throw fixtureError(source, where, "must be a mapping with title and key");
    const raw = item as Record<string, unknown>;
    const userRef = raw["user"] === undefined ? "root" : String(raw["user"]);
    const user = store.userByIdOrUsername(userRef);
    if (!user) throw fixtureError(source, where, `user "${userRef}" is not a user of the fixture`);
    const title = typeof raw["title"] === "string" ? raw["title"] : "";
    const text = typeof raw["key"] === "string" ? raw["key"].trim() : "";
    const parsed = parseSshKey(text);
    const errors = keyErrors(store, title, text, parsed);
    if (Object.keys(errors).length > 0 || !parsed) {
      const detail = Object.entries(errors)
        .map(([k, v]) => `${k} ${v.join(", ")}`)
        .join("; ");
      throw fixtureError(source, where, `${detail} (give a title and an OpenSSH public key line)`);
    }
    return { user, title, parsed, raw };
  };

  app.onFixture("ssh_keys", (value, { store, source }) => {
    if (!Array.isArray(value)) throw fixtureError(source, "ssh_keys", "must be a list");
    value.forEach((item, i) => {
      const { user, title, parsed, raw } = fixtureKey(store, source, `ssh_keys[${i}]`, item);
      const expires = raw["expires_at"];
      newKey(store, {
        type: "Key",
        user_id: user.id,
        title,
        parsed,
        expires_at:
          expires === undefined || expires === null ? null : new Date(String(expires)).toISOString(),
      });
    });
  });

  app.onFixture("deploy_keys", (value, { store, source }) => {
    if (!Array.isArray(value)) throw fixtureError(source, "deploy_keys", "must be a list");
    value.forEach((item, i) => {
      const where = `deploy_keys[${i}]`;
      const raw = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
      const projectRef = typeof raw["project"] === "string" ? raw["project"] : "";
      const project = store.projectByRef(projectRef);
      if (!project)
        throw fixtureError(source, where, `project "${projectRef}" is not a project of the fixture`);
      // The same key on several projects is one deploy key with several links.
      const text = typeof raw["key"] === "string" ? parseSshKey(raw["key"])?.text : undefined;
      const same = area(store).keys.find((k) => k.type === "DeployKey" && k.key === text);
      if (same) {
        if (!area(store).links.some((l) => l.deploy_key_id === same.id && l.project_id === project.id))
          link(store, same, project, raw["can_push"] === true);
        return;
      }
      const { user, title, parsed } = fixtureKey(store, source, where, item);
      const key = newKey(store, { type: "DeployKey", user_id: user.id, title, parsed });
      key.public = raw["public"] === true;
      link(store, key, project, raw["can_push"] === true);
    });
  });
}
