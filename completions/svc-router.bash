# bash completion for svc-router
# Generated from the command tree by `npm run docs` (src/cli/completion/); do not edit by hand.
#
# Load it in the current shell:
#   source <(svc-router completion bash)
# or install it for every new shell:
#   svc-router completion bash > ~/.local/share/bash-completion/completions/svc-router
#
# Needs nothing but bash itself (the bash-completion package is optional).

_svc_router_backends() {
    command -v svc-router >/dev/null 2>&1 || return 0
    svc-router backends list --json 2>/dev/null | sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p'
}

# Options that take a value, so the word after them is not a command or an argument.
_svc_router_takes_value() {
    case $1 in
        --host | --port | --offline-script | --usage-store | --log-format | --otel | --config | --tls-cert | --tls-key | --log-file | --log-max-size | --log-keep | --since | --caller | --status | --session | --limit | --timeout | --developer | --org | --tier | --cap | --rpm | --tpm | --type | --base-url | --api-key | --api-key-env | --header | --connect-timeout | --first-byte-timeout | --idle-timeout | --total-timeout | --auth | --anthropic-version | --api-version | --project | --region | --credentials | --profile | --provider-routing | --aws-profile | --key | --key-env | --strategy | --rate-limit-cooldown | --payment-cooldown | --context-window | --context-above | --model | --input | --output | --cache-read | --cache-write | -o | --schema-ref | -m | -s | --system | --max-tokens | --client)
            return 0 ;;
    esac
    return 1
}

_svc_router() {
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    local skus='svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite'
    local config_keys='server.host server.port server.bodyLimitBytes server.bodyTimeoutMs server.headersTimeoutMs server.maxConnections server.metrics server.ui server.websockets server.otel server.requestLogDays server.requestLogMaxBytes server.tls.cert server.tls.key server.hosts server.cors usage.store routing.sessionHeader limits.outputReserveTokens limits.reservationTtlMs limits.session.tokens limits.session.usd notify.webhook guardrails.secrets safeguards.classifier safeguards.timeoutMs defaults.organisation defaults.tier defaults.capTokens'
    local commands='serve logs status stop restart init keys backends routes prices config whoami usage sessions models chat env doctor connect completion help'
    local help='-h --help'

    # The option whose value is being completed, if any. COMP_WORDBREAKS usually holds '=',
    # so `--type=op` arrives as "--type" "=" "op"; without it, as one word.
    local opt= pfx=
    if [[ $cur == = && $prev == -* ]]; then
        opt=$prev
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == -* ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
        pfx=$opt=
        cur=${cur#*=}
    elif [[ $prev != = ]] && _svc_router_takes_value "$prev"; then
        opt=$prev
    fi

    # Walk the words before the cursor: command, subcommand, then the positional arguments.
    local cmd= sub= i word
    local -a args=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == : || ${COMP_WORDS[i - 1]} == : ]] && ((${#args[@]})); then
            # BACKEND:MODEL is split at ':' like '=' is; glue it back together.
            args[${#args[@]} - 1]+=$word
            continue
        fi
        case $word in
            -*)
                if [[ $word != *=* ]] && _svc_router_takes_value "$word"; then
                    if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                        ((i += 2))
                    else
                        ((i += 1))
                    fi
                fi
                ;;
            *)
                if [[ -z $cmd ]]; then
                    cmd=$word
                elif [[ -z $sub && $cmd =~ ^(keys|backends|routes|prices|config|models)$ ]]; then
                    sub=$word
                else
                    args+=("$word")
                fi
                ;;
        esac
    done
    local nargs=${#args[@]}

    if [[ -n $opt ]]; then
        case $opt in
            --offline-script)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            --log-format)
                COMPREPLY=($(compgen -W 'text json' -- "$cur"))
                ;;
            --config)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            --tls-cert)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            --tls-key)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            --log-file)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            --type)
                COMPREPLY=($(compgen -W 'openai-chat openai-responses anthropic gemini vertex bedrock' -- "$cur"))
                ;;
            --auth)
                COMPREPLY=($(compgen -W 'x-api-key bearer' -- "$cur"))
                ;;
            --profile)
                COMPREPLY=($(compgen -W 'openrouter deepseek groq mistral xai' -- "$cur"))
                ;;
            --strategy)
                COMPREPLY=($(compgen -W 'round-robin fill-first' -- "$cur"))
                ;;
            -o | --output)
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
                ;;
            -m | --model)
                COMPREPLY=($(compgen -W "$skus" -- "$cur"))
                ;;
            --client)
                COMPREPLY=($(compgen -W 'openai anthropic codex claude gemini' -- "$cur"))
                ;;
        esac
        if [[ -n $pfx ]]; then
            COMPREPLY=("${COMPREPLY[@]/#/$pfx}")
        fi
        return 0
    fi

    # The upstream model after BACKEND: is free text.
    if [[ $cur == : || $prev == : ]]; then
        return 0
    fi

    local options=$help
    case $cmd in
        '') options='-V --version -h --help' ;;
        serve) options="--host --port --offline-script --usage-store --log-format --quiet --log-bodies --ui --metrics --otel --config --tls-cert --tls-key --detach --log-file --log-max-size --log-keep $help" ;;
        logs) options="-f --follow --since --caller --status --session --limit --json $help" ;;
        status) options="--json $help" ;;
        stop) options="--timeout $help" ;;
        restart) options="--timeout $help" ;;
        init) options="--developer --org --tier --cap --force --json $help" ;;
        keys)
            case $sub in
                issue) options="--developer --org --tier --cap --force --json $help" ;;
                cap) options="--json $help" ;;
                list) options="--json $help" ;;
                limit) options="--rpm --tpm --clear $help" ;;
                revoke) options="$help" ;;
            esac
            ;;
        backends)
            case $sub in
                add) options="--type --base-url --api-key --api-key-env --header --connect-timeout --first-byte-timeout --idle-timeout --total-timeout --cache-control --auth --anthropic-version --api-version --project --region --credentials --profile --provider-routing --websocket --aws-profile $help" ;;
                list) options="--json $help" ;;
                pool) options="--key --key-env --strategy --rate-limit-cooldown --payment-cooldown --clear $help" ;;
                remove) options="$help" ;;
            esac
            ;;
        routes)
            case $sub in
                set) options="--context-window --new $help" ;;
                window) options="--unset $help" ;;
                list) options="--json $help" ;;
                rule) options="--background --thinking --context-above --image --web-search --model $help" ;;
                rule-remove) options="$help" ;;
                weights) options="$help" ;;
                guard) options="--unset $help" ;;
                search) options="--unset $help" ;;
                unset) options="$help" ;;
            esac
            ;;
        prices)
            case $sub in
                list) options="--json $help" ;;
                set) options="--input --output --cache-read --cache-write $help" ;;
                unset) options="$help" ;;
            esac
            ;;
        config)
            case $sub in
                path) options="$help" ;;
                get) options="$help" ;;
                set) options="$help" ;;
                export) options="-o --output --force --with-keys --schema-ref $help" ;;
                import) options="--dry-run $help" ;;
                validate) options="--json $help" ;;
            esac
            ;;
        whoami) options="--base-url --key --json $help" ;;
        usage) options="--base-url --key --json $help" ;;
        sessions) options="--base-url --key --json $help" ;;
        models)
            case $sub in
                list) options="--base-url --key --json $help" ;;
                info) options="--json $help" ;;
            esac
            ;;
        chat) options="-m --model -s --system --max-tokens --stream --base-url --key --json $help" ;;
        env) options="--base-url --key $help" ;;
        doctor) options="--base-url --key --timeout --live --client --json $help" ;;
        connect) options="--write --undo --force --base-url --key --model $help" ;;
        completion) options="$help" ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return 0
    fi

    local words=
    case $cmd in
        '') words=$commands ;;
        help) ((nargs == 0)) && words=$commands ;;
        serve) words=$options ;;
        logs) words=$options ;;
        status) words=$options ;;
        stop) words=$options ;;
        restart) words=$options ;;
        init) words=$options ;;
        keys)
            case $sub in
                '') words='issue cap list limit revoke help' ;;
                help) ((nargs == 0)) && words='issue cap list limit revoke' ;;
                issue) words=$options ;;
                cap)
                    if ((nargs == 0)); then
                        :
                    elif ((nargs == 1)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                list) words=$options ;;
                limit)
                    if ((nargs == 0)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                revoke)
                    if ((nargs == 0)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        backends)
            case $sub in
                '') words='add list pool remove help' ;;
                help) ((nargs == 0)) && words='add list pool remove' ;;
                add)
                    if ((nargs == 0)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                list) words=$options ;;
                pool)
                    if ((nargs == 0)); then
                        words="$(_svc_router_backends)"
                    else
                        words=$options
                    fi
                    ;;
                remove)
                    if ((nargs == 0)); then
                        words="$(_svc_router_backends)"
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        routes)
            case $sub in
                '') words='set window list rule rule-remove weights guard search unset help' ;;
                help) ((nargs == 0)) && words='set window list rule rule-remove weights guard search unset' ;;
                set)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs >= 1)); then
                        words="$(_svc_router_backends) offline"
                    fi
                    ;;
                window)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs == 1)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                list) words=$options ;;
                rule)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs == 1)); then
                        :
                    elif ((nargs >= 2)); then
                        words="$(_svc_router_backends) offline"
                    fi
                    ;;
                rule-remove)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs == 1)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                weights)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs >= 1)); then
                        :
                    fi
                    ;;
                guard)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs == 1)); then
                        words='off warn mask refuse'
                    else
                        words=$options
                    fi
                    ;;
                search)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    elif ((nargs == 1)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                unset)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        prices)
            case $sub in
                '') words='list set unset help' ;;
                help) ((nargs == 0)) && words='list set unset' ;;
                list) words=$options ;;
                set)
                    if ((nargs == 0)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
                unset)
                    if ((nargs == 0)); then
                        :
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        config)
            case $sub in
                '') words='path get set export import validate help' ;;
                help) ((nargs == 0)) && words='path get set export import validate' ;;
                path) words=$options ;;
                get)
                    if ((nargs == 0)); then
                        words="$config_keys"
                    else
                        words=$options
                    fi
                    ;;
                set)
                    if ((nargs == 0)); then
                        words="$config_keys"
                    elif ((nargs == 1)); then
                        case ${args[0]} in
                            server.metrics) words='true false' ;;
                            server.ui) words='true false' ;;
                            server.websockets) words='true false' ;;
                            server.otel) words='true false' ;;
                            usage.store) words=file ;;
                            guardrails.secrets) words='off warn mask refuse' ;;
                            safeguards.classifier) words='svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite' ;;
                        esac
                    else
                        words=$options
                    fi
                    ;;
                export) words=$options ;;
                import)
                    if ((nargs == 0)); then
                        compopt -o filenames 2>/dev/null
                        local IFS=$'\n'
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return 0
                    else
                        words=$options
                    fi
                    ;;
                validate)
                    if ((nargs == 0)); then
                        compopt -o filenames 2>/dev/null
                        local IFS=$'\n'
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return 0
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        whoami) words=$options ;;
        usage) words=$options ;;
        sessions) words=$options ;;
        models)
            case $sub in
                '') words='list info help' ;;
                help) ((nargs == 0)) && words='list info' ;;
                list) words=$options ;;
                info)
                    if ((nargs == 0)); then
                        COMPREPLY=($(compgen -W 'svc.intelligent-pro svc.intelligent-basic svc.intelligent-lite claude-*' -- "$cur"))
                        # Escape the '*' so the shell passes the pattern on instead of globbing it.
                        COMPREPLY=("${COMPREPLY[@]//\*/\\*}")
                        return 0
                    else
                        words=$options
                    fi
                    ;;
            esac
            ;;
        chat)
            if ((nargs >= 0)); then
                :
            fi
            ;;
        env) words=$options ;;
        doctor) words=$options ;;
        connect)
            if ((nargs == 0)); then
                words='codex claude gemini openai-sdk anthropic-sdk'
            else
                words=$options
            fi
            ;;
        completion)
            if ((nargs == 0)); then
                words='bash zsh fish'
            else
                words=$options
            fi
            ;;
    esac

    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return 0
}

complete -F _svc_router svc-router
