/**
 * Every range the client and the CLI check, at its edges: the least value and the greatest are taken, one step
 * past either is refused with a message naming the option and its range; so are NaN, Infinity and fractions
 * where a whole number is asked. The CLI's numeric flags (also the Action's inputs) reach the client's limits
 * exactly: their greatest value builds a client.
 */
import { describe, expect, it } from "vitest";
import { ApiClient, ClientConfigError, OPTION_MAXIMUMS } from "../../src/api/index.js";
import { resolveConnection } from "../../src/cli/connection.js";

const URL = "https://gitlab.example.com";
/** The least value of each option (0 for waits, which may be none). */
const MINIMUMS: Record<keyof typeof OPTION_MAXIMUMS, number> = {
  timeoutMs: 1,
  concurrency: 1,
  maxAttempts: 1,
  maxResponseBytes: 1,
  maxListBytes: 1,
  maxPages: 1,
  maxRetryWaitMs: 0,
  backoffBaseMs: 0,
  backoffCapMs: 0,
};

const build = (options: Record<string, number>) => () => new ApiClient({ url: URL, ...options });

describe("the client's numeric options", () => {
  for (const [name, max] of Object.entries(OPTION_MAXIMUMS) as [keyof typeof OPTION_MAXIMUMS, number][]) {
    const min = MINIMUMS[name];
    it(`${name}: ${min} and ${max.toLocaleString("en-US")} are taken; ${min - 1}, ${max + 1}, NaN and Infinity are not`, async () => {
      for (const value of [min, max]) {
        const client = build({ [name]: value })();
        await client.close();
      }
      const range = `${name} must be a number from ${min} to ${max.toLocaleString("en-US")}`;
      for (const value of [min - 1, max + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(build({ [name]: value }), `${name} ${value}`).toThrow(
          new ClientConfigError(`${range}, got ${value}`),
        );
      }
    });
  }

  it("maxRatePerMinute takes any rate above 0, and no other", async () => {
    for (const rate of [0.001, 1, 600, 1e9]) await build({ maxRatePerMinute: rate })().close();
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(build({ maxRatePerMinute: rate }), String(rate)).toThrow(
        `maxRatePerMinute must be a number above 0, got ${rate}`,
      );
    }
  });
});

describe("the CLI's numeric flags", () => {
  const MiB = 1024 * 1024;
  const FLAGS = [
    ["timeout", "--timeout", "timeoutMs", 1],
    ["concurrency", "--concurrency", "concurrency", 1],
    ["maxAttempts", "--max-attempts", "maxAttempts", 1],
    ["maxResponseMb", "--max-response-mb", "maxResponseBytes", MiB],
    ["maxListMb", "--max-list-mb", "maxListBytes", MiB],
  ] as const;

  for (const [key, flag, option, unit] of FLAGS) {
    const max = Math.floor(OPTION_MAXIMUMS[option] / unit);
    it(`${flag}: 1 and ${max} are taken and build a client; 0, ${max + 1}, 1.5 and 1e3 are not`, async () => {
      for (const value of ["1", String(max), ` ${max} `]) {
        const options = resolveConnection({ url: URL, token: "t", [key]: value }, {});
        expect(options[option], `${flag} ${value}`).toBe(Number(value) * unit);
        await new ApiClient(options).close();
      }
      for (const value of ["0", String(max + 1), "1.5", "1e3", "-1", "", "ten"]) {
        expect(
          () => resolveConnection({ url: URL, token: "t", [key]: value }, {}),
          `${flag} ${value}`,
        ).toThrow(`${flag} needs a whole number from 1 to ${max}, got "${value}"`);
      }
    });
  }
});
