/**
 * The Action's inputs as readInputs reads them (INPUT_* variables through @actions/core), in-process: each input's
 * value in the options, its default when empty, and the error that names it when it is wrong; which tokens are
 * masked. input-table.test.ts runs the bundle with one valid, invalid and empty value of each.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type ActionInputs,
  inActionTerms,
  maskSecrets,
  readInputs,
  secretValues,
  tuningArgv,
} from "../../src/action/inputs.js";
import { startsSmall } from "../../src/cli/runtime.js";
import { inputVariable } from "./helpers.js";

const set: string[] = [];
function inputs(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    process.env[inputVariable(name)] = value;
    set.push(inputVariable(name));
  }
}
afterEach(() => {
  for (const name of set.splice(0)) delete process.env[name];
});

/** What readInputs gives for `command` and nothing else. */
const DEFAULTS = (command: ActionInputs["command"]): ActionInputs => ({
  command,
  paths: [],
  format: "text",
  targets: [],
  failOnDrift: false,
  failOnUnmanaged: false,
  noSecrets: false,
  insecureHttp: false,
  replace: [],
  changedSince: "auto",
  noBackup: false,
  comment: "never",
});

describe("readInputs", () => {
  it.each(["validate", "plan", "apply", "drift"] as const)(
    "%s alone: every other input is its default",
    (command) => {
      inputs({ command });
      expect(readInputs()).toStrictEqual(DEFAULTS(command));
    },
  );

  it("takes the command and the format in any case", () => {
    inputs({ command: "DRIFT", format: "JUnit" });
    expect(readInputs()).toMatchObject({ command: "drift", format: "junit" });
  });

  /** Input values -> what readInputs makes of them (on top of DEFAULTS("plan")). */
  const taken: [string, Record<string, string>, Partial<ActionInputs>][] = [
    [
      "paths: one per line or separated by spaces",
      { paths: " a.yaml  b/\n\nc/*.yaml\t" },
      { paths: ["a.yaml", "b/", "c/*.yaml"] },
    ],
    ["targets: likewise", { targets: "acme\nacme/web other" }, { targets: ["acme", "acme/web", "other"] }],
    [
      "replace: one address per line, spaces kept",
      { replace: '  group["a b"].badge["x"] \n\n group["c"]\n' },
      { replace: ['group["a b"].badge["x"]', 'group["c"]'] },
    ],
    ["url as given", { url: "https://gitlab.example.com/" }, { url: "https://gitlab.example.com/" }],
    ["token trimmed", { token: " glpat-abc \n" }, { token: "glpat-abc" }],
    ["changed-since trimmed", { "changed-since": " main " }, { changedSince: "main" }],
    [
      "the connection's inputs, trimmed",
      {
        "ca-file": " ca.pem ",
        timeout: " 5000",
        concurrency: "2 ",
        "max-attempts": "3",
        "max-rate": "600/min",
        "max-response-mb": "16",
        "max-list-mb": "32",
      },
      {
        caFile: "ca.pem",
        timeout: "5000",
        concurrency: "2",
        maxAttempts: "3",
        maxRate: "600/min",
        maxResponseMb: "16",
        maxListMb: "32",
      },
    ],
    [
      "working-directory, shard, backup-dir, plan-file",
      { "working-directory": " infra ", shard: "2/4", "backup-dir": "saved", "plan-file": "out/plan.json" },
      { workingDirectory: "infra", shard: "2/4", backupDir: "saved", planFile: "out/plan.json" },
    ],
    ["max-deletes: a whole number", { "max-deletes": "0" }, { maxDeletes: 0 }],
    ["max-deletes: spaces around it", { "max-deletes": " 12 " }, { maxDeletes: 12 }],
    [
      "the booleans",
      { "fail-on-drift": "true", "fail-on-unmanaged": "True", "insecure-http": "TRUE", "no-backup": "true" },
      { failOnDrift: true, failOnUnmanaged: true, insecureHttp: true, noBackup: true },
    ],
    [
      "comment in any case, with the token",
      { comment: "On-Change", "github-token": " ghs_x " },
      { comment: "on-change", githubToken: "ghs_x" },
    ],
    [
      "comment always",
      { comment: "always", "github-token": "ghs_x" },
      { comment: "always", githubToken: "ghs_x" },
    ],
    ["comment never, with no token", { comment: "NEVER", "github-token": "" }, { comment: "never" }],
    ["github-token without comment", { "github-token": "ghs_y" }, { githubToken: "ghs_y" }],
  ];
  it.each(taken)("%s", (_name, values, expected) => {
    inputs({ command: "plan", ...values });
    // Strict: an input left out is no key at all, not a key set to undefined.
    expect(readInputs()).toStrictEqual({ ...DEFAULTS("plan"), ...expected });
  });

  /** Input values -> the error, which names the input. */
  const refused: [Record<string, string>, string][] = [
    [{ command: "" }, "input command is required: validate, plan, apply or drift"],
    [{ command: "Deploy" }, 'input command must be validate, plan, apply or drift, not "deploy"'],
    [
      { command: "validate", format: "markdown" },
      'input format must be text, json for validate, not "markdown"',
    ],
    [{ command: "validate", format: "junit" }, 'input format must be text, json for validate, not "junit"'],
    [{ command: "plan", format: "JUnit" }, 'input format must be text, json, markdown for plan, not "JUnit"'],
    [
      { command: "apply", format: "junit" },
      'input format must be text, json, markdown for apply, not "junit"',
    ],
    [
      { command: "drift", format: "yaml" },
      'input format must be text, json, markdown, junit for drift, not "yaml"',
    ],
    [
      { command: "plan", comment: "sometimes" },
      'input comment must be on-change, always or never, not "sometimes"',
    ],
    [
      { command: "plan", "no-secrets": "true" },
      "input no-secrets is for validate only: plan, apply and drift need the secrets' values",
    ],
    [
      { command: "drift", "no-secrets": "true" },
      "input no-secrets is for validate only: plan, apply and drift need the secrets' values",
    ],
    [
      { command: "plan", "github-token": "ghs_a ghs_b" },
      "input github-token must be one token, without spaces or line breaks",
    ],
    [
      { command: "plan", "github-token": "ghs_a\nghs_b" },
      "input github-token must be one token, without spaces or line breaks",
    ],
    [
      { command: "plan", comment: "on-change", "github-token": "  " },
      "input github-token is empty, and the comment input (on-change) posts with it: leave github-token out to use the job's token, or set comment to never",
    ],
    [
      { command: "apply", "max-deletes": "-1" },
      'input max-deletes must be a whole number (0 or more), not "-1"',
    ],
    [
      { command: "apply", "max-deletes": "1.5" },
      'input max-deletes must be a whole number (0 or more), not "1.5"',
    ],
    [
      { command: "apply", "max-deletes": "1e3" },
      'input max-deletes must be a whole number (0 or more), not "1e3"',
    ],
    [
      { command: "apply", "max-deletes": "x1" },
      'input max-deletes must be a whole number (0 or more), not "x1"',
    ],
    [
      { command: "apply", "max-deletes": "1x" },
      'input max-deletes must be a whole number (0 or more), not "1x"',
    ],
    [
      { command: "apply", "max-deletes": "99999999999999999999" },
      'input max-deletes must be a whole number (0 or more), not "99999999999999999999"',
    ],
  ];
  it.each(refused)("refuses %j", (values, error) => {
    inputs(values);
    expect(() => readInputs()).toThrow(new Error(error));
  });

  it("no-secrets is taken for validate", () => {
    inputs({ command: "validate", "no-secrets": "true" });
    expect(readInputs().noSecrets).toBe(true);
  });

  it("every format each command takes", () => {
    const formats = {
      validate: ["text", "json"],
      plan: ["text", "json", "markdown"],
      apply: ["text", "json", "markdown"],
      drift: ["text", "json", "markdown", "junit"],
    };
    for (const [command, list] of Object.entries(formats)) {
      for (const format of list) {
        inputs({ command, format });
        expect(readInputs().format).toBe(format);
      }
    }
  });
});

describe("the tokens the Action masks", () => {
  it("are the token and github-token inputs and FORGEFORM_TOKEN / FORGEFORM_SCIM_TOKEN, trimmed, blanks left out", () => {
    inputs({ token: " glpat-input \n", "github-token": "ghs_job" });
    const env = { FORGEFORM_TOKEN: "glpat-env", FORGEFORM_SCIM_TOKEN: " scim-env ", OTHER: "not-a-token" };
    expect(secretValues(env)).toEqual(["glpat-input", "glpat-env", "scim-env", "ghs_job"]);
    // @actions/core's setSecret: the runner's add-mask command on stdout.
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      maskSecrets(env);
    } finally {
      spy.mockRestore();
    }
    expect(printed.join("").split("\n")).toEqual([
      "::add-mask::glpat-input",
      "::add-mask::glpat-env",
      "::add-mask::scim-env",
      "::add-mask::ghs_job",
      "",
    ]);
  });

  it("are none when none is given", () => {
    inputs({ token: "  ", "github-token": "" });
    expect(secretValues({ FORGEFORM_TOKEN: "" })).toEqual([]);
  });
});

describe("messages in the Action's terms (inActionTerms)", () => {
  const cases: [string, string][] = [
    ["the server is plain http (insecureHttp: true) here", "the server is plain http here"],
    ["or run validate with --no-secrets.", "or set the no-secrets input."],
    [
      "2 files valid (secret references not resolved: --no-secrets)",
      "2 files valid (secret references not resolved: no-secrets is true)",
    ],
    ["or apply with --no-backup to delete it", "or set the no-backup input to delete it"],
    ["acme is outside the plan's --target", "acme is outside the targets input"],
    ["add --target acme/web first", "add acme/web to the targets input first"],
    ["raise the limit with --max-list-mb", "raise the limit with the max-list-mb input"],
    ["raise the limit with --max-response-mb", "raise the limit with the max-response-mb input"],
    [
      "The platform changed. Make the plan again with `forgeform plan`.",
      "The platform changed. Make the plan again (command plan with the plan-file input).",
    ],
    [
      "none of them is here (/w): a.yaml. Apply it from the folder the plan was made in",
      "none of them is here (/w): a.yaml. Set the working-directory input to the folder the plan was made in",
    ],
    ["a file: give --root a folder that holds both", "a file: give the root input a folder that holds both"],
    ["no token: pass --token-file <file> or --token <token>", "no token: set the token input"],
    ["no URL: pass --url <url> or set FORGEFORM_URL", "no URL: set the url input (or FORGEFORM_URL)"],
    ["check --ca-file <file> / FORGEFORM_CA_FILE", "check the ca-file input (or FORGEFORM_CA_FILE)"],
    [
      "FORGEFORM_TIMEOUT / --timeout must be a number",
      "the timeout input (or FORGEFORM_TIMEOUT) must be a number",
    ],
    ["--out <file> and --plan <file>", "the plan-file input and the plan-file input"],
    ["--unknown-flag stays, --color too", "--unknown-flag stays, --color too"],
    ["run it twice (insecureHttp: true) (insecureHttp: true)", "run it twice"],
  ];
  it.each(cases)("%j", (message, expected) => {
    expect(inActionTerms(message)).toBe(expected);
  });

  const flags: Record<string, string> = {
    url: "url",
    token: "token",
    "token-file": "token",
    target: "targets",
    "ca-file": "ca-file",
    "insecure-http": "insecure-http",
    timeout: "timeout",
    concurrency: "concurrency",
    "max-attempts": "max-attempts",
    "max-rate": "max-rate",
    "max-response-mb": "max-response-mb",
    "max-list-mb": "max-list-mb",
    "max-deletes": "max-deletes",
    replace: "replace",
    "no-secrets": "no-secrets",
    "changed-since": "changed-since",
    shard: "shard",
    "backup-dir": "backup-dir",
    "no-backup": "no-backup",
    "fail-on-unmanaged": "fail-on-unmanaged",
    plan: "plan-file",
    out: "plan-file",
  };
  it("names each flag by its input", () => {
    for (const [flag, input] of Object.entries(flags)) {
      expect(inActionTerms(`see --${flag}.`), flag).toBe(`see the ${input} input.`);
    }
  });
});

describe("tuningArgv", () => {
  it("stands for the command as the CLI's V8 settings read it: plan, drift and apply start small", () => {
    for (const [command, small] of [
      ["plan", true],
      [" Apply\n", true],
      ["drift", true],
      ["validate", false],
      ["", false],
    ] as const) {
      inputs({ command });
      expect(tuningArgv()[2], JSON.stringify(command)).toBe(command.trim().toLowerCase());
      expect(startsSmall(tuningArgv()), JSON.stringify(command)).toBe(small);
    }
  });
});
