#!/bin/sh
# Output longer than the screen, for comparing the scrollback: numbered
# coloured lines of growing length (some wrap), a full-screen clear in the
# middle (tmux and pty both move the cleared screen into the scrollback),
# and an alternate-screen interlude that must leave no trace in it.
e=$(printf '\033')
n=$1
pad=..........................................................................................................................................................
i=0
while [ $i -lt "$n" ]; do
	w=$((i % 150))
	printf '%s[3%dm%05d%s[m %.*s\n' "$e" $((i % 8)) $i "$e" $w "$pad"
	if [ $i -eq $((n / 2)) ]; then
		printf '%s[2J%s[Hcleared at %d\n' "$e" "$e" $i
		printf '%s[?1049h%s[Halternate screen, not in the scrollback%s[?1049l' "$e" "$e" "$e"
	fi
	i=$((i + 1))
done
printf 'END'
exec sleep 100000
