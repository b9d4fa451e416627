#!/bin/bash
# model_tlp_same.sh - make model-tlp-same: the timed reference model's TLPs
# (every TLP and its device time, from its TLP log) of this tree's libabb
# against another libabb's, for the same program: speed work on the timed
# model (host/lib/ref_timing.c, ref_engine.c, backend_ref_timed.c) must not
# move a single TLP (doc/time.md, "The timed reference model").
#
#   model_tlp_same.sh BENCH BASE_LIB_DIR
#
# BENCH is this tree's abb_bench; BASE_LIB_DIR holds the other libabb.so.0
# (LD_LIBRARY_PATH takes it before the program's RUNPATH). Every link
# configuration below, DMA reads and writes of 4 B .. 256 KiB, 20 of each
# size, polled and by interrupt, one thread (concurrent runs are not
# deterministic): the two TLP logs must be identical. Exit 1 if any differ.
set -u
bench=$1 base=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CFGS=(
	""
	"gen=3,lanes=4,mps=4096,mrrs=512,rcb=128,reorder=1,seed=249635,msi=1"
	"gen=2,lanes=8,mps=2048,mrrs=128,rcb=64,reorder=1,seed=56255,iova=scatter,credits=up.ph=58:up.pd=207:up.nph=52:up.cpld=45:down.ph=12:down.pd=36:down.nph=3:down.cpld=0"
	"gen=3,lanes=1,mps=2048,mrrs=2048,rcb=128,reorder=0,iova=scatter,credits=up.ph=6:up.pd=178:up.nph=3:up.cpld=20:down.ph=25:down.pd=130:down.nph=11:down.cpld=0"
	"gen=1,lanes=16,mps=256,mrrs=4096,cpl=mps,reorder=2,shared_engine=1"
	"gen=2,lanes=2,mps=512,mrrs=256,rcb=64,link_ns=50,mem_ns=900"
)
bad=0
for c in "${CFGS[@]}"; do
	dev="model:timed=1${c:+,$c}"
	for irq in "" --irq; do
		args=(-d "$dev" --min 4 --max 256K --loops 20 --no-concurrent --csv $irq)
		ABB_TLP_LOG=$tmp/new.log "$bench" "${args[@]}" > "$tmp/new.out" 2>&1 ||
			{ echo "model-tlp-same: this tree failed: $dev $irq"; bad=1; }
		LD_LIBRARY_PATH=$base ABB_TLP_LOG=$tmp/base.log "$bench" "${args[@]}" > "$tmp/base.out" 2>&1 ||
			{ echo "model-tlp-same: the baseline failed: $dev $irq"; bad=1; }
		if [ -s "$tmp/new.log" ] && cmp -s "$tmp/new.log" "$tmp/base.log"; then
			r=identical
		else
			r="DIFFERENT ($(cmp "$tmp/new.log" "$tmp/base.log" 2>&1 | head -1))"
			bad=1
		fi
		printf 'model-tlp-same: %-9s %7s TLPs %s: %s\n' "${irq:---poll}" "$(wc -l < "$tmp/new.log")" \
			"${c:-default}" "$r"
	done
done
exit $bad
