/**
 * Tools some tests need from the machine: the real conformance clients (python-gitlab and its command line, the
 * ruby gitlab gem, GitLab::API::v4, gitlabracadabra, go-gitlab with Go), zsh and fish, GNU tar. Where one is
 * missing, its tests are skipped with the reason in their names, so that `npm test` runs on any machine.
 *
 * Under FORGEFORM_REQUIRE_CLIENTS=1 (.ci/run sets it, after installing them) a missing tool is a failure instead,
 * saying which tool is missing and which Debian package brings it: a CI run can never be green with a client that
 * did not run.
 */
import { spawnSync } from "node:child_process";
import { describe, it } from "vitest";

export const REQUIRE_CLIENTS = process.env["FORGEFORM_REQUIRE_CLIENTS"] === "1";

/** The failure of a test whose tool is missing while tools are required. */
export function missingError(missing: string): Error {
  return new Error(
    `${missing}: FORGEFORM_REQUIRE_CLIENTS=1 (set by .ci/run) requires every conformance client and tool; ` +
      "install it (.ci/run lists the Debian packages) or run without FORGEFORM_REQUIRE_CLIENTS to skip it",
  );
}

type Body = () => Promise<void> | void;

/**
 * `it` for a test that needs a tool: `missing` is why it cannot run here (undefined when it can). Skipped, with
 * the reason in its name; failing with it under FORGEFORM_REQUIRE_CLIENTS=1.
 */
export function itNeeding(missing: string | undefined): (name: string, body: Body, timeout?: number) => void {
  return (name, body, timeout) => {
    if (missing === undefined) it(name, body, timeout);
    else if (REQUIRE_CLIENTS)
      it(`${name} (missing: ${missing})`, () => {
        throw missingError(missing);
      });
    else it.skip(`${name} (skipped: ${missing})`, body);
  };
}

/** `describe` for tests that all need a tool, as {@link itNeeding}: its tests run, are skipped, or one fails. */
export function describeNeeding(missing: string | undefined): (name: string, body: () => void) => void {
  return (name, body) => {
    if (missing === undefined) describe(name, body);
    else if (REQUIRE_CLIENTS)
      describe(`${name} (missing: ${missing})`, () => {
        it("has its tool", () => {
          throw missingError(missing);
        });
      });
    else describe.skip(`${name} (skipped: ${missing})`, body);
  };
}

/**
 * For a check inside a test that needs a tool: true when it is there; false when it is not (the caller leaves the
 * check out); throws when tools are required.
 */
export function present(missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (REQUIRE_CLIENTS) throw missingError(missing);
  return false;
}

/** Why the command `command` cannot run here (it does not start), or undefined; `debian` is its package. */
export function commandMissing(command: string, debian: string): string | undefined {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).error
    ? `${command} is not installed (Debian package ${debian})`
    : undefined;
}
