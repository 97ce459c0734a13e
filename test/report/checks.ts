import { expect } from "vitest";

/** Checks that every code fence is closed by a fence of the same length and <details> tags balance. */
export function expectBalanced(markdown: string): void {
  let open: string | undefined;
  let depth = 0;
  for (const line of markdown.split("\n")) {
    const fence = /^(`{3,})/.exec(line)?.[1];
    if (open !== undefined) {
      if (line === open) open = undefined;
      continue;
    }
    if (fence) {
      open = fence;
      continue;
    }
    depth += (line.match(/<details>/g) ?? []).length;
    depth -= (line.match(/<\/details>/g) ?? []).length;
    expect(depth).toBeGreaterThanOrEqual(0);
  }
  expect(open, "an unclosed code block").toBeUndefined();
  expect(depth, "unbalanced <details>").toBe(0);
}

/** Change header lines inside diff blocks: a symbol, one space, then an address. */
export function shownChanges(markdown: string): number {
  return markdown.split("\n").filter((l) => /^(\+|~|-\/\+|-|!) [a-z]/.test(l)).length;
}

export function leftOut(markdown: string): number {
  const match = /: ([\d,]+) of [\d,]+ (changes|drift items) are not shown/.exec(markdown);
  return match ? Number(match[1]!.replace(/,/g, "")) : 0;
}
