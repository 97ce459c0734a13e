/**
 * Secrets inside identities, for every kind whose identity (or a field it is looked up by) may come from
 * `${env:}`: the object is matched by the resolved value, so apply converges and a delete policy never takes the
 * declared object; the identity is shown masked, also once the value is rotated (the live object with the old value
 * keeps its id hidden where the id is its name); and no output, --debug included, shows a value.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  users: [{ username: "deployer-one", name: "Deployer One", email: "d1@example.com" }],
  groups: [{ path: "sec", description: "live" }],
  projects: [
    {
      path: "sec/app",
      default_branch: "main",
      members: [{ user: "deployer-one", access_level: "maintainer" }],
    },
  ],
};

interface ApiPage {
  slug: string;
  title: string;
}

describe("secrets in identities", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** A manifest for project sec/app with `body` (its keys, indented by four spaces). */
  const project = (body: string, name: string) =>
    bench.manifest(`version: 1\nprojects:\n  sec/app:\n${body}`, name);

  /** Every output of plan (text, JSON, Markdown), drift (JUnit) and apply --debug for one manifest and env. */
  async function outputs(manifest: string, env: Record<string, string>): Promise<string> {
    const runs = await Promise.all([
      bench.cli(["plan", manifest], env),
      bench.cli(["plan", "--format", "json", manifest], env),
      bench.cli(["plan", "--format", "markdown", manifest], env),
      bench.cli(["drift", "--format", "junit", manifest], env),
    ]);
    return runs.map((r) => r.out + r.err).join("\n");
  }

  const none = (text: string, values: Record<string, string>) =>
    expect(Object.values(values).filter((v) => text.includes(v))).toEqual([]);

  /**
   * The value behind an identity changes from `first` (applied, and converged) to `second`: the plan shows
   * `lines` (the new object created, the old one deleted, both masked), apply goes through, and no output shows
   * either value.
   */
  async function rotate(
    manifest: string,
    first: Record<string, string>,
    second: Record<string, string>,
    lines: string[],
  ): Promise<void> {
    expect((await bench.cli(["plan", "--detailed-exitcode", manifest], first)).code).toBe(0);
    const plan = await bench.cli(["plan", manifest], second);
    for (const line of lines) expect(plan.out).toContain(line);
    const applied = await bench.cli(["apply", "--yes", "--debug", manifest], second);
    expect(applied.code, applied.out + applied.err).toBe(0);
    none(plan.out + applied.out + applied.err + (await outputs(manifest, second)), { ...first, ...second });
  }

  it("a wiki page titled from a secret converges and is never deleted by its own delete policy", async () => {
    const m = project(
      `    unmanaged: { wiki_pages: delete }
    wiki_pages:
      - title: "page \${env:WIKI}"
        content: "content \${env:WIKIC}"
`,
      "wiki.yaml",
    );
    const first = { WIKI: "OLDwiki01", WIKIC: "OLDwikic01" };
    const created = await bench.cli(["apply", "--yes", "--debug", m], first);
    expect(created.code, created.out + created.err).toBe(0);
    expect(created.out).toContain('+ project["sec/app"].wiki_page["page-(sensitive)"]: done');
    const again = await bench.cli(["apply", "--yes", "--debug", m], first);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain("No changes.");
    expect((await bench.get<ApiPage[]>("/projects/sec%2Fapp/wikis")).map((p) => p.slug)).toEqual([
      "page-OLDwiki01",
    ]);
    none(created.out + created.err + again.out + again.err + (await outputs(m, first)), first);

    await rotate(m, first, { WIKI: "NEWwiki02", WIKIC: "NEWwikic02" }, [
      '+ project["sec/app"].wiki_page["page-(sensitive)"] will be created',
      '- project["sec/app"].wiki_page["page-(sensitive) (#1)"] will be deleted',
    ]);
    expect((await bench.get<ApiPage[]>("/projects/sec%2Fapp/wikis")).map((p) => p.slug)).toEqual([
      "page-NEWwiki02",
    ]);
  });

  it("a protected environment named from a secret: the name is its id, and neither is ever shown", async () => {
    const m = (state = "") =>
      project(
        `    unmanaged: { protected_environments: delete }
    protected_environments:
      - name: "env-\${env:PENV}"${state}
        deploy_access_levels: [{ access_level: 40 }]
`,
        "penv.yaml",
      );
    const first = { PENV: "oldpenv01" };
    const created = await bench.cli(["apply", "--yes", "--debug", m()], first);
    expect(created.code, created.out + created.err).toBe(0);
    expect((await bench.cli(["plan", "--detailed-exitcode", m()], first)).code).toBe(0);

    const second = { PENV: "newpenv02" };
    const plan = JSON.parse((await bench.cli(["plan", "--format", "json", m()], second)).out) as {
      changes: { address: string; action: string; live_id?: unknown }[];
    };
    expect(plan.changes.map((c) => [c.action, c.address, c.live_id])).toEqual([
      ["create", 'project["sec/app"].protected_environment["env-(sensitive)"]', undefined],
      ["delete", 'project["sec/app"].protected_environment["env-(sensitive) (#1)"]', undefined],
    ]);
    const saved = `${bench.dir}/penv-plan.json`;
    const out = await bench.cli(["plan", "--out", saved, m()], second);
    const applied = await bench.cli(["apply", "--yes", "--debug", "--plan", saved], second);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.err).toMatch(
      /DELETE \/api\/v4\/projects\/sec%2Fapp\/protected_environments\/\[REDACTED\]/,
    );
    const removed = await bench.cli(["apply", "--yes", "--debug", m("\n        state: absent")], second);
    expect(removed.code, removed.out + removed.err).toBe(0);
    expect(removed.out).toContain('- project["sec/app"].protected_environment["env-(sensitive)"]: done');
    expect(await bench.get<unknown[]>("/projects/sec%2Fapp/protected_environments")).toEqual([]);
    none(
      [created, out, applied, removed].map((r) => r.out + r.err).join("\n") + (await outputs(m(), second)),
      { ...first, ...second },
    );
  });

  it("a secret inside a list setting converges; a rotated one is masked on both sides", async () => {
    const m = bench.manifest(
      `version: 1
instance:
  application_settings:
    domain_blacklist_enabled: true
    domain_blacklist: ["\${env:DOM}", "mailinator.com"]
`,
      "list.yaml",
    );
    const first = { DOM: "oldsecretdomain.example" };
    const applied = await bench.cli(["apply", "--yes", m], first);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect((await bench.get<Record<string, unknown>>("/application/settings"))["domain_blacklist"]).toEqual([
      "oldsecretdomain.example",
      "mailinator.com",
    ]);
    expect((await bench.cli(["plan", "--detailed-exitcode", m], first)).code).toBe(0);
    const second = { DOM: "newsecretdomain.example" };
    const rotated = await bench.cli(["plan", "--detailed-exitcode", m], second);
    expect(rotated.code).toBe(2);
    expect(rotated.out).toContain("~ domain_blacklist: (sensitive) -> (sensitive)");
    none(rotated.out + (await outputs(m, second)), { ...first, ...second });
  });

  it("every kind identified by a value from a secret converges, and a rotation shows both objects masked", async () => {
    const m = bench.manifest(
      `version: 1
instance:
  system_hooks: [{ url: "https://hooks.sec.example/\${env:ID}" }]
  broadcast_messages: [{ message: "notice \${env:ID}" }]
  unmanaged: { system_hooks: delete, broadcast_messages: delete }
groups:
  sec:
    badges: [{ name: "badge \${env:ID}", link_url: "https://b.example", image_url: "https://b.example/i.svg" }]
    milestones: [{ title: "group \${env:ID}" }]
    unmanaged: { badges: delete, milestones: delete }
projects:
  sec/app:
    badges: [{ name: "badge \${env:ID}", link_url: "https://b.example", image_url: "https://b.example/i.svg" }]
    milestones: [{ title: "project \${env:ID}" }]
    pipeline_schedules: [{ description: "nightly \${env:ID}", ref: main, cron: "0 1 * * *" }]
    triggers: [{ description: "deploy \${env:ID}" }]
    unmanaged: { badges: delete, milestones: delete, pipeline_schedules: delete, triggers: delete }
`,
      "every-kind.yaml",
    );
    const first = { ID: "FIRSTidValue" };
    const applied = await bench.cli(["apply", "--yes", m], first);
    expect(applied.code, applied.out + applied.err).toBe(0);
    await rotate(
      m,
      first,
      { ID: "SECONDidValue" },
      [
        'instance.system_hook["https://hooks.sec.example/(sensitive)"] will be created',
        'instance.broadcast_message["notice (sensitive)"] will be created',
        'group["sec"].badge["badge (sensitive)"] will be created',
        'group["sec"].milestone["group (sensitive)"] will be created',
        'project["sec/app"].milestone["project (sensitive)"] will be created',
        'project["sec/app"].pipeline_schedule["nightly (sensitive)"] will be created',
        'project["sec/app"].trigger["deploy (sensitive)"] will be created',
      ].flatMap((created) => [created, `${created.replace(/"\] will be created$/, "")} (id `]),
    );
    expect((await bench.cli(["plan", "--detailed-exitcode", m], { ID: "SECONDidValue" })).code).toBe(0);
  });

  it("application settings: a group path and a comma-separated list from secrets converge", async () => {
    const m = bench.manifest(
      `version: 1
instance:
  application_settings:
    performance_bar_allowed_group_path: "\${env:BAR_GROUP}"
    asset_proxy_whitelist: "\${env:PROXIED}"
`,
      "settings.yaml",
    );
    const env = { BAR_GROUP: "sec", PROXIED: "one.sec.example, two.sec.example" };
    const applied = await bench.cli(["apply", "--yes", m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const live = await bench.get<Record<string, unknown>>("/application/settings");
    expect(live["asset_proxy_whitelist"]).toEqual(["one.sec.example", "two.sec.example"]);
    expect((await bench.cli(["plan", "--detailed-exitcode", m], env)).code).toBe(0);
    none(await outputs(m, env), { PROXIED: "one.sec.example" });
  });

  it("a secret with spaces in a request's query (form-encoded, a+b) is masked under --debug too", async () => {
    const m = (state: string) =>
      project(`    milestones: [{ title: "\${env:REL}"${state} }]\n`, "milestone.yaml");
    const env = { REL: "Release Candidate Secret" };
    expect((await bench.cli(["apply", "--yes", m("")], env)).code).toBe(0);
    const removed = await bench.cli(["apply", "--yes", "--debug", m(", state: absent")], env);
    expect(removed.code, removed.out + removed.err).toBe(0);
    expect(removed.err).toContain("issues_statistics?milestone=[REDACTED]");
    none(removed.out + removed.err, { REL: "Release+Candidate+Secret", plain: env.REL });
  });

  it("a deployer named from a secret is looked up by its value and shown masked", async () => {
    const m = project(
      `    protected_environments:
      - name: staging
        deploy_access_levels: [{ user: "\${env:DEPLOYER}" }]
`,
      "deployer.yaml",
    );
    const env = { DEPLOYER: "deployer-one" };
    const plan = await bench.cli(["plan", m], env);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain('+ deploy_access_levels: [{"user":"(sensitive)"}]');
    const applied = await bench.cli(["apply", "--yes", "--debug", m], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const [live] = await bench.get<{ deploy_access_levels: { user_id?: number }[] }[]>(
      "/projects/sec%2Fapp/protected_environments",
    );
    const [user] = await bench.get<{ id: number }[]>("/users?username=deployer-one");
    expect(live?.deploy_access_levels.map((l) => l.user_id)).toEqual([user?.id]);
    expect((await bench.cli(["plan", "--detailed-exitcode", m], env)).code).toBe(0);
    none(plan.out + applied.out + applied.err + (await outputs(m, env)), env);
  });

  it("a schedule variable keyed from a secret: its key is its id, masked once rotated", async () => {
    const m = project(
      `    pipeline_schedules:
      - description: nightly
        ref: main
        cron: "0 1 * * *"
        unmanaged: { variables: delete }
        variables: [{ key: "\${env:VARKEY}", value: plain }]
`,
      "variables.yaml",
    );
    const first = { VARKEY: "OLD_VARIABLE_KEY" };
    expect((await bench.cli(["apply", "--yes", m], first)).code).toBe(0);
    await rotate(m, first, { VARKEY: "NEW_VARIABLE_KEY" }, [
      '.variable["(sensitive)"] will be created',
      '.variable["(sensitive) (#1)"] will be deleted',
    ]);
    const schedule = (
      await bench.get<{ id: number; description: string }[]>("/projects/sec%2Fapp/pipeline_schedules")
    ).find((s) => s.description === "nightly");
    const live = await bench.get<{ variables: { key: string }[] }>(
      `/projects/sec%2Fapp/pipeline_schedules/${schedule?.id}`,
    );
    expect(live.variables.map((v) => v.key)).toEqual(["NEW_VARIABLE_KEY"]);
  });
});
