/**
 * The rows of the contract's Application settings, Deploy keys, SSH keys lookup, Broadcast messages, System hooks,
 * Notification settings, Events and Snippets endpoint tables (`shared/spec/rest-interface.md`, beside the
 * repository), one case per row with valid and invalid requests, asserted over HTTP against in-process sandboxes of
 * both editions where the contract marks something licensed. The areas' own test files go deeper;
 * contract-endpoints.test.ts checks that every row has its case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";
import { ED25519, ED25519_MD5, ED25519_SHA, OWN_KEY, RSA2048, RSA2048_MD5 } from "./ssh-keys.js";

const NOW = "2023-06-15T12:00:00.000Z";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@acme.example", token: "alice-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { alice: "developer", maint: "maintainer", dev: "developer" },
    },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/web", visibility: "private" },
    { path: "alice/open", visibility: "public" },
  ],
  ssh_keys: [{ user: "alice", title: "laptop", key: ED25519 }],
  deploy_keys: [{ project: "acme/api", title: "ci", key: RSA2048, can_push: true, user: "maint" }],
  system_hooks: [{ url: "https://hooks.example/seeded", token: "s3cret" }],
  events: [
    {
      author: "alice",
      action: "pushed",
      project: "acme/api",
      created_at: "2023-02-01T09:00:00Z",
      push_data: { commit_count: 1, action: "pushed", ref_type: "branch", ref: "main", commit_title: "Fix" },
    },
    {
      author: "alice",
      action: "created",
      project: "acme/api",
      target_type: "Issue",
      target_id: 11,
      target_iid: 1,
      target_title: "Bug",
      created_at: "2023-03-01T09:00:00Z",
    },
    {
      author: "alice",
      action: "commented",
      project: "alice/open",
      target_type: "Note",
      target_title: "Bug",
      created_at: "2023-04-01T09:00:00Z",
      note: { id: 7, body: "LGTM", noteable_type: "Issue", noteable_iid: 1 },
    },
    {
      author: "dev",
      action: "closed",
      project: "acme/api",
      target_type: "Issue",
      created_at: "2023-05-01T09:00:00Z",
    },
    { author: "alice", action: "merged", project: "acme/api", created_at: "2021-06-14T00:00:00Z" },
  ],
  snippets: [
    { author: "alice", title: "Notes", file_name: "notes.md", content: "# notes", visibility: "private" },
    { author: "alice", title: "Shared", file_name: "shared.sh", content: "echo hi", visibility: "public" },
    { author: "dev", title: "Team", file_name: "team.txt", content: "team", visibility: "internal" },
  ],
};

describe("contract endpoint tables: Application settings, Deploy keys, SSH keys, Broadcast messages, System hooks, Notification settings, Events, Snippets", () => {
  let c: Client;
  let core: Client;
  const uid: Record<string, number> = {};
  let deployKeyId: number;
  const snippet: Record<string, number> = {};

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    core = await sandbox({ clock: () => new Date(NOW), fixture, edition: "core" });
    for (const name of ["alice", "maint", "dev"]) {
      uid[name] = ((await c.admin("GET", `/users?username=${name}`)).body as { id: number }[])[0]!.id;
    }
    deployKeyId = ((await c.admin("GET", "/deploy_keys")).body as { id: number }[])[0]!.id;
    for (const token of ["alice-token", "dev-token"]) {
      for (const s of (await c.call("GET", "/snippets", { token })).body as { id: number; title: string }[]) {
        snippet[s.title] = s.id;
      }
    }
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("Application settings (administrator only)", () => {
    it("GET /application/settings | | settings object", async () => {
      const r = await c.admin("GET", "/application/settings");
      const s = r.body as Record<string, unknown>;
      expect(s).toMatchObject({
        id: expect.any(Number),
        default_projects_limit: 100000,
        default_branch_protection: 2,
        default_group_visibility: "private",
        default_project_visibility: "private",
        default_snippet_visibility: "private",
        polling_interval_multiplier: expect.any(Number),
        restricted_visibility_levels: expect.any(Array),
        signup_enabled: expect.any(Boolean),
      });
      expect(s).not.toHaveProperty("asset_proxy_secret_key");
      expect(s).not.toHaveProperty("cloudk8s_secret_access_key");
      for (const licensed of ["file_template_project_id", "searchengine_url", "email_additional_text"]) {
        expect(s).toHaveProperty(licensed);
        expect((await core.admin("GET", "/application/settings")).body).not.toHaveProperty(licensed);
      }
      expect((await c.call("GET", "/application/settings", { token: null })).status).toBe(401);
      expect((await c.call("GET", "/application/settings", { token: "alice-token" })).body).toEqual({
        message: "403 Forbidden",
      });
    });

    it("PUT /application/settings | any settings of the table (query or body) | updated settings object", async () => {
      const r = await c.admin("PUT", "/application/settings", {
        default_projects_limit: 50,
        domain_blacklist_enabled: true,
        domain_blacklist: ["spam.example"],
        asset_proxy_secret_key: "hidden",
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        default_projects_limit: 50,
        domain_blacklist_enabled: true,
        domain_blacklist: ["spam.example"],
      });
      expect(r.body).not.toHaveProperty("asset_proxy_secret_key");
      const query = await c.call("PUT", "/application/settings?default_snippet_visibility=internal", {
        token: "admin-token",
      });
      expect((query.body as { default_snippet_visibility: string }).default_snippet_visibility).toBe(
        "internal",
      );
      const requires = await c.admin("PUT", "/application/settings", { spam_service_enabled: true });
      expect([requires.status, requires.body]).toEqual([400, { error: "spam_service_api_key is missing" }]);
      const empty = await c.admin("PUT", "/application/settings", {});
      expect(empty.status).toBe(400);
      expect((empty.body as { error: string }).error).toMatch(
        /are missing, at least one parameter must be provided$/,
      );
      expect(
        (await c.admin("PUT", "/application/settings", { default_group_visibility: "secret" })).body,
      ).toEqual({
        error: "default_group_visibility does not have a valid value",
      });
      const onCore = await core.admin("PUT", "/application/settings", {
        email_additional_text: "x",
        default_projects_limit: 7,
      });
      expect(onCore.body).toMatchObject({ default_projects_limit: 7 });
      expect(onCore.body).not.toHaveProperty("email_additional_text");
      expect(
        (
          await c.call("PUT", "/application/settings", {
            token: "alice-token",
            json: { default_projects_limit: 1 },
          })
        ).status,
      ).toBe(403);
    });
  });

  describe("Deploy keys", () => {
    const keys = "/projects/acme%2Fapi/deploy_keys";

    it("GET /deploy_keys | administrator only | all deploy keys (id, title, key, created_at)", async () => {
      const r = await c.admin("GET", "/deploy_keys");
      expect(r.body).toEqual([
        expect.objectContaining({ id: deployKeyId, title: "ci", key: RSA2048, created_at: NOW }),
      ]);
      expect((await c.call("GET", "/deploy_keys", { token: "maint-token" })).status).toBe(403);
      expect((await c.call("GET", "/deploy_keys", { token: null })).status).toBe(401);
    });

    it("GET /projects/:id/deploy_keys | | array of deploy key", async () => {
      const r = await c.call("GET", keys, { token: "maint-token" });
      expect(r.body).toEqual([
        { id: deployKeyId, title: "ci", key: RSA2048, created_at: NOW, can_push: true },
      ]);
      expect((await c.call("GET", keys, { token: "dev-token" })).status).toBe(403);
      expect((await c.call("GET", keys, { token: "outsider-token" })).status).toBe(404);
    });

    it("GET /projects/:id/deploy_keys/:key_id | key_id integer req | deploy key", async () => {
      const r = await c.call("GET", `${keys}/${deployKeyId}`, { token: "maint-token" });
      expect(r.body).toEqual({ id: deployKeyId, title: "ci", key: RSA2048, created_at: NOW, can_push: true });
      expect((await c.call("GET", `${keys}/999999`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", `${keys}/x`, { token: "maint-token" })).body).toEqual({
        error: "key_id is invalid",
      });
    });

    it("POST /projects/:id/deploy_keys | title, key req; can_push opt | deploy key", async () => {
      const r = await c.call("POST", "/projects/acme%2Fweb/deploy_keys", {
        token: "maint-token",
        json: { title: "own", key: `  ${OWN_KEY}\n` },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ title: "own", key: OWN_KEY, can_push: false });
      // the same key on a project the caller maintains is joined
      const joined = await c.call("POST", keys, {
        token: "maint-token",
        json: { title: "again", key: OWN_KEY },
      });
      expect([joined.status, (joined.body as { id: number }).id]).toEqual([
        201,
        (r.body as { id: number }).id,
      ]);
      expect((await c.call("POST", keys, { token: "maint-token", json: { title: "x" } })).body).toEqual({
        error: "key is missing",
      });
      const bad = await c.call("POST", keys, {
        token: "maint-token",
        json: { title: "bad", key: "ssh-rsa nope" },
      });
      expect([bad.status, bad.body]).toEqual([
        400,
        { message: { "deploy_key.key": ["is invalid"], "deploy_key.fingerprint": ["cannot be generated"] } },
      ]);
      // a user's own SSH key is not free to become a deploy key
      const taken = await c.call("POST", keys, {
        token: "maint-token",
        json: { title: "stolen", key: ED25519 },
      });
      expect([taken.status, taken.body]).toEqual([
        400,
        { message: { "deploy_key.fingerprint": ["has already been taken"] } },
      ]);
    });

    it("PUT /projects/:id/deploy_keys/:key_id | title, can_push opt | deploy key", async () => {
      const r = await c.call("PUT", `${keys}/${deployKeyId}`, {
        token: "maint-token",
        json: { title: "ci-renamed", can_push: false },
      });
      expect(r.body).toMatchObject({ id: deployKeyId, title: "ci-renamed", can_push: false });
      const none = await c.call("PUT", `${keys}/${deployKeyId}`, { token: "maint-token", json: {} });
      expect([none.status, none.body]).toEqual([
        400,
        { error: "title, can_push are missing, at least one parameter must be provided" },
      ]);
      expect(
        (await c.call("PUT", `${keys}/999999`, { token: "maint-token", json: { title: "x" } })).status,
      ).toBe(404);
    });

    it("DELETE /projects/:id/deploy_keys/:key_id | | removes the key from the project; deleted if used only here", async () => {
      const own = (
        (await c.call("GET", "/projects/acme%2Fweb/deploy_keys", { token: "maint-token" })).body as {
          id: number;
        }[]
      )[0]!.id;
      const r = await c.call("DELETE", `${keys}/${own}`, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      // still used by acme/web, so it exists
      expect(((await c.admin("GET", "/deploy_keys")).body as { id: number }[]).map((k) => k.id)).toContain(
        own,
      );
      expect((await c.call("DELETE", `${keys}/${own}`, { token: "maint-token" })).body).toEqual({
        message: "404 Deploy Key Not Found",
      });
      expect(
        (await c.call("DELETE", "/projects/acme%2Fweb/deploy_keys/" + own, { token: "maint-token" })).status,
      ).toBe(204);
      expect(
        ((await c.admin("GET", "/deploy_keys")).body as { id: number }[]).map((k) => k.id),
      ).not.toContain(own);
    });

    it("POST /projects/:id/deploy_keys/:key_id/enable | | 201 and the enabled key", async () => {
      const r = await c.call("POST", `/projects/acme%2Fweb/deploy_keys/${deployKeyId}/enable`, {
        token: "maint-token",
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: deployKeyId, title: "ci-renamed", key: RSA2048, created_at: NOW });
      expect(r.body).not.toHaveProperty("can_push");
      const missing = await c.call("POST", "/projects/acme%2Fweb/deploy_keys/999999/enable", {
        token: "maint-token",
      });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Deploy Key Not Found" }]);
      expect(
        (
          await c.call("POST", `/projects/acme%2Fweb/deploy_keys/${deployKeyId}/enable`, {
            token: "dev-token",
          })
        ).status,
      ).toBe(403);
    });
  });

  describe("SSH keys lookup (administrator only)", () => {
    it("GET /keys/:id | id integer req | SSH key with user", async () => {
      const keys = (c.sb.store.data.areas["deploy_keys"] as { keys: { id: number; title: string }[] }).keys;
      const keyId = keys.find((k) => k.title === "laptop")!.id;
      const r = await c.admin("GET", `/keys/${keyId}`);
      expect(r.body).toMatchObject({
        id: keyId,
        title: "laptop",
        key: ED25519,
        created_at: NOW,
        expires_at: null,
        user: expect.objectContaining({
          username: "alice",
          created_at: expect.any(String),
          email: "alice@acme.example",
        }),
      });
      expect(r.body).not.toHaveProperty("deploy_keys_projects");
      expect((await c.admin("GET", "/keys/999999")).body).toEqual({ message: "404 Not found" });
      expect((await c.call("GET", `/keys/${keyId}`, { token: "alice-token" })).status).toBe(403);
    });

    it("GET /keys | fingerprint req (MD5 colon form or SHA256 form) | SSH key with user; for a deploy key also deploy_keys_projects", async () => {
      const sha = await c.admin("GET", `/keys?fingerprint=${encodeURIComponent(`SHA256:${ED25519_SHA}`)}`);
      expect(sha.body).toMatchObject({ title: "laptop", user: { username: "alice" } });
      const deploy = await c.admin("GET", `/keys?fingerprint=${encodeURIComponent(RSA2048_MD5)}`);
      expect(deploy.body).toMatchObject({
        id: deployKeyId,
        user: { username: "maint" },
        deploy_keys_projects: expect.arrayContaining([
          expect.objectContaining({
            deploy_key_id: deployKeyId,
            can_push: false,
            project_id: expect.any(Number),
          }),
        ]),
      });
      expect((await c.admin("GET", "/keys")).body).toEqual({ error: "fingerprint is missing" });
      expect((await c.admin("GET", "/keys?fingerprint=nonsense")).body).toEqual({
        message: "Failed to return the key",
      });
      expect(
        (
          await c.admin(
            "GET",
            `/keys?fingerprint=${encodeURIComponent("00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff")}`,
          )
        ).body,
      ).toEqual({
        message: "404 Key Not Found",
      });
      expect((await c.call("GET", `/keys?fingerprint=${ED25519_MD5}`, { token: null })).status).toBe(401);
    });
  });

  describe("Broadcast messages", () => {
    let id: number;

    it("POST /broadcast_messages | message req; starts_at, ends_at, color, font, target_path, broadcast_type, dismissable opt | message", async () => {
      const r = await c.admin("POST", "/broadcast_messages", {
        message: "Maintenance tonight",
        target_path: "*/api",
      });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(Number),
        message: "Maintenance tonight",
        starts_at: NOW,
        ends_at: "2023-06-15T13:00:00.000Z",
        color: "#E75E40",
        font: "#FFFFFF",
        active: true,
        target_path: "*/api",
        broadcast_type: "banner",
        dismissable: false,
      });
      id = (r.body as { id: number }).id;
      expect((await c.admin("POST", "/broadcast_messages", { starts_at: NOW })).body).toEqual({
        error: "message is missing",
      });
      expect(
        (await c.admin("POST", "/broadcast_messages", { message: "x", broadcast_type: "popup" })).body,
      ).toEqual({
        error: "broadcast_type does not have a valid value",
      });
      expect((await c.admin("POST", "/broadcast_messages", { message: "x", color: "red" })).body).toEqual({
        message: { color: ["must be a valid color code"] },
      });
      expect(
        (await c.call("POST", "/broadcast_messages", { token: null, json: { message: "x" } })).status,
      ).toBe(401);
      expect(
        (await c.call("POST", "/broadcast_messages", { token: "alice-token", json: { message: "x" } }))
          .status,
      ).toBe(403);
    });

    it("GET /broadcast_messages | | array of message", async () => {
      const r = await c.call("GET", "/broadcast_messages", { token: null });
      expect(r.body).toEqual([expect.objectContaining({ id, message: "Maintenance tonight" })]);
      expect(r.headers.get("x-total")).toBe("1");
      expect((await c.call("GET", "/broadcast_messages?per_page=x", { token: null })).body).toEqual({
        error: "per_page is invalid",
      });
      expect((await c.call("GET", "/broadcast_messages", { token: "wrong-token" })).status).toBe(401);
    });

    it("GET /broadcast_messages/:id | id integer req | message", async () => {
      expect((await c.call("GET", `/broadcast_messages/${id}`, { token: null })).body).toMatchObject({
        id,
        active: true,
      });
      expect((await c.call("GET", "/broadcast_messages/999999", { token: null })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", "/broadcast_messages/abc", { token: null })).body).toEqual({
        error: "id is invalid",
      });
    });

    it("PUT /broadcast_messages/:id | id req; the same fields, all opt | message", async () => {
      const r = await c.admin("PUT", `/broadcast_messages/${id}`, {
        broadcast_type: "notification",
        dismissable: true,
        starts_at: "2023-06-16T00:00:00Z",
        ends_at: "2023-06-17T00:00:00Z",
      });
      expect(r.body).toMatchObject({
        id,
        broadcast_type: "notification",
        dismissable: true,
        active: false,
        starts_at: "2023-06-16T00:00:00.000Z",
      });
      expect((await c.admin("PUT", `/broadcast_messages/${id}`, { font: "white" })).status).toBe(400);
      expect(
        (await c.call("PUT", `/broadcast_messages/${id}`, { token: "alice-token", json: { message: "x" } }))
          .status,
      ).toBe(403);
      expect((await c.admin("PUT", "/broadcast_messages/999999", { message: "x" })).status).toBe(404);
    });

    it("DELETE /broadcast_messages/:id | id req | deletes message", async () => {
      expect((await c.call("DELETE", `/broadcast_messages/${id}`, { token: null })).status).toBe(401);
      const r = await c.admin("DELETE", `/broadcast_messages/${id}`);
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.admin("DELETE", `/broadcast_messages/${id}`)).body).toEqual({
        message: "404 Not found",
      });
    });
  });

  describe("System hooks (administrator only)", () => {
    let hookId: number;

    it("GET /hooks | | array of hook", async () => {
      const r = await c.admin("GET", "/hooks");
      expect(r.body).toEqual([
        {
          id: expect.any(Number),
          url: "https://hooks.example/seeded",
          created_at: NOW,
          push_events: false,
          tag_push_events: false,
          merge_requests_events: false,
          repository_update_events: true,
          enable_ssl_verification: true,
        },
      ]);
      expect((await c.call("GET", "/hooks", { token: "alice-token" })).status).toBe(403);
      expect((await c.call("GET", "/hooks", { token: null })).status).toBe(401);
    });

    it("POST /hooks | url req; token, push_events, tag_push_events, merge_requests_events, repository_update_events, enable_ssl_verification opt | the hook (an object, as the platform answers)", async () => {
      const r = await c.admin("POST", "/hooks", {
        url: "https://hooks.example/new",
        token: "t0ken",
        tag_push_events: true,
        repository_update_events: false,
        enable_ssl_verification: false,
      });
      expect(r.status).toBe(201);
      hookId = (r.body as { id: number }).id;
      expect(r.body).toMatchObject({
        url: "https://hooks.example/new",
        push_events: false,
        tag_push_events: true,
        repository_update_events: false,
        enable_ssl_verification: false,
      });
      expect(r.body).not.toHaveProperty("token");
      expect((await c.admin("POST", "/hooks", { token: "x" })).body).toEqual({ error: "url is missing" });
      const bad = await c.admin("POST", "/hooks", { url: "not a url" });
      expect(bad.status).toBe(400);
      expect((bad.body as { message: object }).message).toHaveProperty("url");
      expect(
        (await c.call("POST", "/hooks", { token: "alice-token", json: { url: "https://x.example" } })).status,
      ).toBe(403);
    });

    it("GET /hooks/:id | id integer req | sample hook payload (test): project_id, owner_email, owner_name, name, path, event_name", async () => {
      const r = await c.admin("GET", `/hooks/${hookId}`);
      expect(r.body).toEqual({
        project_id: 1,
        owner_email: "example@gitlabhq.com",
        owner_name: "Someone",
        name: "Ruby",
        path: "ruby",
        event_name: "project_create",
      });
      expect((await c.admin("GET", "/hooks/999999")).body).toEqual({ message: "404 Not found" });
      expect((await c.admin("GET", "/hooks/abc")).body).toEqual({ error: "id is invalid" });
    });

    it("DELETE /hooks/:id | id integer req | deletes hook", async () => {
      const r = await c.admin("DELETE", `/hooks/${hookId}`);
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.admin("DELETE", `/hooks/${hookId}`)).body).toEqual({
        message: "404 System hook Not Found",
      });
      expect((await c.call("DELETE", `/hooks/${hookId}`, { token: "alice-token" })).status).toBe(403);
    });
  });

  describe("Notification settings", () => {
    const EVENTS = [
      "new_note",
      "new_issue",
      "reopen_issue",
      "close_issue",
      "reassign_issue",
      "issue_due",
      "new_merge_request",
      "push_to_merge_request",
      "reopen_merge_request",
      "close_merge_request",
      "reassign_merge_request",
      "merge_merge_request",
      "failed_pipeline",
      "fixed_pipeline",
      "success_pipeline",
    ];

    it("GET /notification_settings | | level and notification_email", async () => {
      const r = await c.call("GET", "/notification_settings", { token: "alice-token" });
      expect(r.body).toEqual({ level: "participating", notification_email: "alice@acme.example" });
      expect((await c.call("GET", "/notification_settings", { token: null })).status).toBe(401);
    });

    it("PUT /notification_settings | level, notification_email, event switches opt | level and notification_email", async () => {
      const r = await c.call("PUT", "/notification_settings", {
        token: "alice-token",
        json: { level: "custom", new_note: true },
      });
      expect(r.body).toMatchObject({
        level: "custom",
        notification_email: "alice@acme.example",
        events: expect.objectContaining({ new_note: true, new_epic: null }),
      });
      expect(Object.keys((r.body as { events: object }).events)).toEqual(expect.arrayContaining(EVENTS));
      const bad = await c.call("PUT", "/notification_settings", {
        token: "alice-token",
        json: { level: "loud" },
      });
      expect([bad.status, bad.body]).toEqual([400, { message: "'loud' is not a valid level" }]);
      const email = await c.call("PUT", "/notification_settings", {
        token: "alice-token",
        json: { notification_email: "x@y.example" },
      });
      expect([email.status, email.body]).toEqual([
        400,
        { message: { notification_email: ["is not an email you own"] } },
      ]);
      const onCore = await core.call("PUT", "/notification_settings", {
        token: "alice-token",
        json: { level: "custom" },
      });
      expect((onCore.body as { events: object }).events).not.toHaveProperty("new_epic");
    });

    it("GET /groups/:id/notification_settings | id req (ID or path) | level (and events when custom)", async () => {
      const r = await c.call("GET", "/groups/acme/notification_settings", { token: "alice-token" });
      expect(r.body).toEqual({ level: "global" });
      expect(
        (await c.call("GET", "/groups/acme/notification_settings", { token: "outsider-token" })).status,
      ).toBe(404);
      expect((await c.call("GET", "/groups/acme/notification_settings", { token: null })).status).toBe(401);
    });

    it("PUT /groups/:id/notification_settings | level, event switches opt | level (and events when custom)", async () => {
      const r = await c.call("PUT", "/groups/acme/notification_settings", {
        token: "alice-token",
        form: "level=custom&new_epic=true&failed_pipeline=false",
      });
      expect(r.body).toEqual({
        level: "custom",
        events: expect.objectContaining({
          new_epic: true,
          failed_pipeline: false,
          fixed_pipeline: true,
          new_issue: null,
        }),
      });
      const onCore = await core.call("PUT", "/groups/acme/notification_settings", {
        token: "alice-token",
        json: { level: "custom" },
      });
      expect((onCore.body as { events: object }).events).not.toHaveProperty("new_epic");
      expect(
        (
          await c.call("PUT", "/groups/acme/notification_settings", {
            token: "alice-token",
            json: { level: "all" },
          })
        ).body,
      ).toEqual({
        message: "'all' is not a valid level",
      });
      expect(
        (
          await c.call("PUT", "/groups/acme/notification_settings", {
            token: "alice-token",
            json: { new_note: "often" },
          })
        ).body,
      ).toEqual({
        error: "new_note is invalid",
      });
    });

    it("GET /projects/:id/notification_settings | id req (ID or path) | level (and events when custom)", async () => {
      const pid = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
      expect(
        (await c.call("GET", `/projects/${pid}/notification_settings`, { token: "alice-token" })).body,
      ).toEqual({ level: "global" });
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/notification_settings", { token: "outsider-token" })).body,
      ).toEqual({
        message: "404 Project Not Found",
      });
    });

    it("PUT /projects/:id/notification_settings | level, event switches opt | level (and events when custom)", async () => {
      const r = await c.call("PUT", "/projects/acme%2Fapi/notification_settings", {
        token: "alice-token",
        json: { level: "watch" },
      });
      expect(r.body).toEqual({ level: "watch" });
      const custom = await c.call("PUT", "/projects/acme%2Fapi/notification_settings", {
        token: "alice-token",
        json: { level: "custom", close_issue: true },
      });
      expect((custom.body as { events: Record<string, unknown> }).events).toMatchObject({
        close_issue: true,
      });
      expect((custom.body as { events: object }).events).not.toHaveProperty("new_epic");
      expect(
        (
          await c.call("PUT", "/projects/acme%2Fapi/notification_settings", {
            token: "alice-token",
            json: { level: "x" },
          })
        ).status,
      ).toBe(400);
    });
  });

  describe("Events", () => {
    type Ev = {
      action_name: string;
      created_at: string;
      author_username: string;
      target_type: string | null;
    };

    it("GET /events | action, target_type, before, after, sort; scope opt | the caller's events", async () => {
      const r = await c.call("GET", "/events", { token: "alice-token" });
      expect((r.body as Ev[]).map((e) => e.action_name)).toEqual(["commented on", "opened", "pushed to"]);
      expect((r.body as object[])[0]).toMatchObject({
        project_id: expect.any(Number),
        target_type: "Note",
        author: expect.objectContaining({ username: "alice" }),
        author_username: "alice",
        note: expect.objectContaining({ body: "LGTM", noteable_type: "Issue" }),
      });
      const f = await c.call("GET", "/events?action=pushed&after=2023-01-31&before=2023-02-02&sort=asc", {
        token: "alice-token",
      });
      expect(
        (f.body as Ev[]).map((e) => [
          e.action_name,
          (e as unknown as { push_data: { ref: string } }).push_data.ref,
        ]),
      ).toEqual([["pushed to", "main"]]);
      const all = await c.call("GET", "/events?scope=all&target_type=issue", { token: "alice-token" });
      expect((all.body as Ev[]).map((e) => e.author_username)).toEqual(["dev", "alice"]);
      expect((await c.call("GET", "/events?action=deleted", { token: "alice-token" })).body).toEqual({
        error: "action does not have a valid value",
      });
      expect((await c.call("GET", "/events?before=yesterday", { token: "alice-token" })).body).toEqual({
        error: "before is invalid",
      });
      expect((await c.call("GET", "/events", { token: null })).status).toBe(401);
    });

    it("GET /users/:id/events | id req (ID or username); newest first | events", async () => {
      const r = await c.call("GET", "/users/alice/events", { token: "dev-token" });
      expect((r.body as Ev[]).map((e) => e.created_at)).toEqual([
        "2023-04-01T09:00:00.000Z",
        "2023-03-01T09:00:00.000Z",
        "2023-02-01T09:00:00.000Z",
      ]);
      // outsider sees only the public project's events
      const outsider = await c.call("GET", `/users/${uid["alice"]}/events`, { token: "outsider-token" });
      expect((outsider.body as Ev[]).map((e) => e.action_name)).toEqual(["commented on"]);
      expect((await c.call("GET", "/users/nobody/events", { token: "dev-token" })).body).toEqual({
        message: "404 User Not Found",
      });
    });

    it("GET /projects/:project_id/events | project_id req | events", async () => {
      const r = await c.call("GET", "/projects/acme%2Fapi/events?target_type=issue", { token: "dev-token" });
      expect((r.body as Ev[]).map((e) => [e.author_username, e.action_name])).toEqual([
        ["dev", "closed"],
        ["alice", "opened"],
      ]);
      expect((await c.call("GET", "/projects/acme%2Fapi/events", { token: "outsider-token" })).body).toEqual({
        message: "404 Project Not Found",
      });
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/events?sort=newest", { token: "dev-token" })).status,
      ).toBe(400);
    });
  });

  describe("Snippets", () => {
    it("GET /snippets | | current user's snippets", async () => {
      const r = await c.call("GET", "/snippets", { token: "alice-token" });
      expect((r.body as { title: string }[]).map((s) => s.title).sort()).toEqual(["Notes", "Shared"]);
      expect(Object.keys((r.body as object[])[0]!)).toEqual(
        expect.arrayContaining([
          "id",
          "title",
          "file_name",
          "description",
          "visibility",
          "author",
          "updated_at",
          "created_at",
          "project_id",
          "web_url",
          "raw_url",
        ]),
      );
      expect((await c.call("GET", "/snippets", { token: null })).status).toBe(401);
    });

    it("GET /snippets/:id | id integer req | snippet", async () => {
      expect((await c.call("GET", `/snippets/${snippet["Shared"]}`, { token: null })).body).toMatchObject({
        title: "Shared",
        visibility: "public",
        author: { username: "alice" },
      });
      expect((await c.call("GET", `/snippets/${snippet["Team"]}`, { token: "alice-token" })).status).toBe(
        200,
      );
      expect((await c.call("GET", `/snippets/${snippet["Notes"]}`, { token: "dev-token" })).body).toEqual({
        message: "404 Snippet Not Found",
      });
      expect((await c.call("GET", "/snippets/abc", { token: "dev-token" })).body).toEqual({
        error: "id is invalid",
      });
    });

    it("GET /snippets/:id/raw | id req | raw contents as plain text", async () => {
      const res = await fetch(`${c.sb.url}/api/v4/snippets/${snippet["Shared"]}/raw`);
      expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([
        200,
        expect.stringMatching(/^text\/plain/),
        "echo hi",
      ]);
      expect((await c.call("GET", `/snippets/${snippet["Team"]}/raw`, { token: null })).status).toBe(404);
    });

    it("POST /snippets | title, file_name, content req; description, visibility opt | snippet", async () => {
      const r = await c.call("POST", "/snippets", {
        token: "dev-token",
        json: {
          title: "Script",
          file_name: "run.sh",
          content: "make",
          description: "how to",
          visibility: "private",
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        title: "Script",
        file_name: "run.sh",
        description: "how to",
        visibility: "private",
        author: { username: "dev" },
      });
      snippet["Script"] = (r.body as { id: number }).id;
      const dflt = await c.call("POST", "/snippets", {
        token: "dev-token",
        form: "title=T&file_name=t.txt&content=c",
      });
      expect((dflt.body as { visibility: string }).visibility).toBe("internal");
      expect(
        (await c.call("POST", "/snippets", { token: "dev-token", json: { title: "T", file_name: "t" } }))
          .body,
      ).toEqual({
        error: "content is missing",
      });
      expect(
        (
          await c.call("POST", "/snippets", {
            token: "dev-token",
            json: { title: "T", file_name: "t", content: "c", visibility: "secret" },
          })
        ).body,
      ).toEqual({
        error: "visibility does not have a valid value",
      });
      expect(
        (
          await c.call("POST", "/snippets", {
            token: null,
            json: { title: "T", file_name: "t", content: "c" },
          })
        ).status,
      ).toBe(401);
    });

    it("PUT /snippets/:id | title, file_name, description, content, visibility opt | snippet", async () => {
      const r = await c.call("PUT", `/snippets/${snippet["Script"]}`, {
        token: "dev-token",
        json: { title: "Script v2", visibility: "public" },
      });
      expect(r.body).toMatchObject({ id: snippet["Script"], title: "Script v2", visibility: "public" });
      expect(
        (
          await c.call("PUT", `/snippets/${snippet["Script"]}`, {
            token: "alice-token",
            json: { title: "mine" },
          })
        ).status,
      ).toBe(404);
      const none = await c.call("PUT", `/snippets/${snippet["Script"]}`, { token: "dev-token", json: {} });
      expect(none.status).toBe(400);
    });

    it("DELETE /snippets/:id | id req | 204 on success, 404 when not found", async () => {
      expect(
        (await c.call("DELETE", `/snippets/${snippet["Script"]}`, { token: "alice-token" })).status,
      ).toBe(404);
      const r = await c.call("DELETE", `/snippets/${snippet["Script"]}`, { token: "dev-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", `/snippets/${snippet["Script"]}`, { token: "dev-token" })).body).toEqual(
        {
          message: "404 Snippet Not Found",
        },
      );
    });

    it("GET /snippets/public | per_page, page opt | public snippets", async () => {
      const r = await c.call("GET", "/snippets/public?per_page=1&page=1", { token: "dev-token" });
      expect((r.body as { title: string }[]).map((s) => s.title)).toEqual(["Shared"]);
      expect(r.headers.get("x-per-page")).toBe("1");
      expect((await c.call("GET", "/snippets/public?page=first", { token: "dev-token" })).body).toEqual({
        error: "page is invalid",
      });
      expect((await c.call("GET", "/snippets/public", { token: null })).status).toBe(401);
    });

    it("GET /snippets/:id/user_agent_detail | administrator only | user agent detail", async () => {
      const id = (
        (
          await c.call("POST", "/snippets", {
            token: "dev-token",
            json: { title: "UA", file_name: "ua.txt", content: "x" },
            headers: { "User-Agent": "contract-test/1.0" },
          })
        ).body as { id: number }
      ).id;
      const r = await c.admin("GET", `/snippets/${id}/user_agent_detail`);
      expect(r.body).toEqual({
        user_agent: "contract-test/1.0",
        ip_address: expect.any(String),
        spam_check_submitted: false,
      });
      expect((await c.call("GET", `/snippets/${id}/user_agent_detail`, { token: "dev-token" })).status).toBe(
        403,
      );
      expect((await c.admin("GET", "/snippets/999999/user_agent_detail")).body).toEqual({
        message: "404 Not found",
      });
    });
  });
});
