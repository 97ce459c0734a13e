import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, authorizeGroup, authorizeProject, findGroup, findProject, requireAuth } from "../auth.js";
import { HttpError, notFound, recordNotFound, rubyInspect } from "../errors.js";
import type { ParamSpec } from "../params.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import { type Store, tokenDigest } from "../store.js";
import { settingValue } from "./application-settings.js";
import { wellFormedRef } from "./deployments.js";
import { fixtureEntries, fixtureFlag, fixtureGroup, fixtureProject } from "./fixture-entries.js";
import { hookJson, urlErrors } from "./system-hooks.js";

/**
 * Project hooks and group hooks [licensed] (webhooks). The contract has no such area: the sandbox follows the
 * platform's 13.12 REST API (`lib/api/project_hooks.rb`, `ee/lib/api/group_hooks.rb`, `app/models/hooks/*.rb`).
 *
 * - `GET|POST /projects/:id/hooks`, `GET|PUT|DELETE /projects/:id/hooks/:hook_id`: a signed-in Maintainer
 *   (`authenticate!`, then `authorize_admin_project`): 401 without a token, `404 Project Not Found` for a project the
 *   caller cannot see, 403 below Maintainer — reading a hook needs Maintainer too. Same under `/groups/:id/hooks`
 *   for a group's Owner (`authorize! :admin_group`), licensed edition only (core: the catch-all 404).
 * - Identity is the `id`; clients match hooks by `url`. `url` is required on POST **and PUT**
 *   (`{"error":"url is missing"}`); PUT changes only what it is given.
 * - Event switches of 13.12: `push_events` (default **true**), `tag_push_events`, `merge_requests_events`,
 *   `issues_events`, `confidential_issues_events`, `note_events`, `confidential_note_events` (default **null**: the
 *   column has no default), `job_events`, `pipeline_events`, `wiki_page_events`, `deployment_events`,
 *   `releases_events` (default false), `subgroup_events` (groups only); `enable_ssl_verification` (default true);
 *   `push_events_branch_filter` (default null). `repository_update_events` is shown (false) and never set.
 *   Group hooks take `push_events_branch_filter` as project hooks do: the product calls for it and go-gitlab's
 *   `GroupHook` has it; 13.12's own group-hook parameter list could not be checked for it.
 * - `token` is write-only: accepted, never returned; only its SHA-256 is kept (`token_sha256`). An empty token
 *   clears it. A token with a line break is refused (`validates :token, format: { without: /\n/ }`).
 * - URL validation (`PublicUrlValidator`): blank, not http(s), or malformed; localhost and the local network are
 *   refused unless the instance setting `allow_local_requests_from_web_hooks_and_services` (default false) is on.
 *   Any URL error is 422 `{"error":"Invalid url given"}`.
 * - `push_events_branch_filter` (`BranchFilterValidator`, when not blank): with `*` read as a letter it must be a
 *   valid branch name, and at most 4000 characters. A project hook answers 422
 *   `{"error":"Invalid branch filter given"}`; any other model error of a project hook is the platform's
 *   `not_found!`: 404 `{"message":"404 Project hook {:token=>[\"is invalid\"]} Not Found"}`. A group hook answers
 *   422 `{"message":"Group hook {:push_events_branch_filter=>[...]}"}` for errors other than the URL's.
 * - A missing hook (or one of another project or group) is `{"message":"404 Not found"}` (`hooks.find`); a
 *   non-integer `hook_id` is 400 `{"error":"hook_id is invalid"}`. DELETE answers 204 and honours
 *   `If-Unmodified-Since` (412). Lists are paginated, oldest first.
 * - No test call in 13.12's API; the sandbox delivers nothing.
 *
 * Fixture keys `project_hooks` and `group_hooks` (licensed): lists of
 * `{ project: acme/api | group: acme, url, token?, push_events_branch_filter?, <event switches>?,
 * enable_ssl_verification? }` with the defaults of POST; local URLs are allowed there.
 */

/** Event switches every web hook has, in the order the platform's entities show them after the common ones. */
const EVENT_FLAGS = [
  "push_events",
  "tag_push_events",
  "merge_requests_events",
  "issues_events",
  "confidential_issues_events",
  "note_events",
  "confidential_note_events",
  "pipeline_events",
  "wiki_page_events",
  "deployment_events",
  "job_events",
  "releases_events",
  "subgroup_events",
] as const;

type EventFlag = (typeof EVENT_FLAGS)[number];

export interface WebHookRec {
  id: number;
  /** Exactly one of project_id and group_id is set. */
  project_id: number | null;
  group_id: number | null;
  url: string;
  created_at: string;
  updated_at: string;
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  issues_events: boolean;
  confidential_issues_events: boolean;
  note_events: boolean;
  /** Nullable column without a default: null until set. */
  confidential_note_events: boolean | null;
  pipeline_events: boolean;
  wiki_page_events: boolean;
  deployment_events: boolean;
  job_events: boolean;
  releases_events: boolean;
  subgroup_events: boolean;
  enable_ssl_verification: boolean;
  push_events_branch_filter: string | null;
  token_sha256: string | null;
}

interface WebHooksArea {
  hooks: WebHookRec[];
}

/** The switches each kind of hook takes (a project hook has no subgroup events). */
const FLAGS_OF = {
  project: EVENT_FLAGS.filter((f) => f !== "subgroup_events"),
  group: [...EVENT_FLAGS],
} as const;

type HookKind = keyof typeof FLAGS_OF;

/** The model's defaults (`web_hooks` columns). */
function defaultFlag(flag: EventFlag): boolean | null {
  if (flag === "push_events") return true;
  if (flag === "confidential_note_events") return null;
  return false;
}

/** `Entities::Hook` of a web hook: `repository_update_events` is a system hooks' switch, false here. */
function commonJson(h: WebHookRec): Record<string, unknown> {
  return hookJson({ ...h, repository_update_events: false });
}

/** `Entities::ProjectHook` (13.12). */
function projectHookJson(h: WebHookRec): Record<string, unknown> {
  return {
    ...commonJson(h),
    project_id: h.project_id,
    issues_events: h.issues_events,
    confidential_issues_events: h.confidential_issues_events,
    note_events: h.note_events,
    confidential_note_events: h.confidential_note_events,
    pipeline_events: h.pipeline_events,
    wiki_page_events: h.wiki_page_events,
    deployment_events: h.deployment_events,
    job_events: h.job_events,
    releases_events: h.releases_events,
    push_events_branch_filter: h.push_events_branch_filter,
  };
}

/** `EE::API::Entities::GroupHook` (13.12, with `subgroup_events` and the branch filter). */
function groupHookJson(h: WebHookRec): Record<string, unknown> {
  return {
    ...commonJson(h),
    group_id: h.group_id,
    issues_events: h.issues_events,
    confidential_issues_events: h.confidential_issues_events,
    note_events: h.note_events,
    confidential_note_events: h.confidential_note_events,
    pipeline_events: h.pipeline_events,
    wiki_page_events: h.wiki_page_events,
    job_events: h.job_events,
    deployment_events: h.deployment_events,
    releases_events: h.releases_events,
    subgroup_events: h.subgroup_events,
    push_events_branch_filter: h.push_events_branch_filter,
  };
}

/** `Gitlab::GitRefValidator.validate`: a name `git check-ref-format` accepts under `refs/heads/`. */
function validBranchName(name: string): boolean {
  if (name.startsWith("refs/heads/") || name.startsWith("refs/remotes/")) return false;
  return wellFormedRef(name, Number.POSITIVE_INFINITY);
}

/** The `WebHook` model's validations of what a request sets: errors by attribute, empty when valid. */
export function webHookErrors(
  fields: { url: string; token?: string | null; push_events_branch_filter?: string | null },
  allowLocalRequests: boolean,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const url = urlErrors(fields.url, allowLocalRequests);
  if (url.length > 0) errors["url"] = url;
  if (fields.token?.includes("\n")) errors["token"] = ["is invalid"];
  const filter = fields.push_events_branch_filter;
  if (filter && filter.trim() !== "") {
    const messages: string[] = [];
    if (!validBranchName(filter.replaceAll("*", "x"))) messages.push("is not a valid branch name");
    if (filter.length > 4000) messages.push("is longer than the allowed length of 4000 characters.");
    if (messages.length > 0) errors["push_events_branch_filter"] = messages;
  }
  return errors;
}

/** The instance setting `allow_local_requests_from_web_hooks_and_services` (default false). */
function allowLocal(store: Store): boolean {
  return settingValue(store, "allow_local_requests_from_web_hooks_and_services") === true;
}

/** The answer to a hook the model refuses, as each API presents it. */
function refusal(kind: HookKind, errors: Record<string, string[]>): HttpError {
  if (errors["url"]) return new HttpError(422, { error: "Invalid url given" });
  if (kind === "group") return new HttpError(422, { message: `Group hook ${rubyInspect(errors)}` });
  if (errors["push_events_branch_filter"])
    return new HttpError(422, { error: "Invalid branch filter given" });
  return notFound(`Project hook ${rubyInspect(errors)}`);
}

function paramSpec(kind: HookKind): Record<string, ParamSpec> {
  const spec: Record<string, ParamSpec> = {
    url: { type: "string", required: true },
    token: { type: "string" },
    push_events_branch_filter: { type: "string" },
    enable_ssl_verification: { type: "boolean" },
  };
  for (const flag of FLAGS_OF[kind]) spec[flag] = { type: "boolean" };
  return spec;
}

/** What POST and PUT set: only the parameters the request carried (`declared_params(include_missing: false)`). */
type HookInput = Partial<Record<EventFlag | "enable_ssl_verification", boolean>> & {
  url: string;
  token?: string;
  push_events_branch_filter?: string;
};

function applyInput(hook: WebHookRec, kind: HookKind, p: HookInput): void {
  hook.url = p.url.trim();
  for (const flag of FLAGS_OF[kind]) {
    const v = p[flag];
    if (v !== undefined) hook[flag] = v;
  }
  if (p.enable_ssl_verification !== undefined) hook.enable_ssl_verification = p.enable_ssl_verification;
  if (p.push_events_branch_filter !== undefined) hook.push_events_branch_filter = p.push_events_branch_filter;
  if (p.token !== undefined) hook.token_sha256 = p.token === "" ? null : tokenDigest(p.token);
}

function newHook(store: Store, owner: { project_id: number } | { group_id: number }): WebHookRec {
  const now = store.nowIso();
  const hook = {
    id: store.nextId("hooks"),
    project_id: "project_id" in owner ? owner.project_id : null,
    group_id: "group_id" in owner ? owner.group_id : null,
    url: "",
    created_at: now,
    updated_at: now,
    enable_ssl_verification: true,
    push_events_branch_filter: null,
    token_sha256: null,
  } as Partial<WebHookRec>;
  for (const flag of EVENT_FLAGS) (hook as Record<string, unknown>)[flag] = defaultFlag(flag);
  return hook as WebHookRec;
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<WebHooksArea>("web_hooks", () => ({ hooks: [] }));

  /** The hooks of one project or group, and how to reach them. */
  interface Scope {
    kind: HookKind;
    rows(): WebHookRec[];
    owner: { project_id: number } | { group_id: number };
    json(h: WebHookRec): Record<string, unknown>;
  }

  const projectScope = (ctx: Ctx): Scope => {
    requireAuth(ctx);
    const project = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, project, ACCESS.maintainer);
    return {
      kind: "project",
      rows: () => area().hooks.filter((h) => h.project_id === project.id),
      owner: { project_id: project.id },
      json: projectHookJson,
    };
  };

  const groupScope = (ctx: Ctx): Scope => {
    requireAuth(ctx);
    const group = findGroup(ctx, ctx.path["id"]!);
    authorizeGroup(ctx, group, ACCESS.owner);
    return {
      kind: "group",
      rows: () => area().hooks.filter((h) => h.group_id === group.id),
      owner: { group_id: group.id },
      json: groupHookJson,
    };
  };

  const findHook = (ctx: Ctx, scope: Scope): WebHookRec => {
    const id = ctx.declare({ hook_id: { type: "integer", required: true } }).hook_id;
    const hook = scope.rows().find((h) => h.id === id);
    if (!hook) throw recordNotFound();
    return hook;
  };

  const routes = (base: string, scopeOf: (ctx: Ctx) => Scope, licensed: boolean) => {
    const opts = { licensed };
    app.get(
      base,
      (ctx) => {
        const scope = scopeOf(ctx);
        return ctx.paginate(
          scope.rows().sort((a, b) => a.id - b.id),
          scope.json,
        );
      },
      opts,
    );

    app.get(
      `${base}/:hook_id`,
      (ctx) => {
        const scope = scopeOf(ctx);
        return scope.json(findHook(ctx, scope));
      },
      opts,
    );

    app.post(
      base,
      (ctx) => {
        const scope = scopeOf(ctx);
        const p = ctx.declare(paramSpec(scope.kind)) as HookInput;
        const errors = webHookErrors(p, allowLocal(ctx.store));
        if (Object.keys(errors).length > 0) throw refusal(scope.kind, errors);
        const hook = newHook(ctx.store, scope.owner);
        applyInput(hook, scope.kind, p);
        area().hooks.push(hook);
        return created(scope.json(hook));
      },
      opts,
    );

    app.put(
      `${base}/:hook_id`,
      (ctx) => {
        const scope = scopeOf(ctx);
        const p = ctx.declare({
          hook_id: { type: "integer", required: true },
          ...paramSpec(scope.kind),
        }) as HookInput & { hook_id: number };
        const hook = scope.rows().find((h) => h.id === p.hook_id);
        if (!hook) throw recordNotFound();
        const errors = webHookErrors(
          {
            url: p.url,
            token: p.token,
            push_events_branch_filter: p.push_events_branch_filter ?? hook.push_events_branch_filter,
          },
          allowLocal(ctx.store),
        );
        if (Object.keys(errors).length > 0) throw refusal(scope.kind, errors);
        applyInput(hook, scope.kind, p);
        hook.updated_at = ctx.store.nowIso();
        return scope.json(hook);
      },
      opts,
    );

    app.delete(
      `${base}/:hook_id`,
      (ctx) => {
        const hook = findHook(ctx, scopeOf(ctx));
        checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), hook.updated_at);
        const a = area();
        a.hooks = a.hooks.filter((h) => h.id !== hook.id);
        return noContent();
      },
      opts,
    );
  };

  routes("/projects/:id/hooks", projectScope, false);
  routes("/groups/:id/hooks", groupScope, true);

  const seed = (kind: HookKind) => (value: unknown, fx: { store: Store; source: string }) => {
    const key = `${kind}_hooks`;
    for (const entry of fixtureEntries(value, key, fx.source)) {
      if (kind === "group" && !app.licensed) {
        throw entry.fail("", "is a group hook, which only the licensed edition has");
      }
      const owner =
        kind === "project"
          ? { project_id: fixtureProject(fx.store, entry).id }
          : { group_id: fixtureGroup(fx.store, entry).id };
      const { e } = entry;
      for (const field of ["url", "token", "push_events_branch_filter"]) {
        if (e[field] !== undefined && e[field] !== null && typeof e[field] !== "string") {
          throw entry.fail(field, "must be a string");
        }
      }
      const input: HookInput = {
        url: typeof e["url"] === "string" ? e["url"] : "",
        ...(typeof e["token"] === "string" ? { token: e["token"] } : {}),
        ...(typeof e["push_events_branch_filter"] === "string"
          ? { push_events_branch_filter: e["push_events_branch_filter"] }
          : {}),
      };
      for (const flag of [...FLAGS_OF[kind], "enable_ssl_verification"] as const) {
        if (e[flag] !== undefined) input[flag] = fixtureFlag(entry, flag, false);
      }
      const errors = webHookErrors(input, true);
      for (const [field, messages] of Object.entries(errors)) throw entry.fail(field, messages.join(", "));
      const hook = newHook(fx.store, owner);
      applyInput(hook, kind, input);
      fx.store.area<WebHooksArea>("web_hooks", () => ({ hooks: [] })).hooks.push(hook);
    }
  };
  app.onFixture("project_hooks", seed("project"));
  app.onFixture("group_hooks", seed("group"));
}
