#!/bin/sh
# Scroll regions (DECSTBM) as status-bar programs use them: a fixed header
# and footer, output scrolling between them, insert/delete line, reverse
# index at the top margin, SU/SD, origin mode, then a region in the middle
# of the screen that scrolls while the rest stays put.
e=$(printf '\033')
rows=$1
printf '%s[2J%s[H%s[7m header %s[m' "$e" "$e" "$e" "$e"
printf '%s[%d;1H%s[44;97m footer %s[m' "$e" "$rows" "$e" "$e"
printf '%s[2;%dr%s[2;1H' "$e" $((rows - 1)) "$e"
i=0
while [ $i -lt 60 ]; do
	printf '%s[3%dmregion line %d%s[m\n' "$e" $((i % 8)) $i "$e"
	i=$((i + 1))
done
# Insert three lines at row 5 and delete two at row 10, inside the region.
printf '%s[5;1H%s[3L%s[32minserted%s[m' "$e" "$e" "$e" "$e"
printf '%s[10;1H%s[2Mdeleted-here' "$e" "$e"
# Reverse index at the top margin scrolls the region down.
printf '%s[2;1H%sM%sMreverse-indexed' "$e" "$e" "$e"
# Scroll up 4 and down 2 with the region still set.
printf '%s[4S%s[2T' "$e" "$e"
# Origin mode: row 1 is the top margin.
printf '%s[?6h%s[1;1Horigin-top%s[?6l' "$e" "$e" "$e"
# A small region in the middle; the lines around it stay.
printf '%s[r%s[8;12r%s[12;1H' "$e" "$e" "$e"
i=0
while [ $i -lt 7 ]; do
	printf '\nmid %d %s[41m  %s[m' $i "$e" "$e"
	i=$((i + 1))
done
printf '%s[r%s[%d;10HEND' "$e" "$e" $((rows - 2))
exec sleep 100000
