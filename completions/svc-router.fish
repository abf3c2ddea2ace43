# fish completion for svc-router
# Generated from the command tree by `npm run docs` (src/cli/completion/); do not edit by hand.
#
# Load it in the current shell:
#   svc-router completion fish | source
# or install it for every new shell:
#   svc-router completion fish > ~/.config/fish/completions/svc-router.fish

# The command, subcommand and arguments typed so far, without options and their values.
function __svc_router_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l skip 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $token
            case --host --port --offline-script --usage-store --log-format --otel --config --tls-cert --tls-key --log-file --log-max-size --log-keep --since --caller --status --session --limit --timeout --developer --org --tier --cap --rpm --tpm --type --base-url --api-key --api-key-env --header --connect-timeout --first-byte-timeout --idle-timeout --total-timeout --auth --anthropic-version --api-version --project --region --credentials --profile --provider-routing --aws-profile --key --key-env --strategy --rate-limit-cooldown --payment-cooldown --context-window --context-above --model --input --output --cache-read --cache-write -o --schema-ref -m -s --system --max-tokens --client
                set skip 1
            case '-*'
            case '*'
                echo $token
        end
    end
end

# True when the words typed so far are exactly the arguments.
function __svc_router_is
    set -l words (__svc_router_words)
    test (count $words) -eq (count $argv); or return 1
    for i in (seq (count $argv))
        test "$words[$i]" = "$argv[$i]"; or return 1
    end
end

# True when the words typed so far begin with the arguments.
function __svc_router_in
    set -l words (__svc_router_words)
    test (count $words) -ge (count $argv); or return 1
    for i in (seq (count $argv))
        test "$words[$i]" = "$argv[$i]"; or return 1
    end
end

function __svc_router_backends
    if command -sq svc-router
        svc-router backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p'
    end
end

# Route targets: BACKEND[:UPSTREAM_MODEL]; only the backend part is completed.
function __svc_router_targets
    string match -q '*:*' -- (commandline -ct); and return
    __svc_router_backends
    echo offline
end

function __svc_router_config_keys
    printf '%s\t%s\n' 'server.host' 'address serve binds to'
    printf '%s\t%s\n' 'server.port' 'port serve listens on'
    printf '%s\t%s\n' 'server.bodyLimitBytes' 'largest request body accepted'
    printf '%s\t%s\n' 'server.bodyTimeoutMs' 'ms from request headers to the end of the body'
    printf '%s\t%s\n' 'server.headersTimeoutMs' 'ms to receive request headers'
    printf '%s\t%s\n' 'server.maxConnections' 'open client connections allowed'
    printf '%s\t%s\n' 'server.metrics' 'serve Prometheus metrics on GET /metrics'
    printf '%s\t%s\n' 'server.ui' 'serve the dashboard at /ui'
    printf '%s\t%s\n' 'server.websockets' 'take Responses over WebSocket on GET /v1/responses'
    printf '%s\t%s\n' 'server.otel' 'export an OpenTelemetry span per request to OTEL_EXPORTER_OTLP_ENDPOINT'
    printf '%s\t%s\n' 'server.requestLogDays' 'days the searchable request log'
    printf '%s\t%s\n' 'server.requestLogMaxBytes' 'bytes the searchable request log may take on disk'
    printf '%s\t%s\n' 'server.tls.cert' 'PEM certificate'
    printf '%s\t%s\n' 'server.tls.key' 'the certificate\'s PEM private key, a file only you can read'
    printf '%s\t%s\n' 'server.hosts' 'names the dashboard, /admin and /metrics answer to in Host, comma-separated, besides the loopback names or the address bound'
    printf '%s\t%s\n' 'server.cors' 'origins whose browser pages may call the model endpoints'
    printf '%s\t%s\n' 'usage.store' 'where usage is recorded'
    printf '%s\t%s\n' 'routing.sessionHeader' 'a request header naming the client\'s session, read first'
    printf '%s\t%s\n' 'limits.outputReserveTokens' 'output held against the cap for a request that sets no max output tokens'
    printf '%s\t%s\n' 'limits.reservationTtlMs' 'ms a cap reservation outlives a router that died before settling it'
    printf '%s\t%s\n' 'limits.session.tokens' 'input plus output tokens one client session may use'
    printf '%s\t%s\n' 'limits.session.usd' 'US dollars one client session may spend, at the prices its usage is billed at'
    printf '%s\t%s\n' 'notify.webhook' 'URL sent one JSON POST when a key crosses 50, 80 and 100 % of its 30-day cap, once each per 30 days'
    printf '%s\t%s\n' 'guardrails.secrets' 'credentials in a request\'s text'
    printf '%s\t%s\n' 'safeguards.classifier' 'the route asked whether each of Claude Code\'s tool calls is dangerous, in auto mode on routes whose upstream gives no verdict'
    printf '%s\t%s\n' 'safeguards.timeoutMs' 'ms the router waits for one safety verdict, from the end of its tool call, before telling Claude Code the check failed'
    printf '%s\t%s\n' 'defaults.organisation' 'organisation given to new keys'
    printf '%s\t%s\n' 'defaults.tier' 'tier given to new keys'
    printf '%s\t%s\n' 'defaults.capTokens' '30-day token cap given to new keys'
end

set -l skus svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite

complete -c svc-router -f
complete -c svc-router -n '__svc_router_is' -s V -l version -d 'output the version number'
complete -c svc-router -s h -l help -d 'display help for command'
complete -c svc-router -n '__svc_router_is' -a serve -d 'run the router (zero configuration: the built-in offline backend serves every SKU)'
complete -c svc-router -n '__svc_router_is' -a logs -d 'show the requests serve recorded (time, caller, model, each target tried, tokens, cost, status, error), newest last'
complete -c svc-router -n '__svc_router_is' -a status -d 'show whether serve is running (from its state file in the config directory): address, pid, uptime; exit code 0 if running, 3 if not'
complete -c svc-router -n '__svc_router_is' -a stop -d 'stop the running serve (SIGTERM to the pid in its state file) and wait until it has exited; exit code 0 also when none runs'
complete -c svc-router -n '__svc_router_is' -a restart -d 'stop the running serve and start it again in the background with the same arguments (or start one, when none runs)'
complete -c svc-router -n '__svc_router_is' -a init -d 'issue the local developer\'s own key and store it for the CLI'
complete -c svc-router -n '__svc_router_is' -a keys -d 'issue, list and revoke keys for developers'
complete -c svc-router -n '__svc_router_is' -a backends -d 'configure upstream backends'
complete -c svc-router -n '__svc_router_is' -a routes -d 'map models to backends'
complete -c svc-router -n '__svc_router_is' -a prices -d 'what upstream models cost: shipped defaults and your overrides'
complete -c svc-router -n '__svc_router_is' -a config -d 'read and change settings'
complete -c svc-router -n '__svc_router_is' -a whoami -d 'show who the key belongs to and its usage against the 30-day cap'
complete -c svc-router -n '__svc_router_is' -a usage -d 'everyone\'s usage and cost over the 30-day window by key, SKU, upstream model and day, with bar charts (needs an admin key: the local key, or one with --tier admin)'
complete -c svc-router -n '__svc_router_is' -a sessions -d 'each session the running router served: client, route, target and pooled key, turns, tokens, cache-hit share, cost, duration, and every turn whose cached share dropped with the reason the router saw (needs an admin key)'
complete -c svc-router -n '__svc_router_is' -a models -d 'the models the router serves, and what the catalog knows of each'
complete -c svc-router -n '__svc_router_is' -a chat -d 'send one chat message (prompt from the arguments, or standard input)'
complete -c svc-router -n '__svc_router_is' -a env -d 'print export lines for OPENAI_*, ANTHROPIC_* and Gemini (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY) client variables'
complete -c svc-router -n '__svc_router_is' -a doctor -d 'check the key, base URL, router, each backend\'s key, routes, config file and serve port; exit code = number of failures'
complete -c svc-router -n '__svc_router_is' -a connect -d 'print (or --write) the settings that point Codex, Claude Code, Gemini CLI or an SDK at this router; stdout is the file or module alone, hints go to stderr'
complete -c svc-router -n '__svc_router_is' -a completion -d 'print a completion script for bash, zsh or fish'
complete -c svc-router -n '__svc_router_is' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is help' -a 'serve logs status stop restart init keys backends routes prices config whoami usage sessions models chat env doctor connect completion'

# keys
complete -c svc-router -n '__svc_router_is keys' -a issue -d 'issue a key for a developer (printed once; only its hash is stored)'
complete -c svc-router -n '__svc_router_is keys' -a cap -d 'change a developer\'s 30-day token cap, keeping the key (a running server applies it on the next request)'
complete -c svc-router -n '__svc_router_is keys' -a list -d 'list issued keys (never prints a key)'
complete -c svc-router -n '__svc_router_is keys' -a limit -d 'set a developer key\'s rate limits per minute, shared by every router on the usage store'
complete -c svc-router -n '__svc_router_is keys' -a revoke -d 'revoke a developer\'s key'
complete -c svc-router -n '__svc_router_is keys' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is keys help' -a 'issue cap list limit revoke'

# backends
complete -c svc-router -n '__svc_router_is backends' -a add -d 'add or replace a backend'
complete -c svc-router -n '__svc_router_is backends' -a list -d 'list backends (never prints keys)'
complete -c svc-router -n '__svc_router_is backends' -a pool -d 'give a backend a pool of upstream keys: a key refused with 429/402 rests and the next is used'
complete -c svc-router -n '__svc_router_is backends' -a remove -d 'remove a backend no route uses'
complete -c svc-router -n '__svc_router_is backends' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is backends help' -a 'add list pool remove'

# routes
complete -c svc-router -n '__svc_router_is routes' -a set -d 'route a model (svc.intelligent-pro, svc.intelligent-basic, svc.intelligent-lite, or a pattern such as \'claude-*\') to BACKEND[:UPSTREAM_MODEL] targets, in fallback order'
complete -c svc-router -n '__svc_router_is routes' -a window -d 'set the context window clients are told for a route, or for a target BACKEND:UPSTREAM_MODEL'
complete -c svc-router -n '__svc_router_is routes' -a list -d 'list routes, including the offline defaults'
complete -c svc-router -n '__svc_router_is routes' -a rule -d 'add (or replace) a task rule: requests to the route that match every condition given go to these targets'
complete -c svc-router -n '__svc_router_is routes' -a rule-remove -d 'remove a route\'s task rule'
complete -c svc-router -n '__svc_router_is routes' -a weights -d 'balance which target leads the chain: TARGET=WEIGHT pairs (none: clear the weights)'
complete -c svc-router -n '__svc_router_is routes' -a guard -d 'what the secrets guardrail does on this route\'s requests: off, warn, mask or refuse, over the router\'s guardrails.secrets'
complete -c svc-router -n '__svc_router_is routes' -a search -d 'where web search runs for targets without their own: BACKEND[:MODEL] of type anthropic, openai-responses or gemini'
complete -c svc-router -n '__svc_router_is routes' -a unset -d 'remove a route'
complete -c svc-router -n '__svc_router_is routes' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is routes help' -a 'set window list rule rule-remove weights guard search unset'

# prices
complete -c svc-router -n '__svc_router_is prices' -a list -d 'list the prices in force (US dollars per million tokens), config over shipped defaults'
complete -c svc-router -n '__svc_router_is prices' -a set -d 'price an upstream model (or BACKEND:MODEL) in US dollars per million tokens, over any default'
complete -c svc-router -n '__svc_router_is prices' -a unset -d 'remove a config price (a shipped default applies again)'
complete -c svc-router -n '__svc_router_is prices' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is prices help' -a 'list set unset'

# config
complete -c svc-router -n '__svc_router_is config' -a path -d 'print the config file path'
complete -c svc-router -n '__svc_router_is config' -a get -d 'print a setting'
complete -c svc-router -n '__svc_router_is config' -a set -d 'change a setting (server.host, server.port, server.bodyLimitBytes, usage.store, defaults.*)'
complete -c svc-router -n '__svc_router_is config' -a export -d 'print the settings in force as a declarative file to commit or share (secrets only by environment-variable name; notes on stderr)'
complete -c svc-router -n '__svc_router_is config' -a import -d 'write a declarative file into config.json, listing every change (nothing is written if the file is not valid)'
complete -c svc-router -n '__svc_router_is config' -a validate -d 'check a declarative file (default: $SVC_ROUTER_CONFIG, else the running serve\'s), naming the line and column of each problem; exit code 2 if it is not valid'
complete -c svc-router -n '__svc_router_is config' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is config help' -a 'path get set export import validate'

# models
complete -c svc-router -n '__svc_router_is models' -a list -d 'list the models the router serves'
complete -c svc-router -n '__svc_router_is models' -a info -d 'what the model catalog knows of a model (a route, BACKEND:MODEL or an upstream model): context window, output cap, prices, capabilities, each with its source'
complete -c svc-router -n '__svc_router_is models' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is models help' -a 'list info'

# serve
complete -c svc-router -n '__svc_router_in serve' -l host -x -d 'address to bind (default: config server.host, 127.0.0.1)'
complete -c svc-router -n '__svc_router_in serve' -l port -x -d 'port to listen on; 0 picks a free one (default: config server.port, 8787)'
complete -c svc-router -n '__svc_router_in serve' -l offline-script -r -F -d 'JSON list of turns for the offline backend to replay (text and/or tool calls)'
complete -c svc-router -n '__svc_router_in serve' -l usage-store -x -d 'where usage is recorded: \'file\', redis://HOST:PORT or redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER (default: config usage.store)'
complete -c svc-router -n '__svc_router_in serve' -l log-format -x -a 'text json' -d 'request log on standard error: coloured text lines, or JSON lines'
complete -c svc-router -n '__svc_router_in serve' -l quiet -d 'no request log'
complete -c svc-router -n '__svc_router_in serve' -l log-bodies -d 'also log request and response bodies, redacted (prompts included; off by default)'
complete -c svc-router -n '__svc_router_in serve' -l ui -d 'serve the dashboard at /ui (default: config server.ui; beyond loopback it asks for an admin key)'
complete -c svc-router -n '__svc_router_in serve' -l metrics -d 'serve Prometheus metrics on GET /metrics (default: config server.metrics)'
complete -c svc-router -n '__svc_router_in serve' -l otel -x -d 'export an OpenTelemetry span per request over OTLP/HTTP to URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318; config server.otel)'
complete -c svc-router -n '__svc_router_in serve' -l config -r -F -d 'declarative config file (backends, routes, keys) over config.json, reloaded when it changes (env SVC_ROUTER_CONFIG)'
complete -c svc-router -n '__svc_router_in serve' -l tls-cert -r -F -d 'serve HTTPS with this PEM certificate (chain); with --tls-key (default: config server.tls.cert)'
complete -c svc-router -n '__svc_router_in serve' -l tls-key -r -F -d 'the certificate\'s PEM private key (default: config server.tls.key)'
complete -c svc-router -n '__svc_router_in serve' -l detach -d 'run in the background (output to --log-file, default serve.log in the config directory); returns once it listens'
complete -c svc-router -n '__svc_router_in serve' -l log-file -r -F -d 'write the banner and request log to FILE (appended, rotated by size) once listening'
complete -c svc-router -n '__svc_router_in serve' -l log-max-size -x -d 'rotate the log file when it would pass this size (default: 10485760)'
complete -c svc-router -n '__svc_router_in serve' -l log-keep -x -d 'rotated log files kept, FILE.1 the newest (default: 5; 0 keeps none)'

# logs
complete -c svc-router -n '__svc_router_in logs' -s f -l follow -d 'keep printing requests as they finish'
complete -c svc-router -n '__svc_router_in logs' -l since -x -d 'only requests since a duration ago (30m, 2h, 7d) or a date (2026-11-20)'
complete -c svc-router -n '__svc_router_in logs' -l caller -x -d 'only this developer\'s requests'
complete -c svc-router -n '__svc_router_in logs' -l status -x -d 'only this status (429), class (5xx) or \'error\' (400 and up)'
complete -c svc-router -n '__svc_router_in logs' -l session -x -d 'only the requests of this session (its id as svc-router sessions shows it, or its first characters)'
complete -c svc-router -n '__svc_router_in logs' -l limit -x -d 'at most this many of the newest matching requests (default: 50)'
complete -c svc-router -n '__svc_router_in logs' -l json -d 'one JSON object per line, as stored'

# status
complete -c svc-router -n '__svc_router_in status' -l json -d 'print a JSON object'

# stop
complete -c svc-router -n '__svc_router_in stop' -l timeout -x -d 'how long to wait for it to exit, in milliseconds (default: 15000)'

# restart
complete -c svc-router -n '__svc_router_in restart' -l timeout -x -d 'how long to wait for the old one to exit, in milliseconds (default: 15000)'

# init
complete -c svc-router -n '__svc_router_in init' -l developer -x -d 'developer slug (default: your login name)'
complete -c svc-router -n '__svc_router_in init' -l org -x -d 'organisation'
complete -c svc-router -n '__svc_router_in init' -l tier -x -d 'tier'
complete -c svc-router -n '__svc_router_in init' -l cap -x -d '30-day token cap (default: config defaults.capTokens, 200000000)'
complete -c svc-router -n '__svc_router_in init' -l force -d 'replace an existing local key'
complete -c svc-router -n '__svc_router_in init' -l json -d 'print a JSON object'

# keys issue
complete -c svc-router -n '__svc_router_in keys issue' -l developer -x -d 'developer slug, e.g. alice'
complete -c svc-router -n '__svc_router_in keys issue' -l org -x -d 'organisation'
complete -c svc-router -n '__svc_router_in keys issue' -l tier -x -d 'tier'
complete -c svc-router -n '__svc_router_in keys issue' -l cap -x -d '30-day token cap'
complete -c svc-router -n '__svc_router_in keys issue' -l force -d 'replace the developer\'s existing key'
complete -c svc-router -n '__svc_router_in keys issue' -l json -d 'print a JSON object'

# keys cap
complete -c svc-router -n '__svc_router_in keys cap' -l json -d 'print a JSON object'

# keys list
complete -c svc-router -n '__svc_router_in keys list' -l json -d 'print JSON'

# keys limit
complete -c svc-router -n '__svc_router_in keys limit' -l rpm -x -d 'requests per minute'
complete -c svc-router -n '__svc_router_in keys limit' -l tpm -x -d 'input + output tokens per minute'
complete -c svc-router -n '__svc_router_in keys limit' -l clear -d 'remove the limits'

# keys revoke

# backends add
complete -c svc-router -n '__svc_router_in backends add' -l type -x -a 'openai-chat openai-responses anthropic gemini vertex bedrock' -d 'wire format the upstream speaks'
complete -c svc-router -n '__svc_router_in backends add' -l base-url -x -d 'upstream base URL, e.g. https://api.openai.com/v1 (required but for vertex and bedrock, whose region gives it)'
complete -c svc-router -n '__svc_router_in backends add' -l api-key -x -d 'upstream API key (stored in the 0600 config file)'
complete -c svc-router -n '__svc_router_in backends add' -l api-key-env -x -d 'environment variable holding the upstream API key'
complete -c svc-router -n '__svc_router_in backends add' -l header -x -d 'extra header sent upstream (repeatable)'
complete -c svc-router -n '__svc_router_in backends add' -l connect-timeout -x -d 'time to open a connection (default 10000)'
complete -c svc-router -n '__svc_router_in backends add' -l first-byte-timeout -x -d 'time to the response headers (default 300000)'
complete -c svc-router -n '__svc_router_in backends add' -l idle-timeout -x -d 'longest pause between body chunks, streamed or not (default 120000)'
complete -c svc-router -n '__svc_router_in backends add' -l total-timeout -x -d 'longest a non-streamed call may take, from sending to the last byte; streams are bounded by --idle-timeout instead (default 600000)'
complete -c svc-router -n '__svc_router_in backends add' -l cache-control -d 'openai-chat only: the upstream takes cache_control on content parts (OpenRouter\'s Anthropic and Gemini models); prompt-cache breakpoints are sent to it'
complete -c svc-router -n '__svc_router_in backends add' -l auth -x -a 'x-api-key bearer' -d 'anthropic only: send the key as x-api-key (default) or as Authorization: Bearer'
complete -c svc-router -n '__svc_router_in backends add' -l anthropic-version -x -d 'anthropic only: the anthropic-version every call sends, in place of the client\'s'
complete -c svc-router -n '__svc_router_in backends add' -l api-version -x -d 'gemini only: the API version in the path, e.g. v1 (default v1beta)'
complete -c svc-router -n '__svc_router_in backends add' -l project -x -d 'vertex only: the Google Cloud project'
complete -c svc-router -n '__svc_router_in backends add' -l region -x -d 'vertex: the Vertex AI location, e.g. us-east5, europe-west1, global; bedrock: the AWS region to call and sign for, e.g. us-east-1'
complete -c svc-router -n '__svc_router_in backends add' -l credentials -x -d 'vertex only: a service-account key file (JSON); default $GOOGLE_APPLICATION_CREDENTIALS, else the metadata server'
complete -c svc-router -n '__svc_router_in backends add' -l profile -x -a 'openrouter deepseek groq mistral xai' -d 'openai-chat only: the provider\'s own rules (reasoning sent back as it requires, refused fields left out with a warning)'
complete -c svc-router -n '__svc_router_in backends add' -l provider-routing -x -d 'with --profile openrouter: OpenRouter\'s provider routing object sent with every request, e.g. \'{"order":["anthropic"],"allow_fallbacks":false}\''
complete -c svc-router -n '__svc_router_in backends add' -l websocket -d 'openai-responses only: streamed turns over the upstream\'s WebSocket mode, one socket per session, each turn sending only its new input (HTTP when the upgrade is refused)'
complete -c svc-router -n '__svc_router_in backends add' -l aws-profile -x -d 'bedrock only: the profile of ~/.aws/credentials and ~/.aws/config to sign with (default $AWS_PROFILE, then the environment and default sources)'

# backends list
complete -c svc-router -n '__svc_router_in backends list' -l json -d 'print JSON'

# backends pool
complete -c svc-router -n '__svc_router_in backends pool' -l key -x -d 'a key of the pool, stored in the 0600 config file (repeatable)'
complete -c svc-router -n '__svc_router_in backends pool' -l key-env -x -d 'an environment variable holding a key of the pool (repeatable)'
complete -c svc-router -n '__svc_router_in backends pool' -l strategy -x -a 'round-robin fill-first' -d 'each call the next key, or the first key until it rests'
complete -c svc-router -n '__svc_router_in backends pool' -l rate-limit-cooldown -x -d 'rest after a 429 that says nothing of when to retry (default 60000)'
complete -c svc-router -n '__svc_router_in backends pool' -l payment-cooldown -x -d 'rest after a 402 that says nothing of when to retry (default 3600000)'
complete -c svc-router -n '__svc_router_in backends pool' -l clear -d 'remove the pool (the backend uses its own key again)'
complete -c svc-router -n '__svc_router_in backends pool; and test (count (__svc_router_words)) -eq 2' -a '(__svc_router_backends)' -d 'name'

# backends remove
complete -c svc-router -n '__svc_router_in backends remove; and test (count (__svc_router_words)) -eq 2' -a '(__svc_router_backends)' -d 'name'

# routes set
complete -c svc-router -n '__svc_router_in routes set' -l context-window -x -d 'the route\'s context window (default: the smallest of its targets\' known model families)'
complete -c svc-router -n '__svc_router_in routes set' -l new -d 'create a new svc.* SKU (without it, an svc.* name must be a built-in SKU or an existing route)'
complete -c svc-router -n '__svc_router_in routes set; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'
complete -c svc-router -n '__svc_router_in routes set; and test (count (__svc_router_words)) -ge 3' -a '(__svc_router_targets)' -d 'targets'

# routes window
complete -c svc-router -n '__svc_router_in routes window' -l unset -d 'remove the set window (the model catalog\'s applies again)'
complete -c svc-router -n '__svc_router_in routes window; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'name'

# routes list
complete -c svc-router -n '__svc_router_in routes list' -l json -d 'print JSON'

# routes rule
complete -c svc-router -n '__svc_router_in routes rule' -l background -d 'the client asked for a small model (*haiku*), as for background work'
complete -c svc-router -n '__svc_router_in routes rule' -l thinking -d 'thinking is on (a budget, or an effort above minimal)'
complete -c svc-router -n '__svc_router_in routes rule' -l context-above -x -d 'the estimated input is above this many tokens'
complete -c svc-router -n '__svc_router_in routes rule' -l image -d 'an image is in the conversation'
complete -c svc-router -n '__svc_router_in routes rule' -l web-search -d 'the request offers a web search tool'
complete -c svc-router -n '__svc_router_in routes rule' -l model -x -d 'the client\'s model name matches this \'*\' pattern'
complete -c svc-router -n '__svc_router_in routes rule; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'
complete -c svc-router -n '__svc_router_in routes rule; and test (count (__svc_router_words)) -ge 4' -a '(__svc_router_targets)' -d 'targets'

# routes rule-remove
complete -c svc-router -n '__svc_router_in routes rule-remove; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'

# routes weights
complete -c svc-router -n '__svc_router_in routes weights; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'

# routes guard
complete -c svc-router -n '__svc_router_in routes guard' -l unset -d 'follow the router\'s guardrails.secrets again'
complete -c svc-router -n '__svc_router_in routes guard; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'
complete -c svc-router -n '__svc_router_in routes guard; and test (count (__svc_router_words)) -eq 3' -a 'off warn mask refuse' -d 'mode'

# routes search
complete -c svc-router -n '__svc_router_in routes search' -l unset -d 'remove the search target (requests offering search to such targets are refused)'
complete -c svc-router -n '__svc_router_in routes search; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'

# routes unset
complete -c svc-router -n '__svc_router_in routes unset; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'

# prices list
complete -c svc-router -n '__svc_router_in prices list' -l json -d 'print JSON'

# prices set
complete -c svc-router -n '__svc_router_in prices set' -l input -x -d 'uncached input'
complete -c svc-router -n '__svc_router_in prices set' -l output -x -d 'output'
complete -c svc-router -n '__svc_router_in prices set' -l cache-read -x -d 'input read from the prompt cache (without it, a request with cache reads gets no cost)'
complete -c svc-router -n '__svc_router_in prices set' -l cache-write -x -d 'input written to the prompt cache (without it, a request with cache writes gets no cost)'

# prices unset

# config path

# config get
complete -c svc-router -n '__svc_router_in config get; and test (count (__svc_router_words)) -eq 2' -a '(__svc_router_config_keys)' -d 'key'

# config set
complete -c svc-router -n '__svc_router_in config set; and test (count (__svc_router_words)) -eq 2' -a '(__svc_router_config_keys)' -d 'key'
complete -c svc-router -n '__svc_router_is config set server.metrics' -a 'true false'
complete -c svc-router -n '__svc_router_is config set server.ui' -a 'true false'
complete -c svc-router -n '__svc_router_is config set server.websockets' -a 'true false'
complete -c svc-router -n '__svc_router_is config set server.otel' -a 'true false'
complete -c svc-router -n '__svc_router_is config set usage.store' -a 'file'
complete -c svc-router -n '__svc_router_is config set guardrails.secrets' -a 'off warn mask refuse'
complete -c svc-router -n '__svc_router_is config set safeguards.classifier' -a 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite'

# config export
complete -c svc-router -n '__svc_router_in config export' -s o -l output -r -F -d 'write the file instead of printing it'
complete -c svc-router -n '__svc_router_in config export' -l force -d 'replace an existing --output file'
complete -c svc-router -n '__svc_router_in config export' -l with-keys -d 'include issued keys\' records (hashes, never keys), so routers sharing the file accept the same keys'
complete -c svc-router -n '__svc_router_in config export' -l schema-ref -x -d 'the $schema reference to write (default: ./node_modules/svc-router/… when the project installs svc-router, else this svc-router\'s schema, relative to the file)'

# config import
complete -c svc-router -n '__svc_router_in config import' -l dry-run -d 'list the changes without writing them'
complete -c svc-router -n '__svc_router_in config import; and test (count (__svc_router_words)) -eq 2' -F

# config validate
complete -c svc-router -n '__svc_router_in config validate' -l json -d 'print the result as JSON'
complete -c svc-router -n '__svc_router_in config validate; and test (count (__svc_router_words)) -eq 2' -F

# whoami
complete -c svc-router -n '__svc_router_in whoami' -l base-url -x -d 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)'
complete -c svc-router -n '__svc_router_in whoami' -l key -x -d 'key to send (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in whoami' -l json -d 'print the raw response body'

# usage
complete -c svc-router -n '__svc_router_in usage' -l base-url -x -d 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)'
complete -c svc-router -n '__svc_router_in usage' -l key -x -d 'key to send (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in usage' -l json -d 'print the raw response body'

# sessions
complete -c svc-router -n '__svc_router_in sessions' -l base-url -x -d 'the router to ask: sessions live in its memory (env SVC_ROUTER_BASE_URL; default: the running serve\'s address)'
complete -c svc-router -n '__svc_router_in sessions' -l key -x -d 'key to send (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in sessions' -l json -d 'print the report as GET /admin/sessions returns it'

# models list
complete -c svc-router -n '__svc_router_in models list' -l base-url -x -d 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)'
complete -c svc-router -n '__svc_router_in models list' -l key -x -d 'key to send (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in models list' -l json -d 'print the raw response body'

# models info
complete -c svc-router -n '__svc_router_in models info' -l json -d 'print JSON'
complete -c svc-router -n '__svc_router_in models info; and test (count (__svc_router_words)) -eq 2' -a "$skus 'claude-*'" -d 'model'

# chat
complete -c svc-router -n '__svc_router_in chat' -s m -l model -x -a "$skus" -d 'model to ask'
complete -c svc-router -n '__svc_router_in chat' -s s -l system -x -d 'system prompt'
complete -c svc-router -n '__svc_router_in chat' -l max-tokens -x -d 'output cap'
complete -c svc-router -n '__svc_router_in chat' -l stream -d 'print tokens as they arrive'
complete -c svc-router -n '__svc_router_in chat' -l base-url -x -d 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)'
complete -c svc-router -n '__svc_router_in chat' -l key -x -d 'key to send (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in chat' -l json -d 'print the raw response body'

# env
complete -c svc-router -n '__svc_router_in env' -l base-url -x -d 'the router\'s address (default: from config)'
complete -c svc-router -n '__svc_router_in env' -l key -x -d 'key to put in the lines (default: the stored local key)'

# doctor
complete -c svc-router -n '__svc_router_in doctor' -l base-url -x -d 'the router\'s address as clients use it (env SVC_ROUTER_BASE_URL; default: from config)'
complete -c svc-router -n '__svc_router_in doctor' -l key -x -d 'key to check (env SVC_ROUTER_KEY; default: the stored local key)'
complete -c svc-router -n '__svc_router_in doctor' -l timeout -x -d 'how long each network check may take, in milliseconds (default: 2000; the --live requests: 30000)'
complete -c svc-router -n '__svc_router_in doctor' -l live -d 'also send a one-token request to each routed model, through its backend (it costs a few tokens); without it, each backend\'s key is proven on its free model list'
complete -c svc-router -n '__svc_router_in doctor' -l client -x -a 'openai anthropic codex claude gemini' -d 'also check what this client needs: its base URL form, the settings connect --write manages, its environment variables'
complete -c svc-router -n '__svc_router_in doctor' -l json -d 'print the results as JSON'

# connect
complete -c svc-router -n '__svc_router_in connect' -l write -d 'merge the settings into the client\'s own config files (codex, claude, gemini), printing the changes (keys as hints) and keeping a backup'
complete -c svc-router -n '__svc_router_in connect' -l undo -d 'put back the config files as they were before the last --write (codex, claude, gemini)'
complete -c svc-router -n '__svc_router_in connect' -l force -d 'with --undo: restore even if the file has changed since the write'
complete -c svc-router -n '__svc_router_in connect' -l base-url -x -d 'the router\'s address (default: from config)'
complete -c svc-router -n '__svc_router_in connect' -l key -x -d 'key to use (default: the stored local key)'
complete -c svc-router -n '__svc_router_in connect' -l model -x -d 'with gemini: the svc SKU Gemini CLI asks for (default: the strongest one routed to a real backend)'
complete -c svc-router -n '__svc_router_in connect; and test (count (__svc_router_words)) -eq 1' -a 'codex claude gemini openai-sdk anthropic-sdk' -d 'client'

# completion
complete -c svc-router -n '__svc_router_in completion; and test (count (__svc_router_words)) -eq 1' -a 'bash zsh fish' -d 'shell'
