/**
 * Deploy keys of a project, identified by the SHA256 fingerprint of the key (a comment or spacing in the manifest
 * does not make it another key). A key that already exists on the platform (on another project) is enabled on
 * this one rather than uploaded again: the administrator's instance list is read once per run to find it (without
 * administrator rights, the upload is left to the platform, which links a key the token's user can access). The
 * platform enables a key only for a maintainer of a project that already uses it; otherwise apply says so.
 * `title` and `can_push` are updated in place.
 */
import { createHash } from "node:crypto";
import { ApiError, apiPath } from "../api/index.js";
import { isSecret, Secret } from "../manifest/secret.js";
import { body, ownerPath } from "./common.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

const KEY_SHAPE = { id: "integer", title: "string", key: "string", can_push: "boolean?" } as const;

interface ApiKey {
  id: number;
  title: string;
  key: string;
  can_push?: boolean;
}

/** The text of a declared key, whether written inline or read from a file (a Secret). */
function keyText(value: unknown): string {
  return isSecret(value) ? value.reveal() : String(value ?? "");
}

/** `type blob` without the comment, the form the fingerprint and the comparison use. */
export function canonicalKey(text: string): string {
  const [type, blob] = text.trim().split(/\s+/);
  return blob ? `${type} ${blob}` : text.trim();
}

/** The SHA256 fingerprint of an OpenSSH public key (`SHA256:` and unpadded base64 of the digest of the blob). */
export function fingerprint(text: string): string {
  const blob = text.trim().split(/\s+/)[1];
  if (!blob) return `invalid key: ${text.trim().slice(0, 20)}`;
  return `SHA256:${createHash("sha256").update(Buffer.from(blob, "base64")).digest("base64").replace(/=+$/, "")}`;
}

const toLive = (k: ApiKey, canPush?: boolean): Live => ({
  key: fingerprint(k.key),
  id: k.id,
  fields: { title: k.title, key: canonicalKey(k.key), can_push: k.can_push ?? canPush ?? false },
});

/** Every deploy key of the instance by fingerprint (administrators only; undefined for anyone else). Read once. */
function instanceKeys(ctx: KindContext): Promise<Map<string, ApiKey> | undefined> {
  const memoKey = "deploy_keys:instance";
  let p = ctx.memo.get(memoKey) as Promise<Map<string, ApiKey> | undefined> | undefined;
  if (!p) {
    p = ctx.api.list<ApiKey>("/deploy_keys", { shape: KEY_SHAPE }).then(
      (keys) => new Map(keys.map((k) => [fingerprint(k.key), k])),
      (error: unknown) => {
        if (error instanceof ApiError && (error.status === 403 || error.status === 401)) return undefined;
        throw error;
      },
    );
    ctx.memo.set(memoKey, p);
  }
  return p;
}

async function existingKey(ctx: KindContext, key: string): Promise<ApiKey | undefined> {
  return (await instanceKeys(ctx))?.get(key);
}

async function put(ctx: KindContext, parent: Parent, id: number | string, payload: Fields): Promise<ApiKey> {
  return ctx.api.put<ApiKey>(`${ownerPath(parent)}${apiPath`/deploy_keys/${id}`}`, { body: payload });
}

export const deployKeyKind: Kind = {
  collection: "deploy_keys",
  segment: "deploy_key",
  parents: ["projects"],
  updateMode: "update",

  // A key read from a file (`${file:...}`) is a Secret; its fingerprint, made to be shown, is still the identity.
  identity: (fields) => fingerprint(keyText(fields["key"])),

  async read(ctx, parent) {
    return (await ctx.api.list<ApiKey>(`${ownerPath(parent)}/deploy_keys`, { shape: KEY_SHAPE })).map((k) =>
      toLive(k),
    );
  },

  async prepare(_ctx, _parent, fields) {
    const key = fields["key"];
    if (isSecret(key)) return { ...fields, key: new Secret(canonicalKey(key.reveal()), key.origin) };
    return { ...fields, ...(typeof key === "string" ? { key: canonicalKey(key) } : {}) };
  },

  async createReason(ctx, _parent, desired, key) {
    const found = await existingKey(ctx, key);
    if (!found) return undefined;
    const title = desired["title"];
    const renamed =
      typeof title === "string" && title !== found.title
        ? `; its title belongs to the key, so it becomes "${title}" for every project that uses it`
        : "";
    return `the key already exists on the platform (deploy key ${found.id}, "${found.title}"): it is enabled on this project, not uploaded again${renamed}`;
  },

  async create(ctx, parent, desired, key) {
    const found = await existingKey(ctx, key);
    if (!found) {
      const created = await ctx.api.post<ApiKey>(`${ownerPath(parent)}/deploy_keys`, {
        body: body(desired, ["title", "key", "can_push"]),
      });
      return toLive(created, (desired["can_push"] as boolean | undefined) ?? false);
    }
    let enabled: ApiKey;
    try {
      enabled = await ctx.api.post<ApiKey>(`${ownerPath(parent)}${apiPath`/deploy_keys/${found.id}/enable`}`);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      throw new Error(
        `deploy key ${found.id} ("${found.title}") already exists on the platform, but the token's user may not enable it: the platform lets a key be enabled only by a maintainer of a project that uses it. Give the user Maintainer on one of those projects, or use another key`,
      );
    }
    // Enabling links the key without push access and keeps its title: set what the manifest says.
    const payload: Fields = {};
    if (desired["can_push"] === true) payload["can_push"] = true;
    if (desired["title"] !== undefined && desired["title"] !== enabled.title)
      payload["title"] = desired["title"];
    if (Object.keys(payload).length === 0) return toLive(enabled, false);
    return toLive(await put(ctx, parent, enabled.id, payload));
  },

  async update(ctx, parent, live, desired, changed) {
    const payload: Fields = {};
    for (const name of changed) if (name === "title" || name === "can_push") payload[name] = desired[name];
    return toLive(await put(ctx, parent, live.id!, payload));
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/deploy_keys/${live.id!}`}`);
  },
};
