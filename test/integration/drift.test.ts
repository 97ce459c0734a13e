import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const MANIFEST = `version: 1
groups:
  acme:
    description: The ACME company
  acme/platform:
    description: Platform team
instance:
  broadcast_messages: []
`;

interface DriftJson {
  kind: string;
  drift: boolean;
  summary: { drifted: number; missing: number; unmanaged: number; would_delete: number };
  items: {
    address: string;
    status: string;
    fields: { field: string; live?: unknown; declared?: unknown }[];
  }[];
  errors: unknown[];
}

describe("forgeform drift against the sandbox", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    bench = await Bench.start();
    file = bench.manifest(MANIFEST);
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("exits 0 and says so when the live state matches the manifests", async () => {
    const drift = await bench.cli(["drift", file]);
    expect(drift.err).toBe("");
    expect(drift.code).toBe(0);
    expect(drift.out).toContain("No drift. The live state matches the manifests.");
    expect(drift.out.trim().split("\n").at(-1)).toBe(
      "Drift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.",
    );
    const json = JSON.parse((await bench.cli(["drift", "--format", "json", file])).out) as DriftJson;
    expect(json.drift).toBe(false);
    expect(json.items).toEqual([]);
  });

  it("counts a project that declares only what is inside it as in sync when that matches", async () => {
    const group = await bench.get<{ id: number }>("/groups/acme%2Fplatform");
    await bench.send("POST", "/projects", { name: "tool", path: "tool", namespace_id: group.id });
    const m = bench.manifest(`${MANIFEST}projects:\n  acme/platform/tool:\n    badges: []\n`, "tool.yaml");
    const drift = await bench.cli(["drift", "--format", "json", m]);
    expect(drift.code, drift.err).toBe(0);
    expect((JSON.parse(drift.out) as { in_sync: string[] }).in_sync).toContain(
      'project["acme/platform/tool"]',
    );
  });

  it("never lists in sync an object whose path holds a value of the run's references", async () => {
    const variable = `    variables:\n      - { key: TEAM, value: "\${env:DRIFT_TEAM}" }\n`;
    const m = bench.manifest(
      MANIFEST.replace("    description: Platform team\n", `    description: Platform team\n${variable}`),
      "secret-path.yaml",
    );
    const env = { DRIFT_TEAM: "platform" };
    const applied = await bench.cli(["apply", "--yes", m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const drift = await bench.cli(["drift", "--format", "json", m], env);
    expect(drift.code, drift.err).toBe(0);
    const inSync = (JSON.parse(drift.out) as { in_sync: string[] }).in_sync;
    expect(inSync).toContain('group["acme/(sensitive)"]');
    expect(drift.out).not.toContain("platform");
  });

  it("with only unmanaged objects under prune policy warn, every report agrees with exit 0", async () => {
    const message = (await bench.send("POST", "/broadcast_messages", { message: "Left alone" })) as {
      id: number;
    };
    try {
      const json = await bench.cli(["drift", "--format", "json", file]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({
        drift: false,
        fail_on_unmanaged: false,
        summary: { unmanaged: 1 },
      });
      const junit = await bench.cli(["drift", "--format", "junit", file]);
      expect(junit.code).toBe(0);
      expect(junit.out).not.toContain("<failure");
      expect(junit.out).toMatch(/<testsuites name="forgeform drift" tests="\d+" failures="0" errors="0">/);
      const strict = await bench.cli(["drift", "--format", "json", "--fail-on-unmanaged", file]);
      expect(strict.code).toBe(2);
      expect(JSON.parse(strict.out)).toMatchObject({ drift: true, fail_on_unmanaged: true });
    } finally {
      await bench.send("DELETE", `/broadcast_messages/${message.id}`);
    }
  });

  describe("after the live state moved away from the manifests", () => {
    let messageId: number;
    beforeAll(async () => {
      await bench.send("PUT", "/groups/acme", { description: "Changed by hand" });
      const message = (await bench.send("POST", "/broadcast_messages", {
        message: "Hand-made notice",
      })) as { id: number };
      messageId = message.id;
      file = bench.manifest(
        MANIFEST.replace(
          "instance:",
          "  acme/missing:\n    description: Declared but never applied\ninstance:",
        ),
      );
    });

    it("reports drifted fields, missing objects and unmanaged objects as text and exits 2", async () => {
      const drift = await bench.cli(["drift", file]);
      expect(drift.code).toBe(2);
      expect(drift.out).toContain("live -> declared");
      expect(drift.out).toContain('~ group["acme"]');
      expect(drift.out).toContain('"Changed by hand" -> "The ACME company"');
      expect(drift.out).toContain('+ group["acme/missing"]');
      expect(drift.out).toContain('! instance.broadcast_message["Hand-made notice"]');
      expect(drift.out).not.toContain('group["acme/platform"]');
      expect(drift.out.trim().split("\n").at(-1)).toBe(
        "Drift: 1 drifted, 1 missing, 1 unmanaged, 0 would be deleted.",
      );
      // Nothing was changed.
      const live = await bench.get<{ description: string }>("/groups/acme");
      expect(live.description).toBe("Changed by hand");
      await expect(bench.get("/groups/acme%2Fmissing")).rejects.toThrow(/404/);
      await bench.get(`/broadcast_messages/${messageId}`);
    });

    it("says which live objects applying would delete under prune policy delete", async () => {
      const prune = bench.manifest(`${MANIFEST}  unmanaged: { broadcast_messages: delete }\n`, "prune.yaml");
      const drift = await bench.cli(["drift", "--format", "json", prune]);
      expect(drift.code).toBe(2);
      const json = JSON.parse(drift.out) as DriftJson;
      expect(json.summary).toEqual({ drifted: 1, missing: 0, unmanaged: 0, would_delete: 1 });
      expect(json.items.find((i) => i.status === "would_delete")?.address).toBe(
        'instance.broadcast_message["Hand-made notice"]',
      );
    });

    it("writes versioned JSON with live and declared values", async () => {
      const drift = await bench.cli(["drift", "--format", "json", file]);
      expect(drift.code).toBe(2);
      const json = JSON.parse(drift.out) as DriftJson;
      expect(json.kind).toBe("drift");
      expect(json.drift).toBe(true);
      expect(json.summary).toEqual({ drifted: 1, missing: 1, unmanaged: 1, would_delete: 0 });
      const acme = json.items.find((i) => i.address === 'group["acme"]');
      expect(acme?.status).toBe("drifted");
      expect(acme?.fields).toContainEqual(
        expect.objectContaining({
          field: "description",
          live: "Changed by hand",
          declared: "The ACME company",
        }),
      );
      expect(json.items.map((i) => i.status).sort()).toEqual(["drifted", "missing", "unmanaged"]);
    });

    it("writes a Markdown report with a summary table", async () => {
      const drift = await bench.cli(["drift", "--format", "markdown", file]);
      expect(drift.code).toBe(2);
      expect(drift.out).toContain("forgeform drift report");
      expect(drift.out).toMatch(/\| *Drifted *\|/);
      expect(drift.out).toContain("acme/missing");
      expect(drift.out).toContain("Drift: 1 drifted, 1 missing, 1 unmanaged, 0 would be deleted.");
    });

    it("writes JUnit XML with a failure per drift item and a passing case per object in sync", async () => {
      const drift = await bench.cli(["drift", "--format", "junit", file]);
      expect(drift.code).toBe(2);
      const xml = drift.out;
      expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
      expect(xml).toContain('<testsuite name="group[&quot;acme&quot;]"');
      expect(xml).toContain(
        '<testcase name="group[&quot;acme/platform&quot;]" classname="group[&quot;acme/platform&quot;]"/>',
      );
      expect(xml).toMatch(
        /<failure type="drifted" message="drifted: description differs from the manifests"/,
      );
      expect(xml).toMatch(/<failure type="missing"/);
      // Unmanaged under prune policy warn: reported, not a failure, as for the exit code.
      expect(xml).not.toMatch(/<failure type="unmanaged"/);
      expect(xml).toContain(
        "unmanaged: on the platform but not in the manifests (prune policy warn: reported, not a failure",
      );
      expect(xml).toMatch(/<testsuites name="forgeform drift" tests="4" failures="2" errors="0">/);
      const strict = await bench.cli(["drift", "--format", "junit", "--fail-on-unmanaged", file]);
      expect(strict.out).toMatch(/<failure type="unmanaged"/);
      expect(strict.out).toMatch(/<testsuites name="forgeform drift" tests="4" failures="3" errors="0">/);
    });

    it("writes the report to --out and further formats to --report FORMAT=FILE, leaving stdout empty", async () => {
      const out = join(bench.dir, "drift.md");
      const xml = join(bench.dir, "drift.xml");
      const json = join(bench.dir, "drift.json");
      const drift = await bench.cli([
        "drift",
        "--format",
        "markdown",
        "--out",
        out,
        "--report",
        `junit=${xml}`,
        "--report",
        `json=${json}`,
        file,
      ]);
      expect(drift.code).toBe(2);
      expect(drift.out).toBe("");
      expect(drift.err).toContain(`Wrote the markdown drift report to ${out}`);
      expect(readFileSync(out, "utf8")).toContain("forgeform drift report");
      expect(readFileSync(xml, "utf8")).toContain("<testsuites");
      expect((JSON.parse(readFileSync(json, "utf8")) as DriftJson).summary.missing).toBe(1);
    });

    it("limits the comparison to --target", async () => {
      const drift = await bench.cli(["drift", "--target", "instance", file]);
      // Only an unmanaged object under the default warn policy: reported, not failing.
      expect(drift.code).toBe(0);
      expect(drift.out).toContain("Limited to targets: instance");
      expect(drift.out).not.toContain("group[");
      expect(drift.out.trim().split("\n").at(-1)).toBe(
        "Drift: 0 drifted, 0 missing, 1 unmanaged, 0 would be deleted.",
      );
      const strict = await bench.cli(["drift", "--fail-on-unmanaged", "--target", "instance", file]);
      expect(strict.code).toBe(2);
    });
  });

  it("exits 1 on invalid manifests, naming the file and line, before any request", async () => {
    const bad = bench.manifest("version: 1\ngroups:\n  acme:\n    visibility: secret-ish\n", "bad.yaml");
    const drift = await bench.cli(["drift", bad]);
    expect(drift.code).toBe(1);
    expect(drift.out).toBe("");
    expect(drift.err).toMatch(/bad\.yaml:4:\d+: .*visibility/);
  });

  it("exits 1 on plan errors and still prints the report", async () => {
    const before = bench.manifest("version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n");
    expect((await bench.cli(["apply", "--yes", before])).code).toBe(0);
    const moved = bench.manifest(
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n",
      "moved.yaml",
    );
    const drift = await bench.cli(["drift", moved]);
    expect(drift.code).toBe(1);
    expect(drift.out).toContain('group["corp/east/team"]');
    expect(drift.err).toContain("kept parts of the live state from being compared");
  });

  it("exits 1 on an API error without printing the token", async () => {
    const drift = await bench.cli(["drift", file], { FORGEFORM_TOKEN: "wrong-token-123456" });
    expect(drift.code).toBe(1);
    expect(drift.err).toMatch(/401|unauthori[sz]ed|token/i);
    expect(drift.out + drift.err).not.toContain("wrong-token-123456");
  });

  it("exits 1 on an unknown --format, a malformed --report and an unwritable --out", async () => {
    const drift = await bench.cli(["drift", "--format", "yaml", file]);
    expect(drift.code).toBe(1);
    expect(drift.err).toContain("Allowed choices are text, json, markdown, junit");
    const report = await bench.cli(["drift", "--report", "drift.xml", file]);
    expect(report.code).toBe(1);
    expect(report.err).toContain("--report needs FORMAT=FILE");
    const unwritable = await bench.cli(["drift", "--out", join(bench.dir, "no/such/dir/drift.txt"), file]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.err).toMatch(
      /cannot write the report to .*drift\.txt \(ENOENT\): check that its directory exists/,
    );
  });

  it("cuts a large Markdown report below 65,000 characters and says what was left out", async () => {
    const groups = Array.from(
      { length: 700 },
      (_, i) =>
        `  big-${String(i).padStart(3, "0")}:\n    description: ${"A group declared but never created, to make a long report. ".repeat(2)}\n`,
    ).join("");
    const big = bench.manifest(`version: 1\ngroups:\n${groups}`, "big.yaml");
    const drift = await bench.cli(["drift", "--format", "markdown", big]);
    expect(drift.code).toBe(2);
    expect(drift.out.length).toBeLessThan(65_000);
    expect(drift.out).toMatch(/of 700 drift items are not shown/);
    expect(drift.out).toContain("Run `forgeform drift` for the full report.");
    const text = await bench.cli(["drift", big]);
    expect(text.out.trim().split("\n").at(-1)).toBe(
      "Drift: 0 drifted, 700 missing, 0 unmanaged, 0 would be deleted.",
    );
  });
});
