import type { IncomingHttpHeaders } from "node:http";
import { forbidden, HttpError, paramError, unauthorized } from "./errors.js";
import { type Declared, type DeclareRules, declare, type ParamSpec } from "./params.js";
import { isUploadedFile, type ParamHash, type ParamValue, type SandboxRequest } from "./request.js";
import { paginate, Reply } from "./respond.js";
import { type Match, type Mount, Router } from "./router.js";
import type { GroupRec, Store, UserRec } from "./store.js";

export type Edition = "licensed" | "core";

/** Everything a route handler gets. */
export interface Ctx {
  readonly app: SandboxApp;
  readonly store: Store;
  readonly req: SandboxRequest;
  /** Path parameters, URL-decoded (`:id` of `/groups/:id`). */
  readonly path: Record<string, string>;
  /** All parameters merged as the platform does: query, then body, then path parameters. */
  readonly params: ParamHash;
  /** The authenticated user, or `null` for a guest. */
  readonly user: UserRec | null;
  readonly isAdmin: boolean;
  /** `http://host:port` from the Host header (or the configured override), for web_url and Link. */
  readonly baseUrl: string;
  /** True on the licensed edition. */
  readonly licensed: boolean;
  /** Validates and coerces parameters (see params.ts); throws the platform's 400. */
  declare<const S extends Record<string, ParamSpec>>(spec: S, rules?: DeclareRules): Declared<S>;
  /** True when the request carried this parameter (even with an empty value). */
  has(name: string): boolean;
  /** Offset-paginates a full list with the platform's headers. */
  paginate<T>(items: readonly T[], map?: (item: T) => unknown): Reply;
  /** What the route's `prepare` returned (see {@link RouteOptions.prepare}); undefined without one. */
  readonly prepared: unknown;
}

export type Handler = (ctx: Ctx) => unknown | Promise<unknown>;

export interface RouteOptions {
  /** Exists only on the licensed edition; on core the route is absent (`{"error":"404 Not Found"}`). */
  licensed?: boolean;
  /** `rest` (default, `/api/v4`), `scim` (`/api/scim/v2`) or `root` (no prefix). */
  mount?: Mount;
  /**
   * `token` (default on rest/root): the PRIVATE-TOKEN / Bearer token is resolved before the handler and an
   * unknown token is a 401. `none` (default on scim): the handler does its own authentication.
   */
  auth?: "token" | "none";
  /**
   * Long work a write does before its turn: writes run one at a time, each saved before the next starts (see
   * {@link SandboxApp.handle}), so reading and checking a large upload here, in steps that let other requests in,
   * holds up neither reads nor other writes. It gets the same context as the handler, must not change the state,
   * and what it returns is the handler's `ctx.prepared`. Its HttpErrors are the answer, as the handler's are.
   */
  prepare?: (ctx: Ctx) => Promise<unknown>;
}

/**
 * Runs a write's handler, and what must follow it before any other write starts (saving the state), while no
 * other write runs. The server provides it; without one the handler simply runs.
 */
export type Exclusive = (run: () => Promise<Reply>) => Promise<Reply>;

interface RouteEntry {
  handler: Handler;
  options: RouteOptions;
}

/** Context given to fixture hooks. */
export interface FixtureContext {
  store: Store;
  /** The fixture's file name (or `<inline>`), for error messages. */
  source: string;
}

export type FixtureHook = (value: unknown, fx: FixtureContext) => void;

/**
 * A table a group export carries, as `tree/groups/<id>/<name>.ndjson` (one JSON object a line; see
 * routes/group-import-export.ts). `T` is what `read` makes of a row.
 */
export interface GroupExportRelation<T = unknown> {
  /** The group's rows, in the platform's attribute names. */
  rows(store: Store, group: GroupRec): Record<string, unknown>[];
  /** Reads one row of an archive being imported; throws an Error saying what is wrong with it. */
  read(row: Record<string, unknown>): T;
  /**
   * Stores the rows of an archive in a group the import has just created (so it holds nothing yet: a check of what
   * the group already has needs only the rows restored here). Rows the model refuses are left out: the platform logs
   * them as import failures and goes on. It runs in one go with the rest of the import; its work should grow with
   * `rows`, not with the state's size.
   */
  restore(store: Store, group: GroupRec, rows: T[], importer: UserRec): void;
}

/** Whether a credential a route module accepts is one it knows (`path` is the request's, mount prefix included). */
export type CredentialCheck = (value: string, path: string) => boolean;

/** What a request's credentials are, judged from its headers and query alone: `none`, all `known`, or not. */
export type CredentialStatus = "none" | "known" | "unknown";

export interface AppSettings {
  edition: Edition;
  /** Rows above which pagination omits counts. */
  countLimit: number;
  /** Replaces the Host header when building URLs (`host:port`). */
  baseUrlHost?: string;
}

/** A coerced parameter value as Rails `to_query` writes it, or `undefined` for values links leave out. */
function linkValue(v: unknown): ParamValue | undefined {
  if (v === undefined || isUploadedFile(v)) return undefined;
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  if (typeof v === "string" || v === null) return v;
  if (Array.isArray(v))
    return v.map((x) => (typeof x === "object" && x !== null ? (x as ParamValue) : String(x)));
  if (typeof v === "object") return v as ParamValue;
  return undefined;
}

/**
 * The application route modules register on. See src/sandbox/README.md.
 */
export class SandboxApp {
  readonly router = new Router<RouteEntry>();
  readonly fixtureHooks = new Map<string, FixtureHook>();
  readonly groupExportRelations = new Map<string, GroupExportRelation>();
  readonly #credentialChecks: Record<"bearer" | "job", CredentialCheck[]> = { bearer: [], job: [] };
  readonly store: Store;
  readonly settings: AppSettings;

  constructor(store: Store, settings: AppSettings) {
    this.store = store;
    this.settings = settings;
  }

  get edition(): Edition {
    return this.settings.edition;
  }

  get licensed(): boolean {
    return this.settings.edition === "licensed";
  }

  route(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.router.add(method, options.mount ?? "rest", pattern, { handler, options });
  }

  get(pattern: string, handler: Handler, options?: RouteOptions): void {
    this.route("GET", pattern, handler, options);
  }

  post(pattern: string, handler: Handler, options?: RouteOptions): void {
    this.route("POST", pattern, handler, options);
  }

  put(pattern: string, handler: Handler, options?: RouteOptions): void {
    this.route("PUT", pattern, handler, options);
  }

  patch(pattern: string, handler: Handler, options?: RouteOptions): void {
    this.route("PATCH", pattern, handler, options);
  }

  delete(pattern: string, handler: Handler, options?: RouteOptions): void {
    this.route("DELETE", pattern, handler, options);
  }

  /** Lets a route module read its own top-level key of the fixture file. */
  onFixture(key: string, fn: FixtureHook): void {
    if (this.fixtureHooks.has(key)) throw new Error(`sandbox: fixture key "${key}" has two handlers`);
    this.fixtureHooks.set(key, fn);
  }

  /** Lets a route module put its table of a group into the group's export archive, and back on import. */
  onGroupExport<T>(relation: string, r: GroupExportRelation<T>): void {
    if (this.groupExportRelations.has(relation)) {
      throw new Error(`sandbox: group export relation "${relation}" has two handlers`);
    }
    this.groupExportRelations.set(relation, r as GroupExportRelation);
  }

  /**
   * Lets a route module accept a credential of its own: a `bearer` token other than a personal token (a SCIM
   * token) or a `job` token (`JOB-TOKEN` / `job_token`). Used by {@link credentialsOf}, before a body is read.
   */
  acceptCredential(kind: "bearer" | "job", check: CredentialCheck): void {
    this.#credentialChecks[kind].push(check);
  }

  /**
   * Every credential the request carries in its headers or query (`PRIVATE-TOKEN`, `Authorization`,
   * `private_token`, `access_token`, `JOB-TOKEN`, `job_token`), checked before its body is read: `known` when
   * there is at least one and each is a token of this sandbox (an active user's token, or one a route module
   * accepts), `unknown` when any is not, `none` without any.
   */
  credentialsOf(headers: IncomingHttpHeaders, rawQuery: string, path: string): CredentialStatus {
    const header = (name: string) => {
      const v = headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const query = new URLSearchParams(rawQuery);
    const userToken = (t: string) => {
      const user = this.store.userByToken(t);
      return user !== undefined && user.state !== "blocked";
    };
    const accepted = (kind: "bearer" | "job", t: string) =>
      this.#credentialChecks[kind].some((check) => check(t, path));
    const verdicts: boolean[] = [];
    const privateToken = header("private-token");
    if (privateToken) verdicts.push(userToken(privateToken));
    const auth = header("authorization");
    if (auth) {
      const bearer = /^bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
      verdicts.push(bearer !== undefined && (userToken(bearer) || accepted("bearer", bearer)));
    }
    for (const name of ["private_token", "access_token"]) {
      const value = query.get(name);
      if (value) verdicts.push(userToken(value));
    }
    const job = header("job-token") || query.get("job_token");
    if (job) verdicts.push(accepted("job", job));
    if (verdicts.length === 0) return "none";
    return verdicts.every(Boolean) ? "known" : "unknown";
  }

  /** The request's token, from PRIVATE-TOKEN, `Authorization: Bearer`, `private_token` or `access_token`. */
  static tokenOf(req: SandboxRequest): string | undefined {
    const header = req.header("private-token");
    if (header) return header;
    const auth = req.header("authorization");
    if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim();
    const q = req.query["private_token"] ?? req.query["access_token"];
    if (typeof q === "string" && q) return q;
    const b = req.body["private_token"] ?? req.body["access_token"];
    if (typeof b === "string" && b) return b;
    return undefined;
  }

  /**
   * The caller (`find_current_user!` and `sudo!` of the platform's API helpers): the token's user, or null for a
   * guest. `sudo` (a parameter in the query, form, JSON or multipart body, else the `Sudo` header; an id or a
   * username) makes an administrator act as that user: 401 without a token, 403 `Must be admin to use sudo` for
   * anyone else, 404 `User with ID or username '<x>' Not Found` for no such user.
   */
  private authenticate(req: SandboxRequest): UserRec | null {
    const token = SandboxApp.tokenOf(req);
    const user = token === undefined ? null : (this.store.userByToken(token) ?? null);
    if (token !== undefined && !user) throw unauthorized();
    if (user?.state === "blocked") throw forbidden("Your account has been blocked.");
    // `params[:sudo] || env["HTTP_SUDO"]`: a parameter first (the body's over the query's, as Rack merges them),
    // and an empty value counts as given, as it does in Ruby.
    const param = req.body["sudo"] ?? req.query["sudo"];
    const sudo = param === undefined || param === null || param === false ? req.header("sudo") : param;
    if (sudo === undefined) return user;
    if (!user) throw unauthorized();
    if (!user.admin) throw forbidden("Must be admin to use sudo");
    if (typeof sudo !== "string" && !Number.isSafeInteger(sudo)) throw paramError("sudo is invalid");
    const ref = String(sudo);
    const target = this.store.userByIdOrUsername(ref);
    if (!target) throw new HttpError(404, { message: `404 User with ID or username '${ref}' Not Found` });
    return target;
  }

  /** The handler's context for a matched route: the caller is authenticated here (401/403/404 as HttpErrors). */
  #context(req: SandboxRequest, match: Match<RouteEntry>, prepared: unknown): Ctx {
    const { options } = match.route.handler;
    const mount = options.mount ?? "rest";
    const authMode = options.auth ?? (mount === "scim" ? "none" : "token");
    const user = authMode === "token" ? this.authenticate(req) : null;
    const params: ParamHash = { ...req.query, ...req.body, ...match.params };
    const host = this.settings.baseUrlHost ?? req.header("host") ?? "localhost";
    const baseUrl = `http://${host}`;
    const linkParams: ParamHash = { ...req.query, ...match.params };
    return {
      app: this,
      store: this.store,
      req,
      path: match.params,
      params,
      user,
      isAdmin: user?.admin === true,
      baseUrl,
      licensed: this.licensed,
      prepared,
      declare: (spec, rules) => {
        const out = declare(params, spec, rules);
        // Like Grape, validation leaves coerced values and defaults in the params that Link URLs repeat.
        for (const [k, v] of Object.entries(out as Record<string, unknown>)) {
          const lv = linkValue(v);
          if (lv !== undefined) linkParams[k] = lv;
        }
        return out;
      },
      has: (name) => Object.hasOwn(params, name),
      paginate: (items, map) =>
        paginate(
          items,
          { baseUrl, path: req.path, linkParams, page: params["page"], perPage: params["per_page"] },
          { countLimit: this.settings.countLimit },
          map as ((item: unknown) => unknown) | undefined,
        ),
    };
  }

  /**
   * Handles one parsed request. Errors thrown by handlers become their responses. The route's `prepare` runs first;
   * the handler then runs through `exclusive` (the server passes one for writes, which runs them one at a time and
   * saves the state after each): an HttpError is the answer, any other error leaves through `exclusive` as thrown.
   */
  async handle(req: SandboxRequest, exclusive: Exclusive = (run) => run()): Promise<Reply> {
    const answer = (error: unknown): Reply => {
      if (error instanceof HttpError) return new Reply(error.status, error.body, error.headers);
      throw error;
    };
    let match: Match<RouteEntry>;
    let prepared: unknown;
    try {
      match = this.router.match(req.method, req.path, (r) => !r.handler.options.licensed || this.licensed);
      const { prepare } = match.route.handler.options;
      if (prepare) prepared = await prepare(this.#context(req, match, undefined));
    } catch (error) {
      return answer(error);
    }
    return exclusive(async () => {
      try {
        const result = await match.route.handler.handler(this.#context(req, match, prepared));
        if (result instanceof Reply) return result;
        if (result === undefined) return new Reply(204, undefined, {}, "empty");
        return new Reply(req.method === "POST" ? 201 : 200, result);
      } catch (error) {
        return answer(error);
      }
    });
  }
}
