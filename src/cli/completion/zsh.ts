import type { Command } from 'commander';
import { completionHint, type CompletionHint } from '../completion-hints.js';
import { HELP, VERSION, flagsOf, takesValue, groups, fixedWords, HEADER, type CompletionData } from './command-tree.js';

/** Text for inside single quotes in zsh. */
const zq = (text: string): string => text.replace(/'/g, `'\\''`);
/** An _arguments explanation (inside `[…]`): brackets escaped. */
const zDescription = (text: string): string => zq(text.replace(/([[\]\\])/g, '\\$1'));
/** An _arguments message (between colons): colons escaped. */
const zMessage = (text: string): string => zq(text.replace(/([:\\])/g, '\\$1'));

function zshAction(hint: CompletionHint | undefined, data: CompletionData): string {
  if (!hint) return '';
  if (hint === 'files') return '_files';
  if (hint === 'skus') return '_svc_router_skus';
  if (hint === 'route-models') return '_svc_router_route_models';
  if (hint === 'backends') return '_svc_router_backend_names';
  if (hint === 'targets') return '_svc_router_targets';
  if (hint === 'config-keys') return '_svc_router_config_keys';
  if (hint === 'config-value') return '_svc_router_config_value';
  return `(${(fixedWords(hint, data) ?? []).map((word) => word.replace(/([\s():\\])/g, '\\$1')).join(' ')})`;
}

function zshOptionSpecs(command: Command, data: CompletionData): string[] {
  const specs: string[] = [];
  for (const option of command.options) {
    const flags = flagsOf(option);
    const exclusive = flags.length > 1 ? `(${flags.join(' ')})` : '';
    const names = flags.length > 1 ? `{${flags.join(',')}}` : flags[0]!;
    const value = takesValue(option) ? `:${zMessage(option.attributeName())}:${zshAction(completionHint(option), data)}` : '';
    const repeat = option.variadic ? '*' : '';
    specs.push(flags.length > 1 ? `'${exclusive}'${repeat ? `'*'` : ''}${names}'[${zDescription(option.description)}]${value}'` : `'${repeat}${names}[${zDescription(option.description)}]${value}'`);
  }
  for (const argument of command.registeredArguments) {
    const position = argument.variadic ? '*' : argument.required ? '' : ':';
    specs.push(`'${position}:${zMessage(argument.name())}:${zshAction(completionHint(argument), data)}'`);
  }
  specs.push('$help');
  return specs;
}

export function renderZsh(program: Command, data: CompletionData): string {
  const name = program.name();
  const out: string[] = [];
  const line = (text = '') => out.push(text);
  const describeList = (variable: string, entries: [string, string][]) => {
    line(`  ${variable}=(`);
    for (const [word, meaning] of entries) line(`    '${zq(word.replace(/:/g, '\\:'))}:${zq(meaning)}'`);
    line('  )');
  };
  line(`#compdef ${name}`);
  line(`# zsh completion for ${name}`);
  line(HEADER);
  line('#');
  line('# Load it in the current shell (after compinit):');
  line(`#   source <(${name} completion zsh)`);
  line('# or install it as an autoloaded function, from a directory on $fpath:');
  line(`#   ${name} completion zsh > "\${fpath[1]}/_${name}"`);
  line();
  line('_svc_router_skus() {');
  line('  local -a skus');
  describeList('skus', data.skus.map((sku) => [sku, 'SKU']));
  line("  _describe -t skus 'SKU' skus");
  line('}');
  line();
  line('_svc_router_route_models() {');
  line('  local expl ret=1');
  line('  _svc_router_skus && ret=0');
  line(`  _wanted patterns expl 'pattern' compadd -- ${data.routePatterns.map((pattern) => `'${zq(pattern)}'`).join(' ')} && ret=0`);
  line('  return ret');
  line('}');
  line();
  line('_svc_router_backend_names() {');
  line('  local -a names');
  line(`  if (( $+commands[${name}] )); then`);
  line(`    names=(\${(f)"$(${name} backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\\([^"]*\\)".*/\\1/p')"})`);
  line('  fi');
  line('  [[ $1 == --with-offline ]] && names+=(offline)');
  line("  _wanted backends expl 'backend' compadd -a names");
  line('}');
  line();
  line('_svc_router_targets() {');
  line("  if compset -P '*:'; then");
  line("    _message -e models 'upstream model'");
  line('  else');
  line('    _svc_router_backend_names --with-offline');
  line('  fi');
  line('}');
  line();
  line('_svc_router_config_keys() {');
  line('  local -a keys');
  describeList('keys', Object.entries(data.configKeys));
  line("  _describe -t config-keys 'config key' keys");
  line('}');
  line();
  line('_svc_router_config_value() {');
  line('  case $words[2] in');
  for (const [key, values] of Object.entries(data.configValues)) line(`    ${key}) _values 'value' ${values.join(' ')} ;;`);
  line("    *) _message -e values 'value' ;;");
  line('  esac');
  line('}');
  line();
  line('_svc_router_commands() {');
  line('  local -a commands');
  describeList('commands', [...program.commands.map((command): [string, string] => [command.name(), command.description()]), ['help', HELP.description]]);
  line(`  _describe -t commands '${name} command' commands`);
  line('}');
  line();
  line('_svc_router_group() {');
  line('  local group=$1 ret=1');
  line('  shift');
  line('  local -a subcommands');
  line('  subcommands=("$@")');
  line('  local curcontext=$curcontext state state_descr line');
  line('  typeset -A opt_args');
  line('  _arguments -C \\');
  line(`    '(- *)'{${HELP.flags.join(',')}}'[${HELP.description}]' \\`);
  line("    '1: :->subcommand' \\");
  line("    '*:: :->args' && ret=0");
  line('  case $state in');
  line('    subcommand)');
  line(`      _describe -t commands "${name} $group command" subcommands && ret=0`);
  line('      ;;');
  line('    args)');
  line(`      curcontext=\${curcontext%:*:*}:${name}-$group-$words[1]:`);
  line('      _svc_router_${group}_args && ret=0');
  line('      ;;');
  line('  esac');
  line('  return ret');
  line('}');
  const helpLine = `  help=('(- *)'{${HELP.flags.join(',')}}'[${HELP.description}]')`;
  for (const group of groups(program)) {
    line();
    line(`_svc_router_${group.name()}_args() {`);
    line('  local -a help');
    line(helpLine);
    line('  case $words[1] in');
    for (const sub of group.commands) zshArm(sub.name(), zshOptionSpecs(sub, data)).forEach((text) => line(text));
    line(`    help) _arguments ':command:(${group.commands.map((sub) => sub.name()).join(' ')})' ;;`);
    line('    *) return 1 ;;');
    line('  esac');
    line('}');
  }
  line();
  line('_svc_router() {');
  line('  local curcontext=$curcontext state state_descr line ret=1');
  line('  typeset -A opt_args');
  line('  local -a help');
  line(helpLine);
  line();
  line('  _arguments -C \\');
  line(`    '(- *)'{${VERSION.flags.join(',')}}'[${VERSION.description}]' \\`);
  line(`    '(- *)'{${HELP.flags.join(',')}}'[${HELP.description}]' \\`);
  line("    '1: :_svc_router_commands' \\");
  line("    '*:: :->args' && ret=0");
  line();
  line('  [[ $state == args ]] || return ret');
  line(`  curcontext=\${curcontext%:*:*}:${name}-$words[1]:`);
  line('  case $words[1] in');
  for (const command of program.commands) {
    if (command.commands.length) {
      const subs = command.commands.map((sub) => `'${zq(sub.name())}:${zq(sub.description())}'`);
      line(`    ${command.name()})`);
      line(`      _svc_router_group ${command.name()} \\`);
      subs.forEach((sub, index) => line(`        ${sub}${index < subs.length - 1 ? ' \\' : ''}`));
      line('      ret=$?');
      line('      ;;');
    } else {
      zshArm(command.name(), zshOptionSpecs(command, data), '&& ret=0').forEach((text) => line(text));
    }
  }
  line('    help)');
  line("      _arguments ':command:_svc_router_commands' && ret=0");
  line('      ;;');
  line('  esac');
  line('  return ret');
  line('}');
  line();
  line(`if [[ $funcstack[1] == _${name} ]]; then`);
  line('  _svc_router "$@"');
  line('else');
  line(`  (( $+functions[compdef] )) && compdef _svc_router ${name}`);
  line('fi');
  return `${out.join('\n')}\n`;
}

function zshArm(name: string, specs: string[], suffix = ''): string[] {
  const tail = suffix ? ` ${suffix}` : '';
  if (specs.length <= 2) return [`    ${name}) _arguments ${specs.join(' ')}${tail} ;;`];
  return [`    ${name})`, '      _arguments \\', ...specs.map((spec, index) => `        ${spec}${index < specs.length - 1 ? ' \\' : tail}`), '      ;;'];
}
