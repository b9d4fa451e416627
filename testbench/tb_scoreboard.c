/*
 * tb_scoreboard.c - the reference model as scoreboard (tb_scoreboard.h).
 */
#define _GNU_SOURCE
#include "tb_scoreboard.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

/* A descriptor in host memory is the channel block's first eight
 * registers in order, PAH .. CTRL (rtl-model/REGISTERS.md): word j is the
 * register at offset 4j. */
#define SB_DESC_WORDS ((int)ABB_DESC_BYTES / 4)
#define SB_DW(reg) (ABB_CH_##reg / 4)

static const char *const dev_name[SB_NDEV] = {"sim", "model"};

#define OUT(s) ((s)->out ? (s)->out : stdout)

uint64_t sb_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t sb_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return hi <= lo ? lo : lo + sb_rand(state) % (hi - lo + 1);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint64_t st = seed * 0x100000001b3ull + 7;

	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0)
			st = sb_rand(&st) ^ i;
		p[i] = (uint8_t)(st >> (8 * (i % 8)));
	}
}

static void mismatch(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct sb *s, const char *fmt, ...)
{
	va_list ap;

	s->mismatches++;
	if (s->quiet)
		return;
	fprintf(OUT(s), "scoreboard MISMATCH seed=%llu step=%lu (%s): ",
		(unsigned long long)s->seed, s->step, s->what);
	va_start(ap, fmt);
	vfprintf(OUT(s), fmt, ap);
	va_end(ap);
	fputc('\n', OUT(s));
}

void sb_step(struct sb *s, const char *fmt, ...)
{
	va_list ap;

	s->step++;
	va_start(ap, fmt);
	vsnprintf(s->what, sizeof s->what, fmt, ap);
	va_end(ap);
	if (s->trace)
		fprintf(OUT(s), "  step %lu: %s\n", s->step, s->what);
}

static void *pages(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

static uint32_t rd(struct sb *s, int d, uint32_t off);
static void wr(struct sb *s, int d, uint32_t off, uint32_t val);
static void settle_dev(struct sb *s, int d, int64_t max_ns);

/* --- device time of the operations (the timed model) ------------------ */

static uint64_t dev_now(struct sb *s, int d)
{
	uint64_t t = 0;

	if (s->timed && abb_time_ns(s->dev[d], &t))
		t = 0;
	return t;
}

/* Records one operation's device time on both (t0, t1 per device): the
 * entry added, or NULL (an untimed pair, out of memory). */
static struct sb_time *time_add(struct sb *s, const uint64_t *t0, const uint64_t *t1, size_t len,
				unsigned two)
{
	struct sb_time *t;

	if (!s->timed)
		return NULL;
	if (s->ntimes == s->cap_times) {
		size_t cap = s->cap_times ? 2 * s->cap_times : 256;
		struct sb_time *v = realloc(s->times, cap * sizeof *v);

		if (!v)
			return NULL;
		s->times = v;
		s->cap_times = cap;
	}
	t = &s->times[s->ntimes++];
	for (int d = 0; d < SB_NDEV; d++)
		t->ns[d] = t1[d] - t0[d];
	t->len = len;
	t->two = two;
	t->step = s->step;
	snprintf(t->what, sizeof t->what, "%s", s->what);
	return t;
}

double sb_time_err(const struct sb_time *t)
{
	double a = (double)t->ns[SB_SIM], b = (double)t->ns[SB_MODEL];

	if (a == 0)
		return b == 0 ? 0 : 1;
	return (b > a ? b - a : a - b) / a;
}

double sb_time_bound(const struct sb_time *t)
{
	return !t->two && t->len >= 4096 ? 0.02 : 0.05;
}

static int cmp_err(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

unsigned sb_time_report(FILE *out, const char *label, const struct sb_time *t, size_t n)
{
	static const char *const cls[2] = {"single channel, >= 4 KiB (bound 2 %)",
					   "smaller or both channels (bound 5 %)"};
	unsigned over = 0;

	for (int c = 0; c < 2; c++) {
		double *e = malloc((n ? n : 1) * sizeof *e);
		size_t k = 0, worst = 0;
		double wv = -1;

		if (!e)
			return 1;
		for (size_t i = 0; i < n; i++) {
			double x;

			if ((sb_time_bound(&t[i]) == 0.02) != (c == 0))
				continue;
			x = sb_time_err(&t[i]);
			e[k++] = x;
			if (x > wv) {
				wv = x;
				worst = i;
			}
			over += x > sb_time_bound(&t[i]);
		}
		if (k) {
			qsort(e, k, sizeof *e, cmp_err);
			fprintf(out, "%s device time, %s: %zu operations, error median %.3f %%, 99th "
				"percentile %.3f %%, worst %.3f %% (step %lu: %s; sim %llu ns, model "
				"%llu ns)\n", label, cls[c], k, 100 * e[k / 2],
				100 * e[(size_t)((double)(k - 1) * 0.99)], 100 * wv, t[worst].step,
				t[worst].what, (unsigned long long)t[worst].ns[SB_SIM],
				(unsigned long long)t[worst].ns[SB_MODEL]);
		}
		free(e);
	}
	return over;
}

static const uint32_t ctrl_reset =
	(ABB_CTRL_RESET_CODE & ABB_CTRL_RESET) | ABB_CTRL_V | ABB_CTRL_BAR;

/* GCR.SOFT_RESET on both and clean host buffers: both devices start from
 * the same state. */
static void same_start(struct sb *s, const char *sim_opts)
{
	s->strict = sim_opts && strstr(sim_opts, "strict=1") != NULL;
	for (int d = 0; d < SB_NDEV; d++) {
		wr(s, d, ABB_REG_GCR, ABB_GCR_SOFT_RESET);
		settle_dev(s, d, 20000);
		memset(s->host[d], 0, s->host_len);
	}
}

/* Both do the reset alone: what a channel reset leaves (STA, ISR, GER) is
 * compared as it is. */
void sb_chan_reset(struct sb *s, int chn)
{
	uint32_t b = chn == (int)ABB_CH_C2H ? ABB_BLK_C2H : ABB_BLK_H2C;

	sb_reg_write(s, b + ABB_CH_CTRL, ctrl_reset);
	sb_settle(s, 20000);
}

int sb_open(struct sb *s, const char *sim_opts, const char *model_opts, size_t host_len)
{
	const char *opts[SB_NDEV] = {sim_opts, model_opts};
	char uri[512];
	int rc = 0;

	s->host_len = (host_len + 4095) & ~(size_t)4095;
	s->desc_len = 2 * 4096;
	s->mismatches = 0;
	s->step = 0;
	s->what[0] = 0;
	s->trace = getenv("ABB_SB_TRACE") && atoi(getenv("ABB_SB_TRACE")) > 0;
	for (int d = 0; d < SB_NDEV; d++) {
		size_t mem = 0;

		s->dev[d] = NULL;
		s->buf[d] = s->dbuf[d] = NULL;
		s->host[d] = pages(s->host_len);
		s->desc[d] = pages(s->desc_len);
		if (!s->host[d] || !s->desc[d]) {
			rc = -ENOMEM;
			break;
		}
		snprintf(uri, sizeof uri, "%s%s%s", dev_name[d], opts[d] && *opts[d] ? ":" : "",
			 opts[d] ? opts[d] : "");
		rc = abb_open(&s->dev[d], uri);
		if (rc) {
			fprintf(OUT(s), "scoreboard: abb_open(\"%s\"): %s\n", uri, abb_last_error());
			s->dev[d] = NULL;
			break;
		}
		rc = abb_mem_size(s->dev[d], &mem);
		if (!rc)
			rc = abb_dmabuf_map(s->dev[d], s->host[d], s->host_len, &s->buf[d]);
		if (!rc)
			rc = abb_dmabuf_map(s->dev[d], s->desc[d], s->desc_len, &s->dbuf[d]);
		if (rc) {
			fprintf(OUT(s), "scoreboard: %s: %s\n", uri, abb_last_error());
			break;
		}
		if (d == SB_MODEL) {
			uint64_t c;

			s->timed = abb_sim_cycles(s->dev[d], &c) == 0;
		}
		if (d == SB_SIM)
			s->mem_size = mem;
		else if (mem != s->mem_size) {
			fprintf(OUT(s), "scoreboard: BAR1 sizes differ: sim %zu, model %zu\n",
				s->mem_size, mem);
			rc = -EINVAL;
			break;
		}
	}
	if (!rc)
		same_start(s, sim_opts);
	if (rc)
		sb_close(s);
	return rc;
}

void sb_close(struct sb *s)
{
	for (int d = 0; d < SB_NDEV; d++) {
		if (s->buf[d] && abb_dmabuf_unmap(s->buf[d]))
			fprintf(OUT(s), "scoreboard: unmap: %s\n", abb_last_error());
		if (s->dbuf[d] && abb_dmabuf_unmap(s->dbuf[d]))
			fprintf(OUT(s), "scoreboard: unmap: %s\n", abb_last_error());
		s->buf[d] = s->dbuf[d] = NULL;
		abb_close(s->dev[d]);
		s->dev[d] = NULL;
		free(s->host[d]);
		free(s->desc[d]);
		s->host[d] = s->desc[d] = NULL;
	}
	free(s->times);
	s->times = NULL;
	s->ntimes = s->cap_times = 0;
}

static uint32_t rd(struct sb *s, int d, uint32_t off)
{
	uint32_t v = 0xdeadbeef;

	if (abb_reg_read(s->dev[d], off, &v))
		mismatch(s, "%s: reading 0x%x: %s", dev_name[d], off, abb_last_error());
	return v;
}

static void wr(struct sb *s, int d, uint32_t off, uint32_t val)
{
	if (abb_reg_write(s->dev[d], off, val))
		mismatch(s, "%s: writing 0x%x: %s", dev_name[d], off, abb_last_error());
}

void sb_reg_write(struct sb *s, uint32_t off, uint32_t val)
{
	for (int d = 0; d < SB_NDEV; d++)
		wr(s, d, off, val);
}

void sb_board_fill(struct sb *s, uint32_t off, size_t len, uint32_t seed)
{
	uint8_t *p = malloc(len);

	if (!p)
		return;
	fill(p, len, seed);
	for (int d = 0; d < SB_NDEV; d++)
		if (abb_mem_write(s->dev[d], off, p, len))
			mismatch(s, "%s: BAR1 write: %s", dev_name[d], abb_last_error());
	free(p);
}

void sb_host_fill(struct sb *s, size_t off, size_t len, uint32_t seed)
{
	fill(s->host[SB_SIM] + off, len, seed);
	memcpy(s->host[SB_MODEL] + off, s->host[SB_SIM] + off, len);
}

static void same_rc(struct sb *s, const char *what, const int *rc, char msg[][160])
{
	if (rc[SB_SIM] != rc[SB_MODEL])
		mismatch(s, "%s returns: sim %d (%s), model %d (%s)", what, rc[SB_SIM],
			 msg[SB_SIM], rc[SB_MODEL], msg[SB_MODEL]);
}

/* After an interrupt-driven libabb call: the IER bits of the call's own
 * sources must agree (cleared: the acknowledge); the others are host
 * software state that depends on timing (a wait by interrupt acknowledges
 * other pending sources before it sleeps, and on the untimed model it never
 * sleeps), so the model takes the simulator's value for them. */
static void ier_sync(struct sb *s, uint32_t own)
{
	uint32_t a = rd(s, SB_SIM, ABB_REG_IER), b = rd(s, SB_MODEL, ABB_REG_IER);

	if ((a ^ b) & own)
		mismatch(s, "IER bits 0x%x after the call: sim 0x%08x, model 0x%08x", own, a, b);
	else if (a != b)
		wr(s, SB_MODEL, ABB_REG_IER, a);
}

int sb_dma(struct sb *s, int dir, size_t off, uint32_t board, size_t len, unsigned flags)
{
	int rc[SB_NDEV];
	char msg[SB_NDEV][160];
	uint64_t t0[SB_NDEV], t1[SB_NDEV];

	for (int d = 0; d < SB_NDEV; d++) {
		t0[d] = dev_now(s, d);
		rc[d] = dir ? abb_dma_write(s->dev[d], s->buf[d], off, board, len, flags) :
			      abb_dma_read(s->dev[d], s->buf[d], off, board, len, flags);
		snprintf(msg[d], sizeof msg[d], "%s", rc[d] ? abb_last_error() : "");
		t1[d] = dev_now(s, d);
	}
	same_rc(s, dir ? "abb_dma_write" : "abb_dma_read", rc, msg);
	time_add(s, t0, t1, len, 0);
	if (flags & ABB_DMA_IRQ)
		ier_sync(s, dir ? ABB_ISR_H2C : ABB_ISR_C2H);
	return rc[SB_SIM];
}

int sb_dma_pair(struct sb *s, size_t roff, uint32_t rboard, size_t rlen, unsigned rflags,
		size_t woff, uint32_t wboard, size_t wlen, unsigned wflags)
{
	int rr[SB_NDEV], rw[SB_NDEV];
	char mr[SB_NDEV][160], mw[SB_NDEV][160];
	uint64_t t0[SB_NDEV], tr[SB_NDEV], t1[SB_NDEV];

	for (int d = 0; d < SB_NDEV; d++) {
		abb_dev *dev = s->dev[d];
		int sr;

		t0[d] = dev_now(s, d);
		sr = abb_dma_read_start(dev, s->buf[d], roff, rboard, rlen, rflags);
		int sw = sr ? sr : abb_dma_write_start(dev, s->buf[d], woff, wboard, wlen, wflags);

		rr[d] = sr ? sr : abb_dma_read_wait(dev, ABB_WAIT_FOREVER);
		snprintf(mr[d], sizeof mr[d], "%s", rr[d] ? abb_last_error() : "");
		tr[d] = dev_now(s, d);
		rw[d] = sw ? sw : abb_dma_write_wait(dev, ABB_WAIT_FOREVER);
		snprintf(mw[d], sizeof mw[d], "%s", rw[d] ? abb_last_error() : "");
		t1[d] = dev_now(s, d);
	}
	/* the pair's end, and the read's own end: which channel the TX arbiter
	 * lets go first shows in the second only (the later end is the link's) */
	time_add(s, t0, t1, rlen > wlen ? rlen : wlen, 1);
	struct sb_time *rt = time_add(s, t0, tr, rlen, 1);
	if (rt)
		snprintf(rt->what, sizeof rt->what, "%.*s (the read's end)", (int)sizeof rt->what - 20,
			 s->what);
	same_rc(s, "concurrent abb_dma_read", rr, mr);
	same_rc(s, "concurrent abb_dma_write", rw, mw);
	if ((rflags | wflags) & ABB_DMA_IRQ)
		ier_sync(s, ((rflags & ABB_DMA_IRQ) ? ABB_ISR_C2H : 0) |
				    ((wflags & ABB_DMA_IRQ) ? ABB_ISR_H2C : 0));
	return rr[SB_SIM] ? rr[SB_SIM] : rw[SB_SIM];
}

int sb_irq_wait(struct sb *s, unsigned source, int64_t timeout_ns)
{
	int rc[SB_NDEV];
	char msg[SB_NDEV][160];
	uint64_t t0[SB_NDEV], t1[SB_NDEV];

	for (int d = 0; d < SB_NDEV; d++) {
		t0[d] = dev_now(s, d);
		rc[d] = abb_irq_wait(s->dev[d], source, timeout_ns);
		snprintf(msg[d], sizeof msg[d], "%s", rc[d] < 0 ? abb_last_error() : "");
		t1[d] = dev_now(s, d);
	}
	time_add(s, t0, t1, 0, 0);
	same_rc(s, "abb_irq_wait", rc, msg);
	ier_sync(s, source & 7);
	return rc[SB_SIM];
}

uint64_t sb_iova(struct sb *s, int d, int desc, size_t off)
{
	const abb_dmabuf *b = desc ? s->dbuf[d] : s->buf[d];
	uint64_t addr, len;
	size_t n = 0;

	if (abb_dmabuf_pieces(b, &n))
		return ~0ull;
	for (size_t i = 0; i < n; i++) {
		if (abb_dmabuf_piece(b, i, &addr, &len))
			return ~0ull;
		if (off < len)
			return addr + off;
		off -= len;
	}
	return ~0ull;
}

static uint32_t blk(int chn)
{
	return chn == (int)ABB_CH_C2H ? ABB_BLK_C2H : ABB_BLK_H2C;
}

/* Device d has device time: the simulator, and the model when timed. */
static bool dev_timed(const struct sb *s, int d)
{
	return d == SB_SIM || s->timed;
}

/* Device d (one with device time) until both channels are idle. */
static void settle_dev(struct sb *s, int d, int64_t max_ns)
{
	if (!dev_timed(s, d))
		return;
	for (int64_t t = 0; t <= max_ns; t += 1000) {
		uint32_t gsr = rd(s, d, ABB_REG_GSR);

		if (!(gsr & (ABB_GSR_C2H_BUSY | ABB_GSR_H2C_BUSY)))
			return;
		if (abb_sim_advance(s->dev[d], 1000))
			return;
	}
}

void sb_settle(struct sb *s, int64_t max_ns)
{
	for (int d = 0; d < SB_NDEV; d++)
		settle_dev(s, d, max_ns);
}

void sb_idle(struct sb *s, int64_t ns)
{
	for (int d = 0; d < SB_NDEV; d++) {
		if (!dev_timed(s, d))
			continue;
		int rc = abb_sim_advance(s->dev[d], ns);

		if (rc)
			mismatch(s, "%s: abb_sim_advance(%lld ns) failed: %d",
				 d == SB_SIM ? "sim" : "model", (long long)ns, rc);
	}
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void sb_chain(struct sb *s, int chn, unsigned n, const size_t *hoff, const uint32_t *board,
	      const uint32_t *len, const uint32_t *upa, uint32_t ctrl_extra, int reset)
{
	uint32_t b = blk(chn);

	if (n == 0 || n > 120)
		return;
	if (reset)
		sb_chan_reset(s, chn);
	if (s->trace)
		for (unsigned i = 0; i < n; i++)
			fprintf(OUT(s), "    piece %u: host+0x%zx board %s0x%x len %u\n", i, hoff[i],
				i == 0 || upa[i] ? "" : "(continued) ", board[i], len[i]);
	uint64_t t0[SB_NDEV], t1[SB_NDEV];
	size_t total = 0;

	for (unsigned i = 0; i < n; i++)
		total += len[i];
	for (int d = 0; d < SB_NDEV; d++) {
		uint32_t first[SB_DESC_WORDS] = {0};

		t0[d] = dev_now(s, d);

		for (unsigned i = 0; i < n; i++) {
			uint32_t w[SB_DESC_WORDS];
			uint64_t ha = sb_iova(s, d, 0, hoff[i]);
			uint64_t next = sb_iova(s, d, 1, (size_t)(i + 1) * ABB_DESC_BYTES);

			w[SB_DW(PAH)] = 0;
			w[SB_DW(PAL)] = board[i];
			w[SB_DW(HAH)] = (uint32_t)(ha >> 32);
			w[SB_DW(HAL)] = (uint32_t)ha;
			w[SB_DW(BDAH)] = i + 1 < n ? (uint32_t)(next >> 32) : 0;
			w[SB_DW(BDAL)] = i + 1 < n ? (uint32_t)next : 0;
			w[SB_DW(LENG)] = len[i];
			w[SB_DW(CTRL)] = ABB_CTRL_V | ABB_CTRL_BAR | ctrl_extra |
					 (i == 0 || upa[i] ? ABB_CTRL_UPA : 0) |
					 (i + 1 == n ? ABB_CTRL_LAST : 0);
			if (i == 0) {
				memcpy(first, w, sizeof first);
			} else {
				uint8_t *p = s->desc[d] + (size_t)i * ABB_DESC_BYTES;

				for (int j = 0; j < SB_DESC_WORDS; j++)
					put_le32(p + 4 * j, w[j]);
			}
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		for (int j = 0; j < SB_DESC_WORDS; j++)
			wr(s, d, b + 4u * (unsigned)j, first[j]);
	}
	for (int d = 0; d < SB_NDEV; d++) {
		settle_dev(s, d, 2000000);
		t1[d] = dev_now(s, d);
	}
	time_add(s, t0, t1, total, 0);
}

void sb_raw_start(struct sb *s, int chn, uint32_t pal, size_t hoff, uint64_t raw_ha, uint32_t len,
		  uint32_t ctrl)
{
	uint32_t b = blk(chn);

	for (int d = 0; d < SB_NDEV; d++) {
		uint64_t ha = raw_ha != SB_HOST_OFF ? raw_ha : sb_iova(s, d, 0, hoff);

		wr(s, d, b + ABB_CH_PAH, 0);
		wr(s, d, b + ABB_CH_PAL, pal);
		wr(s, d, b + ABB_CH_HAH, (uint32_t)(ha >> 32));
		wr(s, d, b + ABB_CH_HAL, (uint32_t)ha);
		wr(s, d, b + ABB_CH_BDAH, 0);
		wr(s, d, b + ABB_CH_BDAL, 0);
		wr(s, d, b + ABB_CH_LENG, len);
		wr(s, d, b + ABB_CH_CTRL, ctrl);
	}
	sb_settle(s, 200000);
}

void sb_chain_bad(struct sb *s, int chn, int kind, size_t hoff, uint32_t board, uint32_t len,
		  uint32_t ctrl_extra)
{
	uint32_t b = blk(chn);

	sb_chan_reset(s, chn);
	for (int d = 0; d < SB_NDEV; d++) {
		uint64_t ha = sb_iova(s, d, 0, hoff);
		uint64_t next = sb_iova(s, d, 1, ABB_DESC_BYTES);
		uint32_t w[SB_DESC_WORDS];
		uint8_t *p = s->desc[d] + ABB_DESC_BYTES;

		if (kind == 0)
			next += 4; /* misaligned */
		else if (kind == 1)
			next = 0xdead00000000ull; /* mapped on neither */
		/* the second descriptor: right after the first on the board */
		w[SB_DW(PAH)] = 0;
		w[SB_DW(PAL)] = board + len;
		w[SB_DW(HAH)] = (uint32_t)(ha >> 32);
		w[SB_DW(HAL)] = (uint32_t)ha;
		w[SB_DW(BDAH)] = 0;
		w[SB_DW(BDAL)] = 0;
		w[SB_DW(LENG)] = kind == 2 ? 0 : len;
		w[SB_DW(CTRL)] = (kind == 3 ? 0 : ABB_CTRL_V) | ABB_CTRL_BAR | ABB_CTRL_LAST | ctrl_extra;
		for (int j = 0; j < SB_DESC_WORDS; j++)
			put_le32(p + 4 * j, w[j]);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		wr(s, d, b + ABB_CH_PAH, 0);
		wr(s, d, b + ABB_CH_PAL, board);
		wr(s, d, b + ABB_CH_HAH, (uint32_t)(ha >> 32));
		wr(s, d, b + ABB_CH_HAL, (uint32_t)ha);
		wr(s, d, b + ABB_CH_BDAH, (uint32_t)(next >> 32));
		wr(s, d, b + ABB_CH_BDAL, (uint32_t)next);
		wr(s, d, b + ABB_CH_LENG, len);
		wr(s, d, b + ABB_CH_CTRL, ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_UPA | ctrl_extra);
	}
	sb_settle(s, 200000);
}

unsigned sb_check_reg(struct sb *s, uint32_t off, const char *name)
{
	uint32_t a = rd(s, SB_SIM, off), b = rd(s, SB_MODEL, off);

	if (a == b)
		return 0;
	mismatch(s, "%s (0x%03x): sim 0x%08x, model 0x%08x", name, off, a, b);
	return 1;
}

static unsigned same_bytes(struct sb *s, const char *what, const uint8_t *a, const uint8_t *b,
			   size_t n, size_t base)
{
	size_t i, first, cnt = 0;

	if (!memcmp(a, b, n))
		return 0;
	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	first = i;
	for (; i < n; i++)
		cnt += a[i] != b[i];
	mismatch(s, "%s differs at 0x%zx (%zu bytes differ): sim %02x %02x %02x %02x, model "
		 "%02x %02x %02x %02x", what, base + first, cnt, a[first],
		 first + 1 < n ? a[first + 1] : 0, first + 2 < n ? a[first + 2] : 0,
		 first + 3 < n ? a[first + 3] : 0, b[first], first + 1 < n ? b[first + 1] : 0,
		 first + 2 < n ? b[first + 2] : 0, first + 3 < n ? b[first + 3] : 0);
	return 1;
}

unsigned sb_check(struct sb *s, uint32_t board_lo, uint32_t board_hi)
{
	unsigned before = s->mismatches;

	sb_check_reg(s, ABB_BLK_C2H + ABB_CH_STA, "STA(DMA read)");
	sb_check_reg(s, ABB_BLK_H2C + ABB_CH_STA, "STA(DMA write)");
	sb_check_reg(s, ABB_REG_GER, "GER");
	sb_check_reg(s, ABB_REG_ISR, "ISR");
	sb_check_reg(s, ABB_REG_IER, "IER");
	same_bytes(s, "host memory", s->host[SB_SIM], s->host[SB_MODEL], s->host_len, 0);
	if (board_hi > s->mem_size)
		board_hi = (uint32_t)s->mem_size;
	if (board_lo < board_hi) {
		size_t n = board_hi - board_lo;
		uint8_t *a = malloc(n), *b = malloc(n);

		if (a && b && !abb_mem_read(s->dev[SB_SIM], board_lo, a, n) &&
		    !abb_mem_read(s->dev[SB_MODEL], board_lo, b, n))
			same_bytes(s, "board memory", a, b, n, board_lo);
		free(a);
		free(b);
	}
	return s->mismatches - before;
}
