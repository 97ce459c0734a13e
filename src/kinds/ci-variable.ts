/**
 * CI/CD variables of projects, groups and the instance (`variables:`; not a schedule's variables, which are
 * schedule-variable.ts). The platform's own API is their path: `/projects/:id/variables`, `/groups/:id/variables`,
 * `/admin/ci/variables`, each variable named by its key.
 *
 * - Identity: a project's or group's variable is its key and environment scope (`KEY#scope`, `*` when the
 *   manifest leaves the scope out, and on a core group, which has no scopes); an instance variable is its key.
 *   A project's key held in several scopes is changed and deleted with `filter[environment_scope]`. A group's
 *   variables (13.12) have no such filter: the platform reaches the first variable with the key, so another scope
 *   of that key can be created but not changed or deleted through the API (a plan error says so), and scopes
 *   other than `*` need the licensed edition.
 * - Secrets: the value of a masked variable is a secret wherever it is, whether the manifest or the platform says
 *   it is masked: the kind reads it as a `Secret` (so plans, reports, drift, digests and export mask it, on both
 *   sides of a change) and treats the manifest's value the same way (`prepare`). Values from `${env:}`/`${file:}`
 *   are secrets already. Masking itself stays the engine's (plan/mask.ts): this kind only says which values are
 *   secret.
 */
import { Secret, textOf } from "../manifest/secret.js";
import { body } from "./common.js";
import { type ApiObject, type Deviations, type Rest, restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, KindProblem, Live, Parent } from "./kind.js";

/** The scope of a variable that names none: every environment. */
const ANY_SCOPE = "*";

/** A masked variable's value (from the manifest: `literal`; live: `platform`) as a secret that is never shown. */
const masked = (value: unknown, origin: "literal" | "platform"): unknown =>
  typeof value === "string" ? new Secret(value, origin) : value;

/** The live variables that are masked, per run, by parent and identity: their declared values are secrets too. */
const maskedLive = new WeakMap<KindContext, Set<string>>();
const slot = (parent: Parent, identity: string) => `${parent.address}\u0000${identity}`;

/** A declared variable's identity, from its fields (resolved values), as `readVariable` makes a live one's. */
function identity(fields: Fields, scoped: boolean): string {
  const key = textOf(fields["key"]) ?? "";
  return scoped ? `${key}#${textOf(fields["environment_scope"]) ?? ANY_SCOPE}` : key;
}

/** What every variable kind does: masked values are secrets on both sides. */
function variables(rest: Rest, scoped: boolean): Deviations {
  return {
    async read(ctx, parent, _wanted, options) {
      const lives = (await rest.list(ctx, parent)).map((v) => rest.toLive(parent, v, options));
      // Remembered for `prepare`: the declared value of a variable masked on the platform is a secret too.
      const seen = maskedLive.get(ctx) ?? new Set<string>();
      maskedLive.set(ctx, seen);
      for (const live of lives) if (live.fields["masked"] === true) seen.add(slot(parent, live.key));
      return lives;
    },

    async prepare(ctx, parent, fields) {
      // Masked when the manifest says so, or when it leaves `masked` out and the live variable is masked.
      const hidden =
        fields["masked"] === true ||
        (fields["masked"] === undefined && maskedLive.get(ctx)?.has(slot(parent, identity(fields, scoped))));
      return hidden ? { ...fields, value: masked(fields["value"], "literal") } : fields;
    },
  };
}

/** How a variable reads: its value a secret when masked; with a scope, `*` where the platform shows none. */
function readVariable(scoped: boolean) {
  return (_parent: Parent, v: ApiObject, live: Live): Live => {
    const fields = {
      ...live.fields,
      ...(v["masked"] === true ? { value: masked(v["value"], "platform") } : {}),
    };
    if (!scoped) return { ...live, fields };
    const scope = typeof v["environment_scope"] === "string" ? v["environment_scope"] : ANY_SCOPE;
    return { ...live, key: `${String(v["key"])}#${scope}`, fields: { ...fields, environment_scope: scope } };
  };
}

/** `filter[environment_scope]`: which of a project's variables with one key a request means. */
const inScope = (live: Live) => ({
  filter: { environment_scope: String(live.fields["environment_scope"] ?? ANY_SCOPE) },
});

/**
 * The kind of `owner`'s variables: a plain collection under the owner (the instance's under `/admin/ci/variables`)
 * whose masked values are secrets, with `more` for what this owner does otherwise.
 */
function variableKind(
  owner: "projects" | "groups" | "instance",
  more?: (rest: Rest, common: Deviations) => Deviations,
) {
  const scoped = owner !== "instance";
  return restCollection(
    {
      collection: "variables",
      segment: "variable",
      parents: [owner],
      path: scoped ? "variables" : "/admin/ci/variables",
      id: { field: "key", type: "string" },
      live: readVariable(scoped),
    },
    (rest) => {
      const common = variables(rest, scoped);
      return { ...common, ...more?.(rest, common) };
    },
  );
}

export const projectVariableKind = variableKind("projects", (rest) => ({
  async update(ctx, parent, live, desired, changed) {
    const updated = await ctx.api.put<ApiObject>(rest.itemPath(parent, live.id!), {
      query: inScope(live),
      body: body(desired, changed),
      shape: rest.shape(),
    });
    return rest.toLive(parent, updated, unchecked(desired));
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(rest.itemPath(parent, live.id!), { query: inScope(live) });
  },
}));

/**
 * For each of a group's variables that another with the same key precedes in the platform's list, that one's
 * scope: the group API (13.12) finds a variable by its key alone, so it reaches the first, never this one.
 */
const shadowedBy = new WeakMap<Live, string>();

function unreachable(parent: Parent, live: Live, what: string): KindProblem[] {
  const first = shadowedBy.get(live);
  if (first === undefined) return [];
  const key = String(live.id);
  const scope = String(live.fields["environment_scope"]);
  return [
    {
      message: `cannot ${what} ${key} of scope "${scope}": the platform's group variables API (13.12) finds a variable by its key alone, and reaches ${key} of scope "${first}" first. ${what === "delete" ? "Delete" : "Change"} it in ${parent.key}'s CI/CD settings, or remove ${key} of scope "${first}" first`,
    },
  ];
}

export const groupVariableKind = variableKind("groups", (_rest, common) => ({
  async read(ctx, parent, wanted, options) {
    const lives = await common.read!(ctx, parent, wanted, options);
    const first = new Map<string, Live>();
    for (const live of lives) {
      const earlier = first.get(String(live.id));
      if (earlier) shadowedBy.set(live, String(earlier.fields["environment_scope"]));
      else first.set(String(live.id), live);
    }
    return lives;
  },

  check(ctx, _parent, desired) {
    const scope = textOf(desired["environment_scope"]);
    if (ctx.edition !== "core" || scope === undefined || scope === ANY_SCOPE) return [];
    return [
      {
        field: "environment_scope",
        message: `a group variable's environment_scope exists only on the licensed edition, and this platform is the core edition (its group variables are for every environment): remove it, or set it on the projects' variables`,
      },
    ];
  },

  checkUpdate: async (_ctx, parent, live) => unreachable(parent, live, "change"),
  checkDelete: async (_ctx, parent, live) => unreachable(parent, live, "delete"),
}));

/**
 * How many variables the platform lets the instance hold: its plan limit `ci_instance_level_variables`, 25 unless an
 * administrator changed it in the Rails console (13.12 has no API for it).
 */
export const INSTANCE_VARIABLE_LIMIT = 25;

/** The instance's variables as read in this run, by key. */
const INSTANCE_LIVE = "variables:instance:live";

export const instanceVariableKind = variableKind("instance", (_rest, common) => ({
  async read(ctx, parent, wanted, options) {
    const lives = await common.read!(ctx, parent, wanted, options);
    ctx.memo.set(INSTANCE_LIVE, new Set(lives.map((l) => l.key)));
    return lives;
  },

  // One apply makes its creates before its deletes: a create is refused once the instance holds the limit, whatever
  // the plan deletes after it.
  async checkCreate(ctx, _parent, key, _desired, scope) {
    const live = (ctx.memo.get(INSTANCE_LIVE) as Set<string> | undefined) ?? new Set<string>();
    const creates = [...scope.planned.keys()].filter((k) => !live.has(k));
    const held = live.size + creates.indexOf(key) + 1;
    if (held <= INSTANCE_VARIABLE_LIMIT) return [];
    return [
      {
        severity: "warning",
        message: `the instance holds ${live.size} variables and this plan creates ${creates.length}: this one would be variable ${held}, and the platform refuses more than ${INSTANCE_VARIABLE_LIMIT} (its default limit ci_instance_level_variables) unless an administrator raised it. Delete variables in an apply of their own first (an apply creates before it deletes), or declare fewer`,
      },
    ];
  },
}));
