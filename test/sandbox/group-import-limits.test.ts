import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMPORT_LIMITS } from "../../src/sandbox/routes/group-import-export.js";
import { readTarGz, type TarFile, writeTarGz } from "../../src/sandbox/tar.js";
import { type Client, importGroup, sandbox } from "./helpers.js";

/**
 * What one group import may hold and store (routes/group-import-export.ts `IMPORT_LIMITS`), that it keeps only the
 * fields the platform imports, that its work does not hold up other requests, and who may import and export, each
 * role checked against the one below it.
 */

type Json = Record<string, unknown>;

const text = (name: string, value: string): TarFile => ({ name, data: Buffer.from(value) });
const ndjson = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");

/** An archive of a root group (id 1; `root` is its file), the subgroups given (under the root) and extra files. */
function archive(opts: { root?: string; subgroups?: number; files?: Record<string, string> } = {}): Buffer {
  const ids = [1];
  const files = [
    text("VERSION", "0.2.4"),
    text("tree/groups/1.json", opts.root ?? JSON.stringify({ id: 1, name: "R", path: "r" })),
  ];
  for (let i = 2; i <= (opts.subgroups ?? 0) + 1; i++) {
    ids.push(i);
    files.push(
      text(`tree/groups/${i}.json`, JSON.stringify({ id: i, name: `G${i}`, path: `g${i}`, parent_id: 1 })),
    );
  }
  for (const [name, value] of Object.entries(opts.files ?? {})) files.push(text(name, value));
  files.push(text("tree/groups/_all.ndjson", ndjson(ids)));
  return writeTarGz(files, new Date(0));
}

describe("group import: limits, kept fields, other requests", () => {
  let c: Client;
  let statePath: string;
  const received: string[] = [];
  let onImport: (() => void) | undefined;

  const upload = async (file: Buffer, fields: Record<string, string>, token = "admin-token") =>
    (await importGroup(c, token, file, fields)) as { status: number; body: Json };
  const groupCount = () => c.sb.store.data.groups.length;

  beforeAll(async () => {
    statePath = join(mkdtempSync(join(tmpdir(), "group-import-limits-")), "state.json");
    c = await sandbox({
      statePath,
      onRequest: (method, path) => {
        received.push(`${method} ${path}`);
        if (path === "/api/v4/groups/import") onImport?.();
      },
    });
  });
  afterAll(() => c.sb.stop());

  const over: [string, () => Buffer, string][] = [
    [
      "more groups than an import may hold",
      () => archive({ subgroups: IMPORT_LIMITS.maxGroups }),
      `it holds ${IMPORT_LIMITS.maxGroups + 1} groups; an import may hold at most ${IMPORT_LIMITS.maxGroups}`,
    ],
    [
      "more rows than an import may hold",
      () =>
        archive({
          files: {
            "tree/groups/1/members.ndjson": ndjson(
              Array.from({ length: IMPORT_LIMITS.maxRows + 1 }, () => ({
                access_level: 30,
                user: { email: "nobody@example.com" },
              })),
            ),
          },
        }),
      `it holds more than ${IMPORT_LIMITS.maxRows} rows`,
    ],
    [
      "rows that would store more than the limit",
      () =>
        archive({
          files: {
            "tree/groups/1/milestones.ndjson": ndjson(
              Array.from({ length: 9 }, (_, i) => ({
                iid: i + 1,
                title: `m${i}`,
                description: "d".repeat(1_000_000),
              })),
            ),
          },
        }),
      `what it would store is more than ${IMPORT_LIMITS.maxStored} characters`,
    ],
    [
      "a row longer than a document may be",
      () =>
        archive({
          files: {
            "tree/groups/1/labels.ndjson": ndjson([
              { title: "t", description: "x".repeat(IMPORT_LIMITS.maxDocument) },
            ]),
          },
        }),
      `tree/groups/1/labels.ndjson line 1 is longer than ${IMPORT_LIMITS.maxDocument} characters`,
    ],
    [
      "a row nested deeper than a document may be",
      () =>
        archive({
          files: { "tree/groups/1/boards.ndjson": `{"name":"b","lists":[[[[[[[[["deep"]]]]]]]]]}\n` },
        }),
      `tree/groups/1/boards.ndjson line 1 nests deeper than ${IMPORT_LIMITS.maxDepth} levels`,
    ],
    [
      "a group file nested deeper than a document may be",
      () =>
        archive({
          root: JSON.stringify({ id: 1, name: "R", path: "r", x: [[[[[[[[[1]]]]]]]]] }),
        }),
      `tree/groups/1.json nests deeper than ${IMPORT_LIMITS.maxDepth} levels`,
    ],
    [
      "a kept field of the wrong type",
      () => archive({ files: { "tree/groups/1/boards.ndjson": ndjson([{ name: 5 }]) } }),
      "tree/groups/1/boards.ndjson row 1: name must be a string",
    ],
    [
      "a board list that is not a list",
      () => archive({ files: { "tree/groups/1/boards.ndjson": ndjson([{ name: "b", lists: { a: 1 } }]) } }),
      "tree/groups/1/boards.ndjson row 1: lists must be a list",
    ],
  ];
  for (const [title, make, reason] of over) {
    it(`${title}: 400 naming the limit, and nothing is stored`, async () => {
      const groups = groupCount();
      const saved = readFileSync(statePath, "utf8");
      const r = await upload(make(), { name: "Over", path: "over" });
      expect([r.status, r.body]).toEqual([
        400,
        { message: `Failed to import group: export.tar.gz: ${reason}` },
      ]);
      expect(groupCount()).toBe(groups);
      expect(readFileSync(statePath, "utf8")).toBe(saved);
    });
  }

  it("of boards only the fields the platform imports are kept, and exported again; labels become the group's", async () => {
    const label = {
      id: 7,
      title: "bug",
      color: "#d9534f",
      description: "Broken",
      group_id: 99,
      project_id: null,
      template: false,
      type: "GroupLabel",
      created_at: "2021-01-01T00:00:00.000Z",
      updated_at: "2021-01-02T00:00:00.000Z",
      priorities: [{ project_id: 3, priority: 1 }],
      padding: "p".repeat(100_000),
    };
    const board = {
      id: 3,
      name: "Development",
      group_id: 99,
      milestone_id: 12,
      hide_backlog_list: false,
      hide_closed_list: true,
      created_at: "2021-01-01T00:00:00.000Z",
      updated_at: "2021-01-01T00:00:00.000Z",
      lists: [
        { id: 1, board_id: 3, list_type: "backlog", position: null, label: null, user_id: 5 },
        {
          id: 2,
          board_id: 3,
          label_id: 7,
          list_type: "label",
          position: 0,
          label,
          board: { id: 3, junk: 1 },
        },
      ],
      extra: { anything: ["at", "all"] },
    };
    const r = await upload(
      archive({
        files: {
          "tree/groups/1/labels.ndjson": ndjson([label, { color: "#000000" }]),
          "tree/groups/1/boards.ndjson": ndjson([board]),
        },
      }),
      { name: "Kept", path: "kept" },
    );
    expect(r.status).toBe(202);
    expect((await c.admin("POST", "/groups/kept/export")).status).toBe(202);
    const res = await fetch(`${c.sb.url}/api/v4/groups/kept/export/download`, {
      headers: { "PRIVATE-TOKEN": "admin-token" },
    });
    const files = readTarGz(Buffer.from(await res.arrayBuffer()), { maxBytes: 1 << 24, maxEntries: 100 });
    const rows = (relation: string) =>
      files
        .find((f) => f.name === `tree/groups/${r.body["id"]}/${relation}.ndjson`)!
        .data.toString("utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Json);
    const keptLabel = {
      title: "bug",
      color: "#d9534f",
      description: "Broken",
      type: "GroupLabel",
      template: false,
      created_at: "2021-01-01T00:00:00.000Z",
      updated_at: "2021-01-02T00:00:00.000Z",
    };
    // The label is the group's own now (routes/labels.ts); the one without a title is refused by the model.
    const labels = await c.admin("GET", "/groups/kept/labels");
    expect((labels.body as Json[]).map((l) => [l["name"], l["color"], l["description"]])).toEqual([
      ["bug", "#d9534f", "Broken"],
    ]);
    expect(rows("labels")).toEqual([expect.objectContaining({ title: "bug", description: "Broken" })]);
    expect(rows("labels")[0]).not.toHaveProperty("padding");
    expect(rows("boards")).toEqual([
      {
        name: "Development",
        hide_backlog_list: false,
        hide_closed_list: true,
        created_at: "2021-01-01T00:00:00.000Z",
        updated_at: "2021-01-01T00:00:00.000Z",
        lists: [
          { list_type: "backlog", position: null, label: null },
          { list_type: "label", position: 0, label: keptLabel },
        ],
      },
    ]);
    expect(readFileSync(statePath, "utf8")).not.toContain("ppppp");
  });

  it("a long import lets other requests in: a read and a write sent while it runs are answered before it", async () => {
    // At the limits: the most groups, and rows storing close to the most an import may.
    const description = "d".repeat(Math.floor(IMPORT_LIMITS.maxStored / 2000) - 200);
    const heavy = archive({
      subgroups: IMPORT_LIMITS.maxGroups - 1,
      files: {
        "tree/groups/1/milestones.ndjson": ndjson(
          Array.from({ length: 2000 }, (_, i) => ({ iid: i + 1, title: `m${i}`, description })),
        ),
      },
    });
    const order: string[] = [];
    const during: Promise<unknown>[] = [];
    onImport = () => {
      onImport = undefined;
      order.push("import received");
      during.push(
        c.call("GET", "/version").then((r) => order.push(`version ${r.status}`)),
        c
          .call("POST", "/groups", { token: "user-token", json: { name: "Meanwhile", path: "meanwhile" } })
          .then((r) => order.push(`write ${r.status}`)),
      );
    };
    const groups = groupCount();
    const r = await upload(heavy, { name: "Heavy", path: "heavy" });
    order.push(`import ${r.status}`);
    await Promise.all(during);
    expect(order.slice(0, 1)).toEqual(["import received"]);
    expect(order.slice(1, 3).sort()).toEqual(["version 200", "write 201"]);
    expect(order[3]).toBe("import 202");
    expect(received.indexOf("GET /api/v4/version")).toBeGreaterThan(
      received.indexOf("POST /api/v4/groups/import"),
    );
    expect(groupCount()).toBe(groups + IMPORT_LIMITS.maxGroups + 1);
    expect((await c.admin("GET", "/groups/heavy%2Fg1000")).status).toBe(200);
    const milestones = await c.admin("GET", "/groups/heavy/milestones?per_page=1");
    expect(milestones.headers.get("x-total")).toBe("2000");
  });
});

describe("group import and export: who may, one role apart", () => {
  let c: Client;
  const upload = async (token: string, fields: Record<string, string>) =>
    (await importGroup(c, token, archive(), fields)).status;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const roles = ["guest", "reporter", "developer", "maintainer", "owner"] as const;
    c = await sandbox({
      fixture: {
        users: [
          ...roles.map((r) => ({ username: r, token: `${r}-token` })),
          { username: "contractor", token: "external-token", external: true },
          { username: "nobody", token: "nobody-token", can_create_group: false },
        ],
        groups: [
          {
            path: "owners-only",
            subgroup_creation_level: "owner",
            members: { ...Object.fromEntries(roles.map((r) => [r, r])), contractor: "owner" },
          },
          {
            path: "maintainers-too",
            subgroup_creation_level: "maintainer",
            members: Object.fromEntries(roles.map((r) => [r, r])),
          },
        ],
      },
    });
    for (const g of c.sb.store.data.groups) ids[g.path] = g.id;
  });
  afterAll(() => c.sb.stop());

  it("into a parent whose subgroups only Owners create: a Maintainer is refused, an Owner is not", async () => {
    const parent = String(ids["owners-only"]);
    expect(await upload("maintainer-token", { name: "M", path: "m", parent_id: parent })).toBe(403);
    expect(await upload("owner-token", { name: "O", path: "o", parent_id: parent })).toBe(202);
  });

  it("into a parent whose subgroups Maintainers create: a Developer is refused, a Maintainer is not", async () => {
    const parent = String(ids["maintainers-too"]);
    expect(await upload("developer-token", { name: "D", path: "d", parent_id: parent })).toBe(403);
    expect(await upload("maintainer-token", { name: "M", path: "m", parent_id: parent })).toBe(202);
  });

  it("a top-level group needs create_group: refused without it and to external users, as on the platform", async () => {
    expect(await upload("nobody-token", { name: "N", path: "n-top" })).toBe(403);
    expect(await upload("external-token", { name: "E", path: "e-top" })).toBe(403);
    expect(await upload("guest-token", { name: "G", path: "g-top" })).toBe(202);
    // Inside a group where its role allows it, an external user may import, as it may create subgroups.
    expect(
      await upload("external-token", { name: "E", path: "e", parent_id: String(ids["owners-only"]) }),
    ).toBe(202);
  });

  it("export and its download need Owner: a Maintainer is refused", async () => {
    expect((await c.call("POST", "/groups/owners-only/export", { token: "maintainer-token" })).status).toBe(
      403,
    );
    expect((await c.call("POST", "/groups/owners-only/export", { token: "owner-token" })).status).toBe(202);
    const download = (token: string) => c.call("GET", "/groups/owners-only/export/download", { token });
    expect((await download("maintainer-token")).status).toBe(403);
    expect((await download("owner-token")).status).toBe(200);
  });
});
