/*
 * regress.c - constrained-random regression: the simulator (the RTL)
 * against the reference model, transfer by transfer.
 *
 *   build/abb_regress [N=transfers] [SEED=s] [CASE=c | CASE=c.t] [SHARD=k/n]
 *                     [PER=transfers per configuration] [JUNIT=file] [V=1] [TIMED=0|1]
 *                     [LOG=prefix]
 *   make regress N=10000 SEED=1          (the same, through make)
 *
 * The N transfers are cut into configurations of PER transfers (default
 * 100). Configuration c draws a link (gen, lanes, MPS, MRRS, RCB,
 * completion mode, reordering and its seed, flow-control credits within
 * their valid ranges, strict, MSI, IOVA layout, BAR1 size) from SEED and c,
 * opens the simulator with it (a hot reset) next to the reference model
 * (tb_scoreboard.h; TIMED=1, the default: the timed model, model:timed=1,
 * with the same link options; TIMED=0: the untimed one), and runs its
 * transfers: sizes 4 B .. 64 KiB, host and
 * board offsets, DMA reads and writes, a read and a write in flight
 * together, fixed-address (FIFO) transfers, event-source reads,
 * hand-built descriptor chains, completion by interrupt or by polling.
 * After each transfer host memory, the board range it touched, STA, GER,
 * ISR and IER must agree with the model, and the simulator must have seen
 * no PCIe rule violation (abb_sim_protocol_errors) and no IOMMU fault
 * (abb_sim_faults). A configuration stops at its first failure.
 *
 * Device time (TIMED=1): every transfer's duration on the simulator and on
 * the timed model; at the end the distribution of the error |model - sim|
 * / sim (median, 99th percentile, worst with its seed and case) for
 * single-channel transfers of 4 KiB and more and for the rest; a transfer
 * beyond its bound (2 %, 5 %: tb_scoreboard.h sb_time_bound) fails the run.
 *
 * LOG=prefix writes the TLP logs of a replay: prefix.sim.tlp and (timed)
 * prefix.model.tlp, in the same format, to be compared line by line.
 *
 * Every failure prints its seed and case; replay one configuration with
 * CASE=c, one transfer (the configuration up to it, the transfer traced)
 * with CASE=c.t. SHARD=k/n runs the configurations c with c % n == k-1 (k
 * from 1): n shards together run exactly the configurations of one run.
 * JUNIT=file writes the result as JUnit XML (a test case per configuration).
 * Prints transfers per wall second at the end. Exit status 0: no failure.
 */
#define _GNU_SOURCE
#include "tb_scoreboard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define HOST_BYTES (256 * 1024)

struct opts {
	unsigned long n;       /* transfers in all */
	unsigned long per;     /* per configuration */
	uint64_t seed;
	long case_cfg;         /* -1: all */
	long case_xfer;        /* -1: the whole configuration */
	unsigned shard_k, shard_n;
	const char *junit;
	int verbose;
	int timed;
	const char *log;
};

struct cfg_result {
	unsigned long cfg;
	char link[512];
	unsigned long xfers;
	int failed;
	char msg[512];
	double secs;
	struct sb_time *times; /* device time of its transfers (TIMED=1) */
	size_t ntimes;
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t st = a ^ (b * 0x9e3779b97f4a7c15ull);

	return sb_rand(&st);
}

static unsigned pick(uint64_t *r, const unsigned *v, size_t n)
{
	return v[sb_range(r, 0, n - 1)];
}
#define PICK(r, ...) pick(r, (const unsigned[]){__VA_ARGS__}, \
			  sizeof((const unsigned[]){__VA_ARGS__}) / sizeof(unsigned))

/* A link configuration under the constraints abb_open checks (doc/options.md,
 * "Link parameters and flow control"): sim options into sim, model's into
 * model. Returns the BAR1 size. */
static size_t draw_link(uint64_t *r, char *sim, size_t n, char *model, size_t mn,
			unsigned *strict, int timed)
{
	unsigned gen = (unsigned)sb_range(r, 1, 3);
	unsigned lanes = PICK(r, 1, 2, 4, 4, 8, 16);
	unsigned mps = PICK(r, 128, 128, 256, 256, 512, 1024, 2048, 4096);
	unsigned mrrs = PICK(r, 128, 256, 512, 512, 1024, 2048, 4096);
	unsigned rcb = PICK(r, 64, 128);
	unsigned cpl_mps = (unsigned)sb_range(r, 0, 1);
	unsigned reorder = (unsigned)sb_range(r, 0, 2);
	unsigned mem = PICK(r, 64, 128, 256);
	unsigned scatter = (unsigned)sb_range(r, 0, 1);
	unsigned msi = (unsigned)sb_range(r, 0, 1);
	unsigned long long seed = sb_rand(r) % 1000000;
	char cred[200] = "default";

	*strict = (unsigned)sb_range(r, 0, 1);
	if (sb_range(r, 0, 1)) {
		/* finite credits, each at least what the largest TLP of its
		 * class needs */
		unsigned up_pd = (unsigned)sb_range(r, mps / 16, 256);
		unsigned cpl_need = cpl_mps ? (mps < mrrs ? mps : mrrs) / 16 : rcb / 16;
		unsigned down_cpld = sb_range(r, 0, 2) ? 0 : (unsigned)sb_range(r, cpl_need, 256);

		snprintf(cred, sizeof cred,
			 "up.ph=%u:up.pd=%u:up.nph=%u:up.cpld=%u:down.ph=%u:down.pd=%u:"
			 "down.nph=%u:down.cpld=%u",
			 (unsigned)sb_range(r, 1, 64), up_pd, (unsigned)sb_range(r, 1, 64),
			 (unsigned)sb_range(r, 8, 64), (unsigned)sb_range(r, 1, 32),
			 (unsigned)sb_range(r, 8, 256), (unsigned)sb_range(r, 1, 16), down_cpld);
	}
	snprintf(sim, n,
		 "gen=%u,lanes=%u,mps=%u,mrrs=%u,rcb=%u,cpl=%s,reorder=%u,seed=%llu,mem_size=%uK,"
		 "iova=%s,strict=%u,msi=%u,credits=%s",
		 gen, lanes, mps, mrrs, rcb, cpl_mps ? "mps" : "rcb", reorder, seed, mem,
		 scatter ? "scatter" : "contig", *strict, msi, cred);
	if (timed)
		snprintf(model, mn, "timed=1,%s", sim);
	else
		snprintf(model, mn, "mem_size=%uK,strict=%u", mem, *strict);
	return (size_t)mem * 1024;
}

/* The simulator's PCIe rule violations and IOMMU faults since the last
 * call: 0 if none, else 1 with the first lines in msg. */
static int pcie_rules(struct sb *s, char *msg, size_t n)
{
	abb_dev *sim = s->dev[SB_SIM];
	struct abb_sim_fault f[4];
	char buf[1024];
	int e = abb_sim_protocol_errors(sim, buf, sizeof buf);
	int nf = abb_sim_faults(sim, f, 4);

	if (e > 0) {
		char *nl = strchr(buf, '\n');

		if (nl)
			*nl = 0;
		snprintf(msg, n, "%d PCIe rule violations, first: %.300s", e, buf);
		return 1;
	}
	if (nf > 0) {
		snprintf(msg, n, "%d IOMMU faults, first: iova 0x%llx len %u %s", nf,
			 (unsigned long long)f[0].iova, f[0].len, f[0].is_write ? "write" : "read");
		return 1;
	}
	if (e < 0 || nf < 0) {
		snprintf(msg, n, "abb_sim_protocol_errors/faults failed: %d %d", e, nf);
		return 1;
	}
	return 0;
}

/* Size of a transfer: mostly small (the regression counts transfers),
 * sometimes up to 64 KiB. */
static size_t draw_len(uint64_t *r, size_t max)
{
	unsigned cls = (unsigned)sb_range(r, 0, 99);
	size_t len;

	if (cls < 55)
		len = 4 * sb_range(r, 1, 64);
	else if (cls < 90)
		len = 4 * sb_range(r, 65, 1024);
	else if (cls < 98)
		len = 4 * sb_range(r, 1025, 4096);
	else
		len = 4 * sb_range(r, 4097, 16384);
	return len > max ? max : len;
}

/* One transfer, checked. Returns 0 or 1 (failed; msg says what). */
static int transfer(struct sb *s, uint64_t *r, uint32_t evs_addr, char *msg, size_t mn)
{
	unsigned kind = (unsigned)sb_range(r, 0, 99);
	size_t mem = s->mem_size;
	size_t len = draw_len(r, mem / 2);
	size_t off = 4 * sb_range(r, 0, (HOST_BYTES - len) / 4);
	uint32_t board = (uint32_t)(4 * sb_range(r, 0, (mem - len) / 4));
	unsigned flags = sb_range(r, 0, 3) == 0 ? ABB_DMA_IRQ : 0;
	uint32_t lo = 0, hi = 0;
	unsigned before = s->mismatches;

	if (kind < 35) { /* DMA read */
		sb_step(s, "DMA read %zu B host+0x%zx <- board 0x%x flags %u", len, off, board,
			flags);
		sb_dma(s, 0, off, board, len, flags);
	} else if (kind < 70) { /* DMA write */
		sb_host_fill(s, off, len, (uint32_t)sb_rand(r));
		sb_step(s, "DMA write %zu B host+0x%zx -> board 0x%x flags %u", len, off, board,
			flags);
		sb_dma(s, 1, off, board, len, flags);
		lo = board;
		hi = (uint32_t)(board + len);
	} else if (kind < 85) { /* one read and one write in flight together */
		size_t wlen = draw_len(r, mem / 4);
		size_t woff = (off + len + 4 * sb_range(r, 0, 64)) % (HOST_BYTES - wlen);
		uint32_t wboard;
		unsigned wflags = sb_range(r, 0, 3) == 0 ? ABB_DMA_IRQ : 0;

		woff &= ~(size_t)3;
		if (woff < off + len && off < woff + wlen)
			woff = off >= wlen ? 0 : off + len;
		if ((woff < off + len && off < woff + wlen) || woff + wlen > HOST_BYTES)
			return 0; /* no room: a transfer not drawn */
		/* board ranges disjoint: their order on the board is not defined */
		wboard = (uint32_t)((board + len + 4 * sb_range(r, 0, 256)) % (mem - wlen)) & ~3u;
		if (wboard < board + len && board < wboard + wlen)
			return 0;
		sb_host_fill(s, woff, wlen, (uint32_t)sb_rand(r));
		sb_step(s, "DMA read %zu B host+0x%zx <- board 0x%x flags %u || DMA write %zu B "
			"host+0x%zx -> board 0x%x flags %u", len, off, board, flags, wlen, woff, wboard,
			wflags);
		sb_dma_pair(s, off, board, len, flags, woff, wboard, wlen, wflags);
		lo = wboard;
		hi = (uint32_t)(wboard + wlen);
	} else if (kind < 90) { /* fixed address (a FIFO port) */
		int dir = (int)sb_range(r, 0, 1);

		board = (uint32_t)(4 * sb_range(r, 0, mem / 4 - 1));
		if (board == evs_addr)
			board ^= 4;
		if (dir)
			sb_host_fill(s, off, len, (uint32_t)sb_rand(r));
		sb_step(s, "fixed DMA %s %zu B host+0x%zx board 0x%x flags %u", dir ? "write" : "read",
			len, off, board, flags);
		sb_dma(s, dir, off, board, len, flags | ABB_DMA_FIXED);
		lo = dir ? board : 0;
		hi = dir ? board + 4 : 0;
	} else if (kind < 95) { /* the event source */
		sb_step(s, "event-source read %zu B host+0x%zx flags %u", len, off, flags);
		sb_dma(s, 0, off, evs_addr, len, flags | ABB_DMA_FIXED);
	} else { /* a hand-built chain, pieces inside pages, board ranges ascending */
		size_t hoff[12];
		uint32_t pb[12], pl[12], upa[12];
		unsigned n = (unsigned)sb_range(r, 2, 12), i;
		int chn = (int)sb_range(r, 0, 1);
		uint32_t b = (uint32_t)(4 * sb_range(r, 0, (mem - 12 * 1300) / 4));
		uint32_t extra = ABB_CTRL_INC | (flags ? ABB_CTRL_EDI | ABB_CTRL_EEI : 0);

		lo = b;
		for (i = 0; i < n; i++) {
			uint32_t l = (uint32_t)(4 * sb_range(r, 1, 256));

			hoff[i] = sb_range(r, 0, HOST_BYTES / 4096 - 1) * 4096 +
				  4 * sb_range(r, 0, (4096 - l) / 4);
			upa[i] = (uint32_t)sb_range(r, 0, 1);
			if (upa[i] && i > 0)
				b += (uint32_t)(4 * sb_range(r, 0, 64));
			pb[i] = b;
			pl[i] = l;
			b += l;
			if (chn == (int)ABB_CH_H2C)
				sb_host_fill(s, hoff[i], l, (uint32_t)sb_rand(r));
		}
		hi = b;
		if (chn == (int)ABB_CH_C2H) {
			/* host pieces of a read may overlap: the later wins on
			 * both only if written in order; keep them apart */
			for (i = 0; i < n; i++)
				hoff[i] = (size_t)i * (HOST_BYTES / 12 & ~(size_t)4095) +
					  (hoff[i] & 4095);
			lo = hi = 0;
		}
		sb_step(s, "chain of %u on %s", n, chn == (int)ABB_CH_C2H ? "DMA read" : "DMA write");
		sb_chain(s, chn, n, hoff, pb, pl, upa, extra, 1);
	}
	sb_check(s, lo, hi);
	if (s->mismatches != before) {
		snprintf(msg, mn, "scoreboard mismatch at step %lu (%s)", s->step, s->what);
		return 1;
	}
	if (pcie_rules(s, msg, mn))
		return 1;
	return 0;
}

/* Runs configuration c (its transfers [0, last]; last < 0: all). */
static void run_config(const struct opts *o, unsigned long c, long last, struct cfg_result *res)
{
	uint64_t cr = mix(o->seed, c + 1);
	char model[600];
	struct sb s;
	unsigned long t, ntr = o->per;
	uint32_t evs_addr;
	double t0 = wall();

	memset(res, 0, sizeof *res);
	res->cfg = c;
	if ((c + 1) * o->per > o->n)
		ntr = o->n > c * o->per ? o->n - c * o->per : 0;
	memset(&s, 0, sizeof s);
	s.seed = o->seed;
	s.trace = o->verbose > 1;
	draw_link(&cr, res->link, sizeof res->link, model, sizeof model, &s.strict, o->timed);
	if (o->log) {
		size_t n = strlen(res->link), k = strlen(model);

		snprintf(res->link + n, sizeof res->link - n, ",tlp_log=%s.sim.tlp", o->log);
		if (o->timed)
			snprintf(model + k, sizeof model - k, ",tlp_log=%s.model.tlp", o->log);
	}
	if (sb_open(&s, res->link, model, HOST_BYTES)) {
		res->failed = 1;
		snprintf(res->msg, sizeof res->msg, "cannot open sim:%.300s / model:%.100s", res->link,
			 model);
		return;
	}
	sb_board_fill(&s, 0, s.mem_size, (uint32_t)cr);
	sb_host_fill(&s, 0, HOST_BYTES, (uint32_t)(cr >> 32));
	evs_addr = (uint32_t)(4 * sb_range(&cr, 0, s.mem_size / 4 - 1));
	sb_reg_write(&s, ABB_REG_EVS_SRC, (uint32_t)sb_rand(&cr));
	sb_reg_write(&s, ABB_REG_EVS_SIZE, (uint32_t)sb_range(&cr, 0, 100));
	sb_reg_write(&s, ABB_REG_EVS_GAP, (uint32_t)sb_range(&cr, 0, 30));
	sb_reg_write(&s, ABB_REG_EVS_ADDR, evs_addr);
	sb_reg_write(&s, ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR | ABB_EVS_CTRL_ENABLE);
	if (pcie_rules(&s, res->msg, sizeof res->msg)) {
		res->failed = 1;
		sb_close(&s);
		return;
	}
	for (t = 0; t < ntr && (last < 0 || (long)t <= last); t++) {
		uint64_t tr = mix(cr, t);
		size_t before = s.ntimes;
		int bad;

		s.trace = o->verbose > 1 || (long)t == last;
		bad = transfer(&s, &tr, evs_addr, res->msg, sizeof res->msg);
		for (size_t i = before; i < s.ntimes; i++) {
			/* named by the case that replays it */
			char w[160];

			snprintf(w, sizeof w, "%s", s.times[i].what);
			snprintf(s.times[i].what, sizeof s.times[i].what, "SEED=%llu CASE=%lu.%lu: %.110s",
				 (unsigned long long)o->seed, c, t, w);
		}
		if (bad) {
			char m[400];

			snprintf(m, sizeof m, "transfer %lu: %.360s", t, res->msg);
			snprintf(res->msg, sizeof res->msg, "%.400s; replay: make regress SEED=%llu CASE=%lu.%lu",
				 m, (unsigned long long)o->seed, c, t);
			res->failed = 1;
			break;
		}
		res->xfers++;
	}
	if (s.ntimes) {
		/* the transfers' device time, each named by its replay case */
		res->times = s.times;
		res->ntimes = s.ntimes;
		s.times = NULL;
		s.ntimes = s.cap_times = 0;
	}
	if (!res->failed && last < 0) {
		sb_step(&s, "end of configuration: all of board memory");
		if (sb_check(&s, 0, (uint32_t)s.mem_size)) {
			res->failed = 1;
			snprintf(res->msg, sizeof res->msg,
				 "board memory at the end; replay: make regress SEED=%llu CASE=%lu",
				 (unsigned long long)o->seed, c);
		}
	}
	sb_close(&s);
	res->secs = wall() - t0;
}

static void xml_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static int write_junit(const struct opts *o, const struct cfg_result *res, size_t n, double secs)
{
	FILE *f = fopen(o->junit, "w");
	size_t fails = 0;

	if (!f) {
		perror(o->junit);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		fails += res[i].failed != 0;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"abb_regress\" tests=\"%zu\" failures=\"%zu\" time=\"%.3f\">\n",
		n, fails, secs);
	fprintf(f, "  <testsuite name=\"regress.seed%llu.shard%u_%u\" tests=\"%zu\" failures=\"%zu\" "
		   "errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
		(unsigned long long)o->seed, o->shard_k, o->shard_n, n, fails, secs);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "    <testcase classname=\"regress.seed%llu\" name=\"config%lu\" time=\"%.3f\">",
			(unsigned long long)o->seed, res[i].cfg, res[i].secs);
		fprintf(f, "<system-out>sim:");
		xml_esc(f, res[i].link);
		fprintf(f, " transfers=%lu</system-out>", res[i].xfers);
		if (res[i].failed) {
			fprintf(f, "<failure message=\"");
			xml_esc(f, res[i].msg);
			fprintf(f, "\"/>");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	return fclose(f) ? -1 : 0;
}

static int usage(const char *arg)
{
	fprintf(stderr, "abb_regress: bad argument \"%s\"\nusage: abb_regress [N=transfers] "
			"[SEED=s] [CASE=c|c.t] [SHARD=k/n] [PER=n] [JUNIT=file] [V=0|1|2] [TIMED=0|1] "
			"[LOG=prefix]\n", arg);
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = {.n = 10000, .per = 100, .seed = 1, .case_cfg = -1, .case_xfer = -1,
			 .shard_k = 1, .shard_n = 1, .timed = 1};
	struct cfg_result *res;
	unsigned long ncfg, c, xfers = 0, fails = 0;
	size_t nres = 0;
	double t0, secs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int a = 1; a < argc; a++) {
		const char *v = strchr(argv[a], '=');
		char *end = NULL;

		if (!v)
			return usage(argv[a]);
		v++;
		if (!*v)
			continue; /* NAME= from make: unset */
		if (!strncmp(argv[a], "N=", 2))
			o.n = strtoul(v, &end, 0);
		else if (!strncmp(argv[a], "SEED=", 5))
			o.seed = strtoull(v, &end, 0);
		else if (!strncmp(argv[a], "PER=", 4))
			o.per = strtoul(v, &end, 0);
		else if (!strncmp(argv[a], "V=", 2))
			o.verbose = (int)strtol(v, &end, 0);
		else if (!strncmp(argv[a], "TIMED=", 6))
			o.timed = (int)strtol(v, &end, 0);
		else if (!strncmp(argv[a], "LOG=", 4)) {
			o.log = v;
			end = (char *)v + strlen(v);
		}
		else if (!strncmp(argv[a], "JUNIT=", 6)) {
			o.junit = v;
			end = (char *)v + strlen(v);
		}
		else if (!strncmp(argv[a], "CASE=", 5)) {
			o.case_cfg = strtol(v, &end, 0);
			if (*end == '.')
				o.case_xfer = strtol(end + 1, &end, 0);
		} else if (!strncmp(argv[a], "SHARD=", 6)) {
			o.shard_k = (unsigned)strtoul(v, &end, 0);
			if (*end != '/')
				return usage(argv[a]);
			o.shard_n = (unsigned)strtoul(end + 1, &end, 0);
			if (o.shard_n == 0 || o.shard_k == 0 || o.shard_k > o.shard_n)
				return usage(argv[a]);
		} else
			return usage(argv[a]);
		if (!end || *end)
			return usage(argv[a]);
	}
	if (o.per == 0)
		return usage("PER=0");
	ncfg = (o.n + o.per - 1) / o.per;
	res = calloc(ncfg ? ncfg : 1, sizeof *res);
	if (!res)
		return 2;
	printf("abb_regress: %lu transfers in %lu configurations of %lu, SEED=%llu, SHARD=%u/%u%s, "
	       "against the %s reference model\n", o.n, ncfg, o.per, (unsigned long long)o.seed,
	       o.shard_k, o.shard_n, o.case_cfg >= 0 ? " (one case)" : "",
	       o.timed ? "timed" : "untimed");
	t0 = wall();
	for (c = 0; c < ncfg; c++) {
		struct cfg_result *r = &res[nres];

		if (o.case_cfg >= 0 ? (long)c != o.case_cfg : c % o.shard_n != o.shard_k - 1)
			continue;
		run_config(&o, c, o.case_xfer, r);
		nres++;
		xfers += r->xfers;
		if (r->failed) {
			fails++;
			printf("FAIL config %lu (sim:%s): %s\n", c, r->link, r->msg);
		} else if (o.verbose) {
			printf("ok   config %lu: %lu transfers, %.2f s (sim:%s)\n", c, r->xfers, r->secs,
			       r->link);
		}
	}
	secs = wall() - t0;
	printf("abb_regress: %lu transfers in %zu configurations, %lu failed, %.1f s: "
	       "%.0f transfers per wall second (SEED=%llu SHARD=%u/%u)\n",
	       xfers, nres, fails, secs, secs > 0 ? (double)xfers / secs : 0.0,
	       (unsigned long long)o.seed, o.shard_k, o.shard_n);
	if (o.timed) {
		/* the device time of every transfer of every configuration */
		size_t nt = 0, k = 0;
		struct sb_time *all;
		unsigned over;

		for (size_t i = 0; i < nres; i++)
			nt += res[i].ntimes;
		all = malloc((nt ? nt : 1) * sizeof *all);
		if (!all)
			return 2;
		for (size_t i = 0; i < nres; i++) {
			memcpy(all + k, res[i].times, res[i].ntimes * sizeof *all);
			k += res[i].ntimes;
			free(res[i].times);
		}
		over = sb_time_report(stdout, "abb_regress:", all, nt);
		if (over) {
			printf("abb_regress: FAIL: %u transfers' device time beyond the bound:\n", over);
			for (size_t i = 0, shown = 0; i < nt && shown < 10; i++)
				if (sb_time_err(&all[i]) > sb_time_bound(&all[i])) {
					printf("    %.3f %% (sim %llu ns, model %llu ns): %s\n",
					       100 * sb_time_err(&all[i]),
					       (unsigned long long)all[i].ns[SB_SIM],
					       (unsigned long long)all[i].ns[SB_MODEL], all[i].what);
					shown++;
				}
			fails += over;
		}
		free(all);
	}
	if (o.junit && write_junit(&o, res, nres, secs))
		fails++;
	free(res);
	return fails ? 1 : 0;
}
