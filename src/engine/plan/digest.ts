/** The live digest a plan carries: a saved plan is refused when the live objects it saw have changed since. */
import { createHash } from "node:crypto";

/** Bytes of a SHA-256. */
const DIGEST_BYTES = 32;
/** Digests in each of LiveSeen's buffers (64 KiB). */
const BLOCK = 2048;

/**
 * The live objects a plan saw: each one's address and the SHA-256 of its fields as the plan may show them (masked,
 * as JSON), which the plan's live digest is made of. A plan in chunks keeps every chunk's to its end, so they are
 * kept as the addresses and the raw digests in 64 KiB buffers: about 36 bytes an object, where a pair of strings
 * (the digest in base64) took about 110 (6.5 MB of the 16x benchmark's 59,000 objects).
 */
export class LiveSeen {
  readonly #addresses: string[] = [];
  readonly #blocks: Buffer[] = [];

  /** Objects recorded. */
  get size(): number {
    return this.#addresses.length;
  }

  /** Records a live object: its address and its masked fields as JSON. */
  add(address: string, fields: string): void {
    this.#push(address, createHash("sha256").update(fields).digest());
  }

  /** Every object of `parts`, in their order (the chunks of one plan). */
  static of(parts: readonly LiveSeen[]): LiveSeen {
    const all = new LiveSeen();
    for (const part of parts)
      for (let i = 0; i < part.size; i++) all.#push(part.#addresses[i]!, part.#digestOf(i));
    return all;
  }

  /** Records an object by its address and its digest's 32 bytes, in a new block when the last one is full. */
  #push(address: string, digest: Uint8Array): void {
    const n = this.#addresses.length;
    if (n % BLOCK === 0) this.#blocks.push(Buffer.alloc(BLOCK * DIGEST_BYTES));
    this.#blocks[this.#blocks.length - 1]!.set(digest, (n % BLOCK) * DIGEST_BYTES);
    this.#addresses.push(address);
  }

  #digestOf(i: number): Buffer {
    const at = (i % BLOCK) * DIGEST_BYTES;
    return this.#blocks[Math.floor(i / BLOCK)]!.subarray(at, at + DIGEST_BYTES);
  }

  /** Each object's address and the base64 SHA-256 of its fields, in the order they were recorded. */
  entries(): [string, string][] {
    return this.#addresses.map((address, i) => [address, this.#digestOf(i).toString("base64")]);
  }

  /**
   * The plan's live digest: the SHA-256 of each object's address and the base64 SHA-256 of its fields, in address
   * order (objects of one address in the order they were seen), so the order reads finished in does not matter.
   * Plans saved by earlier versions carry the same digest for the same objects (test/engine/digest.test.ts).
   */
  digest(): string {
    const addresses = this.#addresses;
    const order = addresses.map((_, i) => i);
    // Array.prototype.sort is stable: objects of one address keep the order they were seen in.
    order.sort((i, j) => (addresses[i]! < addresses[j]! ? -1 : addresses[i]! > addresses[j]! ? 1 : 0));
    const hash = createHash("sha256");
    for (const i of order) {
      hash.update(addresses[i]!).update("\u0000").update(this.#digestOf(i).toString("base64")).update("\n");
    }
    return hash.digest("hex");
  }
}
