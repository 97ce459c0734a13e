/**
 * Shell completion scripts made from the command tree (`forgeform completion bash|zsh|fish`), made in-process
 * (so that mutation testing sees the code that writes them) and checked by the shells themselves: they parse,
 * and they complete commands (subcommands after their command), options, file names (a command's paths, an option's
 * value), and the values of options and arguments that have a fixed set.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/index.js";
import { commandMissing, present } from "../required.js";

/** `forgeform completion SHELL` run in-process: its exit code and what it printed. */
async function completion(shell: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(["node", "forgeform", "completion", shell], {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
  });
  return { status, stdout: out.join(""), stderr: err.join("") };
}

describe("shell completion", () => {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-completion-"));
  /** A folder holding two manifests, m1.yaml and m2.yaml, for the shells to complete file names in. */
  const manifestsFolder = () => {
    const here = join(dir, "here");
    mkdirSync(here, { recursive: true });
    writeFileSync(join(here, "m1.yaml"), "");
    writeFileSync(join(here, "m2.yaml"), "");
    return here;
  };

  it("prints completion scripts that the shells accept and that complete commands and options", async () => {
    const bash = (await completion("bash")).stdout;
    expect(bash.endsWith("forgeform\n")).toBe(true);
    const script = join(dir, "c.bash");
    writeFileSync(script, bash);
    const complete = (words: string[]) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _forgeform; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      ).trim();
    expect(complete(["forgeform", "plan", "--chan"])).toBe("--changed-since");
    expect(complete(["forgeform", "plan", "--format", ""])).toBe("text json markdown");
    expect(complete(["forgeform", "report", "merge", "--format", "j"])).toBe("json junit");
    expect(complete(["forgeform", "completion", ""])).toBe("bash zsh fish");
    // The commands themselves, and a command's subcommands.
    expect(complete(["forgeform", ""]).split(" ")).toEqual([
      "validate",
      "plan",
      "apply",
      "sandbox",
      "drift",
      "export",
      "convert",
      "explain",
      "report",
      "completion",
    ]);
    expect(complete(["forgeform", "ex"])).toBe("export explain");
    expect(complete(["forgeform", "report", ""])).toBe("merge");
    for (const shell of ["bash", "zsh", "fish"]) {
      const text = (await completion(shell)).stdout;
      expect(text).toContain("changed-since");
      expect(text.endsWith("\n")).toBe(true);
      const file = join(dir, `c.${shell}`);
      writeFileSync(file, text);
      const check = spawnSync(shell, ["-n", file], { encoding: "utf8" });
      // The shell is not installed here (.ci/run installs zsh and fish, and requires them).
      if (!present(check.error ? `${shell} is not installed (Debian package ${shell})` : undefined)) continue;
      expect(check.status, check.stderr).toBe(0);
    }
    expect((await completion("tcsh")).status).toBe(1);
  });

  it("completes in zsh and fish with help texts intact (colons, quotes) and the values of --format and of completion", async () => {
    const zshScript = join(dir, "zsh-completions");
    mkdirSync(zshScript, { recursive: true });
    writeFileSync(join(zshScript, "_forgeform"), (await completion("zsh")).stdout);
    if (present(commandMissing("zsh", "zsh"))) {
      // An interactive zsh in a pseudo-terminal (zsh/zpty) with the script in $fpath: type, press Tab, read.
      const capture = join(dir, "capture.zsh");
      writeFileSync(
        capture,
        [
          "zmodload zsh/zpty",
          "zpty z zsh -f -i",
          `zpty -w z "stty columns 250; PROMPT='>'; fpath=(${zshScript} \\$fpath); autoload -U compinit; compinit -u -D; zstyle ':completion:*' format 'D:%d'; LISTMAX=10000"`,
          "zpty -w -n z \"$1\"$'\\t'",
          'local all="" chunk',
          // Until the expected text arrives, for up to 20 s: a loaded machine may take seconds to start zsh and run
          // compinit, and a fixed number of short waits made the test depend on the machine's speed.
          "typeset -F SECONDS=0",
          "while (( SECONDS < 20 )); do if zpty -rt z chunk 2>/dev/null; then all+=$chunk; elif [[ $all == *$2* ]]; then break; else sleep 0.1; fi; done",
          'print -r -- "$all"',
          "zpty -d z",
        ].join("\n"),
      );
      const here = manifestsFolder();
      const zsh = (line: string, until: string) =>
        spawnSync("zsh", ["-f", capture, line, until], { encoding: "utf8", cwd: here }).stdout.replace(
          /\r/g,
          "",
        );
      const options = zsh("forgeform plan --", "FORGEFORM_URL)");
      expect(options).toContain("platform base URL, e.g. https://gitlab.example.com (env FORGEFORM_URL)");
      expect(options).toContain("PEM file with the CA that signed the platform's TLS certificate");
      expect(zsh("forgeform plan --format ", "markdown")).toMatch(/json\s+markdown\s+text/);
      expect(zsh("forgeform completion ", "fish")).toMatch(/bash\s+fish\s+zsh/);
      // The commands, each with its summary.
      const commands = zsh("forgeform ", "Write manifests from another tool");
      expect(commands).toMatch(/plan\s+-- Show the changes apply would make\. Changes nothing\./);
      expect(commands).toMatch(/convert\s+-- Write manifests from another tool's configuration\./);
      // Subcommands are not commands: report merge is completed after report.
      expect(commands).not.toMatch(/report merge/);
      // File names: for a command's paths, for an option's value; after a flag, the options again.
      expect(zsh("forgeform plan m", "m2.yaml")).toMatch(/m1\.yaml\s+m2\.yaml/);
      expect(zsh("forgeform plan --out m", "m2.yaml")).toMatch(/m1\.yaml\s+m2\.yaml/);
      expect(zsh("forgeform apply --yes --", "--max-deletes")).toContain("--max-deletes");
    }
    const fishScript = join(dir, "c.fish");
    writeFileSync(fishScript, (await completion("fish")).stdout);
    if (present(commandMissing("fish", "fish"))) {
      const fish = (line: string) =>
        execFileSync("fish", ["-c", `source ${fishScript}; complete -C '${line}'`], { encoding: "utf8" });
      // One candidate a line: the value, a tab, its description.
      const values = (line: string) =>
        fish(line)
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("\t")[0])
          .sort();
      expect(values("forgeform plan --format ")).toEqual(["json", "markdown", "text"]);
      expect(fish("forgeform completion ").split("\n").filter(Boolean).sort()).toEqual([
        "bash",
        "fish",
        "zsh",
      ]);
      expect(fish("forgeform plan --ur")).toContain("https://gitlab.example.com");
      // The commands, each with its summary; a subcommand with its own.
      expect(fish("forgeform ")).toContain("plan\tShow the changes apply would make. Changes nothing.\n");
      expect(fish("forgeform report ")).toContain("merge\t");
      expect(values("forgeform report merge --format ")).toEqual(["json", "junit", "markdown", "text"]);
    }
  });

  it("completes file names for a command's paths and an option's value, and in fish each command once with its summary", async () => {
    const here = manifestsFolder();
    const bashScript = join(dir, "files.bash");
    writeFileSync(bashScript, (await completion("bash")).stdout);
    const bash = (words: string[]) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source ${bashScript}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _forgeform; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8", cwd: here },
      )
        .trim()
        .split(" ")
        .sort();
    expect(bash(["forgeform", "plan", "m"])).toEqual(["m1.yaml", "m2.yaml"]);
    expect(bash(["forgeform", "plan", "--out", "m"])).toEqual(["m1.yaml", "m2.yaml"]);
    const fishScript = join(dir, "files.fish");
    writeFileSync(fishScript, (await completion("fish")).stdout);
    if (present(commandMissing("fish", "fish"))) {
      const fish = (line: string) =>
        execFileSync("fish", ["-c", `source ${fishScript}; complete -C '${line}'`], {
          encoding: "utf8",
          cwd: here,
        })
          .split("\n")
          .filter(Boolean);
      expect(fish("forgeform plan --out m")).toEqual(["m1.yaml", "m2.yaml"]);
      // The manifests a command takes, and the files of `report merge`; not where the argument is a fixed set.
      expect(fish("forgeform plan m")).toEqual(["m1.yaml", "m2.yaml"]);
      expect(fish("forgeform validate m")).toEqual(["m1.yaml", "m2.yaml"]);
      expect(fish("forgeform report merge m")).toEqual(["m1.yaml", "m2.yaml"]);
      expect(fish("forgeform completion m")).toEqual([]);
      expect(fish("forgeform apply --y")).toEqual([
        "--yes\tdo not ask for confirmation (needed when not at a terminal)",
      ]);
      expect(fish("forgeform ").map((l) => l.split("\t")[0])).toEqual([
        "apply",
        "completion",
        "convert",
        "drift",
        "explain",
        "export",
        "plan",
        "report",
        "sandbox",
        "validate",
      ]);
      // A quote in a summary is kept.
      expect(fish("forgeform conv")).toEqual(["convert\tWrite manifests from another tool's configuration."]);
    }
  });
});
