/**
 * How long a group's or project's backup waits for the export archive the platform prepares (src/kinds/group.ts,
 * src/kinds/project.ts `downloadExport`), over HTTP against the sandbox, the waits counted with the client's own
 * backoff through an injected sleep (no real waiting): 15 checks, with a wait before each check after the first,
 * and then an error that says what the platform last said; a download that works at the last check is taken.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { createContext } from "../../src/engine/context.js";
import { INSTANCE } from "../../src/engine/plan/types.js";
import { groupKind } from "../../src/kinds/group.js";
import { projectKind } from "../../src/kinds/project.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { answerJson, startProxy } from "../integration/proxy.js";

const TOKEN = "export-waits-admin";
/** The client's backoff with its jitter at one half: before retry n, half of min(20 s, 500 ms * 2^(n-1)). */
const BACKOFF = Array.from({ length: 14 }, (_, i) => Math.floor(0.5 * Math.min(20_000, 500 * 2 ** i)));

describe("waiting for an export archive", () => {
  let sandbox: RunningSandbox;
  let groupId: number;
  let projectId: number;
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
    });
    const get = async (path: string) =>
      (await (
        await fetch(`${sandbox.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": TOKEN } })
      ).json()) as { id: number };
    groupId = (await get("/groups/acme")).id;
    projectId = (await get("/projects/acme%2Fapp")).id;
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  /**
   * Downloads the backup of `what` through a proxy that answers `check` (the status or download request) with
   * `answer(n)` for its n-th time, the rest as the sandbox does. The waits the client made, the checks, and the
   * archive or the error.
   */
  async function download(
    what: "group" | "project",
    answer: (n: number, res: ServerResponse) => boolean,
  ): Promise<{ waits: number[]; checks: number; result: string }> {
    const check =
      what === "group" ? `/api/v4/groups/${groupId}/export/download` : `/api/v4/projects/${projectId}/export`;
    let checks = 0;
    const proxy = await startProxy(sandbox.url, (req: IncomingMessage, res) => {
      if (req.method !== "GET" || req.url !== check) return false;
      checks += 1;
      return answer(checks, res);
    });
    const waits: number[] = [];
    const api = new ApiClient({
      url: proxy.url,
      token: TOKEN,
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
        // A wait that never ends the loop would otherwise spin for ever.
        if (waits.length > 40) throw new Error("waited more than 40 times");
      },
    });
    try {
      const ctx = await createContext(api);
      const kind = what === "group" ? groupKind : projectKind;
      const live = {
        key: what === "group" ? "acme" : "acme/app",
        id: what === "group" ? groupId : projectId,
        fields: {},
      };
      const result = await kind.backup!.download(ctx, INSTANCE, live).then(
        (archive) => `archive of ${archive.byteLength > 0 ? "some" : "no"} bytes`,
        (error: unknown) => `error: ${(error as Error).message}`,
      );
      return { waits, checks, result };
    } finally {
      await api.close();
      await proxy.close();
    }
  }

  it("a group's archive never ready: 15 checks, 14 waits with the client's backoff, then the platform's 404", async () => {
    const { waits, checks, result } = await download("group", (_, res) =>
      answerJson(res, 404, { message: "404 Not found" }),
    );
    expect(checks).toBe(15);
    expect(waits).toEqual(BACKOFF);
    expect(result).toMatch(/^error: GET \/groups\/\d+\/export\/download -> 404 Not Found/);
  });

  it("a group's archive ready at the 15th check is downloaded", async () => {
    const { waits, checks, result } = await download("group", (n, res) =>
      n < 15 ? answerJson(res, 404, { message: "404 Not found" }) : false,
    );
    expect(checks).toBe(15);
    expect(waits).toEqual(BACKOFF);
    expect(result).toBe("archive of some bytes");
  });

  it("a project's export never finished: 15 checks, 14 waits with the client's backoff, then what it last was", async () => {
    const { waits, checks, result } = await download("project", (_, res) =>
      answerJson(res, 200, { export_status: "started" }),
    );
    expect(checks).toBe(15);
    expect(waits).toEqual(BACKOFF);
    expect(result).toBe(
      'error: the platform\'s export of the project is not ready (export_status "started" after 15 checks)',
    );
  });

  it("a project's export finished at the 15th check is downloaded", async () => {
    const { waits, checks, result } = await download("project", (n, res) =>
      n < 15 ? answerJson(res, 200, { export_status: "started" }) : false,
    );
    expect(checks).toBe(15);
    expect(waits).toEqual(BACKOFF);
    expect(result).toBe("archive of some bytes");
  });
});
