/*
 * test_scoreboard.c - the differential suite: the simulator (the RTL)
 * against the reference model (host/lib/ref_model.c), the same programs
 * on both at the same time in this process (tb_scoreboard.h).
 *
 * After every step host memory, the board memory the step touched (BAR1),
 * STA of both channels, GER, ISR and IER must be equal; a mismatch prints
 * the program's seed, the step and both values. Programs: random DMA
 * shapes (sizes, offsets, both channels, one read and one write in flight
 * together, fixed address, polled or by interrupt), hand-built descriptor
 * chains over scattered IOVAs, the interrupt generator and abb_irq_wait,
 * the event source, register side effects in lenient and strict mode
 * (ISR/IER/GER writes, resets, starts without a reset, descriptor and
 * completion errors, GCR.SOFT_RESET).
 *
 * The model is the timed one (model:timed=1 with the simulator's options,
 * host/lib/ref_timing.h): every operation is also timed on both, and each
 * program prints the distribution of the device-time error and fails when
 * an operation is beyond its bound (2 % for a single-channel transfer of
 * 4 KiB or more, 5 % else: tb_scoreboard.h sb_time_bound). One program
 * (test_sb_dma_untimed) runs against the untimed model as well.
 *
 * The suite opens its own two devices ("sim:..." and "model:...") and runs
 * only when $ABB_DEVICE is unset or names the simulator (TB_SIM_TEST); on
 * the board (vfio) and on the model alone its tests are inactive. $ABB_SB_SEED changes the
 * seed of the random programs (default 1); it is printed.
 */
#include "tb.h"
#include "tb_scoreboard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>

#define SB_HOST (64 * 1024)
#define SB_MEM  (64 * 1024)

static uint64_t sb_seed0(void)
{
	const char *e = getenv("ABB_SB_SEED");

	return e && *e ? strtoull(e, NULL, 0) : 1;
}

/* 0: both open; -1: failed (the test fails). The model: the timed one
 * with the simulator's options, with model_opts "timed:..." the timed one
 * with the rest, or with "untimed:..." the untimed one with the rest. */
static int sb_begin(struct sb *s, const char *sim_opts, const char *model_opts, uint64_t seed)
{
	char mo[512];

	memset(s, 0, sizeof *s);
	s->seed = seed;
	if (!strncmp(model_opts, "untimed:", 8))
		snprintf(mo, sizeof mo, "%s", model_opts + 8);
	else if (!strncmp(model_opts, "timed:", 6))
		snprintf(mo, sizeof mo, "timed=1,%s", model_opts + 6);
	else
		snprintf(mo, sizeof mo, "timed=1,%s", sim_opts);
	model_opts = mo;
	if (sb_open(s, sim_opts, model_opts, SB_HOST)) {
		CU_FAIL("scoreboard: opening the simulator and the model");
		return -1;
	}
	printf("\n    scoreboard: sim:%s vs model:%s, seed %llu\n", sim_opts, model_opts,
	       (unsigned long long)seed);
	sb_board_fill(s, 0, s->mem_size, (uint32_t)seed ^ 0x5a5a);
	return 0;
}

static void sb_end(struct sb *s)
{
	sb_step(s, "end: all of board memory");
	sb_check(s, 0, (uint32_t)s->mem_size);
	CU_ASSERT_EQUAL(s->mismatches, 0);
	/* the timed model takes every timing parameter, profiles included
	 * (ABB_SIM_PROFILE=abb2008 applies to both): the bound holds there too */
	if (s->timed)
		CU_ASSERT_EQUAL(sb_time_report(stdout, "    scoreboard:", s->times, s->ntimes), 0);
	if (s->mismatches)
		printf("    %u mismatches (seed %llu; ABB_SB_SEED=%llu replays)\n", s->mismatches,
		       (unsigned long long)s->seed, (unsigned long long)s->seed);
	sb_close(s);
}

/* One random DMA (or a read and a write at once) through libabb. */
static void random_dma(struct sb *s, uint64_t *r, int fixed_ok)
{
	unsigned kind = (unsigned)sb_range(r, 0, 9);
	size_t len = 4 * sb_range(r, 1, sb_range(r, 0, 3) ? 512 : 4096);
	size_t off = 4 * sb_range(r, 0, (SB_HOST - len) / 4);
	uint32_t board = (uint32_t)(4 * sb_range(r, 0, (SB_MEM - len) / 4));
	unsigned flags = sb_range(r, 0, 2) == 0 ? ABB_DMA_IRQ : 0;
	int dir = (int)sb_range(r, 0, 1);

	if (fixed_ok && kind == 0) {
		flags |= ABB_DMA_FIXED;
		board = (uint32_t)(4 * sb_range(r, 0, SB_MEM / 4 - 1));
	}
	if (kind == 1) { /* a read and a write in flight together, disjoint */
		size_t wlen = 4 * sb_range(r, 1, 1024);
		size_t woff = 4 * sb_range(r, 0, (SB_HOST - wlen) / 4);
		uint32_t wboard = (uint32_t)(4 * sb_range(r, 0, (SB_MEM - wlen) / 4));
		unsigned wflags = sb_range(r, 0, 2) == 0 ? ABB_DMA_IRQ : 0;

		if (woff < off + len && off < woff + wlen)
			woff = off + len <= SB_HOST - wlen ? off + len : 0;
		if (woff < off + len && off < woff + wlen)
			return;
		if (wboard < board + len && board < wboard + wlen)
			return; /* the order of the two on the board is not defined */
		sb_host_fill(s, woff, wlen, (uint32_t)sb_rand(r));
		sb_step(s, "DMA read %zu B host+0x%zx <- board 0x%x flags %u || DMA write %zu B "
			"host+0x%zx -> board 0x%x flags %u", len, off, board, flags, wlen, woff,
			wboard, wflags);
		sb_dma_pair(s, off, board, len, flags, woff, wboard, wlen, wflags);
		sb_check(s, wboard, (uint32_t)(wboard + wlen));
		return;
	}
	if (dir)
		sb_host_fill(s, off, len, (uint32_t)sb_rand(r));
	sb_step(s, "DMA %s %zu B host+0x%zx %s board 0x%x flags %u", dir ? "write" : "read", len,
		off, dir ? "->" : "<-", board, flags);
	sb_dma(s, dir, off, board, len, flags);
	sb_check(s, board, dir ? (uint32_t)(board + ((flags & ABB_DMA_FIXED) ? 4 : len)) : 0);
}

static void sb_program_dma(const char *sim_opts, const char *model_opts, unsigned steps)
{
	struct sb s;
	uint64_t r;

	if (sb_begin(&s, sim_opts, model_opts, sb_seed0()))
		return;
	r = s.seed;
	sb_step(&s, "board memory filled");
	sb_board_fill(&s, 0, SB_MEM, (uint32_t)s.seed);
	sb_host_fill(&s, 0, SB_HOST, (uint32_t)s.seed + 1);
	for (unsigned i = 0; i < steps && !s.mismatches; i++)
		random_dma(&s, &r, 1);
	sb_end(&s);
}

static void test_sb_dma_random(void)
{
	sb_program_dma("mem_size=64K", "mem_size=64K", 120);
}

static void test_sb_dma_untimed(void)
{
	sb_program_dma("mem_size=64K", "untimed:mem_size=64K", 60);
}

static void test_sb_dma_scatter(void)
{
	sb_program_dma("mem_size=64K,iova=scatter,reorder=2,mrrs=256", "mem_size=64K", 60);
}

static void test_sb_dma_strict(void)
{
	sb_program_dma("mem_size=64K,strict=1,mps=256,rcb=128", "mem_size=64K,strict=1", 60);
}

/* Hand-built chains: pieces inside single pages (so each is contiguous in
 * IOVA with iova=scatter), board addresses loaded (UPA) or continued. */
static void test_sb_chains(void)
{
	struct sb s;
	uint64_t r;

	if (sb_begin(&s, "mem_size=64K,iova=scatter,reorder=1,seed=7",
				       "mem_size=64K", sb_seed0() + 100))
		return;
	r = s.seed;
	sb_board_fill(&s, 0, SB_MEM, 11);
	sb_host_fill(&s, 0, SB_HOST, 12);
	for (unsigned t = 0; t < 40 && !s.mismatches; t++) {
		size_t hoff[16];
		uint32_t board[16], len[16], upa[16];
		unsigned n = (unsigned)sb_range(&r, 1, 16), i;
		int chn = (int)sb_range(&r, 0, 1);
		uint32_t extra = ABB_CTRL_INC | (sb_range(&r, 0, 1) ? ABB_CTRL_EDI | ABB_CTRL_EEI : 0);
		uint32_t b = (uint32_t)(4 * sb_range(&r, 0, SB_MEM / 8)); /* + at most 21 KiB */
		uint32_t lo = b, hi = b;

		for (i = 0; i < n; i++) {
			size_t page = sb_range(&r, 0, SB_HOST / 4096 - 1) * 4096;
			uint32_t l = (uint32_t)(4 * sb_range(&r, 1, 256));
			size_t in = 4 * sb_range(&r, 0, (4096 - l) / 4);

			hoff[i] = page + in;
			len[i] = l;
			upa[i] = (uint32_t)sb_range(&r, 0, 1);
			/* board ranges ascending, never overlapping: with overlaps
			 * the outcome depends on the order the RTL writes the
			 * pieces in (it overlaps the descriptors' reads; the model
			 * runs them one after the other) */
			if (upa[i] && i > 0)
				b += (uint32_t)(4 * sb_range(&r, 0, 64));
			board[i] = b;
			lo = b < lo ? b : lo;
			hi = b + l > hi ? b + l : hi;
			b += l;
		}
		if (chn == (int)ABB_CH_H2C)
			for (i = 0; i < n; i++)
				sb_host_fill(&s, hoff[i], len[i], (uint32_t)sb_rand(&r));
		sb_step(&s, "chain of %u on %s, extra 0x%08x", n,
			chn == (int)ABB_CH_C2H ? "DMA read" : "DMA write", extra);
		sb_chain(&s, chn, n, hoff, board, len, upa, extra, 1);
		sb_check(&s, chn == (int)ABB_CH_H2C ? lo : 0, chn == (int)ABB_CH_H2C ? hi : 0);
	}
	sb_end(&s);
}

/* The interrupt generator and abb_irq_wait; DMAs by interrupt and waits
 * on the channels' bits afterwards. */
static void sb_program_irq(const char *opts, const char *mopts)
{
	struct sb s;
	uint64_t r;

	if (sb_begin(&s, opts, mopts, sb_seed0() + 200))
		return;
	r = s.seed;
	sb_board_fill(&s, 0, SB_MEM, 3);
	for (unsigned t = 0; t < 12 && !s.mismatches; t++) {
		uint32_t lat = (uint32_t)sb_range(&r, 1, 500);

		sb_step(&s, "generator: IGEN_LAT %u, ARM, abb_irq_wait(GEN)", lat);
		sb_reg_write(&s, ABB_REG_IGEN_LAT, lat);
		sb_reg_write(&s, ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
		sb_irq_wait(&s, ABB_IRQ_GEN, 100000000);
		sb_check(&s, 0, 0);
		sb_check_reg(&s, ABB_REG_IGEN_ASSERT, "IGEN_ASSERT");
		sb_check_reg(&s, ABB_REG_IGEN_DEASSERT, "IGEN_DEASSERT");
		sb_check_reg(&s, ABB_REG_IGEN_CTRL, "IGEN_CTRL");

		sb_step(&s, "DMA read by interrupt, then abb_irq_wait(DMA_READ)");
		sb_dma(&s, 0, 4 * sb_range(&r, 0, 1000), (uint32_t)(4 * sb_range(&r, 0, 1000)),
		       4 * sb_range(&r, 1, 2000), ABB_DMA_IRQ);
		sb_check(&s, 0, 0);
		sb_irq_wait(&s, ABB_IRQ_DMA_READ | ABB_IRQ_GEN, 100000);
		sb_check(&s, 0, 0);
		if (t % 4 == 3) {
			sb_step(&s, "IGEN RESET");
			sb_reg_write(&s, ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
			sb_check(&s, 0, 0);
			sb_check_reg(&s, ABB_REG_IGEN_ASSERT, "IGEN_ASSERT");
		}
	}
	sb_end(&s);
}

static void test_sb_irq(void)
{
	sb_program_irq("mem_size=64K", "mem_size=64K");
}

static void test_sb_irq_msi_strict(void)
{
	sb_program_irq("mem_size=64K,msi=1,strict=1", "mem_size=64K,strict=1");
}

/* The event source: fixed-address DMA reads from EVS_ADDR take its
 * stream; the content must agree word for word. */
static void test_sb_evsrc(void)
{
	struct sb s;
	uint64_t r;

	if (sb_begin(&s, "mem_size=64K", "mem_size=64K", sb_seed0() + 300))
		return;
	r = s.seed;
	for (unsigned cfg = 0; cfg < 4 && !s.mismatches; cfg++) {
		uint32_t addr = (uint32_t)(4 * sb_range(&r, 0, SB_MEM / 4 - 1));
		uint32_t size = (uint32_t)sb_range(&r, 0, 80);

		sb_step(&s, "event source: SRC, SIZE %u, GAP, ADDR 0x%x, CLEAR|ENABLE", size, addr);
		sb_reg_write(&s, ABB_REG_EVS_CTRL, 0);
		sb_reg_write(&s, ABB_REG_EVS_SRC, (uint32_t)sb_rand(&r));
		sb_reg_write(&s, ABB_REG_EVS_SIZE, size);
		sb_reg_write(&s, ABB_REG_EVS_GAP, (uint32_t)sb_range(&r, 0, 20));
		sb_reg_write(&s, ABB_REG_EVS_ADDR, addr);
		sb_reg_write(&s, ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR | ABB_EVS_CTRL_ENABLE);
		sb_check(&s, 0, 0);
		sb_check_reg(&s, ABB_REG_EVS_SRC, "EVS_SRC");
		sb_check_reg(&s, ABB_REG_EVS_SIZE, "EVS_SIZE");
		for (unsigned t = 0; t < 6 && !s.mismatches; t++) {
			size_t len = 4 * sb_range(&r, 1, 1024);
			size_t off = 4 * sb_range(&r, 0, (SB_HOST - len) / 4);
			unsigned flags = ABB_DMA_FIXED | (t % 2 ? ABB_DMA_IRQ : 0);

			sb_step(&s, "event read %zu B into host+0x%zx", len, off);
			sb_dma(&s, 0, off, addr, len, flags);
			sb_check(&s, 0, 0);
		}
		sb_reg_write(&s, ABB_REG_EVS_CTRL, 0);
	}
	sb_end(&s);
}

/* Register side effects: a random program of ISR/IER/GER writes, channel
 * resets, starts with and without a reset, bad descriptors, reads of
 * unmapped IOVAs and soft resets. */

static void sb_program_regs(const char *opts, const char *mopts, uint64_t seed)
{
	struct sb s;
	uint64_t r;

	if (sb_begin(&s, opts, mopts, seed))
		return;
	r = s.seed;
	sb_board_fill(&s, 0, SB_MEM, 5);
	sb_host_fill(&s, 0, SB_HOST, 6);
	for (unsigned t = 0; t < 150 && !s.mismatches; t++) {
		unsigned op = (unsigned)sb_range(&r, 0, 12);
		int chn = (int)sb_range(&r, 0, 1);
		uint32_t v = (uint32_t)sb_rand(&r);
		uint32_t irqs = sb_range(&r, 0, 1) ? ABB_CTRL_EDI | ABB_CTRL_EEI : 0;
		size_t off = 4 * sb_range(&r, 0, 1000);
		uint32_t board = (uint32_t)(4 * sb_range(&r, 0, 1000));
		uint32_t len = (uint32_t)(4 * sb_range(&r, 1, 500));

		switch (op) {
		case 0:
			sb_step(&s, "ISR write 0x%x", v & 7);
			sb_reg_write(&s, ABB_REG_ISR, v & 7);
			break;
		case 1:
			sb_step(&s, "GER write 0x%x", v & 0x1f);
			sb_reg_write(&s, ABB_REG_GER, v & 0x1f);
			break;
		case 2:
			sb_step(&s, "IER write 0x%x", v & 7);
			sb_reg_write(&s, ABB_REG_IER, v & 7);
			break;
		case 3:
			sb_step(&s, "channel %d reset", chn);
			sb_chan_reset(&s, chn);
			break;
		case 4: /* a start without a reset: leftover DONE and ISR */
		case 5: {
			uint32_t upa = 0;

			sb_step(&s, "chain start on channel %d %s reset, extra 0x%x", chn,
				op == 4 ? "without" : "after", irqs);
			sb_chain(&s, chn, 1, &off, &board, &len, &upa, ABB_CTRL_INC | irqs, op == 5);
			break;
		}
		case 6: { /* a bad descriptor: LENG 0, misaligned, beyond BAR1 */
			static const char *const why[] = {"LENG 0", "LENG 6", "beyond BAR1",
							  "without BAR"};
			unsigned k = (unsigned)sb_range(&r, 0, 3);
			uint32_t l = k == 0 ? 0 : k == 1 ? 6 : k == 2 ? len + 4 : len;
			uint32_t pa = k == 2 ? (uint32_t)s.mem_size - 4 : board;
			uint32_t ctrl = ABB_CTRL_V | ABB_CTRL_UPA | ABB_CTRL_LAST | ABB_CTRL_INC |
					irqs | (k == 3 ? 0 : ABB_CTRL_BAR);

			sb_step(&s, "bad descriptor (%s) on channel %d, irqs 0x%x", why[k], chn, irqs);
			sb_chan_reset(&s, chn);
			sb_raw_start(&s, chn, pa, off, SB_HOST_OFF, l, ctrl);
			break;
		}
		case 7: /* a DMA write from an IOVA mapped on neither: UR */
			sb_step(&s, "DMA write from unmapped IOVA, irqs 0x%x", irqs);
			sb_chan_reset(&s, ABB_CH_H2C);
			sb_raw_start(&s, ABB_CH_H2C, board, 0, 0xdead00000000ull, len,
				     ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_UPA | ABB_CTRL_LAST |
					     ABB_CTRL_INC | irqs);
			break;
		case 12: { /* a chain whose link or second descriptor is bad */
			static const char *const why[] = {"next misaligned", "next unmapped",
							  "second LENG 0", "second without V"};
			int k = (int)sb_range(&r, 0, 3);

			sb_step(&s, "chain on channel %d, %s, extra 0x%x", chn, why[k], irqs);
			sb_chain_bad(&s, chn, k, off, board, len, ABB_CTRL_INC | irqs);
			/* STA.ERR_DATA (REGISTERS.md): the data of the first
			 * descriptor is in board memory on both (a DMA write's
			 * completions that arrived are written). */
			break;
		}
		case 10: { /* the FIFO loop-back: TXF writes, RXF reads (they pop) */
			unsigned k = (unsigned)sb_range(&r, 0, 20);

			sb_step(&s, "FIFO: %u TXF_DATA writes, then TXF_CSR, RXF_CSR", k);
			for (unsigned j = 0; j < k; j++)
				sb_reg_write(&s, ABB_REG_TXF_DATA, (uint32_t)sb_rand(&r));
			sb_check_reg(&s, ABB_REG_TXF_CSR, "TXF_CSR");
			sb_check_reg(&s, ABB_REG_RXF_CSR, "RXF_CSR");
			break;
		}
		case 11: {
			unsigned k = (unsigned)sb_range(&r, 1, 20);

			sb_step(&s, "FIFO: %u RXF_DATA reads", k);
			for (unsigned j = 0; j < k; j++)
				sb_check_reg(&s, ABB_REG_RXF_DATA, "RXF_DATA");
			sb_check_reg(&s, ABB_REG_RXF_CSR, "RXF_CSR");
			break;
		}
		case 8:
			if (sb_range(&r, 0, 3) == 0) {
				sb_step(&s, "GCR.SOFT_RESET");
				sb_reg_write(&s, ABB_REG_GCR, ABB_GCR_SOFT_RESET);
				sb_settle(&s, 20000);
				break;
			}
			/* fall through */
		default:
			random_dma(&s, &r, 0);
			break;
		}
		sb_check(&s, board, board + len);
	}
	sb_end(&s);
}

static void test_sb_regs_lenient(void)
{
	sb_program_regs("mem_size=64K,strict=0", "mem_size=64K,strict=0", sb_seed0() + 400);
}

static void test_sb_regs_strict(void)
{
	sb_program_regs("mem_size=64K,strict=1", "mem_size=64K,strict=1", sb_seed0() + 500);
}

/* A channel reset clears the channel's ISR bit on both (REGISTERS.md
 * ISR.CLR_RESET, also in strict mode where no write clears it): each
 * device's own ISR is read before and after, and the scoreboard compares
 * what the reset left (it used to clear the bit on the simulator itself
 * when its probe found it set, which would hide the difference). */
static void sb_reset_clears_isr(const char *opts)
{
	struct sb s;
	uint32_t isr[SB_NDEV];

	if (sb_begin(&s, opts, opts, sb_seed0() + 600))
		return;
	for (int chn = 0; chn < 2; chn++) {
		uint32_t bit = chn == (int)ABB_CH_C2H ? ABB_ISR_C2H : ABB_ISR_H2C;
		uint32_t upa = 0, len = 256, board = 0x100;
		size_t off = 0x200;

		sb_step(&s, "chain start with EDI on channel %d, then the channel reset", chn);
		sb_chain(&s, chn, 1, &off, &board, &len, &upa, ABB_CTRL_INC | ABB_CTRL_EDI, 1);
		CU_ASSERT_EQUAL(sb_check(&s, 0, 0), 0);
		for (int d = 0; d < SB_NDEV; d++) {
			CU_ASSERT_EQUAL(abb_reg_read(s.dev[d], ABB_REG_ISR, &isr[d]), 0);
			CU_ASSERT(isr[d] & bit); /* done with EDI: the bit is set */
		}
		sb_chan_reset(&s, chn);
		for (int d = 0; d < SB_NDEV; d++) {
			CU_ASSERT_EQUAL(abb_reg_read(s.dev[d], ABB_REG_ISR, &isr[d]), 0);
			if (isr[d] & bit)
				printf("\n    %s: ISR 0x%x after the channel %d reset\n",
				       d == SB_SIM ? "sim" : "model", isr[d], chn);
			CU_ASSERT_EQUAL(isr[d] & bit, 0);
		}
		CU_ASSERT_EQUAL(sb_check(&s, 0, 0), 0);
	}
	sb_end(&s);
}

static void test_sb_reset_clears_isr(void)
{
	sb_reset_clears_isr("mem_size=64K,strict=0");
	sb_reset_clears_isr("mem_size=64K,strict=1");
}

/* profile=abb2008 on both, host side (irq_ns 5000, driver_ns 32000 after
 * every interrupt wait, mem_ns 500, rc_reads 4) and board side (the DDR2
 * buffer's read-ahead behind BAR1, the endpoint's ep_reads 8 / ep_rx 4K):
 * a 32 KiB read by interrupt takes the same device time on the simulator
 * and the timed model, and the profile's latency is in it (the same read
 * without the profile is at least irq_ns + driver_ns, 37 us, faster).
 * A 4 KiB write, 20 us without any host access, a 4 KiB read (what the
 * DDR2 bus had left must have run out in the idle time).
 * Then, with the link input on (EVS_CTRL.ENABLE: the link stream writes
 * the DDR2 buffer), a polled 32 KiB write (the endpoint's tag limit; its
 * completion data written into the DDR2 buffer) and right after it a
 * polled 16 KiB read (the arbiter's state the write left), four 4 KiB
 * writes, an 8 KiB and a 64 KiB read (the link's write backlog passes
 * 4096 DWs while the reads hold the bus), a 32 KiB read and write at once (the write's
 * data and the link input beyond the read latency's gaps: writes forced
 * at 4096 DWs waiting);
 * once more with completions of up to 1 KiB (cpl=mps, MPS and MRRS 1024:
 * long completions, whose beats the arbiter's lazy stepping must not skip
 * over, and a read-ahead of 1 KiB per TLP). sb_end binds each operation's
 * error. */
static void test_sb_profile(void)
{
	/* profile=default explicitly: ABB_SIM_PROFILE=abb2008 (CI's profile
	 * run) must not turn the baseline into the profile */
	/* the last four: the endpoint's read limits alone, at their edges (one
	 * 256-byte receive buffer against 512-byte requests: one read in
	 * flight, not none; a read count with no buffer limit, 2 and the
	 * smallest, 1; 512 bytes of buffer against 128-byte requests: four
	 * reads, the count exact where a fifth would still speed the write up) */
	/* then: the DDR2 rows off with the profile's row time (no row change
	 * at all), a slow DDR2 bus (a 4 KiB burst takes 1024 cycles: the
	 * arbiter's bus count passes every value to 1023, a write backlog
	 * beyond 4096 DWs), and a fast link without the profile (Gen2 x8 at 250
	 * MHz: the TX buffer seldom holds the posted writes back, so the two
	 * channels' TLPs meet at the arbiter in the read || write step),
	 * last a slow bus with a long read latency and a link stream three
	 * times the profile's (reads and link writes contend for every gap) */
	static const char *const cfg[] = {
		"mem_size=64K,profile=default", "mem_size=64K,profile=abb2008",
		"mem_size=64K,profile=abb2008,mps=1024,mrrs=1024,rcb=128,cpl=mps",
		"mem_size=64K,profile=default,ep_rx=256,mrrs=512",
		"mem_size=64K,profile=default,ep_reads=2",
		"mem_size=64K,profile=default,ep_reads=1",
		"mem_size=64K,profile=default,ep_rx=512,mrrs=128",
		"mem_size=64K,profile=abb2008,ddr_row=0",
		"mem_size=64K,profile=abb2008,ddr_burst=4K,ddr_width=4",
		"mem_size=64K,profile=default,gen=2,lanes=8",
		"mem_size=64K,profile=abb2008,ddr_burst=256,ddr_width=4,ddr_lat_ns=400,link_mbps=1500"};
	enum { NCFG = sizeof cfg / sizeof cfg[0] };
	uint64_t ns[NCFG] = {0};

	for (int k = 0; k < NCFG; k++) {
		const char *opts = cfg[k];
		struct sb s;

		if (sb_begin(&s, opts, opts, sb_seed0()))
			return;
		sb_step(&s, "DMA read 32768 B host+0 <- board 0 by interrupt (%s)", opts);
		CU_ASSERT_EQUAL(sb_dma(&s, 0, 0, 0, 32768, ABB_DMA_IRQ), 0);
		sb_check(&s, 0, 0);
		CU_ASSERT_EQUAL_FATAL(s.ntimes, 1);
		printf("    %s: sim %llu ns, model %llu ns\n", opts,
		       (unsigned long long)s.times[0].ns[SB_SIM],
		       (unsigned long long)s.times[0].ns[SB_MODEL]);
		CU_ASSERT_EQUAL(s.times[0].ns[SB_SIM], s.times[0].ns[SB_MODEL]);
		ns[k] = s.times[0].ns[SB_MODEL];
		/* before the link input (no write backlog yet): a write's last
		 * DDR2 burst is the board's last work, then the host stays away
		 * (the platform skips the cycles the board reports idle) and a
		 * read follows, whose time holds whatever the bus had left: the
		 * burst must have run out in the idle time (the slow bus: 1024
		 * cycles a burst, its count passing every value) */
		sb_step(&s, "DMA write 4096 B host+0 -> board 0x8000 polled, then 20 us idle");
		CU_ASSERT_EQUAL(sb_dma(&s, 1, 0, 0x8000, 4096, 0), 0);
		sb_idle(&s, 20000);
		sb_step(&s, "DMA read 4096 B host+0 <- board 0x8000 polled after the idle time");
		CU_ASSERT_EQUAL(sb_dma(&s, 0, 0, 0x8000, 4096, 0), 0);
		sb_check(&s, 0x8000, 0x9000);
		for (int d = 0; d < SB_NDEV; d++)
			CU_ASSERT_EQUAL(abb_reg_write(s.dev[d], ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE),
					0);
		sb_step(&s, "DMA write 32768 B host+0 -> board 0x8000 polled, link input on");
		CU_ASSERT_EQUAL(sb_dma(&s, 1, 0, 0x8000, 32768, 0), 0);
		sb_check(&s, 0x8000, 0x10000);
		sb_step(&s, "DMA read 16384 B host+0 <- board 0x4000 polled, link input on");
		CU_ASSERT_EQUAL(sb_dma(&s, 0, 0, 0x4000, 16384, 0), 0);
		for (int i = 0; i < 4; i++) {
			sb_step(&s, "DMA write 4096 B host+0 -> board 0x8000 polled, link input on");
			CU_ASSERT_EQUAL(sb_dma(&s, 1, 0, 0x8000, 4096, 0), 0);
		}
		sb_step(&s, "DMA read 8192 B host+0 <- board 0 polled, link input on");
		CU_ASSERT_EQUAL(sb_dma(&s, 0, 0, 0, 8192, 0), 0);
		sb_step(&s, "DMA read 65536 B host+0 <- board 0 polled, link input on");
		CU_ASSERT_EQUAL(sb_dma(&s, 0, 0, 0, 65536, 0), 0);
		sb_step(&s, "DMA read 32768 B host+0 <- board 0 || write 32768 B host+0x8000 -> "
			    "board 0x8000, by interrupt, link input on");
		CU_ASSERT_EQUAL(sb_dma_pair(&s, 0, 0, 32768, ABB_DMA_IRQ, 0x8000, 0x8000, 32768,
					    ABB_DMA_IRQ), 0);
		sb_check(&s, 0x8000, 0x10000);
		for (int d = 0; d < SB_NDEV; d++)
			CU_ASSERT_EQUAL(abb_reg_write(s.dev[d], ABB_REG_EVS_CTRL, 0), 0);
		sb_check(&s, 0, 0);
		/* every step to the cycle, not only within the scoreboard's
		 * bounds: the DDR2 arbiter's state between transfers (its write
		 * backlog, latency, row) carries into the next one */
		for (size_t i = 1; i < s.ntimes; i++) {
			if (s.times[i].ns[SB_SIM] != s.times[i].ns[SB_MODEL])
				printf("    %s: step %lu (%s): sim %llu ns, model %llu ns\n", opts,
				       s.times[i].step, s.times[i].what,
				       (unsigned long long)s.times[i].ns[SB_SIM],
				       (unsigned long long)s.times[i].ns[SB_MODEL]);
			CU_ASSERT_EQUAL(s.times[i].ns[SB_SIM], s.times[i].ns[SB_MODEL]);
		}
		sb_end(&s);
	}
	CU_ASSERT(ns[1] >= ns[0] + 37000);
}

static CU_TestInfo sb_tests[] = {
	TB_SIM_TEST(test_sb_dma_random),
	TB_SIM_TEST(test_sb_dma_untimed),
	TB_SIM_TEST(test_sb_dma_scatter),
	TB_SIM_TEST(test_sb_dma_strict),
	TB_SIM_TEST(test_sb_chains),
	TB_SIM_TEST(test_sb_irq),
	TB_SIM_TEST(test_sb_irq_msi_strict),
	TB_SIM_TEST(test_sb_evsrc),
	TB_SIM_TEST(test_sb_regs_lenient),
	TB_SIM_TEST(test_sb_regs_strict),
	TB_SIM_TEST(test_sb_reset_clears_isr),
	TB_SIM_TEST(test_sb_profile),
	CU_TEST_INFO_NULL,
};

CU_ErrorCode tb_register_scoreboard(void)
{
	CU_SuiteInfo suites[] = {
		{"scoreboard", NULL, NULL, NULL, NULL, sb_tests},
		CU_SUITE_INFO_NULL,
	};

	return CU_register_suites(suites);
}
