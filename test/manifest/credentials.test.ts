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
