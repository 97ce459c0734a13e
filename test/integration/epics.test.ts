import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { startProxy, startRecorder } from "./proxy.js";

interface ApiEpicIssue {
  iid: number;
  project_id: number;
  epic_issue_id: number;
}

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
  issues: [1, 2, 3, 4, 5].map((iid) => ({ project: "acme/api", iid, title: `issue ${iid}` })),
  epics: [
    { group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1", "acme/api#5"] },
    { group: "acme", iid: 2, title: "Cleanup", issues: ["acme/api#4"] },
  ],
};

const summary = (out: string) => out.trim().split("\n").at(-1);

describe("epic issue links", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const order = async (epic: number) =>
    (await bench.get<ApiEpicIssue[]>(`/groups/acme/epics/${epic}/issues`)).map((i) => i.iid);
  const manifest = (issues: number[], extra = "") =>
    bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
${extra}        issues:
${issues.map((i) => `          - { project: acme/api, iid: ${i} }`).join("\n")}
`);

  it("links issues in the declared order, then plans nothing", async () => {
    const file = manifest([1, 2, 3]);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ group["acme"].epic["1"].issue["acme/api#2"]');
    expect(plan.out).toContain('+ group["acme"].epic["1"].issue["acme/api#3"]');
    expect(plan.out).toContain('group["acme"].epic["1"].issue["acme/api#5"]');
    expect(plan.out).toContain("prune policy warn");
    expect(summary(plan.out)).toBe("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.");
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const live = await order(1);
    expect(live.filter((i) => i !== 5)).toEqual([1, 2, 3]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("reorders links with moves, and converges", async () => {
    expect((await bench.cli(["apply", "--yes", manifest([1, 2, 3])])).code).toBe(0);
    const file = manifest([3, 1, 2]);
    // Live 1, 2, 3; declared 3, 1, 2: issue 3 moves first and issue 1 after it; issue 2 stays after 1.
    const json = JSON.parse((await bench.cli(["plan", "--format", "json", file])).out) as {
      changes: {
        address: string;
        action: string;
        fields: { field: string; before?: unknown; after?: unknown }[];
      }[];
    };
    const link = (iid: number) => `group["acme"].epic["1"].issue["acme/api#${iid}"]`;
    const acting = json.changes.filter((c) => c.action !== "unmanaged");
    expect(acting.map((c) => [c.address, c.action, c.fields])).toEqual([
      [link(3), "update", [{ field: "after", before: "acme/api#2", after: "(first)" }]],
      [link(1), "update", [{ field: "after", before: "(first)", after: "acme/api#3" }]],
    ]);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(summary(plan.out)).toBe("Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await order(1)).filter((i) => i !== 5)).toEqual([3, 1, 2]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("moves an issue linked to another epic here", async () => {
    const file = manifest([3, 1, 2, 4]);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await order(1)).filter((i) => i !== 5)).toEqual([3, 1, 2, 4]);
    expect(await order(2)).toEqual([]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("removes links marked absent or undeclared under a delete policy", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        unmanaged:
          issues: delete
        issues:
          - { project: acme/api, iid: 3 }
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 2, state: absent }
          - { project: acme/api, iid: 4 }
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.out).toContain('- group["acme"].epic["1"].issue["acme/api#2"]');
    expect(plan.out).toContain('- group["acme"].epic["1"].issue["acme/api#5"]');
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(await order(1)).toEqual([3, 1, 4]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("matches project paths case-insensitively, as the platform does", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: Acme/API, iid: 3 }
          - { project: ACME/api, iid: 1 }
          - { project: acme/Api, iid: 4 }
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out).toBe(0);
  });

  it("links the issue of the number asked for, and says which issue of which project does not exist", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 2
        issues:
          - { project: acme/api, iid: 4 }
          - { project: acme/api, iid: 3 }
          - { project: acme/api, iid: 42 }
`);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(1);
    expect((apply.out + apply.err).replace(/\s+/g, " ")).toContain("issue #42 does not exist in acme/api");
    // Issue #3, not the first of the project's issues.
    expect(await order(2)).toEqual([4, 3]);
  });

  it("does not create epics: a missing epic is a plan error", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 99
        issues:
          - { project: acme/api, iid: 1 }
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\s+/g, " ")).toContain('epic "99" does not exist');
  });
});

describe("epic issue links: what apply sends", () => {
  const fresh = () =>
    Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }, { path: "acme/web" }],
        issues: [
          ...[1, 2, 3, 4].map((iid) => ({ project: "acme/api", iid, title: `api issue ${iid}` })),
          { project: "acme/web", iid: 1, title: "web issue 1" },
        ],
        epics: [
          { group: "acme", iid: 1, title: "Launch" },
          { group: "acme", iid: 2, title: "Cleanup" },
        ],
      },
    });
  const order = async (bench: Bench, epic: number) =>
    (await bench.get<ApiEpicIssue[]>(`/groups/acme/epics/${epic}/issues`)).map((i) => i.iid);

  it("links the issues of an empty epic in order: the first without a move, each next one after the one before", async () => {
    const bench = await fresh();
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 2 }
          - { project: acme/api, iid: 1 }
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
      expect(r.code, r.out + r.err).toBe(0);
      const links = await bench.get<ApiEpicIssue[]>("/groups/acme/epics/1/issues");
      expect(links.map((l) => l.iid)).toEqual([2, 1]);
      const writes = recorder.requests
        .filter((q) => q.method !== "GET")
        .map(
          (q) => `${q.method} ${q.path.replace(/^.*\/epics\//, "epics/")} ${JSON.stringify(q.body ?? {})}`,
        );
      const [second, first] = links.map((l) => l.epic_issue_id);
      expect(writes).toEqual([
        expect.stringMatching(/^POST epics\/1\/issues\/\d+ \{\}$/),
        expect.stringMatching(/^POST epics\/1\/issues\/\d+ \{\}$/),
        `PUT epics/1/issues/${first} {"move_before_id":${second}}`,
      ]);
      // The project is looked up once for both issues.
      expect(
        recorder.requests.filter((q) => q.method === "GET" && /\/projects\/acme%2Fapi$/.test(q.path)),
      ).toHaveLength(1);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("keeps each epic's order its own, and links issues of several projects", async () => {
    const bench = await fresh();
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 1 }
          - { project: acme/web, iid: 1 }
          - { project: acme/api, iid: 2 }
      - iid: 2
        issues:
          - { project: acme/api, iid: 4 }
          - { project: acme/api, iid: 3 }
`);
      const r = await bench.cli(["apply", "--yes", file]);
      expect(r.code, r.out + r.err).toBe(0);
      const links = await bench.get<(ApiEpicIssue & { title: string })[]>("/groups/acme/epics/1/issues");
      expect(links.map((l) => l.title)).toEqual(["api issue 1", "web issue 1", "api issue 2"]);
      expect(await order(bench, 2)).toEqual([4, 3]);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await bench.stop();
    }
  });

  it("links an issue only once the one it follows is linked, however long that takes", async () => {
    const bench = await fresh();
    const issueId = (await bench.get<{ id: number; iid: number }[]>("/projects/acme%2Fapi/issues")).find(
      (i) => i.iid === 2,
    )!.id;
    // The platform is slow to link issue 2: the link of issue 3, declared after it, must wait for it.
    const proxy = await startProxy(bench.sandbox.url, (req) => {
      if (req.method !== "POST" || !(req.url ?? "").endsWith(`/epics/1/issues/${issueId}`)) return false;
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300));
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 2 }
          - { project: acme/api, iid: 3 }
          - { project: acme/api, iid: 4 }
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code, r.out + r.err).toBe(0);
      expect(await order(bench, 1)).toEqual([1, 2, 3, 4]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });

  it("reads an epic's links once per plan", async () => {
    const gets: string[] = [];
    const bench = await Bench.start({
      onRequest: (method: string, path: string) => {
        if (method === "GET" && /\/epics\/\d+\/issues/.test(path)) gets.push(path.split("?")[0]!);
      },
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        issues: [1, 2].map((iid) => ({ project: "acme/api", iid, title: `issue ${iid}` })),
        epics: [{ group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1", "acme/api#2"] }],
      },
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 2 }
`);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
      expect(gets).toEqual([expect.stringMatching(/^\/api\/v4\/groups\/\w+\/epics\/1\/issues$/)]);
    } finally {
      await bench.stop();
    }
  });
});
