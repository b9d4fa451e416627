/*
 * abb_options.c - the one table of the simulator's and the reference model's options
 * and their parser (see abb_options.h). Messages go to the caller's buffer
 * (libabb's backends put them into its error state).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "abb_options.h"
#include "abb_digits.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum opt_type {
	OT_UINT,    /* unsigned field, lo..hi, optionally a list of choices */
	OT_U64,     /* uint64_t field, lo..hi */
	OT_BOOL,    /* unsigned field, 0/1 */
	OT_WORD,    /* unsigned field, a word of a list */
	OT_TEXT,    /* char array */
	OT_CREDITS, /* the credit list of struct abbsim_params */
	OT_RANGE,   /* uint64_t[2]: "N" or "N-M", 1 <= N <= M */
};

#define F_KM    0x1u /* K / M suffixes (x1024, x1048576) */
#define F_POW2  0x2u /* a power of two */
#define F_ZERO  0x4u /* 0 accepted besides lo..hi ("auto") */
#define F_ENV   0x8u /* only as an environment variable: abb_open reads it for every
		      * backend (no URI option) */

struct opt {
	const char *name, *env;
	enum opt_type type;
	unsigned backends, group, flags;
	uint64_t lo, hi;
	const char *choices; /* OT_UINT: "128,256,..."; OT_WORD: "rcb=1,mps=0,..." */
	size_t off, size;    /* field in struct abb_optvals */
	const char *def;     /* default, parsed by abb_opt_defaults; NULL for the
			      * simulator's parameters (group GP): their defaults are
			      * abbsim_params_defaults_fill's, shown from there */
	const char *unit;    /* shown in the table */
	const char *help;
};

#define S ABB_OPT_SIM
#define M ABB_OPT_MODEL
#define T ABB_OPT_TIMED
#define V ABB_OPT_VFIO
#define A ABB_OPT_ANY
#define GP ABB_OPTG_PARAMS
#define GC ABB_OPTG_CORE
#define GT ABB_OPTG_TRACE
#define GL ABB_OPTG_LIBABB
#define PF(f) offsetof(struct abb_optvals, p.f), sizeof(((struct abb_optvals *)0)->p.f)
#define VF(f) offsetof(struct abb_optvals, f), sizeof(((struct abb_optvals *)0)->f)

static const struct opt table[] = {
	{"gen", "ABB_SIM_GEN", OT_UINT, S | T, GP, 0, 1, 3, NULL, PF(gen), NULL, "",
	 "PCIe generation 1..3"},
	{"lanes", "ABB_SIM_LANES", OT_UINT, S | T, GP, 0, 1, 16, "1,2,4,8,12,16", PF(lanes), NULL, "",
	 "lanes 1, 2, 4, 8, 12, 16"},
	{"mps", "ABB_SIM_MPS", OT_UINT, S | T, GP, 0, 128, 4096, "128,256,512,1024,2048,4096", PF(mps),
	 NULL, "bytes", "max payload size (the device advertises 4096 in Device Capabilities)"},
	{"mrrs", "ABB_SIM_MRRS", OT_UINT, S | T, GP, 0, 128, 4096, "128,256,512,1024,2048,4096",
	 PF(mrrs), NULL, "bytes", "max read request size"},
	{"rcb", "ABB_SIM_RCB", OT_UINT, S | T, GP, 0, 64, 128, "64,128", PF(rcb), NULL, "bytes",
	 "read completion boundary of the root complex"},
	{"cpl", "ABB_SIM_CPL", OT_WORD, S | T, GP, 0, 0, 0, "rcb=1,mps=0", PF(cpl_rcb), NULL, "",
	 "completion size: `rcb`: every read completion ends at an RCB boundary (64-byte "
	 "completions with RCB 64, as Intel root complexes answer); `mps`: coalesced up to MPS"},
	{"credits", "ABB_SIM_CREDITS", OT_CREDITS, S | T, GP, 0, 0, 0, NULL, 0, 0, NULL, "",
	 "flow-control credit limits as a list, for example `ph=8,pd=64,nph=4` (items `ph pd nph "
	 "npd cplh cpld`; header credits count TLPs 1..127, data credits 16-byte units 1..2047, "
	 "0 = infinite); `up.` / `down.` before an item for one direction (up: device to root "
	 "complex, the root port's limits, default 64/1024 P, 64/64 NP; down: root complex to "
	 "device, the hard block's, default 32/256 P, 16/16 NP; completions infinite), else both; "
	 "`default` resets; in a URI the items may follow as options of their own or be "
	 "separated by `:` or `/`"},
	{"clk_mhz", "ABB_SIM_CLK_MHZ", OT_UINT, S | T, GP, F_ZERO, 10, 1000, NULL, PF(clk_mhz), NULL,
	 "MHz", "user clock of the RTL (64-bit beats); 0 = auto: 125 MHz up to 1 GB/s of raw link "
	 "bandwidth (Gen1 x4), 250 MHz above (Gen1 x8, Gen2 x4), as Xilinx endpoint blocks do. The "
	 "RTL is built for the clock: ClkNs 4 at 188 MHz and above, else 8 (the interrupt "
	 "generator counts 4-ns units of that period)"},
	{"link_ns", "ABB_SIM_LINK_NS", OT_UINT, S | T, GP, 0, 0, 1000000, NULL, PF(link_latency_ns),
	 NULL, "ns", "one-way link latency"},
	{"mem_ns", "ABB_SIM_MEM_NS", OT_UINT, S | T, GP, 0, 0, 10000000, NULL, PF(mem_latency_ns),
	 NULL, "ns", "host memory read latency"},
	{"reorder", "ABB_SIM_REORDER", OT_UINT, S | T, GP, 0, 0, 2, NULL, PF(reorder), NULL, "",
	 "order of the completions of the reads the root complex has ready: 0 the oldest read "
	 "first, whole; 1 a completion of a read picked at random at a time (seed below); 2 a "
	 "completion of each in turn (round robin: a small read, such as a descriptor fetch, "
	 "does not wait behind kilobytes of others)"},
	{"seed", "ABB_SIM_SEED", OT_U64, S | T, GP, 0, 0, UINT64_MAX, NULL, PF(seed), NULL, "",
	 "seed of that randomness"},
	{"mem_size", "ABB_SIM_MEM_SIZE", OT_UINT, S | M, GP, F_KM | F_POW2, 64u << 10, 16u << 20,
	 NULL, PF(mem_bytes), NULL, "bytes", "BAR1 board memory, power of two, 64K..16M"},
	{"iova", "ABB_SIM_IOVA", OT_WORD, S | T, GP, 0, 0, 0, "contiguous=0,contig=0,scatter=1,0=0,1=1",
	 PF(iova_scatter), NULL, "",
	 "`scatter`: every mapped page gets its own IOVA (scatter-gather lists, chained "
	 "descriptors); `contiguous` (or `contig`): one IOVA range per buffer"},
	{"watchdog_s", "ABB_SIM_WATCHDOG_S", OT_UINT, S | T, GP, 0, 1, 86400, NULL, PF(watchdog_s),
	 NULL, "s", "wall-clock seconds a single wait may go without link traffic (other than "
	 "the wait's own status reads) before it fails: a hung simulation, or an interrupt "
	 "wait on an idle board, becomes an error; a wait with traffic may take 10 times as "
	 "long in all"},
	{"strict", "ABB_SIM_STRICT", OT_BOOL, S | M, GP, 0, 0, 1, NULL, PF(strict), NULL, "",
	 "strict mode: none of the model-defined side effects the host could lean on (ISR and "
	 "GER writes ignored, DONE and ISR cleared only by a channel reset)"},
	{"msi", "ABB_SIM_MSI", OT_BOOL, S | T, GP, 0, 0, 1, NULL, PF(msi), NULL, "",
	 "interrupts as MSI (the capability in config space) instead of legacy INTx"},
	{"traceable", "ABB_SIM_TRACEABLE", OT_BOOL, S, GP, 0, 0, 1, NULL, PF(traceable), NULL, "",
	 "run the RTL model with tracing compiled in, so that abb_sim_trace() can start a "
	 "waveform during the run (5-10 % slower even while nothing is traced; without it, that "
	 "model runs only when trace= or ABB_TRACE asks for a waveform at open)"},
	{"clock", "ABB_SIM_CLOCK", OT_WORD, S, GP, 0, 0, 0, "lockstep=0,free=1", PF(clock_free), NULL,
	 "", "time mode: `lockstep`: device time runs only while a host thread waits on the "
	 "device (deterministic cycle counts); `free`: the board runs continuously while open, "
	 "device time at the simulation's own pace (quiet stretches at the wall clock's), so "
	 "the event source fills the board FIFO and stalls (EVS_STALLS) while the host is busy "
	 "elsewhere, as on a board (sim/platform_freerun.cpp); cycle counts then depend on "
	 "the host's timing"},
	{"board", "ABB_SIM_BOARD", OT_UINT, S, GP, 0, 1, 255, NULL, PF(board), NULL, "",
	 "PCI bus number of the simulated endpoint (board N is 0000:0N:00.0, requester id "
	 "N << 8): one board per process, so that the boards of several processes (a readout "
	 "farm) differ in discovery (`abb_tool find` on their config-space dumps)"},
	{"profile", "ABB_SIM_PROFILE", OT_WORD, S | T, GL, 0, 0, 0, "default=0,abb2008=1", VF(profile),
	 "default", "", "board profile: `default`: the simulator as it is; `abb2008`: the values "
	 "calibrated to the 2008 measurements of the board (doc/board-profile.md) for the options "
	 "the profile sets (irq_ns, driver_ns, mem_ns, rc_reads, the ddr options, link_mbps, "
	 "ep_reads, ep_rx; the simulator and the timed model take all of them); an option "
	 "given explicitly wins over the profile's value"},
	{"irq_ns", "ABB_SIM_IRQ_NS", OT_UINT, S | T, GL, 0, 0, 10000000, NULL, VF(irq_ns), "0", "ns",
	 "interrupt delivery: device time added after every interrupt wait returns (the "
	 "host's interrupt path; abb2008: 5000)"},
	{"driver_ns", "ABB_SIM_DRIVER_NS", OT_UINT, S | T, GL, 0, 0, 10000000, NULL, VF(driver_ns), "0",
	 "ns", "driver latency per transfer: device time added after every interrupt wait "
	 "returns (the 2008 kernel-module driver's wake-up and bookkeeping; abb2008: 32000, "
	 "fitted)"},
	{"ddr", "ABB_SIM_DDR", OT_BOOL, S | T, GP, 0, 0, 1, NULL, PF(ddr), NULL, "",
	 "the on-board DDR2 buffer's timing behind BAR1 and its arbiter (upstream DMA reads "
	 "read ahead in bursts, downstream DMA data and the link input written; "
	 "rtl-model/abb_ddr2_arb.sv; abb2008: 1)"},
	{"ddr_burst", "ABB_SIM_DDR_BURST", OT_UINT, S | T, GP, F_KM | F_POW2, 8, 4096, NULL,
	 PF(ddr_burst), NULL, "bytes", "DDR2 access unit (with ddr=1; abb2008: 64)"},
	{"ddr_width", "ABB_SIM_DDR_WIDTH", OT_UINT, S | T, GP, 0, 4, 32, "4,8,16,32", PF(ddr_width), NULL,
	 "bytes", "DDR2 data per user-clock cycle (with ddr=1; abb2008: 16)"},
	{"ddr_lat_ns", "ABB_SIM_DDR_LAT_NS", OT_UINT, S | T, GP, 0, 0, 2000, NULL, PF(ddr_lat_ns), NULL,
	 "ns", "DDR2 read latency: from a read burst's data to the next read burst's (one read "
	 "outstanding; the bus takes writes meanwhile), also before a transfer's first burst "
	 "(with ddr=1; abb2008: 72, fitted)"},
	{"ddr_row", "ABB_SIM_DDR_ROW", OT_UINT, S | T, GP, F_KM | F_ZERO | F_POW2, 256, 32768, NULL,
	 PF(ddr_row), NULL, "bytes", "DDR2 row: the buffer is read sequentially, a row change "
	 "every this many bytes (0: no row model; with ddr=1; abb2008: 8K)"},
	{"ddr_row_ns", "ABB_SIM_DDR_ROW_NS", OT_UINT, S | T, GP, 0, 0, 2000, NULL, PF(ddr_row_ns), NULL,
	 "ns", "DDR2 row change (precharge + activate; with ddr=1; abb2008: 40)"},
	{"ddr_wr_ns", "ABB_SIM_DDR_WR_NS", OT_UINT, S | T, GP, 0, 0, 2000, NULL, PF(ddr_wr_ns), NULL,
	 "ns", "DDR2 write turnaround after each write burst (with ddr=1; abb2008: 16)"},
	{"link_mbps", "ABB_SIM_LINK_MBPS", OT_UINT, S | T, GP, 0, 0, 8000, NULL, PF(link_mbps), NULL,
	 "MB/s", "link-input stream: while the event source is enabled (EVS_CTRL.ENABLE) the "
	 "optical links write the on-board buffer at this rate (with ddr=1; abb2008: 500, "
	 "2 links)"},
	{"ep_reads", "ABB_SIM_EP_READS", OT_UINT, S | T, GP, 0, 0, 255, NULL, PF(ep_reads), NULL, "",
	 "the endpoint's outstanding DMA-write (host to board) reads: lowers the tag limit "
	 "(0: no limit; abb2008: 8)"},
	{"ep_rx", "ABB_SIM_EP_RX", OT_UINT, S | T, GP, F_KM, 0, 65280, NULL, PF(ep_rx), NULL, "bytes",
	 "the endpoint's completion receive buffer: outstanding read bytes (reads x MRRS) at "
	 "most this (multiple of 256; 0: no limit; abb2008: 4K)"},
	{"rc_reads", "ABB_SIM_RC_READS", OT_UINT, S | T, GP, 0, 0, 256, NULL, PF(rc_reads), NULL, "",
	 "device reads the root complex serves at once (their memory latency overlaps); the "
	 "others wait (0: no limit; abb2008: 4)"},
	{"pio", "ABB_SIM_PIO", OT_WORD, A, GP, 0, 0, 0, "uc=0,wc=1", PF(pio_wc),
	 NULL, "", "how the host maps BAR1 for the CPU's stores (abb_pio_write_block, doc/pio.md): "
	 "`uc` uncached, one write per store; `wc` write-combined 64-byte lines. Simulator: its "
	 "store model, BAR1 then prefetchable in config space; vfio: BAR1 through sysfs "
	 "resource1_wc where the kernel offers it, else uncached (abb_pio_mapping, `abb_tool "
	 "info` say which); reference model: what abb_pio_mapping answers (timed=1: the write "
	 "shapes too, not their timing)"},
	{"cpu", "ABB_SIM_CPU", OT_WORD, S, GP, 0, 0, 0, "x86-today=0,x86-2011=1", PF(cpu), NULL, "",
	 "CPU profile of the store model: store path issue times and WC buffers (doc/pio.md)"},
	{"wc_buffers", "ABB_SIM_WC_BUFFERS", OT_UINT, S, GP, 0, 0, 64, NULL, PF(wc_buffers), NULL,
	 "", "64-byte write-combining buffers of the store model (0: the CPU profile's number)"},
	{"hosttime", "ABB_SIM_HOSTTIME", OT_BOOL, S | T, GL, 0, 0, 1, NULL, VF(hosttime), "0", "",
	 "host-time coupling: device time also advances by the CPU time the host software "
	 "spends between device calls"},
	{"shared_engine", "ABB_MODEL_SHARED_ENGINE", OT_BOOL, M, GL, 0, 0, 1, NULL,
	 VF(shared_engine), "0", "", "the reference model's GCR.SHARED_ENGINE after reset (the two "
	 "channels share one engine)"},
	{"timed", "ABB_MODEL_TIMED", OT_BOOL, M, GL, 0, 0, 1, NULL, VF(timed), "0", "",
	 "the reference model with device time: a discrete-event model of the link, the root "
	 "complex and the RTL's engine at TLP granularity (host/lib/ref_timing.h) gives the "
	 "simulator's device time at the model's speed; it takes the simulator's link and "
	 "platform options (backends `sim, model (timed=1)`); 0: untimed, a transfer ends inside "
	 "the CTRL write that starts it"},
	{"trace", "ABB_TRACE", OT_TEXT, S, GT, 0, 0, 0, NULL, VF(trace), "", "file",
	 "write the waveform of the RTL (FST) to this file"},
	{"trace_from", "ABB_TRACE_FROM", OT_U64, S, GT, 0, 0, UINT64_MAX, NULL, VF(trace_from),
	 "0", "cycles", "first cycle of the waveform (tracing is 30-40x slower: trace windows)"},
	{"trace_to", "ABB_TRACE_TO", OT_U64, S, GT, 0, 0, UINT64_MAX, NULL, VF(trace_to), "0",
	 "cycles", "end of the waveform, exclusive (0: until close)"},
	{"trace_dma", "ABB_TRACE_DMA", OT_RANGE, S, GT, 0, 1, UINT64_MAX, NULL, VF(trace_dma), "",
	 "", "waveform of only the N-th to M-th DMA started by libabb (from 1; N alone: that "
	 "one); needs trace="},
	{"trace_test", "ABB_TRACE_TEST", OT_TEXT, S, GT, 0, 0, 0, NULL, VF(trace_test), "",
	 "suite/test", "waveform of only this test of abb_tests; needs trace="},
	{"trace_on_error", "ABB_TRACE_ON_ERROR", OT_U64, S, GT, 0, 0, UINT64_MAX, NULL,
	 VF(trace_on_error), "0", "cycles", "flight recorder: keep the last this many cycles and "
	 "write them to the trace file when a DMA ends in error, a protocol error is recorded "
	 "or a test fails (0: off)"},
	{"tlp_log", "ABB_TLP_LOG", OT_TEXT, S | T, GT, 0, 0, 0, NULL, VF(tlp_log), "", "file",
	 "a decoded line per TLP: cycle, direction, type, address, tag, length"},
	{"stim", "ABB_SIM_STIM", OT_TEXT, S, GT, 0, 0, 0, NULL, VF(stim), "", "file",
	 "record the RTL's port values edge by edge from the open's hot reset on, for the Icarus "
	 "replay (`make vectors` writes one per golden vector; sim/stim_rec.h)"},
	{"coverage", "ABB_SIM_COVERAGE", OT_TEXT, S, GT, 0, 0, 0, NULL, VF(coverage), "", "file",
	 "coverage build only (`make coverage`): the RTL's coverage counters are written to "
	 "FILE.<pid>.<n>.dat at exit and when a model is replaced"},
	{"sim_lib", "ABB_SIM_LIB", OT_TEXT, S, GL, 0, 0, 0, NULL, VF(sim_lib), "", "file",
	 "the simulator library to load; unset: next to libabb (and its sim/), the build "
	 "directory libabb was built in, then the loader's path (libabbsim.so)"},
	{"iommu", "ABB_VFIO_IOMMU", OT_WORD, V, GL, 0, 0, 0, "auto=0,group=1,iommufd=2", VF(iommu),
	 "auto", "", "the kernel's IOMMU interface: `group` the legacy VFIO container of the "
	 "device's group, `iommufd` the device's cdev and /dev/iommu, `auto` iommufd where the "
	 "kernel has it, else the group"},
	{"wait_limit_ms", "ABB_WAIT_LIMIT_MS", OT_U64, A, GC, F_ENV, 0, UINT64_MAX / 10000000u, NULL,
	 VF(wait_limit_ms), "", "ms", "device-time limit of every wait of libabb, 0 none; unset: "
	 "none on the simulator (its wall-clock watchdog ends a hung wait), 10 s of device time "
	 "elsewhere"},
};
#define NOPT (sizeof table / sizeof table[0])

#undef S
#undef M
#undef T
#undef V
#undef A

/* How numbers are written, in messages and below the table. */
#define ABB_OPT_NUMBERS "decimal, leading zeros too (010 is 10, not octal), or 0x hex"

static int say(char *msg, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (msg && n) {
		va_start(ap, fmt);
		vsnprintf(msg, n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- values ---- */

/* A number: decimal digits, or 0x (0X) and hex digits; optional K/M (km),
 * nothing else. Leading zeros are decimal (010 is 10): doc/options.md promises
 * decimal or 0x hex, and strtoull's base 0 read them as octal (010 gave 8,
 * 0200000 gave 64K). Overflow is refused, also after the suffix. */
static bool parse_u64(const char *s, bool km, uint64_t *out)
{
	unsigned base = 10, shift = 0;
	const char *p = s;
	unsigned long long v;

	if (!s)
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	if (abb_digits(&p, base, &v))
		return false; /* no digit (empty, blank, sign, "0x" alone) or too large */
	if (km && (*p == 'K' || *p == 'k'))
		shift = 10, p++;
	else if (km && (*p == 'M' || *p == 'm'))
		shift = 20, p++;
	if (*p)
		return false;
	if (shift && v > (UINT64_MAX >> shift))
		return false; /* 17592186044417M became 1 MiB */
	*out = v << shift;
	return true;
}

static bool parse_bool(const char *s, unsigned *out)
{
	static const char *const on[] = {"1", "yes", "true", "on"};
	static const char *const off[] = {"0", "no", "false", "off"};

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, on[i])) {
			*out = 1;
			return true;
		}
		if (!strcasecmp(s, off[i])) {
			*out = 0;
			return true;
		}
	}
	return false;
}

/* In a list "a,b,c" (OT_UINT choices) or "w=1,x=0" (OT_WORD: *val gets
 * the number). */
static bool in_list(const char *list, const char *word, uint64_t num, bool words, unsigned *val)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);

		if (words) {
			if (eq && (size_t)(eq - p) == strlen(word) && !strncmp(p, word, eq - p)) {
				*val = (unsigned)strtoul(eq + 1, NULL, 10);
				return true;
			}
		} else if (strtoull(p, NULL, 10) == num) {
			return true;
		}
		p += len;
		if (*p)
			p++;
	}
	return false;
}

/* x as text, with a K or M suffix when km and x is a multiple. */
static const char *num_text(uint64_t x, bool km, char *buf, size_t n)
{
	if (km && x && x % (1u << 20) == 0)
		snprintf(buf, n, "%lluM", (unsigned long long)(x >> 20));
	else if (km && x && x % 1024 == 0)
		snprintf(buf, n, "%lluK", (unsigned long long)(x >> 10));
	else
		snprintf(buf, n, "%llu", (unsigned long long)x);
	return buf;
}

/* What the option accepts, for messages and the table. */
static const char *accepted(const struct opt *o, char *buf, size_t n)
{
	switch (o->type) {
	case OT_UINT:
	case OT_U64:
		if (o->choices)
			snprintf(buf, n, "one of %s", o->choices);
		else if (o->hi == UINT64_MAX)
			snprintf(buf, n, "an unsigned 64-bit integer");
		else
		{
			char lo[32], hi[32];

			snprintf(buf, n, "%s%s%s..%s%s", o->flags & F_ZERO ? "0 or " : "",
				 o->flags & F_POW2 ? "a power of 2 in " : "",
				 num_text(o->lo, o->flags & F_KM, lo, sizeof lo),
				 num_text(o->hi, o->flags & F_KM, hi, sizeof hi),
				 o->flags & F_KM ? " (suffix K or M allowed)" : "");
		}
		break;
	case OT_BOOL:
		snprintf(buf, n, "0/1, no/yes, false/true, off/on");
		break;
	case OT_WORD: {
		size_t w = 0;
		const char *p = o->choices;

		buf[0] = 0;
		while (*p && w + 1 < n) {
			size_t len = strcspn(p, "=");

			w += (size_t)snprintf(buf + w, n - w, "%s%.*s", w ? " or " : "", (int)len, p);
			p += strcspn(p, ",");
			if (*p)
				p++;
		}
		break;
	}
	case OT_TEXT:
		snprintf(buf, n, "%s (at most %zu characters)",
			 strcmp(o->unit, "file") ? "text" : "a file name", o->size - 1);
		break;
	case OT_RANGE:
		snprintf(buf, n, "N or N-M, 1 <= N <= M");
		break;
	case OT_CREDITS:
		snprintf(buf, n, "a list like \"ph=8,pd=64,nph=4,npd=0,cplh=0,cpld=0\" (items "
			 "separated by ',' ':' or '/'; \"up.\" or \"down.\" before an item for one "
			 "direction; header credits 0 (infinite) or 1..127, data credits in 16-byte "
			 "units 0 (infinite) or 1..2047; \"default\" resets both directions)");
		break;
	}
	return buf;
}

static void default_credits(struct abbsim_params *p)
{
	struct abbsim_params d;

	abbsim_params_defaults_fill(&d);
	p->credits_up = d.credits_up;
	p->credits_down = d.credits_down;
}

/* The index of a credit item's name ("ph", ...; len characters), or
 * ABBSIM_CREDIT_ITEMS. */
static unsigned credit_index(const char *key, size_t len)
{
	for (unsigned i = 0; i < ABBSIM_CREDIT_ITEMS; i++)
		if (len == strlen(abbsim_credit_name(i)) && !strncmp(key, abbsim_credit_name(i), len))
			return i;
	return ABBSIM_CREDIT_ITEMS;
}

int abb_opt_credit_item(const char *k)
{
	if (strncmp(k, "up.", 3) == 0)
		k += 3;
	else if (strncmp(k, "down.", 5) == 0)
		k += 5;
	return credit_index(k, strlen(k)) < ABBSIM_CREDIT_ITEMS;
}

int abb_opt_credits(struct abbsim_params *p, const char *what, const char *value, char *msg,
		    size_t n)
{
	struct abbsim_params q = *p;
	char acc[400], buf[512], *save = NULL;

	for (size_t i = 0; i < NOPT; i++)
		if (table[i].type == OT_CREDITS)
			accepted(&table[i], acc, sizeof acc);
	if (!value || !*value)
		return say(msg, n, "%s=\"\" is invalid: accepted %s", what, acc);
	if (strlen(value) >= sizeof buf)
		return say(msg, n, "%s=\"%.40s...\" is too long", what, value);
	strcpy(buf, value);
	for (char *item = strtok_r(buf, ",:/", &save); item; item = strtok_r(NULL, ",:/", &save)) {
		bool up = true, down = true, ok;
		char *key = item, *eq;
		unsigned idx;
		uint64_t v = 0;

		if (!strcmp(item, "default")) {
			default_credits(&q);
			continue;
		}
		if (!strncmp(key, "up.", 3))
			down = false, key += 3;
		else if (!strncmp(key, "down.", 5))
			up = false, key += 5;
		eq = strchr(key, '=');
		idx = eq ? credit_index(key, (size_t)(eq - key)) : ABBSIM_CREDIT_ITEMS;
		ok = idx < ABBSIM_CREDIT_ITEMS;
		if (ok && (!strcmp(eq + 1, "inf") || !strcmp(eq + 1, "infinite")))
			v = 0;
		else if (ok)
			ok = parse_u64(eq + 1, false, &v) && v <= ABBSIM_CREDIT_MAX(idx);
		if (!ok) {
			/* the item as given (strtok_r cut it out of a copy) */
			return say(msg, n, "%s=\"%s\" is invalid at \"%s\": accepted %s", what, value,
				   item, acc);
		}
		if (up)
			*abbsim_credit_field(&q.credits_up, idx) = (unsigned)v;
		if (down)
			*abbsim_credit_field(&q.credits_down, idx) = (unsigned)v;
	}
	*p = q;
	return 0;
}

/* Parses value into option o of v. who: how the message names the option
 * ("ABB_SIM_MPS", "sim option mps"). */
static int set_one(struct abb_optvals *v, const struct opt *o, const char *who, const char *value,
		   char *msg, size_t n)
{
	char *f = (char *)v + o->off, acc[400];
	uint64_t x = 0;
	unsigned w = 0;
	bool ok;

	switch (o->type) {
	case OT_UINT:
	case OT_U64:
		ok = parse_u64(value, o->flags & F_KM, &x) &&
		     ((x >= o->lo && x <= o->hi) || (x == 0 && (o->flags & F_ZERO))) &&
		     (!(o->flags & F_POW2) || !(x & (x - 1))) &&
		     (!o->choices || in_list(o->choices, NULL, x, false, NULL));
		if (ok && o->type == OT_UINT)
			*(unsigned *)f = (unsigned)x;
		else if (ok)
			*(uint64_t *)f = x;
		break;
	case OT_BOOL:
		ok = parse_bool(value, &w);
		if (ok)
			*(unsigned *)f = w;
		break;
	case OT_WORD:
		ok = in_list(o->choices, value, 0, true, &w);
		if (ok)
			*(unsigned *)f = w;
		break;
	case OT_TEXT:
		ok = strlen(value) < o->size;
		if (ok)
			snprintf(f, o->size, "%s", value);
		break;
	case OT_RANGE: {
		uint64_t lo = 0, hi = 0;
		const char *dash = strchr(value, '-');
		char first[32];
		size_t len = dash ? (size_t)(dash - value) : strlen(value);

		ok = *value == 0; /* "": none */
		if (!ok && len < sizeof first) {
			memcpy(first, value, len);
			first[len] = 0;
			ok = parse_u64(first, false, &lo) && lo >= 1;
			hi = lo;
			if (ok && dash)
				ok = parse_u64(dash + 1, false, &hi) && hi >= lo;
		}
		if (ok) {
			((uint64_t *)f)[0] = lo;
			((uint64_t *)f)[1] = hi;
		}
		break;
	}
	case OT_CREDITS:
		return abb_opt_credits(&v->p, who, value, msg, n);
	default:
		ok = false;
	}
	if (!ok)
		return say(msg, n, "%s=\"%s\" is invalid: accepted %s%s", who, value,
			   accepted(o, acc, sizeof acc),
			   o->type == OT_UINT || o->type == OT_U64 ? " (" ABB_OPT_NUMBERS ")" : "");
	v->set |= o->group;
	v->set_rows |= 1ull << (o - table);
	return 0;
}

void abb_opt_defaults(struct abb_optvals *v)
{
	memset(v, 0, sizeof *v);
	abbsim_params_defaults_fill(&v->p);
	for (size_t i = 0; i < NOPT; i++)
		if (table[i].def && table[i].def[0])
			(void)set_one(v, &table[i], table[i].name, table[i].def, NULL, 0);
	v->set = 0;
	v->set_rows = 0;
}

int abb_opt_from_env(struct abb_optvals *v, unsigned backend, unsigned groups, char *msg,
		     size_t n)
{
	struct abb_optvals q = *v;

	for (size_t i = 0; i < NOPT; i++) {
		const char *s;
		int rc;

		if (!(table[i].backends & backend) || !(table[i].group & groups))
			continue;
		s = getenv(table[i].env);
		if (!s || !*s)
			continue;
		rc = set_one(&q, &table[i], table[i].env, s, msg, n);
		if (rc)
			return rc;
	}
	*v = q;
	return 0;
}

int abb_opt_set(struct abb_optvals *v, unsigned backend, const char *what, const char *name,
		const char *value, char *msg, size_t n)
{
	char who[96];

	for (size_t i = 0; i < NOPT; i++) {
		struct abb_optvals q;
		int rc;

		if (strcmp(name, table[i].name))
			continue;
		if (!(table[i].backends & backend))
			break; /* another backend's: listed as unknown below */
		if (table[i].flags & F_ENV) {
			snprintf(msg, n, "%s%s%s: only as the environment variable %s (abb_open "
				 "reads it for every backend)", what ? what : "", what ? " " : "",
				 name, table[i].env);
			return -EINVAL;
		}
		q = *v;
		if (what)
			snprintf(who, sizeof who, "%s %s", what, name);
		else
			snprintf(who, sizeof who, "%s", name);
		rc = set_one(&q, &table[i], who, value ? value : "", msg, n);
		if (!rc)
			*v = q;
		return rc;
	}
	{
		size_t w = (size_t)snprintf(msg, n, "unknown %s \"%s\"; known:",
					    what ? what : "option", name);

		for (size_t i = 0; i < NOPT && w < n; i++)
			if ((table[i].backends & backend) && !(table[i].flags & F_ENV))
				w += (size_t)snprintf(msg + w, n - w, " %s", table[i].name);
	}
	return -EINVAL;
}

int abb_opt_given(const struct abb_optvals *v, const char *name)
{
	for (size_t i = 0; i < NOPT; i++)
		if (!strcmp(table[i].name, name))
			return (v->set_rows >> i) & 1;
	return 0;
}

/* The values profile abb2008 gives, as option text through the option
 * table (its ranges apply); doc/board-profile.md says why each. */
static const struct {
	const char *name, *value;
} abb2008[] = {
	{"irq_ns", "5000"},     /* model */
	{"driver_ns", "32000"}, /* fitted */
	{"ddr", "1"},
	{"ddr_burst", "64"},
	{"ddr_width", "16"},
	{"ddr_lat_ns", "72"},   /* fitted */
	{"ddr_row", "8K"},
	{"ddr_row_ns", "40"},
	{"ddr_wr_ns", "16"},
	{"link_mbps", "500"},
	{"ep_reads", "8"},
	{"ep_rx", "4K"},
	{"mem_ns", "500"},
	{"rc_reads", "4"},
};

int abb_opt_apply_profile(struct abb_optvals *v, unsigned backend, char *msg, size_t n)
{
	if (v->profile != ABB_PROFILE_ABB2008)
		return 0;
	for (size_t i = 0; i < sizeof abb2008 / sizeof abb2008[0]; i++) {
		const struct opt *o = NULL;

		for (size_t k = 0; k < NOPT && !o; k++)
			if (!strcmp(table[k].name, abb2008[i].name))
				o = &table[k];
		/* a parameter the backend does not take is not set */
		if (!o || !(o->backends & backend) || abb_opt_given(v, abb2008[i].name))
			continue;
		int rc = abb_opt_set(v, backend, "profile abb2008:", abb2008[i].name,
				     abb2008[i].value, msg, n);
		if (rc)
			return rc;
	}
	return 0;
}

int64_t abb_opt_irq_host_ns(const struct abb_optvals *v)
{
	return (int64_t)v->irq_ns + (int64_t)v->driver_ns;
}

/* The default of o as text: the table's, or for the simulator's parameters
 * the value abbsim_params_defaults_fill gives, written as the option takes
 * it. */
static const char *def_text(const struct opt *o, char *buf, size_t n)
{
	struct abb_optvals d;
	const char *f;
	uint64_t x;

	if (o->def)
		return o->def;
	if (o->type == OT_CREDITS)
		return "default";
	memset(&d, 0, sizeof d);
	abbsim_params_defaults_fill(&d.p);
	f = (const char *)&d + o->off;
	x = o->size == sizeof(uint64_t) ? *(const uint64_t *)f : *(const unsigned *)f;
	if (o->type == OT_WORD) {
		/* the first word of the list with that value */
		for (const char *p = o->choices; *p;) {
			size_t len = strcspn(p, ","), w = strcspn(p, "=");

			if (w < len && strtoull(p + w + 1, NULL, 10) == x) {
				snprintf(buf, n, "%.*s", (int)w, p);
				return buf;
			}
			p += len + (p[len] != 0);
		}
	}
	return num_text(x, o->flags & F_KM, buf, n);
}

size_t abb_opt_rows(void)
{
	return NOPT;
}

int abb_opt_row(size_t i, struct abb_opt_row *out)
{
	if (i >= NOPT || !out)
		return -EINVAL;
	*out = (struct abb_opt_row){table[i].name, table[i].env, table[i].backends,
				    table[i].group, (table[i].flags & F_ENV) != 0};
	return 0;
}

void abb_opt_print(FILE *f, int markdown)
{
	char acc[400], dbuf[64];

	if (markdown) {
		fprintf(f, "| variable | URI option | backends | default | accepted | meaning |\n");
		fprintf(f, "|---|---|---|---|---|---|\n");
	}
	for (size_t i = 0; i < NOPT; i++) {
		const struct opt *o = &table[i];
		const char *be = o->backends == ABB_OPT_ANY ? "all"
				 : o->backends == (ABB_OPT_SIM | ABB_OPT_MODEL) ? "sim, model"
				 : o->backends == (ABB_OPT_SIM | ABB_OPT_TIMED) ? "sim, model (timed=1)"
				 : o->backends == ABB_OPT_MODEL ? "model"
				 : o->backends == ABB_OPT_VFIO ? "vfio" : "sim";

		const char *def = def_text(o, dbuf, sizeof dbuf);

		accepted(o, acc, sizeof acc);
		if (o->type == OT_CREDITS)
			snprintf(acc, sizeof acc, "a credit list (see meaning)");
		if (markdown)
			fprintf(f, "| `%s` | %s%s%s | %s | %s%s%s | %s%s%s | %s |\n", o->env,
				o->flags & F_ENV ? "" : "`", o->flags & F_ENV ? "(none)" : o->name,
				o->flags & F_ENV ? "" : "`", be,
				def[0] ? "`" : "", def[0] ? def : "none",
				def[0] ? "`" : "", acc, o->unit[0] ? " " : "", o->unit, o->help);
		else
			fprintf(f, "%-24s %-14s %-10s default %s\n    accepted: %s%s%s\n    %s\n",
				o->env, o->flags & F_ENV ? "(no URI)" : o->name, be, def[0] ? def : "none", acc,
				o->unit[0] ? " " : "", o->unit, o->help);
	}
	if (markdown)
		fprintf(f, "\nNumbers: " ABB_OPT_NUMBERS "; no sign, no blanks.\n");
	else
		fprintf(f, "numbers: " ABB_OPT_NUMBERS "; no sign, no blanks\n");
}
