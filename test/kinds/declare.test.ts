/**
 * A kind as a declaration: what its schema gives (the fields read and sent, the shape a response must have) and
 * what a plain REST collection sends and reads, against a scripted platform over HTTP.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { kindSchema, restCollection, unchecked } from "../../src/kinds/declare.js";
import { kinds } from "../../src/kinds/index.js";
import type { KindContext, Parent } from "../../src/kinds/kind.js";
import { itemSchema } from "../../src/kinds/schemas.js";
import { Secret } from "../../src/manifest/secret.js";
import { json, startServer, type TestServer } from "../api/server.js";

describe("a kind's schema", () => {
  it("reads the fields it declares, sends write-only ones too, never collections or instructions", () => {
    const hooks = kindSchema("instance", "system_hooks");
    expect(hooks.identity).toBe("url");
    expect(hooks.read).toEqual([
      "url",
      "push_events",
      "tag_push_events",
      "merge_requests_events",
      "repository_update_events",
      "enable_ssl_verification",
    ]);
    expect(hooks.sent).toContain("token");
    const schedules = kindSchema("projects", "pipeline_schedules");
    expect(schedules.read).toEqual(["description", "ref", "cron", "cron_timezone", "active"]);
    expect(schedules.sent).not.toContain("take_ownership");
  });

  it("makes the response shape from the schema's types, required where the manifest requires, the API's own first", () => {
    expect(kindSchema("groups", "badges").shape({ id: "integer", name: "string?" })).toEqual({
      id: "integer",
      name: "string?",
      link_url: "string",
      image_url: "string",
    });
    const milestone = kindSchema("projects", "milestones").shape({ state: "string" });
    expect(Object.keys(milestone)).toEqual(["state", "title", "description", "start_date", "due_date"]);
    expect(milestone["description"]).toBe("string?");
    // A type `extra` gives to one of the schema's fields takes that field's place, not the first.
    expect(kindSchema("groups", "badges").shape({ id: "integer", image_url: "string?" })).toStrictEqual({
      id: "integer",
      name: "string",
      link_url: "string",
      image_url: "string?",
    });
    expect(
      Object.keys(kindSchema("groups", "badges").shape({ id: "integer", image_url: "string?" })),
    ).toEqual(["id", "name", "link_url", "image_url"]);
  });

  it("sends on create what the platform takes on create, and the update-only fields in an update right after", () => {
    const projects = kindSchema("instance", "projects");
    expect(projects.updateOnly).toEqual([
      "ci_forward_deployment_enabled",
      "restrict_user_defined_variables",
      "merge_pipelines_enabled",
      "merge_trains_enabled",
    ]);
    expect(projects.sent).not.toContain("ci_forward_deployment_enabled");
    expect(projects.sent).not.toContain("restrict_user_defined_variables");
    expect(projects.sent).toContain("visibility");
    expect(projects.read).toContain("ci_forward_deployment_enabled");
    // A kind without such fields has none.
    expect(kindSchema("groups", "badges").updateOnly).toEqual([]);
    expect(kindSchema("groups", "badges").sent).toEqual(["name", "link_url", "image_url"]);
  });

  it("keeps the unchecked settings a manifest sets, by their API names, for what a create or update answers", () => {
    expect(unchecked({ name: "x", "unchecked.extra_field": 1, "unchecked.other": "y" })).toEqual({
      unchecked: ["extra_field", "other"],
    });
    expect(unchecked({ name: "x" })).toEqual({});
  });
});

describe("a plain REST collection", () => {
  let server: TestServer;
  let api: ApiClient;
  afterEach(async () => {
    await api.close();
    await server.close();
  });

  const parent: Parent = { address: 'project["a/b"]', collection: "projects", key: "a/b", ref: "a/b" };
  const badges = restCollection({
    collection: "badges",
    segment: "badge",
    parents: ["projects"],
    path: "badges",
  });

  async function platform(answer: (method: string, path: string, body: string) => unknown) {
    server = await startServer((req, res) =>
      json(res, req.method === "POST" ? 201 : 200, answer(req.method, req.path, req.body)),
    );
    api = new ApiClient({ url: server.url, token: "t", insecureHttp: true });
    return { api, memo: new Map(), edition: "core" } as unknown as KindContext;
  }
  const badge = { id: 5, name: "cov", link_url: "https://l", image_url: "https://i", extra_field: "x" };

  it("lists under the owner's path and reads the schema's fields, and settings asked for under unchecked", async () => {
    const ctx = await platform(() => [badge]);
    const [live] = await badges.read(ctx, parent, [], { unchecked: ["extra_field", "absent_field"] });
    expect(server.seen[0]!.path).toBe("/api/v4/projects/a%2Fb/badges");
    expect(live).toEqual({
      key: "cov",
      id: 5,
      fields: { name: "cov", link_url: "https://l", image_url: "https://i", "unchecked.extra_field": "x" },
    });
  });

  it("creates with the schema's fields, secrets revealed, the identity and unchecked settings; updates the changed ones", async () => {
    const ctx = await platform(() => badge);
    await badges.create!(
      ctx,
      parent,
      {
        name: "cov",
        link_url: new Secret("https://l?key=s3cr3t", "env:L"),
        image_url: "https://i",
        "unchecked.extra_field": "x",
      },
      "cov",
    );
    expect(server.seen[0]).toMatchObject({ method: "POST", path: "/api/v4/projects/a%2Fb/badges" });
    expect(JSON.parse(server.seen[0]!.body)).toEqual({
      name: "cov",
      link_url: "https://l?key=s3cr3t",
      image_url: "https://i",
      extra_field: "x",
    });
    await badges.update!(
      ctx,
      parent,
      { key: "cov", id: 5, fields: {} },
      { image_url: "https://j", name: "cov" },
      ["image_url"],
    );
    expect(server.seen[1]).toMatchObject({ method: "PUT", path: "/api/v4/projects/a%2Fb/badges/5" });
    expect(JSON.parse(server.seen[1]!.body)).toEqual({ image_url: "https://j" });
    await badges.remove!(ctx, parent, { key: "cov", id: 5, fields: {} });
    expect(server.seen[2]).toMatchObject({ method: "DELETE", path: "/api/v4/projects/a%2Fb/badges/5" });
  });

  it("refuses a response that is not the shape its schema says, naming the field", async () => {
    const ctx = await platform(() => [{ ...badge, image_url: 7 }]);
    await expect(badges.read(ctx, parent, [])).rejects.toThrow(
      'the field "image_url" is an integer (7), not a string',
    );
  });

  it("refuses a response without the id it addresses objects by, or without the identity the manifest keys them by", async () => {
    // Declared here, not shared: a collection works out its response shape once, on first use.
    const fresh = () =>
      restCollection({ collection: "badges", segment: "badge", parents: ["projects"], path: "badges" });
    const { id: _id, ...withoutId } = badge;
    await expect(fresh().read(await platform(() => [withoutId]), parent, [])).rejects.toThrow(
      'the field "id" is missing',
    );
    await api.close();
    await server.close();
    const { name: _name, ...withoutName } = badge;
    await expect(fresh().read(await platform(() => [withoutName]), parent, [])).rejects.toThrow(
      'the field "name" is missing',
    );
  });

  it("reads, and checks, fields the API names otherwise under the API's name", async () => {
    const members = restCollection({
      collection: "members",
      segment: "member",
      parents: ["projects"],
      path: "members",
      apiNames: { user: "username" },
      shape: { access_level: "integer", expires_at: "string?" },
    });
    const ctx = await platform(() => [{ id: 7, username: "alice", access_level: 30, expires_at: null }]);
    expect(await members.read(ctx, parent, [])).toEqual([
      { key: "alice", id: 7, fields: { user: "alice", access_level: 30, expires_at: null } },
    ]);
    await api.close();
    await server.close();
    const wrong = await platform(() => [{ id: 7, user: "alice", access_level: 30 }]);
    await expect(members.read(wrong, parent, [])).rejects.toThrow('the field "username" is missing');
  });

  it("has no update when the platform has none: a change is a replacement, with the reason", () => {
    const hooks = restCollection({
      collection: "system_hooks",
      segment: "system_hook",
      parents: ["instance"],
      path: "/hooks",
      noUpdate: "no update call",
    });
    expect(hooks.update).toBeUndefined();
    expect(hooks).toMatchObject({ updateMode: "replace", replaceReason: "no update call" });
  });
});

describe("the kinds' declarations", () => {
  it("give `state` only to kinds that can delete: an entry marked absent always has a delete to plan", () => {
    const undeletable = kinds.filter((k) => !k.remove);
    expect(undeletable.map((k) => k.collection).sort()).toEqual([
      "application_settings",
      "epics",
      "error_tracking",
      "notification_settings",
      "notification_settings",
    ]);
    for (const kind of undeletable) {
      for (const parent of kind.parents) {
        const schema = itemSchema(parent, kind.collection);
        expect(schema, `${parent}.${kind.collection}`).toBeDefined();
        const properties = (schema!["properties"] ?? {}) as Record<string, unknown>;
        expect(Object.keys(properties), `${parent}.${kind.collection}`).not.toContain("state");
      }
    }
    // And every kind that can delete says how to ask for it.
    for (const kind of kinds.filter((k) => k.remove && !k.singleton)) {
      for (const parent of kind.parents) {
        const properties = (itemSchema(parent, kind.collection)?.["properties"] ?? {}) as Record<
          string,
          unknown
        >;
        expect(Object.keys(properties), `${parent}.${kind.collection}`).toContain("state");
      }
    }
  });
});
