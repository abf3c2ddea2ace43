import { Argument, Command, Option } from 'commander';
import { BACKEND_TYPES } from '../core/backend-types.js';
import { CHAT_PROFILE_NAMES } from '../core/chat-profiles.js';
import { ANTHROPIC_AUTHS, KEY_POOL_STRATEGIES, SECRETS_MODES } from '../config/settings.js';
import { SKUS } from '../core/model-names.js';
import { completeArguments, completeWith, SHELLS } from './completion-hints.js';
import { CLIENTS } from './connect-clients.js';
import { addExamples } from './help-examples.js';
import { DOCTOR_CLIENTS } from './doctor/doctor-clients.js';

/**
 * The whole command tree. Actions import their modules only when they run, so `--version` and
 * `--help` load nothing but commander.
 */
export function buildProgram(version: string): Command {
  const program = new Command('svc-router')
    .description('A local router for LLM traffic: OpenAI Chat, OpenAI Responses and Anthropic Messages on one port.')
    .version(version, '-V, --version')
    .addHelpText('after', `\nExit codes: 0 ok · 1 request refused or operation failed · 2 usage · 3 not running (status) · 4 server unreachable.\nWith --json, errors are one JSON object on stderr: {"error":{"code","message","exit_code",…}}. See docs/cli.md.\n`);

  program
    .command('serve')
    .description('run the router (zero configuration: the built-in offline backend serves every SKU)')
    .option('--host <host>', 'address to bind (default: config server.host, 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: config server.port, 8787)')
    .addOption(completeWith(new Option('--offline-script <file>', 'JSON list of turns for the offline backend to replay (text and/or tool calls)'), 'files'))
    .option('--usage-store <store>', "where usage is recorded: 'file' or redis://HOST:PORT (default: config usage.store)")
    .addOption(new Option('--log-format <format>', 'request log on standard error: coloured text lines, or JSON lines').choices(['text', 'json']))
    .option('--quiet', 'no request log')
    .option('--log-bodies', 'also log request and response bodies, redacted (prompts included; off by default)')
    .option('--ui', 'serve the dashboard at /ui (default: config server.ui; beyond loopback it asks for an admin key)')
    .option('--metrics', 'serve Prometheus metrics on GET /metrics (default: config server.metrics)')
    .option('--otel [url]', 'export an OpenTelemetry span per request over OTLP/HTTP to URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318; config server.otel)')
    .addOption(completeWith(new Option('--config <file>', 'declarative config file (backends, routes, keys) over config.json, reloaded when it changes (env SVC_ROUTER_CONFIG)'), 'files'))
    .addOption(completeWith(new Option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain); with --tls-key (default: config server.tls.cert)'), 'files'))
    .addOption(completeWith(new Option('--tls-key <file>', "the certificate's PEM private key (default: config server.tls.key)"), 'files'))
    .option('--detach', 'run in the background (output to --log-file, default serve.log in the config directory); returns once it listens')
    .addOption(completeWith(new Option('--log-file <file>', 'write the banner and request log to FILE (appended, rotated by size) once listening'), 'files'))
    .option('--log-max-size <bytes>', 'rotate the log file when it would pass this size (default: 10485760)')
    .option('--log-keep <n>', 'rotated log files kept, FILE.1 the newest (default: 5; 0 keeps none)')
    .action(async (options) => (await import('./commands/serve.js')).runServe(options));

  program
    .command('logs')
    .description('show the requests serve recorded (time, caller, model, each target tried, tokens, cost, status, error), newest last')
    .option('-f, --follow', 'keep printing requests as they finish')
    .option('--since <when>', 'only requests since a duration ago (30m, 2h, 7d) or a date (2026-11-20)')
    .option('--caller <slug>', "only this developer's requests")
    .option('--status <status>', "only this status (429), class (5xx) or 'error' (400 and up)")
    .option('--session <id>', 'only the requests of this session (its id as svc-router sessions shows it, or its first characters)')
    .option('--limit <n>', 'at most this many of the newest matching requests (default: 50)')
    .option('--json', 'one JSON object per line, as stored')
    .action(async (options) => (await import('./commands/logs.js')).runLogs(options));

  program
    .command('status')
    .description('show whether serve is running (from its state file in the config directory): address, pid, uptime; exit code 0 if running, 3 if not')
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('./commands/status.js')).runStatus(options));

  program
    .command('stop')
    .description('stop the running serve (SIGTERM to the pid in its state file) and wait until it has exited; exit code 0 also when none runs')
    .option('--timeout <ms>', 'how long to wait for it to exit, in milliseconds (default: 15000)')
    .action(async (options) => (await import('./commands/stop.js')).runStop(options));

  program
    .command('restart')
    .description('stop the running serve and start it again in the background with the same arguments (or start one, when none runs)')
    .option('--timeout <ms>', 'how long to wait for the old one to exit, in milliseconds (default: 15000)')
    .action(async (options) => (await import('./commands/restart.js')).runRestart(options));

  program
    .command('init')
    .description("issue the local developer's own key and store it for the CLI")
    .option('--developer <slug>', 'developer slug (default: your login name)')
    .option('--org <name>', 'organisation')
    .option('--tier <name>', 'tier')
    .option('--cap <tokens>', '30-day token cap (default: config defaults.capTokens, 200000000)')
    .option('--force', 'replace an existing local key')
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('./commands/init.js')).runInit(options));

  const keys = program.command('keys').description('issue, list and revoke keys for developers');
  keys
    .command('issue')
    .description('issue a key for a developer (printed once; only its hash is stored)')
    .requiredOption('--developer <slug>', 'developer slug, e.g. alice')
    .option('--org <name>', 'organisation')
    .option('--tier <name>', 'tier')
    .option('--cap <tokens>', '30-day token cap')
    .option('--force', "replace the developer's existing key")
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('./commands/keys.js')).runKeysIssue(options));
  keys
    .command('cap <slug> <tokens>')
    .description("change a developer's 30-day token cap, keeping the key (a running server applies it on the next request)")
    .option('--json', 'print a JSON object')
    .action(async (slug, tokens, options) => (await import('./commands/keys.js')).runKeysCap(slug, tokens, options));
  keys
    .command('list')
    .description('list issued keys (never prints a key)')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('./commands/keys.js')).runKeysList(options));
  keys
    .command('limit <slug>')
    .description("set a developer key's rate limits per minute, shared by every router on the usage store")
    .option('--rpm <requests>', 'requests per minute')
    .option('--tpm <tokens>', 'input + output tokens per minute')
    .option('--clear', 'remove the limits')
    .action(async (slug, options) => (await import('./commands/keys.js')).runKeysLimit(slug, options));
  keys
    .command('revoke <slug>')
    .description("revoke a developer's key")
    .action(async (slug) => (await import('./commands/keys.js')).runKeysRevoke(slug));

  const backends = program.command('backends').description('configure upstream backends');
  backends
    .command('add <name>')
    .description('add or replace a backend')
    .addOption(new Option('--type <type>', 'wire format the upstream speaks').choices(BACKEND_TYPES).makeOptionMandatory())
    .option('--base-url <url>', 'upstream base URL, e.g. https://api.openai.com/v1 (required but for vertex and bedrock, whose region gives it)')
    .option('--api-key <key>', 'upstream API key (stored in the 0600 config file)')
    .option('--api-key-env <var>', 'environment variable holding the upstream API key')
    .option('--header <name=value...>', 'extra header sent upstream (repeatable)')
    .option('--connect-timeout <ms>', 'time to open a connection (default 10000)')
    .option('--first-byte-timeout <ms>', 'time to the response headers (default 300000)')
    .option('--idle-timeout <ms>', 'longest pause between body chunks, streamed or not (default 120000)')
    .option('--total-timeout <ms>', 'longest a non-streamed call may take, from sending to the last byte; streams are bounded by --idle-timeout instead (default 600000)')
    .option('--cache-control', "openai-chat only: the upstream takes cache_control on content parts (OpenRouter's Anthropic and Gemini models); prompt-cache breakpoints are sent to it")
    .addOption(new Option('--auth <auth>', 'anthropic only: send the key as x-api-key (default) or as Authorization: Bearer').choices(ANTHROPIC_AUTHS))
    .option('--anthropic-version <date>', "anthropic only: the anthropic-version every call sends, in place of the client's")
    .option('--api-version <version>', 'gemini only: the API version in the path, e.g. v1 (default v1beta)')
    .option('--project <id>', 'vertex only: the Google Cloud project')
    .option('--region <region>', 'vertex: the Vertex AI location, e.g. us-east5, europe-west1, global; bedrock: the AWS region to call and sign for, e.g. us-east-1')
    .option('--credentials <file>', 'vertex only: a service-account key file (JSON); default $GOOGLE_APPLICATION_CREDENTIALS, else the metadata server')
    .addOption(new Option('--profile <name>', "openai-chat only: the provider's own rules (reasoning sent back as it requires, refused fields left out with a warning)").choices(CHAT_PROFILE_NAMES))
    .option('--provider-routing <json>', 'with --profile openrouter: OpenRouter\'s provider routing object sent with every request, e.g. \'{"order":["anthropic"],"allow_fallbacks":false}\'')
    .option('--aws-profile <name>', 'bedrock only: the profile of ~/.aws/credentials and ~/.aws/config to sign with (default $AWS_PROFILE, then the environment and default sources)')
    .action(async (name, options) => (await import('./commands/backends.js')).runBackendsAdd(name, options));
  backends
    .command('list')
    .description('list backends (never prints keys)')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('./commands/backends.js')).runBackendsList(options));
  completeArguments(backends.command('pool <name>'), 'backends')
    .description('give a backend a pool of upstream keys: a key refused with 429/402 rests and the next is used')
    .option('--key <key...>', 'a key of the pool, stored in the 0600 config file (repeatable)')
    .option('--key-env <var...>', 'an environment variable holding a key of the pool (repeatable)')
    .addOption(new Option('--strategy <strategy>', 'each call the next key, or the first key until it rests').choices(KEY_POOL_STRATEGIES).default('round-robin'))
    .option('--rate-limit-cooldown <ms>', 'rest after a 429 that says nothing of when to retry (default 60000)')
    .option('--payment-cooldown <ms>', 'rest after a 402 that says nothing of when to retry (default 3600000)')
    .option('--clear', 'remove the pool (the backend uses its own key again)')
    .action(async (name, options) => (await import('./commands/backends.js')).runBackendsPool(name, options));
  completeArguments(backends.command('remove <name>'), 'backends')
    .description('remove a backend no route uses')
    .action(async (name) => (await import('./commands/backends.js')).runBackendsRemove(name));

  const routes = program.command('routes').description('map models to backends');
  completeArguments(routes.command('set <model> <targets...>'), 'route-models', 'targets')
    .description(`route a model (${SKUS.join(', ')}, or a pattern such as 'claude-*') to BACKEND[:UPSTREAM_MODEL] targets, in fallback order`)
    .option('--context-window <tokens>', "the route's context window (default: the smallest of its targets' known model families)")
    .option('--new', 'create a new svc.* SKU (without it, an svc.* name must be a built-in SKU or an existing route)')
    .action(async (model, targets, options) => (await import('./commands/routes.js')).runRoutesSet(model, targets, options));
  completeArguments(routes.command('window <name> [tokens]'), 'route-models')
    .description('set the context window clients are told for a route, or for a target BACKEND:UPSTREAM_MODEL')
    .option('--unset', 'remove the set window (the model catalog\'s applies again)')
    .action(async (name, tokens, options) => (await import('./commands/routes.js')).runRoutesWindow(name, tokens, options));
  routes
    .command('list')
    .description('list routes, including the offline defaults')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('./commands/routes.js')).runRoutesList(options));
  completeArguments(routes.command('rule <model> <name> <targets...>'), 'route-models', undefined, 'targets')
    .description('add (or replace) a task rule: requests to the route that match every condition given go to these targets')
    .option('--background', 'the client asked for a small model (*haiku*), as for background work')
    .option('--thinking', 'thinking is on (a budget, or an effort above minimal)')
    .option('--context-above <tokens>', 'the estimated input is above this many tokens')
    .option('--image', 'an image is in the conversation')
    .option('--web-search', 'the request offers a web search tool')
    .option('--model <pattern>', "the client's model name matches this '*' pattern")
    .action(async (model, name, targets, options) => (await import('./commands/routes.js')).runRoutesRule(model, name, targets, options));
  completeArguments(routes.command('rule-remove <model> <name>'), 'route-models')
    .description("remove a route's task rule")
    .action(async (model, name) => (await import('./commands/routes.js')).runRoutesRuleRemove(model, name));
  completeArguments(routes.command('weights <model> [pairs...]'), 'route-models')
    .description('balance which target leads the chain: TARGET=WEIGHT pairs (none: clear the weights)')
    .action(async (model, pairs) => (await import('./commands/routes.js')).runRoutesWeights(model, pairs));
  completeArguments(routes.command('guard <model> [mode]'), 'route-models', { words: SECRETS_MODES })
    .description("what the secrets guardrail does on this route's requests: off, warn, mask or refuse, over the router's guardrails.secrets")
    .option('--unset', "follow the router's guardrails.secrets again")
    .action(async (model, mode, options) => (await import('./commands/routes.js')).runRoutesGuard(model, mode, options));
  completeArguments(routes.command('search <model> [target]'), 'route-models')
    .description('where web search runs for targets without their own: BACKEND[:MODEL] of type anthropic, openai-responses or gemini')
    .option('--unset', 'remove the search target (requests offering search to such targets are refused)')
    .action(async (model, target, options) => (await import('./commands/routes.js')).runRoutesSearch(model, target, options));
  completeArguments(routes.command('unset <model>'), 'route-models')
    .description('remove a route')
    .action(async (model) => (await import('./commands/routes.js')).runRoutesUnset(model));

  const prices = program.command('prices').description('what upstream models cost: shipped defaults and your overrides');
  prices
    .command('list')
    .description('list the prices in force (US dollars per million tokens), config over shipped defaults')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('./commands/prices.js')).runPricesList(options));
  prices
    .command('set <model>')
    .description('price an upstream model (or BACKEND:MODEL) in US dollars per million tokens, over any default')
    .requiredOption('--input <usd>', 'uncached input')
    .requiredOption('--output <usd>', 'output')
    .option('--cache-read <usd>', 'input read from the prompt cache (without it, a request with cache reads gets no cost)')
    .option('--cache-write <usd>', 'input written to the prompt cache (without it, a request with cache writes gets no cost)')
    .action(async (model, options) => (await import('./commands/prices.js')).runPricesSet(model, options));
  prices
    .command('unset <model>')
    .description('remove a config price (a shipped default applies again)')
    .action(async (model) => (await import('./commands/prices.js')).runPricesUnset(model));

  const config = program.command('config').description('read and change settings');
  config
    .command('path')
    .description('print the config file path')
    .action(async () => (await import('./commands/config.js')).runConfigPath());
  completeArguments(config.command('get <key>'), 'config-keys')
    .description('print a setting')
    .action(async (key) => (await import('./commands/config.js')).runConfigGet(key));
  completeArguments(config.command('set <key> <value>'), 'config-keys', 'config-value')
    .description('change a setting (server.host, server.port, server.bodyLimitBytes, usage.store, defaults.*)')
    .action(async (key, value) => (await import('./commands/config.js')).runConfigSet(key, value));
  config
    .command('export')
    .description('print the settings in force as a declarative file to commit or share (secrets only by environment-variable name; notes on stderr)')
    .addOption(completeWith(new Option('-o, --output <file>', 'write the file instead of printing it'), 'files'))
    .option('--force', 'replace an existing --output file')
    .option('--with-keys', "include issued keys' records (hashes, never keys), so routers sharing the file accept the same keys")
    .option('--schema-ref <ref>', 'the $schema reference to write (default: ./node_modules/svc-router/… when the project installs svc-router, else this svc-router\'s schema, relative to the file)')
    .action(async (options) => (await import('./commands/config-file.js')).runConfigExport(options));
  completeArguments(config.command('import <file>'), 'files')
    .description('write a declarative file into config.json, listing every change (nothing is written if the file is not valid)')
    .option('--dry-run', 'list the changes without writing them')
    .action(async (file, options) => (await import('./commands/config-file.js')).runConfigImport(file, options));
  completeArguments(config.command('validate [file]'), 'files')
    .description("check a declarative file (default: $SVC_ROUTER_CONFIG, else the running serve's), naming the line and column of each problem; exit code 2 if it is not valid")
    .option('--json', 'print the result as JSON')
    .action(async (file, options) => (await import('./commands/config-file.js')).runConfigValidate(file, options));

  const connection = (command: Command) =>
    command
      .option('--base-url <url>', 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)')
      .option('--key <key>', 'key to send (env SVC_ROUTER_KEY; default: the stored local key)')
      .option('--json', 'print the raw response body');

  connection(program.command('whoami').description('show who the key belongs to and its usage against the 30-day cap')).action(async (options) =>
    (await import('./commands/quick-checks.js')).runWhoami(options),
  );
  connection(program.command('usage').description("everyone's usage and cost over the 30-day window by key, SKU, upstream model and day, with bar charts (needs an admin key: the local key, or one with --tier admin)")).action(
    async (options) => (await import('./commands/usage.js')).runUsage(options),
  );
  program
    .command('sessions')
    .description(
      "each session the running router served: client, route, target and pooled key, turns, tokens, cache-hit share, cost, duration, and every turn whose cached share dropped with the reason the router saw (needs an admin key)",
    )
    .option('--base-url <url>', "the router to ask: sessions live in its memory (env SVC_ROUTER_BASE_URL; default: the running serve's address)")
    .option('--key <key>', 'key to send (env SVC_ROUTER_KEY; default: the stored local key)')
    .option('--json', 'print the report as GET /admin/sessions returns it')
    .action(async (options) => (await import('./commands/sessions.js')).runSessions(options));
  const models = program.command('models').description('the models the router serves, and what the catalog knows of each');
  // `svc-router models` alone lists them, as it did before `info` joined it.
  connection(models.command('list', { isDefault: true }).description('list the models the router serves')).action(async (options) =>
    (await import('./commands/quick-checks.js')).runModels(options),
  );
  completeArguments(models.command('info <model>'), 'route-models')
    .description("what the model catalog knows of a model (a route, BACKEND:MODEL or an upstream model): context window, output cap, prices, capabilities, each with its source")
    .option('--json', 'print JSON')
    .action(async (model, options) => (await import('./commands/models-info.js')).runModelsInfo(model, options));
  connection(
    program
      .command('chat [prompt...]')
      .description('send one chat message (prompt from the arguments, or standard input)')
      .addOption(completeWith(new Option('-m, --model <model>', 'model to ask').default('svc.intelligent-basic'), 'skus'))
      .option('-s, --system <text>', 'system prompt')
      .option('--max-tokens <n>', 'output cap')
      .option('--stream', 'print tokens as they arrive'),
  ).action(async (prompt, options) => (await import('./commands/chat.js')).runChat(prompt, options));

  program
    .command('env')
    .description('print export lines for OPENAI_* and ANTHROPIC_* client variables')
    .option('--base-url <url>', "the router's address (default: from config)")
    .option('--key <key>', 'key to put in the lines (default: the stored local key)')
    .action(async (options) => (await import('./commands/env.js')).runEnv(options));

  program
    .command('doctor')
    .description("check the key, base URL, router, each backend's key, routes, config file and serve port; exit code = number of failures")
    .option('--base-url <url>', "the router's address as clients use it (env SVC_ROUTER_BASE_URL; default: from config)")
    .option('--key <key>', 'key to check (env SVC_ROUTER_KEY; default: the stored local key)')
    .option('--timeout <ms>', 'how long each network check may take, in milliseconds (default: 2000; the --live requests: 30000)')
    .option('--live', "also send a one-token request to each routed model, through its backend (it costs a few tokens); without it, each backend's key is proven on its free model list")
    .addOption(new Option('--client <client>', 'also check what this client needs: its base URL form, the settings connect --write manages, its environment variables').choices(DOCTOR_CLIENTS))
    .option('--json', 'print the results as JSON')
    .action(async (options) => (await import('./commands/doctor.js')).runDoctor(options));

  program
    .command('connect')
    .description('print (or --write) the settings that point Codex, Claude Code or an SDK at this router; stdout is the file or module alone, hints go to stderr')
    .addArgument(new Argument('<client>', 'the client to connect').choices(CLIENTS))
    .option('--write', "merge the settings into the client's own config file (codex, claude), printing the changes and keeping a backup")
    .option('--undo', 'put back the config file as it was before the last --write (codex, claude)')
    .option('--force', 'with --undo: restore even if the file has changed since the write')
    .option('--base-url <url>', "the router's address (default: from config)")
    .option('--key <key>', 'key to use (default: the stored local key)')
    .action(async (client, options) => (await import('./commands/connect.js')).runConnect(client, options));

  completeArguments(program.command('completion <shell>'), { words: SHELLS })
    .description(`print a completion script for ${SHELLS.slice(0, -1).join(', ')} or ${SHELLS.at(-1)}`)
    .action(async (shell) => (await import('./commands/completion.js')).runCompletion(shell));

  addExamples(program);
  return program;
}
