# fish completion for svc-router
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
            case --host --port --offline-script --usage-store --log-format --timeout --developer --org --tier --cap --type --base-url --api-key --api-key-env --header --connect-timeout --first-byte-timeout --idle-timeout --total-timeout --key -m --model -s --system --max-tokens
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

set -l skus svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite
set -l types openai-chat openai-responses anthropic

complete -c svc-router -f

complete -c svc-router -n '__svc_router_is' -s V -l version -d 'output the version number'
complete -c svc-router -s h -l help -d 'display help for command'

# Commands
complete -c svc-router -n '__svc_router_is' -a serve -d 'run the router'
complete -c svc-router -n '__svc_router_is' -a status -d 'show whether serve is running, its address, pid and uptime'
complete -c svc-router -n '__svc_router_is' -a stop -d 'stop the running serve and wait until it has exited'
complete -c svc-router -n '__svc_router_is' -a init -d "issue the local developer's own key and store it for the CLI"
complete -c svc-router -n '__svc_router_is' -a keys -d 'issue, list and revoke keys for developers'
complete -c svc-router -n '__svc_router_is' -a backends -d 'configure upstream backends'
complete -c svc-router -n '__svc_router_is' -a routes -d 'map models to backends'
complete -c svc-router -n '__svc_router_is' -a config -d 'read and change settings'
complete -c svc-router -n '__svc_router_is' -a whoami -d 'show who the key belongs to and its usage against the 30-day cap'
complete -c svc-router -n '__svc_router_is' -a models -d 'list the models the router serves'
complete -c svc-router -n '__svc_router_is' -a chat -d 'send one chat message'
complete -c svc-router -n '__svc_router_is' -a env -d 'print export lines for OPENAI_* and ANTHROPIC_* client variables'
complete -c svc-router -n '__svc_router_is' -a doctor -d 'check the key, base URL, router, backends, routes, config file and serve port'
complete -c svc-router -n '__svc_router_is' -a connect -d 'print (or --write) the settings that point Codex, Claude Code or an SDK at this router'
complete -c svc-router -n '__svc_router_is' -a completion -d 'print a completion script for bash, zsh or fish'
complete -c svc-router -n '__svc_router_is' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is help' -a 'serve status stop init keys backends routes config whoami models chat env doctor connect completion'

# serve
complete -c svc-router -n '__svc_router_in serve' -l host -x -d 'address to bind'
complete -c svc-router -n '__svc_router_in serve' -l port -x -d 'port to listen on (0 picks a free one)'
complete -c svc-router -n '__svc_router_in serve' -l offline-script -r -F -d 'JSON list of turns for the offline backend to replay'
complete -c svc-router -n '__svc_router_in serve' -l usage-store -x -d "where usage is recorded: 'file' or redis://HOST:PORT"
complete -c svc-router -n '__svc_router_in serve' -l log-format -x -a 'text json' -d 'request log format'
complete -c svc-router -n '__svc_router_in serve' -l quiet -d 'no request log'
complete -c svc-router -n '__svc_router_in serve' -l log-bodies -d 'also log request and response bodies'
complete -c svc-router -n '__svc_router_in serve' -l metrics -d 'serve Prometheus metrics on GET /metrics'

# status, stop
complete -c svc-router -n '__svc_router_in status' -l json -d 'print a JSON object'
complete -c svc-router -n '__svc_router_in stop' -l timeout -x -d 'how long to wait for it to exit (ms)'

# init
complete -c svc-router -n '__svc_router_in init' -l developer -x -d 'developer slug'
complete -c svc-router -n '__svc_router_in init' -l org -x -d organisation
complete -c svc-router -n '__svc_router_in init' -l tier -x -d tier
complete -c svc-router -n '__svc_router_in init' -l cap -x -d '30-day token cap'
complete -c svc-router -n '__svc_router_in init' -l force -d 'replace an existing local key'
complete -c svc-router -n '__svc_router_in init' -l json -d 'print a JSON object'

# keys
complete -c svc-router -n '__svc_router_is keys' -a issue -d 'issue a key for a developer'
complete -c svc-router -n '__svc_router_is keys' -a list -d 'list issued keys'
complete -c svc-router -n '__svc_router_is keys' -a revoke -d "revoke a developer's key"
complete -c svc-router -n '__svc_router_is keys' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is keys help' -a 'issue list revoke'
complete -c svc-router -n '__svc_router_in keys issue' -l developer -x -d 'developer slug'
complete -c svc-router -n '__svc_router_in keys issue' -l org -x -d organisation
complete -c svc-router -n '__svc_router_in keys issue' -l tier -x -d tier
complete -c svc-router -n '__svc_router_in keys issue' -l cap -x -d '30-day token cap'
complete -c svc-router -n '__svc_router_in keys issue' -l force -d "replace the developer's existing key"
complete -c svc-router -n '__svc_router_in keys issue' -l json -d 'print a JSON object'
complete -c svc-router -n '__svc_router_in keys list' -l json -d 'print JSON'

# backends
complete -c svc-router -n '__svc_router_is backends' -a add -d 'add or replace a backend'
complete -c svc-router -n '__svc_router_is backends' -a list -d 'list backends'
complete -c svc-router -n '__svc_router_is backends' -a remove -d 'remove a backend no route uses'
complete -c svc-router -n '__svc_router_is backends' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is backends help' -a 'add list remove'
complete -c svc-router -n '__svc_router_in backends add' -l type -x -a "$types" -d 'wire format the upstream speaks'
complete -c svc-router -n '__svc_router_in backends add' -l base-url -x -d 'upstream base URL'
complete -c svc-router -n '__svc_router_in backends add' -l api-key -x -d 'upstream API key'
complete -c svc-router -n '__svc_router_in backends add' -l api-key-env -x -a '(set -xn)' -d 'environment variable holding the upstream API key'
complete -c svc-router -n '__svc_router_in backends add' -l header -x -d 'extra header sent upstream (NAME=VALUE)'
complete -c svc-router -n '__svc_router_in backends add' -l connect-timeout -x -d 'time to open a connection (ms)'
complete -c svc-router -n '__svc_router_in backends add' -l first-byte-timeout -x -d 'time to the response headers (ms)'
complete -c svc-router -n '__svc_router_in backends add' -l idle-timeout -x -d 'longest pause between body chunks (ms)'
complete -c svc-router -n '__svc_router_in backends add' -l total-timeout -x -d 'longest a non-streamed call may take (ms)'
complete -c svc-router -n '__svc_router_in backends list' -l json -d 'print JSON'
complete -c svc-router -n '__svc_router_is backends remove' -a '(__svc_router_backends)' -d backend

# routes
complete -c svc-router -n '__svc_router_is routes' -a set -d 'route a model to backend targets, in fallback order'
complete -c svc-router -n '__svc_router_is routes' -a list -d 'list routes'
complete -c svc-router -n '__svc_router_is routes' -a unset -d 'remove a route'
complete -c svc-router -n '__svc_router_is routes' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is routes help' -a 'set list unset'
complete -c svc-router -n '__svc_router_is routes set' -a "$skus" -d SKU
complete -c svc-router -n '__svc_router_is routes set' -a "'claude-*'" -d pattern
complete -c svc-router -n '__svc_router_in routes set; and not __svc_router_is routes set' -a '(__svc_router_targets)' -d backend
complete -c svc-router -n '__svc_router_in routes list' -l json -d 'print JSON'
complete -c svc-router -n '__svc_router_is routes unset' -a "$skus" -d SKU
complete -c svc-router -n '__svc_router_is routes unset' -a "'claude-*'" -d pattern

# config
complete -c svc-router -n '__svc_router_is config' -a path -d 'print the config file path'
complete -c svc-router -n '__svc_router_is config' -a get -d 'print a setting'
complete -c svc-router -n '__svc_router_is config' -a set -d 'change a setting'
complete -c svc-router -n '__svc_router_is config' -a help -d 'display help for command'
complete -c svc-router -n '__svc_router_is config help' -a 'path get set'
for verb in get set
    complete -c svc-router -n "__svc_router_is config $verb" -a server.host -d 'address serve binds to'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.port -d 'port serve listens on'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.metrics -d 'serve Prometheus metrics on GET /metrics'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.bodyLimitBytes -d 'largest request body accepted (413 past it)'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.bodyTimeoutMs -d 'ms from request headers to the end of the body'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.headersTimeoutMs -d 'ms to receive request headers'
    complete -c svc-router -n "__svc_router_is config $verb" -a server.maxConnections -d 'open client connections allowed'
    complete -c svc-router -n "__svc_router_is config $verb" -a usage.store -d 'where usage is recorded'
    complete -c svc-router -n "__svc_router_is config $verb" -a defaults.organisation -d 'organisation given to new keys'
    complete -c svc-router -n "__svc_router_is config $verb" -a defaults.tier -d 'tier given to new keys'
    complete -c svc-router -n "__svc_router_is config $verb" -a defaults.capTokens -d '30-day token cap given to new keys'
end
complete -c svc-router -n '__svc_router_is config set usage.store' -a file
complete -c svc-router -n '__svc_router_is config set server.metrics' -a 'true false'

# whoami, models, chat: talk to a router
for name in whoami models chat
    complete -c svc-router -n "__svc_router_in $name" -l base-url -x -d 'talk to a router over HTTP instead of in-process'
    complete -c svc-router -n "__svc_router_in $name" -l key -x -d 'key to send'
    complete -c svc-router -n "__svc_router_in $name" -l json -d 'print the raw response body'
end
complete -c svc-router -n '__svc_router_in chat' -s m -l model -x -a "$skus" -d 'model to ask'
complete -c svc-router -n '__svc_router_in chat' -s s -l system -x -d 'system prompt'
complete -c svc-router -n '__svc_router_in chat' -l max-tokens -x -d 'output cap'
complete -c svc-router -n '__svc_router_in chat' -l stream -d 'print tokens as they arrive'

# env
complete -c svc-router -n '__svc_router_in env' -l base-url -x -d "the router's address"
complete -c svc-router -n '__svc_router_in env' -l key -x -d 'key to put in the lines'

# doctor
complete -c svc-router -n '__svc_router_in doctor' -l base-url -x -d "the router's address as clients use it"
complete -c svc-router -n '__svc_router_in doctor' -l key -x -d 'key to check'
complete -c svc-router -n '__svc_router_in doctor' -l timeout -x -d 'how long each network check may take (ms)'
complete -c svc-router -n '__svc_router_in doctor' -l json -d 'print the results as JSON'

# connect
complete -c svc-router -n '__svc_router_is connect' -a codex -d 'Codex CLI'
complete -c svc-router -n '__svc_router_is connect' -a claude -d 'Claude Code'
complete -c svc-router -n '__svc_router_is connect' -a openai-sdk -d 'OpenAI SDK'
complete -c svc-router -n '__svc_router_is connect' -a anthropic-sdk -d 'Anthropic SDK'
complete -c svc-router -n '__svc_router_in connect' -l write -d "merge the settings into the client's own config file"
complete -c svc-router -n '__svc_router_in connect' -l base-url -x -d "the router's address"
complete -c svc-router -n '__svc_router_in connect' -l key -x -d 'key to use'

# completion
complete -c svc-router -n '__svc_router_is completion' -a 'bash zsh fish'
