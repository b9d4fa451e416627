#!/bin/bash
# include_order.sh - `make include-check` (part of `make lint`): every
# #include of the tree's C, C++ and header files against the layer order
#
#   register description (rtl-model/) <- simulator (sim/) <- libabb
#   (host/lib, host/daq, host/include) <- tools, examples, mprace layer,
#   test bench
#
# An include may point down or within its layer, never up. Across layers
# only public headers: sim/'s C interface (abbsim.h and the headers it
# includes, the loader abbsim_loader.h), libabb's <abb/*.h>, the register
# map <abb/abb_regs.h>. The few deliberate exceptions are listed below,
# each with its reason. Prints every violation (file:line: what) and fails
# when there is one.
set -u
cd "$(dirname "$0")/.." || exit 2

SIM_PUBLIC="sim/abbsim.h sim/abbsim_inject.h sim/abbsim_note.h sim/abbsim_cfg.h sim/abbsim_loader.h"
# from-prefix:target  reason
EXCEPTIONS=(
	# the VFIO emulator replaces libabb's system calls through this seam;
	# the vfio and discovery suites check the seam itself
	"testbench/vfio_emu:host/lib/vfio_seam.h"
	"testbench/test_vfio.c:host/lib/vfio_seam.h"
	"testbench/test_discovery.c:host/lib/vfio_seam.h"
	# the one number reader, header-only, shared by libabb and its tools
	"host/tools/:host/lib/abb_digits.h"
	# white-box fuzzers of libabb's internals (they link libabb.a)
	"testbench/fuzz/:host/lib/"
	# the kernel's iommufd ABI (uapi definitions Debian 12's headers lack),
	# which the VFIO emulator implements and its tests check
	"testbench/:host/lib/vfio_iommufd_abi.h"
	# the kernel's PROCMAP_QUERY (uapi), which the coverage tests block
	"testbench/:host/lib/abb_procmap.h"
)

layer() { # path -> layer name
	case $1 in
	rtl-model/*) echo rtl ;;
	sim/*) echo sim ;;
	host/include/*) echo abbpub ;;
	host/lib/* | host/daq/*) echo abb ;;
	host/compat/*/test/*) echo test ;; # the mprace layer's tests
	host/tools/* | host/examples/* | host/compat/*) echo app ;;
	testbench/*) echo test ;;
	*) echo other ;;
	esac
}

# include directories, as the make fragments pass them
INC="host/include rtl-model/include host/lib host/daq sim testbench host/compat/mprace/include host/compat/mprace/src"

resolve() { # from-file name quoted(1/0) -> path in the tree, or nothing (system)
	local dir=${1%/*} d
	if [ "$3" = 1 ] && [ -f "$dir/$2" ]; then
		realpath -m --relative-to=. "$dir/$2"
		return
	fi
	for d in $INC; do
		if [ -f "$d/$2" ]; then
			echo "$d/$2"
			return
		fi
	done
}

allowed() { # from to -> 0 if the arrow is allowed
	local from=$1 to=$2 lf lt e
	lf=$(layer "$from")
	lt=$(layer "$to")
	for e in "${EXCEPTIONS[@]}"; do
		case $from in "${e%%:*}"*) case $to in "${e#*:}"*) return 0 ;; esac ;; esac
	done
	local sim_pub=0
	case " $SIM_PUBLIC " in *" $to "*) sim_pub=1 ;; esac
	case $lf:$lt in
	rtl:rtl | sim:rtl | sim:sim) return 0 ;;
	abbpub:rtl | abbpub:abbpub | abb:rtl | abb:abbpub | abb:abb) return 0 ;;
	app:rtl | app:abbpub | test:rtl | test:abbpub | test:test | test:app) return 0 ;;
	abbpub:sim | abb:sim | app:sim | test:sim) [ $sim_pub = 1 ] && return 0 ;;
	app:app)
		# within one tool set (host/tools, host/examples, host/compat)
		[ "$(echo "$from" | cut -d/ -f1-2)" = "$(echo "$to" | cut -d/ -f1-2)" ] && return 0 ;;
	esac
	return 1
}

bad=0 n=0
while IFS= read -r f; do
	while IFS=: read -r line rest; do
		name=$(echo "$rest" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p')
		[ -n "$name" ] || continue
		q=0
		case $rest in *'"'*) q=1 ;; esac
		to=$(resolve "$f" "$name" "$q")
		[ -n "$to" ] || continue
		n=$((n + 1))
		if ! allowed "$f" "$to"; then
			echo "$f:$line: includes $to ($(layer "$f") -> $(layer "$to")): an arrow against the layer order" >&2
			bad=$((bad + 1))
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$f")
done < <(git ls-files 'rtl-model/*' 'sim/*' 'host/*' 'testbench/*' | grep -E '\.(c|h|cpp|hpp|cc)$')

if [ $bad -gt 0 ]; then
	echo "include-check: $bad of $n includes run against the layer order (testbench/include_order.sh)" >&2
	exit 1
fi
echo "include-check: $n includes between the tree's files, all in layer order"
