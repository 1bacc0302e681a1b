#!/bin/sh
# A truecolor gradient the way colour test scripts draw one: background
# and foreground both 24-bit, one upper half block per cell.
e=$(printf '\033')
rows=$1
cols=$2
y=0
while [ $y -lt $((rows - 2)) ]; do
	x=0
	while [ $x -lt "$cols" ]; do
		r=$((x * 255 / cols))
		g=$((y * 255 / rows))
		b=$((255 - x * 255 / cols))
		printf '%s[48;2;%d;%d;%dm%s[38;2;%d;%d;%dm▀' "$e" $r $g $b "$e" $b $r $g
		x=$((x + 1))
	done
	printf '%s[m\n' "$e"
	y=$((y + 1))
done
printf '%s[38:2::10:20:30mcolon form%s[m END' "$e" "$e"
exec sleep 100000
