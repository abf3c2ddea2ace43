#compdef svc-router
# zsh completion for svc-router
# Generated from the command tree by `npm run docs` (src/cli/completion/); do not edit by hand.
#
# Load it in the current shell (after compinit):
#   source <(svc-router completion zsh)
# or install it as an autoloaded function, from a directory on $fpath:
#   svc-router completion zsh > "${fpath[1]}/_svc-router"

_svc_router_skus() {
  local -a skus
  skus=(
    'svc.intelligent-pro:SKU'
    'svc.intelligent-basic:SKU'
    'svc.intelligent-lite:SKU'
  )
  _describe -t skus 'SKU' skus
}

_svc_router_route_models() {
  local expl ret=1
  _svc_router_skus && ret=0
  _wanted patterns expl 'pattern' compadd -- 'claude-*' && ret=0
  return ret
}

_svc_router_backend_names() {
  local -a names
  if (( $+commands[svc-router] )); then
    names=(${(f)"$(svc-router backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p')"})
  fi
  [[ $1 == --with-offline ]] && names+=(offline)
  _wanted backends expl 'backend' compadd -a names
}

_svc_router_targets() {
  if compset -P '*:'; then
    _message -e models 'upstream model'
  else
    _svc_router_backend_names --with-offline
  fi
}

_svc_router_config_keys() {
  local -a keys
  keys=(
    'server.host:address serve binds to'
    'server.port:port serve listens on'
    'server.bodyLimitBytes:largest request body accepted'
    'server.bodyTimeoutMs:ms from request headers to the end of the body'
    'server.headersTimeoutMs:ms to receive request headers'
    'server.maxConnections:open client connections allowed'
    'server.metrics:serve Prometheus metrics on GET /metrics'
    'server.ui:serve the dashboard at /ui'
    'server.websockets:take Responses over WebSocket on GET /v1/responses'
    'server.otel:export an OpenTelemetry span per request to OTEL_EXPORTER_OTLP_ENDPOINT'
    'server.requestLogDays:days the searchable request log'
    'server.requestLogMaxBytes:bytes the searchable request log may take on disk'
    'server.tls.cert:PEM certificate'
    'server.tls.key:the certificate'\''s PEM private key, a file only you can read'
    'server.hosts:names the dashboard, /admin and /metrics answer to in Host, comma-separated, besides the loopback names or the address bound'
    'server.cors:origins whose browser pages may call the model endpoints'
    'usage.store:where usage is recorded'
    'routing.sessionHeader:a request header naming the client'\''s session, read first'
    'limits.outputReserveTokens:output held against the cap for a request that sets no max output tokens'
    'limits.reservationTtlMs:ms a cap reservation outlives a router that died before settling it'
    'limits.session.tokens:input plus output tokens one client session may use'
    'limits.session.usd:US dollars one client session may spend, at the prices its usage is billed at'
    'notify.webhook:URL sent one JSON POST when a key crosses 50, 80 and 100 % of its 30-day cap, once each per 30 days'
    'guardrails.secrets:credentials in a request'\''s text'
    'safeguards.classifier:the route asked whether each of Claude Code'\''s tool calls is dangerous, in auto mode on routes whose upstream gives no verdict'
    'safeguards.timeoutMs:ms the router waits for one safety verdict, from the end of its tool call, before telling Claude Code the check failed'
    'defaults.organisation:organisation given to new keys'
    'defaults.tier:tier given to new keys'
    'defaults.capTokens:30-day token cap given to new keys'
  )
  _describe -t config-keys 'config key' keys
}

_svc_router_config_value() {
  case $words[2] in
    server.metrics) _values 'value' true false ;;
    server.ui) _values 'value' true false ;;
    server.websockets) _values 'value' true false ;;
    server.otel) _values 'value' true false ;;
    usage.store) _values 'value' file ;;
    guardrails.secrets) _values 'value' off warn mask refuse ;;
    safeguards.classifier) _values 'value' svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite ;;
    *) _message -e values 'value' ;;
  esac
}

_svc_router_commands() {
  local -a commands
  commands=(
    'serve:run the router (zero configuration: the built-in offline backend serves every SKU)'
    'logs:show the requests serve recorded (time, caller, model, each target tried, tokens, cost, status, error), newest last'
    'status:show whether serve is running (from its state file in the config directory): address, pid, uptime; exit code 0 if running, 3 if not'
    'stop:stop the running serve (SIGTERM to the pid in its state file) and wait until it has exited; exit code 0 also when none runs'
    'restart:stop the running serve and start it again in the background with the same arguments (or start one, when none runs)'
    'init:issue the local developer'\''s own key and store it for the CLI'
    'keys:issue, list and revoke keys for developers'
    'backends:configure upstream backends'
    'routes:map models to backends'
    'prices:what upstream models cost: shipped defaults and your overrides'
    'config:read and change settings'
    'whoami:show who the key belongs to and its usage against the 30-day cap'
    'usage:everyone'\''s usage and cost over the 30-day window by key, SKU, upstream model and day, with bar charts (needs an admin key: the local key, or one with --tier admin)'
    'sessions:each session the running router served: client, route, target and pooled key, turns, tokens, cache-hit share, cost, duration, and every turn whose cached share dropped with the reason the router saw (needs an admin key)'
    'models:the models the router serves, and what the catalog knows of each'
    'chat:send one chat message (prompt from the arguments, or standard input)'
    'env:print export lines for OPENAI_*, ANTHROPIC_* and Gemini (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY) client variables'
    'doctor:check the key, base URL, router, each backend'\''s key, routes, config file and serve port; exit code = number of failures'
    'connect:print (or --write) the settings that point Codex, Claude Code, Gemini CLI or an SDK at this router; stdout is the file or module alone, hints go to stderr'
    'completion:print a completion script for bash, zsh or fish'
    'help:display help for command'
  )
  _describe -t commands 'svc-router command' commands
}

_svc_router_group() {
  local group=$1 ret=1
  shift
  local -a subcommands
  subcommands=("$@")
  local curcontext=$curcontext state state_descr line
  typeset -A opt_args
  _arguments -C \
    '(- *)'{-h,--help}'[display help for command]' \
    '1: :->subcommand' \
    '*:: :->args' && ret=0
  case $state in
    subcommand)
      _describe -t commands "svc-router $group command" subcommands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:svc-router-$group-$words[1]:
      _svc_router_${group}_args && ret=0
      ;;
  esac
  return ret
}

_svc_router_keys_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    issue)
      _arguments \
        '--developer[developer slug, e.g. alice]:developer:' \
        '--org[organisation]:org:' \
        '--tier[tier]:tier:' \
        '--cap[30-day token cap]:cap:' \
        '--force[replace the developer'\''s existing key]' \
        '--json[print a JSON object]' \
        $help
      ;;
    cap)
      _arguments \
        '--json[print a JSON object]' \
        ':slug:' \
        ':tokens:' \
        $help
      ;;
    list) _arguments '--json[print JSON]' $help ;;
    limit)
      _arguments \
        '--rpm[requests per minute]:rpm:' \
        '--tpm[input + output tokens per minute]:tpm:' \
        '--clear[remove the limits]' \
        ':slug:' \
        $help
      ;;
    revoke) _arguments ':slug:' $help ;;
    help) _arguments ':command:(issue cap list limit revoke)' ;;
    *) return 1 ;;
  esac
}

_svc_router_backends_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    add)
      _arguments \
        '--type[wire format the upstream speaks]:type:(openai-chat openai-responses anthropic gemini vertex bedrock)' \
        '--base-url[upstream base URL, e.g. https://api.openai.com/v1 (required but for vertex and bedrock, whose region gives it)]:baseUrl:' \
        '--api-key[upstream API key (stored in the 0600 config file)]:apiKey:' \
        '--api-key-env[environment variable holding the upstream API key]:apiKeyEnv:' \
        '*--header[extra header sent upstream (repeatable)]:header:' \
        '--connect-timeout[time to open a connection (default 10000)]:connectTimeout:' \
        '--first-byte-timeout[time to the response headers (default 300000)]:firstByteTimeout:' \
        '--idle-timeout[longest pause between body chunks, streamed or not (default 120000)]:idleTimeout:' \
        '--total-timeout[longest a non-streamed call may take, from sending to the last byte; streams are bounded by --idle-timeout instead (default 600000)]:totalTimeout:' \
        '--cache-control[openai-chat only: the upstream takes cache_control on content parts (OpenRouter'\''s Anthropic and Gemini models); prompt-cache breakpoints are sent to it]' \
        '--auth[anthropic only: send the key as x-api-key (default) or as Authorization: Bearer]:auth:(x-api-key bearer)' \
        '--anthropic-version[anthropic only: the anthropic-version every call sends, in place of the client'\''s]:anthropicVersion:' \
        '--api-version[gemini only: the API version in the path, e.g. v1 (default v1beta)]:apiVersion:' \
        '--project[vertex only: the Google Cloud project]:project:' \
        '--region[vertex: the Vertex AI location, e.g. us-east5, europe-west1, global; bedrock: the AWS region to call and sign for, e.g. us-east-1]:region:' \
        '--credentials[vertex only: a service-account key file (JSON); default $GOOGLE_APPLICATION_CREDENTIALS, else the metadata server]:credentials:' \
        '--profile[openai-chat only: the provider'\''s own rules (reasoning sent back as it requires, refused fields left out with a warning)]:profile:(openrouter deepseek groq mistral xai)' \
        '--provider-routing[with --profile openrouter: OpenRouter'\''s provider routing object sent with every request, e.g. '\''{"order":\["anthropic"\],"allow_fallbacks":false}'\'']:providerRouting:' \
        '--websocket[openai-responses only: streamed turns over the upstream'\''s WebSocket mode, one socket per session, each turn sending only its new input (HTTP when the upgrade is refused)]' \
        '--aws-profile[bedrock only: the profile of ~/.aws/credentials and ~/.aws/config to sign with (default $AWS_PROFILE, then the environment and default sources)]:awsProfile:' \
        ':name:' \
        $help
      ;;
    list) _arguments '--json[print JSON]' $help ;;
    pool)
      _arguments \
        '*--key[a key of the pool, stored in the 0600 config file (repeatable)]:key:' \
        '*--key-env[an environment variable holding a key of the pool (repeatable)]:keyEnv:' \
        '--strategy[each call the next key, or the first key until it rests]:strategy:(round-robin fill-first)' \
        '--rate-limit-cooldown[rest after a 429 that says nothing of when to retry (default 60000)]:rateLimitCooldown:' \
        '--payment-cooldown[rest after a 402 that says nothing of when to retry (default 3600000)]:paymentCooldown:' \
        '--clear[remove the pool (the backend uses its own key again)]' \
        ':name:_svc_router_backend_names' \
        $help
      ;;
    remove) _arguments ':name:_svc_router_backend_names' $help ;;
    help) _arguments ':command:(add list pool remove)' ;;
    *) return 1 ;;
  esac
}

_svc_router_routes_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    set)
      _arguments \
        '--context-window[the route'\''s context window (default: the smallest of its targets'\'' known model families)]:contextWindow:' \
        '--new[create a new svc.* SKU (without it, an svc.* name must be a built-in SKU or an existing route)]' \
        ':model:_svc_router_route_models' \
        '*:targets:_svc_router_targets' \
        $help
      ;;
    window)
      _arguments \
        '--unset[remove the set window (the model catalog'\''s applies again)]' \
        ':name:_svc_router_route_models' \
        '::tokens:' \
        $help
      ;;
    list) _arguments '--json[print JSON]' $help ;;
    rule)
      _arguments \
        '--background[the client asked for a small model (*haiku*), as for background work]' \
        '--thinking[thinking is on (a budget, or an effort above minimal)]' \
        '--context-above[the estimated input is above this many tokens]:contextAbove:' \
        '--image[an image is in the conversation]' \
        '--web-search[the request offers a web search tool]' \
        '--model[the client'\''s model name matches this '\''*'\'' pattern]:model:' \
        ':model:_svc_router_route_models' \
        ':name:' \
        '*:targets:_svc_router_targets' \
        $help
      ;;
    rule-remove)
      _arguments \
        ':model:_svc_router_route_models' \
        ':name:' \
        $help
      ;;
    weights)
      _arguments \
        ':model:_svc_router_route_models' \
        '*:pairs:' \
        $help
      ;;
    guard)
      _arguments \
        '--unset[follow the router'\''s guardrails.secrets again]' \
        ':model:_svc_router_route_models' \
        '::mode:(off warn mask refuse)' \
        $help
      ;;
    search)
      _arguments \
        '--unset[remove the search target (requests offering search to such targets are refused)]' \
        ':model:_svc_router_route_models' \
        '::target:' \
        $help
      ;;
    unset) _arguments ':model:_svc_router_route_models' $help ;;
    help) _arguments ':command:(set window list rule rule-remove weights guard search unset)' ;;
    *) return 1 ;;
  esac
}

_svc_router_prices_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    list) _arguments '--json[print JSON]' $help ;;
    set)
      _arguments \
        '--input[uncached input]:input:' \
        '--output[output]:output:' \
        '--cache-read[input read from the prompt cache (without it, a request with cache reads gets no cost)]:cacheRead:' \
        '--cache-write[input written to the prompt cache (without it, a request with cache writes gets no cost)]:cacheWrite:' \
        ':model:' \
        $help
      ;;
    unset) _arguments ':model:' $help ;;
    help) _arguments ':command:(list set unset)' ;;
    *) return 1 ;;
  esac
}

_svc_router_config_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    path) _arguments $help ;;
    get) _arguments ':key:_svc_router_config_keys' $help ;;
    set)
      _arguments \
        ':key:_svc_router_config_keys' \
        ':value:_svc_router_config_value' \
        $help
      ;;
    export)
      _arguments \
        '(-o --output)'{-o,--output}'[write the file instead of printing it]:output:_files' \
        '--force[replace an existing --output file]' \
        '--with-keys[include issued keys'\'' records (hashes, never keys), so routers sharing the file accept the same keys]' \
        '--schema-ref[the $schema reference to write (default: ./node_modules/svc-router/… when the project installs svc-router, else this svc-router'\''s schema, relative to the file)]:schemaRef:' \
        $help
      ;;
    import)
      _arguments \
        '--dry-run[list the changes without writing them]' \
        ':file:_files' \
        $help
      ;;
    validate)
      _arguments \
        '--json[print the result as JSON]' \
        '::file:_files' \
        $help
      ;;
    help) _arguments ':command:(path get set export import validate)' ;;
    *) return 1 ;;
  esac
}

_svc_router_models_args() {
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')
  case $words[1] in
    list)
      _arguments \
        '--base-url[talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)]:baseUrl:' \
        '--key[key to send (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--json[print the raw response body]' \
        $help
      ;;
    info)
      _arguments \
        '--json[print JSON]' \
        ':model:_svc_router_route_models' \
        $help
      ;;
    help) _arguments ':command:(list info)' ;;
    *) return 1 ;;
  esac
}

_svc_router() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a help
  help=('(- *)'{-h,--help}'[display help for command]')

  _arguments -C \
    '(- *)'{-V,--version}'[output the version number]' \
    '(- *)'{-h,--help}'[display help for command]' \
    '1: :_svc_router_commands' \
    '*:: :->args' && ret=0

  [[ $state == args ]] || return ret
  curcontext=${curcontext%:*:*}:svc-router-$words[1]:
  case $words[1] in
    serve)
      _arguments \
        '--host[address to bind (default: config server.host, 127.0.0.1)]:host:' \
        '--port[port to listen on; 0 picks a free one (default: config server.port, 8787)]:port:' \
        '--offline-script[JSON list of turns for the offline backend to replay (text and/or tool calls)]:offlineScript:_files' \
        '--usage-store[where usage is recorded: '\''file'\'', redis://HOST:PORT or redis-sentinel://HOST:PORT\[,HOST:PORT…\]/MASTER (default: config usage.store)]:usageStore:' \
        '--log-format[request log on standard error: coloured text lines, or JSON lines]:logFormat:(text json)' \
        '--quiet[no request log]' \
        '--log-bodies[also log request and response bodies, redacted (prompts included; off by default)]' \
        '--ui[serve the dashboard at /ui (default: config server.ui; beyond loopback it asks for an admin key)]' \
        '--metrics[serve Prometheus metrics on GET /metrics (default: config server.metrics)]' \
        '--otel[export an OpenTelemetry span per request over OTLP/HTTP to URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318; config server.otel)]:otel:' \
        '--config[declarative config file (backends, routes, keys) over config.json, reloaded when it changes (env SVC_ROUTER_CONFIG)]:config:_files' \
        '--tls-cert[serve HTTPS with this PEM certificate (chain); with --tls-key (default: config server.tls.cert)]:tlsCert:_files' \
        '--tls-key[the certificate'\''s PEM private key (default: config server.tls.key)]:tlsKey:_files' \
        '--detach[run in the background (output to --log-file, default serve.log in the config directory); returns once it listens]' \
        '--log-file[write the banner and request log to FILE (appended, rotated by size) once listening]:logFile:_files' \
        '--log-max-size[rotate the log file when it would pass this size (default: 10485760)]:logMaxSize:' \
        '--log-keep[rotated log files kept, FILE.1 the newest (default: 5; 0 keeps none)]:logKeep:' \
        $help && ret=0
      ;;
    logs)
      _arguments \
        '(-f --follow)'{-f,--follow}'[keep printing requests as they finish]' \
        '--since[only requests since a duration ago (30m, 2h, 7d) or a date (2026-11-20)]:since:' \
        '--caller[only this developer'\''s requests]:caller:' \
        '--status[only this status (429), class (5xx) or '\''error'\'' (400 and up)]:status:' \
        '--session[only the requests of this session (its id as svc-router sessions shows it, or its first characters)]:session:' \
        '--limit[at most this many of the newest matching requests (default: 50)]:limit:' \
        '--json[one JSON object per line, as stored]' \
        $help && ret=0
      ;;
    status) _arguments '--json[print a JSON object]' $help && ret=0 ;;
    stop) _arguments '--timeout[how long to wait for it to exit, in milliseconds (default: 15000)]:timeout:' $help && ret=0 ;;
    restart) _arguments '--timeout[how long to wait for the old one to exit, in milliseconds (default: 15000)]:timeout:' $help && ret=0 ;;
    init)
      _arguments \
        '--developer[developer slug (default: your login name)]:developer:' \
        '--org[organisation]:org:' \
        '--tier[tier]:tier:' \
        '--cap[30-day token cap (default: config defaults.capTokens, 200000000)]:cap:' \
        '--force[replace an existing local key]' \
        '--json[print a JSON object]' \
        $help && ret=0
      ;;
    keys)
      _svc_router_group keys \
        'issue:issue a key for a developer (printed once; only its hash is stored)' \
        'cap:change a developer'\''s 30-day token cap, keeping the key (a running server applies it on the next request)' \
        'list:list issued keys (never prints a key)' \
        'limit:set a developer key'\''s rate limits per minute, shared by every router on the usage store' \
        'revoke:revoke a developer'\''s key'
      ret=$?
      ;;
    backends)
      _svc_router_group backends \
        'add:add or replace a backend' \
        'list:list backends (never prints keys)' \
        'pool:give a backend a pool of upstream keys: a key refused with 429/402 rests and the next is used' \
        'remove:remove a backend no route uses'
      ret=$?
      ;;
    routes)
      _svc_router_group routes \
        'set:route a model (svc.intelligent-pro, svc.intelligent-basic, svc.intelligent-lite, or a pattern such as '\''claude-*'\'') to BACKEND[:UPSTREAM_MODEL] targets, in fallback order' \
        'window:set the context window clients are told for a route, or for a target BACKEND:UPSTREAM_MODEL' \
        'list:list routes, including the offline defaults' \
        'rule:add (or replace) a task rule: requests to the route that match every condition given go to these targets' \
        'rule-remove:remove a route'\''s task rule' \
        'weights:balance which target leads the chain: TARGET=WEIGHT pairs (none: clear the weights)' \
        'guard:what the secrets guardrail does on this route'\''s requests: off, warn, mask or refuse, over the router'\''s guardrails.secrets' \
        'search:where web search runs for targets without their own: BACKEND[:MODEL] of type anthropic, openai-responses or gemini' \
        'unset:remove a route'
      ret=$?
      ;;
    prices)
      _svc_router_group prices \
        'list:list the prices in force (US dollars per million tokens), config over shipped defaults' \
        'set:price an upstream model (or BACKEND:MODEL) in US dollars per million tokens, over any default' \
        'unset:remove a config price (a shipped default applies again)'
      ret=$?
      ;;
    config)
      _svc_router_group config \
        'path:print the config file path' \
        'get:print a setting' \
        'set:change a setting (server.host, server.port, server.bodyLimitBytes, usage.store, defaults.*)' \
        'export:print the settings in force as a declarative file to commit or share (secrets only by environment-variable name; notes on stderr)' \
        'import:write a declarative file into config.json, listing every change (nothing is written if the file is not valid)' \
        'validate:check a declarative file (default: $SVC_ROUTER_CONFIG, else the running serve'\''s), naming the line and column of each problem; exit code 2 if it is not valid'
      ret=$?
      ;;
    whoami)
      _arguments \
        '--base-url[talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)]:baseUrl:' \
        '--key[key to send (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--json[print the raw response body]' \
        $help && ret=0
      ;;
    usage)
      _arguments \
        '--base-url[talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)]:baseUrl:' \
        '--key[key to send (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--json[print the raw response body]' \
        $help && ret=0
      ;;
    sessions)
      _arguments \
        '--base-url[the router to ask: sessions live in its memory (env SVC_ROUTER_BASE_URL; default: the running serve'\''s address)]:baseUrl:' \
        '--key[key to send (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--json[print the report as GET /admin/sessions returns it]' \
        $help && ret=0
      ;;
    models)
      _svc_router_group models \
        'list:list the models the router serves' \
        'info:what the model catalog knows of a model (a route, BACKEND:MODEL or an upstream model): context window, output cap, prices, capabilities, each with its source'
      ret=$?
      ;;
    chat)
      _arguments \
        '(-m --model)'{-m,--model}'[model to ask]:model:_svc_router_skus' \
        '(-s --system)'{-s,--system}'[system prompt]:system:' \
        '--max-tokens[output cap]:maxTokens:' \
        '--stream[print tokens as they arrive]' \
        '--base-url[talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)]:baseUrl:' \
        '--key[key to send (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--json[print the raw response body]' \
        '*:prompt:' \
        $help && ret=0
      ;;
    env)
      _arguments \
        '--base-url[the router'\''s address (default: from config)]:baseUrl:' \
        '--key[key to put in the lines (default: the stored local key)]:key:' \
        $help && ret=0
      ;;
    doctor)
      _arguments \
        '--base-url[the router'\''s address as clients use it (env SVC_ROUTER_BASE_URL; default: from config)]:baseUrl:' \
        '--key[key to check (env SVC_ROUTER_KEY; default: the stored local key)]:key:' \
        '--timeout[how long each network check may take, in milliseconds (default: 2000; the --live requests: 30000)]:timeout:' \
        '--live[also send a one-token request to each routed model, through its backend (it costs a few tokens); without it, each backend'\''s key is proven on its free model list]' \
        '--client[also check what this client needs: its base URL form, the settings connect --write manages, its environment variables]:client:(openai anthropic codex claude gemini)' \
        '--json[print the results as JSON]' \
        $help && ret=0
      ;;
    connect)
      _arguments \
        '--write[merge the settings into the client'\''s own config files (codex, claude, gemini), printing the changes (keys as hints) and keeping a backup]' \
        '--undo[put back the config files as they were before the last --write (codex, claude, gemini)]' \
        '--force[with --undo: restore even if the file has changed since the write]' \
        '--base-url[the router'\''s address (default: from config)]:baseUrl:' \
        '--key[key to use (default: the stored local key)]:key:' \
        '--model[with gemini: the svc SKU Gemini CLI asks for (default: the strongest one routed to a real backend)]:model:' \
        ':client:(codex claude gemini openai-sdk anthropic-sdk)' \
        $help && ret=0
      ;;
    completion) _arguments ':shell:(bash zsh fish)' $help && ret=0 ;;
    help)
      _arguments ':command:_svc_router_commands' && ret=0
      ;;
  esac
  return ret
}

if [[ $funcstack[1] == _svc-router ]]; then
  _svc_router "$@"
else
  (( $+functions[compdef] )) && compdef _svc_router svc-router
fi
