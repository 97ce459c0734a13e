/**
 * A long list of object addresses kept compactly: a plan in chunks keeps the address of every object it compared
 * (PlanState.inSync) and saw (LiveSeen) to its end. An address is made by joining its parent's and its own part
 * (addressOf), which V8 keeps as a tree of joined strings (a heap snapshot of the 16x plan: 170,000 of them, 5.5 MB,
 * with the strings they join); this list keeps its addresses as blocks of BLOCK joined into one flat string each,
 * about a character's byte each. With LiveSeen's merge sharing its parts' records and the in-sync list made only
 * when a drift report reads it, the 16x plan's peak went from 151 to 145-146 MB.
 */

/** Addresses in each block. */
const BLOCK = 2048;
/** What separates the addresses of a block: an address holds none (its keys are written as JSON strings). */
const SEPARATOR = "\n";

export class AddressList implements Iterable<string> {
  /** Blocks, each its addresses joined by SEPARATOR: full ones, and (in a merged list) its parts' last ones. */
  readonly #blocks: string[] = [];
  /** The addresses of the block being filled. */
  #open: string[] = [];
  #size = 0;

  /** A list of these addresses, in their order. */
  static from(addresses: Iterable<string>): AddressList {
    const list = new AddressList();
    for (const address of addresses) list.push(address);
    return list;
  }

  /** Every address of `parts`, in their order (the chunks of one plan); their blocks are shared, not copied. */
  static of(parts: readonly AddressList[]): AddressList {
    const all = new AddressList();
    for (const part of parts) {
      all.#blocks.push(...part.#blocks);
      if (part.#open.length > 0) all.#blocks.push(part.#open.join(SEPARATOR));
      all.#size += part.#size;
    }
    return all;
  }

  /** Addresses recorded. */
  get size(): number {
    return this.#size;
  }

  /** Records an address at the end of the list. */
  push(address: string): void {
    if (address.includes(SEPARATOR)) throw new Error(`internal: an address holds a line break: ${address}`);
    this.#open.push(address);
    this.#size += 1;
    if (this.#open.length === BLOCK) {
      this.#blocks.push(this.#open.join(SEPARATOR));
      this.#open = [];
    }
  }

  /** The addresses in the order they were recorded. */
  *[Symbol.iterator](): Iterator<string> {
    for (const block of this.#blocks) yield* block.split(SEPARATOR);
    yield* this.#open;
  }

  /** The addresses in the order they were recorded, as an array. */
  toArray(): string[] {
    return [...this];
  }
}
