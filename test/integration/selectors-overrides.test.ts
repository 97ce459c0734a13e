/**
 * A more specific entry changes one field of an item a pattern declares, without repeating the rest: the issue's
 * own example, "acme/platform/api runs its schedule at 03:00". Required keys may be left to a less specific entry
 * that covers the whole entry and declares the same item; validation says so where no pattern can give them, and
 * the plan where the pattern does not apply to the object after all (an archived project).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { fixture } from "./selectors-fixture.js";

const POLICY = `version: 1
projects:
  acme/**:
    except: [acme/legacy]
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: MODE, value: full }
`;

describe("selectors: an entry changes one field of a pattern's item", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const schedules = (p: string) =>
    bench.get<{ id: number; description: string; cron: string; ref: string }[]>(
      `/projects/${encodeURIComponent(p)}/pipeline_schedules`,
    );

  it("takes the other fields from the pattern, at two levels, and converges", async () => {
    const files = [
      bench.manifest(POLICY, "policy.yaml"),
      // In another file: the exact path changes the cron and one variable's value, nothing else.
      bench.manifest(
        `version: 1
projects:
  acme/platform/*:
    pipeline_schedules:
      - { description: Nightly, cron: "30 2 * * *" }
  acme/platform/api:
    pipeline_schedules:
      - description: Nightly
        cron: "0 3 * * *"
        variables:
          - { key: MODE, value: quick }
`,
        "api.yaml",
      ),
    ];
    const validate = await bench.cli(["validate", ...files]);
    expect(validate.code, validate.out + validate.err).toBe(0);
    const apply = await bench.cli(["apply", "--yes", ...files]);
    expect(apply.code, apply.out + apply.err).toBe(0);

    const api = await schedules("acme/platform/api");
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({ description: "Nightly", ref: "main", cron: "0 3 * * *" });
    const web = await schedules("acme/platform/web");
    expect(web[0]).toMatchObject({ ref: "main", cron: "30 2 * * *" });
    expect((await schedules("acme/tools/cli"))[0]).toMatchObject({ cron: "0 2 * * *" });
    const detail = await bench.get<{ variables: { key: string; value: string }[] }>(
      `/projects/${encodeURIComponent("acme/platform/api")}/pipeline_schedules/${api[0]!.id}`,
    );
    expect(detail.variables).toEqual([expect.objectContaining({ key: "MODE", value: "quick" })]);

    const again = await bench.cli(["plan", "--detailed-exitcode", ...files]);
    expect(again.code, again.out).toBe(0);
    const explain = await bench.cli(["explain", "acme/platform/api", ...files]);
    expect(explain.code, explain.err).toBe(0);
    expect(explain.out).toMatch(/ref: "main" +# projects\["acme\/\*\*"\] \S+policy\.yaml:7:\d+/);
    expect(explain.out).toMatch(
      /cron: "0 3 \* \* \*" +# projects\["acme\/platform\/api"\] \S+api\.yaml:9:\d+/,
    );
  });

  it("is a validation error where no less specific entry can give the key", async () => {
    const files = [
      bench.manifest(POLICY, "policy.yaml"),
      // acme/legacy is left out of the policy by except:, and other/thing is outside it.
      bench.manifest(
        `version: 1
projects:
  acme/legacy/monolith:
    pipeline_schedules:
      - { description: Nightly, cron: "0 4 * * *" }
  other/thing:
    pipeline_schedules:
      - { description: Nightly, cron: "0 4 * * *" }
  acme/tools/cli:
    pipeline_schedules:
      - { description: Weekly, cron: "0 4 * * 1" }
`,
        "partial.yaml",
      ),
    ];
    const validate = await bench.cli(["validate", ...files]);
    expect(validate.code).toBe(1);
    const out = validate.out + validate.err;
    expect(out).toMatch(
      /partial\.yaml:5:\d+: projects\["acme\/legacy\/monolith"\]\.pipeline_schedules\[0\]\.ref: missing required key "ref"/,
    );
    expect(out).toMatch(
      /partial\.yaml:8:\d+: projects\["other\/thing"\]\.pipeline_schedules\[0\]\.ref: missing required key "ref"/,
    );
    // A schedule the pattern does not declare (another identity) needs all its keys.
    expect(out).toMatch(
      /partial\.yaml:11:\d+: projects\["acme\/tools\/cli"\]\.pipeline_schedules\[0\]\.ref: missing required key "ref"/,
    );
  });

  it("is a plan error, before any request writes, where the pattern does not apply to the object", async () => {
    // acme/tools/old is archived: acme/** leaves it out (no include_archived), so nothing gives the ref.
    const files = [
      bench.manifest(POLICY, "policy.yaml"),
      bench.manifest(
        `version: 1
projects:
  acme/tools/old:
    pipeline_schedules:
      - { description: Nightly, cron: "0 5 * * *" }
`,
        "archived.yaml",
      ),
    ];
    expect((await bench.cli(["validate", ...files])).code).toBe(0);
    const before = await schedules("acme/tools/old");
    const apply = await bench.cli(["apply", "--yes", ...files]);
    expect(apply.code).toBe(1);
    expect((apply.out + apply.err).replace(/\s+/g, " ")).toContain(
      'missing required key "ref": this entry leaves it to a pattern entry declaring the same item, and none applies to acme/tools/old: declare it here',
    );
    expect(apply.out + apply.err).toMatch(/archived\.yaml:5:\d+:\s+project\["acme\/tools\/old"\]/);
    expect(apply.out + apply.err).toContain("nothing was applied");
    expect(await schedules("acme/tools/old")).toEqual(before);
  });

  it("names every key left to a pattern that does not apply, in the plural when there are several", async () => {
    // acme/tools/old is archived: acme/** leaves it out, so nothing gives the ref or the cron.
    const files = [
      bench.manifest(POLICY, "policy.yaml"),
      bench.manifest(
        `version: 1
projects:
  acme/tools/old:
    pipeline_schedules:
      - { description: Nightly }
`,
        "bare.yaml",
      ),
    ];
    const plan = await bench.cli(["plan", ...files]);
    expect(plan.code).toBe(1);
    expect((plan.out + plan.err).replace(/\s+/g, " ")).toContain(
      'missing required keys "ref", "cron": this entry leaves them to a pattern entry declaring the same item, and none applies to acme/tools/old: declare them here',
    );
  });
});
