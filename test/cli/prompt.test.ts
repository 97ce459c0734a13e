/**
 * The question apply asks at a terminal (src/cli/io.ts's processIo.prompt), on stand-ins for the process's stdin and
 * stderr: the question goes to stderr, the answer is the line typed on stdin, and stdin is let go once it is read
 * (else the process would not exit after the answer).
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { processIo } from "../../src/cli/index.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the confirmation prompt", () => {
  it("asks on stderr, answers with the line typed, and stops reading stdin", async () => {
    const stdin = new PassThrough();
    const err: string[] = [];
    vi.spyOn(process, "stdin", "get").mockReturnValue(stdin as unknown as typeof process.stdin);
    vi.spyOn(process.stderr, "write").mockImplementation((t) => err.push(String(t)) > 0);
    const answer = processIo.prompt!("Apply these changes? ");
    stdin.write("yes\n");
    expect(await answer).toBe("yes");
    expect(err.join("")).toBe("Apply these changes? ");
    expect(stdin.listenerCount("data")).toBe(0);
  });
});
