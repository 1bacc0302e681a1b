package completion

import (
	_ "embed"
	"fmt"
)

// Script returns the completion script for a shell. Every script asks
// `pty completions --complete -- WORDS...` for candidates, so it stays
// correct as commands, sessions and plugins change.
func Script(shell string) (string, error) {
	switch shell {
	case "bash":
		return bashScript, nil
	case "zsh":
		return zshScript, nil
	case "fish":
		return fishScript, nil
	}
	return "", fmt.Errorf("unknown shell %q: choose bash, zsh or fish", shell)
}

// The bash script is a file of its own: it needs backquotes, which a Go
// raw string cannot hold.
//
//go:embed pty.bash
var bashScript string

const zshScript = `#compdef pty
# pty completion for zsh.
# Install: echo 'source <(pty completions zsh)' >> ~/.zshrc (after compinit)
# or: pty completions zsh > "${fpath[1]}/_pty"

_pty() {
    local -a lines described
    local directive l v d
    lines=("${(@f)$(command pty completions --complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    (( ${#lines} )) || return 1
    directive=${lines[-1]#:}
    lines=("${(@)lines[1,-2]}")
    for l in "${lines[@]}"; do
        [[ -n $l ]] || continue
        v=${l%%$'\t'*}
        v=${v//:/\\:}
        if [[ $l == *$'\t'* ]]; then
            d=${l#*$'\t'}
            described+=("$v:$d")
        else
            described+=("$v")
        fi
    done
    local ret=1
    (( ${#described} )) && _describe -t values 'pty' described && ret=0
    case $directive in
        1) _files && ret=0 ;;
        2) _files -/ && ret=0 ;;
        3) _command_names -e && ret=0 ;;
    esac
    return ret
}

if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _pty "$@"
else
    compdef _pty pty
fi
`

const fishScript = `# pty completion for fish.
# Install: pty completions fish > ~/.config/fish/completions/pty.fish

function __pty_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    set -l out (command pty completions --complete -- $tokens "$cur" 2>/dev/null)
    test (count $out) -gt 0; or return
    set -l directive (string sub -s 2 -- $out[-1])
    set -e out[-1]
    # printf, not echo: echo would take the candidates -e and -n as its
    # own options.
    printf '%s\n' $out
    switch $directive
        case 1
            __fish_complete_path "$cur"
        case 2
            __fish_complete_directories "$cur"
        case 3
            complete -C "$cur"
    end
end

complete -c pty -f -a '(__pty_complete)'
`
