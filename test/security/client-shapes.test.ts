/**
 * Hostile-server probes of what each read relies on: a list where one object was expected, an answer nested deep
 * enough to exhaust the stack, and fields of the wrong type inside nested lists and objects all end in an error
 * that names the request and the field, never in a TypeError or a diff built on nonsense.
 */
import { describe, expect, it } from "vitest";
import { json } from "../api/server.js";
import { manifest, probes, prose, TRIGGER_MANIFEST } from "./hostile-server.js";

const GROUP_MANIFEST = "version: 1\ngroups:\n  acme:\n    description: Acme\n";
const GROUP = {
  id: 7,
  full_path: "acme",
  path: "acme",
  name: "acme",
  description: "Acme",
  visibility: "private",
};

const ENVIRONMENT_MANIFEST = `version: 1
projects:
  acme/api:
    protected_environments:
      - name: production
        deploy_access_levels: [{ access_level: 40 }]
`;

const SCHEDULE_MANIFEST = `version: 1
projects:
  acme/api:
    pipeline_schedules:
      - description: nightly
        ref: main
        cron: "0 1 * * *"
        variables:
          - { key: FLAVOUR, value: debug }
`;
const SCHEDULE = {
  id: 1,
  description: "nightly",
  ref: "main",
  cron: "0 1 * * *",
  cron_timezone: "UTC",
  active: true,
  owner: { username: "root" },
  variables: [{ key: "FLAVOUR", value: "debug", variable_type: "env_var" }],
};

const { start } = probes();

/** The CLI's output for a plan against a server that answers `route` with `body`. */
async function planAgainst(route: string, body: unknown, manifestText: string, extra = {}) {
  const p = await start({ [route]: (_req, res) => json(res, 200, body), ...extra });
  const result = await p.cli(["plan", manifest(manifestText)]);
  return { code: result.code, text: prose(result.out + result.err) };
}

describe("an answer must be what the read expects", () => {
  it.each([
    ["an empty list", []],
    ["a list holding the group", [GROUP]],
  ])("a group read answered with %s is an error naming the request", async (_, body) => {
    const { code, text } = await planAgainst("GET /groups/acme", body, GROUP_MANIFEST);
    expect(code).toBe(1);
    expect(text).toMatch(
      /GET \/groups\/acme -> 200 OK: an array \(\[.*\) came back where an object was expected/,
    );
    expect(text).not.toContain("Cannot read properties");
  });

  it("a version answered with a list is an error, not an edition guessed from nothing", async () => {
    const p = await start({ "GET /version": (_req, res) => json(res, 200, []) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      "forgeform: GET /version -> 200 OK: an array ([]) came back where an object was expected\n",
    );
  });
});

describe("answers nested too deeply", () => {
  it("a description nested 5,000 levels deep is an error naming the request, not a stack overflow", async () => {
    const deep = `{"id":7,"full_path":"acme","path":"acme","name":"acme","visibility":"private","description":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const p = await start({
      "GET /groups/acme": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(deep);
      },
    });
    const result = await p.cli(["plan", manifest(GROUP_MANIFEST)]);
    expect(result.code).toBe(1);
    const text = prose(result.out + result.err);
    expect(text).toContain(
      "GET /groups/acme -> 200 OK: the JSON answer nests deeper than 100 levels, which the platform never sends",
    );
    expect(text).not.toContain("Maximum call stack");
  });

  it("an error answer nested that deep is quoted as text, not walked", async () => {
    const p = await start({
      "GET /groups/acme": (_req, res) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(`{"message":${"[".repeat(20_000)}${"]".repeat(20_000)}}`);
      },
    });
    const result = await p.cli(["plan", "--max-attempts", "1", manifest(GROUP_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out + result.err)).toContain("GET /groups/acme -> 500 Internal Server Error");
    expect(result.out + result.err).not.toContain("Maximum call stack");
  });
});

describe("fields of the wrong type, nested ones included", () => {
  it.each([
    ["a deployer that is null", [null], '"deploy_access_levels[0]" is null (null), not an object'],
    [
      "a deployer id that is text",
      [{ user_id: "5" }],
      '"deploy_access_levels[0].user_id" is a string ("5"), not an integer',
    ],
    [
      "deployers that are not a list",
      { access_level: 40 },
      '"deploy_access_levels" is an object ({"access_level":40}), not a list',
    ],
  ])("protected environments: %s", async (_, levels, field) => {
    const { code, text } = await planAgainst(
      "GET /projects/acme/api/protected_environments",
      [{ name: "production", deploy_access_levels: levels }],
      ENVIRONMENT_MANIFEST,
    );
    expect(code).toBe(1);
    expect(text).toContain(
      `GET /projects/acme%2Fapi/protected_environments -> 200 OK: page 1, item 1: the field ${field}`,
    );
    expect(text).not.toContain("Cannot read properties");
  });

  it.each([
    ["a variable that is text", { variables: ["x"] }, '"variables[0]" is a string ("x"), not an object'],
    [
      "a variable key that is a number",
      { variables: [{ key: 5, value: "v" }] },
      '"variables[0].key" is an integer (5), not a string',
    ],
    ["a cron that is a number", { cron: 5 }, '"cron" is an integer (5), not a string'],
    [
      "a time zone that is an object",
      { cron_timezone: {} },
      '"cron_timezone" is an object ({}), not a string',
    ],
    ["active that is text", { active: "yes" }, '"active" is a string ("yes"), not a boolean'],
    ["an owner without a name", { owner: { id: 1 } }, '"owner.username" is missing (a string was expected)'],
  ])("pipeline schedules: %s", async (_, change, field) => {
    const broken = { ...SCHEDULE, ...change };
    const p = await start({
      "GET /projects/acme/api/pipeline_schedules": (_req, res) =>
        json(res, 200, [{ ...SCHEDULE, variables: undefined }]),
      "GET /projects/acme/api/pipeline_schedules/1": (_req, res) => json(res, 200, broken),
    });
    const result = await p.cli(["plan", manifest(SCHEDULE_MANIFEST)]);
    expect(result.code).toBe(1);
    const text = prose(result.out + result.err);
    expect(text).toContain("GET /projects/acme%2Fapi/pipeline_schedules");
    expect(text).toContain(`the field ${field}`);
    expect(text).not.toContain("variable[undefined]");
  });

  it.each([
    ["a description that is a number", { description: 5 }, '"description" is an integer (5), not a string'],
    [
      "a visibility that is an object",
      { visibility: { level: 0 } },
      '"visibility" is an object ({"level":0}), not a string',
    ],
  ])("groups: %s is an error, not a change to plan", async (_, change, field) => {
    const { code, text } = await planAgainst("GET /groups/acme", { ...GROUP, ...change }, GROUP_MANIFEST);
    expect(code).toBe(1);
    expect(text).toContain(`GET /groups/acme -> 200 OK: the field ${field}`);
    expect(text).not.toContain("to change");
  });
});
