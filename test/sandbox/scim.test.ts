import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningSandbox } from "../../src/sandbox/server.js";
import { sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "alice", email: "alice@acme.example" },
    { username: "bob", email: "bob@acme.example" },
    { username: "carol", email: "carol@acme.example" },
  ],
  groups: [
    { path: "acme", visibility: "private" },
    { path: "nosaml", visibility: "private" },
  ],
  scim: [
    {
      group: "acme",
      token: "scim-secret",
      identities: [
        { user: "alice", extern_uid: "alice-uid" },
        { user: "bob", extern_uid: "bob-uid" },
      ],
    },
  ],
};

const ERR = "urn:ietf:params:scim:api:messages:2.0:Error";

interface Res {
  status: number;
  type: string | null;
  body: unknown;
  text: string;
}

describe("SCIM (§3.13)", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = (await sandbox({ fixture })).sb;
  });
  afterAll(() => sb.stop());

  const scim = async (
    method: string,
    path: string,
    body?: unknown,
    token: string | null = "scim-secret",
  ): Promise<Res> => {
    const headers: Record<string, string> = { "Content-Type": "application/scim+json" };
    if (token) headers["Authorization"] = `Bearer ${token}`;
    const res = await fetch(`${sb.url}/api/scim/v2${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      body: text ? JSON.parse(text) : undefined,
      text,
    };
  };

  it("lists the group's identities as a ListResponse in application/scim+json", async () => {
    const r = await scim("GET", "/groups/acme/Users");
    expect(r.status).toBe(200);
    expect(r.type).toBe("application/scim+json");
    expect(r.body).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 2,
      itemsPerPage: 20,
      startIndex: 1,
      Resources: [
        {
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
          id: "alice-uid",
          active: true,
          "name.formatted": "alice",
          userName: "alice",
          meta: { resourceType: "User" },
          emails: [{ type: "work", value: "alice@acme.example", primary: true }],
        },
        expect.objectContaining({ id: "bob-uid", userName: "bob" }),
      ],
    });
  });

  it("401 with the platform's envelope for a wrong or missing token; 404 SCIM errors for group problems", async () => {
    for (const token of [null, "wrong"]) {
      const r = await scim("GET", "/groups/acme/Users", undefined, token);
      expect([r.status, r.body]).toEqual([401, { message: "401 Unauthorized" }]);
    }
    const missing = await scim("GET", "/groups/nope/Users");
    expect([missing.status, missing.body]).toEqual([
      404,
      { schemas: [ERR], detail: "Group nope not found", status: 404 },
    ]);
    const nosaml = await scim("GET", "/groups/nosaml/Users");
    expect([nosaml.status, nosaml.body]).toEqual([
      404,
      { schemas: [ERR], detail: "Group nosaml does not have SAML SSO configured", status: 404 },
    ]);
  });

  it("filters by id / externalId / userName eq; other filters are 412 Unsupported Filter", async () => {
    const ids = async (filter: string) => {
      const r = await scim("GET", `/groups/acme/Users?filter=${encodeURIComponent(filter)}`);
      return (r.body as { Resources: { id: string }[] }).Resources.map((x) => x.id);
    };
    expect(await ids('id eq "bob-uid"')).toEqual(["bob-uid"]);
    expect(await ids('externalId eq "alice-uid"')).toEqual(["alice-uid"]);
    expect(await ids('userName eq "bob"')).toEqual(["bob-uid"]);
    expect(await ids('userName eq "alice-uid"')).toEqual(["alice-uid"]);
    expect(await ids('id eq "nobody"')).toEqual([]);
    for (const filter of ['displayName eq "bob"', 'id ne "x"', 'id eq "a" and userName eq "b"']) {
      const r = await scim("GET", `/groups/acme/Users?filter=${encodeURIComponent(filter)}`);
      expect([filter, r.status, r.body]).toEqual([
        filter,
        412,
        { schemas: [ERR], detail: "Unsupported Filter", status: 412 },
      ]);
    }
  });

  it("startIndex (below 1 read as 1) and count page the list", async () => {
    const r = await scim("GET", "/groups/acme/Users?startIndex=2&count=1");
    expect(r.body).toMatchObject({
      totalResults: 2,
      itemsPerPage: 1,
      startIndex: 2,
      Resources: [{ id: "bob-uid" }],
    });
    const zero = await scim("GET", "/groups/acme/Users?startIndex=0&count=1");
    expect(zero.body).toMatchObject({ startIndex: 1, Resources: [{ id: "alice-uid" }] });
    const neg = await scim("GET", "/groups/acme/Users?startIndex=-5");
    expect((neg.body as { startIndex: number }).startIndex).toBe(1);
    const bad = await scim("GET", "/groups/acme/Users?count=many");
    expect([bad.status, bad.body]).toEqual([400, { error: "count is invalid" }]);
  });

  it("gets one user by external UID; unknown is 404 Resource not found", async () => {
    const r = await scim("GET", "/groups/acme/Users/alice-uid");
    expect([r.status, (r.body as { userName: string }).userName]).toEqual([200, "alice"]);
    const missing = await scim("GET", "/groups/acme/Users/ghost");
    expect([missing.status, missing.body]).toEqual([
      404,
      { schemas: [ERR], detail: "Resource ghost not found", status: 404 },
    ]);
  });

  it("creates a user (201): identity, membership, and duplicates are 409", async () => {
    const body = {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      externalId: "dave-uid",
      userName: "dave",
      emails: [{ type: "work", value: "dave@acme.example", primary: true }],
      name: { formatted: "Dave Example", familyName: "Example", givenName: "Dave" },
      active: true,
    };
    const r = await scim("POST", "/groups/acme/Users", body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: "dave-uid",
      active: true,
      "name.formatted": "Dave Example",
      userName: "dave",
    });
    const dave = sb.store.userByUsername("dave")!;
    expect(dave.email).toBe("dave@acme.example");
    expect(dave.identities).toEqual([
      { provider: "group_saml", extern_uid: "dave-uid", saml_provider_id: expect.any(Number) },
    ]);
    expect(sb.store.member("group", sb.store.groupByFullPath("acme")!.id, dave.id)?.access_level).toBe(10);

    const dup = await scim("POST", "/groups/acme/Users", body);
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      schemas: [ERR],
      detail:
        'Error saving user with {:extern_uid=>"dave-uid", :email=>"dave@acme.example", :name=>"Dave Example", :username=>"dave", :active=>true}: Extern uid has already been taken',
      status: 409,
    });
    const taken = await scim("POST", "/groups/acme/Users", {
      ...body,
      externalId: "other",
      userName: "alice",
      emails: [{ type: "work", value: "new@acme.example" }],
    });
    expect([taken.status, (taken.body as { detail: string }).detail]).toEqual([
      409,
      expect.stringContaining("Username has already been taken"),
    ]);
    const missing = await scim("POST", "/groups/acme/Users", { userName: "x" });
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: "externalId is missing, emails is missing, name is missing" },
    ]);
  });

  it("links an existing user with the same e-mail instead of creating one", async () => {
    const before = sb.store.data.users.length;
    const r = await scim("POST", "/groups/acme/Users", {
      externalId: "carol-uid",
      userName: "carol.scim",
      emails: [{ type: "work", value: "carol@acme.example" }],
      name: { givenName: "Carol", familyName: "C" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: "carol-uid", userName: "carol", "name.formatted": "carol" });
    expect(sb.store.data.users.length).toBe(before);
  });

  it("PATCH Replace/Add applies (case-sensitive ops), 204; active false deprovisions, true reprovisions", async () => {
    const acme = sb.store.groupByFullPath("acme")!;
    const bob = sb.store.userByUsername("bob")!;
    const ignored = await scim("PATCH", "/groups/acme/Users/bob-uid", {
      Operations: [{ op: "replace", path: "name.formatted", value: "Ignored" }],
    });
    expect([ignored.status, ignored.text]).toEqual([204, ""]);
    expect(sb.store.user(bob.id)!.name).toBe("bob");
    const r = await scim("PATCH", "/groups/acme/Users/bob-uid", {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [
        { op: "Replace", path: "name.formatted", value: "Bob Builder" },
        { op: "Add", path: 'emails[type eq "work"].value', value: "bob@new.example" },
      ],
    });
    expect(r.status).toBe(204);
    expect(sb.store.user(bob.id)).toMatchObject({ name: "Bob Builder", email: "bob@new.example" });

    const off = await scim("PATCH", "/groups/acme/Users/bob-uid", {
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    expect(off.status).toBe(204);
    expect(sb.store.member("group", acme.id, bob.id)).toBeUndefined();
    expect(sb.store.user(bob.id)!.identities).toEqual([]);
    expect(((await scim("GET", "/groups/acme/Users/bob-uid")).body as { active: boolean }).active).toBe(
      false,
    );

    const on = await scim("PATCH", "/groups/acme/Users/bob-uid", {
      Operations: [{ op: "Replace", value: { active: true } }],
    });
    expect(on.status).toBe(204);
    expect(sb.store.member("group", acme.id, bob.id)?.access_level).toBe(10);
    expect(((await scim("GET", "/groups/acme/Users/bob-uid")).body as { active: boolean }).active).toBe(true);

    const email = await scim("PATCH", "/groups/acme/Users/bob-uid", {
      Operations: [{ op: "Replace", path: 'emails[type eq "work"].value', value: "alice@acme.example" }],
    });
    expect([email.status, email.body]).toEqual([
      409,
      { schemas: [ERR], detail: "Email has already been taken", status: 409 },
    ]);
    const noOps = await scim("PATCH", "/groups/acme/Users/bob-uid", {});
    expect([noOps.status, noOps.body]).toEqual([400, { error: "Operations is missing" }]);
    const ghost = await scim("PATCH", "/groups/acme/Users/ghost", { Operations: [] });
    expect(ghost.status).toBe(404);
  });

  it("DELETE removes the identity and the group membership (204)", async () => {
    const acme = sb.store.groupByFullPath("acme")!;
    const alice = sb.store.userByUsername("alice")!;
    expect(sb.store.member("group", acme.id, alice.id)).toBeDefined();
    const r = await scim("DELETE", "/groups/acme/Users/alice-uid");
    expect([r.status, r.text]).toEqual([204, ""]);
    expect(sb.store.member("group", acme.id, alice.id)).toBeUndefined();
    expect(sb.store.user(alice.id)!.identities).toEqual([]);
    expect((await scim("GET", "/groups/acme/Users/alice-uid")).status).toBe(404);
    expect((await scim("DELETE", "/groups/acme/Users/alice-uid")).status).toBe(404);
  });

  it("never keeps the SCIM token in the state", async () => {
    const res = await fetch(`${sb.url}/-/sandbox/state`, { headers: { "PRIVATE-TOKEN": "admin-token" } });
    expect(await res.text()).not.toContain("scim-secret");
  });

  it("does not exist on the core edition", async () => {
    const core = await sandbox({ edition: "core", fixture });
    try {
      const res = await fetch(`${core.sb.url}/api/scim/v2/groups/acme/Users`, {
        headers: { Authorization: "Bearer scim-secret" },
      });
      expect([res.status, await res.json()]).toEqual([404, { error: "404 Not Found" }]);
    } finally {
      await core.sb.stop();
    }
  });
});
