import type { Argument, Command } from 'commander';
import { completionHint, type CompletionHint } from '../completion-hints.js';
import { HELP, VERSION, flagsOf, groups, valueFlags, optionHints, shellQuote, fixedWords, HEADER, type CompletionData } from './command-tree.js';

export function renderBash(program: Command, data: CompletionData): string {
  const name = program.name();
  const out: string[] = [];
  const line = (text = '') => out.push(text);
  line(`# bash completion for ${name}`);
  line(HEADER);
  line('#');
  line('# Load it in the current shell:');
  line(`#   source <(${name} completion bash)`);
  line('# or install it for every new shell:');
  line(`#   ${name} completion bash > ~/.local/share/bash-completion/completions/${name}`);
  line('#');
  line('# Needs nothing but bash itself (the bash-completion package is optional).');
  line();
  line('_svc_router_backends() {');
  line(`    command -v ${name} >/dev/null 2>&1 || return 0`);
  line(`    ${name} backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\\([^"]*\\)".*/\\1/p'`);
  line('}');
  line();
  line('# Options that take a value, so the word after them is not a command or an argument.');
  line('_svc_router_takes_value() {');
  line('    case $1 in');
  line(`        ${valueFlags(program).join(' | ')})`);
  line('            return 0 ;;');
  line('    esac');
  line('    return 1');
  line('}');
  line();
  line('_svc_router() {');
  line('    local cur prev');
  line('    cur=${COMP_WORDS[COMP_CWORD]}');
  line('    prev=');
  line('    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}');
  line('    COMPREPLY=()');
  line();
  line(`    local skus=${shellQuote(data.skus.join(' '))}`);
  line(`    local config_keys=${shellQuote(Object.keys(data.configKeys).join(' '))}`);
  line(`    local commands=${shellQuote([...program.commands.map((command) => command.name()), 'help'].join(' '))}`);
  line(`    local help='${HELP.flags.join(' ')}'`);
  line();
  line("    # The option whose value is being completed, if any. COMP_WORDBREAKS usually holds '=',");
  line('    # so `--type=op` arrives as "--type" "=" "op"; without it, as one word.');
  line('    local opt= pfx=');
  line('    if [[ $cur == = && $prev == -* ]]; then');
  line('        opt=$prev');
  line('        cur=');
  line('    elif [[ $prev == = ]] && ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == -* ]]; then');
  line('        opt=${COMP_WORDS[COMP_CWORD - 2]}');
  line('    elif [[ $cur == --*=* ]]; then');
  line('        opt=${cur%%=*}');
  line('        pfx=$opt=');
  line('        cur=${cur#*=}');
  line('    elif [[ $prev != = ]] && _svc_router_takes_value "$prev"; then');
  line('        opt=$prev');
  line('    fi');
  line();
  line('    # Walk the words before the cursor: command, subcommand, then the positional arguments.');
  line('    local cmd= sub= i word');
  line('    local -a args=()');
  line('    for ((i = 1; i < COMP_CWORD; i++)); do');
  line('        word=${COMP_WORDS[i]}');
  line('        if [[ $word == : || ${COMP_WORDS[i - 1]} == : ]] && ((${#args[@]})); then');
  line("            # BACKEND:MODEL is split at ':' like '=' is; glue it back together.");
  line('            args[${#args[@]} - 1]+=$word');
  line('            continue');
  line('        fi');
  line('        case $word in');
  line('            -*)');
  line('                if [[ $word != *=* ]] && _svc_router_takes_value "$word"; then');
  line('                    if [[ ${COMP_WORDS[i + 1]} == = ]]; then');
  line('                        ((i += 2))');
  line('                    else');
  line('                        ((i += 1))');
  line('                    fi');
  line('                fi');
  line('                ;;');
  line('            *)');
  line('                if [[ -z $cmd ]]; then');
  line('                    cmd=$word');
  line(`                elif [[ -z $sub && $cmd =~ ^(${groups(program).map((group) => group.name()).join('|')})$ ]]; then`);
  line('                    sub=$word');
  line('                else');
  line('                    args+=("$word")');
  line('                fi');
  line('                ;;');
  line('        esac');
  line('    done');
  line('    local nargs=${#args[@]}');
  line();
  line('    if [[ -n $opt ]]; then');
  line('        case $opt in');
  for (const { option, hint } of optionHints(program)) {
    line(`            ${flagsOf(option).join(' | ')})`);
    for (const statement of bashValue(hint, data)) line(`                ${statement}`);
    line('                ;;');
  }
  line('        esac');
  line('        if [[ -n $pfx ]]; then');
  line('            COMPREPLY=("${COMPREPLY[@]/#/$pfx}")');
  line('        fi');
  line('        return 0');
  line('    fi');
  line();
  line('    # The upstream model after BACKEND: is free text.');
  line('    if [[ $cur == : || $prev == : ]]; then');
  line('        return 0');
  line('    fi');
  line();
  line('    local options=$help');
  line('    case $cmd in');
  line(`        '') options='${[...VERSION.flags, ...HELP.flags].join(' ')}' ;;`);
  for (const command of program.commands) {
    if (command.commands.length) {
      line(`        ${command.name()})`);
      line('            case $sub in');
      for (const sub of command.commands) line(`                ${sub.name()}) options=${bashOptions(sub)} ;;`);
      line('            esac');
      line('            ;;');
    } else {
      line(`        ${command.name()}) options=${bashOptions(command)} ;;`);
    }
  }
  line('    esac');
  line();
  line('    if [[ $cur == -* ]]; then');
  line('        COMPREPLY=($(compgen -W "$options" -- "$cur"))');
  line('        return 0');
  line('    fi');
  line();
  line('    local words=');
  line('    case $cmd in');
  line("        '') words=$commands ;;");
  line('        help) ((nargs == 0)) && words=$commands ;;');
  for (const command of program.commands) {
    if (command.commands.length) {
      const subs = command.commands.map((sub) => sub.name()).join(' ');
      line(`        ${command.name()})`);
      line('            case $sub in');
      line(`                '') words='${subs} help' ;;`);
      line(`                help) ((nargs == 0)) && words='${subs}' ;;`);
      for (const sub of command.commands) bashArguments(sub, data, '                ').forEach((text) => line(text));
      line('            esac');
      line('            ;;');
    } else {
      bashArguments(command, data, '        ').forEach((text) => line(text));
    }
  }
  line('    esac');
  line();
  line('    COMPREPLY=($(compgen -W "$words" -- "$cur"))');
  line('    return 0');
  line('}');
  line();
  line(`complete -F _svc_router ${name}`);
  return `${out.join('\n')}\n`;
}

const bashOptions = (command: Command): string => `"${[...command.options.flatMap(flagsOf), '$help'].join(' ')}"`;

/** Statements that fill COMPREPLY for an option's value. */
function bashValue(hint: CompletionHint, data: CompletionData): string[] {
  if (hint === 'files') return ['compopt -o filenames 2>/dev/null', "local IFS=$'\\n'", 'COMPREPLY=($(compgen -f -- "$cur"))'];
  const words = bashWords(hint, data);
  return words ? [`COMPREPLY=($(compgen -W ${words} -- "$cur"))`] : [];
}

/** A bash word expression for a hint (quoted), or undefined when it has no word list. */
function bashWords(hint: CompletionHint, data: CompletionData): string | undefined {
  if (hint === 'skus') return '"$skus"';
  if (hint === 'config-keys') return '"$config_keys"';
  if (hint === 'backends') return '"$(_svc_router_backends)"';
  if (hint === 'targets') return '"$(_svc_router_backends) offline"';
  const words = fixedWords(hint, data);
  return words ? shellQuote(words.join(' ')) : undefined;
}

/** The case arm that offers a command's positional arguments, then its options once they are given. */
function bashArguments(command: Command, data: CompletionData, indent: string): string[] {
  const args = command.registeredArguments;
  if (!args.length) return [`${indent}${command.name()}) words=$options ;;`];
  const body: string[] = [];
  const last = args.at(-1);
  args.forEach((argument: Argument, index: number) => {
    const hint = completionHint(argument);
    const test = argument.variadic ? `((nargs >= ${index}))` : `((nargs == ${index}))`;
    if (!hint) {
      body.push(`${index ? 'elif' : 'if'} ${test}; then`, '    :');
      return;
    }
    body.push(`${index ? 'elif' : 'if'} ${test}; then`);
    if (hint === 'route-models') {
      body.push(`    COMPREPLY=($(compgen -W ${shellQuote([...data.skus, ...data.routePatterns].join(' '))} -- "$cur"))`);
      body.push("    # Escape the '*' so the shell passes the pattern on instead of globbing it.");
      body.push('    COMPREPLY=("${COMPREPLY[@]//\\*/\\\\*}")');
      body.push('    return 0');
    } else if (hint === 'config-value') {
      body.push(`    case \${args[${index - 1}]} in`);
      for (const [key, values] of Object.entries(data.configValues)) body.push(`        ${key}) words=${shellQuote(values.join(' '))} ;;`);
      body.push('    esac');
    } else if (hint === 'files') {
      body.push('    compopt -o filenames 2>/dev/null', "    local IFS=$'\\n'", '    COMPREPLY=($(compgen -f -- "$cur"))', '    return 0');
    } else {
      body.push(`    words=${bashWords(hint, data) ?? "''"}`);
    }
  });
  if (!last?.variadic) body.push('else', '    words=$options');
  body.push('fi');
  return [`${indent}${command.name()})`, ...body.map((text) => `${indent}    ${text}`), `${indent}    ;;`];
}
