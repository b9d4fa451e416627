#!/bin/bash
# wave_shot.sh SAVEFILE PNG [SPAN_PS [before]] - a screenshot of GTKWave
# showing SAVEFILE (a .gtkw the simulator wrote next to its FST) on a
# virtual X display (xvfb-run): SPAN_PS picoseconds from just before
# marker A ("before": the SPAN_PS up to marker A; default: the save file's
# own view). WAVE_SHOT_DROP="group;group" leaves those signal groups out
# (the save file is copied). Needs gtkwave, xvfb, x11-apps (xwd) and
# netpbm (xwdtopnm, pnmtopng): `make wave-shots` installs them.
set -euo pipefail
gtkw=$1 png=$2 span=${3:-} where=${4:-after}
dir=$(cd "$(dirname "$gtkw")" && pwd)
tmp=$(mktemp -d /tmp/wave_shot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/shot.tcl"
if [ -n "$span" ]; then
	a=$(awk '/^\*/ { print $3; exit }' "$gtkw")
	if [ "$a" != "-1" ]; then
		if [ "$where" = before ]; then
			from=$(( a > span ? a - span : 0 )); to=$a
		else
			from=$(( a > span / 20 ? a - span / 20 : 0 )); to=$(( from + span ))
		fi
		echo "gtkwave::setZoomRangeTimes $from $to" >> "$tmp/shot.tcl"
	fi
fi
# the copy of the save file, without the groups to drop
awk -v drop="${WAVE_SHOT_DROP:-}" '
	BEGIN { n = split(drop, d, ";"); for (i = 1; i <= n; i++) skip["-" d[i]] = 1 }
	/^@800200$/ { getline name; if (name in skip) { cut = name; next } print; print name; next }
	/^@1000200$/ { getline name; if (cut != "" && name == cut) { cut = ""; next } if (cut == "") { print; print name } next }
	cut == "" { print }
' "$gtkw" > "$dir/.shot.gtkw"
cd "$dir"
xvfb-run -a -s "-screen 0 1600x1300x24" bash -c "
	gtkwave -a .shot.gtkw -S '$tmp/shot.tcl' >/dev/null 2>&1 &
	pid=\$!
	sleep 8
	xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > '$png.tmp'
	kill \$pid
"
rm -f .shot.gtkw
mv "$png.tmp" "$png"
echo "wave_shot: $png from $gtkw"
