/*
 * test_link.c - the simulated PCIe link's parameters (simulation only):
 * options and their checks, the effective values read back after
 * enumeration, the completion size mode (RCB-split or coalesced to MPS,
 * seen in the TLP log), and flow control: DMA read, DMA write and both at
 * once under the smallest legal credit limits move every byte, break no
 * rule (no protocol error: the link asserts the credits) and take longer
 * than with the default credits.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_sim.h>
#include <abbsim_cfg.h>

/* The smallest legal limits at MPS 128, RCB 64, cpl=rcb: one TLP of each
 * class; one 128-byte write (8 data credits); completions of 128 bytes
 * upstream (PIO reads), 64 bytes downstream. */
#define TINY_CREDITS "credits=ph=1:pd=8:nph=1:npd=1:cplh=1:up.cpld=8:down.cpld=4"

#define XFER (64u << 10)
#define RD_BOARD 0x00000u
#define WR_BOARD 0x80000u

static void test_link_defaults_read_back(void)
{
	struct abb_sim_link l;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("gen=1,lanes=4,mps=128,mrrs=512,rcb=64,cpl=rcb,"
					"credits=default"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT_EQUAL(l.gen, 1);
	CU_ASSERT_EQUAL(l.lanes, 4);
	CU_ASSERT_EQUAL(l.mps, 128);
	CU_ASSERT_EQUAL(l.mrrs, 512);
	CU_ASSERT_EQUAL(l.rcb, 64);
	CU_ASSERT_EQUAL(l.cpl_rcb, 1);
	CU_ASSERT_EQUAL(l.up.ph, 64);
	CU_ASSERT_EQUAL(l.up.pd, 1024);
	CU_ASSERT_EQUAL(l.up.nph, 64);
	CU_ASSERT_EQUAL(l.up.cplh, 0);
	CU_ASSERT_EQUAL(l.up.cpld, 0);
	CU_ASSERT_EQUAL(l.down.ph, 32);
	CU_ASSERT_EQUAL(l.down.pd, 256);
	CU_ASSERT_EQUAL(l.down.nph, 16);
	CU_ASSERT_EQUAL(l.down.cpld, 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_link_options_read_back(void)
{
	struct abb_sim_link l;
	uint32_t v = 0;

	TB_REQUIRE_DEV();
	/* credit items as options of their own after credits=, and with ':' */
	CU_ASSERT_EQUAL_FATAL(tb_reopen("lanes=12,mps=4096,mrrs=128,rcb=128,cpl=mps,"
					"credits=ph=3,up.pd=300,down.nph=2:cpld=0,up.cplh=5"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT_EQUAL(l.lanes, 12);
	CU_ASSERT_EQUAL(l.mps, 4096);
	CU_ASSERT_EQUAL(l.mrrs, 128);
	CU_ASSERT_EQUAL(l.rcb, 128);
	CU_ASSERT_EQUAL(l.cpl_rcb, 0);
	CU_ASSERT_EQUAL(l.up.ph, 3);
	CU_ASSERT_EQUAL(l.down.ph, 3);
	CU_ASSERT_EQUAL(l.up.pd, 300);
	CU_ASSERT_EQUAL(l.down.pd, 256);
	CU_ASSERT_EQUAL(l.up.nph, 64);
	CU_ASSERT_EQUAL(l.down.nph, 2);
	CU_ASSERT_EQUAL(l.up.cplh, 5);
	CU_ASSERT_EQUAL(l.down.cplh, 0);
	/* Link Status shows the 12 lanes, Link Control the RCB */
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_EXP + ABBSIM_EXP_LNKSTA, 2, &v), 0);
	CU_ASSERT_EQUAL((v & ABBSIM_EXP_LNK_WIDTH) >> ABBSIM_EXP_LNK_WIDTH_SHIFT, 12);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_EXP + ABBSIM_EXP_LNKCTL, 2, &v), 0);
	CU_ASSERT(v & ABBSIM_EXP_LNKCTL_RCB);
	/* a config write to Device Control is what read-back reports */
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_EXP + ABBSIM_EXP_DEVCTL, 2, &v), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_EXP + ABBSIM_EXP_DEVCTL, 2,
					  (v & ~ABBSIM_EXP_DEVCTL_MPS) |
						  (1u << ABBSIM_EXP_DEVCTL_MPS_SHIFT)), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT_EQUAL(l.mps, 256);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* Each bad option set is refused with -EINVAL and a message naming it. */
static void test_link_bad_options(void)
{
	static const struct {
		const char *opts, *says;
	} bad[] = {
		{ "credits=pd=4", "pd=4" },           /* < one 128-byte write: deadlock */
		{ "mps=256,credits=up.pd=8", "up.pd=8" },
		{ "cpl=mps,mps=256,mrrs=256,credits=down.cpld=8", "down.cpld=8" },
		{ "credits=cpld=2", "cpld=2" },
		{ "credits=ph=128", "ph=128" },       /* header credits 1..127 */
		{ "credits=xy=1", "xy=1" },
		{ "credits=ph", "ph" },
		{ "cpl=foo", "cpl" },
		{ "lanes=6", "lanes=\"6\"" },
		{ "lanes=32", "lanes=\"32\"" },
		{ "mps=8192", "mps=\"8192\"" },
		{ "mrrs=64", "mrrs=\"64\"" },
		{ "rcb=32", "rcb=\"32\"" },
		{ "reorder=3", "reorder=\"3\"" },
	};
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		abb_dev *d = NULL;
		char uri[200];
		int rc;

		tb_close();
		snprintf(uri, sizeof(uri), "sim:%s", bad[i].opts);
		rc = abb_open(&d, uri);
		if (rc != -EINVAL || !strstr(abb_last_error(), bad[i].says))
			printf("\n    %s: rc %d, message \"%s\" (want -EINVAL naming \"%s\")\n", uri,
			       rc, abb_last_error(), bad[i].says);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), bad[i].says));
		if (d)
			abb_close(d);
	}
	/* the same through the environment names the variable */
	setenv("ABB_SIM_CREDITS", "ph=1,pd=3", 1);
	CU_ASSERT_EQUAL(tb_reopen(NULL), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "ABB_SIM_CREDITS"));
	unsetenv("ABB_SIM_CREDITS");
	setenv("ABB_SIM_CPL", "coalesce", 1);
	CU_ASSERT_EQUAL(tb_reopen(NULL), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "ABB_SIM_CPL=\"coalesce\""));
	unsetenv("ABB_SIM_CPL");
	setenv("ABB_SIM_LANES", "12", 1);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	unsetenv("ABB_SIM_LANES");
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* Data sizes of the downstream completions of one 4 KiB DMA write, from the
 * TLP log: counts of CplD with 16 DW and with 64 DW, and of the others. */
static void cpl_sizes(unsigned *n16, unsigned *n64, unsigned *other)
{
	char path[] = "/tmp/abb-tb-tlp-XXXXXX", line[256];
	abb_dmabuf *b = NULL;
	uint8_t *host = tb_alloc_pages(4096);
	FILE *f;
	int fd = mkstemp(path);

	*n16 = *n64 = *other = 0;
	CU_ASSERT_FATAL(fd >= 0 && host);
	close(fd);
	tb_fill(host, 4096, 77);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, host, 4096, &b), 0);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0x1000, 4096, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, "/dev/null"), 0); /* closes the file */
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(host);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		const char *l;

		if (!strstr(line, " down ") || !strstr(line, "CplD") || !strstr(line, "tag=0") ||
		    !(l = strstr(line, " len=")))
			continue;
		switch (atoi(l + 5)) {
		case 16: (*n16)++; break;
		case 64: (*n64)++; break;
		default: (*other)++;
		}
	}
	fclose(f);
	unlink(path);
}

static void test_link_completion_sizes(void)
{
	unsigned n16, n64, other;

	TB_REQUIRE_DEV();
	/* default: every completion ends at an RCB (64-byte) boundary */
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=256,mrrs=512,rcb=64,cpl=rcb"), 0);
	cpl_sizes(&n16, &n64, &other);
	CU_ASSERT_EQUAL(n16, 4096 / 64);
	CU_ASSERT_EQUAL(n64 + other, 0);
	/* mps: coalesced to MPS */
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=256,mrrs=512,rcb=64,cpl=mps"), 0);
	cpl_sizes(&n16, &n64, &other);
	CU_ASSERT_EQUAL(n64, 4096 / 256);
	CU_ASSERT_EQUAL(n16 + other, 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* ---- flow control ---- */

struct fc_run {
	uint64_t rd_cycles, wr_cycles, both_cycles;
};

static void protocol_clean(const char *what)
{
	char msg[2048] = "";
	int n = abb_sim_protocol_errors(tb_dev, msg, sizeof(msg));

	if (n != 0)
		printf("\n    %s: %d protocol errors:\n%s", what, n, msg);
	CU_ASSERT_EQUAL(n, 0);
}

/* DMA read, DMA write, then both at once, XFER bytes each, on the open
 * board; checks every byte and the protocol error record. */
static void fc_transfers(const char *what, struct fc_run *r)
{
	uint8_t *hr = tb_alloc_pages(XFER), *hw = tb_alloc_pages(XFER);
	uint8_t *want = malloc(XFER), *got = malloc(XFER);
	abb_dmabuf *br = NULL, *bw = NULL;
	uint64_t c0 = 0, c1 = 0;
	char label[96];

	CU_ASSERT_FATAL(hr && hw && want && got);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, hr, XFER, &br), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, hw, XFER, &bw), 0);
	protocol_clean(what);

	/* DMA read (board to host) of what PIO put on the board */
	tb_fill(want, XFER, 11);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, RD_BOARD, want, XFER), 0);
	(void)tb_reg(0); /* the posted writes are on the board: time only the DMA */
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c0), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, br, 0, RD_BOARD, XFER, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c1), 0);
	r->rd_cycles = c1 - c0;
	snprintf(label, sizeof(label), "%s: DMA read", what);
	CU_ASSERT(tb_same(label, hr, want, XFER));

	/* DMA write (host to board), read back over PIO */
	tb_fill(hw, XFER, 12);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c0), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, bw, 0, WR_BOARD, XFER, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c1), 0);
	r->wr_cycles = c1 - c0;
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, WR_BOARD, got, XFER), 0);
	snprintf(label, sizeof(label), "%s: DMA write", what);
	CU_ASSERT(tb_same(label, got, hw, XFER));
	protocol_clean(what);

	/* both at once: upstream writes and reads, downstream completions */
	memset(hr, 0, XFER);
	tb_fill(hw, XFER, 13);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, br, 0, RD_BOARD, XFER, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_write_start(tb_dev, bw, 0, WR_BOARD, XFER, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, -1), 0);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, -1), 0);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c1), 0);
	r->both_cycles = c1 - c0;
	snprintf(label, sizeof(label), "%s: concurrent DMA read", what);
	CU_ASSERT(tb_same(label, hr, want, XFER));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, WR_BOARD, got, XFER), 0);
	snprintf(label, sizeof(label), "%s: concurrent DMA write", what);
	CU_ASSERT(tb_same(label, got, hw, XFER));
	protocol_clean(what);

	CU_ASSERT_EQUAL(abb_dmabuf_unmap(br), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(bw), 0);
	free(hr);
	free(hw);
	free(want);
	free(got);
}

static void test_link_tiny_credits(void)
{
	struct fc_run def, tiny;
	struct abb_sim_link l;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=128,rcb=64,cpl=rcb,credits=default"), 0);
	fc_transfers("default credits", &def);
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=128,rcb=64,cpl=rcb," TINY_CREDITS), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT(l.up.ph == 1 && l.up.pd == 8 && l.up.cpld == 8 && l.down.cpld == 4);
	fc_transfers("tiny credits", &tiny);
	printf("\n    64 KiB in cycles, default / tiny credits: read %llu / %llu, write %llu / %llu, "
	       "both %llu / %llu\n",
	       (unsigned long long)def.rd_cycles, (unsigned long long)tiny.rd_cycles,
	       (unsigned long long)def.wr_cycles, (unsigned long long)tiny.wr_cycles,
	       (unsigned long long)def.both_cycles, (unsigned long long)tiny.both_cycles);
	/* the limits are really applied: every direction is slower */
	CU_ASSERT(tiny.rd_cycles > def.rd_cycles);
	CU_ASSERT(tiny.wr_cycles > def.wr_cycles);
	CU_ASSERT(tiny.both_cycles > def.both_cycles);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* Elsewhere (the board, the model) the simulation-only calls say so; the
 * timed model has link parameters (and nothing else of these). */
static void test_link_enotsup_off_sim(void)
{
	struct abb_sim_link l;
	uint32_t v;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_sim_link_params(tb_dev, &l), tb_is_timed_model() ? 0 : -ENOTSUP);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), -ENOTSUP);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 4, &v), -ENOTSUP);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_INT_LINE, 1, 0), -ENOTSUP);
}

/* Reserved Max_Payload_Size / Max_Read_Request_Size encodings (6, 7) in
 * Device Control: the board clamps both to 4096 bytes (model-defined, as
 * the largest defined encoding 5). A 64 KiB DMA write and read at link
 * MPS = MRRS = 4096 then send TLPs of exactly 1024 DW as with encoding 5,
 * move every byte and break no rule. */
static void test_link_reserved_mps_mrrs_clamped(void)
{
	static const unsigned code[2] = { 6, 7 };
	char path[] = "/tmp/abb-tb-tlp-XXXXXX", line[256];
	uint8_t *host, *back;
	abb_dmabuf *b = NULL, *bb = NULL;
	unsigned cap = 0, i;
	uint32_t v = 0, devctl;
	int fd;

	TB_REQUIRE_DEV();
	host = tb_alloc_pages(XFER); /* after the checks: a skipped test leaks nothing */
	back = tb_alloc_pages(XFER);
	CU_ASSERT_FATAL(host && back);
	for (i = 0; i < 2; i++) {
		unsigned mwr_max = 0, mrd_max = 0;
		FILE *f;

		CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=4096,mrrs=4096"), 0);
		/* the PCI Express capability, found through the list */
		CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_CAP_PTR, 1, &v), 0);
		for (cap = v & ~3u; cap; cap = v & ~3u) {
			CU_ASSERT_EQUAL_FATAL(abb_sim_cfg_read(tb_dev, cap + ABBSIM_CAP_ID, 2, &v), 0);
			if ((v & 0xFF) == ABBSIM_CAP_ID_EXP)
				break;
			v >>= 8; /* ABBSIM_CAP_NEXT */
		}
		CU_ASSERT_FATAL(cap != 0);
		CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, cap + ABBSIM_EXP_DEVCTL, 2, &devctl), 0);
		CU_ASSERT_EQUAL((devctl & ABBSIM_EXP_DEVCTL_MPS) >> ABBSIM_EXP_DEVCTL_MPS_SHIFT, 5); /* 4096 */
		devctl = (devctl & ~(ABBSIM_EXP_DEVCTL_MPS | ABBSIM_EXP_DEVCTL_MRRS)) |
			 (code[i] << ABBSIM_EXP_DEVCTL_MPS_SHIFT) | (code[i] << ABBSIM_EXP_DEVCTL_MRRS_SHIFT);
		CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, cap + ABBSIM_EXP_DEVCTL, 2, devctl), 0);
		CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, cap + ABBSIM_EXP_DEVCTL, 2, &v), 0);
		CU_ASSERT_EQUAL((v & ABBSIM_EXP_DEVCTL_MPS) >> ABBSIM_EXP_DEVCTL_MPS_SHIFT, code[i]);

		fd = mkstemp(strcpy(path, "/tmp/abb-tb-tlp-XXXXXX"));
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
		tb_fill(host, XFER, 300 + i);
		memset(back, 0, XFER);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, host, XFER, &b), 0);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, back, XFER, &bb), 0);
		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path), 0);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, WR_BOARD, XFER, 0), 0);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, bb, 0, WR_BOARD, XFER, 0), 0);
		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, "/dev/null"), 0);
		CU_ASSERT(tb_same("data back at reserved MPS/MRRS codes", back, host, XFER));
		protocol_clean("reserved MPS/MRRS codes");
		f = fopen(path, "r");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		while (fgets(line, sizeof(line), f)) {
			const char *l = strstr(line, " len=");
			unsigned n = l ? (unsigned)atoi(l + 5) : 0;

			if (!strstr(line, " up ") || strstr(line, "tag=8"))
				continue; /* descriptor fetches (tags 0x80, 0x81) aside */
			if (strstr(line, "MWr") && n > mwr_max)
				mwr_max = n;
			if (strstr(line, "MRd") && n > mrd_max)
				mrd_max = n;
		}
		fclose(f);
		unlink(path);
		if (mwr_max != 1024 || mrd_max != 1024)
			printf("\n    reserved code %u: largest MWr %u DW, MRd %u DW (want 1024)\n", code[i],
			       mwr_max, mrd_max);
		CU_ASSERT_EQUAL(mwr_max, 1024);
		CU_ASSERT_EQUAL(mrd_max, 1024);
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(bb), 0);
	}
	free(host);
	free(back);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* A host memory so slow (300 us a read) that one DMA write keeps reads
 * outstanding for longer than the completion timeout (2^22 cycles, 33.5 ms
 * at 125 MHz) in all: the timeout counts from the last completion, not
 * from the first request, so the 1 MiB write (about 38 ms) completes with
 * the right bytes. (Written for mutant m022 of MUTATION.md, the timeout
 * counter reset only with no read outstanding.) */
static void test_link_slow_memory_long_write(void)
{
	const size_t len = 1u << 20;
	uint8_t *host = tb_alloc_pages(len), *back = malloc(len);
	abb_dmabuf *b = NULL;
	uint64_t t0 = 0, t1 = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(host);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mem_ns=300000"), 0);
	tb_fill(host, len, 2022);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, host, len, &b), 0);
	t0 = tb_now_ns();
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0, len, 0), 0);
	t1 = tb_now_ns();
	/* longer than the timeout, or the test proves nothing */
	CU_ASSERT(t1 - t0 > 34000000u);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, back, len), 0);
	CU_ASSERT(tb_same("board memory after the slow write", back, host, len));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(host);
	free(back);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* The bound tests' set-up: the board reopened with opts, its link
 * parameters in *lp, host (len bytes) mapped: the buffer, NULL on failure
 * (the test failed). */
static abb_dmabuf *bound_setup(const char *opts, uint8_t *host, size_t len, struct abb_sim_link *lp)
{
	abb_dmabuf *b = NULL;

	CU_ASSERT_EQUAL_FATAL(tb_reopen(opts), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, lp), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, host, len, &b), 0);
	return b;
}

/* The on-board DDR2 bus cannot be read faster than its width: a DMA read
 * from BAR1 with the DDR2 model on (profile=abb2008) takes at least
 * len / ddr_width user-clock cycles, whatever the burst, row and latency
 * options. A physical bound,
 * not the model's arithmetic (the timed model ports the RTL's, so the
 * scoreboard cannot see a wrong width): the DDR2 arbiter's 10-bit bus count
 * wrapped at a 4 KiB burst of 4-byte cycles with a row change, so that such
 * a burst held the bus for its row time alone (doc/board-profile.md,
 * "Counter widths"). Each set-up: one 64 KiB read polled. */
static void test_link_ddr2_bus_bound(void)
{
	static const struct {
		const char *opts;
		unsigned width;
	} cfg[] = {
		{"profile=abb2008", 16},
		{"profile=abb2008,ddr_burst=4K,ddr_width=4,ddr_row=256", 4},
		{"profile=abb2008,ddr_burst=4K,ddr_width=4,ddr_row=8K,ddr_row_ns=2000", 4},
		{"profile=abb2008,ddr_burst=2K,ddr_width=4,ddr_lat_ns=2000", 4},
		{"profile=abb2008,ddr_burst=4K,ddr_width=8,ddr_row=4K", 8},
		{"profile=abb2008,ddr_burst=4K,ddr_width=32,ddr_row=256,ddr_row_ns=0", 32},
	};
	const size_t len = 64u * 1024;
	uint8_t *host = tb_alloc_pages(len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(host);
	for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
		struct abb_sim_link lp;
		abb_dmabuf *b = bound_setup(cfg[k].opts, host, len, &lp);
		uint64_t t0, t1, min_ns;

		t0 = tb_now_ns();
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0, len, 0), 0);
		t1 = tb_now_ns();
		min_ns = (uint64_t)(len / cfg[k].width) * 1000u / lp.clk_mhz;
		if (t1 - t0 < min_ns)
			printf("\n    %s: 64 KiB read in %llu ns, the bus needs at least %llu ns\n",
			       cfg[k].opts, (unsigned long long)(t1 - t0), (unsigned long long)min_ns);
		CU_ASSERT(t1 - t0 >= min_ns);
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	}
	free(host);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* No DMA outruns its link or the RTL's data path: a 256 KiB read (board to
 * host: the payload goes up) and a 256 KiB write (host to board: down)
 * each move their bytes at most at the link's raw rate, lanes x the
 * generation's transfer rate x its line code (8b/10b: 2.5 and 5 GT/s,
 * 128b/130b: 8 GT/s), before any TLP header, DLLP or SKP, and at most 8
 * bytes a user-clock cycle (the 64-bit stream, TLP-STREAM.md). Physical
 * bounds, independent of the simulator's and the timed model's link
 * arithmetic (which the timed model ports: a wrong rate in both would
 * pass the scoreboard). Gen 1..3, 1..16 lanes, 125 and 250 MHz. */
static void test_link_rate_bound(void)
{
	static const char *const cfg[] = {
		"gen=1,lanes=1", "gen=1,lanes=4", "gen=2,lanes=8", "gen=3,lanes=4",
		"gen=3,lanes=16", "gen=3,lanes=16,clk_mhz=250", "gen=2,lanes=16,mps=512,mrrs=512",
	};
	const size_t len = 256u * 1024;
	uint8_t *host = tb_alloc_pages(len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(host);
	for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
		struct abb_sim_link lp;
		abb_dmabuf *b = bound_setup(cfg[k], host, len, &lp);

		/* bytes per microsecond (MB/s) the line can carry, per lane:
		 * 2.5 GT/s x 8/10 / 8 = 250, 5 GT/s: 500, 8 GT/s x 128/130 / 8 */
		double lane = lp.gen == 1 ? 250.0 : lp.gen == 2 ? 500.0 : 8000.0 * 128 / 130 / 8;
		double max_mbs = lane * lp.lanes;

		if (max_mbs > 8.0 * lp.clk_mhz)
			max_mbs = 8.0 * lp.clk_mhz;
		for (int dir = 0; dir < 2; dir++) {
			uint64_t t0 = tb_now_ns(), t1;
			int rc = dir ? abb_dma_write(tb_dev, b, 0, 0, len, 0)
				     : abb_dma_read(tb_dev, b, 0, 0, len, 0);

			t1 = tb_now_ns();
			CU_ASSERT_EQUAL(rc, 0);
			double mbs = (double)len * 1000.0 / (double)(t1 - t0);
			if (mbs > max_mbs)
				printf("\n    %s: DMA %s %.1f MB/s, the link and data path carry at most %.1f\n",
				       cfg[k], dir ? "write" : "read", mbs, max_mbs);
			CU_ASSERT(mbs <= max_mbs);
		}
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	}
	free(host);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static CU_TestInfo link_tests[] = {
	TB_NOSIM_TEST(test_link_enotsup_off_sim),
	TB_SIM_TEST(test_link_defaults_read_back),
	TB_SIM_TEST(test_link_options_read_back),
	TB_SIM_TEST(test_link_bad_options),
	TB_SIM_TEST(test_link_completion_sizes),
	TB_SIM_TEST(test_link_tiny_credits),
	TB_SIM_TEST(test_link_reserved_mps_mrrs_clamped),
	TB_SIM_TEST(test_link_slow_memory_long_write),
	TB_SIM_TEST(test_link_ddr2_bus_bound),
	TB_SIM_TEST(test_link_rate_bound),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo link_suite[] = {
	{ "link", tb_suite_open, tb_suite_close, NULL, NULL, link_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_link(void)
{
	return CU_register_suites(link_suite);
}
