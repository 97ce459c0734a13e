/**
 * Issues linked to an epic [licensed], identified by `project#iid` (the issue's project path and its iid), and
 * their order. Linking an issue that belongs to another epic moves it here. The order of the declared issues is
 * managed through a derived field `after`: the declared issue each one follows (`(first)` for the first). A changed
 * `after` moves the link with move_before_id (the link to follow) or, to become first, move_after_id (the link
 * that is first now). Undeclared links keep their places.
 */
import { apiPath } from "../api/index.js";
import { textOf } from "../manifest/secret.js";
import { type ApiEpicIssue, EPIC_ISSUE_SHAPE, epicIssuesPath } from "./epic.js";
import { addressOf, type Fields, type Kind, type KindContext, type Live, type Parent } from "./kind.js";

const PROJECT_SHAPE = { id: "integer", path_with_namespace: "string" } as const;

interface ApiProject {
  id: number;
  path_with_namespace: string;
}

function memoized<T>(ctx: KindContext, key: string, load: () => Promise<T>): Promise<T> {
  let p = ctx.memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    ctx.memo.set(key, p);
  }
  return p;
}

const projectById = (ctx: KindContext, id: number) =>
  memoized(ctx, `project:${id}`, () =>
    ctx.api.get<ApiProject>(apiPath`/projects/${id}`, { shape: PROJECT_SHAPE }),
  );
const projectByPath = (ctx: KindContext, path: string) =>
  memoized(ctx, `project:${path.toLowerCase()}`, () =>
    ctx.api.get<ApiProject>(apiPath`/projects/${path}`, { shape: PROJECT_SHAPE }),
  );

/** The `after` of the first declared link. */
const FIRST = "(first)";

const keyOf = (project: string, iid: number | string) => `${project}#${iid}`;

/** The live links in their order, each with its identity. */
async function liveLinks(
  ctx: KindContext,
  epic: Parent,
  fresh: boolean,
): Promise<{ key: string; link: ApiEpicIssue }[]> {
  const cached = epic.live?.raw as ApiEpicIssue[] | undefined;
  const links =
    !fresh && cached
      ? cached
      : await ctx.api.list<ApiEpicIssue>(epicIssuesPath(epic), { shape: EPIC_ISSUE_SHAPE });
  // The platform lists an epic's issues in their order.
  return Promise.all(
    links.map(async (link) => ({
      key: keyOf((await projectById(ctx, link.project_id)).path_with_namespace, link.iid),
      link,
    })),
  );
}

export const epicIssueKind: Kind = {
  collection: "issues",
  segment: "issue",
  parents: ["epics"],
  updateMode: "update",

  async read(ctx, parent, wanted, options) {
    // Project paths match case-insensitively, as on the platform: report them in the manifest's spelling.
    const spelling = new Map(wanted.map((w) => [w.toLowerCase(), w]));
    const declared = new Set(wanted);
    let previous = FIRST;
    return (await liveLinks(ctx, parent, options?.fresh === true)).map(({ key: platformKey, link }) => {
      const key = spelling.get(platformKey.toLowerCase()) ?? platformKey;
      const [project] = key.split(/#(?=\d+$)/);
      const live: Live = { key, id: link.epic_issue_id, fields: { project, iid: link.iid, after: previous } };
      if (declared.has(key)) previous = key;
      return live;
    });
  },

  async prepare(ctx, parent, fields) {
    const order = orderState(ctx, parent);
    const key = keyOf(textOf(fields["project"]) ?? "", Number(fields["iid"]));
    const out: Fields = { ...fields, after: order.last ?? FIRST };
    order.last = key;
    return out;
  },

  dependsOn(parent, _key, desired) {
    const after = desired["after"];
    return typeof after === "string" && after !== FIRST
      ? [addressOf(parent.address, epicIssueKind, after)]
      : [];
  },

  async create(ctx, parent, desired, key) {
    const project = await projectByPath(ctx, textOf(desired["project"]) ?? "");
    const iid = Number(desired["iid"]);
    const [issue] = await ctx.api.list<{ id: number; iid: number }>(apiPath`/projects/${project.id}/issues`, {
      query: { iids: [iid] },
      shape: { id: "integer", iid: "integer" },
    });
    if (!issue || issue.iid !== iid) throw new Error(`issue #${iid} does not exist in ${desired["project"]}`);
    const association = await ctx.api.post<{ id: number }>(
      `${epicIssuesPath(parent)}${apiPath`/${issue.id}`}`,
      { shape: { id: "integer" } },
    );
    await move(ctx, parent, association.id, key, String(desired["after"] ?? FIRST));
    return {
      key,
      id: association.id,
      fields: { project: desired["project"], iid: desired["iid"], after: desired["after"] ?? FIRST },
    };
  },

  // A link found on re-reading is moved to its place as its create would have moved it (the POST puts a new link
  // first). The move may be sent twice: it places the link right after another (or first), wherever it is.
  finishCreate: (ctx, parent, found, desired) => place(ctx, parent, found, desired),

  update: (ctx, parent, live, desired) => place(ctx, parent, live, desired),

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${epicIssuesPath(parent)}${apiPath`/${live.id!}`}`);
  },
};

interface OrderState {
  last?: string;
}

/** Per epic, the last declared issue prepared so far: the engine prepares present entries in manifest order. */
function orderState(ctx: KindContext, epic: Parent): OrderState {
  const memoKey = `epic-issues:order:${epic.address}`;
  const states = orderStates.get(ctx.memo) ?? new Map<string, OrderState>();
  orderStates.set(ctx.memo, states);
  let state = states.get(memoKey);
  if (!state) {
    state = {};
    states.set(memoKey, state);
  }
  return state;
}
const orderStates = new WeakMap<object, Map<string, OrderState>>();

/** Moves the link `live` to its declared place; the link as `read` would return it then. */
async function place(ctx: KindContext, epic: Parent, live: Live, desired: Fields): Promise<Live> {
  await move(ctx, epic, Number(live.id), live.key, String(desired["after"] ?? FIRST));
  return { ...live, fields: { ...live.fields, after: desired["after"] ?? FIRST } };
}

/** Places the link `id` right after the link `after` (or first). */
async function move(ctx: KindContext, epic: Parent, id: number, key: string, after: string): Promise<void> {
  const links = await liveLinks(ctx, epic, true);
  if (after === FIRST) {
    const first = links[0];
    if (!first || first.link.epic_issue_id === id) return;
    await ctx.api.put(`${epicIssuesPath(epic)}${apiPath`/${id}`}`, {
      body: { move_after_id: first.link.epic_issue_id },
    });
    return;
  }
  const target = links.find((l) => l.key.toLowerCase() === after.toLowerCase());
  if (!target) throw new Error(`cannot place ${key} after ${after}: ${after} is not linked to the epic`);
  await ctx.api.put(`${epicIssuesPath(epic)}${apiPath`/${id}`}`, {
    body: { move_before_id: target.link.epic_issue_id },
  });
}
