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
import { isSecret, shownText, textOf } from "../manifest/secret.js";
import { body, createBody, ownerPath } from "./common.js";
import { type ApiObject, type Rest, restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, Live, Parent, ReadOptions } from "./kind.js";

/** A deploy key as the API shows it: the fields of its schema, and its id. */
type ApiKey = ApiObject & { id: number; title: string; key: string; can_push?: boolean };

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

/** A key as a live object; a key just enabled on a project may not say whether it can push (`canPush` then). */
const toLive = (rest: Rest, parent: Parent, k: ApiObject, canPush?: boolean, options?: ReadOptions): Live =>
  rest.toLive(parent, { ...k, can_push: k["can_push"] ?? canPush ?? false }, options);

/** Every deploy key of the instance by fingerprint (administrators only; undefined for anyone else). Read once. */
function instanceKeys(ctx: KindContext, rest: Rest): Promise<Map<string, ApiKey> | undefined> {
  const memoKey = "deploy_keys:instance";
  let p = ctx.memo.get(memoKey) as Promise<Map<string, ApiKey> | undefined> | undefined;
  if (!p) {
    p = ctx.api.list<ApiKey>("/deploy_keys", { shape: rest.shape() }).then(
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

async function existingKey(ctx: KindContext, rest: Rest, key: string): Promise<ApiKey | undefined> {
  return createdKeys(ctx).get(key) ?? (await instanceKeys(ctx, rest))?.get(key);
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

export const deployKeyKind = restCollection(
  {
    collection: "deploy_keys",
    segment: "deploy_key",
    parents: ["projects"],
    path: "deploy_keys",
    // Identified by the key's fingerprint, not its text (a comment or spacing does not make it another key).
    live: (_parent, k, live) => ({ ...live, key: fingerprint(String(k["key"])) }),
  },
  (rest) => ({
    // A key read from a file (`${file:...}`) is a Secret; its fingerprint, made to be shown, is still the identity.
    identity: (fields) => fingerprint(keyText(fields["key"])),

    async read(ctx, parent, _wanted, options) {
      const keys = (await rest.list(ctx, parent)) as ApiKey[];
      // Re-read after a create whose outcome was lost: a key found here was uploaded by this run.
      if (options?.fresh) for (const k of keys) createdKeys(ctx).set(fingerprint(k.key), k);
      return keys.map((k) => toLive(rest, parent, k, undefined, options));
    },

    async createReason(ctx, _parent, desired, key) {
      const found = await existingKey(ctx, rest, key);
      if (!found) return undefined;
      const title = desired["title"];
      const renamed =
        textOf(title) !== undefined && textOf(title) !== found.title
          ? `; its title belongs to the key, so it becomes "${shownText(title)}" for every project that uses it`
          : "";
      return `the key already exists on the platform (deploy key ${found.id}, "${found.title}"): it is enabled on this project, not uploaded again${renamed}`;
    },

    create(ctx, parent, desired, key) {
      return oneAtATime(ctx, key, () => createOrEnable(ctx, rest, parent, desired, key));
    },
  }),
);

async function createOrEnable(
  ctx: KindContext,
  rest: Rest,
  parent: Parent,
  desired: Fields,
  key: string,
): Promise<Live> {
  const found = await existingKey(ctx, rest, key);
  if (!found) {
    let created: ApiKey;
    try {
      created = (await rest.post(ctx, parent, createBody(desired, rest.schema().sent))) as ApiKey;
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
    const canPush = (desired["can_push"] as boolean | undefined) ?? false;
    return toLive(rest, parent, created, canPush, unchecked(desired));
  }
  let enabled: ApiKey;
  try {
    enabled = await ctx.api.post<ApiKey>(`${ownerPath(parent)}${apiPath`/deploy_keys/${found.id}/enable`}`, {
      shape: rest.shape(),
    });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    throw new Error(
      `deploy key ${found.id} ("${found.title}") already exists on the platform, but the token's user may not use it: the platform lets a key be enabled only by a maintainer of a project that uses it (or an administrator). Give the user Maintainer on one of those projects, or use another key`,
    );
  }
  // Enabling links the key without push access and keeps its title: set what the manifest says.
  const payload: Fields = createBody(desired, []);
  if (desired["can_push"] === true) payload["can_push"] = true;
  if (desired["title"] !== undefined && textOf(desired["title"]) !== enabled.title)
    payload["title"] = desired["title"];
  if (Object.keys(payload).length === 0) return toLive(rest, parent, enabled, false);
  const updated = await rest.put(ctx, parent, enabled.id, body(payload));
  return toLive(rest, parent, updated, undefined, unchecked(desired));
}
