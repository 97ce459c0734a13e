import { expect } from "vitest";
import type { SandboxOptions } from "../../src/sandbox/server.js";
import { type Call, sandbox } from "./helpers.js";

/** One request of a table case; the token defaults to the table's. */
export interface Step {
  method: string;
  path: string;
  token?: string | null;
  json?: unknown;
  form?: string;
  headers?: Record<string, string>;
}

/** A row of a contract-style table: a request against a fresh sandbox and the status and body it must answer. */
export interface Case extends Step {
  name: string;
  /** Requests made first (their answers are not checked). */
  before?: Step[];
  status: number;
  /** The whole body, when given. */
  body?: unknown;
  /** Fields the body must have (`toMatchObject`), when given. */
  like?: Record<string, unknown>;
  /** A request after this one, and the body it must answer (or the fields it must have, with `like`). */
  after?: Step & { body?: unknown; like?: Record<string, unknown> };
  options?: SandboxOptions;
}

/** Runs one row against a fresh sandbox seeded with `fixture`; `token` is the default caller. */
export async function runCase(c: Case, fixture: Record<string, unknown>, token: string): Promise<void> {
  const sb = await sandbox({ fixture, ...c.options });
  try {
    const call = (s: Step): Promise<Call> =>
      sb.call(s.method, s.path, {
        token: s.token === undefined ? token : s.token,
        json: s.json,
        form: s.form,
        headers: s.headers,
      });
    for (const s of c.before ?? []) await call(s);
    const r = await call(c);
    expect([r.status, c.body === undefined ? undefined : r.body], r.text).toEqual([c.status, c.body]);
    if (c.like) expect(r.body, r.text).toMatchObject(c.like);
    if (c.after) {
      const t = await call(c.after);
      if (c.after.body !== undefined) expect(t.body, t.text).toEqual(c.after.body);
      if (c.after.like) expect(t.body, t.text).toMatchObject(c.after.like);
    }
  } finally {
    await sb.sb.stop();
  }
}
