import { createHash } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { requireAdmin } from "../auth.js";
import { notFound, recordNotFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { Store } from "../store.js";
import { settingValue } from "./application-settings.js";

/**
 * System hooks (contract "System hooks"; platform-behavior §3.6, the 12.x/13.x interface). Administrators only.
 *
 * - `GET /hooks` lists hooks (paginated); `POST /hooks` creates one and answers 201 with the hook **object**.
 *   The contract's table says "array with the hook", but the platform presents a single `Hook` entity
 *   (`present hook, with: Entities::Hook`) and every client (python-gitlab's `gl.hooks.create`) expects an object,
 *   so the sandbox returns the object.
 * - `repository_update_events` is accepted on create because the contract lists it as an input (§3.6 notes the
 *   13.x platform ignores it there; the contract wins).
 * - `GET /hooks/:id` is the platform's TEST call: it "executes" the hook with a fixed sample payload and returns the
 *   payload. The sandbox makes no network call; it appends a delivery to its log (the last {@link MAX_DELIVERIES}
 *   are kept), visible in `GET /-/sandbox/state` (`areas.system_hooks.deliveries`) and in
 *   `GET /-/sandbox/system_hooks/deliveries` (administrators only).
 * - The secret `token` is never returned. Only its SHA-256 is kept (`token_sha256`), so neither the state file nor
 *   the debug endpoints hold it; a test can still check which token was set by hashing it.
 * - No PUT in 12.x/13.x: the router answers 405 for `PUT /hooks/:id`.
 * - With the instance setting `allow_local_requests_from_system_hooks` off, URLs pointing at localhost or the local
 *   network are refused (`{"message":{"url":["is blocked: Requests to localhost are not allowed"]}}`).
 */

export interface SystemHookRec {
  id: number;
  url: string;
  created_at: string;
  updated_at: string;
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  repository_update_events: boolean;
  enable_ssl_verification: boolean;
  token_sha256: string | null;
}

export interface SystemHookDelivery {
  id: number;
  hook_id: number;
  url: string;
  event_name: string;
  /** Whether the delivery carried the hook's secret token (`X-Gitlab-Token`). */
  token_sent: boolean;
  enable_ssl_verification: boolean;
  payload: Record<string, unknown>;
  delivered_at: string;
}

interface SystemHooksArea {
  hooks: SystemHookRec[];
  deliveries: SystemHookDelivery[];
}

export const MAX_DELIVERIES = 100;

/** The payload of the test call ([11.8]/[13.x] `lib/api/system_hooks.rb`). */
export const SAMPLE_PAYLOAD = {
  event_name: "project_create",
  name: "Ruby",
  path: "ruby",
  project_id: 1,
  owner_name: "Someone",
  owner_email: "example@gitlabhq.com",
} as const;

/** `Entities::Hook`: the fields every kind of hook shows (system, project and group hooks). */
export function hookJson(
  h: Pick<
    SystemHookRec,
    | "id"
    | "url"
    | "created_at"
    | "push_events"
    | "tag_push_events"
    | "merge_requests_events"
    | "repository_update_events"
    | "enable_ssl_verification"
  >,
): Record<string, unknown> {
  return {
    id: h.id,
    url: h.url,
    created_at: h.created_at,
    push_events: h.push_events,
    tag_push_events: h.tag_push_events,
    merge_requests_events: h.merge_requests_events,
    repository_update_events: h.repository_update_events,
    enable_ssl_verification: h.enable_ssl_verification,
  };
}

/** Where a host points when it is local: `localhost`, `local network`, `link local network`, or undefined. */
export function localTarget(hostname: string): string | undefined {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1" || h === "0.0.0.0" || /^127\./.test(h)) {
    return "localhost";
  }
  if (/^169\.254\./.test(h) || /^fe80:/.test(h)) return "link local network";
  if (
    /^10\./.test(h) ||
    /^192\.168\./.test(h) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(h) ||
    /^f[cd][0-9a-f]{2}:/.test(h)
  ) {
    return "local network";
  }
  return undefined;
}

/** The instance setting `allow_local_requests_from_system_hooks` (default true). */
function allowLocal(store: Store): boolean {
  return settingValue(store, "allow_local_requests_from_system_hooks") !== false;
}

/**
 * The model's URL validation (`presence`, then the URL blocker: scheme and syntax, and local targets unless the
 * instance allows local requests from system hooks).
 */
export function urlErrors(url: string, allowLocalRequests: boolean): string[] {
  if (url.trim() === "") return ["can't be blank"];
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return ["is blocked: URI is invalid"];
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return ["is blocked: Only allowed schemes are http, https"];
  }
  if (!parsed.hostname) return ["is blocked: URI is invalid"];
  const local = allowLocalRequests ? undefined : localTarget(parsed.hostname);
  if (local)
    return [
      `is blocked: Requests to ${local === "localhost" ? "localhost" : `the ${local}`} are not allowed`,
    ];
  return [];
}

/** `requires :id, type: Integer`: a non-integer id is 400 `{"error":"id is invalid"}`. */
function hookId(ctx: Ctx): number {
  return ctx.declare({ id: { type: "integer", required: true } }).id;
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<SystemHooksArea>("system_hooks", () => ({ hooks: [], deliveries: [] }));

  // Fixture key `system_hooks`: [{ url, token?, push_events?, tag_push_events?, merge_requests_events?,
  // repository_update_events?, enable_ssl_verification? }], with the same defaults as POST /hooks.
  app.onFixture("system_hooks", (value, fx) => {
    if (!Array.isArray(value))
      throw new FixtureError(`sandbox: fixture ${fx.source}: system_hooks must be a list`);
    const flag = (v: unknown, fallback: boolean) => (typeof v === "boolean" ? v : fallback);
    for (const [i, raw] of value.entries()) {
      const h = (raw ?? {}) as Record<string, unknown>;
      if (typeof h["url"] !== "string" || urlErrors(h["url"], true).length > 0) {
        throw new FixtureError(
          `sandbox: fixture ${fx.source}: system_hooks[${i}].url must be an http(s) URL`,
        );
      }
      const now = fx.store.nowIso();
      area().hooks.push({
        id: fx.store.nextId("hooks"),
        url: h["url"].trim(),
        created_at: now,
        updated_at: now,
        push_events: flag(h["push_events"], false),
        tag_push_events: flag(h["tag_push_events"], false),
        merge_requests_events: flag(h["merge_requests_events"], false),
        repository_update_events: flag(h["repository_update_events"], true),
        enable_ssl_verification: flag(h["enable_ssl_verification"], true),
        token_sha256:
          typeof h["token"] === "string" ? createHash("sha256").update(h["token"]).digest("hex") : null,
      });
    }
  });

  app.get("/hooks", (ctx) => {
    requireAdmin(ctx);
    return ctx.paginate(
      [...area().hooks].sort((a, b) => a.id - b.id),
      hookJson,
    );
  });

  app.post("/hooks", (ctx) => {
    requireAdmin(ctx);
    const p = ctx.declare({
      url: { type: "string", required: true },
      token: { type: "string" },
      push_events: { type: "boolean" },
      tag_push_events: { type: "boolean" },
      merge_requests_events: { type: "boolean" },
      repository_update_events: { type: "boolean" },
      enable_ssl_verification: { type: "boolean" },
    });
    const errors = urlErrors(p.url, allowLocal(ctx.store));
    if (errors.length > 0) throw validation({ url: errors });
    const now = ctx.store.nowIso();
    const hook: SystemHookRec = {
      id: ctx.store.nextId("hooks"),
      url: p.url.trim(),
      created_at: now,
      updated_at: now,
      // SystemHook's model defaults (`default_value_for`): push off, repository updates on; SSL verification on.
      push_events: p.push_events ?? false,
      tag_push_events: p.tag_push_events ?? false,
      merge_requests_events: p.merge_requests_events ?? false,
      repository_update_events: p.repository_update_events ?? true,
      enable_ssl_verification: p.enable_ssl_verification ?? true,
      token_sha256: p.token ? createHash("sha256").update(p.token).digest("hex") : null,
    };
    area().hooks.push(hook);
    return created(hookJson(hook));
  });

  // The test call: executes the hook with the sample payload and returns it.
  app.get("/hooks/:id", (ctx) => {
    requireAdmin(ctx);
    const id = hookId(ctx);
    const hook = area().hooks.find((h) => h.id === id);
    if (!hook) throw recordNotFound();
    const a = area();
    a.deliveries.push({
      id: ctx.store.nextId("system_hook_deliveries"),
      hook_id: hook.id,
      url: hook.url,
      event_name: SAMPLE_PAYLOAD.event_name,
      token_sent: hook.token_sha256 !== null,
      enable_ssl_verification: hook.enable_ssl_verification,
      payload: { ...SAMPLE_PAYLOAD },
      delivered_at: ctx.store.nowIso(),
    });
    if (a.deliveries.length > MAX_DELIVERIES) a.deliveries.splice(0, a.deliveries.length - MAX_DELIVERIES);
    return { ...SAMPLE_PAYLOAD };
  });

  app.delete("/hooks/:id", (ctx) => {
    requireAdmin(ctx);
    const id = hookId(ctx);
    const a = area();
    const hook = a.hooks.find((h) => h.id === id);
    if (!hook) throw notFound("System hook");
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), hook.updated_at);
    a.hooks = a.hooks.filter((h) => h.id !== hook.id);
    return noContent();
  });

  // Sandbox-only: the deliveries the test call recorded, oldest first.
  app.get(
    "/-/sandbox/system_hooks/deliveries",
    (ctx) => {
      requireAdmin(ctx);
      return area().deliveries;
    },
    { mount: "root" },
  );
}
