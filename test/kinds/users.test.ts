/**
 * What a plan says of a user or group the platform does not know (src/kinds/users.ts), against the sandbox over
 * HTTP: the closest name it does know, found by searching the name's first and last three characters (a top-level
 * path among the top-level groups, a subgroup among its parent's subgroups), and what the searches asked, as
 * `--debug` shows them. A name written as a secret is never searched for; a search that fails or answers without
 * names leaves the advice to check the name, never a crash.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { createContext } from "../../src/engine/context.js";
import { resolveEntries } from "../../src/kinds/access.js";
import { FieldError } from "../../src/kinds/kind.js";
import { Secret } from "../../src/manifest/secret.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { startProxy } from "../integration/proxy.js";

const TOKEN = "users-admin";
/** What the plan says at `deploy_access_levels[0]` of an entry that names someone or a group the platform lacks. */
const ABSENT = (what: "user" | "group", shown: string, advice: string) =>
  `${what} ${JSON.stringify(shown)} does not exist (or is not visible to this token's user): ${advice}`;

describe("unknown users and groups", () => {
  let sandbox: RunningSandbox;
  const clients: ApiClient[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: {
        users: [
          { username: "alice", name: "Alice", email: "alice@example.com" },
          { username: "christopher", name: "Chris", email: "chris@example.com" },
        ],
        groups: [
          { path: "acme" },
          { path: "acme/platform" },
          // A hundred subgroups whose names hold "acm" and sort before "acme": a search of every group for "acm"
          // fills its first page with them.
          { path: "lab" },
          ...Array.from({ length: 100 }, (_, i) => ({ path: `lab/a-acme-${String(i).padStart(2, "0")}` })),
        ],
      },
    });
  });
  afterAll(async () => {
    for (const api of clients) await api.close();
    await sandbox.stop();
  });

  /** The plan's message for one entry, and the searches made for it as `--debug` lines (timings left out). */
  async function refused(entry: { user?: unknown; group?: unknown }, url = sandbox.url) {
    const lines: string[] = [];
    const api = new ApiClient({ url, token: TOKEN, debug: (line) => lines.push(line) });
    clients.push(api);
    const ctx = await createContext(api);
    const error = await resolveEntries(ctx, "deploy_access_levels", [entry as never]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FieldError);
    const searches = lines
      .filter((l) => /[?&]search=|\/subgroups/.test(l))
      .map((l) => l.replace(/ \(\d+ ms\)$/, ""));
    return { message: (error as FieldError).message, searches };
  }

  it("search a username's first and last three characters: a name wrong at its start is found by its end", async () => {
    // Wrong in two places, the first three characters among them: "her" finds christopher.
    const wrong = await refused({ user: "xhristxpher" });
    expect(wrong.message).toBe(ABSENT("user", "xhristxpher", 'did you mean "christopher"?'));
    expect(wrong.searches.sort()).toEqual([
      "GET /api/v4/users?search=her&per_page=100 -> 200",
      "GET /api/v4/users?search=xhr&per_page=100 -> 200",
    ]);
    // A name of three characters or fewer is searched as it is, once.
    const short = await refused({ user: "ali" });
    expect(short.message).toBe(ABSENT("user", "ali", 'did you mean "alice"?'));
    expect(short.searches).toEqual(["GET /api/v4/users?search=ali&per_page=100 -> 200"]);
    // Nothing close: the advice.
    const far = await refused({ user: "zzzzzz" });
    expect(far.message).toBe(ABSENT("user", "zzzzzz", "check the username"));
  });

  it("never search for a name written as a secret, and show it masked", async () => {
    const user = await refused({ user: new Secret("alicee", "env:WHO") });
    expect(user.message).toBe(ABSENT("user", "(sensitive)", "check the username"));
    expect(user.searches).toEqual([]);
    const group = await refused({ group: new Secret("acmee", "env:TEAM") });
    expect(group.message).toBe(ABSENT("group", "(sensitive)", "check the full path"));
    expect(group.searches).toEqual([]);
  });

  it("find a top-level path among the top-level groups, even where a hundred subgroups match the search", async () => {
    const top = await refused({ group: "acmee" });
    expect(top.message).toBe(ABSENT("group", "acmee", 'did you mean "acme"?'));
    expect(top.searches.sort()).toEqual([
      "GET /api/v4/groups?top_level_only=true&all_available=true&search=acm&per_page=100 -> 200",
      "GET /api/v4/groups?top_level_only=true&all_available=true&search=mee&per_page=100 -> 200",
    ]);
  });

  it("find a subgroup's path among its parent's subgroups; a parent that does not exist is the advice", async () => {
    const sub = await refused({ group: "acme/platfrom" });
    expect(sub.message).toBe(ABSENT("group", "acme/platfrom", 'did you mean "acme/platform"?'));
    const orphan = await refused({ group: "nowhere/platfrom" });
    expect(orphan.message).toBe(ABSENT("group", "nowhere/platfrom", "check the full path"));
  });

  it("leave the advice when a search fails or answers without usernames", async () => {
    for (const answer of [
      (res: ServerResponse) =>
        res.writeHead(403, { "content-type": "application/json" }).end('{"message":"403 Forbidden"}'),
      (res: ServerResponse) =>
        res.writeHead(200, { "content-type": "application/json" }).end('[{"id":1,"name":"Alice"}]'),
    ]) {
      const proxy = await startProxy(sandbox.url, (req, res) => {
        if (!/^\/api\/v4\/users\?search=/.test(req.url ?? "")) return false;
        answer(res);
        return true;
      });
      try {
        const { message } = await refused({ user: "alicee" }, proxy.url);
        expect(message).toBe(ABSENT("user", "alicee", "check the username"));
      } finally {
        await proxy.close();
      }
    }
  });
});
