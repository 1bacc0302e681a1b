# pty completion for bash.
# Install: echo 'source <(pty completions bash)' >> ~/.bashrc
# or: pty completions bash > ~/.local/share/bash-completion/completions/pty

# __pty_words splits the command line up to the cursor into the words the
# shell will run, quotes and backslashes removed, into __pty_w; __pty_q is
# the quote left open in the last word. COMP_WORDS would not do: it keeps
# the quotes and splits at COMP_WORDBREAKS (--root=/x is three words there).
__pty_words() {
    local line=${COMP_LINE:0:COMP_POINT} w= c i n in=
    n=${#line}
    __pty_w=() __pty_q=
    for (( i = 0; i < n; i++ )); do
        c=${line:i:1}
        if [[ $__pty_q == "'" ]]; then
            if [[ $c == "'" ]]; then __pty_q=; else w+=$c; fi
        elif [[ $__pty_q == '"' ]]; then
            if [[ $c == '"' ]]; then
                __pty_q=
            elif [[ $c == '\' && ${line:i+1:1} == ['\$"`'] ]]; then
                w+=${line:i+1:1}
                (( i++ ))
            else
                w+=$c
            fi
        elif [[ $c == [$' \t'] ]]; then
            [[ -n $in ]] && __pty_w+=("$w")
            w= in=
        else
            in=1
            case $c in
                "'" | '"') __pty_q=$c ;;
                '\') w+=${line:i+1:1}; (( i++ )) ;;
                *) w+=$c ;;
            esac
        fi
    done
    __pty_w+=("$w")
}

# __pty_quote quotes $1 the way the word being completed is quoted so far,
# into __pty_c: readline inserts a candidate as it is, after any open quote.
__pty_quote() {
    local c=$1
    case $__pty_q in
        "'") c=${c//"'"/"'\''"} ;;
        '"')
            c=${c//'\'/'\\'}
            c=${c//'$'/'\$'}
            c=${c//'"'/'\"'}
            c=${c//'`'/'\`'}
            ;;
        *) printf -v c '%q' "$c" ;;
    esac
    __pty_c=$c
}

_pty() {
    local __pty_q __pty_c
    local -a __pty_w
    __pty_words
    local cur=${__pty_w[${#__pty_w[@]}-1]}
    local IFS=$'\n'
    local -a out
    out=($(command pty completions --complete -- "${__pty_w[@]:1}" 2>/dev/null))
    local n=${#out[@]}
    (( n > 0 )) || return 0
    local directive=${out[n-1]#:}
    unset "out[n-1]"
    COMPREPLY=()
    local c
    for c in "${out[@]}"; do
        c=${c%%$'\t'*}
        case $directive in
            1 | 2) ;; # -o filenames below: readline quotes these itself
            *) __pty_quote "$c"; c=$__pty_c ;;
        esac
        COMPREPLY+=("$c")
    done
    case $directive in
        1) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$cur")) ;;
        2) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -d -- "$cur")) ;;
        3) COMPREPLY+=($(compgen -c -- "$cur")) ;;
    esac
    return 0
}
complete -F _pty pty
