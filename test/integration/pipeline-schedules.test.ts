import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, FIXTURE, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";
import { startProxy, startRecorder } from "./proxy.js";

interface Schedule {
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
}

const project = 'project["acme/platform/api"]';

function manifest(s: Schedule | undefined, policy?: "warn" | "delete", variables = ""): string {
  return `version: 1
projects:
  acme/platform/api:
    pipeline_schedules:${s ? "" : " []"}
${
  s
    ? `      - description: Nightly
        ref: ${s.ref}
        cron: "${s.cron}"
        cron_timezone: "${s.cron_timezone}"
        active: ${s.active}
${variables}`
    : ""
}${policy ? `    unmanaged:\n      pipeline_schedules: ${policy}\n` : ""}`;
}

describe("pipeline schedules", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("goes through the whole lifecycle, field by field", async () => {
    const base: Schedule = { ref: "main", cron: "0 2 * * *", cron_timezone: "UTC", active: true };
    await lifecycle({
      bench,
      address: `${project}.pipeline_schedule["Nightly"]`,
      render: (v, policy) => manifest(v, policy),
      base,
      edits: [
        { values: { ...base, ref: "release" }, fields: ["ref"] },
        { values: { ...base, ref: "release", cron: "30 3 * * 1-5" }, fields: ["cron"] },
        {
          values: { ...base, ref: "release", cron: "30 3 * * 1-5", cron_timezone: "Europe/Berlin" },
          fields: ["cron_timezone"],
        },
        {
          values: { ref: "release", cron: "30 3 * * 1-5", cron_timezone: "Europe/Berlin", active: false },
          fields: ["active"],
        },
      ],
      without: (policy) => manifest(undefined, policy),
      read: async () =>
        (
          await bench.get<Record<string, unknown>[]>("/projects/acme%2Fplatform%2Fapi/pipeline_schedules")
        ).filter((x) => x["description"] === "Nightly"),
      expected: (v) => ({ ...v }),
    });
  });

  it("treats a full ref and a friendly time-zone name like their short forms", async () => {
    const file = bench.manifest(
      manifest({ ref: "refs/heads/main", cron: "0 2 * * *", cron_timezone: "UTC", active: true }),
    );
    await apply(bench, file);
    const same = bench.manifest(
      manifest({ ref: "main", cron: "0  2 * * *", cron_timezone: "Etc/UTC", active: true }),
    );
    await expectNoChanges(bench, same);
  });

  it("manages variables one by one and never re-creates the others", async () => {
    const schedule: Schedule = { ref: "main", cron: "0 2 * * *", cron_timezone: "UTC", active: true };
    const vars = (list: [string, string, string?][], policy?: string) =>
      `        variables:\n${list
        .map(
          ([k, v, t]) =>
            `          - key: ${k}\n            value: "${v}"\n${t ? `            variable_type: ${t}\n` : ""}`,
        )
        .join("")}${policy ? `        unmanaged:\n          variables: ${policy}\n` : ""}`;
    const address = `${project}.pipeline_schedule["Nightly"]`;
    const first = bench.manifest(
      manifest(
        schedule,
        undefined,
        vars([
          ["A", "1"],
          ["B", "2"],
        ]),
      ),
    );
    await apply(bench, first);
    await expectNoChanges(bench, first);

    const second = bench.manifest(
      manifest(
        schedule,
        undefined,
        vars([
          ["A", "1"],
          ["B", "3", "file"],
          ["C", "4"],
        ]),
      ),
    );
    const plan = await planJson(bench, second);
    expectChanges(plan, [
      { address: `${address}.variable["B"]`, action: "update", fields: ["value", "variable_type"] },
      { address: `${address}.variable["C"]`, action: "create" },
    ]);
    // Values are sensitive: masked in the plan.
    expect(JSON.stringify(plan)).not.toContain('"3"');
    await apply(bench, second);
    await expectNoChanges(bench, second);

    const warn = bench.manifest(manifest(schedule, undefined, vars([["A", "1"]])));
    expectChanges(await planJson(bench, warn), [
      { address: `${address}.variable["B"]`, action: "unmanaged" },
      { address: `${address}.variable["C"]`, action: "unmanaged" },
    ]);
    const prune = bench.manifest(manifest(schedule, undefined, vars([["A", "1"]], "delete")));
    expectChanges(await planJson(bench, prune), [
      { address: `${address}.variable["B"]`, action: "delete" },
      { address: `${address}.variable["C"]`, action: "delete" },
    ]);
    await apply(bench, prune);
    await expectNoChanges(bench, prune);
  });

  it("creates a replaced schedule's variables again after it (--replace), deletes none by hand, and plans nothing after", async () => {
    const schedule: Schedule = { ref: "main", cron: "0 4 * * *", cron_timezone: "UTC", active: true };
    const address = `${project}.pipeline_schedule["Nightly"]`;
    const file = bench.manifest(
      manifest(
        schedule,
        undefined,
        '        variables:\n          - key: KEEP\n            value: "kept"\n        unmanaged:\n          variables: delete\n',
      ),
    );
    await apply(bench, file);
    await expectNoChanges(bench, file);
    // An undeclared variable, which the policy deletes: the platform deletes it with the schedule, so the plan of the
    // replace sends nothing for it (a DELETE after the schedule's would fail).
    const [live] = await bench.get<{ id: number; description: string }[]>(
      "/projects/acme%2Fplatform%2Fapi/pipeline_schedules",
    );
    await bench.send("POST", `/projects/acme%2Fplatform%2Fapi/pipeline_schedules/${live!.id}/variables`, {
      key: "EXTRA",
      value: "x",
    });

    const replace = ["--replace", address];
    // Deleting the schedule deletes its variables: the one declared is created again, after the new schedule.
    const plan = await planJson(bench, file, replace);
    expectChanges(plan, [
      { address, action: "replace" },
      { address: `${address}.variable["KEEP"]`, action: "create" },
    ]);
    await apply(bench, file, replace);
    await expectNoChanges(bench, file);
    const [after] = await bench.get<{ id: number }[]>("/projects/acme%2Fplatform%2Fapi/pipeline_schedules");
    expect(after!.id).not.toBe(live!.id);
    const detail = await bench.get<{ variables: { key: string; value: string }[] }>(
      `/projects/acme%2Fplatform%2Fapi/pipeline_schedules/${after!.id}`,
    );
    expect(detail.variables.map((v) => [v.key, v.value])).toEqual([["KEEP", "kept"]]);
  });

  it("takes ownership only when the manifest allows it and someone else owns the schedule", async () => {
    const writes: string[] = [];
    const owned = await Bench.start({
      onRequest: (method: string, path: string) => {
        if (method !== "GET") writes.push(`${method} ${path.split("?")[0]}`);
      },
      fixture: {
        ...FIXTURE,
        pipeline_schedules: [
          {
            project: "acme/platform/api",
            description: "Owned by Alice",
            cron: "0 4 * * *",
            ref: "main",
            owner: "alice",
          },
        ],
      },
    });
    try {
      const schedule = (take?: boolean) => `version: 1
projects:
  acme/platform/api:
    pipeline_schedules:
      - description: Owned by Alice
        ref: main
        cron: "0 4 * * *"
${take === undefined ? "" : `        take_ownership: ${take}\n`}`;
      await expectNoChanges(owned, owned.manifest(schedule()));
      await expectNoChanges(owned, owned.manifest(schedule(false)));
      // Another change without take_ownership leaves the owner alone.
      await apply(owned, owned.manifest(schedule().replace('"0 4 * * *"', '"0 5 * * *"'), "cron.yaml"));
      const before = await owned.get<{ description: string; cron: string; owner: { username: string } }[]>(
        "/projects/acme%2Fplatform%2Fapi/pipeline_schedules",
      );
      expect(before.find((s) => s.description === "Owned by Alice")).toMatchObject({
        cron: "0 5 * * *",
        owner: { username: "alice" },
      });
      await apply(owned, owned.manifest(schedule()));
      const take = owned.manifest(schedule(true));
      const plan = await planJson(owned, take);
      expectChanges(plan, [
        { address: `${project}.pipeline_schedule["Owned by Alice"]`, action: "update", fields: ["owner"] },
      ]);
      expect(plan.changes[0]?.fields[0]).toMatchObject({ before: "alice", after: "root" });
      writes.length = 0;
      await apply(owned, take);
      // Ownership only: one call, no edit of the schedule's settings.
      expect(writes).toEqual([
        "POST /api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules/1/take_ownership",
      ]);
      await expectNoChanges(owned, take);
      const list = await owned.get<{ description: string; owner: { username: string } }[]>(
        "/projects/acme%2Fplatform%2Fapi/pipeline_schedules",
      );
      expect(list.find((s) => s.description === "Owned by Alice")?.owner.username).toBe("root");
    } finally {
      await owned.stop();
    }
  });

  it("reads a declared schedule's detail once per plan, and its variables with it", async () => {
    const gets: string[] = [];
    const counted = await Bench.start({
      onRequest: (method: string, path: string) => {
        if (method === "GET" && path.includes("/pipeline_schedules")) gets.push(path.split("?")[0]!);
      },
      fixture: FIXTURE,
    });
    try {
      const file = counted.manifest(
        manifest(
          { ref: "main", cron: "0 2 * * *", cron_timezone: "UTC", active: true },
          undefined,
          '        variables:\n          - key: A\n            value: "1"\n',
        ),
      );
      await apply(counted, file);
      gets.length = 0;
      expectChanges(await planJson(counted, file), []);
      // The list, then the detail view of the declared schedule, which holds its variables: nothing else.
      expect(gets).toEqual([
        "/api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules",
        "/api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules/1",
      ]);
    } finally {
      await counted.stop();
    }
  });

  it("sends the unchecked settings of a schedule and of its variables as written when they change", async () => {
    const own = await Bench.start({ fixture: FIXTURE });
    const recorder = await startRecorder(own.sandbox.url);
    try {
      const schedule = (unchecked: string, variableUnchecked: string) => `version: 1
projects:
  acme/platform/api:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
${unchecked}        variables:
          - key: A
            value: "1"
${variableUnchecked}`;
      await apply(own, own.manifest(schedule("", "")));
      const file = own.manifest(
        schedule(
          "        unchecked:\n          pipeline_name: nightly build\n",
          "            unchecked:\n              raw: true\n",
        ),
      );
      const address = `${project}.pipeline_schedule["Nightly"]`;
      expectChanges(await planJson(own, file), [
        { address, action: "update", fields: ["unchecked.pipeline_name"] },
        { address: `${address}.variable["A"]`, action: "update", fields: ["unchecked.raw"] },
      ]);
      await apply(own, file, ["--url", recorder.url]);
      const writes = recorder.requests.filter((r) => r.method !== "GET");
      expect(writes).toEqual([
        {
          method: "PUT",
          path: "/api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules/1",
          body: { pipeline_name: "nightly build" },
        },
        {
          method: "PUT",
          path: "/api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules/1/variables/A",
          body: { value: "1", raw: true },
        },
      ]);
    } finally {
      await recorder.close();
      await own.stop();
    }
  });

  it("plans taking ownership of a schedule that has no owner (its owner's account was deleted)", async () => {
    const own = await Bench.start({
      fixture: {
        ...FIXTURE,
        pipeline_schedules: [
          { project: "acme/platform/api", description: "Orphan", cron: "0 4 * * *", ref: "main" },
        ],
      },
    });
    // The platform shows such a schedule with `owner: null`; the sandbox always keeps one, so a proxy drops it.
    const proxy = await startProxy(own.sandbox.url, async (req, res) => {
      if (req.method !== "GET" || !/\/pipeline_schedules(\/\d+)?(\?|$)/.test(req.url ?? "")) return false;
      const answer = await fetch(`${own.sandbox.url}${req.url}`, {
        headers: { "PRIVATE-TOKEN": String(req.headers["private-token"]) },
      });
      const body = (await answer.json()) as Record<string, unknown> | Record<string, unknown>[];
      for (const s of Array.isArray(body) ? body : [body]) s["owner"] = null;
      res.writeHead(answer.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
      return true;
    });
    try {
      const file = own.manifest(`version: 1
projects:
  acme/platform/api:
    pipeline_schedules:
      - description: Orphan
        ref: main
        cron: "0 4 * * *"
        take_ownership: true
`);
      const plan = await planJson(own, file, ["--url", proxy.url]);
      expectChanges(plan, [
        { address: `${project}.pipeline_schedule["Orphan"]`, action: "update", fields: ["owner"] },
      ]);
      expect(plan.changes[0]?.fields[0]).toMatchObject({ before: null, after: "root" });
    } finally {
      await proxy.close();
      await own.stop();
    }
  });
});
