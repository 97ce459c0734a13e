/**
 * `forgeform completion bash|zsh|fish`: a completion script for the shell, made from the command tree itself (every
 * command, subcommand and option as commander knows them), so it cannot fall behind the CLI.
 *
 *   bash: source <(forgeform completion bash)          (or save it under ~/.local/share/bash-completion/completions/forgeform)
 *   zsh:  forgeform completion zsh > "${fpath[1]}/_forgeform"
 *   fish: forgeform completion fish > ~/.config/fish/completions/forgeform.fish
 */
import { Argument, type Command } from "commander";
import type { Io } from "./io.js";

interface Entry {
  /** `plan`, or `report merge`. */
  name: string;
  summary: string;
  options: { flag: string; description: string; takesValue: boolean; choices: readonly string[] }[];
  /** The values of the first argument, when it has a fixed set (`completion bash|zsh|fish`). */
  argChoices: readonly string[];
  /** Whether its arguments are files (manifests, plans, reports): it takes arguments, without a fixed set. */
  takesFiles: boolean;
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
          .map((o) => ({
            flag: o.long!,
            description: o.description,
            takesValue: o.required || o.optional,
            choices: o.argChoices ?? [],
          })),
        argChoices: sub.registeredArguments[0]?.argChoices ?? [],
        takesFiles:
          sub.registeredArguments.length > 0 && (sub.registeredArguments[0]?.argChoices ?? []).length === 0,
      });
      walk(sub, name);
    }
  };
  walk(program, "");
  return out;
}

/** A word in single quotes for sh, bash and zsh. */
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
  // The values of an option with a fixed set (`plan --format`), and of a command's first argument.
  const values = list
    .flatMap((e) =>
      e.options
        .filter((o) => o.choices.length > 0)
        .map((o) => `    ${quote(`${e.name} ${o.flag}`)}) values=${quote(o.choices.join(" "))} ;;`),
    )
    .join("\n");
  const args = list
    .filter((e) => e.argChoices.length > 0)
    .map((e) => `    ${quote(e.name)}) values=${quote(e.argChoices.join(" "))} ;;`)
    .join("\n");
  return `# bash completion for forgeform (forgeform completion bash)
_forgeform() {
  local cur prev cmd opts subs values
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
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
  values=""
  case "$cmd $prev" in
${values}
  esac
  if [ -z "$values" ] && [[ "$cur" != -* ]]; then
    case "$cmd" in
${args}
    esac
  fi
  if [ -n "$values" ]; then
    COMPREPLY=( $(compgen -W "$values" -- "$cur") )
    return
  fi
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

/** Text for zsh's completion specs: a backslash is doubled, and in an option's [explanation] brackets are escaped. */
const zshText = (s: string) => s.replace(/\s+/g, " ").trim().replace(/\\/g, "\\\\");
const zshExplanation = (s: string) => zshText(s).replace(/[[\]]/g, "\\$&");

function zsh(list: Entry[]): string {
  const top = list.filter((e) => !e.name.includes(" "));
  // `_describe` items are name:description; a colon in the description is kept as it is.
  const commands = top.map((e) => `    ${quote(`${e.name}:${zshText(e.summary)}`)}`).join("\n");
  const cases = list
    .map((e) => {
      const specs = e.options.map((o) => {
        const value = !o.takesValue
          ? ""
          : o.choices.length > 0
            ? `:value:(${o.choices.join(" ")})`
            : ":value:_files";
        return quote(`${o.flag}[${zshExplanation(o.description)}]${value}`);
      });
      const rest = e.argChoices.length > 0 ? `'1:value:(${e.argChoices.join(" ")})'` : "'*:file:_files'";
      return `    ${quote(e.name)}) _arguments ${[...specs, rest].join(" ")} ;;`;
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
  # _arguments takes the first word for the command's name: drop \`forgeform\` (and \`report\`) before it.
  local n=1
  [[ "$cmd" == "report "* ]] && n=2
  shift $n words
  (( CURRENT -= n ))
  case "$cmd" in
${cases}
  esac
}
_forgeform "$@"
`;
}

function fish(list: Entry[]): string {
  // In fish's single quotes, only a backslash and a quote are escaped.
  const esc = (s: string) => s.replace(/\\/g, "\\\\").replace(/'/g, "\\'");
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
      // Offered until one of the command's subcommands is given.
      const siblings = list.filter((x) => x.name.startsWith(`${first} `)).map((x) => x.name.split(" ")[1]);
      lines.push(
        `complete -c forgeform -n '__fish_seen_subcommand_from ${first}; and not __fish_seen_subcommand_from ${siblings.join(" ")}' -a '${second}' -d '${esc(e.summary)}'`,
      );
    }
    if (e.argChoices.length > 0) {
      lines.push(`complete -c forgeform -n '${condition}' -a '${esc(e.argChoices.join(" "))}'`);
    }
    // File names are off for the command line (`-f` above) and on again where the arguments are files.
    if (e.takesFiles) lines.push(`complete -c forgeform -n '${condition}' -F`);
    for (const o of e.options) {
      const value =
        o.choices.length > 0 ? ` -x -a '${esc(o.choices.join(" "))}'` : o.takesValue ? " -r -F" : "";
      lines.push(
        `complete -c forgeform -n '${condition}' -l '${o.flag.slice(2)}'${value} -d '${esc(o.description)}'`,
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
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
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
