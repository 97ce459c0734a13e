import { createHash, generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench, USER_TOKEN } from "./helpers.js";
import { answerJson, type Recorded, startProxy, startRecorder } from "./proxy.js";

/** A fresh OpenSSH ed25519 public key line. */
function sshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  const blob = Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]);
  return `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
}

const fingerprint = (key: string) =>
  `SHA256:${createHash("sha256")
    .update(Buffer.from(key.split(" ")[1]!, "base64"))
    .digest("base64")
    .replace(/=+$/, "")}`;

interface ApiKey {
  id: number;
  title: string;
  key: string;
  can_push: boolean;
}

const DEPLOY = sshKey("deploy@ci");
const SHARED = sshKey("shared@ci");
const STRAY = sshKey("stray@old");
const HIDDEN = sshKey("hidden@secret");

const fixture = {
  groups: [{ path: "acme" }],
  projects: [
    { path: "acme/api", members: [{ user: "sandbox-user", access_level: "maintainer" }] },
    // The platform lets a key be enabled only by a maintainer of a project that uses it.
    { path: "acme/web", members: [{ user: "root", access_level: "maintainer" }] },
    { path: "acme/secret" },
  ],
  deploy_keys: [
    { project: "acme/web", title: "shared", key: SHARED, can_push: false },
    { project: "acme/secret", title: "hidden", key: HIDDEN },
    { project: "acme/api", title: "stray", key: STRAY },
  ],
};

const summary = (out: string) => out.trim().split("\n").at(-1);
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("deploy keys", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const keys = (project = "acme%2Fapi") => bench.get<ApiKey[]>(`/projects/${project}/deploy_keys`);
  const find = async (key: string) => (await keys()).find((k) => k.key.split(" ")[1] === key.split(" ")[1]);
  const manifest = (entries: string, extra = "") =>
    bench.manifest(`version: 1
projects:
  acme/api:
${extra}    deploy_keys:
      - title: stray
        key: ${STRAY}
${entries}
`);

  it("goes through the whole lifecycle, field by field; a key is the same key whatever its comment", async () => {
    const created = manifest(`      - title: deploy
        key: ${DEPLOY}`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", created]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain(`+ project["acme/api"].deploy_key["${fingerprint(DEPLOY)}"]`);
    expect(summary(plan.out)).toBe("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", created])).code).toBe(0);
    expect(await find(DEPLOY)).toMatchObject({ title: "deploy", can_push: false });
    expect((await bench.cli(["plan", "--detailed-exitcode", created])).code).toBe(0);

    const recommented = manifest(`      - title: deploy
        key: ${DEPLOY.replace("deploy@ci", "another comment")}`);
    expect((await bench.cli(["plan", "--detailed-exitcode", recommented])).code).toBe(0);

    const pushing = manifest(`      - title: deploy
        key: ${DEPLOY}
        can_push: true`);
    const p1 = await bench.cli(["plan", "--detailed-exitcode", pushing]);
    expect(p1.code).toBe(2);
    expect(p1.out).toContain(`~ project["acme/api"].deploy_key["${fingerprint(DEPLOY)}"]`);
    expect(p1.out).toContain("can_push");
    expect(summary(p1.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", pushing])).code).toBe(0);
    expect((await find(DEPLOY))?.can_push).toBe(true);
    expect((await bench.cli(["plan", "--detailed-exitcode", pushing])).code).toBe(0);

    const retitled = manifest(`      - title: ci deploy
        key: ${DEPLOY}
        can_push: true`);
    const p2 = await bench.cli(["plan", "--detailed-exitcode", retitled]);
    expect(p2.out).toContain("title");
    expect(summary(p2.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", retitled])).code).toBe(0);
    expect((await find(DEPLOY))?.title).toBe("ci deploy");
    expect((await bench.cli(["plan", "--detailed-exitcode", retitled])).code).toBe(0);

    // A field the manifest leaves out is not managed: push access stays as it is.
    const unset = manifest(`      - title: ci deploy
        key: ${DEPLOY}`);
    expect((await bench.cli(["plan", "--detailed-exitcode", unset])).code).toBe(0);
    expect((await find(DEPLOY))?.can_push).toBe(true);
  });

  it("enables a key that exists on another project instead of uploading it again", async () => {
    const [shared] = (await bench.get<ApiKey[]>("/projects/acme%2Fweb/deploy_keys")).filter(
      (k) => k.title === "shared",
    );
    const file = manifest(`      - title: ci deploy
        key: ${DEPLOY}
        can_push: true
      - title: shared
        key: ${SHARED}
        can_push: true`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    const text = prose(plan.out);
    expect(text).toContain(`+ project["acme/api"].deploy_key["${fingerprint(SHARED)}"]`);
    expect(text).toContain(`the key already exists on the platform (deploy key ${shared!.id}`);
    expect(text).toContain("enabled on this project, not uploaded again");
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const enabled = await find(SHARED);
    expect(enabled?.id).toBe(shared!.id);
    expect(enabled?.can_push).toBe(true);
    // can_push is per project: the other project keeps its own.
    const other = (await bench.get<ApiKey[]>("/projects/acme%2Fweb/deploy_keys")).find(
      (k) => k.id === shared!.id,
    );
    expect(other?.can_push).toBe(false);
    const all = await bench.get<ApiKey[]>("/deploy_keys");
    expect(all.filter((k) => k.key.split(" ")[1] === SHARED.split(" ")[1])).toHaveLength(1);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("explains why a key used only by projects the token's user does not maintain cannot be added", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  acme/api:
    deploy_keys:
      - title: hidden
        key: ${HIDDEN}
`,
      "hidden.yaml",
    );
    // Not an administrator: maintains acme/api, not acme/secret, which uses the key.
    const apply = await bench.cli(["apply", "--yes", file], { FORGEFORM_TOKEN: USER_TOKEN });
    expect(apply.code).toBe(1);
    const text = prose(apply.out + apply.err);
    expect(text).toContain("already exists on the platform, but the token's user may not use it");
    expect(text).toContain("Give the user Maintainer on one of those projects");
    expect(await find(HIDDEN)).toBeUndefined();
  });

  it("warns about an undeclared key by default, removes it with a delete policy", async () => {
    const warn = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: ci deploy
        key: ${DEPLOY}
        can_push: true
      - title: shared
        key: ${SHARED}
        can_push: true
`);
    // Independent of the tests before it: the declared keys are there first.
    expect((await bench.cli(["apply", "--yes", warn])).code).toBe(0);
    const warned = await bench.cli(["plan", "--detailed-exitcode", warn]);
    expect(warned.code).toBe(0);
    expect(warned.out).toContain(`deploy_key["${fingerprint(STRAY)}"]`);
    expect(warned.out).toContain("prune policy warn");
    expect(await find(STRAY)).toBeDefined();

    const pruned = bench.manifest(`version: 1
projects:
  acme/api:
    unmanaged:
      deploy_keys: delete
    deploy_keys:
      - title: ci deploy
        key: ${DEPLOY}
        can_push: true
      - title: shared
        key: ${SHARED}
        state: absent
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", pruned]);
    expect(plan.out).toContain(`- project["acme/api"].deploy_key["${fingerprint(STRAY)}"]`);
    expect(plan.out).toContain(`- project["acme/api"].deploy_key["${fingerprint(SHARED)}"]`);
    expect(summary(plan.out)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.");
    expect((await bench.cli(["apply", "--yes", pruned])).code).toBe(0);
    expect((await keys()).map((k) => k.title)).toEqual(["ci deploy"]);
    // Removing the key from this project leaves it on the other one.
    expect((await bench.get<ApiKey[]>("/projects/acme%2Fweb/deploy_keys")).map((k) => k.title)).toEqual([
      "shared",
    ]);
  });

  it("takes a key from a file next to the manifest: identified by its fingerprint, the key itself masked", async () => {
    const fromFile = sshKey("bot@file");
    writeFileSync(join(bench.dir, "bot.pub"), `${fromFile}\n`);
    const ref = `$${"{"}file:bot.pub}`;
    const file = bench.manifest(
      `version: 1\nprojects:\n  acme/web:\n    deploy_keys:\n      - title: file bot\n        key: "${ref}"\n`,
      "from-file.yaml",
    );
    const plan = await bench.cli(["plan", file]);
    expect(plan.out).toContain(`deploy_key["${fingerprint(fromFile)}"] will be created`);
    expect(plan.out).not.toContain(fromFile.split(" ")[1]!);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code).toBe(0);
  });
});

describe("deploy keys: what apply sends", () => {
  const WEB = sshKey("web@ci");
  const SECOND = sshKey("second@ci");
  const start = () =>
    Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }, { path: "acme/web" }],
        deploy_keys: [
          { project: "acme/web", title: "web", key: WEB, can_push: false },
          { project: "acme/web", title: "second", key: SECOND, can_push: false },
        ],
      },
    });
  const idOf = async (bench: Bench, key: string) =>
    (await bench.get<ApiKey[]>("/projects/acme%2Fweb/deploy_keys")).find(
      (k) => k.key.split(" ")[1] === key.split(" ")[1],
    )!.id;
  const reasons = async (bench: Bench, file: string) => {
    const r = await bench.cli(["plan", "--format", "json", file]);
    return (JSON.parse(r.out) as { changes: { reason?: string }[] }).changes.map((c) => c.reason);
  };
  const writes = (requests: Recorded[]) =>
    requests
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body ?? {})}`);

  it("enables an existing key under another title: says the title changes for every project, then renames it", async () => {
    const bench = await start();
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const id = await idOf(bench, WEB);
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: web and api
        key: ${WEB}
`);
      expect(await reasons(bench, file)).toEqual([
        `the key already exists on the platform (deploy key ${id}, "web"): it is enabled on this project, not uploaded again; its title belongs to the key, so it becomes "web and api" for every project that uses it`,
      ]);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
      expect(r.code, r.out + r.err).toBe(0);
      // Enabling keeps the key's title and gives no push access: only the title is set after it.
      expect(writes(recorder.requests)).toEqual([
        `POST /api/v4/projects/acme%2Fapi/deploy_keys/${id}/enable {}`,
        `PUT /api/v4/projects/acme%2Fapi/deploy_keys/${id} {"title":"web and api"}`,
      ]);
      const [onApi] = await bench.get<ApiKey[]>("/projects/acme%2Fapi/deploy_keys");
      expect(onApi).toMatchObject({ id, title: "web and api", can_push: false });
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("enables an existing key under its own title without push access in one request", async () => {
    const bench = await start();
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const id = await idOf(bench, SECOND);
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: second
        key: ${SECOND}
`);
      expect(await reasons(bench, file)).toEqual([
        `the key already exists on the platform (deploy key ${id}, "second"): it is enabled on this project, not uploaded again`,
      ]);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
      expect(r.code, r.out + r.err).toBe(0);
      expect(writes(recorder.requests)).toEqual([
        `POST /api/v4/projects/acme%2Fapi/deploy_keys/${id}/enable {}`,
      ]);
      const [onApi] = await bench.get<ApiKey[]>("/projects/acme%2Fapi/deploy_keys");
      expect(onApi).toMatchObject({ id, title: "second", can_push: false });
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("uploads a new key declared on two projects once, enables it on the other, and reads the instance's keys once", async () => {
    const bench = await start();
    const recorder = await startRecorder(bench.sandbox.url);
    const fresh = sshKey("fresh@ci");
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: fresh
        key: ${fresh}
  acme/web:
    deploy_keys:
      - title: fresh
        key: ${fresh}
      - title: web
        key: ${WEB}
      - title: second
        key: ${SECOND}
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
      expect(r.code, r.out + r.err).toBe(0);
      const all = await bench.get<ApiKey[]>("/deploy_keys");
      const uploaded = all.filter((k) => k.key.split(" ")[1] === fresh.split(" ")[1]);
      expect(uploaded).toHaveLength(1);
      const id = uploaded[0]!.id;
      const sent = writes(recorder.requests).map((w) => w.replace(/ \{.*$/, ""));
      // Whichever project comes first uploads it; the other enables the key it made.
      expect(sent.sort()).toEqual(
        [
          expect.stringMatching(/^POST \/api\/v4\/projects\/acme%2F(api|web)\/deploy_keys$/),
          expect.stringMatching(
            new RegExp(`^POST /api/v4/projects/acme%2F(api|web)/deploy_keys/${id}/enable$`),
          ),
        ].sort(),
      );
      expect(sent.filter((w) => w.endsWith("/deploy_keys"))).toHaveLength(1);
      expect(sent.filter((w) => w.endsWith("/enable"))).toHaveLength(1);
      // The administrator's list of every key is read once for the whole run, not once per key.
      expect(
        recorder.requests.filter((q) => q.method === "GET" && q.path === "/api/v4/deploy_keys"),
      ).toHaveLength(1);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("says why enabling failed: a key the platform does not find for the token's user, or its own refusal", async () => {
    const bench = await start();
    const id = await idOf(bench, WEB);
    let status = 404;
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (req.method !== "POST" || !(req.url ?? "").endsWith("/enable")) return false;
      return answerJson(res, status, {
        message: status === 404 ? "404 Deploy Key Not Found" : "403 Forbidden",
      });
    });
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: web
        key: ${WEB}
`);
      const missing = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(missing.code).toBe(1);
      expect(prose(missing.out + missing.err)).toContain(
        `deploy key ${id} ("web") already exists on the platform, but the token's user may not use it: the platform lets a key be enabled only by a maintainer of a project that uses it (or an administrator). Give the user Maintainer on one of those projects, or use another key`,
      );
      status = 403;
      const again = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(again.code).toBe(1);
      const refused = prose(again.out + again.err);
      expect(refused).toContain(`POST /projects/acme%2Fapi/deploy_keys/${id}/enable`);
      expect(refused).toContain("403 Forbidden");
      expect(refused).not.toContain("may not use it");
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });

  it("fails the plan when the instance's keys cannot be read for another reason than permission", async () => {
    const bench = await start();
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (req.method !== "GET" || !/^\/api\/v4\/deploy_keys(\?|$)/.test(req.url ?? "")) return false;
      return answerJson(res, 500, { message: "500 Internal Server Error" });
    });
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    deploy_keys:
      - title: web
        key: ${WEB}
`);
      const r = await bench.cli(["plan", "--max-attempts", "1", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      const said = prose(r.out + r.err);
      expect(said).toContain("GET /deploy_keys");
      expect(said).toContain("500");
      expect(said).not.toContain("will be created");
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});
