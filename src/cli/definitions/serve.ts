import { Option } from 'commander';
import { completeWith } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

export const serve: CommandDefinition = (program) => {
  program
    .command('serve')
    .description('run the router (zero configuration: the built-in offline backend serves every SKU)')
    .option('--host <host>', 'address to bind (default: config server.host, 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: config server.port, 8787)')
    .addOption(completeWith(new Option('--offline-script <file>', 'JSON list of turns for the offline backend to replay (text and/or tool calls)'), 'files'))
    .option('--usage-store <store>', "where usage is recorded: 'file', redis://HOST:PORT or redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER (default: config usage.store)")
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
    .action(async (options) => (await import('../commands/serve.js')).runServe(options));
};
