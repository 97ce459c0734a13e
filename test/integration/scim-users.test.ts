import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

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
