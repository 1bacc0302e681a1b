#!/bin/sh
# The editing sequences shells and line editors use, each on its own row:
# tabs and tab stops, insert mode, insert/delete/erase characters, repeat,
# erasing with a background colour, save/restore cursor with attributes,
# autowrap off, and the screen alignment test.
e=$(printf '\033')
rows=$1
cols=$2
printf '%s#8' "$e"                                  # DECALN fills the screen with E
printf '%s[2;1H%s[2K' "$e" "$e"
printf 'a\tb\tc\t|%s[3g' "$e"                       # default stops, then clear all stops
printf '%s[3;1H%s[2K%s[5G%sH%s[15G%sH\r\tx\ty\tz' "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[4;1H%s[2Kabcdef%s[3D%s[4hXY%s[4l' "$e" "$e" "$e" "$e" "$e"   # insert mode
printf '%s[5;1H%s[2K0123456789%s[4G%s[2@%s[7G%s[3P%s[2G%s[2X' "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[6;1H%s[2K=%s[9b|' "$e" "$e" "$e"            # REP
printf '%s[7;1H%s[2K%s[44mblue%s[K%s[m' "$e" "$e" "$e" "$e" "$e"      # EL with a background
printf '%s[8;10H%s[45m%s[1K%s[m' "$e" "$e" "$e" "$e"                 # EL 1 with a background
printf '%s[9;1H%s[2K%s[1;33msaved%s7%s[m%s[10;1Hplain%s8 restored' "$e" "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[11;1H%s[2K%s[?7l' "$e" "$e" "$e"                # autowrap off
i=0
while [ $i -lt $((cols + 10)) ]; do printf '%d' $((i % 10)); i=$((i + 1)); done
printf 'LAST%s[?7h' "$e"
printf '%s[12;1H%s[2K%s[%dGab中' "$e" "$e" "$e" $((cols - 2))     # wide char wraps from the edge
printf '%s[14;1H%s[2K%s[%dGz\314\201wrapped' "$e" "$e" "$e" "$cols"  # combining mark at the pending wrap
printf '%s[16;1H%s[J' "$e" "$e"                              # ED 0 below
printf '%s[16;1H%s[41m%s[0J%s[m' "$e" "$e" "$e" "$e"         # ED 0 with a background
printf '%s[%d;1H%s[mEND' "$e" $((rows - 1)) "$e"
exec sleep 100000
