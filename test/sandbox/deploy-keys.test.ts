import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSshKey } from "../../src/sandbox/routes/deploy-keys.js";
import { type Client, sandbox } from "./helpers.js";
import {
  ECDSA384,
  ECDSA384_SHA,
  ED25519,
  ED25519_MD5,
  ED25519_SHA,
  OWN_KEY,
  RSA1024,
  RSA2048,
  RSA2048_MD5,
  RSA2048_SHA,
} from "./ssh-keys.js";

interface DeployKey {
  id: number;
  title: string;
  key: string;
  created_at: string;
  can_push?: boolean;
}

const NOW = "2021-03-04T05:06:07.089Z";

describe("SSH public key parsing", () => {
  it("computes the MD5 and SHA256 fingerprints ssh-keygen prints, and the key size", () => {
    expect(parseSshKey(ED25519)).toMatchObject({
      kind: "ed25519",
      bits: 256,
      md5: ED25519_MD5,
      sha256: ED25519_SHA,
    });
    expect(parseSshKey(RSA2048)).toMatchObject({
      kind: "rsa",
      bits: 2048,
      md5: RSA2048_MD5,
      sha256: RSA2048_SHA,
    });
    expect(parseSshKey(ECDSA384)).toMatchObject({ kind: "ecdsa", bits: 384, sha256: ECDSA384_SHA });
    expect(parseSshKey(RSA1024)).toMatchObject({ kind: "rsa", bits: 1024 });
  });

  it("rejects unknown types, broken base64 and blobs whose type does not match", () => {
    expect(parseSshKey("ssh-foo AAAA")).toBeUndefined();
    expect(parseSshKey("ssh-rsa not*base64")).toBeUndefined();
    expect(parseSshKey("ssh-rsa")).toBeUndefined();
    // an ed25519 blob labelled as RSA
    expect(parseSshKey(`ssh-rsa ${ED25519.split(" ")[1]}`)).toBeUndefined();
    // truncated blob
    expect(parseSshKey(`ssh-ed25519 ${ED25519.split(" ")[1]?.slice(0, 40)}`)).toBeUndefined();
  });
});

describe("deploy keys (§3.9)", () => {
  let c: Client;
  let api: number;
  let web: number;
  let other: number;
  beforeAll(async () => {
    c = await sandbox({
      clock: () => new Date(NOW),
      fixture: {
        users: [
          { username: "maint", token: "maint-token" },
          { username: "dev", token: "dev-token" },
          { username: "outsider", token: "outsider-token" },
        ],
        groups: [{ path: "acme", members: { maint: "maintainer", dev: "developer" } }],
        projects: [
          { path: "acme/api" },
          { path: "acme/web" },
          { path: "acme/other" },
          { path: "root/secret" },
          { path: "maint/own" },
        ],
        ssh_keys: [{ user: "outsider", title: "laptop", key: ED25519 }],
      },
    });
    api = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
    web = ((await c.admin("GET", "/projects/acme%2Fweb")).body as { id: number }).id;
    other = ((await c.admin("GET", "/projects/acme%2Fother")).body as { id: number }).id;
  });
  afterAll(() => c.sb.stop());

  it("project endpoints: 401 guest, 404 invisible project, 403 below Maintainer", async () => {
    const guest = await c.call("GET", `/projects/${api}/deploy_keys`, { token: null });
    expect([guest.status, guest.body]).toEqual([401, { message: "401 Unauthorized" }]);
    const outsider = await c.call("GET", `/projects/${api}/deploy_keys`, { token: "outsider-token" });
    expect([outsider.status, outsider.body]).toEqual([404, { message: "404 Project Not Found" }]);
    const dev = await c.call("POST", `/projects/${api}/deploy_keys`, {
      token: "dev-token",
      json: { title: "t", key: RSA2048 },
    });
    expect([dev.status, dev.body]).toEqual([403, { message: "403 Forbidden" }]);
    expect((await c.call("GET", `/projects/${api}/deploy_keys`, { token: "maint-token" })).status).toBe(200);
  });

  it("POST creates a key (stripped), 201 with the contract's fields; GET list and one", async () => {
    const r = await c.call("POST", `/projects/${api}/deploy_keys`, {
      token: "maint-token",
      json: { title: "CI", key: `  ${RSA2048}\n`, can_push: true },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      title: "CI",
      key: RSA2048,
      created_at: NOW,
      can_push: true,
    });
    const id = (r.body as DeployKey).id;
    const list = await c.call("GET", `/projects/${api}/deploy_keys`, { token: "maint-token" });
    expect(list.body).toEqual([r.body]);
    expect(list.headers.get("x-total")).toBe("1");
    expect(
      (await c.call("GET", `/projects/${api}/deploy_keys/${id}`, { token: "maint-token" })).body,
    ).toEqual(r.body);
  });

  it("POST of the same key on the same project: 201 with the existing link, unchanged", async () => {
    const first = (await c.admin("GET", `/projects/${api}/deploy_keys`)).body as DeployKey[];
    const again = await c.admin("POST", `/projects/${api}/deploy_keys`, {
      title: "Renamed",
      key: RSA2048,
      can_push: false,
    });
    expect([again.status, again.body]).toEqual([201, first[0]]);
    expect(((await c.admin("GET", `/projects/${api}/deploy_keys`)).body as DeployKey[]).length).toBe(1);
  });

  it("POST of a key used on another project the caller maintains links the same key", async () => {
    const r = await c.call("POST", `/projects/${web}/deploy_keys`, {
      token: "maint-token",
      form: `title=Web&key=${encodeURIComponent(RSA2048)}&can_push=false`,
    });
    expect(r.status).toBe(201);
    const apiKey = ((await c.admin("GET", `/projects/${api}/deploy_keys`)).body as DeployKey[])[0];
    expect(r.body).toEqual({ ...apiKey, can_push: false });
    const all = (await c.admin("GET", "/deploy_keys")).body as Record<string, unknown>[];
    expect(all.filter((k) => k["key"] === RSA2048)).toHaveLength(1);
  });

  it("validation: required params, an invalid key, a fingerprint taken by a user's SSH key, key restrictions", async () => {
    const missing = await c.admin("POST", `/projects/${api}/deploy_keys`, {});
    expect([missing.status, missing.body]).toEqual([400, { error: "key is missing, title is missing" }]);
    const bad = await c.admin("POST", `/projects/${api}/deploy_keys`, {
      title: "x",
      key: "ssh-rsa garbage!",
    });
    expect([bad.status, bad.body]).toEqual([
      400,
      { message: { "deploy_key.key": ["is invalid"], "deploy_key.fingerprint": ["cannot be generated"] } },
    ]);
    const blank = await c.admin("POST", `/projects/${api}/deploy_keys`, { title: "", key: ECDSA384 });
    expect([blank.status, blank.body]).toEqual([
      400,
      { message: { "deploy_key.title": ["can't be blank"] } },
    ]);
    const taken = await c.admin("POST", `/projects/${api}/deploy_keys`, { title: "x", key: ED25519 });
    expect([taken.status, taken.body]).toEqual([
      400,
      { message: { "deploy_key.fingerprint": ["has already been taken"] } },
    ]);
    await c.admin("PUT", "/application/settings", { rsa_key_restriction: 2048, dsa_key_restriction: -1 });
    const weak = await c.admin("POST", `/projects/${api}/deploy_keys`, { title: "weak", key: RSA1024 });
    expect([weak.status, weak.body]).toEqual([
      400,
      { message: { "deploy_key.key": ["must be at least 2048 bits"] } },
    ]);
    await c.admin("PUT", "/application/settings", { rsa_key_restriction: -1 });
    const forbidden = await c.admin("POST", `/projects/${api}/deploy_keys`, { title: "weak", key: RSA1024 });
    expect([forbidden.status, forbidden.body]).toEqual([
      400,
      {
        message: { "deploy_key.key": ["type is forbidden. Must be ECDSA, ED25519, ECDSA_SK, or ED25519_SK"] },
      },
    ]);
    await c.admin("PUT", "/application/settings", { rsa_key_restriction: 0, dsa_key_restriction: 0 });
  });

  it("a key used only on projects the caller cannot maintain is not linked: its fingerprint is taken", async () => {
    const secret = ((await c.admin("GET", "/projects/root%2Fsecret")).body as { id: number }).id;
    expect(
      (await c.admin("POST", `/projects/${secret}/deploy_keys`, { title: "admin key", key: ECDSA384 }))
        .status,
    ).toBe(201);
    const r = await c.call("POST", `/projects/${other}/deploy_keys`, {
      token: "maint-token",
      json: { title: "mine", key: ECDSA384 },
    });
    expect([r.status, r.body]).toEqual([
      400,
      { message: { "deploy_key.fingerprint": ["has already been taken"] } },
    ]);
  });

  it("an administrator may enable any key, but uploading it again is still refused", async () => {
    const own = ((await c.admin("GET", "/projects/maint%2Fown")).body as { id: number }).id;
    const mine = await c.call("POST", `/projects/${own}/deploy_keys`, {
      token: "maint-token",
      json: { title: "maint's own", key: OWN_KEY },
    });
    expect([mine.status, mine.body]).toEqual([201, expect.anything()]);
    const r = await c.admin("POST", `/projects/${other}/deploy_keys`, { title: "admin", key: OWN_KEY });
    expect([r.status, r.body]).toEqual([
      400,
      { message: { "deploy_key.fingerprint": ["has already been taken"] } },
    ]);
    const enable = await c.admin(
      "POST",
      `/projects/${other}/deploy_keys/${(mine.body as DeployKey).id}/enable`,
    );
    expect(enable.status).toBe(201);
    expect(
      (await c.admin("DELETE", `/projects/${other}/deploy_keys/${(mine.body as DeployKey).id}`)).status,
    ).toBe(204);
    // maint maintains both projects, so maint can link it
    const linked = await c.call(
      "POST",
      `/projects/${other}/deploy_keys/${(mine.body as DeployKey).id}/enable`,
      {
        token: "maint-token",
      },
    );
    expect(linked.status).toBe(201);
    expect(
      (
        await c.call("DELETE", `/projects/${other}/deploy_keys/${(mine.body as DeployKey).id}`, {
          token: "maint-token",
        })
      ).status,
    ).toBe(204);
  });

  it("PUT: at least one of title, can_push; 404 Not found for a key not on the project", async () => {
    const key = ((await c.admin("GET", `/projects/${api}/deploy_keys`)).body as DeployKey[])[0] as DeployKey;
    const none = await c.call("PUT", `/projects/${api}/deploy_keys/${key.id}`, {
      token: "maint-token",
      json: {},
    });
    expect([none.status, none.body]).toEqual([
      400,
      { error: "title, can_push are missing, at least one parameter must be provided" },
    ]);
    const push = await c.call("PUT", `/projects/${api}/deploy_keys/${key.id}`, {
      token: "maint-token",
      form: "can_push=false&title=By+maint",
    });
    // maint created the key, so the title changes too
    expect([push.status, push.body]).toEqual([200, { ...key, title: "By maint", can_push: false }]);
    const missing = await c.admin("PUT", `/projects/${other}/deploy_keys/${key.id}`, { title: "x" });
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
    expect((await c.admin("GET", `/projects/${other}/deploy_keys/${key.id}`)).body).toEqual({
      message: "404 Not found",
    });
  });

  it("PUT by a Maintainer who did not create the key changes can_push but ignores the title", async () => {
    const created = (
      await c.admin("POST", `/projects/${other}/deploy_keys`, { title: "root's", key: ECDSA384 })
    ).body as DeployKey;
    // ECDSA384 already exists (created by root on root/secret): linked for root, not duplicated
    const r = await c.call("PUT", `/projects/${other}/deploy_keys/${created.id}`, {
      token: "maint-token",
      json: { title: "maint's", can_push: true },
    });
    expect([r.status, r.body]).toEqual([200, { ...created, can_push: true }]);
  });

  it("enable: 201 with the key without can_push; unknown or inaccessible keys are 404 Deploy Key Not Found", async () => {
    const key = ((await c.admin("GET", `/projects/${api}/deploy_keys`)).body as DeployKey[])[0] as DeployKey;
    const r = await c.call("POST", `/projects/${other}/deploy_keys/${key.id}/enable`, {
      token: "maint-token",
    });
    expect([r.status, r.body]).toEqual([
      201,
      { id: key.id, title: key.title, key: key.key, created_at: key.created_at },
    ]);
    const linked = await c.admin("GET", `/projects/${other}/deploy_keys/${key.id}`);
    expect((linked.body as DeployKey).can_push).toBe(false);
    const missing = await c.admin("POST", `/projects/${other}/deploy_keys/99999/enable`);
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Deploy Key Not Found" }]);
    const userKey = (await c.admin("GET", `/keys?fingerprint=${encodeURIComponent(`SHA256:${ED25519_SHA}`)}`))
      .body as { id: number };
    const notDeploy = await c.admin("POST", `/projects/${other}/deploy_keys/${userKey.id}/enable`);
    expect([notDeploy.status, notDeploy.body]).toEqual([404, { message: "404 Deploy Key Not Found" }]);
  });

  it("DELETE unlinks (204); the key is deleted when no project uses it", async () => {
    const r = await c.admin("POST", `/projects/${other}/deploy_keys`, {
      title: "temp",
      key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM8VluVkFhwyJoN70MbrmGxr/BrDW0dSk+cIQgbQ03DC temp",
    });
    expect(r.status).toBe(201);
    const id = (r.body as DeployKey).id;
    const del = await c.admin("DELETE", `/projects/${other}/deploy_keys/${id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    const again = await c.admin("DELETE", `/projects/${other}/deploy_keys/${id}`);
    expect([again.status, again.body]).toEqual([404, { message: "404 Deploy Key Not Found" }]);
    expect(((await c.admin("GET", "/deploy_keys")).body as DeployKey[]).map((k) => k.id)).not.toContain(id);
    expect((await c.admin("GET", `/keys/${id}`)).status).toBe(404);
    // a key still linked elsewhere survives
    const shared = (
      (await c.admin("GET", `/projects/${web}/deploy_keys`)).body as DeployKey[]
    )[0] as DeployKey;
    expect((await c.admin("DELETE", `/projects/${web}/deploy_keys/${shared.id}`)).status).toBe(204);
    expect(((await c.admin("GET", "/deploy_keys")).body as DeployKey[]).map((k) => k.id)).toContain(
      shared.id,
    );
  });

  it("GET /deploy_keys: administrators only; every deploy key with its fingerprints", async () => {
    expect((await c.call("GET", "/deploy_keys", { token: null })).status).toBe(401);
    expect((await c.call("GET", "/deploy_keys", { token: "maint-token" })).status).toBe(403);
    const all = (await c.admin("GET", "/deploy_keys")).body as Record<string, unknown>[];
    expect(all.find((k) => k["key"] === RSA2048)).toEqual({
      id: expect.any(Number),
      title: "By maint",
      key: RSA2048,
      created_at: NOW,
      fingerprint: RSA2048_MD5,
      fingerprint_sha256: `SHA256:${RSA2048_SHA}`,
    });
    expect(all.some((k) => k["key"] === ED25519)).toBe(false); // a user's key is not a deploy key
  });

  it("GET /keys?fingerprint= finds a deploy key (MD5 or SHA256) with its user and deploy_keys_projects", async () => {
    const byMd5 = await c.admin("GET", `/keys?fingerprint=${RSA2048_MD5}`);
    expect(byMd5.status).toBe(200);
    const body = byMd5.body as Record<string, unknown>;
    expect(body).toMatchObject({ title: "By maint", key: RSA2048, created_at: NOW, expires_at: null });
    expect(body["user"]).toMatchObject({ username: "maint", email: "maint@example.com" });
    expect(body["deploy_keys_projects"]).toEqual([
      {
        id: expect.any(Number),
        deploy_key_id: body["id"],
        project_id: api,
        created_at: NOW,
        updated_at: NOW,
        can_push: false,
      },
      {
        id: expect.any(Number),
        deploy_key_id: body["id"],
        project_id: other,
        created_at: NOW,
        updated_at: NOW,
        can_push: false,
      },
    ]);
    const bySha = await c.admin("GET", `/keys?fingerprint=SHA256%3A${encodeURIComponent(RSA2048_SHA)}`);
    expect(bySha.body).toEqual(body);
  });

  it("GET /keys?fingerprint= finds a user's SSH key (no deploy_keys_projects); errors", async () => {
    const r = await c.admin("GET", `/keys?fingerprint=${ED25519_MD5.toUpperCase()}`);
    expect(r.status).toBe(200);
    const body = r.body as Record<string, unknown>;
    expect(body).toMatchObject({ title: "laptop", key: ED25519, user: { username: "outsider" } });
    expect(Object.keys(body)).not.toContain("deploy_keys_projects");
    const byId = await c.admin("GET", `/keys/${body["id"]}`);
    expect(byId.body).toEqual(body);
    const none = await c.admin("GET", "/keys?fingerprint=00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00");
    expect([none.status, none.body]).toEqual([404, { message: "404 Key Not Found" }]);
    const junk = await c.admin("GET", "/keys?fingerprint=abc");
    expect([junk.status, junk.body]).toEqual([400, { message: "Failed to return the key" }]);
    const missing = await c.admin("GET", "/keys");
    expect([missing.status, missing.body]).toEqual([400, { error: "fingerprint is missing" }]);
    expect((await c.admin("GET", "/keys/99999")).body).toEqual({ message: "404 Not found" });
    for (const path of [`/keys/${body["id"]}`, `/keys?fingerprint=${ED25519_MD5}`]) {
      expect((await c.call("GET", path, { token: null })).status).toBe(401);
      expect((await c.call("GET", path, { token: "maint-token" })).status).toBe(403);
    }
  });
});

describe("deploy keys pagination and fixture", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        projects: [{ path: "root/one" }, { path: "root/two" }],
        deploy_keys: [
          { project: "root/one", title: "a", key: ED25519, can_push: true },
          { project: "root/two", title: "a", key: ED25519 },
          { project: "root/one", title: "b", key: RSA2048 },
          { project: "root/one", title: "c", key: ECDSA384 },
        ],
      },
    });
  });
  afterAll(() => c.sb.stop());

  it("the fixture links one key to several projects; lists paginate in link order", async () => {
    const p1 = await c.admin("GET", "/projects/root%2Fone/deploy_keys?per_page=2");
    expect((p1.body as DeployKey[]).map((k) => [k.title, k.can_push])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(p1.headers.get("x-total")).toBe("3");
    expect(p1.headers.get("x-next-page")).toBe("2");
    const two = (await c.admin("GET", "/projects/root%2Ftwo/deploy_keys")).body as DeployKey[];
    expect(two.map((k) => k.title)).toEqual(["a"]);
    const all = await c.admin("GET", "/deploy_keys?per_page=1&page=3");
    expect((all.body as DeployKey[]).map((k) => k.title)).toEqual(["c"]);
    expect(all.headers.get("x-total")).toBe("3");
  });

  it("deleting a project drops its links and the keys no other project uses", async () => {
    const gone = await c.admin("POST", "/projects", { name: "gone" });
    expect(gone.status).toBe(201);
    const id = (gone.body as { id: number }).id;
    const key = (await c.admin("POST", `/projects/${id}/deploy_keys`, { title: "gone", key: OWN_KEY }))
      .body as DeployKey;
    const shared = await c.admin("POST", `/projects/${id}/deploy_keys`, { title: "a", key: ED25519 });
    expect(shared.status).toBe(201);
    expect([202, 204]).toContain((await c.admin("DELETE", `/projects/${id}`)).status);
    const all = (await c.admin("GET", "/deploy_keys")).body as DeployKey[];
    expect(all.map((k) => k.id)).not.toContain(key.id);
    expect(all.map((k) => k.title)).toContain("a");
    const lookup = (await c.admin("GET", `/keys?fingerprint=${ED25519_MD5}`)).body as {
      deploy_keys_projects: { project_id: number }[];
    };
    expect(lookup.deploy_keys_projects.map((l) => l.project_id)).not.toContain(id);
  });

  it("a fixture key that does not parse stops the start-up with a message naming it", async () => {
    await expect(
      sandbox({ fixture: { ssh_keys: [{ user: "root", title: "bad", key: "ssh-rsa nope" }] } }),
    ).rejects.toThrow(/ssh_keys\[0\]: key is invalid; fingerprint cannot be generated/);
  });
});
