/**
 * src/kinds/deploy-key.ts: a key is identified by its fingerprint, as the platform shows it (`SHA256:` and the
 * unpadded base64 of the digest of the key's blob), whatever the spacing and the comment around the blob.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/kinds/deploy-key.js";

const BLOB = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
const expected = `SHA256:${createHash("sha256").update(Buffer.from(BLOB, "base64")).digest("base64").replace(/=+$/, "")}`;

describe("fingerprint", () => {
  it("is the digest of the blob, unpadded, whatever the spacing, the comment or the blank lines around it", () => {
    expect(fingerprint(`ssh-ed25519 ${BLOB}`)).toBe(expected);
    expect(expected).not.toMatch(/=$/);
    expect(fingerprint(`ssh-ed25519 ${BLOB} ops@example.com`)).toBe(expected);
    expect(fingerprint(`ssh-ed25519   ${BLOB}\tops@example.com`)).toBe(expected);
    expect(fingerprint(`\n  ssh-ed25519 ${BLOB}\n`)).toBe(expected);
  });

  it("says a text without a blob is not a key, and never shows the text", () => {
    expect(fingerprint("ssh-ed25519")).toBe("invalid key");
    expect(fingerprint("   ")).toBe("invalid key");
  });
});
