/*
 * abbsim.h - C interface of the simulated ABB platform (libabbsim.so).
 *
 * The simulated board (Verilator model of rtl-model/, PCIe hard-IP model,
 * link, root complex, host memory behind an IOMMU) lives once per process:
 * SystemC has one kernel per process. abbsim_open() builds it on first use
 * and hot-resets it on every later open. libabb's sim backend dlopen()s
 * this library, so programs built for the real board never load SystemC.
 *
 * Time model (lockstep): simulated time advances only while some thread is
 * blocked in one of the waiting calls below (mmio_read, wait_irq, advance,
 * wait_idle) and stands still otherwise. A single-threaded caller gets the
 * same cycle numbers on every run. Every function is thread-safe.
 *
 * Every int function returns 0 (or a count) on success and a negative errno
 * on failure; on failure abbsim_last_error() gives a readable message for the
 * calling thread. Nothing here exits or aborts the process.
 */
#ifndef ABBSIM_H
#define ABBSIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "abbsim_inject.h"
#include "abbsim_note.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2: credits, cpl_rcb appended to abbsim_params; abbsim_get_params,
 * abbsim_params_set.
 * 3: strict, msi appended to abbsim_params; legacy INTx by default (the
 * interrupt count counts Assert_INTA messages and MSI writes);
 * abbsim_intx_asserted, abbsim_iommu_map_at, abbsim_iommu_unmap_iova; the
 * IOMMU enforces mapping permissions.
 * 4: link injection: abbsim_inject_add, abbsim_inject_clear, abbsim_inject_hits.
 * 5: traceable appended to abbsim_params: the RTL model with tracing
 * compiled in runs only when asked for (abbsim_trace_fst needs it).
 * (Still 5, the binary interface unchanged: the link-injection rule and
 * its kinds, once struct abbsim_fault_spec and ABBSIM_FAULT_*, are
 * abbsim_inject.h's struct abb_sim_inject_spec and ABB_SIM_INJ_*.) */
/* 6: the simulator reads no environment variable: libabb parses every
 * option from its one table and hands them over, the parameters as
 * struct abbsim_params, what a run records as struct abbsim_record at
 * abbsim_open (abbsim_params_from_env and abbsim_params_set removed);
 * abbsim_trace_note takes the DMA's channel (abbsim_note.h); link
 * injection is abbsim_inject_add/_clear/_hits (were abbsim_fault_*:
 * "fault" is the IOMMU's fault record only). */
/* 7: clock_free, board appended to abbsim_params (free-running clock,
 * the endpoint's bus number). */
/* (Still 7: pio_wc, cpu, wc_buffers appended to abbsim_params, and
 * abbsim_pio_store, abbsim_pio_fence, abbsim_pio_stats added, before any
 * release of 7; abbsim_poll_reg and struct abbsim_poll added.) */
/* (Still 7: ddr, ddr_burst, ddr_width, ddr_lat_ns, ddr_row, ddr_row_ns,
 * ddr_wr_ns, link_mbps, ep_reads, ep_rx, rc_reads appended to abbsim_params
 * (board profile abb2008, doc/board-profile.md), before any release of 7.) */
#define ABBSIM_ABI_VERSION 7

/* CPU profiles of the store model (abbsim_params.cpu; doc/pio.md). */
#define ABBSIM_CPU_X86_TODAY 0
#define ABBSIM_CPU_X86_2011  1
#define ABBSIM_CPU_COUNT     2

/* Flow-control credit limits one receiver advertises: header credits count
 * TLPs, data credits 16-byte units; 0 = infinite. */
struct abbsim_credits {
	unsigned ph, pd;     /* posted: memory writes, MSI */
	unsigned nph, npd;   /* non-posted: memory reads */
	unsigned cplh, cpld; /* completions */
};
/* The fields by index, in struct order, and their names (the items of the
 * option credits=, in messages): the one list every layer uses. Even
 * indexes are header credits (0 or 1..127), odd ones data (0 or 1..2047). */
#define ABBSIM_CREDIT_ITEMS 6
static inline const char *abbsim_credit_name(unsigned i)
{
	static const char *const names[ABBSIM_CREDIT_ITEMS] = {"ph", "pd", "nph", "npd",
							       "cplh", "cpld"};
	return i < ABBSIM_CREDIT_ITEMS ? names[i] : "";
}
static inline unsigned *abbsim_credit_field(struct abbsim_credits *c, unsigned i)
{
	unsigned *f[ABBSIM_CREDIT_ITEMS] = {&c->ph, &c->pd, &c->nph, &c->npd, &c->cplh, &c->cpld};
	return i < ABBSIM_CREDIT_ITEMS ? f[i] : 0;
}
#define ABBSIM_CREDIT_MAX(i) ((i) % 2 ? 2047u : 127u)

/* Link and platform parameters. abbsim_params_default() fills the ABB in a
 * Gen1 x4 slot. The names in parentheses are the options of libabb's
 * option table (doc/options.md) that set each field; the simulator itself
 * reads no environment variable. */
struct abbsim_params {
	unsigned gen;            /* PCIe generation 1..3 (ABB_SIM_GEN, default 1) */
	unsigned lanes;          /* 1,2,4,8,12,16 (ABB_SIM_LANES, default 4) */
	unsigned mps;            /* max payload bytes 128..4096 (ABB_SIM_MPS, 128) */
	unsigned mrrs;           /* max read request bytes 128..4096 (ABB_SIM_MRRS, 512) */
	unsigned rcb;            /* read completion boundary 64|128 (ABB_SIM_RCB, 64) */
	unsigned clk_mhz;        /* user clock (ABB_SIM_CLK_MHZ; default 0 = auto: abbsim_clk_mhz()) */
	unsigned link_latency_ns;/* one-way link + hard-IP latency (ABB_SIM_LINK_NS, 200) */
	unsigned mem_latency_ns; /* root-complex memory read latency (ABB_SIM_MEM_NS, 300) */
	unsigned reorder;        /* completions of the reads the root complex has ready: 0 the
				  * oldest read first, whole; 1 one completion of a read picked
				  * at random at a time; 2 one completion of each in turn
				  * (round robin) (ABB_SIM_REORDER, 0) */
	uint64_t seed;           /* seed for reordering (ABB_SIM_SEED, 1) */
	unsigned mem_bytes;      /* BAR1 board memory size, power of 2, 64 KiB..16 MiB (ABB_SIM_MEM_SIZE, 1 MiB) */
	unsigned iova_scatter;   /* 1: every mapped page gets its own, non-adjacent IOVA (ABB_SIM_IOVA=scatter) */
	unsigned watchdog_s;     /* wall-clock seconds one wait may go without a TLP on the link before it fails with -ETIME; 10x that in all (ABB_SIM_WATCHDOG_S, 120) */
	/* ABI 2 */
	unsigned cpl_rcb;        /* 1: the root complex ends every read completion at an RCB
				  * boundary (64-byte completions with RCB 64, as Intel root
				  * complexes; ABB_SIM_CPL=rcb, default); 0: completions
				  * coalesced up to MPS (ABB_SIM_CPL=mps) */
	struct abbsim_credits credits_up;   /* device -> root complex, advertised by the root
					     * port (ABB_SIM_CREDITS, up.*): 64/1024 P, 64/64 NP, 0/0 Cpl */
	struct abbsim_credits credits_down; /* root complex -> device, advertised by the hard
					     * block (ABB_SIM_CREDITS, down.*): 32/256 P, 16/16 NP, 0/0 Cpl */
	/* ABI 3 */
	unsigned strict;         /* 1: every model-defined register side effect is off
				  * (ABB_SIM_STRICT, default 0): ISR and GER writes ignored,
				  * an ISR bit cleared only by its channel's reset, DONE not
				  * cleared by a start (sim/README.md, "Strict mode") */
	unsigned msi;            /* 1: the endpoint has an MSI capability and enumeration
				  * enables it (ABB_SIM_MSI, default 0: legacy INTx only, as
				  * the board's original driver used) */
	/* ABI 5 */
	unsigned traceable;      /* 1: the RTL model with tracing compiled in runs, so that
				  * abbsim_trace_fst can start a waveform at any time; it is
				  * 5-10 % slower even while nothing is traced. 0 (ABB_SIM_TRACEABLE,
				  * default): that model runs only when a waveform is asked for
				  * at open (ABB_TRACE=...), and abbsim_trace_fst on an open
				  * board fails with -ENOTSUP */
	/* ABI 7 */
	unsigned clock_free;     /* 1: free-running clock (ABB_SIM_CLOCK=free): the simulation
				  * thread runs while the board is open, whether or not a
				  * host thread waits; device time advances at the
				  * simulation's own pace, quiet stretches at the wall
				  * clock's. 0 (default, ABB_SIM_CLOCK=lockstep): time runs
				  * only while a host thread waits */
	unsigned board;          /* PCI bus number of the endpoint, 1..255 (ABB_SIM_BOARD, 1):
				  * board N is 0000:0N:00.0, its requester id N << 8; one
				  * board per process, several processes tell theirs apart */
	/* (ABI 7) the CPU store model (abbsim_pio_store, doc/pio.md) */
	unsigned pio_wc;         /* 1: the host maps BAR1 write-combined, and BAR1 is a
				  * prefetchable BAR in config space (ABB_SIM_PIO=wc); 0: uncached
				  * (ABB_SIM_PIO=uc, default) */
	unsigned cpu;            /* CPU profile ABBSIM_CPU_* (ABB_SIM_CPU, default x86-today) */
	unsigned wc_buffers;     /* 64-byte WC buffers, 1..64 (ABB_SIM_WC_BUFFERS; 0 = the
				  * profile's number) */
	/* (ABI 7) the board side of profile abb2008 (doc/board-profile.md,
	 * rtl-model/abb_ddr2_arb.sv); every one 0 or off by default */
	unsigned ddr;            /* 1: the on-board DDR2 buffer's timing and arbiter (ABB_SIM_DDR) */
	unsigned ddr_burst;      /* DDR2 access unit, bytes, 8..4096 power of 2 (ABB_SIM_DDR_BURST, 64) */
	unsigned ddr_width;      /* DDR2 bytes per user-clock cycle, 4..32 power of 2 (ABB_SIM_DDR_WIDTH, 16) */
	unsigned ddr_lat_ns;     /* read latency: a read burst's data to the next one's (ABB_SIM_DDR_LAT_NS) */
	unsigned ddr_row;        /* row bytes, 0 (no row model) or 256..32768 power of 2 (ABB_SIM_DDR_ROW) */
	unsigned ddr_row_ns;     /* cost of a row change (ABB_SIM_DDR_ROW_NS) */
	unsigned ddr_wr_ns;      /* write turnaround after each write burst (ABB_SIM_DDR_WR_NS) */
	unsigned link_mbps;      /* link-input stream into the buffer while the event source is
				  * enabled, MB/s (ABB_SIM_LINK_MBPS, 0: none) */
	unsigned ep_reads;       /* the endpoint's outstanding DMA-write reads, 0 (no limit) or
				  * 1..255 (ABB_SIM_EP_READS) */
	unsigned ep_rx;          /* the endpoint's completion receive buffer, bytes, 0 (no limit)
				  * or a multiple of 256 up to 65280 (ABB_SIM_EP_RX) */
	unsigned rc_reads;       /* device reads the root complex serves at once, 0 (no limit) or
				  * 1..256 (ABB_SIM_RC_READS) */
};

/* The defaults, defined once here: abbsim_params_default() returns them,
 * and libabb's option table shows and starts from them. */
static inline void abbsim_params_defaults_fill(struct abbsim_params *p)
{
	struct abbsim_credits up = {64, 1024, 64, 64, 0, 0};
	struct abbsim_credits down = {32, 256, 16, 16, 0, 0};
	struct abbsim_params d;

	/* every field named: a field added later starts as 0 (memset) */
	memset(&d, 0, sizeof d);
	d.gen = 1;
	d.lanes = 4;
	d.mps = 128;
	d.mrrs = 512;
	d.rcb = 64;
	d.clk_mhz = 0;
	d.link_latency_ns = 200;
	d.mem_latency_ns = 300;
	d.reorder = 0;
	d.seed = 1;
	d.mem_bytes = 1u << 20;
	d.iova_scatter = 0;
	d.watchdog_s = 120;
	d.cpl_rcb = 1;
	d.credits_up = up;
	d.credits_down = down;
	d.strict = 0;
	d.msi = 0;
	d.traceable = 0;
	d.clock_free = 0;
	d.board = 1;
	d.pio_wc = 0;
	d.cpu = ABBSIM_CPU_X86_TODAY;
	d.wc_buffers = 0;
	d.ddr = 0;
	d.ddr_burst = 64;
	d.ddr_width = 16;
	d.ddr_lat_ns = 0;
	d.ddr_row = 0;
	d.ddr_row_ns = 0;
	d.ddr_wr_ns = 0;
	d.link_mbps = 0;
	d.ep_reads = 0;
	d.ep_rx = 0;
	d.rc_reads = 0;
	*p = d;
}
void abbsim_params_default(struct abbsim_params *p);
/* The user clock a parameter set runs at: clk_mhz, or when it is 0, 125 MHz
 * up to 1 GB/s of raw link bandwidth and 250 MHz above (Gen1 x8, Gen2 x4). */
unsigned abbsim_clk_mhz(const struct abbsim_params *p);
/* Checks a parameter set (ranges, powers of two, combinations: a data
 * credit limit must hold the largest TLP of its class, MPS must not exceed
 * the device's Device Capabilities maximum); -EINVAL with a message. */
int abbsim_params_check(const struct abbsim_params *p);

/* What a run records, given at open (ABI 6; libabb fills it from the
 * options trace, trace_from, trace_to, trace_dma, trace_test,
 * trace_on_error, tlp_log, stim and coverage of its table). A string NULL
 * or "" is off; all zero records nothing. */
struct abbsim_record {
	const char *fst;         /* FST waveform of the RTL, from open */
	uint64_t fst_from;       /* first cycle of the waveform */
	uint64_t fst_to;         /* end of it, exclusive (0: until close) */
	uint64_t dma_from, dma_to; /* only the dma_from-th to dma_to-th DMA libabb starts
				  * (from 1; 0: not by DMA); needs fst */
	const char *test;        /* only this test of abb_tests ("suite/test"); needs fst */
	uint64_t on_error;       /* flight recorder: the last this many cycles go to fst when
				  * a DMA ends in error, a protocol error is recorded or a
				  * test fails (0: off); needs fst */
	const char *tlp_log;     /* a decoded line per TLP */
	const char *stim;        /* the RTL's port values per edge from the hot reset on,
				  * for the Icarus replay (sim/stim_rec.h) */
	const char *coverage;    /* coverage build only: the counters are written to
				  * <coverage>.<pid>.<n>.dat at exit and when a model is
				  * replaced (sim/hard_ip.cpp) */
};

/* Builds (first call) or hot-resets the board with these parameters and
 * enumerates it as Linux would (BAR sizing and assignment, memory space,
 * bus master, MSI, MPS/MRRS), recording what rec asks for (NULL: nothing).
 * -EBUSY if already open, or if another thread's open is under way (of
 * opens at the same moment exactly one proceeds). */
int abbsim_open(const struct abbsim_params *p, const struct abbsim_record *rec);
/* Lets the link drain, then tears the board down: every posted write
 * already issued reaches the board and what it sends in answer (an
 * interrupt message) reaches the root complex, in the TLP log and the
 * waveform. Bounded: at most 100 us + 4 link latencies + 2000 cycles of
 * device time; a board that is not quiet by then is closed anyway, with a
 * line in the TLP log (and on stderr when TLPs were left on the link: a
 * board that never returns credits). */
void abbsim_close(void);
/* The parameters of the open board with the values in effect after
 * enumeration: mps and mrrs as Device Control holds them now (the smaller
 * of the request and the Device Capabilities maximum, or what a config
 * write set since). -ENODEV when not open. */
int abbsim_get_params(struct abbsim_params *out);

/* Config space of the endpoint, byte offset, 1/2/4-byte accesses. */
int abbsim_cfg_read(unsigned off, unsigned size, uint32_t *val);
int abbsim_cfg_write(unsigned off, unsigned size, uint32_t val);
/* Writes the 4 KiB config space in the text format of `lspci -xxxx`. */
int abbsim_cfg_dump(const char *path);

/* PIO. bar 0 or 1, off a byte offset in the BAR. A read blocks (device time
 * advances) until its completions arrived; a write is posted: it is queued
 * on the link and time does not advance. Reads and writes of one thread are
 * ordered as on PCIe (a read never passes an earlier write). The host's
 * address is its mapping of the BAR as enumeration assigned it at open; the
 * board decodes by the BARs as programmed now: after a program moved a BAR
 * (or cleared Command.MEM) a read gets Unsupported Request (-EIO, buf all
 * ones, the message says why) and a write is dropped (Device Status URD
 * set), as on a root complex. */
int abbsim_mmio_read(unsigned bar, uint64_t off, void *buf, size_t len);
int abbsim_mmio_write(unsigned bar, uint64_t off, const void *buf, size_t len);

/* The CPU store model (doc/pio.md). abbsim_pio_store: len bytes to BAR1 at
 * off as stores of store_bytes each (1,2,4,8,16,32,64; off and len
 * multiples of it), as the CPU profile issues them through the mapping
 * (params.pio_wc): UC one write per store, spaced by the store path; WC
 * merged in 64-byte buffers that leave when full or evicted. Posted: time
 * does not advance; the writes reach the link at their issue times as
 * device time runs (a read, wait or close). Once 64 Ki stores are
 * scheduled and not issued, the call stalls as a CPU would: device time
 * runs until half of them have left. abbsim_pio_fence: every WC
 * buffer leaves (SFENCE); a read (abbsim_mmio_read) and a UC write
 * (abbsim_mmio_write) fence first too, and so does close. */
int abbsim_pio_store(uint64_t off, const void *buf, size_t len, unsigned store_bytes);
int abbsim_pio_fence(void);
/* What the store model did since open or the last clear: stores and their
 * bytes, the writes it made (TLPs) and those that reached the board, the
 * issue time of the first store and the arrival of the last write. */
struct abbsim_pio_stats {
	unsigned wc;             /* the mapping: 1 WC, 0 UC */
	unsigned wc_buffers;
	uint64_t stores, store_bytes;
	uint64_t tlps;           /* writes made */
	uint64_t arrived_tlps, arrived_bytes;
	uint64_t first_store_ps, last_arrival_ps;
};
int abbsim_pio_stats(struct abbsim_pio_stats *out, int clear);

/* IOMMU. Makes [ptr, ptr+len) reachable by the device. The device-visible
 * addresses come back as segments (contiguous IOVA pieces, in buffer order);
 * with iova_scatter every page is its own segment. Returns the number of
 * segments (> maxsegs: -ENOSPC, nothing mapped; call with maxsegs =
 * abbsim_iommu_max_segs(ptr, len) ). ptr need not be page aligned. */
struct abbsim_seg {
	uint64_t iova;
	uint64_t len;
};
size_t abbsim_iommu_max_segs(const void *ptr, size_t len);
int abbsim_iommu_map(void *ptr, size_t len, struct abbsim_seg *segs, size_t maxsegs);
/* Unmaps the mapping that abbsim_iommu_map made for ptr. -ENOENT if none. */
int abbsim_iommu_unmap(void *ptr);

/* Mapping at an IOVA the caller chooses (as VFIO_IOMMU_MAP_DMA does), for an
 * emulated VFIO kernel. ptr, len and iova page aligned (4 KiB), len > 0;
 * flags a non-empty set of ABBSIM_DMA_READ (the device may read this memory:
 * host-to-board DMA) and ABBSIM_DMA_WRITE (the device may write it:
 * board-to-host DMA). 0, or -EINVAL (misaligned, len 0, flags 0 or unknown
 * bits, range wraps or touches the MSI window 0xfee00000..0xfeefffff),
 * -EEXIST (the IOVA range overlaps a mapping, of either kind). The IOMMU
 * enforces the flags: a device write to a page without WRITE is dropped, a
 * device read of a page without READ is answered UR; both are recorded as
 * faults (abbsim_faults). abbsim_iommu_map maps READ|WRITE. */
#define ABBSIM_DMA_READ  0x1u
#define ABBSIM_DMA_WRITE 0x2u
int abbsim_iommu_map_at(void *ptr, size_t len, uint64_t iova, unsigned flags);
/* Removes a mapping made by abbsim_iommu_map_at: exactly [iova, iova+len)
 * as it was mapped, else -ENOENT. */
int abbsim_iommu_unmap_iova(uint64_t iova, uint64_t len);

/* Faults recorded by the IOMMU (device access to unmapped addresses, or
 * against a mapping's permissions). */
struct abbsim_fault {
	uint64_t iova;
	uint32_t len;
	uint32_t is_write;       /* 1: dropped memory write, 0: read answered UR */
	uint64_t cycle;
};
/* Copies up to max faults (oldest first) and returns how many were recorded
 * since the last call; the record is cleared. */
int abbsim_faults(struct abbsim_fault *out, size_t max);

/* Interrupts. The root complex counts interrupt events: each Assert_INTA
 * message (legacy INTx, the default) and each MSI write (msi=1). wait_irq
 * blocks until the count exceeds *seen or timeout_ns of device time passed
 * (-ETIMEDOUT); timeout_ns < 0 waits without a device-time limit (the
 * wall-clock watchdog still applies). On return *seen is the current count. */
int abbsim_wait_irq(uint64_t *seen, int64_t timeout_ns);
uint64_t abbsim_irq_count(void);
/* 1 while the root complex has received Assert_INTA without a later
 * Deassert_INTA (the INTx line is asserted), else 0 (also when not open). */
int abbsim_intx_asserted(void);

/* Time. */
int abbsim_advance(int64_t ns);          /* let device time run for ns */
uint64_t abbsim_now_ps(void);            /* device time in picoseconds */
uint64_t abbsim_cycles(void);            /* user-clock cycles since open */
/* Added: blocks until the RTL reports idle_o and no TLP is queued or in
 * flight in either direction (no read outstanding at the root complex);
 * -ETIMEDOUT after timeout_ns of device time (< 0: no device-time limit). */
int abbsim_wait_idle(int64_t timeout_ns);

/* A polled wait run by the simulator: the same 32-bit register reads on
 * the link, at the same device times, as a host loop that reads, tests,
 * checks the deadline and pauses (abbsim_advance) between reads would
 * make, without a hand-over to the host per read (libabb's polled DMA
 * wait, host/lib/abb_dma.c). The schedule: first_ns of device time pass
 * (0: none); then read; stop when (value & mask) != busy (0) or, after a
 * read at or after deadline_ns of device time (abbsim_now_ps() / 1000;
 * UINT64_MAX: none), with -ETIMEDOUT; the first spin + 1 reads follow
 * each other at once, before each later one min(pause, deadline - now)
 * passes, pause starting at nap_min_ns and growing by pause / nap_div
 * (0: not growing) up to nap_max_ns. *value: the last read, *reads their
 * count (either may be NULL). The wall-clock watchdog counts the poll's
 * own reads as no traffic. */
struct abbsim_poll {
	unsigned bar;
	uint64_t off;       /* a multiple of 4 inside the BAR */
	uint32_t mask, busy;
	uint64_t first_ns, deadline_ns;
	unsigned spin, nap_div;
	uint64_t nap_min_ns, nap_max_ns;
};
int abbsim_poll_reg(const struct abbsim_poll *poll, uint32_t *value, uint64_t *reads);

/* Tracing during a run: FST waveform of a cycle window and a decoded TLP
 * log (at open: struct abbsim_record). from/to are cycles; to == 0 means
 * until close. A waveform needs the RTL model with tracing compiled in:
 * -ENOTSUP unless the board was opened with traceable = 1 or a waveform
 * asked for in its abbsim_record. */
int abbsim_trace_fst(const char *path, uint64_t from_cycle, uint64_t to_cycle);
/* A note from the host software for the waveform (sim/trace.h): kind
 * ABB_SIM_NOTE_* (abbsim_note.h), the channel of a DMA note (else
 * ABB_SIM_NOTE_NO_CHANNEL) and text for the API lane. The boundaries of DMAs
 * and tests open and close the windows abbsim_record.dma_from/.test, put
 * markers into the save file and trigger the flight recorder. Returns at
 * once (0) when no waveform is asked for. libabb and abb_tests call it. */
int abbsim_trace_note(unsigned kind, unsigned channel, const char *text);
int abbsim_tlp_log(const char *path);

/* Statistics of the link, per direction (0 = down: root complex to device,
 * 1 = up: device to root complex). */
struct abbsim_link_stats {
	uint64_t tlps, payload_bytes, wire_bytes, busy_ps;
};
int abbsim_link_stats(unsigned dir, struct abbsim_link_stats *st);

/* Added: PCIe rule violations seen by the root complex and the hard IP
 * (payload > MPS, read > MRRS, 4 KiB crossing, malformed TLPs, tag reuse,
 * PIO completion timeout, ...). Returns how many were recorded since the
 * last call and copies their messages, one per line, into buf (NUL
 * terminated, truncated to len); clears the record. buf may be NULL. */
int abbsim_protocol_errors(char *buf, size_t len);

/* Link injection: the rules, their kinds, directions and TLP classes are
 * defined once, in abbsim_inject.h (libabb's <abb/abb_sim.h> has the same
 * definitions). abbsim_open removes every rule. */
/* Adds a rule: its id (>= 0), or -EINVAL with a message (unknown kind or
 * direction, neither or both of nth and prob, ns out of range), -ENOSPC
 * (64 rules), -ENODEV when not open. */
int abbsim_inject_add(const struct abb_sim_inject_spec *spec);
/* Removes every rule (the ids start again at 0). */
int abbsim_inject_clear(void);
/* How often rule id fired; -ENOENT for an unknown id. */
int abbsim_inject_hits(int id);

const char *abbsim_last_error(void);
unsigned abbsim_abi_version(void);

#ifdef __cplusplus
}
#endif
#endif
