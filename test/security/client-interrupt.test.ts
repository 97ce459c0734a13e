/**
 * Probes of an interrupted apply, with the built CLI in a child process (npm test builds lib/ first) against a
 * platform stand-in that holds every create until the probe lets it go: Ctrl-C lets the requests in flight finish,
 * sends no new ones, reports what was done and what was not, and exits 130; a second Ctrl-C exits at once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { json } from "../api/server.js";
import { type HostilePlatform, hostilePlatform, manifest, TOKEN } from "./hostile-server.js";

const CREATES = 10;
const MANIFEST = `version: 1
projects:
  acme/api:
    triggers:
${Array.from({ length: CREATES }, (_, i) => `      - description: trigger ${i + 1}\n`).join("")}`;

interface Run {
  platform: HostilePlatform;
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** Resolves once `n` creates are being held. */
  holding: (n: number) => Promise<void>;
  /** Answers every held create (201, as the platform does). */
  release: () => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let run: Run | undefined;

afterEach(async () => {
  run?.release();
  run?.child.kill("SIGKILL");
  await run?.platform.close();
  run = undefined;
});

async function startApply(): Promise<Run> {
  const held: { res: ServerResponse; description: string }[] = [];
  const waiters: (() => void)[] = [];
  let nextId = 1;
  const platform = await hostilePlatform({
    "GET /projects/acme/api/triggers": (_req, res) => json(res, 200, []),
    "POST /projects/acme/api/triggers": (req, res) => {
      held.push({ res, description: JSON.parse(req.body).description });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const child = spawn(
    process.execPath,
    ["bin/forgeform.js", "apply", "--yes", "--concurrency", "2", manifest(MANIFEST)],
    {
      env: { ...process.env, FORGEFORM_URL: platform.server.url, FORGEFORM_TOKEN: TOKEN, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    platform,
    child,
    out: () => out,
    err: () => err,
    holding: async (n) => {
      while (held.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    release: () => {
      for (const { res, description } of held.splice(0)) {
        json(res, 201, { id: nextId++, description, token: "0123456789abcdef0123456789abcd" });
      }
    },
    exited,
  };
}

/** Resolves once the child's standard error contains `text`; fails if the child exits first. */
async function stderrShows(r: Run, text: string): Promise<void> {
  let exited = false;
  void r.exited.then(() => {
    exited = true;
  });
  while (!r.err().includes(text)) {
    if (exited) throw new Error(`the CLI exited before saying "${text}": ${r.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("an interrupted apply", () => {
  it("finishes the creates in flight, sends no new ones, reports both, and exits 130", async () => {
    run = await startApply();
    await run.holding(2);
    run.child.kill("SIGINT");
    await stderrShows(run, "finishing the requests in flight and starting no new ones");
    run.release();
    const { code, signal } = await run.exited;
    expect({ code, signal }, run.err()).toEqual({ code: 130, signal: null });
    expect(run.platform.seenOn("POST /projects/acme/api/triggers")).toBe(2);
    const out = run.out();
    expect(out.match(/: done$/gm)).toHaveLength(2);
    expect(out.match(/: skipped: not started: the apply was interrupted$/gm)).toHaveLength(CREATES - 2);
    expect(out).toContain(`Apply interrupted: 2 done, 0 failed, ${CREATES - 2} not started.`);
    expect(run.err()).toContain(
      "forgeform: apply was interrupted (SIGINT): the changes marked done were made, the others were not. Run apply again to carry on from here.",
    );
  });

  it("exits at once on a second Ctrl-C, saying the requests in flight may or may not have taken effect", async () => {
    run = await startApply();
    await run.holding(2);
    run.child.kill("SIGINT");
    await stderrShows(run, "finishing the requests in flight");
    run.child.kill("SIGINT");
    const { code } = await run.exited;
    expect(code).toBe(130);
    expect(run.err()).toContain(
      "forgeform: SIGINT again: exiting at once. Requests in flight may or may not have taken effect: run plan to see where things stand.",
    );
    expect(run.platform.seenOn("POST /projects/acme/api/triggers")).toBe(2);
  });
});
