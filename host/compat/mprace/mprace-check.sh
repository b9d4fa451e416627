#!/bin/bash
# mprace-check.sh DIR BUILD - compiles every *.cpp in DIR (original mprace
# programs, unchanged) against the mprace layer of the build tree BUILD and
# runs each on every device of MPRACE_DEVICES; prints one verdict line per
# program and device and exits non-zero if any failed.
#
#   MPRACE_DEVICES  devices (values of ABB_DEVICE), default "sim model"
#   MPRACE_TIMEOUT  wall-clock seconds per run, default 1800: a run still
#                   going then is stopped and reported as TIMEOUT with what it
#                   printed (the simulator moves a few MB of DMA data per
#                   wall-clock second; testABB's user-memory tests move GBs)
#   MPRACE_LOOPS    programs that loop forever (#define INFLOOP: testABBlong)
#                   are stopped once they print "Loop Count: N" for this N
#                   (default 1: one complete loop), verdict LOOPS
#   MPRACE_ARGS     arguments given to every program, default "/dev/null"
#                   (testABBconfig wants a configuration file name it does
#                   not use)
#
# A run fails when the program prints a failed comparison ("failed buffer
# comp", "fail:", an 'x' in a line of progress dots), an exception (the
# layer's "mprace::Exception: ..." or any other what()), or ends by a signal
# or with a non-zero status. Logs: BUILD/mprace-check/NAME.DEVICE.log.
set -u
dir=$1
build=$2
devices=${MPRACE_DEVICES:-sim model}
limit=${MPRACE_TIMEOUT:-1800}
loops=${MPRACE_LOOPS:-1}
args=${MPRACE_ARGS:-/dev/null}
out=$build/mprace-check
mkdir -p "$out"

shopt -s nullglob
progs=("$dir"/*.cpp)
if [ ${#progs[@]} -eq 0 ]; then
	echo "mprace-check: no *.cpp in $dir" >&2
	exit 2
fi
flags=$(PKG_CONFIG_PATH=$build pkg-config --cflags --libs abb-mprace) || exit 2

# verdict LOG STATUS: prints the verdict word and returns 0 when it passed
verdict() {
	local log=$1 status=$2 bad
	bad=$(grep -n -E "failed buffer comp|fail:|mprace::Exception|std::|exception|bad_alloc|^[.x]*x[.x]*$" "$log" | head -3)
	if [ -n "$bad" ]; then
		echo "FAIL ($(echo "$bad" | head -1 | cut -c1-80))"
		return 1
	fi
	case $status in
	0) echo "PASS"; return 0 ;;
	loops) echo "LOOPS (stopped after $loops complete loop(s) of an endless program)"; return 0 ;;
	124) echo "TIMEOUT (stopped after ${limit} s, no failure so far)"; return 0 ;;
	*) echo "FAIL (exit status $status)"; return 1 ;;
	esac
}

failed=0
for src in "${progs[@]}"; do
	name=$(basename "$src" .cpp)
	bin=$out/$name
	echo "mprace-check: c++ -O2 -o $bin $src \$(pkg-config --cflags --libs abb-mprace)"
	if ! ${CXX:-c++} -O2 -w -o "$bin" "$src" $flags > "$out/$name.compile.log" 2>&1; then
		echo "  $name: COMPILE FAILED (see $out/$name.compile.log)"
		head -5 "$out/$name.compile.log" | sed 's/^/    /'
		failed=1
		continue
	fi
	endless=0
	grep -q "^#define INFLOOP" "$src" && endless=1
	for d in $devices; do
		log=$out/$name.$d.log
		start=$(date +%s)
		if [ $endless = 1 ]; then
			# stop the program once it starts loop number $loops
			( ABB_DEVICE=$d timeout "$limit" "$bin" $args > "$log" 2>&1 ) &
			pid=$!
			status=124
			while kill -0 $pid 2> /dev/null; do
				if grep -q "^Loop Count: $loops\$" "$log" 2> /dev/null; then
					pkill -TERM -P $pid 2> /dev/null
					wait $pid 2> /dev/null
					status=loops
					break
				fi
				sleep 1
			done
			if [ $status != loops ]; then
				wait $pid
				status=$?
			fi
		else
			ABB_DEVICE=$d timeout "$limit" "$bin" $args > "$log" 2>&1
			status=$?
		fi
		secs=$(($(date +%s) - start))
		v=$(verdict "$log" "$status") || failed=1
		printf "  %-16s %-6s %4ss  %s\n" "$name" "$d" "$secs" "$v"
		tail -n 2 "$log" | sed 's/^/      | /'
	done
done
exit $failed
