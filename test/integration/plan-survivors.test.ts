/**
 * What a plan does that no other test asserted, found through the mutants that survived the sampled mutation run of
 * src/engine (docs/engine-sample-survivors.txt says which test kills which): how a group delete's reason counts what
 * the platform deletes with the group, and that a project marked absent at a subgroup's path does not hide that
 * subgroup from it; a --target that leaves out the group a project would be created in; --shard over a file read
 * whole; a licensed-only collection on the core edition; and what a plan says of an object it cannot plan as
 * declared (a project in a group it deletes, an epic it cannot create, a kind's own refusal); and, from the second
 * stage's batches (docs/engine-batch-survivors.txt), which undeclared subgroups a plan reports next to a pattern.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerEdited, answerJson, startProxy } from "./proxy.js";

const fixture = {
  groups: [
    { path: "onlyprojects" },
    { path: "onlysubs" },
    { path: "onlysubs/s1" },
    { path: "mixed" },
    { path: "mixed/sub" },
  ],
  projects: [{ path: "onlyprojects/a" }, { path: "onlyprojects/b" }, { path: "mixed/p" }],
};

type JsonPlan = PlanV1;

describe("the reason of a group delete", () => {
  let bench: Bench;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
  });
  afterEach(async () => {
    await bench.stop();
  });

  const plan = async (yaml: string) => {
    const run = await bench.cli(["plan", "--no-backup", "--format", "json", bench.manifest(yaml)]);
    return { code: run.code, err: run.err, json: JSON.parse(run.out) as JsonPlan };
  };
  const reason = (json: JsonPlan, address: string) =>
    json.changes.find((c) => c.address === address && c.action === "delete")?.reason;

  it("counts only what there is: projects alone, or subgroups alone, each listed as deleted", async () => {
    const { code, err, json } = await plan(
      "version: 1\ngroups:\n  onlyprojects:\n    state: absent\n  onlysubs:\n    state: absent\n",
    );
    expect(code, err).toBe(0);
    expect(reason(json, 'group["onlyprojects"]')).toContain(
      "the platform deletes its 2 projects with it (each listed as deleted)",
    );
    expect(reason(json, 'group["onlysubs"]')).toContain(
      "the platform deletes its 1 subgroup with it (each listed as deleted)",
    );
  });

  it("says one of them is still in the manifests, in the singular", async () => {
    const { code, json } = await plan(
      "version: 1\ngroups:\n  mixed:\n    state: absent\nprojects:\n  mixed/p: {}\n",
    );
    expect(code).toBe(1);
    expect(reason(json, 'group["mixed"]')).toContain(
      "the platform deletes its 1 subgroup and 1 project with it (1 of them is still in the manifests: see the errors)",
    );
  });

  it("a project marked absent at a subgroup's path does not keep that subgroup out of the group's delete", async () => {
    // Only a project marked absent is deleted on its own before its group; a live subgroup at that path is not a
    // project, and goes with the group like any other: listed, and counted.
    const { code, err, json } = await plan(
      "version: 1\ngroups:\n  mixed:\n    state: absent\nprojects:\n  mixed/sub:\n    state: absent\n",
    );
    expect(code, err).toBe(0);
    expect(json.changes.find((c) => c.address === 'group["mixed/sub"]')).toMatchObject({
      action: "delete",
      deleted_with: 'group["mixed"]',
    });
    expect(reason(json, 'group["mixed"]')).toContain(
      "the platform deletes its 1 subgroup and 1 project with it (each listed as deleted)",
    );
    expect(json.summary.delete).toBe(3);
  });
});

describe("--target below a declared group", () => {
  let bench: Bench;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
  });
  afterEach(async () => {
    await bench.stop();
  });

  it("a project the target selects cannot be created in a group the target leaves out and the platform lacks", async () => {
    // The group is declared, but outside the target this plan does not create it: the project's create would fail.
    const manifest = bench.manifest(
      "version: 1\ngroups:\n  newgrp: {}\nprojects:\n  newgrp/api:\n    description: api\n",
    );
    const targeted = await bench.cli(["plan", "--target", "newgrp/api", manifest]);
    expect(targeted.code).toBe(1);
    expect(targeted.out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ")).toContain(
      'project "newgrp/api" does not exist, and it cannot be created: its group "newgrp" does not exist or is not visible to this token\'s user',
    );
    // With the group in the target, both are created, the group first.
    const whole = await bench.cli(["plan", "--target", "newgrp", manifest]);
    expect(whole.code, whole.out + whole.err).toBe(0);
    expect(whole.out.trim().split("\n").at(-1)).toBe(
      "Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.",
    );
  });
});

describe("--shard over a manifest read whole", () => {
  let bench: Bench;
  beforeEach(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "aa" }, { path: "bb" }] } });
  });
  afterEach(async () => {
    await bench.stop();
  });

  it("each shard plans only its own top-level groups, also when the file cannot be split by entry", async () => {
    // An alias makes the file one the outline cannot split: each shard reads it whole, and plans its part of it.
    const manifest = bench.manifest(
      "version: 1\ngroups:\n  aa:\n    description: &d changed\n  bb:\n    description: *d\n",
    );
    const changed: string[][] = [];
    for (const k of [1, 2]) {
      const run = await bench.cli(["plan", "--shard", `${k}/2`, "--format", "json", manifest]);
      expect(run.code, run.err).toBe(0);
      changed.push((JSON.parse(run.out) as JsonPlan).changes.map((c) => c.address));
    }
    expect(changed.map((c) => c.length)).toEqual([1, 1]);
    expect(changed.flat().sort()).toEqual(['group["aa"]', 'group["bb"]']);
  });
});

describe("a licensed-only collection on the core edition", () => {
  it("is a plan error at the collection's address, below its group; an empty one is none", async () => {
    const bench = await Bench.start({ fixture: { groups: [{ path: "acme" }] }, edition: "core" });
    try {
      const manifest = bench.manifest(
        "version: 1\ngroups:\n  acme:\n    hooks:\n      - url: https://hooks.example/ci\n",
      );
      const run = await bench.cli(["plan", "--format", "json", manifest]);
      expect(run.code).toBe(1);
      const errors = (
        JSON.parse(run.out) as { errors: { address: string; message: string; source?: unknown }[] }
      ).errors;
      expect(errors).toEqual([
        {
          address: 'group["acme"].hooks',
          message:
            "hooks exist only on the licensed edition, and this platform is the core edition: remove them from the manifest",
          source: expect.objectContaining({ line: 5, col: 9 }) as unknown,
        },
      ]);
      // None declared is what the core edition holds: nothing to read (the platform answers 404), nothing to say.
      for (const body of ["hooks: []", "epics: []"]) {
        const empty = await bench.cli([
          "plan",
          bench.manifest(`version: 1\ngroups:\n  acme:\n    ${body}\n`, "empty.yaml"),
        ]);
        expect(empty.code, empty.out + empty.err).toBe(0);
        expect(empty.out).toContain("No changes.");
      }
    } finally {
      await bench.stop();
    }
  });
});

const BADGE = (name: string) =>
  `{ name: ${name}, link_url: "https://d.example/${name}", image_url: "https://d.example/${name}.svg" }`;

interface JsonProblems {
  errors: { address: string; message: string; source?: { line: number; col: number } }[];
  warnings: { address: string; message: string; source?: { line: number; col: number } }[];
  changes: { address: string; action: string }[];
}

describe("what a plan says of an object it cannot plan as declared", () => {
  let bench: Bench;
  beforeEach(async () => {
    bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }, { path: "doomed" }],
        projects: [{ path: "acme/api" }],
        issues: [{ project: "acme/api", iid: 1, title: "issue 1" }],
        epics: [{ group: "acme", iid: 1, title: "Launch" }],
      },
    });
  });
  afterEach(async () => {
    await bench.stop();
  });

  const plan = async (yaml: string) => {
    const run = await bench.cli(["plan", "--format", "json", bench.manifest(yaml)]);
    return { code: run.code, json: JSON.parse(run.out) as JsonProblems };
  };

  it("plans nothing below a project it refuses to create in a group it deletes", async () => {
    const { code, json } = await plan(
      `version: 1\ngroups:\n  doomed:\n    state: absent\nprojects:\n  doomed/fresh:\n    badges:\n      - ${BADGE("a")}\n`,
    );
    expect(code).toBe(1);
    expect(json.errors.map((e) => e.address)).toEqual(['project["doomed/fresh"]']);
    expect(json.changes.filter((c) => c.address.startsWith('project["doomed/fresh"]'))).toEqual([]);
  });

  it("plans nothing below an epic it cannot create", async () => {
    const { code, json } = await plan(
      "version: 1\ngroups:\n  acme:\n    epics:\n      - iid: 99\n        issues:\n          - { project: acme/api, iid: 1 }\n",
    );
    expect(code).toBe(1);
    expect(json.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('epic "99" does not exist') as unknown as string,
    ]);
    expect(json.changes.filter((c) => c.address.includes("epic"))).toEqual([]);
  });

  it("puts an error a kind finds in a whole entry at the entry, not at a field", async () => {
    const { code, json } = await plan(
      "version: 1\nprojects:\n  acme/api:\n    wiki_pages:\n      - title: On call\n        slug: Runbook\n        content: x\n",
    );
    expect(code).toBe(1);
    expect(json.errors).toEqual([
      {
        address: 'project["acme/api"].wiki_page["Runbook"]',
        message: expect.stringContaining(
          'slug "Runbook" is not the one the platform derives from the title',
        ) as unknown as string,
        source: expect.objectContaining({ line: 5, col: 9 }) as unknown,
      },
    ]);
  });
});

describe("undeclared subgroups next to a groups pattern", () => {
  it("are reported below a group declared by path, not below the groups only the pattern matched", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [
          { path: "acme" },
          { path: "acme/sub1" },
          { path: "acme/sub1/x" },
          { path: "other" },
          { path: "other/y" },
        ],
      },
    });
    try {
      // `acme/*` sets what acme's subgroups hold; it does not put the trees below them under management.
      const run = await bench.cli([
        "plan",
        "--format",
        "json",
        bench.manifest(
          "version: 1\ngroups:\n  acme/*:\n    description: matched\n  other:\n    description: declared\n",
        ),
      ]);
      expect(run.code, run.err).toBe(0);
      const unmanaged = (JSON.parse(run.out) as JsonPlan).changes
        .filter((c) => c.action === "unmanaged")
        .map((c) => c.address);
      expect(unmanaged).toContain('group["other/y"]');
      expect(unmanaged).not.toContain('group["acme/sub1/x"]');
    } finally {
      await bench.stop();
    }
  });
});

describe("a project gone between its read and its collections'", () => {
  it("is a plan error at the project's entry in the manifest", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app", description: "x" }] },
    });
    // The project is read (it exists), then its badges' listing answers as for a project deleted meanwhile.
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (!/\/projects\/[^/]+\/badges/.test(req.url ?? "")) return false;
      return answerJson(res, 404, { message: "404 Project Not Found" });
    });
    try {
      const run = await bench.cli(
        [
          "plan",
          "--format",
          "json",
          bench.manifest("version: 1\nprojects:\n  acme/app:\n    description: y\n    badges: []\n"),
        ],
        { FORGEFORM_URL: proxy.url },
      );
      expect(run.code).toBe(1);
      const plan = JSON.parse(run.out) as JsonProblems;
      expect(plan.errors).toEqual([
        {
          address: 'project["acme/app"]',
          message: expect.stringContaining("no longer exists or is no longer visible") as unknown as string,
          source: expect.objectContaining({ line: 3, col: 3 }) as unknown,
        },
      ]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("H in the cron of a project declared by path", () => {
  it("is replaced by the project's stable value with no pattern in the manifests, as under one", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
    });
    try {
      const yaml = (entry: string) =>
        `version: 1\nprojects:\n${entry}  acme/app:\n    pipeline_schedules:\n      - { description: nightly, ref: main, cron: "H 3 * * *" }\n`;
      const cron = async (text: string) => {
        const run = await bench.cli(["plan", "--format", "json", bench.manifest(text)]);
        expect(run.code, run.err).toBe(0);
        const plan = JSON.parse(run.out) as { changes: { fields: { field: string; after?: unknown }[] }[] };
        return plan.changes.flatMap((c) => c.fields).find((f) => f.field === "cron")?.after;
      };
      const alone = await cron(yaml(""));
      expect(alone).toMatch(/^([0-9]|[1-5][0-9]) 3 \* \* \*$/);
      // The same minute when a pattern of other projects is declared too.
      expect(await cron(yaml("  other/*:\n    description: none match\n"))).toBe(alone);
    } finally {
      await bench.stop();
    }
  });
});

describe("a list under unchecked: compared in order", () => {
  it("plans an update when the platform holds the same values in another order (no schema says it is a set)", async () => {
    const bench = await Bench.start({ fixture: { groups: [{ path: "acme" }] } });
    // The platform's settings as a newer version would show them: a list forgeform's schema does not know.
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (req.method !== "GET" || !(req.url ?? "").startsWith("/api/v4/application/settings")) return false;
      return answerEdited(bench.sandbox.url, req, res, (settings) => {
        (settings as Record<string, unknown>)["allowed_widgets"] = ["beta", "alpha"];
      });
    });
    try {
      const plan = async (list: string) => {
        const run = await bench.cli(
          [
            "plan",
            "--format",
            "json",
            bench.manifest(
              `version: 1\ninstance:\n  application_settings:\n    unchecked:\n      allowed_widgets: [${list}]\n`,
            ),
          ],
          { FORGEFORM_URL: proxy.url },
        );
        expect(run.code, run.err).toBe(0);
        return (JSON.parse(run.out) as { changes: { fields: { field: string }[] }[] }).changes.flatMap((c) =>
          c.fields.map((f) => f.field),
        );
      };
      expect(await plan("beta, alpha")).toEqual([]);
      expect(await plan("alpha, beta")).toEqual(["unchecked.allowed_widgets"]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});
