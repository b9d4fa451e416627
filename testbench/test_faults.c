/*
 * test_faults.c - link and completion faults injected from C
 * (abb_sim_inject, sim/README.md "Link injection").
 *
 * Each test arms one rule, runs a DMA (or a PIO read) that meets it and
 * checks:
 *  - the API returns the documented errno and its message names the
 *    cause: STA error (DONE|BUSY) and the GER bits of the fault;
 *  - the rule fired (abb_sim_inject_hits) and the TLP log has a FAULT line;
 *  - nothing was written outside mapped memory: the guard pages around the
 *    host buffer keep their pattern, the IOMMU saw no access outside a
 *    mapping (abb_sim_faults), the board bytes around the target range
 *    keep theirs (and a poisoned completion's data is not written);
 *  - the engine recovers: after a soft reset, DMAs of a random size both
 *    ways return the right bytes;
 *  - no call hangs (every wait ends within the RTL's completion timeout or
 *    the root complex's PIO timeout; the watchdog would fail the test).
 * Simulation only (the other backends: abb_sim_inject is -ENOTSUP).
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define HOSTLEN  (64u * 1024u)
#define BOARD_AT 0x20000u   /* target of the faulty transfers in board memory */
#define BGUARD   4096u      /* board guard bytes on either side */
#define HPAT     0xa5       /* host guard page pattern */
#define BPAT     0x5a       /* board prefill / guard pattern */

static uint8_t *area;       /* guard page, HOSTLEN, guard page */
static uint8_t *host;       /* area + page: the mapped buffer */
static abb_dmabuf *map;
static char logpath[64];
static uint32_t rnd = 12345;

static uint32_t next_rnd(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd;
}

static int faults_init(void)
{
	size_t pg = tb_page();

	if (tb_suite_open() < 0)
		return -1;
	area = tb_alloc_pages(HOSTLEN + 2 * pg);
	if (!area)
		return -1;
	memset(area, HPAT, HOSTLEN + 2 * pg);
	host = area + pg;
	if (abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) < 0)
		return -1;
	snprintf(logpath, sizeof logpath, "/tmp/abb_faults_%d.log", (int)getpid());
	return 0;
}

static int faults_cleanup(void)
{
	if (map && tb_dev)
		(void)abb_dmabuf_unmap(map);
	map = NULL;
	free(area);
	area = NULL;
	unlink(logpath);
	return tb_suite_close();
}

/* GER and STA as the error message of the last failed call reports them. */
static uint32_t msg_field(const char *name)
{
	const char *m = strstr(abb_last_error(), name);

	return m ? (uint32_t)strtoul(m + strlen(name), NULL, 16) : 0xffffffffu;
}

/* The board range [BOARD_AT - BGUARD, BOARD_AT + len + BGUARD) filled with
 * BPAT (PIO). */
static void board_prefill(size_t len)
{
	static uint8_t pat[HOSTLEN + 2 * BGUARD];

	memset(pat, BPAT, len + 2 * BGUARD);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, BOARD_AT - BGUARD, pat, len + 2 * BGUARD), 0);
}

/* Guards intact: host pages around the buffer, no IOMMU fault, the board
 * bytes around [BOARD_AT, BOARD_AT + len). */
static void check_guards(size_t len)
{
	static uint8_t b[BGUARD];
	size_t pg = tb_page();

	CU_ASSERT(tb_all_byte("host guard page before", area, pg, HPAT));
	CU_ASSERT(tb_all_byte("host guard page after", host + HOSTLEN, pg, HPAT));
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT - BGUARD, b, BGUARD), 0);
	CU_ASSERT(tb_all_byte("board guard before", b, BGUARD, BPAT));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT + (uint32_t)len, b, BGUARD), 0);
	CU_ASSERT(tb_all_byte("board guard after", b, BGUARD, BPAT));
}

/* 1 if the TLP log has a line with all of the words. */
static int log_has(const char *w1, const char *w2)
{
	FILE *f = fopen(logpath, "r");
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, w1) && (!w2 || strstr(line, w2));
	fclose(f);
	return found;
}

/* The soft reset (clears GER in both modes), no rule, then DMAs of a
 * random size and offsets both ways: the right bytes. */
static void recover(void)
{
	static uint8_t want[HOSTLEN];
	size_t len = 4 * (1 + next_rnd() % (HOSTLEN / 8));
	size_t off = 4 * (next_rnd() % ((HOSTLEN - len) / 4 + 1));
	uint32_t ba = 0x40000u + 4 * (next_rnd() % 4096);

	CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
	tb_fill(want, len, next_rnd());
	memcpy(host + off, want, len);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, map, off, ba, len, 0), 0);
	memset(host + off, 0, len);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, map, off, ba, len, ABB_DMA_IRQ), 0);
	if (!tb_same("DMA after the fault", host + off, want, len))
		printf("    (recovery DMA of %zu bytes at host offset %zu, board 0x%x)\n", len, off, ba);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
}

static struct abb_sim_inject_spec spec(unsigned kind, unsigned dir, unsigned tlp, unsigned nth)
{
	struct abb_sim_inject_spec s;

	memset(&s, 0, sizeof s);
	s.kind = kind;
	s.dir = dir;
	s.tlp = tlp;
	s.tag = -1;
	s.nth = nth;
	return s;
}

/* A DMA write (host to board) of len bytes from host offset 0 to BOARD_AT
 * with rule s armed. Returns the DMA's result; *id the rule. */
static int faulty_write(const struct abb_sim_inject_spec *s, size_t len, unsigned flags, int *id)
{
	int rc;

	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
	board_prefill(len);
	tb_fill(host, len, next_rnd());
	*id = abb_sim_inject(tb_dev, s);
	CU_ASSERT_FATAL(*id >= 0);
	rc = abb_dma_write(tb_dev, map, 0, BOARD_AT, len, flags);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, *id), 1);
	return rc;
}

/* The DMA failed with -EIO, STA error, and GER has (at least) want. */
static void expect_eio(int rc, uint32_t want, const char *text)
{
	uint32_t ger = msg_field("GER 0x"), sta = msg_field("STA 0x");

	if (rc != -EIO || (ger & want) != want || (sta & 3) != 3 || !strstr(abb_last_error(), text))
		printf("\n    rc %d, want -EIO with GER bits 0x%x and \"%s\": %s\n", rc, want, text,
		       abb_last_error());
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(ger & want, want);
	CU_ASSERT_EQUAL(sta & 3, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), text));
}

/* Completion with status UR, the 2nd completion of the transfer (count). */
static void test_faults_ur(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_UR, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 2);
	int id;

	expect_eio(faulty_write(&s, 8192, 0, &id), ABB_GER_CPL_ERR, "UR/CA status");
	CU_ASSERT(log_has("FAULT UR", "status UR"));
	check_guards(8192);
	recover();
}

/* Completion with status CA, the first completion of tag 3 (tag match),
 * interrupt-driven wait. */
static void test_faults_ca(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_CA, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	int id;

	s.tag = 3;
	expect_eio(faulty_write(&s, 16384, ABB_DMA_IRQ, &id), ABB_GER_CPL_ERR, "UR/CA status");
	CU_ASSERT(log_has("FAULT CA", "tag=03"));
	check_guards(16384);
	recover();
}

/* Poisoned completion data (EP): error, and the data is not in board
 * memory (the first completion: the whole range keeps its prefill). */
static void test_faults_poison(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_POISON, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	uint8_t b[64];
	int id;

	expect_eio(faulty_write(&s, 4096, 0, &id), ABB_GER_POISONED | ABB_GER_CPL_ERR, "poisoned completion");
	CU_ASSERT(log_has("FAULT POISON", " EP"));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
	CU_ASSERT(tb_all_byte("board bytes of the poisoned completion", b, sizeof b, BPAT));
	check_guards(4096);
	recover();
}

/* A dropped completion: the RTL's completion timeout gives the read up. */
static void test_faults_drop(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_DROP, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 3);
	int id;

	expect_eio(faulty_write(&s, 8192, 0, &id), ABB_GER_CPL_TIMEOUT | ABB_GER_CPL_ERR,
		   "completion timeout");
	CU_ASSERT(log_has("FAULT DROP", "dropped"));
	check_guards(8192);
	recover();
}

/* Reopens tb_dev (ABB_WAIT_LIMIT_MS = limit, NULL: the default) and maps
 * the suite's buffer again. */
static void reopen_limit(const char *limit)
{
	if (map)
		(void)abb_dmabuf_unmap(map);
	map = NULL;
	if (limit)
		setenv("ABB_WAIT_LIMIT_MS", limit, 1);
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	unsetenv("ABB_WAIT_LIMIT_MS");
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) >= 0);
}

/* A dropped completion and a wait limit (1 ms of device time) shorter than
 * the RTL's completion timeout: the channel reset cannot stop the write
 * (its mover waits for the completion); the message gives both reasons,
 * the reset's own one included (it was once lost: the message was built
 * from the buffer it was written to). */
static void test_faults_drop_wait_limit(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_DROP, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 3);
	const char *e;
	int id, rc;

	reopen_limit("1");
	rc = faulty_write(&s, 8192, ABB_DMA_IRQ, &id);
	e = abb_last_error();
	CU_ASSERT(rc < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e, "did not finish within the wait limit of 1 ms"));
	CU_ASSERT_PTR_NOT_NULL(strstr(e, "could NOT be stopped (channel reset failed: DMA write "
					 "channel still busy after reset"));
	CU_ASSERT_PTR_NULL(strstr(e, "reset failed: )"));
	if (!strstr(e, "channel still busy after reset"))
		printf("\n    rc %d: %s\n", rc, e);
	reopen_limit(NULL);
	recover();
}

/* A delayed completion: the later completion of the same read passes it
 * (an unexpected Lower Address: CPL_TAG, error); a delayed completion
 * that nothing passes (a 64-byte read) only takes longer. */
static void test_faults_delay(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_DELAY, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	uint8_t b[64];
	uint64_t t0 = 0, t1 = 0;
	int id;

	s.ns = 2000;
	expect_eio(faulty_write(&s, 4096, 0, &id), ABB_GER_CPL_TAG, "unexpected completion");
	CU_ASSERT(log_has("FAULT DELAY", "held back 2000 ns"));
	check_guards(4096);
	recover();

	s.ns = 20000;
	CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t0), 0);
	CU_ASSERT_EQUAL(faulty_write(&s, 64, 0, &id), 0);
	CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
	CU_ASSERT(t1 - t0 >= 20000);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
	CU_ASSERT(tb_same("delayed completion's data", b, host, sizeof b));
	check_guards(64);
	recover();
}

/* The nth completion of a 4 KiB DMA write gets fault kind: the write ends
 * in -EIO with exactly the GER bits ger and the phrase why in its message,
 * the TLP log has the fault's line (fault, detail), nothing outside the
 * buffer moved, and the engine recovers. */
static void cpl_fault_fails_write(unsigned kind, unsigned nth, uint32_t ger, const char *why,
				  const char *fault, const char *detail)
{
	struct abb_sim_inject_spec s = spec(kind, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, nth);
	int id;

	expect_eio(faulty_write(&s, 4096, 0, &id), ger, why);
	CU_ASSERT(log_has(fault, detail));
	check_guards(4096);
	recover();
}

/* A duplicated completion: the copy does not continue the read (CPL_TAG). */
static void test_faults_dup(void)
{
	cpl_fault_fails_write(ABB_SIM_INJ_DUP, 1, ABB_GER_CPL_TAG, "unexpected completion",
			      "FAULT DUP", "sent twice");
}

/* An unexpected completion (a tag with no read outstanding). */
static void test_faults_unexpected(void)
{
	cpl_fault_fails_write(ABB_SIM_INJ_UNEXPECTED, 2, ABB_GER_CPL_TAG, "unexpected completion",
			      "FAULT UNEXPECTED", "outstanding");
}

/* An unexpected completion while all 16 read tags are outstanding (MRRS
 * 128: the DMA write keeps 16 reads in flight from its first completion
 * on): it carries a tag no unit of the board uses (0x7f). The board
 * records it (GER.CPL_TAG) and drops it; it belongs to no transfer, so
 * the DMA completes with the right bytes. */
static void test_faults_unknown_tag(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_UNEXPECTED, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	static uint8_t b[32768];
	int id;

	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	/* all 16 tags busy, so the injector's free tag (127) is none of the
	 * engine's: without the endpoint limits of a board profile (abb2008) */
	CU_ASSERT_FATAL(tb_reopen("mrrs=128,ep_reads=0,ep_rx=0") == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
	CU_ASSERT_EQUAL(faulty_write(&s, sizeof b, 0, &id), 0);
	CU_ASSERT(log_has("FAULT UNEXPECTED", "no request with tag 127 outstanding"));
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), ABB_GER_CPL_TAG);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
	CU_ASSERT(tb_same("DMA with an unknown-tag completion", b, host, sizeof b));
	check_guards(sizeof b);
	recover();
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen(NULL) == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
}

/* A duplicated descriptor-fetch completion (a chain: every page its own
 * IOVA; tag 0x81): the copy comes when the fetch is already done, the
 * chain ends with an error (CPL_TAG), nothing lands outside the range. */
static void test_faults_dup_fetch(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_DUP, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	int id;

	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen("iova=scatter") == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
	s.tag = 0x81;
	expect_eio(faulty_write(&s, 3 * 4096, 0, &id), ABB_GER_CPL_TAG, "unexpected completion");
	CU_ASSERT(log_has("FAULT DUP", "tag=81"));
	check_guards(3 * 4096);
	recover();
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen(NULL) == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
}

/* A malformed completion (Length 2 DWs short of its payload): the RTL
 * drops its last beat (BAD_TLP), the read cannot finish (the next
 * completion of the tag does not continue it; completion timeout). */
static void test_faults_malformed(void)
{
	cpl_fault_fails_write(ABB_SIM_INJ_MALFORMED, 1, ABB_GER_BAD_TLP | ABB_GER_CPL_ERR,
			      "malformed TLP", "FAULT MALFORMED", "short");
}

/* A truncated TLP (its last beat not sent, 2 DWs short of its Length).
 * Down, a PIO write to board memory (one 128-byte TLP): the RTL writes
 * the beats that came, drops the TLP's end (GER.BAD_TLP): 120 bytes new,
 * the last 8 keep the prefill. Up, the completion of a PIO read: the root
 * complex drops it as malformed (a protocol error), the read times out. */
static void test_faults_truncated(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_TRUNCATED, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_MWR, 1);
	uint8_t data[128], b[128];
	int id;

	board_prefill(sizeof data);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
	tb_fill(data, sizeof data, next_rnd());
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, BOARD_AT, data, sizeof data), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
	CU_ASSERT(tb_same("the beats of a truncated PIO write", b, data, 120));
	CU_ASSERT(tb_all_byte("the missing end of a truncated PIO write", b + 120, 8, BPAT));
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER) & ABB_GER_BAD_TLP, ABB_GER_BAD_TLP);
	CU_ASSERT(log_has("FAULT TRUNCATED", "last 2 DWs not sent"));
	check_guards(sizeof data);
	CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);

	s = spec(ABB_SIM_INJ_TRUNCATED, ABB_SIM_DIR_UP, ABB_SIM_TLP_CPL, 1);
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, 64), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "completion timeout"));
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
	CU_ASSERT(abb_sim_protocol_errors(tb_dev, NULL, 0) >= 1); /* the drop is recorded there */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET);
	recover();
}

/* Credit starvation shorter than the completion timeout: the transfer
 * waits and succeeds (each direction once). */
static void test_faults_starve(void)
{
	for (unsigned dir = 0; dir < 2; dir++) {
		struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_STARVE, dir, ABB_SIM_TLP_ANY, 3);
		static uint8_t b[8192];
		uint64_t t0 = 0, t1 = 0;
		int id;

		s.ns = 20000;
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t0), 0);
		CU_ASSERT_EQUAL(faulty_write(&s, sizeof b, 0, &id), 0);
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
		CU_ASSERT(t1 - t0 >= 20000);
		CU_ASSERT(log_has("FAULT STARVE", "no flow-control credits for 20000 ns"));
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
		CU_ASSERT(tb_same("data after credit starvation", b, host, sizeof b));
		CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
		check_guards(sizeof b);
		recover();
	}
}

/* Link down during a DMA write: -ENOLINK while the link is down (the
 * board was reset: the transfer is lost); up again after the duration,
 * config space restored, the engine works. */
static void test_faults_link_down(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_LINK_DOWN, ABB_SIM_DIR_UP, ABB_SIM_TLP_MRD, 2);
	uint32_t v = 0;
	int id, rc;

	s.ns = 30000;
	rc = faulty_write(&s, 16384, 0, &id);
	if (rc != -ENOLINK)
		printf("\n    rc %d, want -ENOLINK: %s\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, -ENOLINK);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "link down"));
	CU_ASSERT(log_has("FAULT LINK_DOWN", "surprise down"));
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_GER, &v), -ENOLINK);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 30000), 0);
	/* the channel could not be reset while the link was down: it stays
	 * claimed; the wait collects it (the board was reset: stopped) */
	rc = abb_dma_write_wait(tb_dev, 1000000);
	if (rc != -EIO)
		printf("\n    wait after link up: rc %d: %s\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "stopped"));
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0); /* reset state */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET);
	/* the transfer was lost with the reset: the board range holds either
	 * the prefill or the data, the guards are intact */
	check_guards(16384);
	recover();
}

/* Upstream: the board's completions of PIO reads (UR, then dropped: the
 * root complex's completion timeout); the read fails with -EIO. */
static void test_faults_pio_up(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_UR, ABB_SIM_DIR_UP, ABB_SIM_TLP_CPL, 1);
	uint32_t v = 0;
	int id;

	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "st=UR"));
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
	s.kind = ABB_SIM_INJ_DROP;
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "completion timeout"));
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
	s.kind = ABB_SIM_INJ_POISON;
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "poisoned"));
	CU_ASSERT(log_has("up", "FAULT DROP"));
	CU_ASSERT(abb_sim_protocol_errors(tb_dev, NULL, 0) >= 1); /* the timeout is recorded there */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET);
	recover();
}

/* By address: the board's read request of a host range found in the TLP
 * log of a clean run is dropped (completion timeout). */
static void test_faults_by_address(void)
{
	struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_DROP, ABB_SIM_DIR_UP, ABB_SIM_TLP_MRD, 1);
	unsigned long long a = 0;
	char line[512];
	FILE *f;
	int id;

	char other[80];

	snprintf(other, sizeof other, "%s.2", logpath);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, map, 0, BOARD_AT, 4096, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, other), 0); /* closes logpath */
	f = fopen(logpath, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof line, f)) {
		char *m = strstr(line, " up   MRd");
		char *p = m ? strstr(m, "addr=0x") : NULL;

		if (p) {
			a = strtoull(p + 7, NULL, 16);
			break;
		}
	}
	fclose(f);
	unlink(other);
	CU_ASSERT_FATAL(a != 0);
	s.addr_lo = a + 1024; /* a read of the second 1 KiB of the same host range */
	s.addr_hi = a + 2048;
	expect_eio(faulty_write(&s, 4096, 0, &id), ABB_GER_CPL_TIMEOUT, "completion timeout");
	CU_ASSERT(log_has("FAULT DROP", "MRd"));
	check_guards(4096);
	recover();
}

/* By probability: the same seed fires on the same transfers. */
static void test_faults_by_probability(void)
{
	unsigned got[2] = {0, 0}, pattern[2] = {0, 0};

	for (int run = 0; run < 2; run++) {
		struct abb_sim_inject_spec s = spec(ABB_SIM_INJ_UR, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 0);
		int id;

		s.prob = 0.02;
		s.seed = 77;
		id = abb_sim_inject(tb_dev, &s);
		CU_ASSERT_FATAL(id >= 0);
		for (unsigned i = 0; i < 16; i++) {
			int rc = abb_dma_write(tb_dev, map, 0, BOARD_AT, 1024, 0);

			CU_ASSERT(rc == 0 || rc == -EIO);
			if (rc) {
				got[run]++;
				pattern[run] |= 1u << i;
				CU_ASSERT_EQUAL(msg_field("GER 0x") & ABB_GER_CPL_ERR, ABB_GER_CPL_ERR);
				CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
			}
		}
		/* a transfer may meet more than one firing (per completion) */
		CU_ASSERT((unsigned)abb_sim_inject_hits(tb_dev, id) >= got[run]);
		CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
	}
	printf("\n    probability 0.02 per completion, seed 77: %u of 16 transfers failed "
	       "(mask 0x%04x), again: %u (0x%04x)\n", got[0], pattern[0], got[1], pattern[1]);
	CU_ASSERT(got[0] > 0 && got[0] < 16);
	CU_ASSERT_EQUAL(pattern[0], pattern[1]);
	recover();
}

/* DMA read (board to host): its data goes up as posted writes, which the
 * board cannot see fail (on PCIe the root complex reports them through
 * AER): a dropped or poisoned write leaves its bytes of the host buffer as
 * they were and the DMA returns 0; the root complex records a poisoned
 * write as a protocol error. Nothing lands outside the buffer. */
static void test_faults_dma_read_posted(void)
{
	static uint8_t want[8192];
	static const unsigned kinds[2] = {ABB_SIM_INJ_DROP, ABB_SIM_INJ_POISON};

	for (int k = 0; k < 2; k++) {
		struct abb_sim_inject_spec s = spec(kinds[k], ABB_SIM_DIR_UP, ABB_SIM_TLP_MWR, 2);
		size_t lost = 0;
		int id;

		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
		tb_fill(want, sizeof want, next_rnd());
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, BOARD_AT, want, sizeof want), 0);
		memset(host, 0xee, sizeof want);
		id = abb_sim_inject(tb_dev, &s);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, map, 0, BOARD_AT, sizeof want, 0), 0);
		CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
		for (size_t i = 0; i < sizeof want; i++)
			if (host[i] != want[i]) {
				CU_ASSERT_EQUAL(host[i], 0xee);
				lost++;
			}
		CU_ASSERT(lost > 0 && lost <= 128); /* one TLP of at most MPS bytes */
		CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), k);
		CU_ASSERT(log_has(k ? "FAULT POISON" : "FAULT DROP", "MWr"));
		CU_ASSERT(tb_all_byte("host guard page before", area, tb_page(), HPAT));
		CU_ASSERT(tb_all_byte("host guard page after", host + HOSTLEN, tb_page(), HPAT));
		CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);
		recover();
	}
}

/* The descriptor fetch of a chain (every page its own IOVA: a chain of
 * one descriptor per page; the DMA-write channel fetches with tag 0x81):
 * a poisoned fetch and a dropped one end the chain with an error; the
 * data of the first descriptor is in board memory all the same
 * (REGISTERS.md STA.ERR_DATA). */
static void test_faults_descriptor_fetch(void)
{
	static const unsigned kinds[2] = {ABB_SIM_INJ_POISON, ABB_SIM_INJ_DROP};
	static const uint32_t ger[2] = {ABB_GER_POISONED | ABB_GER_CPL_ERR,
					ABB_GER_CPL_TIMEOUT | ABB_GER_CPL_ERR};
	static uint8_t b[4096];

	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen("iova=scatter") == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
	for (int k = 0; k < 2; k++) {
		struct abb_sim_inject_spec s = spec(kinds[k], ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
		int id;

		s.tag = 0x81;
		expect_eio(faulty_write(&s, 3 * 4096, 0, &id), ger[k],
			   k ? "completion timeout" : "poisoned completion");
		CU_ASSERT(log_has(k ? "FAULT DROP" : "FAULT POISON", "tag=81"));
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, BOARD_AT, b, sizeof b), 0);
		CU_ASSERT(tb_same("first descriptor's data of a failed chain", b, host, sizeof b));
		check_guards(3 * 4096);
		recover();
	}
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen(NULL) == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
}

/* A bad rule is refused with a message; the other backends: -ENOTSUP. */
static void test_faults_bad_spec(void)
{
	struct abb_sim_inject_spec s = spec(99, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	int rc;

	TB_REQUIRE_DEV();
	rc = abb_sim_inject(tb_dev, &s);
	if (!tb_is_sim()) {
		CU_ASSERT_EQUAL(rc, -ENOTSUP);
		return;
	}
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "fault kind 99"));
	s = spec(ABB_SIM_INJ_DROP, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 0);
	CU_ASSERT_EQUAL(abb_sim_inject(tb_dev, &s), -EINVAL); /* neither nth nor prob */
	s = spec(ABB_SIM_INJ_DELAY, ABB_SIM_DIR_DOWN, ABB_SIM_TLP_CPL, 1);
	CU_ASSERT_EQUAL(abb_sim_inject(tb_dev, &s), -EINVAL); /* ns 0 */
	CU_ASSERT_EQUAL(abb_sim_inject(tb_dev, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, 63), -ENOENT);
}

/* Issue 18 (fault kinds defined once): libabb's kinds are the simulator's
 * own (abbsim_inject.h), so every kind <abb/abb_sim.h> names is accepted
 * and the first one past the last is refused, with a message that names
 * the constants a libabb program has (it named the simulator's private
 * ABBSIM_FAULT_* and ABBSIM_TLP_* while the two sets were copies). */
static void test_faults_kinds_are_libabbs(void)
{
	const unsigned last = ABB_SIM_INJ_TRUNCATED;
	struct abb_sim_inject_spec s;
	char want[64];

	TB_REQUIRE_DEV();
	for (unsigned k = ABB_SIM_INJ_UR; k <= last; k++) {
		s = spec(k, ABB_SIM_DIR_UP, ABB_SIM_TLP_ANY, 1000000); /* never reached */
		int rc;

		s.ns = 1000;
		rc = abb_sim_inject(tb_dev, &s);
		CU_ASSERT_TRUE(rc >= 0);
		if (rc < 0)
			printf("    kind %u refused: %s\n", k, abb_last_error());
	}
	CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
	s = spec(last + 1, ABB_SIM_DIR_UP, ABB_SIM_TLP_ANY, 1);
	CU_ASSERT_EQUAL(abb_sim_inject(tb_dev, &s), -EINVAL);
	snprintf(want, sizeof want, "accepted %u..%u (ABB_SIM_INJ_*)", (unsigned)ABB_SIM_INJ_UR, last);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), want));
	if (!strstr(abb_last_error(), want))
		printf("    message: %s\n", abb_last_error());
	s = spec(ABB_SIM_INJ_DROP, ABB_SIM_DIR_UP, ABB_SIM_TLP_MSG + 1, 1);
	CU_ASSERT_EQUAL(abb_sim_inject(tb_dev, &s), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "(ABB_SIM_TLP_*)"));
	if (!strstr(abb_last_error(), "(ABB_SIM_TLP_*)"))
		printf("    message: %s\n", abb_last_error());
}

static CU_TestInfo faults_tests[] = {
	{ "test_faults_bad_spec", test_faults_bad_spec },
	TB_SIM_TEST(test_faults_ur),
	TB_SIM_TEST(test_faults_ca),
	TB_SIM_TEST(test_faults_poison),
	TB_SIM_TEST(test_faults_drop),
	TB_SIM_TEST(test_faults_drop_wait_limit),
	TB_SIM_TEST(test_faults_delay),
	TB_SIM_TEST(test_faults_dup),
	TB_SIM_TEST(test_faults_unexpected),
	TB_SIM_TEST(test_faults_unknown_tag),
	TB_SIM_TEST(test_faults_dup_fetch),
	TB_SIM_TEST(test_faults_malformed),
	TB_SIM_TEST(test_faults_truncated),
	TB_SIM_TEST(test_faults_starve),
	TB_SIM_TEST(test_faults_link_down),
	TB_SIM_TEST(test_faults_pio_up),
	TB_SIM_TEST(test_faults_descriptor_fetch),
	TB_SIM_TEST(test_faults_dma_read_posted),
	TB_SIM_TEST(test_faults_by_address),
	TB_SIM_TEST(test_faults_by_probability),
	TB_SIM_TEST(test_faults_kinds_are_libabbs),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo faults_suite[] = {
	{ "faults", faults_init, faults_cleanup, NULL, NULL, faults_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_faults(void)
{
	return CU_register_suites(faults_suite);
}
