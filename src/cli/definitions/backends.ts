import { Option } from 'commander';
import { BACKEND_TYPES } from '../../core/backend-types.js';
import { CHAT_PROFILE_NAMES } from '../../core/chat-profiles.js';
import { ANTHROPIC_AUTHS, KEY_POOL_STRATEGIES } from '../../config/settings.js';
import { completeArguments } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

export const backends: CommandDefinition = (program) => {
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
    .option('--websocket', "openai-responses only: streamed turns over the upstream's WebSocket mode, one socket per session, each turn sending only its new input (HTTP when the upgrade is refused)")
    .option('--aws-profile <name>', 'bedrock only: the profile of ~/.aws/credentials and ~/.aws/config to sign with (default $AWS_PROFILE, then the environment and default sources)')
    .action(async (name, options) => (await import('../commands/backends.js')).runBackendsAdd(name, options));
  backends
    .command('list')
    .description('list backends (never prints keys)')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('../commands/backends.js')).runBackendsList(options));
  completeArguments(backends.command('pool <name>'), 'backends')
    .description('give a backend a pool of upstream keys: a key refused with 429/402 rests and the next is used')
    .option('--key <key...>', 'a key of the pool, stored in the 0600 config file (repeatable)')
    .option('--key-env <var...>', 'an environment variable holding a key of the pool (repeatable)')
    .addOption(new Option('--strategy <strategy>', 'each call the next key, or the first key until it rests').choices(KEY_POOL_STRATEGIES).default('round-robin'))
    .option('--rate-limit-cooldown <ms>', 'rest after a 429 that says nothing of when to retry (default 60000)')
    .option('--payment-cooldown <ms>', 'rest after a 402 that says nothing of when to retry (default 3600000)')
    .option('--clear', 'remove the pool (the backend uses its own key again)')
    .action(async (name, options) => (await import('../commands/backends.js')).runBackendsPool(name, options));
  completeArguments(backends.command('remove <name>'), 'backends')
    .description('remove a backend no route uses')
    .action(async (name) => (await import('../commands/backends.js')).runBackendsRemove(name));
};
