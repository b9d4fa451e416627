#!/bin/bash
# wave_shot.sh SAVEFILE PNG [SPAN_PS] - a screenshot of GTKWave showing
# SAVEFILE (a .gtkw the simulator wrote next to its FST) on a virtual X
# display (xvfb-run), from just before marker A over SPAN_PS picoseconds
# (default: the save file's own view). Needs gtkwave, xvfb, x11-apps
# (xwd) and netpbm (xwdtopnm, pnmtopng): `make wave-shots` installs them.
set -euo pipefail
gtkw=$1 png=$2 span=${3:-}
dir=$(cd "$(dirname "$gtkw")" && pwd)
tcl=$(mktemp /tmp/wave_shot.XXXXXX.tcl)
trap 'rm -f "$tcl"' EXIT
: > "$tcl"
if [ -n "$span" ]; then
	a=$(awk '/^\*/ { print $3; exit }' "$gtkw")
	if [ "$a" != "-1" ]; then
		from=$(( a > span / 20 ? a - span / 20 : 0 ))
		echo "gtkwave::setZoomRangeTimes $from $(( from + span ))" >> "$tcl"
	fi
fi
cd "$dir"
xvfb-run -a -s "-screen 0 1600x1300x24" bash -c "
	gtkwave -a '$(basename "$gtkw")' -S '$tcl' >/dev/null 2>&1 &
	pid=\$!
	sleep 8
	xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > '$png.tmp'
	kill \$pid
"
mv "$png.tmp" "$png"
echo "wave_shot: $png from $gtkw"
