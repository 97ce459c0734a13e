import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { startProxy, startRecorder } from "./proxy.js";

const SCIM_TOKEN = "scim-token-for-acme";

interface ScimUser {
  id: string;
  userName: string;
  active: boolean;
  "name.formatted"?: string;
  name?: { formatted?: string };
  emails: { type: string; value: string }[];
}

const fixture = {
  users: [{ username: "olduser", name: "Old User", email: "old@acme.example" }],
  groups: [{ path: "acme" }],
  scim: [{ group: "acme", token: SCIM_TOKEN, identities: [{ user: "olduser", extern_uid: "idp-old" }] }],
};

const summary = (out: string) => out.trim().split("\n").at(-1);

describe("SCIM users", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const scim = { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN };
  const user = async (id: string): Promise<ScimUser | undefined> => {
    const res = await fetch(`${bench.sandbox.url}/api/scim/v2/groups/acme/Users/${id}`, {
      headers: { authorization: `Bearer ${SCIM_TOKEN}` },
    });
    return res.status === 404 ? undefined : ((await res.json()) as ScimUser);
  };
  const formatted = (u: ScimUser | undefined) => u?.name?.formatted ?? u?.["name.formatted"];
  const manifest = (fields: string) =>
    bench.manifest(`version: 1
groups:
  acme:
    scim_users:
      - externalId: idp-old
        userName: olduser
        name: { formatted: Old User }
        emails: [{ type: work, value: old@acme.example }]
      - externalId: idp-jdoe
${fields}
`);

  it("goes through the whole lifecycle, field by field", async () => {
    const created = manifest(`        userName: jdoe
        name: { formatted: Jane Doe, givenName: Jane, familyName: Doe }
        emails: [{ type: work, value: jane@acme.example, primary: true }]`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", created], scim);
    expect(plan.code, plan.out + plan.err).toBe(2);
    expect(plan.out).toContain('+ group["acme"].scim_user["idp-jdoe"]');
    expect(plan.out + plan.err).not.toContain(SCIM_TOKEN);
    expect(summary(plan.out)).toBe("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", created], scim)).code).toBe(0);
    const jane = await user("idp-jdoe");
    expect(jane).toMatchObject({ userName: "jdoe", active: true });
    expect(formatted(jane)).toBe("Jane Doe");
    expect(jane?.emails[0]?.value).toBe("jane@acme.example");
    expect((await bench.cli(["plan", "--detailed-exitcode", created], scim)).code).toBe(0);

    const steps: [string, string, (u: ScimUser | undefined) => void][] = [
      [
        "userName",
        `        userName: janedoe
        name: { formatted: Jane Doe }
        emails: [{ type: work, value: jane@acme.example }]`,
        (u) => expect(u?.userName).toBe("janedoe"),
      ],
      [
        "name",
        `        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jane@acme.example }]`,
        (u) => expect(formatted(u)).toBe("Jane Q. Doe"),
      ],
      [
        "emails",
        `        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]`,
        (u) => expect(u?.emails[0]?.value).toBe("jdoe@acme.example"),
      ],
      [
        "active",
        `        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]
        active: false`,
        (u) => expect(u?.active).toBe(false),
      ],
      [
        "active",
        `        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]
        active: true`,
        (u) => expect(u?.active).toBe(true),
      ],
    ];
    for (const [field, fields, verify] of steps) {
      const file = manifest(fields);
      const p = await bench.cli(["plan", "--detailed-exitcode", file], scim);
      expect(p.code, field).toBe(2);
      expect(p.out).toContain('~ group["acme"].scim_user["idp-jdoe"]');
      expect(p.out).toContain(field);
      expect(summary(p.out), field).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
      const a = await bench.cli(["apply", "--yes", file], scim);
      expect(a.code, a.out + a.err).toBe(0);
      verify(await user("idp-jdoe"));
      expect((await bench.cli(["plan", "--detailed-exitcode", file], scim)).code, field).toBe(0);
    }
  });

  it("warns about an undeclared identity by default, deletes with a delete policy", async () => {
    const warn = bench.manifest(`version: 1
groups:
  acme:
    scim_users:
      - externalId: idp-jdoe
        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]
`);
    const warned = await bench.cli(["plan", "--detailed-exitcode", warn], scim);
    expect(warned.code).toBe(0);
    expect(warned.out).toContain('scim_user["idp-old"]');
    expect(warned.out).toContain("prune policy warn");

    const pruned = bench.manifest(`version: 1
groups:
  acme:
    unmanaged:
      scim_users: delete
    scim_users:
      - externalId: idp-jdoe
        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", pruned], scim);
    expect(plan.out).toContain('- group["acme"].scim_user["idp-old"]');
    expect(summary(plan.out)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.");
    expect((await bench.cli(["apply", "--yes", pruned], scim)).code).toBe(0);
    expect(await user("idp-old")).toBeUndefined();
    expect(await user("idp-jdoe")).toBeDefined();
  });

  it("needs the SCIM token, and says where to set it", async () => {
    const file = manifest(`        userName: janedoe
        name: { formatted: Jane Q. Doe }
        emails: [{ type: work, value: jdoe@acme.example }]`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\s+/g, " ")).toContain("FORGEFORM_SCIM_TOKEN");
  });
});

describe("SCIM users beyond one page", () => {
  const many = Array.from({ length: 130 }, (_, i) => `user${String(i).padStart(3, "0")}`);
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        users: many.map((username) => ({ username })),
        groups: [{ path: "big" }],
        scim: [
          {
            group: "big",
            token: SCIM_TOKEN,
            identities: many.map((user) => ({ user, extern_uid: `idp-${user}` })),
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("reads every identity through SCIM paging and matches the declared ones", async () => {
    const file = bench.manifest(`version: 1
groups:
  big:
    scim_users:
      - externalId: idp-user129
        userName: user129
        name: { formatted: user129 }
        emails: [{ type: work, value: user129@example.com }]
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file], { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN });
    expect(plan.code, plan.out + plan.err).toBe(0);
    const unmanaged = plan.out
      .split("\n")
      .filter((l) => /! group\["big"\]\.scim_user\["idp-user\d+"\]/.test(l));
    expect(unmanaged).toHaveLength(129);
    expect(plan.out).not.toContain('scim_user["idp-user129"]');
  });
});

describe("SCIM users: what apply sends", () => {
  const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
  const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
  const scim = { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN };
  let bench: Bench;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], scim: [{ group: "acme", token: SCIM_TOKEN }] },
    });
    recorder = await startRecorder(bench.sandbox.url);
  });
  afterAll(async () => {
    await recorder.close();
    await bench.stop();
  });
  const user = async (id: string): Promise<ScimUser> => {
    const res = await fetch(`${bench.sandbox.url}/api/scim/v2/groups/acme/Users/${id}`, {
      headers: { authorization: `Bearer ${SCIM_TOKEN}` },
    });
    return (await res.json()) as ScimUser;
  };
  /** Applies through the recorder; the writes it sent, each as the platform received it. */
  const applied = async (entry: string) => {
    const file = bench.manifest(`version: 1\ngroups:\n  acme:\n    scim_users:\n${entry}`, "scim.yaml");
    recorder.requests.length = 0;
    const r = await bench.cli(["apply", "--yes", file], { ...scim, FORGEFORM_URL: recorder.url });
    expect(r.code, r.out + r.err).toBe(0);
    return recorder.requests
      .filter((q) => q.method !== "GET")
      .map((q) => ({ method: q.method, body: q.body }));
  };

  it("creates a user with the full name and every address, the unnamed kind being work, and active", async () => {
    const writes = await applied(`      - externalId: idp-jane
        userName: jane
        name: { formatted: Jane Doe, givenName: Jane, familyName: Doe }
        emails: [{ type: home, value: jane@home.example }, { value: jane@acme.example }]
`);
    expect(writes).toEqual([
      {
        method: "POST",
        body: {
          schemas: [USER],
          externalId: "idp-jane",
          userName: "jane",
          emails: [
            { type: "home", value: "jane@home.example" },
            { type: "work", value: "jane@acme.example" },
          ],
          name: { formatted: "Jane Doe", givenName: "Jane", familyName: "Doe" },
          active: true,
        },
      },
    ]);
    expect(await user("idp-jane")).toMatchObject({ userName: "jane", active: true });
  });

  it("changes the work address, whatever its place among the others, with one operation", async () => {
    const writes = await applied(`      - externalId: idp-jane
        userName: jane
        name: { formatted: Jane Doe }
        emails: [{ type: home, value: jane@home.example }, { type: work, value: jane.doe@acme.example }]
`);
    expect(writes).toEqual([
      {
        method: "PATCH",
        body: {
          schemas: [PATCH],
          Operations: [
            { op: "Replace", path: 'emails[type eq "work"].value', value: "jane.doe@acme.example" },
          ],
        },
      },
    ]);
    expect((await user("idp-jane")).emails.map((e) => e.value)).toContain("jane.doe@acme.example");
  });

  it("deprovisions with one operation on active alone", async () => {
    const writes = await applied(`      - externalId: idp-jane
        userName: jane
        name: { formatted: Jane Doe }
        emails: [{ type: work, value: jane.doe@acme.example }]
        active: false
`);
    expect(writes).toEqual([
      {
        method: "PATCH",
        body: { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: false }] },
      },
    ]);
    expect((await user("idp-jane")).active).toBe(false);
  });

  it("creates a user declared inactive, then deprovisions it", async () => {
    const writes = await applied(`      - externalId: idp-jane
        userName: jane
        name: { formatted: Jane Doe }
        emails: [{ type: work, value: jane.doe@acme.example }]
        active: false
      - externalId: idp-joe
        userName: joe
        name: { formatted: Joe Bloggs }
        emails: [{ type: work, value: joe@acme.example }]
        active: false
`);
    expect(writes).toEqual([
      {
        method: "POST",
        body: {
          schemas: [USER],
          externalId: "idp-joe",
          userName: "joe",
          emails: [{ type: "work", value: "joe@acme.example" }],
          name: { formatted: "Joe Bloggs" },
        },
      },
      {
        method: "PATCH",
        body: { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: false }] },
      },
    ]);
    expect(await user("idp-joe")).toMatchObject({ userName: "joe", active: false });
  });
});

describe("SCIM users in an export", () => {
  it("says they were not exported when the SCIM API cannot be reached, rather than leaving them out silently", async () => {
    const bench = await Bench.start({ fixture });
    // The SCIM API is behind something that drops the connection; the REST API answers.
    const proxy = await startProxy(bench.sandbox.url, (req) => {
      if (!(req.url ?? "").startsWith("/api/scim/")) return false;
      req.socket.destroy();
      return true;
    });
    try {
      const out = join(bench.dir, "exported");
      const r = await bench.cli(["export", "--group", "acme", "--max-attempts", "1", "--out", out], {
        FORGEFORM_URL: proxy.url,
        FORGEFORM_SCIM_TOKEN: SCIM_TOKEN,
      });
      expect(r.code, r.err).toBe(0);
      const lines = r.err.split("\n").filter((line) => /scim/i.test(line));
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(/^forgeform export: not exported: group\["acme"\]\.scim_users: /);
      expect(readFileSync(join(out, "acme.yaml"), "utf8")).toMatch(/^ {4}# scim_users not exported: /m);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});
