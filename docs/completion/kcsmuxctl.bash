# bash completion for kcsmuxctl(8)
# Install as /usr/share/bash-completion/completions/kcsmuxctl.

_kcsmuxctl_nodes()
{
	local sock=$1
	kcsmuxctl ${sock:+-s "$sock"} list 2>/dev/null |
		awk 'NR > 1 { print $1 }'
}

_kcsmuxctl()
{
	local cur prev words cword
	_init_completion -n = || return

	local commands="list show set stats watch reload help"
	local keys="policy= max_busy_us= poll_us= poll_max_us= backoff= use_irq=
		cpu_budget= latency_target_us= priority= weight= rate= burst= queue="
	local sock="" i cmd="" cmdi=0

	# global options, then the command word
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

	if [[ $prev == -s ]]; then
		_filedir
		return
	fi
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-s -V -h" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	case $cmd in
	show)
		((cword == cmdi + 1)) &&
			COMPREPLY=($(compgen -W "$(_kcsmuxctl_nodes "$sock")" -- "$cur"))
		;;
	set)
		if ((cword == cmdi + 1)); then
			COMPREPLY=($(compgen -W "$(_kcsmuxctl_nodes "$sock")" -- "$cur"))
		elif [[ $cur == *=* ]]; then
			local key=${cur%%=*} vals=""
			case $key in
			policy) vals="normal interactive monitor bulk" ;;
			backoff) vals="fixed exp adaptive" ;;
			use_irq) vals="yes no" ;;
			priority) vals="interactive normal bulk" ;;
			max_busy_us | rate) vals="unlimited" ;;
			cpu_budget | latency_target_us) vals="none" ;;
			esac
			COMPREPLY=($(compgen -W "$vals" -- "${cur#*=}"))
		else
			COMPREPLY=($(compgen -W "$keys" -- "$cur"))
			compopt -o nospace
		fi
		;;
	stats)
		COMPREPLY=($(compgen -W "-j" -- "$cur"))
		;;
	watch)
		[[ $prev == -n || $prev == -c ]] || COMPREPLY=($(compgen -W "-n -c" -- "$cur"))
		;;
	help)
		((cword == cmdi + 1)) && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		;;
	esac
}
complete -F _kcsmuxctl kcsmuxctl
