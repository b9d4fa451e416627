/*
 * fuzz_device.c - libFuzzer target: random register writes and descriptor
 * chains on the reference model (default) or the simulator
 * (FUZZ_DEVICE=sim; the plain libabbsim.so named by ABB_SIM_LIB).
 *
 * One device is opened for the whole run, with pio=wc (FUZZ_PIO=uc for
 * the uncached store path): the simulator's write-combining store model
 * (buffers, eviction, partial lines) is the one with state to get wrong. Three host buffers of BUF_PAGES
 * pages are mapped for DMA, each in its own mmap with a PROT_NONE guard
 * page before and after: a device write (or read) outside mapped memory
 * kills the process (SIGSEGV, reported by libFuzzer as a crash). Buffer 0
 * holds descriptor lists; descriptors and channel registers take host
 * addresses inside the buffers, just outside them, or anything.
 *
 * The input is a list of operations (first byte of each: the kind):
 *   register write       any BAR0 offset below 0x100, any value
 *   descriptor           8 words written into buffer 0 at a 64-byte slot
 *   raw start            PAH..LENG then CTRL of a channel (libabb bypassed)
 *   poll                 STA of both channels, a bounded number of reads
 *   API DMA              abb_dma_read/write_start + _wait (10 ms bound) with
 *                        random offset, length, board address and flags
 *   PIO                  abb_mem_read/write at a random offset and length
 *   PIO block            abb_pio_write_block: half the time a valid width
 *                        with an aligned offset and length inside BAR1, else
 *                        a width not in the list, a misaligned offset or
 *                        length, a range past BAR1 or wrapping past 2^32,
 *                        NULL buf, len 0, or anything. The answer must be
 *                        the one abb.h's rules give (0, else -EINVAL), and
 *                        with both channels idle the range must read back
 *                        (after a flush, or a read alone: a read flushes) as
 *                        written, or unchanged after a refusal
 *   PIO flush / mapping  abb_pio_flush (0); abb_pio_mapping with why NULL or
 *                        a buffer of random size: ABB_PIO_UC or _WC, the
 *                        line NUL-terminated inside it, nothing written past
 *                        it (-EINVAL for size 0)
 *   interrupt wait       abb_irq_wait with a 1 ms bound (returns the bits
 *                        that fired: a subset of the source)
 * After the list both channels are reset (CTRL = RESET|V|BAR) and must be
 * idle within a bounded number of STA reads, and a normal DMA round trip
 * must return the right bytes (the device is still usable).
 * Checks: no crash, no undefined behaviour (libabb under ASan+UBSan), no
 * access outside mapped memory (guard pages), every call returns 0 or a
 * negative errno (abb_irq_wait: or its source bits), no hang (every wait bounded; libFuzzer -timeout).
 */
#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NBUF 3
#define BUF_PAGES 4
#define PAGE 4096u
#define BUF_LEN (BUF_PAGES * PAGE)
#define POLLS 2000

static abb_dev *dev;
static int is_sim;
static size_t mem_size;
static uint8_t *buf[NBUF];
static abb_dmabuf *map[NBUF];

#define CHECK_RC(what, rc)                                                             \
	do {                                                                           \
		int rc_ = (rc);                                                        \
		if (rc_ > 0 || rc_ < -4095) {                                          \
			fprintf(stderr, "fuzz_device: %s returned %d, neither 0 nor a " \
				"negative errno\n", what, rc_);                        \
			abort();                                                       \
		}                                                                      \
	} while (0)

static void die(const char *what, int rc)
{
	fprintf(stderr, "fuzz_device: %s: %d (%s)\n", what, rc, abb_last_error());
	abort();
}

/* The IOVA of byte off of buffer i (off < BUF_LEN), from its pieces. */
static uint64_t iova_of(unsigned i, size_t off)
{
	uint64_t addr = 0, len = 0;
	size_t n = 0;
	int rc = abb_dmabuf_pieces(map[i], &n);

	for (size_t k = 0; !rc && k < n; k++) {
		rc = abb_dmabuf_piece(map[i], k, &addr, &len);
		if (!rc && off < len)
			return addr + off;
		off -= len;
	}
	die("abb_dmabuf_piece", rc ? rc : -ERANGE);
	return 0;
}

/* At exit: buffers unmapped, device closed. */
static void teardown(void)
{
	for (unsigned i = 0; i < NBUF; i++)
		if (map[i])
			CHECK_RC("abb_dmabuf_unmap", abb_dmabuf_unmap(map[i]));
	abb_close(dev);
}

static void setup(void)
{
	const char *which = getenv("FUZZ_DEVICE");
	int rc;

	const char *pio_map = getenv("FUZZ_PIO");
	char uri[64];

	is_sim = which && strcmp(which, "sim") == 0;
	snprintf(uri, sizeof uri, "%s:pio=%s", is_sim ? "sim" : "model",
		 pio_map && *pio_map ? pio_map : "wc");
	rc = abb_open(&dev, uri);
	if (rc)
		die("abb_open", rc);
	rc = abb_mem_size(dev, &mem_size);
	if (rc)
		die("abb_mem_size", rc);
	for (unsigned i = 0; i < NBUF; i++) {
		uint8_t *p = mmap(NULL, BUF_LEN + 2 * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || mprotect(p, PAGE, PROT_NONE) ||
		    mprotect(p + PAGE + BUF_LEN, PAGE, PROT_NONE))
			die("mmap with guard pages", -errno);
		buf[i] = p + PAGE;
		rc = abb_dmabuf_map(dev, buf[i], BUF_LEN, &map[i]);
		if (rc)
			die("abb_dmabuf_map", rc);
	}
	atexit(teardown);
}

/* Once, before the first input (allocations here are not per-input leaks). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setup();
	return 0;
}

struct in {
	const uint8_t *p;
	size_t n;
};

static uint32_t take(struct in *in, unsigned bytes)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n)
			in->p++, in->n--;
	}
	return v;
}

/* A host address: inside a buffer, at its edges, or anything. */
static uint64_t host_addr(struct in *in)
{
	uint32_t sel = take(in, 1), off = take(in, 2);

	switch (sel & 3) {
	case 0:
	case 1:
		return iova_of(sel >> 2 & 1 ? 2 : 1, off % BUF_LEN);
	case 2: /* near the end of a buffer: a DMA may run past it */
		return iova_of((sel >> 2) % NBUF, BUF_LEN - 1 - off % 256);
	default:
		return (uint64_t)take(in, 4) << (sel & 4 ? 32 : 0) | take(in, 4);
	}
}

/* A next-descriptor address: a slot of buffer 0, or anything. */
static uint64_t desc_addr(struct in *in)
{
	uint32_t sel = take(in, 1);

	if (sel < 224)
		return iova_of(0, (sel % (BUF_LEN / ABB_DESC_ALIGN)) * ABB_DESC_ALIGN);
	return (uint64_t)take(in, 4) << 32 | take(in, 4);
}

static uint32_t ctrl_word(struct in *in)
{
	uint32_t sel = take(in, 1), v = take(in, 4);

	if (sel & 0x80)
		return v; /* anything */
	/* mostly sensible: V, BAR, INC, UPA, LAST, EDI, EEI from the bits */
	return ABB_CTRL_V | (sel & 1 ? ABB_CTRL_BAR : 0) | (sel & 2 ? ABB_CTRL_INC : 0) |
	       (sel & 4 ? ABB_CTRL_UPA : 0) | (sel & 8 ? ABB_CTRL_LAST : 0) |
	       (sel & 16 ? ABB_CTRL_EDI : 0) | (sel & 32 ? ABB_CTRL_EEI : 0) |
	       (sel & 64 ? (v & ABB_CTRL_RESET) : 0);
}

static uint32_t leng(struct in *in)
{
	uint32_t sel = take(in, 1), v = take(in, 2);

	if (sel < 200)
		return v % (2 * BUF_LEN);
	return take(in, 4) | v; /* anything */
}

static uint32_t reg(uint32_t off)
{
	uint32_t v = 0;

	CHECK_RC("abb_reg_read", abb_reg_read(dev, off, &v));
	return v;
}

static void reg_set(uint32_t off, uint32_t v)
{
	CHECK_RC("abb_reg_write", abb_reg_write(dev, off, v));
}

/* STA of blk until not BUSY or the bound; returns the last STA. */
static uint32_t poll_sta(uint32_t blk, unsigned polls)
{
	uint32_t s = 0;

	for (unsigned i = 0; i < polls; i++) {
		s = reg(blk + ABB_CH_STA);
		if (!(s & ABB_STA_BUSY))
			break;
		if (is_sim)
			CHECK_RC("abb_sim_advance", abb_sim_advance(dev, 1000));
	}
	return s;
}

static void raw_start(struct in *in)
{
	uint32_t blk = take(in, 1) & 1 ? ABB_BLK_C2H : ABB_BLK_H2C;
	uint64_t ha = host_addr(in), bda = desc_addr(in);
	uint32_t pa = take(in, 4) % (uint32_t)(2 * mem_size);

	reg_set(blk + ABB_CH_PAH, 0);
	reg_set(blk + ABB_CH_PAL, pa);
	reg_set(blk + ABB_CH_HAH, (uint32_t)(ha >> 32));
	reg_set(blk + ABB_CH_HAL, (uint32_t)ha);
	reg_set(blk + ABB_CH_BDAH, (uint32_t)(bda >> 32));
	reg_set(blk + ABB_CH_BDAL, (uint32_t)bda);
	reg_set(blk + ABB_CH_LENG, leng(in));
	reg_set(blk + ABB_CH_CTRL, ctrl_word(in));
}

static void descriptor(struct in *in)
{
	unsigned slot = take(in, 1) % (BUF_LEN / ABB_DESC_ALIGN);
	uint32_t *d = (uint32_t *)(buf[0] + slot * ABB_DESC_ALIGN);
	uint64_t ha = host_addr(in), bda = desc_addr(in);

	d[0] = 0;
	d[1] = take(in, 4) % (uint32_t)(2 * mem_size);
	d[2] = (uint32_t)(ha >> 32);
	d[3] = (uint32_t)ha;
	d[4] = (uint32_t)(bda >> 32);
	d[5] = (uint32_t)bda;
	d[6] = leng(in);
	d[7] = ctrl_word(in);
}

static void api_dma(struct in *in)
{
	uint32_t sel = take(in, 1);
	unsigned b = (sel >> 1) % NBUF;
	size_t off = take(in, 2) % (BUF_LEN + 64);
	size_t len = take(in, 2) % (BUF_LEN + 64);
	uint32_t ba = take(in, 4) % (uint32_t)(mem_size + 256);
	unsigned flags = take(in, 1) & (ABB_DMA_FIXED | ABB_DMA_IRQ);
	int rc;

	if (b == 0)
		b = 1; /* buffer 0 keeps the descriptor lists */
	int (*wait)(abb_dev *, int64_t) = sel & 1 ? abb_dma_read_wait : abb_dma_write_wait;

	if (sel & 1)
		rc = abb_dma_read_start(dev, map[b], off, ba, len, flags);
	else
		rc = abb_dma_write_start(dev, map[b], off, ba, len, flags);
	CHECK_RC("abb_dma_*_start", rc);
	if (rc)
		return;
	rc = wait(dev, 10000000);
	CHECK_RC("abb_dma_*_wait", rc);
	if (rc == -ETIMEDOUT) {
		/* still running (e.g. a FIFO read of the disabled event source):
		 * a channel reset must end it, and the next wait must say so */
		reg_set((sel & 1 ? ABB_BLK_C2H : ABB_BLK_H2C) + ABB_CH_CTRL,
			0x0000000Au | ABB_CTRL_V | ABB_CTRL_BAR);
		rc = wait(dev, 10000000);
		CHECK_RC("abb_dma_*_wait after a reset", rc);
		if (rc == -ETIMEDOUT)
			die("DMA wait after a channel reset still times out", rc);
	}
}

static void pio(struct in *in)
{
	uint8_t tmp[256];
	uint32_t sel = take(in, 1);
	uint32_t off = take(in, 4) % (uint32_t)(mem_size + 512);
	size_t len = take(in, 1) + 1;

	if (sel & 1)
		CHECK_RC("abb_mem_read", abb_mem_read(dev, off, tmp, len));
	else {
		memset(tmp, sel, sizeof tmp);
		CHECK_RC("abb_mem_write", abb_mem_write(dev, off, tmp, len));
	}
}

/* Neither channel busy: no DMA writes board memory meanwhile. */
static int channels_idle(void)
{
	return !(reg(ABB_BLK_H2C + ABB_CH_STA) & ABB_STA_BUSY) &&
	       !(reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY);
}

static const unsigned pio_widths[] = {1, 2, 4, 8, 16, 32, 64};

/* What abb.h promises to accept: a width of the list, off and len
 * multiples of it, len > 0, the range inside BAR1, buf set. */
static int pio_block_ok(uint32_t off, const void *p, size_t len, unsigned w)
{
	int width_ok = 0;

	for (unsigned i = 0; i < sizeof pio_widths / sizeof pio_widths[0]; i++)
		width_ok |= w == pio_widths[i];
	return width_ok && p && len && off % w == 0 && len % w == 0 && off < mem_size &&
	       len <= mem_size - off;
}

static void pio_block(struct in *in)
{
	/* up to 2 KiB: 32 lines, more than the WC buffers (evictions) */
	static uint8_t src[2048 + 64], before[2048 + 64], after[2048 + 64];
	static unsigned gen;
	uint32_t sel = take(in, 1);
	unsigned w = pio_widths[take(in, 1) % 7];
	uint32_t off = take(in, 4);
	size_t len = take(in, 2) % (sizeof src + 1);
	const void *p = src;
	int ok, idle, inside, rc;

	/* half the time a good request: aligned, inside BAR1 */
	len = len / w * w;
	if (len == 0)
		len = w;
	off = (uint32_t)((off % (mem_size - len + 1)) / w * w);
	switch (sel & 0x08 ? sel >> 5 : 0) {
	case 1: { /* a width not in the list: next to one, or any */
		static const unsigned bad_w[] = {0, 3, 5, 6, 7, 12, 24, 48, 63, 65, 96, 128, 256, 4096,
						 0x80000000u, 0xffffffffu};
		uint32_t k = take(in, 1);

		w = k < 16 * 12 ? bad_w[k % 16] : take(in, 4);
		if (w && w <= 4096) { /* otherwise right: aligned to it, inside BAR1 */
			len = len / w * w;
			if (len == 0)
				len = w;
			off = (uint32_t)((off % (mem_size - len + 1)) / w * w);
		}
		break;
	}
	case 2: /* misaligned offset or length */
		if (w == 1)
			w = 2, len = len / 2 * 2 + 2, off &= ~1u;
		if (sel & 1)
			off |= 1;
		else
			len++;
		break;
	case 3: /* past the end of BAR1, or wrapping past 2^32 */
		off = sel & 1 ? (uint32_t)mem_size - w * (take(in, 1) % 4) : 0u - w * (1 + take(in, 1) % 4);
		len = len + 4 * w;
		break;
	case 4:
		p = NULL;
		break;
	case 5:
		len = 0;
		break;
	case 6: /* anything */
		w = take(in, 1);
		off = take(in, 4);
		len = take(in, 2) % (sizeof src + 1);
		break;
	default:
		break;
	}
	ok = pio_block_ok(off, p, len, w);
	gen++;
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(gen * 29 + i * 7 + (i >> 8));
	/* the range as it was, where it lies inside BAR1, to see what changed */
	inside = len && len <= sizeof before && off < mem_size && len <= mem_size - off;
	idle = channels_idle();
	if (inside && idle)
		CHECK_RC("abb_mem_read", abb_mem_read(dev, off, before, len));
	rc = abb_pio_write_block(dev, off, p, len, w);
	CHECK_RC("abb_pio_write_block", rc);
	if (ok ? rc != 0 : rc != -EINVAL) {
		fprintf(stderr, "fuzz_device: abb_pio_write_block(off 0x%x, len %zu, width %u, buf %s) "
			"returned %d, expected %s\n", off, len, w, p ? "set" : "NULL", rc,
			ok ? "0" : "-EINVAL");
		abort();
	}
	if (!inside || !idle)
		return;
	/* a read flushes too: half the time without the explicit flush */
	if (sel & 0x10)
		CHECK_RC("abb_pio_flush", abb_pio_flush(dev));
	CHECK_RC("abb_mem_read", abb_mem_read(dev, off, after, len));
	if (!channels_idle())
		return; /* nothing started a channel; no data check if one runs */
	const uint8_t *want = ok ? src : before;

	if (memcmp(after, want, len) != 0) {
		size_t i = 0;

		while (after[i] == want[i])
			i++;
		fprintf(stderr, "fuzz_device: abb_pio_write_block(off 0x%x, len %zu, width %u)%s: "
			"byte %zu reads 0x%02x, expected 0x%02x\n", off, len, w,
			ok ? "" : " (refused: nothing stored)", i, after[i], want[i]);
		abort();
	}
}

static void pio_flush_mapping(struct in *in)
{
	char why[300];
	uint32_t sel = take(in, 1);
	size_t n = take(in, 1) % 257;
	int rc;

	if (sel & 1) {
		CHECK_RC("abb_pio_flush", rc = abb_pio_flush(dev));
		if (rc)
			die("abb_pio_flush", rc);
		return;
	}
	memset(why, 0x7e, sizeof why);
	rc = abb_pio_mapping(dev, sel & 2 ? NULL : why, n);
	CHECK_RC("abb_pio_mapping", rc < 0 ? rc : 0);
	if (!(sel & 2) && n == 0) {
		if (rc != -EINVAL)
			die("abb_pio_mapping with a buffer of size 0 did not return -EINVAL", rc);
		return;
	}
	if (rc != ABB_PIO_UC && rc != ABB_PIO_WC)
		die("abb_pio_mapping: neither ABB_PIO_UC nor ABB_PIO_WC", rc);
	if (sel & 2)
		return;
	if (!memchr(why, 0, n))
		die("abb_pio_mapping: the line is not NUL-terminated inside its buffer", (int)n);
	for (size_t i = n; i < sizeof why; i++)
		if (why[i] != 0x7e)
			die("abb_pio_mapping wrote past its buffer", (int)n);
}

/* Both channels reset and idle; errors cleared (lenient W1C; harmless in
 * strict mode), interrupt enables and the generator off. */
static void quiesce(const char *when)
{
	for (unsigned c = 0; c < 2; c++) {
		uint32_t blk = c ? ABB_BLK_C2H : ABB_BLK_H2C, s;

		reg_set(blk + ABB_CH_CTRL, 0x0000000Au | ABB_CTRL_V | ABB_CTRL_BAR);
		s = poll_sta(blk, POLLS);
		if (s & ABB_STA_BUSY) {
			fprintf(stderr, "fuzz_device: %s: channel %u still busy after a reset "
				"(STA 0x%x after %u reads)\n", when, c, s, POLLS);
			abort();
		}
	}
	reg_set(ABB_REG_IER, 0);
	reg_set(ABB_REG_GER, 0xffffffffu);
	reg_set(ABB_REG_ISR, 0xffffffffu);
}

/* A normal DMA round trip of a random size: the device still works. */
static void check_usable(uint32_t seed)
{
	size_t len = 4 + (seed % (BUF_LEN / 4 - 1)) * 4;
	int rc;

	for (size_t i = 0; i < len; i++)
		buf[1][i] = (uint8_t)(seed + i * 7);
	rc = abb_dma_write(dev, map[1], 0, 0, len, 0);
	if (rc)
		die("DMA write after the fuzz operations", rc);
	memset(buf[2], 0, len);
	rc = abb_dma_read(dev, map[2], 0, 0, len, 0);
	if (rc)
		die("DMA read after the fuzz operations", rc);
	if (memcmp(buf[1], buf[2], len) != 0) {
		fprintf(stderr, "fuzz_device: round trip of %zu bytes returned wrong data\n", len);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size};
	unsigned ops = 0;
	uint32_t sum = 0;

	for (size_t i = 0; i < size; i++)
		sum = sum * 31 + data[i];
	while (in.n && ops++ < 64) {
		switch (take(&in, 1) % 10) {
		case 0: {
			uint32_t off = take(&in, 1) << 2;

			reg_set(off, take(&in, 4));
			break;
		}
		case 1:
		case 2:
			descriptor(&in);
			break;
		case 3:
			raw_start(&in);
			break;
		case 4:
			poll_sta(take(&in, 1) & 1 ? ABB_BLK_C2H : ABB_BLK_H2C, 1 + take(&in, 1));
			break;
		case 5:
			api_dma(&in);
			break;
		case 6:
			pio(&in);
			break;
		case 8:
			pio_block(&in);
			break;
		case 9:
			pio_flush_mapping(&in);
			break;
		case 7: {
			/* returns the bits that fired: a subset of the source */
			unsigned src = 1u << (take(&in, 1) % 3);
			int rc = abb_irq_wait(dev, src, 1000000);

			if (rc > 0 && ((unsigned)rc & ~src))
				die("abb_irq_wait returned bits outside its source", rc);
			CHECK_RC("abb_irq_wait", rc > 0 ? 0 : rc);
			break;
		}
		}
	}
	quiesce("after the operations");
	check_usable(sum);
	quiesce("after the round trip");
	return 0;
}
