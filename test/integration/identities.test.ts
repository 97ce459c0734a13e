/**
 * Identities come from resolved values: two spellings of one object are one object (an error when declared
 * twice), a secret inside an identity is matched by its value and shown masked, and values of secrets are checked
 * against their fields without ever being echoed.
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

function sshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} ${comment}`;
}

const fixture = {
  groups: [{ path: "ids" }],
  projects: [
    { path: "ids/one", members: [{ user: "root", access_level: "maintainer" }] },
    { path: "ids/two", members: [{ user: "root", access_level: "maintainer" }] },
  ],
};

const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("identities from resolved values", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("one key written inline and read from a file, with other comments, is declared twice", async () => {
    const key = sshKey("bot@inline");
    writeFileSync(join(bench.dir, "bot.pub"), `${key.split(" ").slice(0, 2).join(" ")} bot@file\n`);
    const m = bench.manifest(`version: 1
projects:
  ids/one:
    deploy_keys:
      - { title: bot, key: "${key}" }
      - { title: bot, key: "\${file:bot.pub}" }
`);
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toMatch(
      /forgeform\.yaml:6:\d+: .*deploy_keys\[1\]: duplicate deploy_keys entry .*also declared at .*forgeform\.yaml:5:/,
    );
  });

  it("one key on two projects must have one title: the platform keeps one", async () => {
    const key = sshKey("shared");
    const m = bench.manifest(`version: 1
projects:
  ids/one:
    deploy_keys: [{ title: release bot, key: "${key}" }]
  ids/two:
    deploy_keys: [{ title: mirror, key: "${key}" }]
`);
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain(
      'with title "release bot", here "mirror": the platform keeps one title for it',
    );
    // Titles from secrets compare by their values, and are not shown.
    const secret = bench.manifest(`version: 1
projects:
  ids/one:
    deploy_keys: [{ title: "\${env:TITLE_ONE}", key: "${key}" }]
  ids/two:
    deploy_keys: [{ title: "\${env:TITLE_TWO}", key: "${key}" }]
`);
    const differ = await bench.cli(["validate", secret], { TITLE_ONE: "SECRETone", TITLE_TWO: "SECRETtwo" });
    expect(differ.code).toBe(1);
    expect(differ.out + differ.err).toContain(
      "with title (sensitive), here (sensitive): the platform keeps one",
    );
    expect(differ.out + differ.err).not.toContain("SECRET");
    const agree = await bench.cli(["validate", secret], { TITLE_ONE: "same", TITLE_TWO: "same" });
    expect(agree.code, agree.out + agree.err).toBe(0);
  });

  it("a new key declared on two projects is uploaded once and enabled on the other, in one apply", async () => {
    const key = sshKey("both");
    const blob = key.split(" ")[1];
    const m = bench.manifest(`version: 1
projects:
  ids/one:
    deploy_keys: [{ title: both, key: "${key}", can_push: true }]
  ids/two:
    deploy_keys: [{ title: both, key: "${key}" }]
`);
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const all = await bench.get<{ key: string }[]>("/deploy_keys");
    expect(all.filter((k) => k.key.includes(blob!))).toHaveLength(1);
    for (const p of ["ids%2Fone", "ids%2Ftwo"]) {
      const keys = await bench.get<{ key: string; title: string }[]>(`/projects/${p}/deploy_keys`);
      expect(keys.filter((k) => k.key.includes(blob!)).map((k) => k.title)).toEqual(["both"]);
    }
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  it("a secret inside an identity is matched by its value and shown masked, also once it is rotated", async () => {
    const hooks = (secret: string) =>
      bench.manifest(
        `version: 1
instance:
  system_hooks:
    - url: "https://hooks.ids.example/in?key=\${env:HOOK_KEY}"
      push_events: true
  unmanaged: { system_hooks: delete }
projects:
  ids/one:
    pipeline_schedules:
      - { description: "nightly \${env:SCHEDULE_NAME}", ref: main, cron: "0 1 * * *" }
`,
        `hooks-${secret}.yaml`,
      );
    const first = { HOOK_KEY: "OLDhookKEYvalue1", SCHEDULE_NAME: "SCHEDULEsecret42" };
    const m = hooks("a");
    const plan = await bench.cli(["plan", m], first);
    expect(plan.out).toContain(
      '+ instance.system_hook["https://hooks.ids.example/in?key=(sensitive)"] will be created',
    );
    expect(plan.out).toContain('pipeline_schedule["nightly (sensitive)"] will be created');
    for (const run of [
      plan,
      await bench.cli(["apply", "--yes", m], first),
      await bench.cli(["apply", "--yes", m], first),
    ]) {
      expect(run.code, run.out + run.err).toBe(0);
      expect(run.out + run.err).not.toContain("OLDhookKEYvalue1");
      expect(run.out + run.err).not.toContain("SCHEDULEsecret42");
    }
    const live = await bench.get<{ url: string }[]>("/hooks");
    expect(live.filter((h) => h.url === "https://hooks.ids.example/in?key=OLDhookKEYvalue1")).toHaveLength(1);
    const schedules = await bench.get<{ description: string }[]>("/projects/ids%2Fone/pipeline_schedules");
    expect(schedules.filter((s) => s.description === "nightly SCHEDULEsecret42")).toHaveLength(1);
    expect((await bench.cli(["plan", "--detailed-exitcode", m], first)).code).toBe(0);

    const rotated = await bench.cli(["plan", m], {
      HOOK_KEY: "NEWhookKEYvalue2",
      SCHEDULE_NAME: "SCHEDULEsecret42",
    });
    expect(rotated.out + rotated.err).not.toMatch(/OLDhookKEYvalue1|NEWhookKEYvalue2/);
    expect(rotated.out).toContain(
      '+ instance.system_hook["https://hooks.ids.example/in?key=(sensitive)"] will be created',
    );
    expect(rotated.out).toMatch(
      /- instance\.system_hook\["https:\/\/hooks\.ids\.example\/in\?key=\(sensitive\) \(id \d+\)"\] will be deleted/,
    );
  });

  it("checks the value of a secret against its field without echoing it", async () => {
    const m = bench.manifest(`version: 1
projects:
  ids/one:
    deploy_keys: [{ title: env, key: "\${env:DEPLOY_KEY}" }]
    pipeline_schedules:
      - { description: env cron, ref: main, cron: "\${env:CRON}" }
`);
    const run = await bench.cli(["validate", m], {
      DEPLOY_KEY: "ghp_SECRETtokenValueNotAKey",
      CRON: "SECRETcron",
    });
    expect(run.code).toBe(1);
    expect(run.out + run.err).not.toMatch(/SECRET/);
    expect(run.out + run.err).toContain(
      "deploy_keys[0].key: the value from env:DEPLOY_KEY is not an SSH public key",
    );
    expect(run.out + run.err).toContain("cron: the value from env:CRON is not a 5-field cron expression");
    // --no-secrets checks the rest without the values.
    expect((await bench.cli(["validate", "--no-secrets", m])).code).toBe(0);
  });

  it("a reference may stand in any string field: its value is checked against the field's format and choices", async () => {
    const m = bench.manifest(`version: 1
instance:
  application_settings:
    admin_notification_email: "\${env:MAIL}"
groups:
  ids:
    visibility: "\${env:VIS}"
`);
    const good = await bench.cli(["validate", m], { MAIL: "ops@ids.example", VIS: "private" });
    expect(good.code, good.out + good.err).toBe(0);
    expect((await bench.cli(["validate", "--no-secrets", m])).code).toBe(0);
    const bad = await bench.cli(["validate", m], { MAIL: "SECRETnotAnAddress", VIS: "SECRETsecretive" });
    expect(bad.code).toBe(1);
    expect(bad.out + bad.err).not.toMatch(/SECRET/);
    expect(prose(bad.out + bad.err)).toContain(
      "admin_notification_email: the value from env:MAIL is not an e-mail address (the value is not shown)",
    );
    expect(prose(bad.out + bad.err)).toContain(
      "visibility: the value from env:VIS is not one of: private, internal, public (the value is not shown)",
    );
    const apply = await bench.cli(["apply", "--yes", m], { MAIL: "ops@ids.example", VIS: "private" });
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(
      (await bench.get<Record<string, unknown>>("/application/settings"))["admin_notification_email"],
    ).toBe("ops@ids.example");
    const plan = await bench.cli(["plan", "--detailed-exitcode", m], {
      MAIL: "ops@ids.example",
      VIS: "private",
    });
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("never echoes the value of a sensitive field that fails its type", async () => {
    const m = bench.manifest(`version: 1
instance:
  system_hooks:
    - { url: "https://hooks.ids.example/typed", token: 0424242 }
`);
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).not.toContain("424242");
    expect(prose(run.out + run.err)).toContain(
      "token: expected a string, got a number (the value is not shown: the field is sensitive)",
    );
  });
});
