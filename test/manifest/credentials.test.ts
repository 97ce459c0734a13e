/** Credentials in URLs, which export turns into references: what counts as one, and what is left as written. */
import { describe, expect, it } from "vitest";
import {
  findCredentials,
  isSecretName,
  isSecretParameter,
  looksLikeCredential,
  maskCredentials,
} from "../../src/manifest/credentials.js";

describe("credentials in URLs", () => {
  it("are the values of parameters whose names say secret, as whole words or parts of words that only mean that", () => {
    for (const name of [
      "key",
      "api_key",
      "apiKey",
      "X-Amz-Signature",
      "private_token",
      "access-token",
      "password",
      "secret",
      "client_secret",
      "sig",
      "pwd",
      "auth",
      "X-Amz-Credential",
      "tokens",
      "session",
      "api%5Fkey",
    ])
      expect(isSecretParameter(name), name).toBe(true);
    for (const name of [
      "monkey",
      "keyboard",
      "ref",
      "page",
      "design",
      "author",
      "passage",
      "id",
      "sort",
      "compass",
    ])
      expect(isSecretParameter(name), name).toBe(false);
  });

  it("mask the password of user:pass@ and secret parameters, and leave the rest as written", () => {
    expect(maskCredentials("https://u:p4ss@h.example/x?key=abc&ref=main#key=frag")).toBe(
      "https://u:(sensitive)@h.example/x?key=(sensitive)&ref=main#key=frag",
    );
    // A user without a password, an empty value, a parameter without a value: nothing to hide.
    expect(maskCredentials("https://git@h.example/?key=&token")).toBe("https://git@h.example/?key=&token");
    // An @ in the path is not userinfo.
    expect(maskCredentials("https://h.example/a:b@c")).toBe("https://h.example/a:b@c");
    // Every URL in a text, none outside one.
    expect(maskCredentials("see https://a.example/?token=t1 and ftp://x:y@b.example, key=plain")).toBe(
      "see https://a.example/?token=(sensitive) and ftp://x:(sensitive)@b.example, key=plain",
    );
  });

  it("say where each one is and what it is called", () => {
    const text = "https://h.example/?a=1&secret=s3&key=k";
    expect(findCredentials(text).map((c) => [text.slice(c.start, c.end), c.label])).toEqual([
      ["s3", "secret"],
      ["k", "key"],
    ]);
    expect(findCredentials("no url here key=abc")).toEqual([]);
  });
});

describe("credentials guessed in live URLs (guess)", () => {
  const guessed = (text: string) => maskCredentials(text, { guess: true });

  it("mask a part that looks random whatever it is named: a path segment, a query value, a token as user name", () => {
    // A Slack incoming webhook: the last segment is the secret, the two ids before it are not.
    expect(guessed("https://hooks.slack.com/services/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")).toBe(
      "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/(sensitive)",
    );
    // A Mattermost hook's id (lower-case letters and digits), a UUID, a hex digest.
    expect(guessed("https://chat.example.com/hooks/x1c7m3ybqfrs5ej8wnzt4ku9oa")).toBe(
      "https://chat.example.com/hooks/(sensitive)",
    );
    expect(guessed("https://webhook.example/550e8400-e29b-41d4-a716-446655440000?x=1")).toBe(
      "https://webhook.example/(sensitive)?x=1",
    );
    expect(guessed("https://h.example/n?c=9f86d081884c7d659a2feaa0c55ad015&page=2")).toBe(
      "https://h.example/n?c=(sensitive)&page=2",
    );
    expect(guessed("https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@git.example/r")).toBe(
      "https://(sensitive)@git.example/r",
    );
    // Sixteen letters and digits: a run (fifteen are not, below).
    expect(guessed("https://h.example/a1b2c3d4e5f6g7h8")).toBe("https://h.example/(sensitive)");
    // A well-known format in a path.
    expect(guessed("https://h.example/glpat-abcdefgh12345678/x")).toBe("https://h.example/(sensitive)/x");
    // And what names say, as without guessing.
    expect(guessed("https://u:p@h.example/?token=t")).toBe(
      "https://u:(sensitive)@h.example/?token=(sensitive)",
    );
  });

  it("leave words, dates, versions, ids and repeated characters as written", () => {
    for (const url of [
      "https://ci.example.com/project/notifications/pipeline-events",
      "https://h.example/builds/build-2021-06-01-nightly/v1.2.3",
      "https://h.example/api/v4/projects/123456789/trigger/pipeline?ref=main&page=20",
      "https://h.example/aaaa1111aaaa1111aaaa/ABCDEFGHIJKLMNOPQRSTUV",
      "https://h.example/documentation/administration-guide#section-2021",
      // Fifteen letters and digits: one short of a run.
      "https://h.example/a1b2c3d4e5f6g7h",
    ])
      expect(guessed(url), url).toBe(url);
    // Without guess, a random part under a neutral name is left as written.
    expect(maskCredentials("https://hooks.slack.com/services/T0/B0/vKtqA7yPw3kT0JH2XeLqYz9B")).toBe(
      "https://hooks.slack.com/services/T0/B0/vKtqA7yPw3kT0JH2XeLqYz9B",
    );
  });

  it("say where each one is: the segment or value as written, its label", () => {
    const text = "https://h.example/s/vKtqA7yPw3kT0JH2XeLqYz9B?c=9f86d081884c7d659a2feaa0c55ad015#x";
    expect(findCredentials(text, { guess: true }).map((c) => [text.slice(c.start, c.end), c.label])).toEqual([
      ["vKtqA7yPw3kT0JH2XeLqYz9B", "secret"],
      ["9f86d081884c7d659a2feaa0c55ad015", "c"],
    ]);
    // A fragment is not a query: `#a?key=x` holds no parameter.
    expect(findCredentials("https://h.example/p#a?key=x")).toEqual([]);
  });
});

describe("secrets by name and by format", () => {
  it("names like a secret's: variables and settings", () => {
    for (const name of [
      "DEPLOY_TOKEN",
      "DB_PASSWORD",
      "external_auth_client_key",
      "AWS_SECRET_ACCESS_KEY",
      "NPM_AUTH",
      "DB_PASSWORD#production",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ["BUILD_TYPE", "MODE", "searchengine_url", "MONKEY", "KEYBOARD_LAYOUT"])
      expect(isSecretName(name), name).toBe(false);
    // In doubt, a secret: a reference costs a variable to set, a value in git cannot be taken back.
    expect(isSecretName("TOKENIZER_MODE")).toBe(true);
  });

  it("values in a credential's well-known format, whatever their name", () => {
    for (const value of [
      "glpat-abcdefghij0123456789",
      "token ghp_abcdefghijklmnopqrstuvwxyz0123",
      "AKIAABCDEFGHIJKLMNOP",
      "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
      "xoxb-1234567890-abcdef",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
    ])
      expect(looksLikeCredential(value), value).toBe(true);
    for (const value of [
      "nightly",
      "glpat-",
      "ghp_short",
      "AKIA1234",
      "-----BEGIN PUBLIC KEY-----",
      "https://example.com",
    ])
      expect(looksLikeCredential(value), value).toBe(false);
  });
});
