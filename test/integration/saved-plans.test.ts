/**
 * Saved plans as a matrix: `plan --out FILE`, then `apply --plan FILE` after one thing changed. Each case is
 * refused or accepted as the README says, with its message.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

const fixture = {
  groups: [
    { path: "sp", description: "old" },
    { path: "other", description: "old" },
  ],
};
const MANIFEST = (description = "new") => `version: 1
instance:
  system_hooks:
    - { url: "https://hooks.sp.example/in", token: "\${env:HOOK_TOKEN}", push_events: true }
groups:
  sp: { description: "${description}" }
  other: { description: "\${env:OTHER_DESC}" }
`;
const HOOK = 'instance.system_hook["https://hooks.sp.example/in"]';
const env = { HOOK_TOKEN: "first-token", OTHER_DESC: "secret one" };

describe("saved plans", () => {
  let bench: Bench;
  let file: string;
  let saved: string;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
    file = bench.manifest(MANIFEST());
    saved = join(bench.dir, "plan.json");
  });
  afterEach(async () => {
    await bench.stop();
  });
  const save = async (args: string[] = [], vars = env) => {
    const run = await bench.cli(["plan", "--out", saved, ...args, file], vars);
    expect(run.code, run.out + run.err).toBe(0);
  };
  const applySaved = (vars: Record<string, string> = env, extra: string[] = []) =>
    bench.cli(["apply", "--yes", "--plan", saved, ...extra], vars);
  const description = async (g: string) =>
    (await bench.get<{ description: string }>(`/groups/${g}`)).description;

  it("applies a plan when nothing changed", async () => {
    await save();
    const run = await applySaved();
    expect(run.code, run.out + run.err).toBe(0);
    expect(await description("sp")).toBe("new");
  });

  it("names its manifests from the folder it was made in: applied from there, or refused saying so", async () => {
    const from = process.cwd();
    try {
      process.chdir(bench.dir);
      const run = await bench.cli(["plan", "--out", "plan.json", "forgeform.yaml"], env);
      expect(run.code, run.err).toBe(0);
      expect(JSON.parse(readFileSync(saved, "utf8"))).toMatchObject({
        manifests: ["forgeform.yaml"],
        root: ".",
      });
      process.chdir(join(bench.dir, ".."));
      const elsewhere = await applySaved();
      expect(elsewhere).toEqual({
        code: 1,
        out: "",
        err: `forgeform: the saved plan names its manifests from the folder it was made in, and none of them is here (${process.cwd()}): forgeform.yaml. Apply it from the folder the plan was made in (or, if they were removed since, run plan again)\n`,
      });
      expect(await description("sp")).toBe("old");
      process.chdir(bench.dir);
      // A root that is not a folder here (a plan edited by hand): said before anything is read.
      const text = readFileSync(saved, "utf8");
      for (const root of ["nowhere", "forgeform.yaml"]) {
        writeFileSync(saved, text.replace('"root": "."', `"root": ${JSON.stringify(root)}`));
        expect(await applySaved()).toEqual({
          code: 1,
          out: "",
          err: `forgeform: the saved plan's manifest root "${root}" is not a folder here (${bench.dir}). Apply it from the folder the plan was made in\n`,
        });
      }
      writeFileSync(saved, text);
      const there = await bench.cli(["apply", "--yes", "--plan", "plan.json"], env);
      expect(there.code, there.out + there.err).toBe(0);
      expect(await description("sp")).toBe("new");
    } finally {
      process.chdir(from);
    }
  });

  it("keeps --target: the saved plan applies only its targets", async () => {
    await save(["--target", "sp"]);
    const run = await applySaved();
    expect(run.code, run.out + run.err).toBe(0);
    expect([await description("sp"), await description("other")]).toEqual(["new", "old"]);
  });

  it("keeps --replace: the saved plan replaces what it said it would", async () => {
    expect((await bench.cli(["apply", "--yes", file], env)).code).toBe(0);
    const before = (await bench.get<{ id: number }[]>("/hooks"))[0]!.id;
    await save(["--replace", HOOK]);
    const run = await applySaved();
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toContain(`-/+ ${HOOK}: done`);
    const after = (await bench.get<{ id: number }[]>("/hooks"))[0]!.id;
    expect(after).not.toBe(before);
  });

  it("keeps --shard: the saved plan of one shard applies that shard's objects only", async () => {
    const units: string[][] = [];
    for (const k of [1, 2]) {
      await save(["--shard", `${k}/2`]);
      units.push((JSON.parse(readFileSync(saved, "utf8")) as { shard: { units: string[] } }).shard.units);
      const run = await applySaved();
      expect(run.code, run.out + run.err).toBe(0);
      expect([await description("sp"), await description("other")]).toEqual([
        units.flat().includes("sp") ? "new" : "old",
        units.flat().includes("other") ? "secret one" : "old",
      ]);
    }
    expect(units.flat().sort()).toEqual(["instance", "other", "sp"]);
  });

  it("refuses options that belong to the saved plan", async () => {
    await save();
    const run = await applySaved(env, ["--target", "sp"]);
    expect(run.code).toBe(1);
    expect(run.err).toContain("--target, --replace, --changed-since and --root are part of a saved plan");
  });

  it("refuses a plan made against another platform", async () => {
    await save();
    const elsewhere = await Bench.start({ fixture });
    try {
      const run = await elsewhere.cli(["apply", "--yes", "--plan", saved], env);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`the saved plan was made against ${bench.sandbox.url}`);
    } finally {
      await elsewhere.stop();
    }
  });

  it("refuses a plan after the live state changed", async () => {
    await save();
    const res = await fetch(`${bench.sandbox.url}/api/v4/groups/sp`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ description: "changed meanwhile" }),
    });
    expect(res.status).toBe(200);
    const run = await applySaved();
    expect(run.code).toBe(1);
    expect(run.err).toContain("the live state changed since the plan was made");
    expect(await description("sp")).toBe("changed meanwhile");
  });

  it("refuses a plan after the manifests changed, naming the file", async () => {
    await save();
    bench.manifest(MANIFEST("newer"));
    const run = await applySaved();
    expect(run.code).toBe(1);
    expect(run.err).toContain(`the manifests changed since the plan was made (${file} changed)`);
    expect(await description("sp")).toBe("old");
  });

  it("refuses a plan when only a secret's value changed, saying so and showing neither value", async () => {
    await save();
    const run = await applySaved({ HOOK_TOKEN: "second-token", OTHER_DESC: "secret two" });
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message names the reference syntax
      "a value the manifests read through ${env:} or ${file:} is not the one the plan",
    );
    expect(run.err).not.toContain("the manifests changed");
    expect(run.out + run.err).not.toMatch(/secret (one|two)|first-token|second-token/);
    // Nothing was applied: the group keeps its description, the hook was not made.
    expect(await description("other")).toBe("old");
    expect(await bench.get<unknown[]>("/hooks")).toEqual([]);
    // The plan file holds a fingerprint of the values, not the values.
    const text = readFileSync(saved, "utf8");
    expect(text).toMatch(/"secrets_fingerprint": "scrypt:/);
    expect(text).not.toMatch(/secret one|first-token/);
  });

  it("refuses a plan when a secret inside an identity changed (a hook URL's key), for that reason", async () => {
    const hook = `version: 1
instance:
  system_hooks:
    - { url: "https://hooks.sp.example/in?key=\${env:HOOK_KEY}", push_events: true }
`;
    const m = bench.manifest(hook, "hook.yaml");
    expect((await bench.cli(["apply", "--yes", m], { HOOK_KEY: "key-number-one" })).code).toBe(0);
    const planned = await bench.cli(["plan", "--out", saved, m], { HOOK_KEY: "key-number-one" });
    expect(planned.code, planned.err).toBe(0);
    const run = await applySaved({ HOOK_KEY: "key-number-two" });
    expect(run.code).toBe(1);
    expect(run.err).toContain("is not the one the plan was made with");
    expect(run.err).not.toContain("the live state changed");
    // With the values it was made with, the same plan applies.
    const again = await applySaved({ HOOK_KEY: "key-number-one" });
    expect(again.code, again.out + again.err).toBe(0);
  });
});
