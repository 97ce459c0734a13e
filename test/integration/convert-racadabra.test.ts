/**
 * gitlabracadabra's own apply of an action file against the sandbox, then forgeform's plan of what `forgeform
 * convert --from gitlabracadabra` made of the same file: no changes, so the conversion means what the source
 * means (templates with each merge strategy, an included file, groups, projects, settings, variables, labels,
 * milestones, hooks, schedules, prune policies and the instance's settings). What this version cannot take is in
 * the report, not in the plan.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { racadabraMissing, racadabraRunner } from "../conformance/racadabra.js";
import { itNeeding } from "../required.js";
import { convertInto, expectSecrets } from "./convert.js";
import { Bench } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/convert/gitlabracadabra/", import.meta.url));

/** The secrets of the fixture, by the variables the conversion names them with. */
const ENV: Record<string, string> = {
  CONV_GROUP_REGISTRY: "registry.conv.example",
  CONV_GROUP_CONFIG: "a: 1",
  API_DEPLOY_TOKEN: "abc~def:ghi123",
  API_PROD_ONLY_PRODUCTION: "prod-only-value",
  API_CI_CONV_EXAMPLE_URL_TOKEN: "hookQUERYsecret",
  API_CI_CONV_EXAMPLE_TOKEN: "webhook-token-value",
  API_BUILD_PACKAGES_MY_VAR: "my value",
  API_BUILD_PACKAGES_CONFIG_FILE: "some: yaml",
};

describe("convert --from gitlabracadabra: gitlabracadabra's apply, then a plan of the conversion", () => {
  itNeeding(racadabraMissing())(
    "plans no changes against what gitlabracadabra applied from the same action files",
    async () => {
      const bench = await Bench.start({ fixture: { users: [{ username: "rita" }, { username: "tom" }] } });
      try {
        const run = racadabraRunner(bench.sandbox, join(FIXTURE, "main.yml"), FIXTURE);
        const applied = await run();
        expect(applied.code, applied.out).toBe(0);
        expect(applied.out).not.toMatch(/ERROR|Traceback/);
        expect(applied.out).toContain("[conv/api] Creating project");
        // Its first run shares conv with conv-audit before it has found the new group; the second one does.
        const again = await run();
        expect(again.code, again.out).toBe(0);
        expect(again.out).not.toMatch(/ERROR|Traceback|not found/);

        const out = join(bench.dir, "converted");
        const converted = await convertInto(bench, "gitlabracadabra", join(FIXTURE, "main.yml"), out);
        // One file per action file, the included one too.
        expect(converted.names).toEqual(["main.yaml", "shared.yaml"]);
        expectSecrets(converted, ENV);

        const plan = await bench.cli(["plan", out, "--detailed-exitcode"], ENV);
        expect(plan.code, plan.out + plan.err).toBe(0);
        expect(plan.out).toMatch(/No changes/);
      } finally {
        await bench.stop();
      }
    },
    60_000,
  );
});
