/**
 * The leak test: distinctive values planted in every sensitive place (identities, a description, settings,
 * variables, tokens, a deploy key file, a wiki page's title and content, a protected environment's name (its id),
 * a list setting, a variable key, group and project hooks' URL keys and tokens, a deploy token written to its
 * token_file, CI/CD variables' values from references and masked ones, live or declared; both the old and the
 * new side of a change; values that end up in request paths, as --debug shows them) are searched for in every
 * output forgeform makes: stdout and stderr of every command, --debug, saved plans, JSON, Markdown and JUnit
 * reports, the bundled Action's log, outputs, report files and job summary, and export. Zero hits.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodes, runAction } from "../action/helpers.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

const OLD = {
  GDESC: "LEAKdescOLDvalue1",
  HOOK_KEY: "LEAKhookKEYold2",
  HOOK_TOKEN: "LEAKhookTOKENold3",
  SCHED: "LEAKscheduleNAME4",
  VAR: "LEAKvariableOLD5",
  PROXY: "LEAKproxySECRETold6",
  WIKI: "LEAKwikiTITLE14",
  WIKIC: "LEAKwikiCONTENTold15",
  PENV: "LEAKenvNAMEold16",
  DOM: "leak-domain-old17.example",
  VARKEY: "LEAK_VARIABLE_KEY_OLD18",
  GHOOK_KEY: "LEAKgroupHOOKkeyOLD23",
  GHOOK_TOKEN: "LEAKgroupHOOKtokenOLD24",
  PHOOK_KEY: "LEAKprojectHOOKkeyOLD25",
  PHOOK_TOKEN: "LEAKprojectHOOKtokenOLD26",
  IVAR: "LEAKinstanceMASKEDold23",
  GVAR: "LEAKgroupVARold25",
  PVAR: "LEAKprojectMASKEDold27",
};
const NEW = {
  GDESC: "LEAKdescNEWvalue7",
  HOOK_KEY: "LEAKhookKEYnew8",
  HOOK_TOKEN: "LEAKhookTOKENnew9",
  SCHED: "LEAKscheduleNAME4",
  VAR: "LEAKvariableNEW10",
  PROXY: "LEAKproxySECRETnew11",
  // The same title: the page is updated in place (a request path holding the secret), its content rotated.
  WIKI: "LEAKwikiTITLE14",
  WIKIC: "LEAKwikiCONTENTnew19",
  PENV: "LEAKenvNAMEnew20",
  DOM: "leak-domain-new21.example",
  VARKEY: "LEAK_VARIABLE_KEY_NEW22",
  GHOOK_KEY: "LEAKgroupHOOKkeyNEW27",
  GHOOK_TOKEN: "LEAKgroupHOOKtokenNEW28",
  PHOOK_KEY: "LEAKprojectHOOKkeyNEW29",
  PHOOK_TOKEN: "LEAKprojectHOOKtokenNEW30",
  IVAR: "LEAKinstanceMASKEDnew24",
  GVAR: "LEAKgroupVARnew26",
  PVAR: "LEAKprojectMASKEDnew28",
};
/** Written into files read with ${file:}. */
const FILE_SECRET = "LEAKfileSECRET12";
const KEY_COMMENT = "LEAKkeyCOMMENT13";

/** Masked CI/CD variables no manifest mentions: one pruned (delete), one reported (warn) and exported. */
const PRUNED_MASKED = "LEAKunmanagedMASKED29";
const KEPT_MASKED = "LEAKgroupMASKEDlive30";

const fixture = {
  groups: [{ path: "leak" }],
  projects: [{ path: "leak/app" }],
  ci_variables: [
    { project: "leak/app", key: "OLD_PASSWORD", value: PRUNED_MASKED, masked: true },
    { group: "leak", key: "LIVE_PASSWORD", value: KEPT_MASKED, masked: true },
  ],
};

const MANIFEST = `version: 1
instance:
  application_settings:
    asset_proxy_enabled: true
    asset_proxy_url: https://proxy.leak.example
    asset_proxy_secret_key: \${env:PROXY}
    domain_blacklist_enabled: true
    domain_blacklist: ["\${env:DOM}", mailinator.com]
  system_hooks:
    - url: "https://hooks.leak.example/in?key=\${env:HOOK_KEY}"
      token: \${env:HOOK_TOKEN}
      push_events: true
  unmanaged: { system_hooks: delete }
  variables:
    - { key: INSTANCE_SECRET, value: "\${env:IVAR}", masked: true }
groups:
  leak:
    description: \${env:GDESC}
    hooks:
      - url: "https://hooks.leak.example/group?token=\${env:GHOOK_KEY}"
        token: \${env:GHOOK_TOKEN}
        subgroup_events: true
    variables:
      - { key: FROM_ENV, value: "\${env:GVAR}" }
projects:
  leak/app:
    pipeline_schedules:
      - description: "nightly \${env:SCHED}"
        ref: main
        cron: "0 1 * * *"
        unmanaged: { variables: delete }
        variables:
          - { key: DEPLOY, value: "\${env:VAR}" }
          - { key: FROM_FILE, value: "\${file:secret.txt}" }
          - { key: "\${env:VARKEY}", value: plain }
    unmanaged: { wiki_pages: delete, protected_environments: delete, variables: delete }
    variables:
      - { key: DEPLOY_PASSWORD, value: "\${env:PVAR}", masked: true, environment_scope: production }
    wiki_pages:
      - { title: "runbook \${env:WIKI}", content: "see \${env:WIKIC}" }
    protected_environments:
      - { name: "env-\${env:PENV}", deploy_access_levels: [{ access_level: 40 }] }
    deploy_keys:
      - { title: bot, key: "\${file:bot.pub}" }
    triggers:
      - { description: deploy, token_file: trigger.token }
    hooks:
      - url: "https://hooks.leak.example/project?key=\${env:PHOOK_KEY}"
        token: \${env:PHOOK_TOKEN}
    deploy_tokens:
      - { name: registry, scopes: [read_registry], token_file: deploy.token }
`;

describe("no secret is ever shown", () => {
  let bench: Bench;
  let manifest: string;
  const seen: [string, string][] = [];
  const record = (where: string, text: string) => seen.push([where, text]);

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    manifest = bench.manifest(MANIFEST);
    writeFileSync(join(bench.dir, "secret.txt"), `${FILE_SECRET}\n`);
    writeFileSync(
      join(bench.dir, "bot.pub"),
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDpmtUfokFOEewAbIYyjN3+DT4ge6CS1unRyXwq3tDuu ${KEY_COMMENT}\n`,
    );
    const first = await bench.cli(["apply", "--yes", "--debug", manifest], OLD);
    record("first apply", first.out + first.err);
    expect(first.code, first.out + first.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("collects every output of every command with the old values live and new ones declared", async () => {
    const run = async (name: string, args: string[], env: Record<string, string> = NEW) => {
      const r = await bench.cli(args, env);
      record(name, r.out + r.err);
      return r;
    };
    await run("validate", ["validate", manifest]);
    await run("validate json", ["validate", "--format", "json", manifest]);
    for (const format of ["text", "json", "markdown"])
      await run(`plan ${format}`, ["plan", "--format", format, manifest]);
    const saved = join(bench.dir, "saved-plan.json");
    const plan = await run("plan --out --debug", ["plan", "--debug", "--out", saved, manifest]);
    expect(plan.out).toContain("(sensitive) -> (sensitive)");
    record("saved plan", readFileSync(saved, "utf8"));
    const reports = Object.fromEntries(
      ["json", "markdown", "junit"].map((f) => [f, join(bench.dir, `drift.${f}`)]),
    );
    await run("drift", [
      "drift",
      ...Object.entries(reports).flatMap(([f, file]) => ["--report", `${f}=${file}`]),
      manifest,
    ]);
    for (const file of Object.values(reports)) record(file, readFileSync(file, "utf8"));
    for (const format of ["json", "markdown", "junit"])
      await run(`drift ${format}`, ["drift", "--format", format, manifest]);

    for (const [label, node] of nodes().slice(0, 1)) {
      for (const command of ["validate", "plan", "drift"]) {
        const action = await runAction(
          node,
          { command, paths: manifest, url: bench.sandbox.url, token: ADMIN_TOKEN },
          { env: NEW },
        );
        // `::add-mask::` is the runner's command to mask a value; the runner consumes it and never shows it.
        const log = `${action.stdout}\n${action.stderr}`
          .split("\n")
          .filter((line) => !line.startsWith("::add-mask::"))
          .join("\n");
        record(`action ${command} on ${label}`, `${log}\n${action.summary}`);
        for (const [name, value] of Object.entries(action.outputs)) {
          record(`action ${command} output ${name}`, value);
          if (/-report$/.test(name) && existsSync(value))
            record(`action ${command} ${name} file`, readFileSync(value, "utf8"));
        }
      }
    }
    const apply = await run("apply --debug", ["apply", "--yes", "--debug", manifest]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    // And it converges: a secret in an identity or a list is matched by its value.
    const after = await run("plan after", ["plan", "--detailed-exitcode", manifest]);
    expect(after.code, after.out + after.err).toBe(0);

    const out = join(bench.dir, "export");
    const exported = await run("export", [
      "export",
      "--instance",
      "--group",
      "leak",
      "--project",
      "leak/app",
      "--out",
      out,
    ]);
    expect(exported.code, exported.err).toBe(0);
    for (const file of readdirSync(out)) record(`export ${file}`, readFileSync(join(out, file), "utf8"));
  });

  it("finds none of the planted values, nor the tokens, anywhere", () => {
    const trigger = readFileSync(join(bench.dir, "trigger.token"), "utf8").trim();
    expect(trigger.length).toBeGreaterThan(10);
    const deployToken = readFileSync(join(bench.dir, "deploy.token"), "utf8").trim();
    expect(deployToken.length).toBeGreaterThanOrEqual(20);
    const planted = new Map<string, string>([
      ...Object.entries(OLD).map(([k, v]) => [v, `old ${k}`] as [string, string]),
      ...Object.entries(NEW).map(([k, v]) => [v, `new ${k}`] as [string, string]),
      [FILE_SECRET, "a file read with file:"],
      [KEY_COMMENT, "deploy key file"],
      [trigger, "trigger token"],
      [deployToken, "deploy token"],
      [ADMIN_TOKEN, "access token"],
      [PRUNED_MASKED, "a pruned masked variable"],
      [KEPT_MASKED, "an unmanaged masked variable"],
    ]);
    // Export reads live state only: it cannot know that a group description or a hook URL came from a secret in
    // some manifest (they are ordinary fields on the platform), so those two are left out of its search; every
    // field the schemas declare sensitive or write-only is searched there too.
    // Likewise wiki pages, environment names, list settings, variable keys, an unmasked CI/CD variable's value and
    // the values of schedule variables not named like secrets (DEPLOY, FROM_FILE): ordinary live values there,
    // written as they are. Masked variables' values are secrets on the platform too: searched everywhere.
    const exportBlind = new Set([
      ...[OLD, NEW].flatMap((v) => [
        v.GDESC,
        v.HOOK_KEY,
        v.WIKI,
        v.WIKIC,
        v.PENV,
        v.DOM,
        v.VARKEY,
        v.GVAR,
        v.VAR,
      ]),
      OLD.SCHED,
      KEY_COMMENT,
      FILE_SECRET,
    ]);
    const hits: string[] = [];
    for (const [where, text] of seen) {
      for (const [value, what] of planted) {
        if (where.startsWith("export") && exportBlind.has(value)) continue;
        if (text.includes(value)) hits.push(`${what} in ${where}`);
      }
    }
    expect(seen.length).toBeGreaterThan(20);
    expect(hits).toEqual([]);
  });
});
