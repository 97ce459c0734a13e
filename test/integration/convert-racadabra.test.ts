/**
 * gitlabracadabra's own apply of an action file against the sandbox, then forgeform's plan of what `forgeform
 * convert --from gitlabracadabra` made of the same file: no changes, so the conversion means what the source
 * means (templates with each merge strategy, an included file, groups, projects, settings, variables, labels,
 * milestones, hooks, schedules, prune policies and the instance's settings). What this version cannot take is in
 * the report, not in the plan.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { racadabraMissing, racadabraRunner } from "../conformance/racadabra.js";
import { itNeeding } from "../required.js";
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

interface JsonReport {
  files: string[];
  items: { type: string; file: string; line: number; source: string; message: string; env?: string }[];
}

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
        const converted = await bench.cli([
          "convert",
          "--from",
          "gitlabracadabra",
          join(FIXTURE, "main.yml"),
          "--out",
          out,
          "--format",
          "json",
        ]);
        expect(converted.code, converted.err + converted.out).toBe(0);
        const report = JSON.parse(converted.out) as JsonReport;
        // One file per action file, the included one too.
        expect(readdirSync(out).sort()).toEqual(["main.yaml", "shared.yaml"]);
        expect(
          report.items
            .filter((i) => i.type === "secret")
            .map((i) => i.env)
            .sort(),
        ).toEqual(Object.keys(ENV).sort());
        // No secret of the source is in a written file or in the report.
        const written = readdirSync(out).map((f) => readFileSync(join(out, f), "utf8"));
        for (const value of Object.values(ENV)) {
          for (const text of [...written, converted.out]) expect(text).not.toContain(value);
        }

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
