import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/sandbox/errors.js";
import { MOUNT_PREFIX, Router } from "../../src/sandbox/router.js";
import { createSandboxApp } from "../../src/sandbox/server.js";

function small(): Router<string> {
  const r = new Router<string>();
  r.add("get", "rest", "/groups/:id", "group");
  r.add("get", "rest", "/groups/import", "import-status");
  r.add("post", "rest", "/groups/import", "import");
  r.add("get", "rest", "/groups/:id/projects", "projects");
  r.add("get", "rest", "/projects/:id/repository/files/*path", "file");
  r.add("get", "rest", "/projects/:id/repository/files/:name/raw", "raw");
  r.add("put", "rest", "/projects/:id", "edit");
  r.add("get", "scim", "/groups/:group/Users", "scim-users");
  r.add("get", "root", "/oauth/token", "token");
  r.add("get", "rest", "/licensed", "licensed");
  return r;
}

function failure(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error("no error thrown");
}

describe("the sandbox's router", () => {
  const r = small();

  it("prefers a literal segment over a parameter at the same position, whatever the order they were added", () => {
    expect(r.match("GET", "/api/v4/groups/import").route.handler).toBe("import-status");
    expect(r.match("GET", "/api/v4/groups/imports").route.handler).toBe("group");
    expect(r.match("GET", "/api/v4/groups/7").params).toEqual({ id: "7" });
  });

  it("decodes parameters and splats, and needs an encoded slash inside one segment", () => {
    expect(r.match("GET", "/api/v4/groups/a%2Fb/projects").params).toEqual({ id: "a/b" });
    expect(() => r.match("GET", "/api/v4/groups/a/b/projects")).toThrow(HttpError);
    expect(r.match("GET", "/api/v4/projects/1/repository/files/docs%2Fa.md").route.handler).toBe("file");
    expect(r.match("GET", "/api/v4/projects/1/repository/files/docs/a%20b.md").params).toEqual({
      id: "1",
      path: "docs/a b.md",
    });
    // A parameter beats a splat at the same position.
    expect(r.match("GET", "/api/v4/projects/1/repository/files/a.md/raw").route.handler).toBe("raw");
    // An undecodable segment is taken as it is.
    expect(r.match("GET", "/api/v4/groups/%E0%A4%A").params).toEqual({ id: "%E0%A4%A" });
  });

  it("a splat needs at least one segment; empty segments match no parameter", () => {
    expect(failure(() => r.match("GET", "/api/v4/projects/1/repository/files")).status).toBe(404);
    expect(failure(() => r.match("GET", "/api/v4/groups//projects")).status).toBe(404);
    expect(r.match("GET", "/api/v4/groups/7/").route.handler).toBe("group");
  });

  it("matches each mount under its own prefix only, not a prefix that shares its characters", () => {
    expect(r.match("GET", "/api/scim/v2/groups/g/Users").route.handler).toBe("scim-users");
    expect(r.match("GET", "/oauth/token").route.handler).toBe("token");
    expect(failure(() => r.match("GET", "/api/v4x/groups/7")).status).toBe(404);
    expect(failure(() => r.match("GET", "/api/v4/oauth/token")).status).toBe(404);
    expect(failure(() => r.match("GET", "/api/v4")).status).toBe(404);
    expect(failure(() => r.match("GET", "/groups/7")).status).toBe(404);
  });

  it("answers 405 with the methods the path has, HEAD with GET", () => {
    expect(r.match("HEAD", "/api/v4/groups/7").route.handler).toBe("group");
    const e = failure(() => r.match("DELETE", "/api/v4/groups/import"));
    expect(e.status).toBe(405);
    expect(e.body).toEqual({ error: "405 Not Allowed" });
    expect(e.headers["Allow"]).toBe("GET, POST, HEAD");
    // The literal route has POST; the parameter route matching the same path does not change that answer.
    expect(r.match("POST", "/api/v4/groups/import").route.handler).toBe("import");
    expect(failure(() => r.match("POST", "/api/v4/groups/7")).headers["Allow"]).toBe("GET, HEAD");
  });

  it("hides the routes `accept` rejects as if they did not exist", () => {
    const hide = (route: { handler: string }) =>
      route.handler !== "licensed" && route.handler !== "import-status";
    expect(failure(() => r.match("GET", "/api/v4/licensed", hide)).status).toBe(404);
    expect(r.match("GET", "/api/v4/groups/import", hide).route.handler).toBe("group");
  });

  it("answers a path of thousands of segments with 404, and one under a splat with all of them", () => {
    expect(failure(() => r.match("GET", `/api/v4/groups/${"a/".repeat(5000)}projects`)).status).toBe(404);
    const deep = r.match("GET", `/api/v4/projects/1/repository/files/${"d/".repeat(5000)}f.md`);
    expect(deep.route.handler).toBe("file");
    expect(deep.params["path"]?.split("/")).toHaveLength(5001);
  });

  it("refuses a route added twice", () => {
    expect(() => r.add("GET", "rest", "/groups/:id", "again")).toThrow(/registered twice/);
  });

  it("routes every path of the real sandbox to its own route or to a more specific one", () => {
    const { app } = createSandboxApp();
    const routes = app.router.list();
    expect(routes.length).toBeGreaterThan(100);
    for (const route of routes) {
      const path =
        MOUNT_PREFIX[route.mount] +
        route.segments
          .map((s) => `/${s.kind === "literal" ? s.value : s.kind === "param" ? "x%2Fy" : "a/b"}`)
          .join("");
      const found = app.router.match(route.method, path);
      if (found.route === route) {
        for (const s of route.segments)
          if (s.kind !== "literal") expect(found.params[s.value]).toBe(s.kind === "param" ? "x/y" : "a/b");
        continue;
      }
      // Another route won: it must have a literal where this one has a parameter, at the first place they differ.
      expect(found.route.method).toBe(route.method);
      const i = route.segments.findIndex((s, k) => s.kind !== found.route.segments[k]?.kind);
      expect(i, `${route.method} ${route.pattern} went to ${found.route.pattern}`).toBeGreaterThanOrEqual(0);
      expect(found.route.segments[i]?.kind).toBe("literal");
    }
  });
});
