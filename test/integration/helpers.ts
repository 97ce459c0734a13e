/** Runs the real CLI in-process against a real sandbox over HTTP. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/index.js";
import { type RunningSandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";

export const ADMIN_TOKEN = "admin-token-for-tests";
export const USER_TOKEN = "user-token-for-tests";

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the CLI in-process with `env` added to the environment (and NO_COLOR), capturing its output; `terminal.color`
 * runs it as a terminal that wants colours would (the CLI is given `color`, whatever NO_COLOR says).
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  terminal: { color?: boolean } = {},
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await withEnv({ NO_COLOR: "1", ...env }, () =>
    main(["node", "forgeform", ...args], {
      out: (t) => void out.push(t),
      err: (t) => void err.push(t),
      color: terminal.color ?? false,
      interactive: false,
    }),
  );
  return { code, out: out.join(""), err: err.join("") };
}

/** Runs `work` with `env` added to the environment, which is then put back as it was. */
export async function withEnv<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await work();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

export class Bench {
  readonly dir = mkdtempSync(join(tmpdir(), "forgeform-it-"));
  private constructor(readonly sandbox: RunningSandbox) {}

  static async start(options: SandboxOptions = {}): Promise<Bench> {
    return new Bench(await startSandbox({ adminToken: ADMIN_TOKEN, userToken: USER_TOKEN, ...options }));
  }

  /** Writes a manifest file in the bench's directory and returns its path. */
  manifest(text: string, name = "forgeform.yaml"): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  async cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return runCli(args, { FORGEFORM_URL: this.sandbox.url, FORGEFORM_TOKEN: ADMIN_TOKEN, ...env });
  }

  /** A GET with the admin token, for checking state independently of forgeform. */
  async get<T>(path: string): Promise<T> {
    const res = await fetch(`${this.sandbox.url}/api/v4${path}`, {
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN },
    });
    if (!res.ok) throw new Error(`GET ${path} -> ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** A request with the admin token (a change made out of band, as someone would by hand); its parsed answer. */
  async send<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.sandbox.url}/api/v4${path}`, {
      method,
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  async stop(): Promise<void> {
    await this.sandbox.stop();
  }
}
