/**
 * Lists of who may act on a protected object (src/kinds/access.ts), against the sandbox over HTTP: entries reduced
 * to one key and sorted so lists compare in any order, names resolved to ids (or an error at the entry, with the
 * closest name), ids shown again as the names the platform knows (a secret one masked), and what a protection waits
 * for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { createContext } from "../../src/engine/context.js";
import { canonicalEntries, entriesDependOn, namedEntries, resolveEntries } from "../../src/kinds/access.js";
import { FieldError, type KindContext } from "../../src/kinds/kind.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";

describe("access lists", () => {
  let sandbox: RunningSandbox;
  let api: ApiClient;
  const requests: string[] = [];
  const context = async (): Promise<KindContext> => createContext(api);
  let ids: { alice: number; acme: number };

  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: "access-admin",
      fixture: {
        users: [{ username: "alice", name: "Alice", email: "alice@example.com" }],
        groups: [{ path: "acme" }],
      },
      onRequest: (method, path) => void requests.push(`${method} ${path}`),
    });
    api = new ApiClient({ url: sandbox.url, token: "access-admin" });
    ids = {
      alice: sandbox.store.userByUsername("alice")!.id,
      acme: sandbox.store.groupByFullPath("acme")!.id,
    };
  });
  afterAll(async () => {
    await api.close();
    await sandbox.stop();
  });

  it("reduce each entry to one key, levels as numbers, sorted: the same list in any order compares equal", () => {
    const list = [
      { user_id: 7, access_level: 30 },
      { access_level: "maintainer" },
      { group_id: 3, access_level: null },
      { access_level: 30 },
      { access_level: null, user_id: null, group_id: null },
    ];
    // Sorted by their JSON text: an entry with no level at all (`{}`) comes last.
    const expected = [
      { access_level: 30 },
      { access_level: 40 },
      { group_id: 3 },
      { user_id: 7 },
      { access_level: undefined },
    ];
    expect(canonicalEntries(list)).toEqual(expected);
    expect(canonicalEntries([...list].reverse())).toEqual(expected);
    expect(canonicalEntries([list[2]!, list[0]!, list[4]!, list[1]!, list[3]!])).toEqual(expected);
    expect(canonicalEntries([])).toEqual([]);
  });

  it("resolve users and groups to ids in the order written, and name them back without asking again", async () => {
    const ctx = await context();
    const resolved = await resolveEntries(ctx, "allowed_to_push", [
      { access_level: "developer" },
      { user: "Alice" },
      { group: "ACME" },
    ]);
    expect(resolved).toEqual([{ access_level: "developer" }, { user_id: ids.alice }, { group_id: ids.acme }]);
    requests.length = 0;
    expect(await namedEntries(ctx, canonicalEntries(resolved))).toEqual([
      { access_level: "developer" },
      { group: "acme" },
      { user: "alice" },
    ]);
    // As the platform spells them (one name whichever spelling each manifest uses, so a plan shows them alike
    // whatever else it plans), from what resolving them remembered: no request.
    expect(requests).toEqual([]);
  });

  it("name ids the manifests did not use as the platform does, and keep an id that names nothing", async () => {
    const ctx = await context();
    expect(
      await namedEntries(ctx, [
        { user_id: ids.alice },
        { group_id: ids.acme },
        { user_id: 99_999 },
        { group_id: 99_998 },
        { access_level: 40 },
        { access_level: 35 },
      ]),
    ).toEqual([
      { user: "alice" },
      { group: "acme" },
      { user_id: 99_999 },
      { group_id: 99_998 },
      { access_level: "maintainer" },
      { access_level: 35 },
    ]);
  });

  it("refuse a user or group the platform does not know at its entry, with the closest name", async () => {
    const ctx = await context();
    const failure = (entries: Parameters<typeof resolveEntries>[2]) =>
      resolveEntries(ctx, "deploy_access_levels", entries).then(
        () => undefined,
        (e: unknown) => e as FieldError,
      );
    // A misspelling keeps one end of the name: the platform's search finds "ali".
    const user = await failure([{ access_level: 30 }, { user: "alicee" }]);
    expect(user).toBeInstanceOf(FieldError);
    expect(user!.field).toBe("deploy_access_levels[1].user");
    expect(user!.message).toBe(
      'user "alicee" does not exist (or is not visible to this token\'s user): did you mean "alice"?',
    );
    const group = await failure([{ group: "acmee" }]);
    expect(group!.field).toBe("deploy_access_levels[0].group");
    expect(group!.message).toBe(
      'group "acmee" does not exist (or is not visible to this token\'s user): did you mean "acme"?',
    );
  });

  it("make a protection wait for the members and shares of its project that it names", () => {
    const project = 'project["acme/api"]';
    expect(
      entriesDependOn(project, [{ user: "alice" }, { group: "partners/eu" }, { access_level: 40 }]),
    ).toEqual(['project["acme/api"].member["alice"]', 'project["acme/api"].share["partners/eu"]']);
    expect(entriesDependOn(project, undefined)).toEqual([]);
  });
});
