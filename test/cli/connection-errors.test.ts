/**
 * The connection options' errors as a user sees them (src/cli/connection.ts, and what the client says of --ca-file,
 * --insecure-http and proxies), run in-process: the exact message, exit 1, and never the token.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseRate, resolveConnection } from "../../src/cli/connection.js";
import { ADMIN_TOKEN, Bench, runCli } from "../integration/helpers.js";

let bench: Bench;
let dir: string;
beforeAll(async () => {
  bench = await Bench.start();
  dir = bench.dir;
  await bench.send("POST", "/groups", { name: "acme", path: "acme" });
  writeFileSync(join(dir, "empty-token"), " \n\n");
  writeFileSync(join(dir, "two-lines"), "first-line\nsecond-line\n");
  writeFileSync(join(dir, "not-pem"), "hello\n");
  mkdirSync(join(dir, "a-directory"));
});
afterAll(async () => {
  await bench.stop();
});

interface Refusal {
  name: string;
  args?: string[];
  env?: Record<string, string>;
  err: string;
}

const visible = "a token is one line of visible ASCII characters; check how it was stored or pasted";

describe("connection options refused before any request", () => {
  // Each row runs `export --group acme` against the sandbox (FORGEFORM_URL and FORGEFORM_TOKEN set unless the row
  // overrides them); `at` names files in the test's directory.
  it.each<Refusal>([
    {
      name: "a --token-file that does not exist",
      args: ["--token-file", "@/missing"],
      err: "cannot read --token-file @/missing (ENOENT): check the path and its permissions",
    },
    {
      name: "a --token-file that is a directory",
      args: ["--token-file", "@/a-directory"],
      err: "--token-file @/a-directory is a directory, not a regular file: it should be a file holding the access token",
    },
    {
      name: "a --token-file holding only blanks",
      args: ["--token-file", "@/empty-token"],
      err: "--token-file @/empty-token is empty: it should hold the access token",
    },
    {
      name: "a --token-file of two lines",
      args: ["--token-file", "@/two-lines"],
      err: `the token from --token-file @/two-lines holds a line break (more than one line): ${visible}`,
    },
    {
      name: "a --token with a tab",
      args: ["--token", "sec\tret"],
      err: `the token from --token holds a control character: ${visible}`,
    },
    {
      name: "a --token with a space",
      args: ["--token", "sec ret"],
      err: `the token from --token holds a space or a character that is not ASCII: ${visible}`,
    },
    {
      name: "a --token with a letter that is not ASCII",
      args: ["--token", "sécret"],
      err: `the token from --token holds a space or a character that is not ASCII: ${visible}`,
    },
    {
      name: "FORGEFORM_TOKEN with DEL (0x7f)",
      env: { FORGEFORM_TOKEN: "sec\u007fret" },
      err: `the token from FORGEFORM_TOKEN holds a control character: ${visible}`,
    },
    {
      name: "FORGEFORM_SCIM_TOKEN with a space",
      env: { FORGEFORM_SCIM_TOKEN: "scim secret" },
      err: `the token from FORGEFORM_SCIM_TOKEN holds a space or a character that is not ASCII: ${visible}`,
    },
    {
      name: "both --token and --token-file",
      args: ["--token", "secret", "--token-file", "@/two-lines"],
      err: "--token and --token-file both given: pass only one of them",
    },
    {
      name: "no URL",
      env: { FORGEFORM_URL: " " },
      err: "no platform URL: pass --url <url> or set FORGEFORM_URL (e.g. https://gitlab.example.com)",
    },
    {
      name: "no token",
      env: { FORGEFORM_TOKEN: "" },
      err: "no access token: pass --token-file <file> or --token <token>, or set FORGEFORM_TOKEN",
    },
    {
      name: "a --ca-file that does not exist",
      args: ["--ca-file", "@/missing.pem"],
      err: "cannot read the CA file @/missing.pem (ENOENT): check --ca-file",
    },
    {
      name: "a --ca-file that is a directory",
      args: ["--ca-file", "@/a-directory"],
      err: "cannot read the CA file @/a-directory (EISDIR): check --ca-file",
    },
    {
      name: "a --ca-file without a PEM certificate",
      args: ["--ca-file", "@/not-pem"],
      err: "the CA file @/not-pem holds no PEM certificate (no -----BEGIN CERTIFICATE----- block): pass the CA certificate in PEM form with --ca-file (convert a DER file with: openssl x509 -inform der -in ca.der -out ca.pem)",
    },
    {
      name: "plain http:// to a host that is not loopback",
      args: ["--url", "http://code.example.com"],
      err: "refusing plain http:// to code.example.com: the token would cross the network unencrypted. Use https://, or pass --insecure-http (insecureHttp: true) if you accept that risk.",
    },
    {
      name: "a malformed HTTPS_PROXY, its credentials hidden",
      args: ["--url", "https://code.example.com"],
      env: { HTTPS_PROXY: "http://user:pr0xy-pass@[proxy:3128" },
      err: "HTTPS_PROXY (http://***@[proxy:3128) is not a proxy URL forgeform can use: it is not a valid URL. Write it as http://host:port (http://user:password@host:port with credentials), or unset it",
    },
    {
      name: "an HTTP_PROXY that is not http or https",
      args: ["--url", "http://code.example.com", "--insecure-http"],
      env: { HTTP_PROXY: "ftp://proxy:21" },
      err: "HTTP_PROXY (ftp://proxy:21) is not a proxy URL forgeform can use: its scheme is ftp, and only http and https proxies are supported. Write it as http://host:port (http://user:password@host:port with credentials), or unset it",
    },
  ])("$name", async ({ args = [], env = {}, err }) => {
    const at = (text: string) => text.replaceAll("@/", `${dir}/`);
    const out = join(dir, "never");
    const run = await bench.cli(["export", "--group", "acme", "--out", out, ...args.map(at)], env);
    // The whole message is known: no token, password or token file line is in it.
    expect(run).toEqual({ code: 1, out: "", err: `forgeform: ${at(err)}\n` });
  });
});

describe("connection options taken", () => {
  it("sends plain http:// to a host that is not loopback with --insecure-http", async () => {
    // 0.0.0.0 is not a loopback name, and reaches the sandbox on 127.0.0.1.
    const url = bench.sandbox.url.replace("127.0.0.1", "0.0.0.0");
    const out = join(dir, "insecure");
    const run = await runCli(["export", "--group", "acme", "--out", out, "--url", url, "--insecure-http"], {
      FORGEFORM_TOKEN: ADMIN_TOKEN,
    });
    expect(run).toEqual({ code: 0, out: `Wrote ${join(out, "acme.yaml")}\n`, err: "" });
  });

  it("takes a --max-rate too small for plain decimal notation as given", async () => {
    // Invalid manifests stop drift before any request, so the rate is only parsed.
    const manifest = join(dir, "bad.yaml");
    writeFileSync(manifest, "version: 1\ngroups:\n  acme:\n    bogus: 1\n");
    const run = await bench.cli(["drift", "--max-rate", "0.0000001/min", manifest]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^.*bad\.yaml:4:5: groups\.acme\.bogus: unknown key "bogus".*\n1 error: nothing was sent to the platform\.\n$/,
    );
    expect(resolveConnection({ url: "https://a.example", token: "t", maxRate: 1e-7 }).maxRatePerMinute).toBe(
      1e-7,
    );
  });

  it("reads a token of every visible ASCII character, from ! (0x21) to ~ (0x7e)", () => {
    const token = "!azAZ09-_~";
    expect(resolveConnection({ url: "https://a.example", token }).token).toBe(token);
  });

  it("reads --max-rate with decimals and blanks around it", () => {
    expect(parseRate("--max-rate")(" 1.25/s ")).toBe(75);
    expect(parseRate("--max-rate")("2.5")).toBe(2.5);
    expect(parseRate("--max-rate")("90/h")).toBe(1.5);
    for (const bad of ["1./s", "1.x", ".5"]) {
      expect(() => parseRate("--max-rate")(bad), bad).toThrow(
        `--max-rate needs requests per minute, second or hour above 0, e.g. 600/min, 10/s or 7200/h; got "${bad}"`,
      );
    }
  });

  it("writes --debug lines to standard error when no other place is given", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const options = resolveConnection({ url: "https://a.example", token: "t", debug: true });
      options.debug?.("GET /api/v4/version -> 200 (1 ms)");
      expect(write).toHaveBeenCalledWith("GET /api/v4/version -> 200 (1 ms)\n");
    } finally {
      write.mockRestore();
    }
  });
});
