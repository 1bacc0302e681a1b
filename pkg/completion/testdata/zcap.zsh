# Usage: zsh -f zcap.zsh "pty attach " ["pty kill " ...] -- prints the
# completions zsh offers for each line, each list after a line "LINE:N".
zmodload zsh/zpty
zpty z zsh -f -i
# Reads until the marker is output (not merely echoed), 10 s at most.
waitfor() {
  local acc="" out i
  for i in {1..200}; do
    while zpty -rt z out; do acc+=$out; done
    [[ $acc == *"$1"$'\r'* || $acc == *"$1"$'\n'* ]] && { REPLY=$acc; return 0; }
    sleep 0.05
  done
  REPLY=$acc; return 1
}
zpty -w z "PROMPT=''; autoload -U compinit; compinit -u -D; source <(pty completions zsh)"
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; (( $#__hits )) && print -l -- "HIT:"${^__hits}; }'
zpty -w z '_ptytest() { _pty "$@"; local r=$?; print -- "COMP""END"; return r }; compdef _ptytest pty'
zpty -w z 'zstyle ":completion:*" insert-tab false; bindkey "^I" complete-word; print -- "READY""MARK"'
waitfor READYMARK || { print -u2 "zsh did not start"; exit 1; }
n=0
for typed in "$@"; do
  zpty -w -n z "$typed"$'\t'
  waitfor COMPEND || { print -u2 "completion did not run"; exit 1; }
  COMPOUT=$REPLY
  zpty -w -n z $'\x15'
  zpty -w z 'print -- "DONE""MARK'$n'"'
  waitfor DONEMARK$n || { print -u2 "no completion output"; print -r -- "$REPLY" | cat -v >&2; exit 1; }
  print -r -- "LINE:$n"
  for line in "${(@f)COMPOUT}"; do
    [[ $line == *HIT:* ]] && print -r -- ${${line##*HIT:}%%$'\r'*}
  done
  (( n++ ))
done
zpty -d z
