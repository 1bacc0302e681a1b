#!/bin/sh
# Boxes drawn with the DEC special graphics set, the way ncurses draws
# them on xterm: G0 switched with ESC ( 0 / ESC ( B, and G1 designated
# with ESC ) 0 and invoked with SO / SI, coloured and not.
e=$(printf '\033')
printf '%s(0lqqqqqqwqqqqqqk%s(B\n' "$e" "$e"
printf '%s(0x%s(B inside %s(0x%s(B %s[1;34mblue%s[m %s(0x%s(B\n' "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s(0tqqqqqqnqqqqqqu%s(B\n' "$e" "$e"
printf '%s)0%s[32m\016mqqqqqqvqqqqqqj\017%s[m plain q x after SI\n' "$e" "$e" "$e"
printf '%s(0`afgjklmnopqrstuvwxyz{|}~%s(B all of them\n' "$e" "$e"
printf 'END\n'
exec sleep 100000
