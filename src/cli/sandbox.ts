import { type Command, InvalidArgumentError, Option } from "commander";
import type { Edition } from "../sandbox/app.js";
import type { RunningSandbox } from "../sandbox/server.js";
import type { Io } from "./index.js";

interface SandboxCliOptions {
  host: string;
  port: number;
  state?: string;
  fixture?: string;
  adminToken?: string;
  userToken?: string;
  edition: Edition;
  latency?: string;
  faults?: string;
  seed: number;
  baseUrlHost?: string;
  maxBodyMb?: number;
  rateLimit?: string;
}

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/** Waits for SIGINT or SIGTERM. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const done = (sig: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(sig);
    };
    const onInt = () => done("SIGINT");
    const onTerm = () => done("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
  });
}

/**
 * `forgeform sandbox`: runs the local platform until SIGINT/SIGTERM. The first output line is always
 * `listening http://HOST:PORT`, so scripts can wait for it; generated tokens follow on later lines.
 */
export function registerSandbox(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
  stopWhen: () => Promise<unknown> = untilSignal,
): void {
  program
    .command("sandbox")
    .summary("Run the built-in local platform (for trying manifests, tests and demos).")
    .description(
      "Run a local implementation of the platform's REST interface (/api/v4 and /api/scim/v2) for trying " +
        "manifests and for tests. Prints `listening http://HOST:PORT` first; runs until SIGINT or SIGTERM.",
    )
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 picks a free one)", integer("--port", 0, 65535), 8080)
    .option(
      "--state <file>",
      "state file, loaded on start and written after every change (default: in memory)",
    )
    .option("--fixture <file>", "YAML or JSON fixture applied when the state file does not exist yet")
    .option(
      "--admin-token <token>",
      "token of the administrator `root` (default: generated and printed); revokes the one of an earlier start",
    )
    .option(
      "--user-token <token>",
      "token of the regular user `sandbox-user` (default: generated and printed); revokes the one of an earlier start",
    )
    .addOption(
      new Option("--edition <edition>", "platform edition").choices(["licensed", "core"]).default("licensed"),
    )
    .option("--latency <ms>", "latency per request: milliseconds (20) or a range (20-80)")
    .option("--faults <spec>", "fault injection, e.g. 429:0.05,503:0.02@GET,reset:0.01,drop-after-commit:0.1")
    .option("--seed <n>", "seed of the fault and latency generator", integer("--seed", 0, 2 ** 31 - 1), 1)
    .option("--base-url-host <host:port>", "host used in returned URLs instead of the request's Host header")
    .option(
      "--max-body-mb <n>",
      "largest request body in MiB; larger ones are refused with 413 without being read (default 64)",
      integer("--max-body-mb", 1, 4096),
    )
    .option(
      "--rate-limit <n/period>",
      "throttle API requests as the platform's Rack::Attack does, per user (per IP without a token): e.g. 600/min, 7200/h, 10/2s; a 429 with Retry-After and RateLimit-* headers past the limit",
    )
    .action(async (options: SandboxCliOptions) => {
      let sb: RunningSandbox;
      try {
        // Loaded when used: the sandbox (its routes, templates and settings catalogue) is no part of other commands.
        const { startSandbox } = await import("../sandbox/server.js");
        sb = await startSandbox({
          host: options.host,
          port: options.port,
          statePath: options.state,
          fixture: options.fixture,
          adminToken: options.adminToken,
          userToken: options.userToken,
          edition: options.edition,
          latencyMs: options.latency,
          faults: options.faults,
          seed: options.seed,
          baseUrlHost: options.baseUrlHost,
          ...(options.maxBodyMb !== undefined ? { maxBodyMb: options.maxBodyMb } : {}),
          ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
          log: (line) => io.err(`${line}\n`),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        io.err(`${message.startsWith("sandbox:") ? "" : "sandbox: "}${message}\n`);
        setExit(1);
        return;
      }
      // Listen for the stop signal before announcing, so a signal sent right after the first line is handled.
      const stop = stopWhen();
      io.out(`listening ${sb.url}\n`);
      // These are sandbox-only tokens created for this run; showing them is how the user learns them.
      if (!options.adminToken) io.out(`admin token (root): ${sb.adminToken}\n`);
      if (!options.userToken) io.out(`user token (sandbox-user): ${sb.userToken}\n`);
      io.out(
        `edition: ${options.edition}${options.state ? `, state: ${options.state}` : ", state in memory"}` +
          `${options.rateLimit ? `, API rate limit ${options.rateLimit} per user` : ""}\n`,
      );
      await stop;
      await sb.stop();
      setExit(0);
    });
}
