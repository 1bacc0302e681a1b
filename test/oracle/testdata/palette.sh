#!/bin/sh
# The 256-colour table (as foreground and background), the 16 basic
# colours in both encodings, and every attribute alone and combined.
# Underline colours (SGR 58) are in TestUnderlineColour.
e=$(printf '\033')
i=0
while [ $i -lt 256 ]; do
	printf '%s[48;5;%dm%3d%s[38;5;%dm#%s[m' "$e" $i $i "$e" $(((i + 128) % 256)) "$e"
	if [ $((i % 16)) -eq 15 ]; then printf '\n'; fi
	i=$((i + 1))
done
for c in 0 1 2 3 4 5 6 7; do
	printf '%s[3%dm3%d%s[9%dm9%d%s[4%dm4%d%s[10%dm10%d%s[m ' "$e" $c $c "$e" $c $c "$e" $c $c "$e" $c $c "$e"
done
printf '\n'
for a in 1 2 3 4 5 7 8 9 21 53 '4:3' '1;3;4;7' '2;9' '1;2'; do
	printf '%s[%smattr %s%s[m ' "$e" "$a" "$a" "$e"
done
printf '\n%s[1;31mbold red%s[22m normal red%s[7m reversed%s[27;39m %s[4:3mcurly%s[m\n' "$e" "$e" "$e" "$e" "$e" "$e"
printf 'END\n'
exec sleep 100000
