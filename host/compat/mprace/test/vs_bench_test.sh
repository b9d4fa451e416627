#!/bin/bash
# vs_bench_test.sh BUILD - tests of testABB's transfer shape in abb_bench
# (--fixed, --loops, --no-concurrent) and of abb_bench_mprace --vs-bench,
# on the reference model (fast; its MB/s mean nothing here). The log
# testABB-sample.log is made up in testABB's output format.
set -u
build=$1
here=$(dirname "$0")
fail=0
check() { # check NAME COMMAND...: passes when COMMAND succeeds
	local name=$1
	shift
	if "$@"; then echo "  $name passed"; else echo "  $name FAILED"; fail=1; fi
}

# A 64 KiB transfer at the last word of BAR1 is only in range as a
# fixed-address transfer: --fixed must make it one (and --max must not be
# capped at BAR1 then).
bar1=$("$build/abb_bench" --device model --min 4 --max 1024M --bytes 4 --no-concurrent 2>&1 |
	sed -n 's/.*capped at the BAR1 size, \([0-9]*\) bytes.*/\1/p')
last=$(printf '0x%x' $((bar1 - 4)))
out=$("$build/abb_bench" --device model --fixed "$last" --loops 3 --min 64K --max 64K --no-concurrent --csv 2>&1)
check "abb_bench --fixed at BAR1's last word" test $? = 0
check "abb_bench --fixed: one row of 65536" test "$(echo "$out" | grep -c '^65536,')" = 1
"$build/abb_bench" --device model --min 64K --max 64K --bytes 64K --no-concurrent > /dev/null 2>&1
check "abb_bench --no-concurrent without --fixed" test $? = 0
"$build/abb_bench" --device model --fixed 0x8002 > /dev/null 2>&1
check "abb_bench --fixed refuses an unaligned address" test $? = 2
"$build/abb_bench" --device model --loops 0 > /dev/null 2>&1
check "abb_bench --loops refuses 0" test $? = 2

# Bad arguments: refused with a message naming the argument, the usage and
# exit status 2 (issue 17, finding 11: the bench's own parser took "-1" as
# 2^64-1 and let a suffix overflow)
refuses() { # refuses "ARGS" "MESSAGE"
	local out rc
	out=$("$build/abb_bench_mprace" $1 2>&1)
	rc=$?
	check "abb_bench_mprace $1: refused (exit 2, \"$2\")" \
		bash -c '[ "$0" = 2 ] && grep -qF -- "$1" <<< "$2" && grep -q "^usage:" <<< "$2"' \
		"$rc" "$2" "$out"
}
refuses "--device model --max -1" "--max -1: not negative"
refuses "--device model --max 17592186044417M" "--max 17592186044417M: out of range"
refuses "--device model --min 4G" "--min 4G: out of range"
refuses "--device model --bytes -4" "--bytes -4: not negative"
refuses "--device model --reps -1" "--reps -1: not negative"
refuses "--device model --loops 4294967297" "--loops 4294967297: out of range"
refuses "--device model --fit-max 6" "--fit-max 6: not a multiple of 4"
refuses "--device model stray" "stray: no such option"

# --vs-bench: both sections, polled and by interrupt, the sizes of the log
out=$("$build/abb_bench_mprace" --vs-bench "$here/testABB-sample.log" --device model --loops 2 2>&1)
check "vs-bench runs" test $? = 0
check "vs-bench: polled section, 4 KiB read 300 and write 100" \
	grep -Eq '^ +4096 \| +300\.0 +[0-9.]+ +[0-9.]+ \| +100\.0 ' <<< "$out"
check "vs-bench: 8 KiB row" grep -Eq '^ +8192 \| +400\.0 .*\| +200\.0 ' <<< "$out"
check "vs-bench: interrupt section ran abb_bench --irq up to 1 MiB" \
	grep -Eq -- "--min 4096 --max 1048576 --no-concurrent --irq --csv" <<< "$out"
check "vs-bench: interrupt section, 1 MiB read 600, no write" \
	grep -Eq '^ +1048576 \| +600\.0 +[0-9.]+ +[0-9.]+ \| +- ' <<< "$out"
check "vs-bench: 16 KiB..512 KiB (not in the log) not printed" \
	test "$(grep -Ec '^ +(16384|524288) \|' <<< "$out")" = 0
out=$("$build/abb_bench_mprace" --vs-bench "$here/testABB-sample.log" --device model --loops 2 --max 8K 2>&1)
check "vs-bench --max: the 1 MiB figure left out" grep -q '^1 figures of testABB at sizes above --max 8192 left out' <<< "$out"
"$build/abb_bench_mprace" --vs-bench /dev/null --device model > /dev/null 2>&1
check "vs-bench: a log without figures is an error" test $? = 1
exit $fail
