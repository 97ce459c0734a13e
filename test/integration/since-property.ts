/**
 * The case of the `--changed-since` properties (changed-since-properties.test.ts over settings,
 * changed-since-collections-properties.test.ts over collections), over HTTP against a sandbox of its own: the
 * manifests at REF committed and applied (and planned again to nothing), the edit written over them; then the pull
 * request's plan must plan exactly what the full plan of the edited manifests plans, and report the undeclared
 * objects the edit made (and nothing the full plan does not report). And the case of the shards' property: the
 * plans of the N shards of a run (`--shard K/N`) together are the full plan, change for change; and of the targets'
 * (changed-since-access-properties.test.ts): the plan of `--target X` is the full plan's changes in X's subtree. On
 * failure, both versions' files are printed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { ChangeV1, PlanV1 } from "../../src/plan/json.js";
import { tokenDigest } from "../../src/sandbox/store.js";
import { Bench } from "./helpers.js";

export interface SinceCase {
  /** The sandbox's state before REF is applied. */
  fixture: Record<string, unknown>;
  /** The files at REF and after the edit, by name (each version writes every file it names). */
  ref: Record<string, string>;
  head: Record<string, string>;
  /** The environment the commands run with (the values of the manifests' `${env:}` references). */
  env?: Record<string, string>;
  /** Values no output may hold. */
  hidden?: readonly string[];
}

/** A plan's changes, and its reports of undeclared live objects, as sorted JSON lines. */
interface Plan {
  changed: string[];
  unmanaged: string[];
}

/**
 * The plans of a case: `check` runs with REF applied and the edit written, given what the plan of REF reported
 * unmanaged.
 */
async function withCase(
  c: SinceCase,
  check: (plan: (args: string[]) => Promise<Plan>, unmanagedAtRef: ReadonlySet<string>) => Promise<void>,
): Promise<void> {
  const bench = await Bench.start({ fixture: c.fixture });
  const repo = mkdtempSync(join(tmpdir(), "forgeform-since-prop-"));
  const env = c.env ?? {};
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(repo, name), text);
  };
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
  // A deploy token the sandbox made (20 letters and digits) is known only by its digest: no 20 letters and digits
  // of an output may be one.
  const deployTokens = () =>
    new Set(
      (
        (
          bench.sandbox.store.data.areas["deploy_tokens"] as
            | { tokens?: { token_sha256: string }[] }
            | undefined
        )?.tokens ?? []
      ).map((t) => t.token_sha256),
    );
  const noSecret = (text: string) => {
    for (const value of c.hidden ?? []) expect(text).not.toContain(value);
    const digests = deployTokens();
    if (digests.size === 0) return;
    for (const run of text.match(/[A-Za-z0-9]{20,}/g) ?? [])
      for (let i = 0; i + 20 <= run.length; i++) {
        const word = run.slice(i, i + 20);
        expect(digests.has(tokenDigest(word)), `a deploy token shows: ${word}`).toBe(false);
      }
  };
  const plan = async (args: string[]): Promise<Plan> => {
    const run = await bench.cli(["plan", "--format", "json", ...args, repo], env);
    expect(run.code, run.err).toBe(0);
    noSecret(run.out + run.err);
    const changes = (JSON.parse(run.out) as PlanV1).changes;
    const lines = (keep: (change: ChangeV1) => boolean) =>
      changes
        .filter(keep)
        .map((change) => JSON.stringify(change))
        .sort();
    return {
      changed: lines((change) => change.action !== "unmanaged"),
      unmanaged: lines((change) => change.action === "unmanaged"),
    };
  };
  try {
    write(c.ref);
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "ref");
    const applied = await bench.cli(["apply", "--yes", repo], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    noSecret(applied.out + applied.err);
    // The premise: the platform is what REF declares (live objects it does not mention are reported).
    const premise = await plan([]);
    expect(premise.changed, premise.changed.join("\n")).toEqual([]);
    const unmanagedBefore = new Set(premise.unmanaged);
    write(c.head);
    await check(plan, unmanagedBefore);
  } catch (error) {
    const show = (files: Record<string, string>) =>
      Object.entries(files)
        .map(([name, text]) => `--- ${name}\n${text}`)
        .join("");
    throw new Error(`${(error as Error).message}\n=== REF\n${show(c.ref)}=== HEAD\n${show(c.head)}`);
  } finally {
    await bench.stop();
    rmSync(repo, { recursive: true, force: true });
  }
}

export function pullRequestPlansAsFullPlan(c: SinceCase): Promise<void> {
  return withCase(c, async (plan, unmanagedBefore) => {
    const since = await plan(["--changed-since", "HEAD"]);
    const full = await plan([]);
    expect(
      since.changed,
      `pull request's plan:\n${since.changed.join("\n")}\nfull plan:\n${full.changed.join("\n")}`,
    ).toEqual(full.changed);
    // Live objects the manifests do not mention: those the edit left undeclared are reported, and nothing the full
    // plan does not report (one not mentioned at REF either is not the edit's).
    expect(full.unmanaged).toEqual(expect.arrayContaining(since.unmanaged));
    const madeByEdit = full.unmanaged.filter((line) => !unmanagedBefore.has(line));
    expect(
      since.unmanaged,
      `reported ${since.unmanaged.join("\n")}\nmade by the edit ${madeByEdit.join("\n")}`,
    ).toEqual(expect.arrayContaining(madeByEdit));
  });
}

/**
 * The group or project a change concerns, in lower case: the one its address starts with
 * (`project["a/p"].member["bob"]`: `a/p`); for an undeclared subgroup, the group above it, whose listing of
 * subgroups reports it (`group["a/g"]` unmanaged: `a`), so a target at the subgroup itself, which reads no listing
 * above it, does not.
 */
function ownerPath(change: string): string {
  const c = JSON.parse(change) as ChangeV1;
  const path = /^(?:group|project)\["([^"]+)"\]/.exec(c.address)?.[1];
  if (path === undefined) throw new Error(`no group or project in ${c.address}`);
  if (c.action === "unmanaged" && c.collection === "groups")
    return path.toLowerCase().replace(/\/?[^/]*$/, "");
  return path.toLowerCase();
}

/**
 * With the edit written (REF applied), the plan of each of `runs` (its targets, `--target X --target Y`) is exactly
 * the full plan's changes and reports in the targets' subtrees: the group or project at each and everything below.
 */
export function targetPlansAsFullPlan(c: SinceCase, runs: readonly (readonly string[])[]): Promise<void> {
  return withCase(c, async (plan) => {
    const full = await plan([]);
    for (const targets of runs) {
      const inSubtree = (change: string) => {
        const path = ownerPath(change);
        return targets.some((target) => {
          const t = target.toLowerCase();
          return path === t || path.startsWith(`${t}/`);
        });
      };
      const targeted = await plan(targets.flatMap((t) => ["--target", t]));
      const shown = `--target ${targets.join(" --target ")}`;
      const expected = full.changed.filter(inSubtree);
      expect(
        targeted.changed,
        `${shown}:\n${targeted.changed.join("\n")}\nfull plan in the subtrees:\n${expected.join("\n")}`,
      ).toEqual(expected);
      const reported = full.unmanaged.filter(inSubtree);
      expect(
        targeted.unmanaged,
        `${shown} reports:\n${targeted.unmanaged.join("\n")}\nthe full plan in the subtrees:\n${reported.join("\n")}`,
      ).toEqual(reported);
    }
  });
}

/** With the edit written (REF applied), the shards' plans of every count in `counts` together are the full plan. */
export function shardsPlanAsFullPlan(c: SinceCase, counts: readonly number[]): Promise<void> {
  return withCase(c, async (plan) => {
    const full = await plan([]);
    for (const count of counts) {
      const changed: string[] = [];
      const unmanaged: string[] = [];
      for (let k = 1; k <= count; k++) {
        const shard = await plan(["--shard", `${k}/${count}`]);
        changed.push(...shard.changed);
        unmanaged.push(...shard.unmanaged);
      }
      expect(
        changed.sort(),
        `${count} shards:\n${changed.join("\n")}\nfull plan:\n${full.changed.join("\n")}`,
      ).toEqual(full.changed);
      expect(unmanaged.sort(), `${count} shards`).toEqual(full.unmanaged);
    }
  });
}
