import type { Argument, Command } from 'commander';
import { completionHint, type CompletionHint } from '../completion-hints.js';
import { HELP, VERSION, takesValue, leaves, groups, valueFlags, fixedWords, HEADER, type CompletionData } from './command-tree.js';

/** Text for inside single quotes in fish. */
const fq = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The `-a` arguments of a hint: one complete line each (a pattern is quoted so fish does not glob it). */
function fishArguments(hint: CompletionHint | undefined, data: CompletionData): string | undefined {
  if (!hint || hint === 'files') return undefined;
  if (hint === 'skus') return '"$skus"';
  if (hint === 'route-models') return `"$skus ${data.routePatterns.map((pattern) => `'${pattern}'`).join(' ')}"`;
  if (hint === 'backends') return "'(__svc_router_backends)'";
  if (hint === 'targets') return "'(__svc_router_targets)'";
  if (hint === 'config-keys') return "'(__svc_router_config_keys)'";
  if (hint === 'config-value') return undefined;
  return fq((fixedWords(hint, data) ?? []).join(' '));
}

export function renderFish(program: Command, data: CompletionData): string {
  const name = program.name();
  const out: string[] = [];
  const line = (text = '') => out.push(text);
  const complete = (condition: string, rest: string) => line(`complete -c ${name} -n ${fq(condition)} ${rest}`);
  line(`# fish completion for ${name}`);
  line(HEADER);
  line('#');
  line('# Load it in the current shell:');
  line(`#   ${name} completion fish | source`);
  line('# or install it for every new shell:');
  line(`#   ${name} completion fish > ~/.config/fish/completions/${name}.fish`);
  line();
  line('# The command, subcommand and arguments typed so far, without options and their values.');
  line('function __svc_router_words');
  line('    set -l tokens (commandline -opc)');
  line('    set -e tokens[1]');
  line('    set -l skip 0');
  line('    for token in $tokens');
  line('        if test $skip -eq 1');
  line('            set skip 0');
  line('            continue');
  line('        end');
  line('        switch $token');
  line(`            case ${valueFlags(program).join(' ')}`);
  line('                set skip 1');
  line("            case '-*'");
  line("            case '*'");
  line('                echo $token');
  line('        end');
  line('    end');
  line('end');
  line();
  line('# True when the words typed so far are exactly the arguments.');
  line('function __svc_router_is');
  line('    set -l words (__svc_router_words)');
  line('    test (count $words) -eq (count $argv); or return 1');
  line('    for i in (seq (count $argv))');
  line('        test "$words[$i]" = "$argv[$i]"; or return 1');
  line('    end');
  line('end');
  line();
  line('# True when the words typed so far begin with the arguments.');
  line('function __svc_router_in');
  line('    set -l words (__svc_router_words)');
  line('    test (count $words) -ge (count $argv); or return 1');
  line('    for i in (seq (count $argv))');
  line('        test "$words[$i]" = "$argv[$i]"; or return 1');
  line('    end');
  line('end');
  line();
  line('function __svc_router_backends');
  line(`    if command -sq ${name}`);
  line(`        ${name} backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\\([^"]*\\)".*/\\1/p'`);
  line('    end');
  line('end');
  line();
  line('# Route targets: BACKEND[:UPSTREAM_MODEL]; only the backend part is completed.');
  line('function __svc_router_targets');
  line("    string match -q '*:*' -- (commandline -ct); and return");
  line('    __svc_router_backends');
  line('    echo offline');
  line('end');
  line();
  line('function __svc_router_config_keys');
  for (const [key, meaning] of Object.entries(data.configKeys)) line(`    printf '%s\\t%s\\n' ${fq(key)} ${fq(meaning)}`);
  line('end');
  line();
  line(`set -l skus ${data.skus.join(' ')}`);
  line();
  line(`complete -c ${name} -f`);
  line(`complete -c ${name} -n '__svc_router_is' -s V -l version -d ${fq(VERSION.description)}`);
  line(`complete -c ${name} -s h -l help -d ${fq(HELP.description)}`);
  for (const command of program.commands) complete('__svc_router_is', `-a ${command.name()} -d ${fq(command.description())}`);
  complete('__svc_router_is', `-a help -d ${fq(HELP.description)}`);
  complete('__svc_router_is help', `-a ${fq(program.commands.map((command) => command.name()).join(' '))}`);
  for (const group of groups(program)) {
    line();
    line(`# ${group.name()}`);
    for (const sub of group.commands) complete(`__svc_router_is ${group.name()}`, `-a ${sub.name()} -d ${fq(sub.description())}`);
    complete(`__svc_router_is ${group.name()}`, `-a help -d ${fq(HELP.description)}`);
    complete(`__svc_router_is ${group.name()} help`, `-a ${fq(group.commands.map((sub) => sub.name()).join(' '))}`);
  }
  for (const { path, command } of leaves(program)) {
    line();
    line(`# ${path.join(' ')}`);
    const where = path.join(' ');
    for (const option of command.options) {
      const flags = [option.short ? `-s ${option.short.slice(1)}` : '', option.long ? `-l ${option.long.slice(2)}` : ''].filter(Boolean).join(' ');
      const hint = completionHint(option);
      const value = takesValue(option) ? (hint === 'files' ? ' -r -F' : ` -x${fishArguments(hint, data) ? ` -a ${fishArguments(hint, data)}` : ''}`) : '';
      complete(`__svc_router_in ${where}`, `${flags}${value} -d ${fq(option.description)}`);
    }
    const args = command.registeredArguments;
    args.forEach((argument: Argument, index: number) => {
      const hint = completionHint(argument);
      // The words typed so far: the command path, then the arguments before this one.
      const typed = path.length + index;
      const at = `__svc_router_in ${where}; and test (count (__svc_router_words)) ${argument.variadic ? '-ge' : '-eq'} ${typed}`;
      if (hint === 'config-value') {
        for (const [key, values] of Object.entries(data.configValues)) complete(`__svc_router_is ${where} ${key}`, `-a ${fq(values.join(' '))}`);
        return;
      }
      const words = fishArguments(hint, data);
      if (hint === 'files') complete(at, '-F');
      else if (words) complete(at, `-a ${words} -d ${fq(argument.name())}`);
    });
  }
  return `${out.join('\n')}\n`;
}
