import { describe, expect, it } from "vitest";
import { FaultInjector, parseFaults, parseLatency } from "../../src/sandbox/faults.js";
import { sandbox } from "./helpers.js";

describe("fault injection", () => {
  it("parses the documented spec format", () => {
    expect(parseFaults("429:0.05,503:0.02@GET,reset:0.01,drop-after-commit:0.1@POST/api/v4/groups")).toEqual([
      { kind: "429", probability: 0.05 },
      { kind: "503", probability: 0.02, method: "GET" },
      { kind: "reset", probability: 0.01 },
      { kind: "drop-after-commit", probability: 0.1, method: "POST", pathPrefix: "/api/v4/groups" },
    ]);
    expect(() => parseFaults("418:0.5")).toThrow(/fault kind "418" is unknown/);
    expect(() => parseFaults("503")).toThrow(/KIND:PROBABILITY/);
    expect(parseLatency("20-80")).toEqual({ min: 20, max: 80 });
    expect(() => parseLatency("fast")).toThrow(/milliseconds/);
  });

  it("the same seed gives the same faults; another seed differs", () => {
    const seq = (seed: number) => {
      const f = new FaultInjector(parseFaults("429:0.3,503:0.3"), { min: 0, max: 0 }, seed);
      return Array.from({ length: 50 }, () => f.pick("GET", "/api/v4/groups") ?? "-").join(",");
    };
    expect(seq(7)).toBe(seq(7));
    expect(seq(7)).not.toBe(seq(8));
    expect(seq(7)).toMatch(/429/);
  });

  it("scopes by method and path prefix; drop-after-commit only hits writes", () => {
    const f = new FaultInjector(
      parseFaults("503:1@POST/api/v4/groups,drop-after-commit:1"),
      { min: 0, max: 0 },
      1,
    );
    expect(f.pick("GET", "/api/v4/groups")).toBeUndefined();
    expect(f.pick("POST", "/api/v4/projects")).toBe("drop-after-commit");
    expect(f.pick("POST", "/api/v4/groups/1")).toBe("503");
  });

  it("a scope whose path ends in $ is that path exactly, not the paths below it", () => {
    expect(parseFaults("drop-after-commit:1@POST/api/v4/projects/1/wikis$")).toEqual([
      {
        kind: "drop-after-commit",
        probability: 1,
        method: "POST",
        pathPrefix: "/api/v4/projects/1/wikis",
        exact: true,
      },
    ]);
    const f = new FaultInjector(parseFaults("503:1@/api/v4/projects/1/wikis$"), { min: 0, max: 0 }, 1);
    expect(f.pick("POST", "/api/v4/projects/1/wikis")).toBe("503");
    expect(f.pick("POST", "/api/v4/projects/1/wikis/attachments")).toBeUndefined();
    expect(f.pick("POST", "/api/v4/projects/1/wiki")).toBeUndefined();
  });

  it("serves 429 with Retry-After as text, and only to requests with a token", async () => {
    const c = await sandbox({ faults: "429:1" });
    try {
      const r = await c.admin("GET", "/groups");
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.headers.get("content-type")).toBe("text/plain");
      expect(r.text).toBe("Retry later\n");
      expect((await c.call("GET", "/groups", { token: null })).status).toBe(200);
    } finally {
      await c.sb.stop();
    }
  });

  it("drop-after-commit keeps the write and drops the connection", async () => {
    const c = await sandbox({ faults: "drop-after-commit:1@POST" });
    try {
      await expect(c.admin("POST", "/groups", { name: "dropped", path: "dropped" })).rejects.toThrow();
      expect(c.sb.store.groupByFullPath("dropped")).toBeDefined();
    } finally {
      await c.sb.stop();
    }
  });

  it("reset drops the connection without processing", async () => {
    const c = await sandbox({ faults: "reset:1@POST" });
    try {
      await expect(c.admin("POST", "/groups", { name: "lost", path: "lost" })).rejects.toThrow();
      expect(c.sb.store.groupByFullPath("lost")).toBeUndefined();
    } finally {
      await c.sb.stop();
    }
  });
});
