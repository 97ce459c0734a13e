import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
  requireAdmin,
  requireAuth,
} from "../auth.js";
import { badRequest, forbidden, recordNotFound } from "../errors.js";
import { created, noContent } from "../respond.js";
import { randomToken, type Store, tokenDigest } from "../store.js";
import {
  type FixtureEntry,
  fixtureEntries,
  fixtureFlag,
  fixtureGroup,
  fixtureProject,
} from "./fixture-entries.js";

/**
 * Deploy tokens of projects and groups. The contract has no such area: the sandbox follows the platform's 13.12
 * REST API (`lib/api/deploy_tokens.rb`, `app/models/deploy_token.rb`, `doc/api/deploy_tokens.md` of 13.12).
 *
 * - `GET /deploy_tokens` lists every token of the instance, for administrators only (401 without a token, 403 for
 *   a user). `GET|POST /projects/:id/deploy_tokens`, `DELETE /projects/:id/deploy_tokens/:token_id` need Maintainer
 *   on the project; the same under `/groups/:id/...` need Maintainer on the group (13.12's documentation: "group
 *   maintainer access or higher"). A project or group the caller cannot see is 404; below Maintainer 403; a group
 *   route without a token 401, a project route 403 (`authorize!` in a `before` block, without `authenticate!`).
 *   13.12 has no `GET .../deploy_tokens/:token_id` (added in 14.9): the router answers 405.
 * - POST: `name` (required), `scopes` (required: an array or a comma-separated string of `read_repository`,
 *   `read_registry`, `write_registry`, `read_package_registry`, `write_package_registry`; another value is 400
 *   `{"error":"scopes does not have a valid value"}`), `expires_at` (a datetime, optional; a past one is accepted
 *   and makes a token that is expired at once), `username` (optional, default `gitlab+deploy-token-{id}`).
 *   Model failures are 400 with the messages as one sentence: `{"message":"Scopes can't be blank"}` (an empty
 *   list), `Username can contain only letters, digits, '_', '-', '+', and '.'`, `Username is too long (maximum is
 *   255 characters)`. The answer is 201 with the token's fields and `token`: the only time the token is shown.
 *   Only its SHA-256 is kept.
 * - Entity (13.12): `id`, `name`, `username`, `expires_at` (null when it never expires), `scopes` (in the order
 *   above). 13.12 shows neither `revoked` nor `expired` (both came with 14.9) and lists revoked and expired tokens
 *   with the others, oldest first (the platform's interface gives no way to tell a revoked one; an expired one has
 *   its `expires_at` in the past — "expired" means before today's midnight UTC, as `expires_at < Date.today`).
 * - DELETE removes the token (204, through the destroy service: no `If-Unmodified-Since`); a token of another
 *   project or group, or none, is `{"message":"404 Not found"}`.
 *
 * Fixture key `deploy_tokens` (a list): `{ project: acme/api | group: acme, name, scopes: [read_repository],
 * username?, expires_at?, revoked?: true, token? }` — `token` (20 or more characters) to know it in tests; a
 * revoked token or one whose `expires_at` is past seeds the states the UI shows and 13.12's API does not.
 */

export const DEPLOY_TOKEN_SCOPES = [
  "read_repository",
  "read_registry",
  "write_registry",
  "read_package_registry",
  "write_package_registry",
] as const;

export interface DeployTokenRec {
  id: number;
  /** Exactly one of project_id and group_id is set. */
  project_id: number | null;
  group_id: number | null;
  name: string;
  /** null: the default `gitlab+deploy-token-{id}`. */
  username: string | null;
  expires_at: string | null;
  scopes: string[];
  revoked: boolean;
  created_at: string;
  token_sha256: string;
}

interface DeployTokensArea {
  tokens: DeployTokenRec[];
}

function tokenJson(t: DeployTokenRec): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    username: t.username ?? `gitlab+deploy-token-${t.id}`,
    expires_at: t.expires_at,
    scopes: DEPLOY_TOKEN_SCOPES.filter((s) => t.scopes.includes(s)),
  };
}

/** The model's validations: full messages (`errors.full_messages`). */
function tokenErrors(scopes: readonly string[], username: string | null): string[] {
  const errors: string[] = [];
  if (username !== null) {
    if (username.length > 255) errors.push("Username is too long (maximum is 255 characters)");
    if (!/^[a-zA-Z0-9.+_-]+$/.test(username)) {
      errors.push("Username can contain only letters, digits, '_', '-', '+', and '.'");
    }
  }
  if (scopes.length === 0) errors.push("Scopes can't be blank");
  return errors;
}

/** Rails' `Array#to_sentence`: "a", "a and b", "a, b, and c". */
function toSentence(items: string[]): string {
  if (items.length <= 2) return items.join(" and ");
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<DeployTokensArea>("deploy_tokens", () => ({ tokens: [] }));

  type Owner = { project_id: number } | { group_id: number };

  const rowsOf = (owner: Owner) =>
    area()
      .tokens.filter((t) =>
        "project_id" in owner ? t.project_id === owner.project_id : t.group_id === owner.group_id,
      )
      .sort((a, b) => a.id - b.id);

  /** A project's tokens: Maintainer, checked before the parameters (`before { authorize! ... }`). */
  const projectOwner = (ctx: Ctx): Owner => {
    const project = findProject(ctx, ctx.path["id"]!);
    if (effectiveProjectLevel(ctx.store, ctx.user, project) < ACCESS.maintainer) throw forbidden();
    return { project_id: project.id };
  };

  /** A group's tokens: signed in (`before { authenticate! }`), then Maintainer. */
  const groupOwner = (ctx: Ctx): Owner => {
    requireAuth(ctx);
    const group = findGroup(ctx, ctx.path["id"]!);
    if (effectiveGroupLevel(ctx.store, ctx.user, group) < ACCESS.maintainer) throw forbidden();
    return { group_id: group.id };
  };

  const create = (
    store: Store,
    owner: Owner,
    input: Omit<DeployTokenRec, "id" | "project_id" | "group_id" | "created_at" | "token_sha256">,
    token: string,
  ): DeployTokenRec => {
    const row: DeployTokenRec = {
      id: store.nextId("deploy_tokens"),
      project_id: "project_id" in owner ? owner.project_id : null,
      group_id: "group_id" in owner ? owner.group_id : null,
      ...input,
      created_at: store.nowIso(),
      token_sha256: tokenDigest(token),
    };
    store.area<DeployTokensArea>("deploy_tokens", () => ({ tokens: [] })).tokens.push(row);
    return row;
  };

  app.get("/deploy_tokens", (ctx) => {
    requireAdmin(ctx);
    return ctx.paginate(
      [...area().tokens].sort((a, b) => a.id - b.id),
      tokenJson,
    );
  });

  for (const [base, ownerOf] of [
    ["/projects/:id/deploy_tokens", projectOwner],
    ["/groups/:id/deploy_tokens", groupOwner],
  ] as const) {
    app.get(base, (ctx) => ctx.paginate(rowsOf(ownerOf(ctx)), tokenJson));

    app.post(base, (ctx) => {
      const owner = ownerOf(ctx);
      const p = ctx.declare({
        name: { type: "string", required: true },
        scopes: { type: "string[]", required: true, split: true, values: DEPLOY_TOKEN_SCOPES },
        expires_at: { type: "datetime" },
        username: { type: "string" },
      });
      const username = p.username === undefined || p.username === "" ? null : p.username;
      const errors = tokenErrors(p.scopes, username);
      if (errors.length > 0) throw badRequest(toSentence(errors));
      const token = randomToken(20);
      const row = create(
        ctx.store,
        owner,
        {
          name: p.name,
          username,
          expires_at: p.expires_at ?? null,
          scopes: [...new Set(p.scopes)],
          revoked: false,
        },
        token,
      );
      return created({ ...tokenJson(row), token });
    });

    app.delete(`${base}/:token_id`, (ctx) => {
      const owner = ownerOf(ctx);
      const { token_id } = ctx.declare({ token_id: { type: "integer", required: true } });
      const row = rowsOf(owner).find((t) => t.id === token_id);
      if (!row) throw recordNotFound();
      const a = area();
      a.tokens = a.tokens.filter((t) => t.id !== row.id);
      return noContent();
    });
  }

  const fixtureString = (entry: FixtureEntry, field: string): string | undefined => {
    const v = entry.e[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw entry.fail(field, "must be a string");
    return v;
  };

  app.onFixture("deploy_tokens", (value, { store, source }) => {
    for (const entry of fixtureEntries(value, "deploy_tokens", source)) {
      const owner: Owner =
        entry.e["project"] !== undefined
          ? { project_id: fixtureProject(store, entry).id }
          : { group_id: fixtureGroup(store, entry).id };
      const name = fixtureString(entry, "name");
      if (name === undefined) throw entry.fail("name", "is required");
      const scopes = entry.e["scopes"];
      if (
        !Array.isArray(scopes) ||
        !scopes.every((s) => (DEPLOY_TOKEN_SCOPES as readonly unknown[]).includes(s))
      ) {
        throw entry.fail("scopes", `must be a list of ${DEPLOY_TOKEN_SCOPES.join(", ")}`);
      }
      const username = fixtureString(entry, "username") ?? null;
      const errors = tokenErrors(scopes as string[], username);
      if (errors.length > 0) throw entry.fail("", toSentence(errors));
      const rawExpiry = entry.e["expires_at"];
      let expiresAt: string | null = null;
      if (rawExpiry !== undefined && rawExpiry !== null) {
        const d = rawExpiry instanceof Date ? rawExpiry : new Date(String(rawExpiry));
        if (Number.isNaN(d.getTime())) throw entry.fail("expires_at", "must be a date or a datetime");
        expiresAt = d.toISOString();
      }
      const token = fixtureString(entry, "token") ?? randomToken(20);
      if (token.length < 20) throw entry.fail("token", "must have 20 characters or more");
      create(
        store,
        owner,
        {
          name,
          username,
          expires_at: expiresAt,
          scopes: [...new Set(scopes as string[])],
          revoked: fixtureFlag(entry, "revoked", false),
        },
        token,
      );
    }
  });
}
