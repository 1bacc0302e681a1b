#!/bin/sh
# Wide (CJK, emoji) and combining characters: plain, coloured, wrapping at
# the right margin, and overwritten halfway.
e=$(printf '\033')
cols=$2
printf 'CJK: 中文字符 日本語 한국어\n'
printf 'emoji: 😀 🎉 🚀 ✅ ⭐\n'
printf 'combining: e\314\201 a\314\200 n\314\203 o\314\210\314\201 x\342\203\227\n'
printf '%s[31m红色%s[42m绿底%s[m%s[1;4m粗体下划线%s[m\n' "$e" "$e" "$e" "$e" "$e"
printf 'mixed: a中b文c😀d\n'
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
printf '字\314\201 ok\n'
printf 'Hangul jamo: \341\204\222\341\205\241\341\206\253\n'
printf 'END\n'
exec sleep 100000
