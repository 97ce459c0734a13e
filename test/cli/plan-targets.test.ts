/** `plan --target` refused before anything is read (src/cli/workflow.ts's checkTargets), in-process. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "../integration/helpers.js";

let bench: Bench;
let withInstance: string;
let withoutInstance: string;
beforeAll(async () => {
  bench = await Bench.start();
  withInstance = bench.manifest(
    "version: 1\ngroups:\n  acme: {}\ninstance:\n  application_settings:\n    signup_enabled: false\n",
    "with-instance.yaml",
  );
  withoutInstance = bench.manifest("version: 1\ngroups:\n  acme: {}\n", "without-instance.yaml");
});
afterAll(async () => {
  await bench.stop();
});

const pathRule =
  'each segment has only letters, digits, "_", "-" and ".", and does not start with "-" or end in ".", ".git" or ".atom"';
const what = '(a target is a group or project path, or a group above declared ones, or "instance")';

describe("plan --target refuses", () => {
  it.each([
    {
      name: "paths the platform cannot have, one line each",
      targets: ["acme/..", "acme/.git"],
      manifest: () => withInstance,
      err:
        `forgeform: --target "acme/..": "acme/.." is not a path the platform allows: its segment ".." is a dot segment, which would name another path in a URL; ${pathRule}\n` +
        `--target "acme/.git": "acme/.git" is not a path the platform allows: its segment ".git" ends in ".git"; ${pathRule}\n`,
    },
    {
      name: "a misspelt path, suggesting the declared one",
      targets: ["acm"],
      manifest: () => withInstance,
      err: `forgeform: --target "acm" matches nothing the manifests declare; did you mean "acme"? ${what}\n`,
    },
    {
      name: "a misspelt instance, suggesting it when instance settings are declared",
      targets: ["instanc"],
      manifest: () => withInstance,
      err: `forgeform: --target "instanc" matches nothing the manifests declare; did you mean "instance"? ${what}\n`,
    },
    {
      name: "a misspelt instance, suggesting nothing when no instance settings are declared",
      targets: ["instanc"],
      manifest: () => withoutInstance,
      err: `forgeform: --target "instanc" matches nothing the manifests declare ${what}\n`,
    },
    {
      name: "instance when no instance settings are declared",
      targets: ["instance"],
      manifest: () => withoutInstance,
      err: `forgeform: --target "instance" matches nothing the manifests declare ${what}\n`,
    },
  ])("$name", async ({ targets, manifest, err }) => {
    const run = await bench.cli(["plan", ...targets.flatMap((t) => ["--target", t]), manifest()]);
    expect(run).toEqual({ code: 1, out: "", err });
  });

  it("takes instance when instance settings are declared", async () => {
    const run = await bench.cli(["plan", "--target", "instance", withInstance]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("instance.application_settings will be updated in place");
    expect(run.out).not.toContain("acme");
  });
});
