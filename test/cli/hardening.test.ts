/**
 * Hardening of what the CLI reads, as a user runs it (the built CLI in a child process; npm test builds lib/ first):
 * manifest files that are not regular files or lead out of the root, aliases bounded by what they expand to, whole
 * numbers no field takes, paths the platform cannot have, and the messages around them (aliases, merge keys,
 * templates, access levels, proxies, tokens, merged reports, counts).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";

const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/forgeform.js");
const TOKEN = "hardening-admin-token";

interface Run {
  /** The exit code, or -1 when the run was killed (it did not finish within its time). */
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI in `cwd` without blocking this process (which may serve the sandbox it talks to). A run that
 * does not finish within `killAfterMs` is killed: a CLI that hangs on a FIFO fails its test instead of the suite.
 */
function cli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  killAfterMs = 25_000,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1", ...env },
      cwd,
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ status: code ?? -1, stdout, stderr });
    });
  });
}

const workspace = () => mkdtempSync(join(tmpdir(), "forgeform-hardening-"));

beforeAll(() => {
  if (!existsSync(join(ROOT, "lib/cli/index.js")))
    throw new Error("lib/ is not built: npm test builds it first");
});

describe("manifest files that are not regular files inside the root", () => {
  it("refuses a manifest that is a link to /dev/zero, without reading it", async () => {
    const dir = workspace();
    mkdirSync(join(dir, "manifests"));
    symlinkSync("/dev/zero", join(dir, "manifests/evil.yaml"));
    const run = await cli(["validate", "manifests/evil.yaml"], dir);
    expect(run.stdout).toBe(
      "manifests/evil.yaml:1:1: the file leads outside the manifest root manifests (to /dev/zero) through a symbolic link: forgeform reads manifests only inside it\n1 error: the manifests are invalid\n",
    );
    expect(run.status).toBe(1);
  });

  it("refuses a FIFO (named pipe) instead of waiting on it for ever, also through a link", async () => {
    const dir = workspace();
    execFileSync("mkfifo", [join(dir, "pipe.yaml")]);
    symlinkSync("pipe.yaml", join(dir, "linked.yaml"));
    for (const name of ["pipe.yaml", "linked.yaml"]) {
      const run = await cli(["validate", name], dir);
      expect(run.stdout).toBe(
        `${name}:1:1: the file is a FIFO (named pipe), not a regular file: manifests are read from regular files only\n1 error: the manifests are invalid\n`,
      );
      expect(run.status).toBe(1);
    }
  });

  it("refuses a manifest linked from outside the root, and reads one linked from inside it", async () => {
    const outside = workspace();
    writeFileSync(join(outside, "other.yaml"), "version: 1\ngroups:\n  outsider: {}\n");
    const dir = workspace();
    mkdirSync(join(dir, "manifests"));
    writeFileSync(join(dir, "manifests/real.yaml"), "version: 1\ngroups:\n  acme: {}\n");
    symlinkSync(join(outside, "other.yaml"), join(dir, "manifests/other.yaml"));
    symlinkSync("real.yaml", join(dir, "manifests/alias.yaml"));
    const refused = await cli(["validate", "manifests/other.yaml"], dir);
    expect(refused.stdout).toContain(
      "manifests/other.yaml:1:1: the file leads outside the manifest root manifests (to ",
    );
    expect(refused.status).toBe(1);
    const read = await cli(["validate", "manifests/alias.yaml"], dir);
    expect(read.stdout).toBe("1 file valid\n");
    expect(read.status).toBe(0);
  });
});

describe("aliases, bounded by what they expand to", () => {
  it("refuses a map of 10,000 keys aliased 99 times at the alias that passes the bound", async () => {
    const dir = workspace();
    const keys = Array.from({ length: 10_000 }, (_, i) => `  k${i}: v`).join("\n");
    const aliases = Array.from({ length: 99 }, (_, i) => `  a${i}: *big`).join("\n");
    writeFileSync(join(dir, "wide.yaml"), `version: 1\nx: &big\n${keys}\ny:\n${aliases}\n`);
    const run = await cli(["validate", "wide.yaml"], dir);
    // Each alias stands for 20,001 values, 20,000 more than it is: the 51st takes what aliases add past 1,000,000.
    expect(run.stdout).toBe(
      "wide.yaml:10054:8: *big stands for 20,001 values, and with it aliases add more than 1,000,000 values to this document (keys, scalars, maps and lists, every expansion counted), the most forgeform reads: share what repeats with a template (extends:) or a pattern entry instead\n1 error: the manifests are invalid\n",
    );
    expect(run.status).toBe(1);
  });

  it("reads many aliases of a small value: what counts is what they expand to", async () => {
    const dir = workspace();
    const groups = Array.from({ length: 500 }, (_, i) => `  acme/team${i}: *team`).join("\n");
    writeFileSync(
      join(dir, "teams.yaml"),
      `version: 1\ngroups:\n  acme: &team\n    visibility: private\n    request_access_enabled: false\n${groups}\n`,
    );
    const run = await cli(["validate", "teams.yaml"], dir);
    expect(run.stdout).toBe("1 file valid\n");
    expect(run.status).toBe(0);
  });
});

describe("validate", () => {
  it("refuses whole numbers beyond a field's range, and beyond what can be sent exactly", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, "m.yaml"),
      "version: 1\ngroups:\n  acme:\n    two_factor_grace_period: 99999999999999999999999\ninstance:\n  application_settings:\n    polling_interval_multiplier: 99999999999999999999\n",
    );
    const run = await cli(["validate", "m.yaml"], dir);
    expect(run.stdout).toBe(
      [
        "m.yaml:4:30: groups.acme.two_factor_grace_period: 99999999999999999999999 is out of range: must be from 0 to 2147483647",
        "m.yaml:7:34: instance.application_settings.polling_interval_multiplier: 99999999999999999999 is beyond the whole numbers any field takes: it would be sent as 100000000000000000000, not as written (whole numbers are exact only from -9007199254740991 to 9007199254740991); write the number the field needs",
        "2 errors: the manifests are invalid",
        "",
      ].join("\n"),
    );
    expect(run.status).toBe(1);
  });

  it("refuses paths the platform cannot have: dot segments, a trailing dot, .git", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, "m.yaml"),
      'version: 1\ngroups:\n  "..": {}\n  sec.: {}\n  "sec/..": {}\n  "acme/**":\n    except: [acme/legacy.git]\nprojects:\n  "../../**": {}\n',
    );
    const run = await cli(["validate", "m.yaml"], dir);
    const rule =
      'each segment has only letters, digits, "_", "-" and ".", and does not start with "-" or end in ".", ".git" or ".atom"';
    expect(run.stdout).toBe(
      [
        `m.yaml:3:3: groups[".."]: ".." is not a path the platform allows: it is a dot segment, which would name another path in a URL; ${rule}`,
        `m.yaml:4:3: groups["sec."]: "sec." is not a path the platform allows: it ends in "."; ${rule}`,
        `m.yaml:5:3: groups["sec/.."]: "sec/.." is not a path the platform allows: its segment ".." is a dot segment, which would name another path in a URL; ${rule}`,
        `m.yaml:7:14: groups["acme/**"].except[0]: "acme/legacy.git" is not a path the platform allows: its segment "legacy.git" ends in ".git"; ${rule}`,
        `m.yaml:9:3: projects["../../**"]: the root of the pattern "../../**": "../.." is not a path the platform allows: its segment ".." is a dot segment, which would name another path in a URL; ${rule}`,
        "5 errors: the manifests are invalid",
        "",
      ].join("\n"),
    );
    expect(run.status).toBe(1);
  });

  it("says where an alias names no anchor, and that templates are named without *", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, "m.yaml"),
      "version: 1\ntemplates:\n  base:\n    description: shared\ngroups:\n  acme:\n    extends: *base\n",
    );
    const run = await cli(["validate", "m.yaml"], dir);
    expect(run.stdout).toBe(
      "m.yaml:7:14: *base refers to no anchor: an alias names an anchor (&base) set on a value above it in the same document; templates are named without *: extends: [base]\n1 error: the manifests are invalid\n",
    );
    expect(run.status).toBe(1);
  });

  it("says that a << merge key is not YAML 1.2, and what to use instead", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, "m.yaml"),
      "version: 1\ngroups:\n  acme: &defaults\n    visibility: private\n  acme/web:\n    <<: *defaults\n",
    );
    const run = await cli(["validate", "m.yaml"], dir);
    expect(run.stdout).toBe(
      "m.yaml:6:5: `<<` merge keys are YAML 1.1, not part of the YAML 1.2 forgeform reads: nothing would be merged. Put the shared keys in a template and name it in `extends:`, or write them out\n1 error: the manifests are invalid\n",
    );
    expect(run.status).toBe(1);
  });

  it("does not call a template unused when the file that may use it could not be read", async () => {
    const dir = workspace();
    writeFileSync(join(dir, "templates.yaml"), "version: 1\ntemplates:\n  base: { description: x }\n");
    writeFileSync(join(dir, "groups.yaml"), "version: 1\ngroups:\n  acme:\n    extends: [base]\n  x: [\n");
    const run = await cli(["validate", "templates.yaml", "groups.yaml"], dir);
    expect(run.stdout).toBe(
      "groups.yaml:6:1: YAML: Flow sequence in block collection must be sufficiently indented and end with a ]\n1 error: the manifests are invalid\n",
    );
    expect(run.status).toBe(1);
  });

  it("takes access levels by name, and suggests the name a misspelt one is closest to", async () => {
    const dir = workspace();
    const manifest = (level: string) =>
      `version: 1\nprojects:\n  acme/api:\n    protected_environments:\n      - name: production\n        deploy_access_levels:\n          - access_level: ${level}\n`;
    writeFileSync(join(dir, "good.yaml"), manifest("developer"));
    expect((await cli(["validate", "good.yaml"], dir)).status).toBe(0);
    writeFileSync(join(dir, "m.yaml"), manifest("develper"));
    const run = await cli(["validate", "m.yaml"], dir);
    expect(run.stdout).toBe(
      'm.yaml:7:27: projects["acme/api"].protected_environments[0].deploy_access_levels[0].access_level: "develper" is not an access level: write developer (30), maintainer (40) or admin (60), by name or number; did you mean "developer"?\n1 error: the manifests are invalid\n',
    );
    expect(run.status).toBe(1);
  });
});

describe("against a platform", () => {
  let sandbox: RunningSandbox;
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: { groups: [{ path: "acme" }, { path: "acme/old" }] },
    });
    dir = workspace();
    writeFileSync(
      join(dir, "m.yaml"),
      'version: 1\ngroups:\n  "acme/**":\n    request_access_enabled: false\n',
    );
    writeFileSync(join(dir, "prune.yaml"), "version: 1\ngroups:\n  acme/old:\n    state: absent\n");
  });
  afterAll(async () => {
    await sandbox.stop();
  });
  const env = () => ({ FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: TOKEN });

  it("refuses a --target the platform cannot have before sending any request", async () => {
    const run = await cli(["plan", "--debug", "--target", "acme/..", "m.yaml"], dir, env());
    expect(run.stderr).toContain(
      'forgeform: --target "acme/..": "acme/.." is not a path the platform allows: its segment ".." is a dot segment, which would name another path in a URL',
    );
    expect(run.stderr).not.toMatch(/^GET /m);
    expect(run.status).toBe(1);
  });

  it("counts one object as one object when refusing a plan over --max-deletes", async () => {
    const run = await cli(["apply", "--yes", "--max-deletes", "0", "prune.yaml"], dir, env());
    expect(run.stderr).toContain(
      "forgeform: refusing to apply: the plan deletes or replaces 1 object, more than --max-deletes 0. Nothing was applied.",
    );
    expect(run.status).toBe(1);
  });

  it("refuses a token holding a line break before any request, without showing it", async () => {
    const run = await cli(["plan", "--debug", "m.yaml"], dir, {
      FORGEFORM_URL: sandbox.url,
      FORGEFORM_TOKEN: `${TOKEN}\r\nX-Injected: 1`,
    });
    expect(run.stderr).toBe(
      "forgeform: the token from FORGEFORM_TOKEN holds a line break (more than one line): a token is one line of visible ASCII characters; check how it was stored or pasted\n",
    );
    expect(run.status).toBe(1);
  });
});

describe("proxies", () => {
  let closedPort: number;
  let refusing: Server;
  let refusingUrl: string;
  let dir: string;
  beforeAll(async () => {
    dir = workspace();
    writeFileSync(join(dir, "m.yaml"), "version: 1\ngroups:\n  acme: {}\n");
    // A port nothing listens on any more: a proxy that refuses connections.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    // A proxy that turns the tunnel down: it wants credentials.
    refusing = createServer((_req, res) => res.writeHead(405).end());
    refusing.on("connect", (_req, socket) => {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n");
    });
    await new Promise<void>((r) => refusing.listen(0, "127.0.0.1", r));
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    refusing.closeAllConnections();
    await new Promise((r) => refusing.close(r));
  });
  const base = { FORGEFORM_URL: "https://code.example.com", FORGEFORM_TOKEN: TOKEN };

  it("names a malformed HTTPS_PROXY and how to write it, hiding its credentials", async () => {
    const run = await cli(["plan", "m.yaml"], dir, {
      ...base,
      HTTPS_PROXY: "http://user:s3cret@[proxy:3128",
    });
    expect(run.stderr).toBe(
      "forgeform: HTTPS_PROXY (http://***@[proxy:3128) is not a proxy URL forgeform can use: it is not a valid URL. Write it as http://host:port (http://user:password@host:port with credentials), or unset it\n",
    );
    expect(run.status).toBe(1);
  });

  it("blames a proxy that refuses the connection on the proxy, not on the platform's URL", async () => {
    const proxy = `http://127.0.0.1:${closedPort}`;
    const run = await cli(["plan", "--max-attempts", "1", "m.yaml"], dir, { ...base, HTTPS_PROXY: proxy });
    expect(run.stderr).toBe(
      `forgeform: GET /version -> the proxy ${proxy} (HTTPS_PROXY) refused the connection: check that it is up and that HTTPS_PROXY is right (ECONNREFUSED)\n`,
    );
    expect(run.status).toBe(1);
  });

  it("says what a proxy that turns the tunnel down wants", async () => {
    const run = await cli(["plan", "--max-attempts", "1", "m.yaml"], dir, {
      ...base,
      https_proxy: refusingUrl,
    });
    expect(run.stderr).toBe(
      `forgeform: GET /version -> the proxy ${refusingUrl} (HTTPS_PROXY) answered 407 to the request for a tunnel to the platform: it wants credentials: give them in HTTPS_PROXY (http://user:password@host:port)\n`,
    );
    expect(run.status).toBe(1);
  });
});

describe("report merge", () => {
  it("refuses a report nested deeper than any forgeform writes, instead of running out of stack", async () => {
    const dir = workspace();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    writeFileSync(
      join(dir, "deep.json"),
      `{"format_version":1,"kind":"drift","url":"https://x.example.com","manifests":[],"targets":[],"items":[{"address":"group[\\"a\\"]","action":"update","collection":"groups","key":"a","fields":[{"field":"description","live":${deep},"declared":"x"}]}],"errors":[],"warnings":[],"requests":{"total":1,"retries":0,"by_endpoint":{}}}`,
    );
    const run = await cli(["report", "merge", "deep.json"], dir);
    expect(run.stderr).toBe(
      "forgeform: deep.json nests deeper than 216 levels, which no drift report forgeform writes does: it is not one (drift --format json)\n",
    );
    expect(run.status).toBe(1);
  });
});
