# bash completion for kcsmuxctl(8): commands, options, node names (asked
# from the running daemon with `kcsmuxctl list`), policy keys and values.
# Install as /usr/share/bash-completion/completions/kcsmuxctl, or source it.
# Needs nothing from the bash-completion package.

_kcsmuxctl_nodes()
{
	kcsmuxctl ${1:+-s "$1"} list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_kcsmuxctl()
{
	# Our own word split (on blanks only), so KEY=VALUE stays one word.
	local line=${COMP_LINE:0:COMP_POINT} words=() cword cur prev
	read -ra words <<<"$line"
	[[ $line == *[[:blank:]] ]] && words+=("")
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	prev=${words[cword - 1]}

	local commands="status list show set stats watch reload check help"
	local keys="policy= max_busy_us= poll_us= poll_max_us= backoff= use_irq=
		cpu_budget= latency_target_us= priority= weight= rate= burst= queue="
	local sock="" i cmd="" cmdi=0

	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-s)
			sock=${words[i + 1]}
			((i++))
			;;
		-*) ;;
		*)
			cmd=${words[i]}
			cmdi=$i
			break
			;;
		esac
	done

	COMPREPLY=()
	if [[ $prev == -s && -z $cmd ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-s -j --json -V -h" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	case $cmd in
	show | check)
		if [[ $cur == -* && $cmd == show ]]; then
			COMPREPLY=($(compgen -W "-j" -- "$cur"))
		elif ((cword == cmdi + 1)) || [[ $cmd == show && ${words[cmdi + 1]} == -j ]] && ((cword == cmdi + 2)); then
			COMPREPLY=($(compgen -W "$(_kcsmuxctl_nodes "$sock")" -- "$cur"))
		fi
		;;
	status | list)
		COMPREPLY=($(compgen -W "-j --json" -- "$cur"))
		;;
	reload)
		COMPREPLY=($(compgen -W "--dry-run" -- "$cur"))
		;;
	set)
		if ((cword == cmdi + 1)); then
			COMPREPLY=($(compgen -W "$(_kcsmuxctl_nodes "$sock")" -- "$cur"))
		elif [[ $cur == *=* ]]; then
			local key=${cur%%=*} vals="" v
			case $key in
			policy) vals="normal interactive monitor bulk" ;;
			backoff) vals="fixed exp adaptive" ;;
			use_irq) vals="yes no" ;;
			priority) vals="interactive normal bulk" ;;
			max_busy_us | rate) vals="unlimited" ;;
			cpu_budget | latency_target_us) vals="none" ;;
			esac
			# bash splits the word at '=' when '=' is a word break:
			# then only the value is being completed.
			for v in $(compgen -W "$vals" -- "${cur#*=}"); do
				if [[ $COMP_WORDBREAKS == *=* ]]; then
					COMPREPLY+=("$v")
				else
					COMPREPLY+=("$key=$v")
				fi
			done
		else
			COMPREPLY=($(compgen -W "$keys" -- "$cur"))
			compopt -o nospace 2>/dev/null
		fi
		;;
	stats)
		COMPREPLY=($(compgen -W "-j" -- "$cur"))
		;;
	watch)
		[[ $prev == -n || $prev == -c ]] ||
			COMPREPLY=($(compgen -W "-n -c" -- "$cur"))
		;;
	help)
		((cword == cmdi + 1)) &&
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		;;
	esac
}
complete -F _kcsmuxctl kcsmuxctl
