/**
 * Role checks one role short: each case gives a user exactly the role below the one the platform requires, and
 * the role itself, so that a check loosened by one role fails here. Found by loosening every role check of the
 * sandbox in turn (docs/testing.md, "Permissions, one role short"); the other checks have their cases in their
 * areas' files.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";
import { RSA2048 } from "./ssh-keys.js";

describe("role checks one role short", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "owner", token: "owner-token" },
          { username: "maint", token: "maint-token" },
          { username: "dev", token: "dev-token" },
          { username: "rep", token: "rep-token" },
        ],
        groups: [
          // Projects by Developers (the default), by Maintainers.
          { path: "open", members: { dev: "developer", rep: "reporter" } },
          {
            path: "strict",
            project_creation_level: "maintainer",
            members: { maint: "maintainer", dev: "developer" },
          },
          { path: "doomed", members: { owner: "owner", maint: "maintainer" } },
          // maint keeps deploy keys in `src` as a Developer only, and adds them in `tgt` as a Maintainer.
          { path: "src", members: { owner: "maintainer", maint: "developer" } },
          { path: "tgt", members: { owner: "maintainer", maint: "maintainer" } },
        ],
        projects: [{ path: "src/app" }, { path: "tgt/app" }],
      },
    });
  });
  afterAll(() => c.sb.stop());

  const groupId = async (path: string) =>
    ((await c.admin("GET", `/groups/${encodeURIComponent(path)}`)).body as { id: number }).id;

  it("a project in a group is created by its level's role, not one below", async () => {
    const create = (token: string, group: number, name: string) =>
      c.call("POST", "/projects", { token, json: { name, namespace_id: group } });
    const refused = { message: { namespace: ["is not valid"] } };
    const open = await groupId("open");
    const byRep = await create("rep-token", open, "by-rep");
    expect([byRep.status, byRep.body]).toEqual([400, refused]);
    expect((await create("dev-token", open, "by-dev")).status).toBe(201);
    const strict = await groupId("strict");
    const byDev = await create("dev-token", strict, "by-dev");
    expect([byDev.status, byDev.body]).toEqual([400, refused]);
    expect((await create("maint-token", strict, "by-maint")).status).toBe(201);
  });

  it("a group is deleted by an Owner, not a Maintainer", async () => {
    const byMaint = await c.call("DELETE", "/groups/doomed", { token: "maint-token" });
    expect([byMaint.status, byMaint.body]).toEqual([403, { message: "403 Forbidden" }]);
    expect((await c.admin("GET", "/groups/doomed")).status).toBe(200);
    expect((await c.call("DELETE", "/groups/doomed", { token: "owner-token" })).status).toBe(202);
  });

  it("a deploy key is enabled in another project by a Maintainer of a project that has it, not a Developer", async () => {
    const made = await c.admin("POST", "/projects/src%2Fapp/deploy_keys", { title: "shared", key: RSA2048 });
    expect(made.status).toBe(201);
    const id = (made.body as { id: number }).id;
    const byDev = await c.call("POST", `/projects/tgt%2Fapp/deploy_keys/${id}/enable`, {
      token: "maint-token",
    });
    expect([byDev.status, byDev.body]).toEqual([404, { message: "404 Deploy Key Not Found" }]);
    const byMaint = await c.call("POST", `/projects/tgt%2Fapp/deploy_keys/${id}/enable`, {
      token: "owner-token",
    });
    expect(byMaint.status).toBe(201);
  });
});

describe("reads one role short", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "rep", token: "rep-token" },
          { username: "gst", token: "gst-token" },
        ],
        groups: [{ path: "acme", visibility: "private", members: { rep: "reporter", gst: "guest" } }],
        projects: [{ path: "acme/api", visibility: "private" }],
        labels: [{ project: "acme/api", name: "bug" }],
        deployments: [
          {
            project: "acme/api",
            environment: "production",
            merge_requests: [{ title: "Fix it", labels: ["bug"], state: "opened" }],
          },
        ],
        wikis: [{ project: "acme/api", title: "Home", content: "Welcome" }],
        protected_tags: [{ project: "acme/api", name: "v*" }],
      },
    });
  });
  afterAll(() => c.sb.stop());

  it("a label's open merge requests are counted for a Reporter of a private project, not a Guest", async () => {
    const count = async (token: string) =>
      (
        (await c.call("GET", "/projects/acme%2Fapi/labels?with_counts=true", { token })).body as {
          open_merge_requests_count: number;
        }[]
      )[0]!.open_merge_requests_count;
    expect(await count("rep-token")).toBe(1);
    expect(await count("gst-token")).toBe(0);
  });

  it("a wiki page is edited by a Developer, not a Reporter", async () => {
    const r = await c.call("PUT", "/projects/acme%2Fapi/wikis/Home", {
      token: "rep-token",
      json: { content: "x" },
    });
    expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("a protected tag the fixture gives no level is created by Maintainers, as the API's default", async () => {
    const tags = await c.admin("GET", "/projects/acme%2Fapi/protected_tags");
    expect(tags.body).toEqual([
      expect.objectContaining({
        name: "v*",
        create_access_levels: [expect.objectContaining({ access_level: 40 })],
      }),
    ]);
  });
});
