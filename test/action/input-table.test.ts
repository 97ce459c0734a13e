/**
 * Every input of action.yml with a valid, an invalid and an empty value, through the bundle as the runner runs it
 * (dist/index.js under Node 24, INPUT_* variables, a fresh workspace each run). A valid value works and has its
 * effect; an invalid one fails the step with an error that names the input (never a silent default: `fail-on-drift:
 * yes` is an error, not false); an empty one is the input's default. A guard checks the table covers action.yml.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startSandbox } from "../../src/sandbox/server.js";
import { type ActionRun, NODE24, ROOT, runAction } from "./helpers.js";

const TOKEN = "glpat-action-table-1234567890";
/** The workspace: a manifest that changes one group and deletes another, in a folder and at the top. */
const BADGE = { name: "b", link_url: "https://ci.example/b", image_url: "https://ci.example/b.svg" };
const MANIFEST = `version: 1\ngroups:\n  tbl:\n    description: Table\n    badges:\n      - ${JSON.stringify(BADGE)}\n  gone:\n    state: absent\n`;
/** Another manifest, in sub/, declaring another group. */
const SUB_MANIFEST = "version: 1\ngroups:\n  elsewhere: {}\n";

const BOOLEAN_SPELLINGS = "true, True, TRUE, false, False, FALSE";
const booleanError = (input: string, value: string) =>
  `::error::forgeform: input ${input} must be true or false (written ${BOOLEAN_SPELLINGS}), not "${value}"`;

interface Row {
  input: string;
  /** The other inputs of every run of this row (the command, paths...). */
  with: Record<string, string>;
  valid: string;
  /** What the valid value must show (beyond a step that succeeds). */
  validShows?: (run: ActionRun) => void;
  /** The valid value fails the step on purpose (fail-on-drift: true with drift). */
  validFails?: boolean;
  invalid: string;
  /** Text of the error the invalid value fails with: it names the input. */
  error: string | RegExp;
  /** `default`: the step succeeds as without the input; otherwise the error an empty value fails with. */
  empty: "default" | string;
  /** The workspace is a git checkout with the manifests committed. */
  git?: boolean;
}

const plan = { command: "plan", paths: "m.yaml" };

const ROWS: Row[] = [
  {
    input: "command",
    with: { paths: "m.yaml" },
    valid: "validate",
    validShows: (r) => expect(r.stdout).toContain("1 file valid"),
    invalid: "deploy",
    error: '::error::forgeform: input command must be validate, plan, apply or drift, not "deploy"',
    empty: "::error::forgeform: input command is required: validate, plan, apply or drift",
  },
  {
    input: "paths",
    with: { command: "validate" },
    valid: "sub/*.yaml",
    validShows: (r) =>
      expect(JSON.parse(readFileSync(r.outputs["json-report"]!, "utf8")).files).toEqual(["sub/m.yaml"]),
    invalid: "nothing/*.yaml",
    error: 'the paths input "nothing/*.yaml" matches no file or directory',
    empty: "default",
  },
  {
    input: "url",
    with: plan,
    valid: "<sandbox>",
    validShows: (r) => expect(r.outputs["updates"]).toBe("1"),
    invalid: "gitlab example com",
    error: /::error::.*gitlab example com.*not a valid URL.*the url input/,
    empty: "the url input (or FORGEFORM_URL)",
  },
  {
    input: "token",
    with: plan,
    valid: TOKEN,
    invalid: "glpat-not-a-token-of-this-platform",
    error: /::error::.*401.*the token input/,
    empty: "set the token input",
  },
  {
    input: "format",
    with: plan,
    valid: "json",
    validShows: (r) => expect(r.stdout).toContain('"format_version": 1'),
    invalid: "yaml",
    error: 'input format must be text, json, markdown for plan, not "yaml"',
    empty: "default",
  },
  {
    input: "targets",
    with: plan,
    valid: "tbl",
    validShows: (r) => expect([r.outputs["updates"], r.outputs["deletes"]]).toEqual(["1", "0"]),
    invalid: "tb",
    error: /::error::.*"tb" matches nothing the manifests declare/,
    empty: "default",
  },
  {
    input: "max-deletes",
    with: { command: "apply", paths: "m.yaml" },
    valid: "1",
    validShows: (r) => expect(r.outputs["deletes"]).toBe("1"),
    invalid: "-1",
    error: 'input max-deletes must be a whole number (0 or more), not "-1"',
    empty: "default",
  },
  {
    input: "plan-file",
    with: plan,
    valid: "out/plan.json",
    validShows: (r) =>
      expect(JSON.parse(readFileSync(join(r.workspace, "out/plan.json"), "utf8")).changes).toHaveLength(2),
    invalid: "sub",
    error: "the plan-file input sub is a directory",
    empty: "default",
  },
  {
    input: "fail-on-drift",
    with: { command: "drift", paths: "m.yaml" },
    valid: "True",
    validFails: true,
    invalid: "yes",
    error: booleanError("fail-on-drift", "yes"),
    empty: "default",
  },
  {
    input: "fail-on-unmanaged",
    with: { command: "drift", paths: "m.yaml" },
    valid: "FALSE",
    invalid: "on",
    error: booleanError("fail-on-unmanaged", "on"),
    empty: "default",
  },
  {
    input: "no-secrets",
    with: { command: "validate", paths: "m.yaml" },
    valid: "true",
    validShows: (r) => expect(r.stdout).toContain("secret references not resolved: no-secrets is true"),
    invalid: "1",
    error: booleanError("no-secrets", "1"),
    empty: "default",
  },
  {
    input: "insecure-http",
    with: plan,
    valid: "TRUE",
    invalid: "tRuE",
    error: booleanError("insecure-http", "tRuE"),
    empty: "default",
  },
  {
    input: "no-backup",
    with: plan,
    valid: "true",
    validShows: (r) => expect(r.stdout).not.toContain("backups"),
    invalid: "y",
    error: booleanError("no-backup", "y"),
    empty: "default",
  },
  {
    input: "changed-since",
    with: plan,
    valid: "false",
    validShows: (r) => expect(r.outputs["updates"]).toBe("1"),
    invalid: "no-such-revision",
    error: /::error::.*the changed-since input.*no-such-revision/,
    empty: "default",
    git: true,
  },
  {
    input: "shard",
    with: plan,
    valid: "1/1",
    invalid: "3/2",
    error: /::error::.*the shard input.*3\/2/,
    empty: "default",
  },
  {
    input: "replace",
    with: plan,
    valid: 'group["tbl"].badge["b"]',
    validShows: (r) => expect(r.outputs["replacements"]).toBe("1"),
    invalid: 'group["tbl"].badge["c"]',
    error: /group\[\\?"tbl\\?"\]\.badge\[\\?"c\\?"\]: the replace input: no such managed object/,
    empty: "default",
  },
  {
    input: "backup-dir",
    with: { command: "apply", paths: "m.yaml" },
    valid: "saved",
    validShows: (r) => expect(existsSync(join(r.workspace, "saved/group-gone.tar.gz"))).toBe(true),
    // A file, not a folder: the group is not deleted, and the log says why and what to do, in the Action's terms.
    invalid: "m.yaml",
    error:
      /group\[\\?"gone\\?"\]: failed: not deleted: saving its backup to m\.yaml\/group-gone\.tar\.gz failed .*; fix that and apply again, or set the no-backup input to delete it without one/,
    empty: "default",
  },
  {
    input: "working-directory",
    with: { command: "validate", paths: "m.yaml" },
    valid: "sub",
    validShows: (r) =>
      expect(JSON.parse(readFileSync(r.outputs["json-report"]!, "utf8")).files).toEqual(["m.yaml"]),
    invalid: "nowhere",
    error: /::error::.*the working-directory input.*nowhere/,
    empty: "default",
  },
  {
    input: "root",
    with: { command: "validate", paths: "sub" },
    valid: ".",
    invalid: "m.yaml",
    error: `::error::forgeform: the root input "m.yaml" is not a folder (looked for `,
    empty: "default",
  },
  {
    input: "ca-file",
    with: plan,
    valid: "ca.pem",
    invalid: "missing.pem",
    error: /::error::.*cannot read the CA file missing\.pem \(ENOENT\): check the ca-file input/,
    empty: "default",
  },
  {
    input: "timeout",
    with: plan,
    valid: "5000",
    invalid: "soon",
    error: /::error::.*the timeout input/,
    empty: "default",
  },
  {
    input: "concurrency",
    with: plan,
    valid: "2",
    invalid: "0",
    error: /::error::.*the concurrency input/,
    empty: "default",
  },
  {
    input: "max-attempts",
    with: plan,
    valid: "3",
    invalid: "many",
    error: /::error::.*the max-attempts input/,
    empty: "default",
  },
  {
    input: "max-rate",
    with: plan,
    valid: "6000/min",
    invalid: "fast",
    error: "the max-rate input needs requests per minute, second or hour above 0",
    empty: "default",
  },
  {
    input: "max-list-mb",
    with: plan,
    valid: "16",
    invalid: "lots",
    error: /::error::.*the max-list-mb input/,
    empty: "default",
  },
  {
    input: "max-response-mb",
    with: plan,
    valid: "16",
    invalid: "0",
    error: /::error::.*the max-response-mb input/,
    empty: "default",
  },
  {
    input: "comment",
    // github-token's default (the job's token) is the runner's to fill in: here it is given.
    with: { ...plan, "github-token": "ghs_tableJobToken0123" },
    valid: "on-change",
    // Not a pull_request event here: the input is taken, and the log says why no comment was posted
    // (test/action/comment.test.ts posts them).
    validShows: (r) =>
      expect(r.stdout).toContain("comment is on-change, but this run is for no event, not a pull request"),
    invalid: "sometimes",
    error: '::error::forgeform: input comment must be on-change, always or never, not "sometimes"',
    empty: "default",
  },
  {
    input: "github-token",
    with: { ...plan, comment: "always" },
    valid: "ghs_tableJobToken0123",
    validShows: (r) => expect(r.stdout).toContain("comment is always, but this run is for no event"),
    invalid: "ghs_one ghs_two",
    error: "::error::forgeform: input github-token must be one token, without spaces or line breaks",
    empty:
      "::error::forgeform: input github-token is empty, and the comment input (always) posts with it: leave github-token out to use the job's token, or set comment to never",
  },
];

describe("every input: valid, invalid, empty", () => {
  let pem = "";
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-action-ca-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
      ].concat(["-subj", "/CN=localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "ca.pem")]),
      { stdio: "ignore" },
    );
    pem = readFileSync(join(dir, "ca.pem"), "utf8");
  });

  /**
   * Runs the bundle with the row's inputs and `value` for its input, in a new workspace against a new sandbox
   * (an apply changes it): each run stands alone, so the runs go concurrently.
   */
  async function run(row: Row, value: string): Promise<ActionRun> {
    const sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: {
        groups: [{ path: "tbl", description: "old" }, { path: "gone" }],
        badges: [{ group: "tbl", ...BADGE }],
      },
    });
    try {
      const ws = mkdtempSync(join(tmpdir(), "forgeform-action-table-"));
      mkdirSync(join(ws, "sub"));
      writeFileSync(join(ws, "m.yaml"), MANIFEST);
      writeFileSync(join(ws, "sub/m.yaml"), SUB_MANIFEST);
      writeFileSync(join(ws, "ca.pem"), pem);
      if (row.git) {
        const git = (...args: string[]) => execFileSync("git", args, { cwd: ws, stdio: "ignore" });
        git("init", "-q");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
      }
      const inputs: Record<string, string> = { url: sandbox.url, token: TOKEN, ...row.with };
      inputs[row.input] = value === "<sandbox>" ? sandbox.url : value;
      return await runAction(NODE24, inputs, { workspace: ws });
    } finally {
      await sandbox.stop();
    }
  }

  for (const row of ROWS) {
    it.concurrent(`${row.input}: ${JSON.stringify(row.valid)} is taken`, async () => {
      const r = await run(row, row.valid);
      expect(r.status, r.stdout).toBe(row.validFails ? 1 : 0);
      expect(r.stdout).not.toMatch(/::error::.*input/);
      row.validShows?.(r);
    });

    it.concurrent(`${row.input}: ${JSON.stringify(row.invalid)} fails the step, naming the input`, async () => {
      const r = await run(row, row.invalid);
      expect(r.status, r.stdout).toBe(1);
      if (typeof row.error === "string") expect(r.stdout).toContain(row.error);
      else expect(r.stdout).toMatch(row.error);
      expect(r.outputs["exit-code"]).toBe("1");
      // Said in terms of inputs: no command-line flag.
      expect(r.stdout).not.toMatch(/(?<![\w-])--[a-z]/);
    });

    if (row.empty !== "default") {
      it.concurrent(`${row.input}: empty fails the step, naming the input`, async () => {
        const r = await run(row, "");
        expect(r.status).toBe(1);
        expect(r.stdout).toContain(row.empty);
      });
    }
  }

  // An empty value is what the runner passes for `input: ""`: each such input is its default. All of them at once,
  // for each command (a run per input would cost a second each).
  for (const command of ["validate", "plan", "apply", "drift"]) {
    it.concurrent(`${command}: every other input empty is its default`, async () => {
      const empties = ROWS.filter((row) => row.empty === "default").map((row) => row.input);
      const inputs = Object.fromEntries(empties.map((input) => [input, ""]));
      const r = await run({ ...ROWS.find((row) => row.input === "command")!, with: inputs }, command);
      expect(r.status, r.stdout).toBe(0);
      expect(r.stdout).not.toContain("::error::");
      // paths empty is the workspace: both manifests; the rest as without the inputs.
      if (command === "plan") {
        expect([r.outputs["creates"], r.outputs["updates"], r.outputs["deletes"]]).toEqual(["1", "1", "1"]);
      }
    });
  }

  it("covers every input action.yml declares", () => {
    const declared = Object.keys(
      (parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as { inputs: Record<string, unknown> }).inputs,
    );
    expect(ROWS.map((r) => r.input).sort()).toEqual(declared.sort());
  });
});
