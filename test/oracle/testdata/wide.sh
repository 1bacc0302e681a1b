#!/bin/sh
# Wide (CJK, emoji) and combining characters: plain, coloured, wrapping at
# the right margin, and overwritten halfway. Text alone cannot show how
# wide a character was taken to be, so most lines end with a '#' at a
# fixed column: the spaces before it are the width test.
e=$(printf '\033')
cols=$2
mark() { printf '%s[%dG#\n' "$e" $((cols - 1)); }
printf 'CJK: 中文字符 日本語 한국어'; mark
printf 'emoji: 😀 🎉 🚀 ✅ ⭐'; mark
printf 'combining: e\314\201 a\314\200 n\314\203 o\314\210\314\201 x\342\203\227'; mark
printf '%s[31m红色%s[42m绿底%s[m%s[1;4m粗体下划线%s[m' "$e" "$e" "$e" "$e" "$e"; mark
printf 'mixed: a中b文c😀d'; mark
# Sequences terminals disagree on: variation selectors, flags, skin
# tones, keycaps, zero-width and ambiguous-width characters. Both must
# place the '#' in the same column.
printf 'vs16: \342\235\244\357\270\217 vs15: \342\230\272\357\270\216'; mark
# An emoji ZWJ sequence (man ZWJ woman ZWJ girl) without the width mark:
# tmux 3.3 joins it into one 2-column cell, while glibc's wcwidth, which
# shells and editors use to lay out their output, and xterm.js (upstream
# pty's emulator) count 2+0+2+0+2 = 6 columns, as pty does. A terminal
# narrower than the program believes misplaces everything after it on
# the line, so here tmux is not the reference; the text must still agree.
printf 'zwj: \360\237\221\250\342\200\215\360\237\221\251\342\200\215\360\237\221\247\n'
printf 'flag: \360\237\207\253\360\237\207\267 skin: \360\237\221\215\360\237\217\275'; mark
printf 'keycap: 1\357\270\217\342\203\243 zw: a\342\200\213b\302\255c'; mark
printf 'ambiguous: \302\261\342\200\246\342\224\200\316\261 \342\214\232\342\231\210'; mark
# A wide character that does not fit in the last column wraps whole.
i=1
while [ $i -lt "$cols" ]; do printf x; i=$((i + 1)); done
printf '宽next line\n'
# Overwrite the right half of a wide character, then the left half. Not
# in column 0: there tmux 3.3 leaves the wide character in place when its
# right half is overwritten (screen_write_overwrite's search for the first
# half stops at x > 0), which no terminal does.
printf '.中文中文\r%s[2Cab\r\n' "$e"
printf '.中文中文\r%s[1CZ\n' "$e"
# Combining mark after a wide character and after a cursor move.
printf '字\314\201 ok'; mark
printf 'END\n'
exec sleep 100000
