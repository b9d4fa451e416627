/*
 * abb_bench.c - DMA throughput benchmark in the spirit of the original
 * testABB: DMA read (board to host), DMA write (host to board) and both at
 * once, for transfer sizes from 1 KiB to 4 MiB, on any backend.
 *
 * For every size it prints the device-time bandwidth (abb_time_ns: simulated
 * time on the simulator, CLOCK_MONOTONIC on the board), the limit of the
 * PCIe link from the link formula (sim/README.md, "Link model") for the configured link, and the
 * ratio of the two. --csv prints the same as CSV, --plot FILE.png draws
 * bandwidth against size with gnuplot.
 *
 * On the simulator the link for the formula is read back from it
 * (abb_sim_link_params: generation, lanes, MPS, RCB, completion mode); on
 * a board give the slot with --gen/--lanes/--mps/--rcb (defaults: the ABB
 * in a Gen1 x4 slot, MPS 128, 64-byte completions).
 *
 * testABB's shape (for the side-by-side of abb_bench_mprace --vs-bench):
 * --fixed ADDR moves every transfer to or from the one board address ADDR
 * (ABB_DMA_FIXED, testABB's inc=false), --loops N makes each size N
 * transfers (testABB: 50) instead of --bytes, --no-concurrent skips the
 * read + write column.
 *
 * --pio: PIO into BAR1 instead (bench_pio.c, doc/pio.md): uc and wc, store
 * widths 1..64, a 1 MiB fill and a memcpy-shaped copy, device-time MB/s
 * and TLPs; only -d, --csv and --plot apply.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "bench_pio.h"
#include "tool_args.h"

/* Link description for the formula (defaults: the ABB in a Gen1 x4 slot). */
struct link {
	unsigned gen, lanes, mps, rcb;
	unsigned cpl_rcb; /* 1: read completions of RCB bytes; 0: of MPS bytes */
};

/* Per-TLP overhead on the wire with a 3-DW header: STP+sequence+LCRC+END
 * (8 B) plus the 12-B header = 20 B (sim/README.md, "Link model"). */
/* --loops: at most this many transfers per size (a typo must not run for ever) */
#define ABB_BENCH_MAX_LOOPS 1000000ull
#define TLP_OVERHEAD 20.0
/* SKP ordered sets: 4 symbols every 1180 symbol times (Gen1/2), ~0.3 %. */
#define F_SKP (4.0 / 1180.0)
/* One 8-byte ACK/UpdateFC DLLP per 4 TLPs, the simulator's DLLP policy. */
#define DLLP_BYTES 8.0
#define DLLP_EVERY 4.0

/* Raw bandwidth per lane after line encoding, MB/s. */
static double lane_mbs(unsigned gen)
{
	switch (gen) {
	case 1: return 250.0;
	case 2: return 500.0;
	default: return 8000.0 / 8.0 * 128.0 / 130.0;
	}
}

/* BW = lanes x rate x P / (P + H) x (1 - f_skp - f_dllp) for TLPs with
 * payload P: MPS for posted writes (DMA read), RCB-sized completions for
 * the board's memory reads (DMA write). */
static double formula_mbs(const struct link *l, double payload)
{
	double tlp = payload + TLP_OVERHEAD;
	double f_dllp = DLLP_BYTES / (DLLP_EVERY * tlp + DLLP_BYTES);
	return l->lanes * lane_mbs(l->gen) * payload / tlp * (1.0 - F_SKP - f_dllp);
}

/* Limits of the options (a typo must not run for ever or allocate the
 * machine): transfers below 4 GiB (32-bit board addresses), --bytes up to
 * 64 GiB per size and direction. */
#define SIZE_MAX_OPT (1ull << 32)
#define BYTES_MAX_OPT (64ull << 30)

/* A link value that must be one of vals (n of them, ascending). */
static int one_of(const char *what, const char *arg, const unsigned *vals, size_t n, unsigned *out)
{
	unsigned long long v;

	if (tool_num(what, arg, vals[0], vals[n - 1], 0, &v))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v == vals[i]) {
			*out = vals[i];
			return 0;
		}
	}
	fprintf(stderr, "abb_bench: %s %s: not a PCIe value (", what, arg);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%u", i ? ", " : "", vals[i]);
	fprintf(stderr, ")\n");
	return -1;
}

/* A transfer size: 4..hi, a multiple of 4. */
static int size_opt(const char *what, const char *arg, unsigned long long hi, size_t *out)
{
	unsigned long long v;

	if (tool_num(what, arg, 4, hi, TOOL_NUM_SIZE, &v))
		return -1;
	if (v % 4) {
		fprintf(stderr, "abb_bench: %s %s: not a multiple of 4 bytes\n", what, arg);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: abb_bench [options]\n"
		"  -d, --device URI   device (default: $ABB_DEVICE, else sim)\n"
		"      --min SIZE     smallest transfer (default 1K; sizes: multiples of 4 below\n"
		"                     4 GiB, decimal or 0x hex, suffix K, M, G)\n"
		"      --max SIZE     largest transfer (default 4M, capped at BAR1)\n"
		"  -b, --bytes SIZE   bytes moved per size and direction (default 8M, at most 64G)\n"
		"      --irq          complete by interrupt instead of polling\n"
		"      --fixed ADDR   every transfer to/from board address ADDR (a FIFO)\n"
		"      --loops N      N transfers per size, 1..1000000 (default: --bytes / size)\n"
		"      --no-concurrent  DMA read and DMA write only\n"
		"      --evsrc        the event source enabled through the run (EVS_CTRL.ENABLE:\n"
		"                     with sim:profile=abb2008 the link input writes the buffer)\n"
		"      --csv          CSV output\n"
		"      --plot FILE    write a PNG plot with gnuplot\n"
		"      --pio          PIO into BAR1 as a CPU issues it (uc and wc, store widths\n"
		"                     1..64, fill and memcpy; doc/pio.md); with -d, --csv, --plot\n"
		"      --gen N --lanes N --mps N --rcb N   link for the formula on a board\n"
		"                     (default 1/4/128/64; gen 1..3, lanes 1/2/4/8/12/16/32,\n"
		"                     mps 128..4096 powers of 2, rcb 64/128; the simulator\n"
		"                     reports its own)\n");
}

struct row {
	size_t size;
	double rd, wr, crd, cwr, lim_rd, lim_wr;
};

/* One direction's loop: reps blocking transfers of size bytes, timed in
 * device time. Runs in its own thread for the concurrent measurement (the
 * API allows one thread per channel). */
struct loop {
	abb_dev *dev;
	abb_dmabuf *buf;
	size_t size, reps;
	uint32_t board_addr;
	unsigned flags;
	int write;    /* 0: DMA read, 1: DMA write */
	int err;
	double mbs;
};

static void *loop_run(void *arg)
{
	struct loop *lp = arg;
	uint64_t t0, t1;
	lp->err = abb_time_ns(lp->dev, &t0);
	for (size_t i = 0; !lp->err && i < lp->reps; i++)
		lp->err = lp->write ? abb_dma_write(lp->dev, lp->buf, 0, lp->board_addr, lp->size, lp->flags)
				    : abb_dma_read(lp->dev, lp->buf, 0, lp->board_addr, lp->size, lp->flags);
	if (!lp->err)
		lp->err = abb_time_ns(lp->dev, &t1);
	lp->mbs = !lp->err && t1 > t0 ? (double)(lp->reps * lp->size) / (double)(t1 - t0) * 1e3 : 0;
	return NULL;
}

/* Moves `total` bytes in transfers of `size`: dir 1 DMA read, 2 DMA write,
 * 3 both at once, each direction in its own thread with its own buffer.
 * Device-time MB/s per direction in out[0] (read) and out[1] (write). */
static int run(abb_dev *dev, abb_dmabuf *rbuf, abb_dmabuf *wbuf, size_t size, size_t reps,
	       uint32_t board_addr, int dir, unsigned flags, double out[2])
{
	struct loop rd = {dev, rbuf, size, reps, board_addr, flags, 0, 0, 0.0};
	struct loop wr = {dev, wbuf, size, reps, board_addr, flags, 1, 0, 0.0};
	pthread_t th;

	out[0] = out[1] = 0.0;
	if (dir == 1) {
		loop_run(&rd);
	} else if (dir == 2) {
		loop_run(&wr);
	} else {
		if (pthread_create(&th, NULL, loop_run, &wr))
			return -EAGAIN;
		loop_run(&rd);
		pthread_join(th, NULL);
	}
	if (rd.err || wr.err)
		return rd.err ? rd.err : wr.err;
	out[0] = dir & 1 ? rd.mbs : 0.0;
	out[1] = dir & 2 ? wr.mbs : 0.0;
	return 0;
}

static int plot(const char *png, const struct row *rows, size_t n)
{
	char dat[] = "/tmp/abb_bench_XXXXXX";
	int fd = mkstemp(dat);
	FILE *f, *gp;
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu %.1f %.1f %.1f %.1f %.1f %.1f\n", rows[i].size, rows[i].rd, rows[i].wr,
			rows[i].crd, rows[i].cwr, rows[i].lim_rd, rows[i].lim_wr);
	fclose(f);
	gp = popen("gnuplot", "w");
	if (!gp) {
		unlink(dat);
		return -errno;
	}
	fprintf(gp,
		"set terminal png size 900,600\nset output '%s'\n"
		"set logscale x 2\nset format x '%%.0b %%BB'\nset xlabel 'transfer size'\nset ylabel 'MB/s (device time)'\n"
		"set key bottom right\nset grid\nset title 'ABB DMA throughput'\n"
		"plot '%s' u 1:2 w lp t 'DMA read (board to host)', '' u 1:3 w lp t 'DMA write (host to board)',"
		" '' u 1:4 w lp t 'concurrent: read', '' u 1:5 w lp t 'concurrent: write',"
		" '' u 1:6 w l dt 2 t 'limit: posted writes', '' u 1:7 w l dt 2 t 'limit: completions'\n",
		png, dat);
	int rc = pclose(gp);
	unlink(dat);
	return rc == 0 ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"device", required_argument, 0, 'd'}, {"min", required_argument, 0, 1},
		{"max", required_argument, 0, 2},      {"bytes", required_argument, 0, 'b'},
		{"irq", no_argument, 0, 3},             {"csv", no_argument, 0, 4},
		{"plot", required_argument, 0, 5},      {"gen", required_argument, 0, 6},
		{"lanes", required_argument, 0, 7},     {"mps", required_argument, 0, 8},
		{"rcb", required_argument, 0, 9},       {"help", no_argument, 0, 'h'},
		{"fixed", required_argument, 0, 10},    {"loops", required_argument, 0, 11},
		{"no-concurrent", no_argument, 0, 12},  {"pio", no_argument, 0, 13},
		{"evsrc", no_argument, 0, 14},
		{0, 0, 0, 0}};
	const char *uri = NULL, *png = NULL;
	size_t min = 1024, max = 4u << 20, total = 8u << 20;
	unsigned flags = 0;
	int csv = 0, c, concurrent = 1, bad = 0, pio = 0, dma_opts = 0, evsrc = 0;
	uint32_t board_addr = 0;
	size_t loops = 0;
	struct link l = {1, 4, 128, 64, 1};
	int link_given = 0;

	static const unsigned gens[] = {1, 2, 3}, widths[] = {1, 2, 4, 8, 12, 16, 32},
			      mpss[] = {128, 256, 512, 1024, 2048, 4096}, rcbs[] = {64, 128};
	unsigned long long v;

	tool_begin(argv[0]);
	while ((c = getopt_long(argc, argv, "d:b:h", opts, NULL)) != -1) {
		dma_opts |= c != 'd' && c != 4 && c != 5 && c != 13 && c != 'h';
		switch (c) {
		case 'd': uri = optarg; break;
		case 1: bad |= size_opt("--min", optarg, SIZE_MAX_OPT, &min); break;
		case 2: bad |= size_opt("--max", optarg, SIZE_MAX_OPT, &max); break;
		case 'b':
			bad |= tool_num("--bytes", optarg, 1, BYTES_MAX_OPT, TOOL_NUM_SIZE, &v);
			total = (size_t)v;
			break;
		case 3: flags |= ABB_DMA_IRQ; break;
		case 4: csv = 1; break;
		case 5: png = optarg; break;
		case 6: bad |= one_of("--gen", optarg, gens, 3, &l.gen); link_given = 1; break;
		case 7: bad |= one_of("--lanes", optarg, widths, 7, &l.lanes); link_given = 1; break;
		case 8: bad |= one_of("--mps", optarg, mpss, 6, &l.mps); link_given = 1; break;
		case 9: bad |= one_of("--rcb", optarg, rcbs, 2, &l.rcb); link_given = 1; break;
		case 10:
			flags |= ABB_DMA_FIXED;
			if (tool_num("--fixed", optarg, 0, UINT32_MAX - 3, 0, &v)) {
				bad = 1;
			} else if (v % 4) {
				fprintf(stderr, "abb_bench: --fixed %s: not a multiple of 4\n", optarg);
				bad = 1;
			}
			board_addr = (uint32_t)v;
			break;
		case 11:
			bad |= tool_num("--loops", optarg, 1, ABB_BENCH_MAX_LOOPS, 0, &v);
			loops = (size_t)v;
			break;
		case 12: concurrent = 0; break;
		case 13: pio = 1; break;
		case 14: evsrc = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!bad && optind < argc) {
		fprintf(stderr, "abb_bench: %s: no such option or argument\n", argv[optind]);
		bad = 1;
	}
	if (!bad && min > max) {
		fprintf(stderr, "abb_bench: --min %zu is larger than --max %zu\n", min, max);
		bad = 1;
	}
	if (!bad && pio && dma_opts) {
		fprintf(stderr, "abb_bench: --pio takes only -d, --csv and --plot\n");
		bad = 1;
	}
	if (bad) {
		usage(stderr);
		return 2;
	}
	if (pio) {
#ifdef ABB_BENCH_NO_PIO
		/* make sim-speed's copy, also linked against a baseline libabb
		 * older than the PIO API (sim/sim_speed.mk) */
		fprintf(stderr, "abb_bench: --pio is not in this copy (built without the PIO API "
			"for make sim-speed); use build/abb_bench\n");
		return 2;
#else
		return bench_pio(uri, csv, png);
#endif
	}

	abb_dev *dev;
	int err = abb_open(&dev, uri);
	if (err) {
		fprintf(stderr, "abb_bench: cannot open the device: %s\n", abb_last_error());
		return 1;
	}
	struct abb_sim_link sl;
	if (abb_sim_link_params(dev, &sl) == 0) {
		if (link_given)
			fprintf(stderr, "abb_bench: --gen/--lanes/--mps/--rcb ignored: the simulator "
					"reports its link\n");
		l = (struct link){sl.gen, sl.lanes, sl.mps, sl.rcb, sl.cpl_rcb};
	}
	/* the event source on through the whole run: on a board profile with
	 * link input (sim:profile=abb2008, link_mbps) the links write the
	 * on-board buffer beside the transfers (doc/board-profile.md) */
	if (evsrc && (err = abb_reg_write(dev, ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE)) != 0) {
		fprintf(stderr, "abb_bench: --evsrc: %s\n", abb_last_error());
		abb_close(dev);
		return 1;
	}
	size_t bar1;
	err = abb_mem_size(dev, &bar1);
	if (err) {
		fprintf(stderr, "abb_bench: %s\n", abb_last_error());
		abb_close(dev);
		return 1;
	}
	/* a fixed-address transfer touches one board word, of any length */
	if (!(flags & ABB_DMA_FIXED) && max > bar1) {
		fprintf(stderr, "abb_bench: transfers capped at the BAR1 size, %zu bytes "
				"(ABB_SIM_MEM_SIZE=4M for 4 MiB on the simulator)\n", bar1);
		max = bar1;
	}

	/* Separate buffers per direction, so concurrent transfers never share
	 * memory; page aligned like a DAQ memory pool. */
	void *rmem = NULL, *wmem = NULL;
	abb_dmabuf *rbuf = NULL, *wbuf = NULL;
	if (posix_memalign(&rmem, 4096, max) || posix_memalign(&wmem, 4096, max)) {
		fprintf(stderr, "abb_bench: out of memory for %zu-byte buffers\n", max);
		return 1;
	}
	memset(rmem, 0, max);
	for (size_t i = 0; i < max; i++)
		((unsigned char *)wmem)[i] = (unsigned char)(i * 13 + 7);
	err = abb_dmabuf_map(dev, rmem, max, &rbuf);
	if (!err)
		err = abb_dmabuf_map(dev, wmem, max, &wbuf);
	if (err) {
		fprintf(stderr, "abb_bench: mapping buffers: %s\n", abb_last_error());
		abb_close(dev);
		return 1;
	}

	double lim_rd = formula_mbs(&l, l.mps);
	double lim_wr = formula_mbs(&l, l.cpl_rcb && l.rcb < l.mps ? l.rcb : l.mps);
	if (csv) {
		printf("size,read_mbs,read_limit,read_ratio,write_mbs,write_limit,write_ratio,"
		       "conc_read_mbs,conc_write_mbs,conc_read_keep,conc_write_keep\n");
	} else {
		printf("backend %s, link Gen%u x%u, MPS %u, RCB %u, %u-byte read completions%s\n",
		       abb_backend(dev), l.gen, l.lanes, l.mps, l.rcb,
		       l.cpl_rcb && l.rcb < l.mps ? l.rcb : l.mps,
		       flags & ABB_DMA_IRQ ? ", completion by interrupt" : "");
		if (flags & ABB_DMA_FIXED)
			printf("fixed-address transfers at board address 0x%x\n", board_addr);
		printf("limits (link formula, sim/README.md): posted writes %.1f MB/s, completions %.1f MB/s\n",
		       lim_rd, lim_wr);
		printf("%9s | %9s %7s | %9s %7s | %-27s\n", "", "DMA read", "", "DMA write", "",
		       "concurrent read + write");
		printf("%9s | %9s %7s | %9s %7s | %9s %9s %6s %6s\n", "size", "MB/s", "/limit", "MB/s",
		       "/limit", "read", "write", "keep r", "keep w");
	}

	struct row rows[32];
	size_t n = 0;
	for (size_t size = min; size <= max && n < 32; size *= 2, n++) {
		double a[2], b[2], cc[2];
		size_t reps = loops ? loops : total / size ? total / size : 1;
		cc[0] = cc[1] = 0.0;
		if ((err = run(dev, rbuf, wbuf, size, reps, board_addr, 1, flags, a)) ||
		    (err = run(dev, rbuf, wbuf, size, reps, board_addr, 2, flags, b)) ||
		    (concurrent && (err = run(dev, rbuf, wbuf, size, reps, board_addr, 3, flags, cc)))) {
			fprintf(stderr, "abb_bench: DMA of %zu bytes failed: %s\n", size, abb_last_error());
			break;
		}
		rows[n] = (struct row){size, a[0], b[1], cc[0], cc[1], lim_rd, lim_wr};
		if (csv)
			printf("%zu,%.1f,%.1f,%.4f,%.1f,%.1f,%.4f,%.1f,%.1f,%.4f,%.4f\n", size, a[0], lim_rd,
			       a[0] / lim_rd, b[1], lim_wr, b[1] / lim_wr, cc[0], cc[1], cc[0] / a[0],
			       cc[1] / b[1]);
		else if (!concurrent)
			printf("%9zu | %9.1f %6.1f%% | %9.1f %6.1f%% | %9s\n", size, a[0],
			       100 * a[0] / lim_rd, b[1], 100 * b[1] / lim_wr, "-");
		else
			printf("%9zu | %9.1f %6.1f%% | %9.1f %6.1f%% | %9.1f %9.1f %5.1f%% %5.1f%%\n", size,
			       a[0], 100 * a[0] / lim_rd, b[1], 100 * b[1] / lim_wr, cc[0], cc[1],
			       100 * cc[0] / a[0], 100 * cc[1] / b[1]);
		fflush(stdout);
	}
	if (png && !err && n)
		tool_plot_done(plot(png, rows, n) != 0, png, csv);
	abb_dmabuf_unmap(rbuf);
	abb_dmabuf_unmap(wbuf);
	abb_close(dev);
	free(rmem);
	free(wmem);
	return err ? 1 : 0;
}
