/**
 * Project and group labels as the platform (13.12) has them (the contract has no label endpoints):
 * routes/labels.ts. Table tests over HTTP: each validation, each permission with the role just below the requirement
 * and at it, each error body, the boundaries (255 characters, 3 and 6 hex digits), case-sensitive titles, the
 * labels a project or group shows, priorities, subscriptions, counts, and the fixture key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { type Call, type Client, sandbox } from "./helpers.js";

type Json = Record<string, unknown>;

const fixture = {
  users: [
    { username: "rep", token: "rep-token" },
    { username: "gst", token: "gst-token" },
    { username: "grouprep", token: "grouprep-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { rep: "reporter", gst: "guest", grouprep: "reporter" } },
    { path: "acme/team", visibility: "private" },
    { path: "acme/team/inner", visibility: "private" },
    { path: "open", visibility: "public" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/team/web", visibility: "private" },
    { path: "open/site", visibility: "public" },
  ],
  labels: [
    { group: "acme", name: "org-wide", color: "#FF0000", description: "From the top" },
    { group: "acme/team", name: "team", color: "#00ff00" },
    { group: "acme/team/inner", name: "inner", color: "#0000FF" },
    { project: "acme/team/web", name: "web-only", color: "#abc", priority: 3 },
    { project: "acme/api", name: "bug", color: "#d9534f" },
    { project: "open/site", name: "docs" },
  ],
  issues: [
    { project: "acme/api", title: "One", labels: ["bug"] },
    { project: "acme/api", title: "Two", labels: ["bug"], state: "closed" },
    { project: "acme/api", title: "Three", labels: ["org-wide"] },
  ],
};

describe("labels (routes/labels.ts, platform 13.12)", () => {
  let c: Client;
  const pair = (r: Call) => [r.status, r.body];
  const as = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });
  const names = async (path: string, token = "admin-token") =>
    ((await c.call("GET", path, { token })).body as Json[]).map((l) => l["name"]);

  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  describe("what a project and a group show", () => {
    it.each([
      [
        "a project: its own, its group's and those above (default)",
        "/projects/acme%2Fteam%2Fweb/labels",
        ["org-wide", "team", "web-only"],
      ],
      [
        "a project without ancestors: its own and its group's",
        "/projects/acme%2Fteam%2Fweb/labels?include_ancestor_groups=false",
        ["team", "web-only"],
      ],
      ["a group: its own and those above (default)", "/groups/acme%2Fteam/labels", ["org-wide", "team"]],
      ["a group without ancestors", "/groups/acme%2Fteam/labels?include_ancestor_groups=false", ["team"]],
      [
        "a group with its subgroups",
        "/groups/acme/labels?include_descendant_groups=true",
        ["inner", "org-wide", "team"],
      ],
      [
        "a group with its projects' labels",
        "/groups/acme%2Fteam/labels?only_group_labels=false",
        ["org-wide", "team", "web-only"],
      ],
      [
        "search in title or description, any case",
        "/projects/acme%2Fteam%2Fweb/labels?search=TOP",
        ["org-wide"],
      ],
    ])("%s", async (_name, path, expected) => {
      expect(await names(path)).toEqual(expected);
    });

    it("the project entity has priority and is_project_label; the group entity neither; counts on request", async () => {
      const web = (await c.admin("GET", "/projects/acme%2Fteam%2Fweb/labels")).body as Json[];
      expect(web.find((l) => l["name"] === "web-only")).toEqual({
        id: expect.any(Number),
        name: "web-only",
        color: "#abc",
        description: null,
        description_html: "",
        text_color: "#333333",
        subscribed: false,
        priority: 3,
        is_project_label: true,
      });
      expect(web.find((l) => l["name"] === "org-wide")).toMatchObject({
        color: "#FF0000",
        description: "From the top",
        description_html: "From the top",
        text_color: "#FFFFFF",
        priority: null,
        is_project_label: false,
      });
      const group = (await c.admin("GET", "/groups/acme/labels")).body as Json[];
      expect(Object.keys(group[0]!)).toEqual([
        "id",
        "name",
        "color",
        "description",
        "description_html",
        "text_color",
        "subscribed",
      ]);
      const counted = (await c.admin("GET", "/projects/acme%2Fapi/labels?with_counts=true")).body as Json[];
      expect(
        counted.map((l) => [
          l["name"],
          l["open_issues_count"],
          l["closed_issues_count"],
          l["open_merge_requests_count"],
        ]),
      ).toEqual([
        ["bug", 1, 1, 0],
        // a group label counts in the projects directly in its group
        ["org-wide", 1, 0, 0],
      ]);
    });

    it("titles sort in byte order (upper case first) and are case-sensitive", async () => {
      for (const name of ["apple", "Zebra", "Bug"]) {
        expect(
          (await c.admin("POST", "/projects/acme%2Fapi/labels", { name, color: "#123456" })).status,
        ).toBe(201);
      }
      expect(await names("/projects/acme%2Fapi/labels")).toEqual([
        "Bug",
        "Zebra",
        "apple",
        "bug",
        "org-wide",
      ]);
      for (const name of ["apple", "Zebra", "Bug"])
        await c.admin("DELETE", `/projects/acme%2Fapi/labels/${name}`);
    });

    it.each([
      [
        "by id",
        async () => String(((await c.admin("GET", "/projects/acme%2Fapi/labels/bug")).body as Json)["id"]),
        200,
      ],
      ["by title", async () => "bug", 200],
      ["an ancestor's by title", async () => "org-wide", 200],
      ["a title in another case", async () => "BUG", 404],
      ["an unknown title", async () => "nope", 404],
    ])("GET /projects/:id/labels/:name %s", async (_name, ref, status) => {
      const r = await c.admin("GET", `/projects/acme%2Fapi/labels/${encodeURIComponent(await ref())}`);
      expect(r.status).toBe(status);
      if (status === 404) expect(r.body).toEqual({ message: "404 Label Not Found" });
    });

    it.each([
      [
        "a guest on a private project",
        null,
        "/projects/acme%2Fapi/labels",
        404,
        { message: "404 Project Not Found" },
      ],
      [
        "a guest on a public project",
        null,
        "/projects/open%2Fsite/labels",
        401,
        { message: "401 Unauthorized" },
      ],
      [
        "an outsider on a public project",
        "outsider-token",
        "/projects/open%2Fsite/labels",
        200,
        [expect.objectContaining({ name: "docs", color: "#6699cc" })],
      ],
      [
        "an outsider on a private group",
        "outsider-token",
        "/groups/acme/labels",
        404,
        { message: "404 Group Not Found" },
      ],
      [
        "a Guest member",
        "gst-token",
        "/groups/acme/labels",
        200,
        [expect.objectContaining({ name: "org-wide" })],
      ],
    ])("reading: %s", async (_name, token, path, status, answer) => {
      expect(pair(await as(token, "GET", path))).toEqual([status, answer]);
    });
  });

  describe("POST: validations and permissions", () => {
    const long = "x".repeat(255);
    it.each([
      ["no token", null, { name: "n1", color: "#fff" }, 401, { message: "401 Unauthorized" }],
      ["no name", "rep-token", { color: "#fff" }, 400, { error: "name is missing" }],
      ["no color", "rep-token", { name: "n1" }, 400, { error: "color is missing" }],
      [
        "a Guest (below Reporter)",
        "gst-token",
        { name: "n1", color: "#fff" },
        403,
        { message: "403 Forbidden" },
      ],
      [
        "a color without #",
        "rep-token",
        { name: "n1", color: "fff" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "a 4-digit color",
        "rep-token",
        { name: "n1", color: "#ffff" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "an unknown color name",
        "rep-token",
        { name: "n1", color: "blurple" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "rebeccapurple (not in 13.12's list)",
        "rep-token",
        { name: "n1", color: "rebeccapurple" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "an empty color",
        "rep-token",
        { name: "n1", color: "" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "a blank name",
        "rep-token",
        { name: " ", color: "#fff" },
        400,
        { message: { title: ["can't be blank", "is invalid"] } },
      ],
      ["a comma", "rep-token", { name: "a,b", color: "#fff" }, 400, { message: { title: ["is invalid"] } }],
      [
        "256 characters",
        "rep-token",
        { name: `${long}x`, color: "#fff" },
        400,
        { message: { title: ["is too long (maximum is 255 characters)"] } },
      ],
      [
        "a title the project has",
        "rep-token",
        { name: "bug", color: "#fff" },
        409,
        { message: "Label already exists" },
      ],
      [
        "a title a group above has",
        "rep-token",
        { name: "org-wide", color: "#fff" },
        409,
        { message: "Label already exists" },
      ],
      [
        "a negative priority (saved, then 500)",
        "rep-token",
        { name: "neg", color: "#fff", priority: -1 },
        500,
        { message: "500 Internal Server Error" },
      ],
    ])("project: %s", async (_name, token, body, status, answer) => {
      expect(pair(await as(token, "POST", "/projects/acme%2Fapi/labels", body))).toEqual([status, answer]);
    });

    it.each([
      ["#FFF (3 digits) kept", "#FFF", "#FFF"],
      ["#ffaabb kept in lower case", "#ffaabb", "#ffaabb"],
      ["a CSS name in any case", "  Green ", "#008000"],
      ["another CSS name", "cornflowerblue", "#6495ED"],
      ["blanks around a hex color", " #123abc ", "#123abc"],
    ])("project: color %s", async (name, given, stored) => {
      const r = await c.admin("POST", "/projects/acme%2Fapi/labels", { name, color: given });
      expect([r.status, (r.body as Json)["color"]]).toEqual([201, stored]);
      await c.admin("DELETE", `/projects/acme%2Fapi/labels/${(r.body as Json)["id"]}`);
    });

    it("a Reporter creates (201) with a priority; 255 characters, HTML stripped, a case variant of an existing title", async () => {
      const r = await as("rep-token", "POST", "/projects/acme%2Fapi/labels", {
        name: " <b>Bug</b> ",
        color: "#fff",
        description: "<i>Crash</i> & burn",
        priority: 2,
      });
      expect(pair(r)).toEqual([
        201,
        {
          id: expect.any(Number),
          name: "Bug",
          color: "#fff",
          description: "Crash & burn",
          description_html: "Crash &amp; burn",
          text_color: "#333333",
          subscribed: false,
          priority: 2,
          is_project_label: true,
        },
      ]);
      expect(
        (await c.admin("POST", "/projects/acme%2Fapi/labels", { name: long, color: "#000" })).status,
      ).toBe(201);
      expect(await names("/projects/acme%2Fapi/labels")).toContain("neg");
      for (const n of ["Bug", long, "neg"]) await c.admin("DELETE", `/projects/acme%2Fapi/labels/${n}`);
    });

    it.each([
      [
        "a Guest (below Reporter)",
        "gst-token",
        "/groups/acme/labels",
        { name: "g1", color: "#fff" },
        403,
        { message: "403 Forbidden" },
      ],
      [
        "a Reporter of the group",
        "grouprep-token",
        "/groups/acme/labels",
        { name: "g1", color: "red" },
        201,
        expect.objectContaining({ name: "g1", color: "#FF0000" }),
      ],
      [
        "a title a group above has",
        "grouprep-token",
        "/groups/acme%2Fteam/labels",
        { name: "org-wide", color: "#fff" },
        409,
        { message: "Label already exists" },
      ],
      [
        "a title only a subgroup has",
        "grouprep-token",
        "/groups/acme/labels",
        { name: "inner", color: "#fff" },
        201,
        expect.objectContaining({ name: "inner" }),
      ],
      [
        "a title only a project below has",
        "grouprep-token",
        "/groups/acme%2Fteam/labels",
        { name: "web-only", color: "#fff" },
        201,
        expect.objectContaining({ name: "web-only" }),
      ],
    ])("group: %s", async (_name, token, path, body, status, answer) => {
      const r = await as(token, "POST", path, body);
      expect(pair(r)).toEqual([status, answer]);
      if (r.status === 201) await c.admin("DELETE", `${path}/${(r.body as Json)["id"]}`);
    });
  });

  describe("PUT and DELETE", () => {
    it.each([
      [
        "nothing to change",
        "/projects/acme%2Fapi/labels/bug",
        {},
        400,
        {
          error:
            "new_name, color, description, priority are missing, at least one parameter must be provided",
        },
      ],
      [
        "nothing to change (group)",
        "/groups/acme/labels/org-wide",
        {},
        400,
        { error: "new_name, color, description are missing, at least one parameter must be provided" },
      ],
      [
        "neither label_id nor name (deprecated form)",
        "/projects/acme%2Fapi/labels",
        { color: "#fff" },
        400,
        { error: "label_id, name are missing, exactly one parameter must be provided" },
      ],
      [
        "both label_id and name",
        "/projects/acme%2Fapi/labels",
        { label_id: 1, name: "bug", color: "#fff" },
        400,
        { error: "label_id, name are mutually exclusive" },
      ],
      [
        "an invalid color",
        "/projects/acme%2Fapi/labels/bug",
        { color: "nope" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "an empty color",
        "/projects/acme%2Fapi/labels/bug",
        { color: "" },
        400,
        { message: { color: ["must be a valid color code"] } },
      ],
      [
        "a label of a group two levels up",
        "/projects/acme%2Fteam%2Fweb/labels/org-wide",
        { color: "#fff" },
        404,
        { message: "404 Label Not Found" },
      ],
      [
        "a new name the group's own labels have",
        "/projects/acme%2Fteam%2Fweb/labels/web-only",
        { new_name: "team" },
        400,
        { message: { title: ["already exists at group level for team. Please choose another one."] } },
      ],
      [
        "a new name another project label has",
        "/projects/acme%2Fapi/labels/bug",
        { new_name: "spare" },
        400,
        { message: { title: ["has already been taken"] } },
      ],
    ])("refused: %s", async (_name, path, body, status, answer) => {
      await c.admin("POST", "/projects/acme%2Fapi/labels", { name: "spare", color: "#fff" });
      try {
        expect(pair(await c.admin("PUT", path, body))).toEqual([status, answer]);
      } finally {
        await c.admin("DELETE", "/projects/acme%2Fapi/labels/spare");
      }
    });

    it("updates by title, by id and through the deprecated form; blank values are ignored; priority set and removed", async () => {
      const id = ((await c.admin("GET", "/projects/acme%2Fapi/labels/bug")).body as Json)["id"];
      const renamed = await as("rep-token", "PUT", "/projects/acme%2Fapi/labels/bug", {
        new_name: "defect",
        description: "Broken",
      });
      expect(pair(renamed)).toEqual([
        200,
        expect.objectContaining({ id, name: "defect", description: "Broken", color: "#d9534f" }),
      ]);
      const blank = await c.admin("PUT", `/projects/acme%2Fapi/labels/${id}`, {
        new_name: "",
        description: "",
      });
      expect(blank.body).toMatchObject({ name: "defect", description: "Broken" });
      const deprecated = await c.admin("PUT", "/projects/acme%2Fapi/labels", {
        name: "defect",
        new_name: "bug",
        priority: 7,
      });
      expect(deprecated.body).toMatchObject({ name: "bug", priority: 7 });
      const byId = await c.admin("PUT", "/projects/acme%2Fapi/labels", { label_id: id, priority: null });
      expect(byId.body).toMatchObject({ name: "bug", priority: null });
      expect(
        pair(await as("gst-token", "PUT", "/projects/acme%2Fapi/labels/bug", { color: "#fff" })),
      ).toEqual([403, { message: "403 Forbidden" }]);
    });

    it("a project's Reporter reaches its own group's labels (13.12) and sets a priority on them for the project", async () => {
      const r = await c.admin("PUT", "/projects/acme%2Fteam%2Fweb/labels/team", {
        color: "#00FF00",
        priority: 1,
      });
      expect(r.body).toMatchObject({ name: "team", color: "#00FF00", priority: 1, is_project_label: false });
      expect(((await c.admin("GET", "/groups/acme%2Fteam/labels/team")).body as Json)["color"]).toBe(
        "#00FF00",
      );
      expect(
        ((await c.admin("GET", "/projects/acme%2Fteam%2Fweb/labels/team")).body as Json)["priority"],
      ).toBe(1);
      expect(
        ((await c.admin("GET", "/projects/acme%2Fapi/labels/org-wide")).body as Json)["priority"],
      ).toBeNull();
    });

    it("deletes by title or id, the deprecated forms, If-Unmodified-Since, 404 and 403", async () => {
      const mk = async (path: string, name: string) =>
        ((await c.admin("POST", `${path}/labels`, { name, color: "#fff" })).body as Json)["id"];
      await mk("/projects/acme%2Fapi", "d1");
      const d2 = await mk("/projects/acme%2Fapi", "d2");
      await mk("/projects/acme%2Fapi", "d3");
      await mk("/groups/acme", "g1");
      expect(pair(await as("gst-token", "DELETE", "/projects/acme%2Fapi/labels/d1"))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
      expect((await as("rep-token", "DELETE", "/projects/acme%2Fapi/labels/d1")).status).toBe(204);
      expect(pair(await c.admin("DELETE", "/projects/acme%2Fapi/labels/d1"))).toEqual([
        404,
        { message: "404 Label Not Found" },
      ]);
      const stale = await c.call("DELETE", `/projects/acme%2Fapi/labels/${d2}`, {
        headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
      });
      expect(pair(stale)).toEqual([412, { message: "412 Precondition Failed" }]);
      expect((await c.call("DELETE", "/projects/acme%2Fapi/labels", { json: { label_id: d2 } })).status).toBe(
        204,
      );
      expect((await c.call("DELETE", "/projects/acme%2Fapi/labels", { json: { name: "d3" } })).status).toBe(
        204,
      );
      expect(pair(await c.call("DELETE", "/groups/acme/labels", { json: {} }))).toEqual([
        400,
        { error: "name is missing" },
      ]);
      expect((await c.call("DELETE", "/groups/acme/labels", { json: { name: "g1" } })).status).toBe(204);
      expect(await names("/projects/acme%2Fapi/labels")).toEqual(["bug", "org-wide"]);
    });
  });

  describe("subscriptions", () => {
    it("subscribe 201, again 304; unsubscribe 201, again 304; per project through a project", async () => {
      const path = "/projects/acme%2Fapi/labels/bug";
      const sub = await as("rep-token", "POST", `${path}/subscribe`);
      expect([sub.status, (sub.body as Json)["subscribed"]]).toEqual([201, true]);
      const again = await as("rep-token", "POST", `${path}/subscribe`);
      expect([again.status, again.text]).toEqual([304, ""]);
      expect(((await as("rep-token", "GET", path)).body as Json)["subscribed"]).toBe(true);
      expect(((await c.admin("GET", path)).body as Json)["subscribed"]).toBe(false);
      const un = await as("rep-token", "POST", `${path}/unsubscribe`);
      expect([un.status, (un.body as Json)["subscribed"]]).toEqual([201, false]);
      expect((await as("rep-token", "POST", `${path}/unsubscribe`)).status).toBe(304);
      expect(pair(await as(null, "POST", `${path}/subscribe`))).toEqual([
        401,
        { message: "401 Unauthorized" },
      ]);
      const group = await as("gst-token", "POST", "/groups/acme/labels/org-wide/subscribe");
      expect([group.status, (group.body as Json)["subscribed"]]).toEqual([201, true]);
      // a global subscription shows in every project
      expect(
        ((await as("gst-token", "GET", "/projects/acme%2Fapi/labels/org-wide")).body as Json)["subscribed"],
      ).toBe(true);
    });
  });

  it("the fixture refuses a label the model refuses, naming it", async () => {
    await expect(
      startSandbox({
        fixture: { groups: [{ path: "g" }], labels: [{ group: "g", name: "a,b", color: "#fff" }] },
      }),
    ).rejects.toThrow("labels[0] title is invalid");
    await expect(
      startSandbox({
        fixture: { groups: [{ path: "g" }], labels: [{ group: "g", name: "x", priority: 1 }] },
      }),
    ).rejects.toThrow("labels[0].priority is only for project labels");
    await expect(startSandbox({ fixture: { labels: [{ project: "no/such", name: "x" }] } })).rejects.toThrow(
      'labels[0].project names "no/such", which is not in projects',
    );
  });
});
