/** `forgeform convert` run by the round-trip tests: the JSON report, the files written, and the secrets checked. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Bench } from "./helpers.js";

export interface ConvertReport {
  files: string[];
  items: {
    type: string;
    file: string;
    line: number;
    pointer?: string;
    source: string;
    message: string;
    env?: string;
  }[];
}

export interface Conversion {
  code: number;
  /** The CLI's output: the JSON report on stdout, what went wrong on stderr. */
  out: string;
  err: string;
  report: ConvertReport;
  /** The names of the files written into `dir`. */
  names: string[];
  /** Their texts. */
  texts: string[];
}

/** Runs `forgeform convert --from FROM SOURCE --out DIR --format json` and reads what it wrote. */
export async function convertInto(
  bench: Bench,
  from: string,
  source: string,
  dir: string,
): Promise<Conversion> {
  const r = await bench.cli(["convert", "--from", from, source, "--out", dir, "--format", "json"]);
  expect(r.code, r.err + r.out).toBe(0);
  const names = readdirSync(dir).sort();
  return {
    ...r,
    report: JSON.parse(r.out) as ConvertReport,
    names,
    texts: names.map((n) => readFileSync(join(dir, n), "utf8")),
  };
}

/**
 * The report names exactly the variables of `env` as the source's secrets, and none of their values (nor any of
 * `others`, secrets the conversion must drop) is in a written file or the report (values of fewer than 4
 * characters, such as `on`, cannot be told apart from other text).
 */
export function expectSecrets(c: Conversion, env: Record<string, string>, others: string[] = []): void {
  expect(
    c.report.items
      .filter((i) => i.type === "secret")
      .map((i) => i.env)
      .sort(),
  ).toEqual(Object.keys(env).sort());
  for (const value of [...Object.values(env), ...others].filter((v) => v.length >= 4))
    for (const text of [...c.texts, c.out]) expect(text).not.toContain(value);
}
