/** The live digest a plan carries: a saved plan is refused when the live objects it saw have changed since. */
import { createHash } from "node:crypto";
import { AddressList } from "./addresses.js";

/** Bytes of a SHA-256. */
const DIGEST_BYTES = 32;
/** Digests in each of LiveSeen's buffers (64 KiB). */
const BLOCK = 2048;

/**
 * The live objects a plan saw: each one's address and the SHA-256 of its fields as the plan may show them (masked,
 * as JSON), which the plan's live digest is made of. A plan in chunks keeps every chunk's to its end, so they are
 * kept as their addresses (an AddressList) and the raw digests in 64 KiB buffers: 32 bytes a digest, where its
 * base64 string took about 80.
 */
export class LiveSeen {
  readonly #addresses = new AddressList();
  readonly #blocks: Buffer[] = [];
  /** For the LiveSeen of a whole plan in chunks, the chunks' (LiveSeen.of), before its own objects. */
  #parts: readonly LiveSeen[] = [];

  /** Objects recorded. */
  get size(): number {
    return this.#parts.reduce((n, part) => n + part.size, this.#addresses.size);
  }

  /** Records a live object: its address and its masked fields as JSON. */
  add(address: string, fields: string): void {
    const n = this.#addresses.size;
    if (n % BLOCK === 0) this.#blocks.push(Buffer.alloc(BLOCK * DIGEST_BYTES));
    this.#blocks[this.#blocks.length - 1]!.set(
      createHash("sha256").update(fields).digest(),
      (n % BLOCK) * DIGEST_BYTES,
    );
    this.#addresses.push(address);
  }

  /** Every object of `parts`, in their order (the chunks of one plan): their records are shared, not copied. */
  static of(parts: readonly LiveSeen[]): LiveSeen {
    const all = new LiveSeen();
    all.#parts = [...parts];
    return all;
  }

  /** Every object's address, and their digests one after the other (DIGEST_BYTES each), in the order recorded. */
  #records(): { addresses: string[]; digests: Buffer } {
    const addresses: string[] = [];
    const digests: Buffer[] = [];
    this.#collect(addresses, digests);
    return { addresses, digests: Buffer.concat(digests) };
  }

  /** Adds its parts' records and its own to `addresses` and `digests` (its blocks' filled parts), in order. */
  #collect(addresses: string[], digests: Buffer[]): void {
    for (const part of this.#parts) part.#collect(addresses, digests);
    for (const address of this.#addresses) addresses.push(address);
    const size = this.#addresses.size;
    for (const [i, block] of this.#blocks.entries())
      digests.push(block.subarray(0, Math.min(BLOCK, size - i * BLOCK) * DIGEST_BYTES));
  }

  /** Each object's address and the base64 SHA-256 of its fields, in the order they were recorded. */
  entries(): [string, string][] {
    const { addresses, digests } = this.#records();
    return addresses.map((address, i) => [address, base64Of(digests, i)]);
  }

  /**
   * The plan's live digest: the SHA-256 of each object's address and the base64 SHA-256 of its fields, in address
   * order (objects of one address in the order they were seen), so the order reads finished in does not matter.
   * Plans saved by earlier versions carry the same digest for the same objects (test/engine/digest.test.ts).
   */
  digest(): string {
    const { addresses, digests } = this.#records();
    const order = addresses.map((_, i) => i);
    // Array.prototype.sort is stable: objects of one address keep the order they were seen in.
    order.sort((i, j) => (addresses[i]! < addresses[j]! ? -1 : addresses[i]! > addresses[j]! ? 1 : 0));
    const hash = createHash("sha256");
    for (const i of order) {
      hash.update(addresses[i]!).update("\u0000").update(base64Of(digests, i)).update("\n");
    }
    return hash.digest("hex");
  }
}

/** The base64 of the i-th digest of `digests`. */
function base64Of(digests: Buffer, i: number): string {
  return digests.toString("base64", i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES);
}
