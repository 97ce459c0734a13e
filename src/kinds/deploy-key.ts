/**
 * Deploy keys of a project, identified by the SHA256 fingerprint of the key (a comment or spacing in the manifest
 * does not make it another key). A key that already exists on the platform (on another project) is enabled on
 * this one rather than uploaded again: the administrator's instance list is read once per run to find it (without
 * administrator rights, the upload is left to the platform, which links a key the token's user can access). The
 * platform enables a key only for a maintainer of a project that already uses it; otherwise apply says so.
 * `title` and `can_push` are updated in place.
 */
import { createHash } from "node:crypto";
import { ApiError, apiPath, type Shape } from "../api/index.js";
import { isSecret, shownText, textOf } from "../manifest/secret.js";
import { body, ownerPath } from "./common.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

const KEY_SHAPE: Shape = { id: "integer", title: "string", key: "string", can_push: "boolean?" };

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

/** The SHA256 fingerprint of an OpenSSH public key (`SHA256:` and unpadded base64 of the digest of the blob). */
export function fingerprint(text: string): string {
  const blob = text.trim().split(/\s+/)[1];
  // Never shows the text: it may come from a secret. The loader rejects such keys before any plan is made.
  if (!blob) return "invalid key";
  return `SHA256:${createHash("sha256").update(Buffer.from(blob, "base64")).digest("base64").replace(/=+$/, "")}`;
}

const toLive = (k: ApiKey, canPush?: boolean): Live => ({
  key: fingerprint(k.key),
  id: k.id,
  fields: { title: k.title, key: k.key, can_push: k.can_push ?? canPush ?? false },
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

/** Keys this run created, by fingerprint: a key declared on several projects is uploaded once, then enabled. */
function createdKeys(ctx: KindContext): Map<string, ApiKey> {
  let created = ctx.memo.get("deploy_keys:created") as Map<string, ApiKey> | undefined;
  if (!created) {
    created = new Map();
    ctx.memo.set("deploy_keys:created", created);
  }
  return created;
}

async function existingKey(ctx: KindContext, key: string): Promise<ApiKey | undefined> {
  return createdKeys(ctx).get(key) ?? (await instanceKeys(ctx))?.get(key);
}

/**
 * Runs the creates of one key one after another: the first uploads it, the next ones (on other projects) find it
 * among the keys this run created and enable it.
 */
function oneAtATime<T>(ctx: KindContext, key: string, work: () => Promise<T>): Promise<T> {
  let locks = ctx.memo.get("deploy_keys:locks") as Map<string, Promise<unknown>> | undefined;
  if (!locks) {
    locks = new Map();
    ctx.memo.set("deploy_keys:locks", locks);
  }
  const previous = locks.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  locks.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

async function put(ctx: KindContext, parent: Parent, id: number | string, payload: Fields): Promise<ApiKey> {
  return ctx.api.put<ApiKey>(`${ownerPath(parent)}${apiPath`/deploy_keys/${id}`}`, {
    body: payload,
    shape: KEY_SHAPE,
  });
}

export const deployKeyKind: Kind = {
  collection: "deploy_keys",
  segment: "deploy_key",
  parents: ["projects"],
  updateMode: "update",

  // A key read from a file (`${file:...}`) is a Secret; its fingerprint, made to be shown, is still the identity.
  identity: (fields) => fingerprint(keyText(fields["key"])),

  async read(ctx, parent, _wanted, options) {
    const keys = await ctx.api.list<ApiKey>(`${ownerPath(parent)}/deploy_keys`, { shape: KEY_SHAPE });
    // Re-read after a create whose outcome was lost: a key found here was uploaded by this run.
    if (options?.fresh) for (const k of keys) createdKeys(ctx).set(fingerprint(k.key), k);
    return keys.map((k) => toLive(k));
  },

  async createReason(ctx, _parent, desired, key) {
    const found = await existingKey(ctx, key);
    if (!found) return undefined;
    const title = desired["title"];
    const renamed =
      textOf(title) !== undefined && textOf(title) !== found.title
        ? `; its title belongs to the key, so it becomes "${shownText(title)}" for every project that uses it`
        : "";
    return `the key already exists on the platform (deploy key ${found.id}, "${found.title}"): it is enabled on this project, not uploaded again${renamed}`;
  },

  create(ctx, parent, desired, key) {
    return oneAtATime(ctx, key, () => createOrEnable(ctx, parent, desired, key));
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

async function createOrEnable(ctx: KindContext, parent: Parent, desired: Fields, key: string): Promise<Live> {
  const found = await existingKey(ctx, key);
  if (!found) {
    let created: ApiKey;
    try {
      created = await ctx.api.post<ApiKey>(`${ownerPath(parent)}/deploy_keys`, {
        body: body(desired, ["title", "key", "can_push"]),
        shape: KEY_SHAPE,
      });
    } catch (error) {
      if (
        error instanceof ApiError &&
        error.status === 400 &&
        /fingerprint/.test(JSON.stringify(error.body))
      ) {
        throw new Error(
          "the key already exists on the platform, but the token's user may not use it: the platform lets a user add an existing key only when they maintain a project that uses it (administrators may enable any key). Give the user Maintainer on one of those projects, use an administrator token, or use another key",
        );
      }
      throw error;
    }
    createdKeys(ctx).set(key, created);
    return toLive(created, (desired["can_push"] as boolean | undefined) ?? false);
  }
  let enabled: ApiKey;
  try {
    enabled = await ctx.api.post<ApiKey>(`${ownerPath(parent)}${apiPath`/deploy_keys/${found.id}/enable`}`, {
      shape: KEY_SHAPE,
    });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    throw new Error(
      `deploy key ${found.id} ("${found.title}") already exists on the platform, but the token's user may not use it: the platform lets a key be enabled only by a maintainer of a project that uses it (or an administrator). Give the user Maintainer on one of those projects, or use another key`,
    );
  }
  // Enabling links the key without push access and keeps its title: set what the manifest says.
  const payload: Fields = {};
  if (desired["can_push"] === true) payload["can_push"] = true;
  if (desired["title"] !== undefined && textOf(desired["title"]) !== enabled.title)
    payload["title"] = desired["title"];
  if (Object.keys(payload).length === 0) return toLive(enabled, false);
  return toLive(await put(ctx, parent, enabled.id, payload));
}
