/** The CLI's output sinks and terminal facts, apart from the commands that use them (src/cli/index.ts builds those). */

/** Output sinks and terminal facts, injectable so tests can run commands in-process. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Colours are wanted: stdout is a terminal and NO_COLOR is not set. */
  color?: boolean;
  /** A person is at a terminal (stdin and stderr are TTYs): confirmations may be asked, progress shown. */
  interactive?: boolean;
  /** Asks a question on the terminal and resolves to the answer. */
  prompt?: (question: string) => Promise<string>;
}

/**
 * NO_COLOR turns colours off. Otherwise FORCE_COLOR decides when it is set, as Node and chalk read it: `0` or
 * `false` means no colour even at a terminal, anything else (empty, 1, 2, 3, true) colour even in a pipe. Otherwise
 * a terminal gets colours.
 */
export function wantsColor(env: NodeJS.ProcessEnv, tty: boolean): boolean {
  if (env["NO_COLOR"]) return false;
  const force = env["FORCE_COLOR"];
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  return tty;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  color: wantsColor(process.env, Boolean(process.stdout.isTTY)),
  interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  prompt: async (question) => {
    const { createInterface } = await import("node:readline/promises");
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
};
