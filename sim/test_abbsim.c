/*
 * test_abbsim.c - self-test of libabbsim against the RTL (make sim-test):
 * config space and enumeration, PIO, DMA in both directions through the
 * IOMMU (contiguous and scattered IOVAs, reordered completions), faults,
 * determinism of cycle counts, and the simulation speed of a 4 MiB
 * transfer. Prints one line per check; exit status 0 when all pass.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abbsim.h"
#include <abb/abb_regs.h>

static int failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			failures++;                                        \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
			printf(__VA_ARGS__);                               \
			printf(" [%s]\n", abbsim_last_error());            \
		}                                                          \
	} while (0)

enum { C2H = ABB_BLK_C2H, H2C = ABB_BLK_H2C, ISR = ABB_REG_ISR, IER = ABB_REG_IER, GER = ABB_REG_GER };
enum { PAH = ABB_CH_PAH, PAL = ABB_CH_PAL, HAH = ABB_CH_HAH, HAL = ABB_CH_HAL, BDAH = ABB_CH_BDAH,
       BDAL = ABB_CH_BDAL, LENG = ABB_CH_LENG, CTRL = ABB_CH_CTRL, STA = ABB_CH_STA };
#define CTRL_GO (ABB_CTRL_INC | ABB_CTRL_BAR | ABB_CTRL_UPA | ABB_CTRL_LAST | ABB_CTRL_V | ABB_CTRL_EDI)
#define ID_WORD (ABB_DEVICE_ID << 16 | ABB_VENDOR_ID) /* config dword 0 */

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wr(uint32_t off, uint32_t v)
{
	int rc = abbsim_mmio_write(0, off, &v, 4);
	CHECK(rc == 0, "mmio_write 0x%x", off);
}

static uint32_t rd(uint32_t off)
{
	uint32_t v = 0;
	int rc = abbsim_mmio_read(0, off, &v, 4);
	CHECK(rc == 0, "mmio_read 0x%x", off);
	return v;
}

static int open_with(struct abbsim_params *p)
{
	int rc = abbsim_open(p, NULL);
	CHECK(rc == 0, "open");
	return rc;
}

/* One DMA of len bytes between board address board and the first IOVA
 * segment of a mapped buffer; chain of descriptors when the buffer is
 * scattered (descriptors in a separately mapped list). Returns STA. */
static uint32_t dma(unsigned ch, uint32_t board, void *buf, size_t len, uint64_t *cycles)
{
	size_t maxs = abbsim_iommu_max_segs(buf, len);
	struct abbsim_seg *segs = calloc(maxs, sizeof *segs);
	int n = abbsim_iommu_map(buf, len, segs, maxs);
	CHECK(n >= 1, "iommu_map %zu bytes", len);
	uint32_t *desc = NULL;
	struct abbsim_seg dseg = {0, 0};
	if (n > 1) {
		/* descriptor list: 8 words per descriptor, 64-byte aligned */
		if (posix_memalign((void **)&desc, 4096, (size_t)n * ABB_DESC_ALIGN))
			abort();
		memset(desc, 0, (size_t)n * ABB_DESC_ALIGN);
		int m = abbsim_iommu_map(desc, (size_t)n * ABB_DESC_ALIGN, &dseg, 1);
		CHECK(m == 1, "map descriptors");
		uint32_t pa = board;
		for (int i = 1; i < n; i++) {
			uint32_t *d = desc + ABB_DESC_ALIGN / 4 * (i - 1);
			uint64_t next = i + 1 < n ? dseg.iova + (uint64_t)ABB_DESC_ALIGN * i : 0;
			pa += (uint32_t)segs[i - 1].len;
			/* descriptor words in the order of the channel registers */
			d[PAH / 4] = 0;
			d[PAL / 4] = pa;
			d[HAH / 4] = (uint32_t)(segs[i].iova >> 32);
			d[HAL / 4] = (uint32_t)segs[i].iova;
			d[BDAH / 4] = (uint32_t)(next >> 32);
			d[BDAL / 4] = (uint32_t)next;
			d[LENG / 4] = (uint32_t)segs[i].len;
			d[CTRL / 4] = ABB_CTRL_INC | ABB_CTRL_BAR | ABB_CTRL_V |
				      (i + 1 == n ? ABB_CTRL_LAST | ABB_CTRL_EDI : 0);
		}
	}
	uint32_t base = ch ? C2H : H2C;
	wr(IER, rd(IER) | (ch ? ABB_IER_C2H : ABB_IER_H2C));
	uint64_t seen = abbsim_irq_count();
	uint64_t c0 = abbsim_cycles();
	wr(base + PAH, 0);
	wr(base + PAL, board);
	wr(base + HAH, (uint32_t)(segs[0].iova >> 32));
	wr(base + HAL, (uint32_t)segs[0].iova);
	wr(base + BDAH, (uint32_t)(n > 1 ? dseg.iova >> 32 : 0));
	wr(base + BDAL, (uint32_t)(n > 1 ? dseg.iova : 0));
	wr(base + LENG, (uint32_t)segs[0].len);
	wr(base + CTRL, n > 1 ? CTRL_GO & ~(ABB_CTRL_LAST | ABB_CTRL_EDI) : CTRL_GO);
	int rc = abbsim_wait_irq(&seen, 1000000000);
	CHECK(rc == 0, "wait_irq after DMA ch %u len %zu", ch, len);
	if (cycles)
		*cycles = abbsim_cycles() - c0;
	CHECK(abbsim_intx_asserted() == 1, "INTx not asserted after the interrupt of ch %u", ch);
	uint32_t sta = rd(base + STA);
	wr(ISR, ch ? ABB_ISR_C2H : ABB_ISR_H2C);
	rd(ISR); /* the write landed; the Deassert_INTA is on its way */
	abbsim_advance(1000);
	CHECK(abbsim_intx_asserted() == 0, "INTx still asserted after ISR of ch %u was cleared", ch);
	abbsim_iommu_unmap(buf);
	if (desc) {
		abbsim_iommu_unmap(desc);
		free(desc);
	}
	free(segs);
	return sta;
}

static void test_cfg(void)
{
	uint32_t v;
	CHECK(abbsim_cfg_read(0, 4, &v) == 0 && v == ID_WORD, "vendor/device 0x%08x", v);
	CHECK(abbsim_cfg_read(8, 4, &v) == 0 && (v >> 8) == 0x118000, "class 0x%08x", v);
	uint32_t bar0;
	abbsim_cfg_read(0x10, 4, &bar0);
	CHECK(bar0 == 0xf0000000, "BAR0 0x%08x", bar0);
	abbsim_cfg_write(0x10, 4, 0xffffffff);
	abbsim_cfg_read(0x10, 4, &v);
	CHECK(v == 0xffff0000, "BAR0 sizing 0x%08x", v);
	abbsim_cfg_write(0x10, 4, bar0);
	abbsim_cfg_read(0x14, 4, &v);
	CHECK(v == 0xf0100000, "BAR1 0x%08x", v);
	abbsim_cfg_read(0x04, 2, &v);
	CHECK((v & 6) == 6, "command 0x%04x", v);
	/* legacy INTx by default: Interrupt Pin INTA, no MSI capability (PM
	 * points at PCI Express), Interrupt Disable clear */
	abbsim_cfg_read(0x3d, 1, &v);
	CHECK(v == 1, "Interrupt Pin %u", v);
	abbsim_cfg_read(0x41, 1, &v);
	CHECK(v == 0x70, "PM next capability 0x%02x (no MSI)", v);
	abbsim_cfg_read(0x04, 2, &v);
	CHECK((v & 0x400) == 0, "command 0x%04x: Interrupt Disable set", v);
	abbsim_cfg_read(0x78, 2, &v);
	CHECK(((v >> 5) & 7) == 0 && ((v >> 12) & 7) == 2, "DevCtl 0x%04x", v);
	CHECK(abbsim_cfg_dump("/tmp/abbsim_cfg.txt") == 0, "cfg_dump");
	CHECK(abbsim_cfg_read(1, 2, &v) == -EINVAL, "misaligned cfg read rejected");
	printf("ok   config space\n");
}

static void test_pio(void)
{
	CHECK(rd(ABB_REG_VERSION) == ABB_VERSION_ID, "VERSION");
	CHECK(rd(ABB_REG_DIAG_ID) == ABB_REG_DIAG_ID_RESET, "DIAG_ID");
	uint8_t out[300], in[300];
	for (int i = 0; i < 300; i++)
		out[i] = (uint8_t)(i * 7 + 1);
	CHECK(abbsim_mmio_write(1, 0x103, out, sizeof out) == 0, "PIO write BAR1");
	memset(in, 0, sizeof in);
	CHECK(abbsim_mmio_read(1, 0x103, in, sizeof in) == 0, "PIO read BAR1");
	CHECK(!memcmp(in, out, sizeof in), "BAR1 PIO data");
	uint8_t b = 0;
	CHECK(abbsim_mmio_read(1, 0x104, &b, 1) == 0 && b == out[1], "1-byte PIO read %02x", b);
	CHECK(abbsim_mmio_read(2, 0, in, 4) == -EINVAL, "bad BAR rejected");
	CHECK(abbsim_mmio_read(0, 0x10000, in, 4) == -EINVAL, "out of BAR rejected");
	printf("ok   PIO\n");
}

static void round_trip(size_t len, const char *what, uint64_t *cyc_h2c, uint64_t *cyc_c2h)
{
	/* page-aligned plus a fixed offset, so runs see the same IOVAs */
	uint8_t *src0, *dst0;
	if (posix_memalign((void **)&src0, 4096, len + 4096) || posix_memalign((void **)&dst0, 4096, len + 4096))
		abort();
	uint8_t *src = src0 + 64, *dst = dst0 + 128;
	for (size_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, len);
	uint32_t s1 = dma(0, 0, src, len, cyc_h2c);
	CHECK(s1 == ABB_STA_DONE, "%s H2C status %x", what, s1);
	uint32_t s2 = dma(1, 0, dst, len, cyc_c2h);
	CHECK(s2 == ABB_STA_DONE, "%s C2H status %x", what, s2);
	CHECK(!memcmp(src, dst, len), "%s data", what);
	free(src0);
	free(dst0);
}

/* abbsim_poll_reg against the host loop it stands for (read, test,
 * deadline, pause by abbsim_advance): the same number of reads and the
 * same device time at the end, on a register that never leaves the busy
 * value (VERSION) until the deadline; then one that matches at once, and
 * bad arguments. */
static void test_poll_reg(void)
{
	struct abbsim_poll q = {.bar = 0, .off = ABB_REG_VERSION, .mask = ~0u, .busy = ABB_VERSION_ID,
				.first_ns = 3000, .spin = 8, .nap_div = 4, .nap_min_ns = 1000,
				.nap_max_ns = 20000};
	uint64_t start = abbsim_now_ps() / 1000, reads = 0, host_reads = 0, nap = q.nap_min_ns;
	uint32_t v = 0;
	q.deadline_ns = start + 200000;
	CHECK(abbsim_poll_reg(&q, &v, &reads) == -ETIMEDOUT && v == ABB_VERSION_ID, "poll_reg timeout");
	uint64_t t_poll = abbsim_now_ps() - start * 1000;
	/* the host loop, from the same point in device time relative to start */
	start = abbsim_now_ps() / 1000;
	uint64_t dl = start + 200000;
	abbsim_advance((int64_t)q.first_ns);
	for (;;) {
		v = rd(ABB_REG_VERSION);
		host_reads++;
		if (v != ABB_VERSION_ID)
			break;
		uint64_t now = abbsim_now_ps() / 1000;
		if (now >= dl)
			break;
		if (host_reads > q.spin) {
			abbsim_advance((int64_t)(dl - now < nap ? dl - now : nap));
			nap += nap / q.nap_div;
			if (nap > q.nap_max_ns)
				nap = q.nap_max_ns;
		}
	}
	uint64_t t_host = abbsim_now_ps() - start * 1000;
	CHECK(reads == host_reads && t_poll == t_host, "poll_reg %" PRIu64 " reads in %" PRIu64
	      " ps, the host loop %" PRIu64 " in %" PRIu64 " ps", reads, t_poll, host_reads, t_host);
	q.busy = 0;
	q.first_ns = 0;
	q.deadline_ns = UINT64_MAX;
	CHECK(abbsim_poll_reg(&q, &v, &reads) == 0 && reads == 1 && v == ABB_VERSION_ID,
	      "poll_reg done at the first read (%" PRIu64 " reads)", reads);
	CHECK(abbsim_poll_reg(NULL, &v, &reads) == -EINVAL, "poll_reg NULL rejected");
	q.off = 2;
	CHECK(abbsim_poll_reg(&q, &v, &reads) == -EINVAL, "poll_reg unaligned offset rejected");
	q.off = 0x10000;
	CHECK(abbsim_poll_reg(&q, &v, &reads) == -EINVAL, "poll_reg offset outside BAR0 rejected");
	q.off = ABB_REG_VERSION;
	q.nap_max_ns = 10;
	CHECK(abbsim_poll_reg(&q, &v, &reads) == -EINVAL, "poll_reg nap_max below nap_min rejected");
	printf("ok   poll_reg: %" PRIu64 " reads as the host loop's, same device time\n", host_reads);
}

static void test_time_and_errors(void)
{
	/* advance: idle cycles are skipped, the count still exact */
	uint64_t c0 = abbsim_cycles(), t0 = abbsim_now_ps();
	double w0 = wall();
	CHECK(abbsim_advance(10000000) == 0, "advance 10 ms");
	CHECK(abbsim_now_ps() - t0 == 10000000000ull, "advance time %" PRIu64, abbsim_now_ps() - t0);
	CHECK(abbsim_cycles() - c0 == 1250000, "advance cycles %" PRIu64, abbsim_cycles() - c0);
	/* idle skipping: a figure of the host, printed, not checked (no test
	 * asserts a wall-clock time; the cycle count above is the check) */
	printf("     10 ms of idle device time in %.3f s of wall-clock time\n", wall() - w0);
	/* the RTL's own cycle counter agrees (skip_cycles_i) */
	uint32_t lo = rd(ABB_REG_DIAG_CYC_LO);
	uint64_t now = abbsim_cycles();
	CHECK(lo + 1000 > (uint32_t)now && lo <= (uint32_t)now + 100, "DIAG_CYC %u vs %" PRIu64, lo, now);
	/* wait_irq times out in device time */
	uint64_t seen = abbsim_irq_count();
	t0 = abbsim_now_ps();
	CHECK(abbsim_wait_irq(&seen, 5000) == -ETIMEDOUT, "wait_irq timeout");
	CHECK(abbsim_now_ps() - t0 == 5000000, "wait_irq timeout time %" PRIu64, abbsim_now_ps() - t0);
	/* memory space off: the hard IP answers UR, the read fails with all-ones */
	uint32_t cmd, v = 0;
	abbsim_cfg_read(4, 2, &cmd);
	abbsim_cfg_write(4, 2, cmd & ~2u);
	CHECK(abbsim_mmio_read(0, ABB_REG_VERSION, &v, 4) == -EIO && v == 0xffffffff, "UR read 0x%08x", v);
	abbsim_cfg_write(4, 2, cmd);
	CHECK(rd(ABB_REG_VERSION) == ABB_VERSION_ID, "VERSION after re-enable");
	/* wait_idle */
	CHECK(abbsim_wait_idle(1000000) == 0, "wait_idle");
	test_poll_reg();
	/* the parameter check (parsing is libabb's option table: its suites) */
	struct abbsim_params q;
	abbsim_params_default(&q);
	q.gen = 4;
	CHECK(abbsim_params_check(&q) == -EINVAL && strstr(abbsim_last_error(), "gen 4"),
	      "gen 4 rejected");
	abbsim_params_default(&q);
	q.credits_down.pd = 4;
	CHECK(abbsim_params_check(&q) == -EINVAL && strstr(abbsim_last_error(), "deadlock"),
	      "pd=4 below one posted TLP rejected");
	abbsim_params_default(&q);
	q.credits_down.cpld = 2;
	CHECK(abbsim_params_check(&q) == -EINVAL, "down.cpld=2 below one completion rejected");
	q.credits_down.cpld = 0;
	CHECK(abbsim_params_check(&q) == 0, "the defaults with cpld infinite accepted");
	struct abbsim_params g;
	CHECK(abbsim_get_params(&g) == 0 && g.mps == 128 && g.mrrs == 512 && g.cpl_rcb == 1,
	      "get_params");
	abbsim_params_default(&q);
	CHECK(abbsim_open(&q, NULL) == -EBUSY, "second open is -EBUSY");
	printf("ok   time, timeouts, UR, parameters\n");
}

/* The CPU store model's WC shapes against the RTL's board memory (the
 * RTL's assertions as the library was built): full lines in descending
 * address order (one 16-DW write each), partial lines with holes (one
 * write per run of written bytes), byte stores; memory checked byte for
 * byte, the write count from the model's statistics. */
static void test_pio_wc(void)
{
	struct abbsim_params p;
	abbsim_params_default(&p);
	p.pio_wc = 1;
	if (open_with(&p))
		return;
	uint32_t bar1 = 0;
	CHECK(abbsim_cfg_read(0x14, 4, &bar1) == 0 && (bar1 & 0x8), "BAR1 prefetchable with pio_wc (0x%08x)", bar1);
	enum { N = 1024 };
	static uint8_t want[N], got[N], src[N];
	for (unsigned i = 0; i < N; i++) {
		want[i] = (uint8_t)(0xa5 ^ i);
		src[i] = (uint8_t)(i * 13 + 1);
	}
	CHECK(abbsim_mmio_write(1, 0, want, N) == 0, "background fill");
	struct abbsim_pio_stats st;
	abbsim_pio_stats(&st, 1);
	/* lines 7..0 of [0, 512), in descending order, 4-byte stores */
	for (int l = 7; l >= 0; l--)
		CHECK(abbsim_pio_store((uint64_t)l * 64, src + l * 64, 64, 4) == 0, "line %d", l);
	memcpy(want, src, 512);
	abbsim_pio_stats(&st, 0);
	CHECK(st.tlps == 8, "8 full lines: %llu writes (want 8)", (unsigned long long)st.tlps);
	/* line at 512: DWs 0,1 and 3 (hole at DW 2) -> 2 writes after the fence */
	abbsim_pio_stats(&st, 1);
	abbsim_pio_store(512, src + 512, 8, 4);
	abbsim_pio_store(524, src + 524, 4, 4);
	memcpy(want + 512, src + 512, 8);
	memcpy(want + 524, src + 524, 4);
	/* line at 576: bytes 1, 2, 5 (byte stores) -> runs [1,3) and [5,6) */
	abbsim_pio_store(577, src + 577, 2, 1);
	abbsim_pio_store(581, src + 581, 1, 1);
	memcpy(want + 577, src + 577, 2);
	want[581] = src[581];
	/* line at 640: one 32-byte AVX store, upper half */
	abbsim_pio_store(672, src + 672, 32, 32);
	memcpy(want + 672, src + 672, 32);
	CHECK(abbsim_pio_fence() == 0, "fence");
	CHECK(abbsim_mmio_read(1, 0, got, N) == 0, "read back");
	abbsim_pio_stats(&st, 0);
	CHECK(st.tlps == 5, "partial lines: %llu writes (want 2 + 2 + 1)", (unsigned long long)st.tlps);
	/* the 8 full lines reached the board only as time ran (the read) */
	CHECK(st.arrived_tlps == 13, "%llu writes arrived (want 8 + 5)", (unsigned long long)st.arrived_tlps);
	unsigned bad = 0;
	for (unsigned i = 0; i < N; i++)
		if (got[i] != want[i] && (bad++ < 4 || (i % 64) == 0))
			CHECK(0, "byte %u: 0x%02x, want 0x%02x", i, got[i], want[i]);
	CHECK(bad == 0, "WC shapes: %u bytes differ", bad);
	char errs[512];
	CHECK(abbsim_protocol_errors(errs, sizeof errs) == 0, "protocol errors: %s", errs);
	if (!bad)
		printf("ok   WC shapes: descending full lines, holes, byte and 32-byte stores\n");
	abbsim_close();
}

/* A store loop far beyond what the CPU could hold (256 Ki UC byte stores in
 * one call): the call stalls on the store path, letting device time run,
 * instead of scheduling every write at once; the data all lands. */
static void test_pio_backlog(void)
{
	struct abbsim_params p;
	abbsim_params_default(&p);
	if (open_with(&p))
		return;
	enum { N = 256u << 10 };
	static uint8_t src[N], got[N];
	for (unsigned i = 0; i < N; i++)
		src[i] = (uint8_t)(i * 7 + (i >> 9));
	uint64_t t0 = abbsim_now_ps();
	CHECK(abbsim_pio_store(0, src, N, 1) == 0, "256 Ki byte stores");
	uint64_t t1 = abbsim_now_ps();
	CHECK(t1 > t0, "the store call let device time run (%llu ps -> %llu ps)",
	      (unsigned long long)t0, (unsigned long long)t1);
	CHECK(abbsim_mmio_read(1, 0, got, N) == 0, "read back");
	CHECK(memcmp(got, src, N) == 0, "byte stores landed");
	struct abbsim_pio_stats st;
	CHECK(abbsim_pio_stats(&st, 0) == 0 && st.tlps == N && st.arrived_tlps == N,
	      "%llu writes made, %llu arrived (want %u each)", (unsigned long long)st.tlps,
	      (unsigned long long)st.arrived_tlps, N);
	printf("ok   store backlog: the call stalls, %u byte stores land\n", N);
	abbsim_close();
}

int main(void)
{
	struct abbsim_params p;
	abbsim_params_default(&p);
	if (open_with(&p))
		return 1;
	test_cfg();
	test_pio();
	test_time_and_errors();
	abbsim_close();
	test_pio_wc();
	test_pio_backlog();
	if (open_with(&p))
		return 1;
	/* the determinism check below repeats exactly this sequence: open,
	 * PIO, round trip (the link's DLLP and SKP phase depend on every TLP
	 * since the open) */
	/* a waveform needs the RTL model with tracing compiled in: not the one
	 * opened by default (rtl_model.h) */
	CHECK(abbsim_trace_fst("/tmp/abbsim_test.fst", 0, 0) == -ENOTSUP,
	      "trace_fst on the untraced model is -ENOTSUP");
	abbsim_close();
	/* the round trip with the traced model; the determinism check below
	 * repeats it on the untraced one */
	struct abbsim_params pt = p;
	pt.traceable = 1;
	open_with(&pt);
	test_pio();
	remove("/tmp/abbsim_test.fst");
	CHECK(abbsim_trace_fst("/tmp/abbsim_test.fst", abbsim_cycles(), abbsim_cycles() + 3000) == 0,
	      "trace_fst");
	CHECK(abbsim_tlp_log("/tmp/abbsim_test_tlp.log") == 0, "tlp_log");

	uint64_t a1, b1, a2, b2;
	round_trip(65536, "64 KiB", &a1, &b1);
	printf("ok   64 KiB round trip: H2C %" PRIu64 " cycles, C2H %" PRIu64 " cycles\n", a1, b1);
	{
		FILE *f = fopen("/tmp/abbsim_test.fst", "rb");
		long n = -1;
		if (f && !fseek(f, 0, SEEK_END))
			n = ftell(f);
		if (f)
			fclose(f);
		CHECK(n > 1000, "the 3000-cycle window of the traced model wrote an FST (%ld bytes)", n);
	}

	/* determinism: the same run again after a hot reset, on the RTL model
	 * without tracing (the default) */
	abbsim_close();
	open_with(&p);
	test_pio();
	round_trip(65536, "64 KiB again", &a2, &b2);
	CHECK(a1 == a2 && b1 == b2, "cycle counts differ between the traced model and the "
	      "untraced one: %" PRIu64 "/%" PRIu64 " vs %" PRIu64 "/%" PRIu64, a1, b1, a2, b2);
	printf("ok   deterministic cycle counts, the same with and without tracing compiled in\n");

	/* unmapped host address: faults, no write outside */
	{
		uint32_t sta;
		wr(IER, ABB_IER_C2H);
		wr(C2H + PAH, 0);
		wr(C2H + PAL, 0);
		wr(C2H + HAH, 0);
		wr(C2H + HAL, 0x20000000);
		wr(C2H + BDAH, 0);
		wr(C2H + BDAL, 0);
		wr(C2H + LENG, 256);
		wr(C2H + CTRL, CTRL_GO);
		uint64_t seen = abbsim_irq_count();
		abbsim_wait_irq(&seen, 100000);
		sta = rd(C2H + STA);
		struct abbsim_fault f[8];
		int nf = abbsim_faults(f, 8);
		CHECK(nf >= 1 && f[0].is_write == 1 && f[0].iova == 0x20000000, "fault record (%d)", nf);
		printf("ok   unmapped C2H: %d faults, STA %x\n", nf, sta);
		wr(ISR, ABB_ISR_C2H);
	}
	abbsim_close();

	/* scattered IOVAs and reordered completions */
	p.iova_scatter = 1;
	p.reorder = 1;
	p.seed = 7;
	p.mps = 256;
	open_with(&p);
	round_trip(3 * 4096 + 100, "scatter+reorder", &a1, &b1);
	printf("ok   scatter + reorder round trip (%" PRIu64 "/%" PRIu64 " cycles)\n", a1, b1);
	abbsim_close();

	/* speed: 4 MiB each way */
	abbsim_params_default(&p);
	p.mem_bytes = 4u << 20;
	open_with(&p);
	size_t len = 4u << 20;
	double t0 = wall();
	round_trip(len, "4 MiB", &a1, &b1);
	double t1 = wall();
	struct abbsim_link_stats up, down;
	abbsim_link_stats(1, &up);
	abbsim_link_stats(0, &down);
	printf("ok   4 MiB round trip in %.2f s wall: H2C %" PRIu64 " cycles (%.0f MB/s), C2H %" PRIu64
	       " cycles (%.0f MB/s); %.2f Mcycles/s\n",
	       t1 - t0, a1, len / (a1 * 8e-3), b1, len / (b1 * 8e-3), (a1 + b1) / (t1 - t0) / 1e6);
	printf("     link up: %" PRIu64 " TLPs %" PRIu64 " payload B; down: %" PRIu64 " TLPs %" PRIu64
	       " payload B\n", up.tlps, up.payload_bytes, down.tlps, down.payload_bytes);
	char errs[2000];
	int ne = abbsim_protocol_errors(errs, sizeof errs);
	CHECK(ne == 0, "protocol errors: %d\n%s", ne, errs);
	abbsim_close();

	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
