/**
 * `forgeform completion bash|zsh|fish`: a completion script for the shell, made from the command tree itself (every
 * command, subcommand and option as commander knows them), so it cannot fall behind the CLI.
 *
 *   bash: source <(forgeform completion bash)          (or save it under ~/.local/share/bash-completion/completions/forgeform)
 *   zsh:  forgeform completion zsh > "${fpath[1]}/_forgeform"
 *   fish: forgeform completion fish > ~/.config/fish/completions/forgeform.fish
 */
import type { Command } from "commander";
import type { Io } from "./index.js";

interface Entry {
  /** `plan`, or `report merge`. */
  name: string;
  summary: string;
  options: { flag: string; description: string; takesValue: boolean }[];
}

function entries(program: Command): Entry[] {
  const out: Entry[] = [];
  const walk = (cmd: Command, prefix: string) => {
    for (const sub of cmd.commands) {
      const name = prefix ? `${prefix} ${sub.name()}` : sub.name();
      out.push({
        name,
        summary: sub.summary() || sub.description().split("\n")[0] || "",
        options: sub.options
          .filter((o) => o.long !== undefined)
          .map((o) => ({ flag: o.long!, description: o.description, takesValue: o.required || o.optional })),
      });
      walk(sub, name);
    }
  };
  walk(program, "");
  return out;
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

function bash(list: Entry[]): string {
  const top = list.filter((e) => !e.name.includes(" ")).map((e) => e.name);
  const cases = list
    .map((e) => `    ${quote(e.name)}) opts=${quote(e.options.map((o) => o.flag).join(" "))} ;;`)
    .join("\n");
  const subs = list
    .filter((e) => !e.name.includes(" ") && list.some((x) => x.name.startsWith(`${e.name} `)))
    .map(
      (e) =>
        `    ${quote(e.name)}) subs=${quote(
          list
            .filter((x) => x.name.startsWith(`${e.name} `))
            .map((x) => x.name.slice(e.name.length + 1))
            .join(" "),
        )} ;;`,
    )
    .join("\n");
  return `# bash completion for forgeform (forgeform completion bash)
_forgeform() {
  local cur cmd opts subs
  cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${quote(top.join(" "))} -- "$cur") )
    return
  fi
  cmd="\${COMP_WORDS[1]}"
  subs=""
  case "$cmd" in
${subs}
  esac
  if [ -n "$subs" ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=( $(compgen -W "$subs" -- "$cur") )
    return
  fi
  [ -n "$subs" ] && cmd="$cmd \${COMP_WORDS[2]}"
  opts=""
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -F _forgeform forgeform
`;
}

function zsh(list: Entry[]): string {
  const describe = (s: string) =>
    s
      .replace(/[:\\[\]']/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  const top = list.filter((e) => !e.name.includes(" "));
  const commands = top.map((e) => `    ${quote(`${e.name}:${describe(e.summary)}`)}`).join("\n");
  const cases = list
    .map((e) => {
      const specs = e.options
        .map((o) => quote(`${o.flag}[${describe(o.description)}]${o.takesValue ? ":value:_files" : ""}`))
        .join(" ");
      return `    ${quote(e.name)}) _arguments ${specs} '*:file:_files' ;;`;
    })
    .join("\n");
  return `#compdef forgeform
# zsh completion for forgeform (forgeform completion zsh)
_forgeform() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd="\${words[2]}"
  if [[ "$cmd" == report && CURRENT -gt 3 ]]; then cmd="report \${words[3]}"; fi
  if [[ "$cmd" == report && CURRENT -eq 3 ]]; then _values 'subcommand' merge; return; fi
  case "$cmd" in
${cases}
  esac
}
_forgeform "$@"
`;
}

function fish(list: Entry[]): string {
  const esc = (s: string) => s.replace(/'/g, "\\'");
  const lines = ["# fish completion for forgeform (forgeform completion fish)", "complete -c forgeform -f"];
  const top = list.filter((e) => !e.name.includes(" "));
  for (const e of top) {
    lines.push(`complete -c forgeform -n '__fish_use_subcommand' -a '${e.name}' -d '${esc(e.summary)}'`);
  }
  for (const e of list) {
    const [first, second] = e.name.split(" ");
    const condition = second
      ? `__fish_seen_subcommand_from ${first}; and __fish_seen_subcommand_from ${second}`
      : `__fish_seen_subcommand_from ${first}`;
    if (second) {
      lines.push(
        `complete -c forgeform -n '__fish_seen_subcommand_from ${first}' -a '${second}' -d '${esc(e.summary)}'`,
      );
    }
    for (const o of e.options) {
      lines.push(
        `complete -c forgeform -n '${condition}' -l '${o.flag.slice(2)}'${o.takesValue ? " -r -F" : ""} -d '${esc(o.description)}'`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

export function registerCompletion(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("completion")
    .summary("Print a shell completion script (bash, zsh or fish).")
    .description(
      "Print a completion script for the shell. bash: source <(forgeform completion bash). zsh: forgeform " +
        'completion zsh > "$fpath[1]/_forgeform". fish: forgeform completion fish > ' +
        "~/.config/fish/completions/forgeform.fish",
    )
    .argument("<shell>", "bash, zsh or fish")
    .action((shell: string) => {
      const list = entries(program);
      const scripts: Record<string, (l: Entry[]) => string> = { bash, zsh, fish };
      const make = scripts[shell];
      if (!make)
        throw new Error(`completion: the shell must be bash, zsh or fish, not ${JSON.stringify(shell)}`);
      io.out(make(list));
      setExit(0);
    });
}
