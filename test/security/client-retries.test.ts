/**
 * Hostile-server probes of redirects and retries: a redirect is never followed (so the token never goes to
 * another host), a server cannot make the client wait as long as it likes, and a POST is never sent twice blindly.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, OutcomeUnknownError } from "../../src/api/index.js";
import { json, recordingSleep, startServer, type TestServer } from "../api/server.js";
import { manifest, probes, redirect, TRIGGER_MANIFEST } from "./hostile-server.js";

const { start, connect } = probes();
let elsewhere: TestServer | undefined;

afterEach(async () => {
  await elsewhere?.close();
  elsewhere = undefined;
});

describe("redirects and retries", () => {
  it("does not follow a redirect to another host, so the token never reaches it", async () => {
    elsewhere = await startServer((_req, res) => json(res, 200, { version: "16.11.0-ee" }));
    const target = `${elsewhere.url}/api/v4/version`;
    for (const status of [301, 302, 307, 308]) {
      const p = await start({ "GET /version": redirect(target, status) });
      const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
      expect(result.code).toBe(1);
      expect(result.err).toContain(`forgeform: GET /version -> ${status} `);
    }
    expect(elsewhere.seen).toHaveLength(0);
  });

  it("gives up at once when Retry-After asks for longer than the retry budget", async () => {
    const p = await start({
      "GET /version": (_req, res) => json(res, 429, { message: "Retry later" }, { "retry-after": "86400" }),
    });
    const { sleep, delays } = recordingSleep();
    const error = await connect(p, { sleep })
      .get("/version")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toContain(
      "(the server asked to wait 86400 s, more than the 60 s left of the 60 s retry wait budget",
    );
    expect(delays).toEqual([]);
    expect(p.seenOn("GET /version")).toBe(1);
  });

  it("waits no longer than the budget in all when the server keeps asking for a little more", async () => {
    const p = await start({
      "GET /version": (_req, res) => json(res, 503, { message: "busy" }, { "retry-after": "25" }),
    });
    const { sleep, delays } = recordingSleep();
    await expect(connect(p, { sleep, maxAttempts: 10 }).get("/version")).rejects.toThrow(/retry wait budget/);
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60_000);
  });

  it("never sends a POST again after the connection dropped once it was sent", async () => {
    const p = await start({
      "POST /projects/acme/api/triggers": (_req, res) => {
        res.socket?.destroy();
      },
    });
    const error = await connect(p, { sleep: recordingSleep().sleep })
      .post("/projects/acme%2Fapi/triggers", { body: { description: "once" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(p.seenOn("POST /projects/acme/api/triggers")).toBe(1);
  });

  it("never sends a POST again after a gateway timeout", async () => {
    const p = await start({
      "POST /projects/acme/api/triggers": (_req, res) => json(res, 504, { message: "Gateway Timeout" }),
    });
    await expect(
      connect(p, { sleep: recordingSleep().sleep }).post("/projects/acme%2Fapi/triggers", {
        body: { description: "once" },
      }),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(p.seenOn("POST /projects/acme/api/triggers")).toBe(1);
  });
});
