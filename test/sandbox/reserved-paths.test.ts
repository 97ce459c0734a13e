/**
 * Reserved paths as GitLab 13.12 has them (`Gitlab::PathRegex`): a project's own segment against
 * `PROJECT_WILDCARD_ROUTES`; a group's full path, its root against `TOP_LEVEL_ROUTES` and each later segment
 * against `PROJECT_WILDCARD_ROUTES` and `GROUP_ROUTES`; in any case, by whole segments.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

describe("reserved paths", () => {
  let c: Client;
  let acme: number;
  let lfs: number;
  beforeAll(async () => {
    c = await sandbox({
      fixture: { groups: [{ path: "acme" }, { path: "acme/info" }, { path: "acme/info/lfs" }] },
    });
    acme = ((await c.admin("GET", "/groups/acme")).body as { id: number }).id;
    lfs = ((await c.admin("GET", "/groups/acme%2Finfo%2Flfs")).body as { id: number }).id;
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  it("refuses a project named by a project route's word, in any case, with the model's message", async () => {
    const r = await c.admin("POST", "/projects", { name: "New", path: "NEW", namespace_id: acme });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { path: ["NEW is a reserved name"] } });
    for (const path of ["new-api", "renew", "environments", "info", "gitlab-lfs", "logs_tree", "snippets"]) {
      const ok = await c.admin("POST", "/projects", { name: path, path, namespace_id: acme });
      expect(ok.status, `${path}: ${ok.text}`).toBe(201);
    }
  });

  it("refuses a top-level group of the 13.12 list, and allows words of other versions' lists", async () => {
    for (const path of ["sitemap", "Sitemap.xml.gz", "v2"]) {
      const r = await c.admin("POST", "/groups", { name: "Top", path });
      expect(r.body, path).toEqual({
        message: `Failed to save group {:path=>["${path} is a reserved name"]}`,
      });
    }
    for (const path of ["abuse_reports", "autocomplete", "invites", "sent_notifications", "new"]) {
      const ok = await c.admin("POST", "/groups", { name: path, path });
      expect(ok.status, `${path}: ${ok.text}`).toBe(201);
    }
  });

  it("refuses a subgroup that completes a word of several segments, and not one that only starts it", async () => {
    const r = await c.admin("POST", "/groups", { name: "Objects", path: "Objects", parent_id: lfs });
    expect(r.body).toEqual({ message: 'Failed to save group {:path=>["Objects is a reserved name"]}' });
    const ok = await c.admin("POST", "/groups", { name: "Objects2", path: "objects2", parent_id: lfs });
    expect(ok.status, ok.text).toBe(201);
    // As a project, the same word is free: only the project's own segment counts.
    expect(
      (await c.admin("POST", "/projects", { name: "o", path: "objects", namespace_id: lfs })).status,
    ).toBe(201);
  });

  it("refuses renaming a subgroup to a reserved path, as it refuses creating one", async () => {
    const g = (await c.admin("POST", "/groups", { name: "Team", path: "team", parent_id: acme })).body as {
      id: number;
    };
    const r = await c.admin("PUT", `/groups/${g.id}`, { path: "edit" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { path: ["edit is a reserved name"] } });
    expect((await c.admin("PUT", `/groups/${g.id}`, { path: "editors" })).status).toBe(200);
  });
});
