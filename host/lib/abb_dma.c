/*
 * abb_dma.c - the DMA driver: descriptor chains, start, completion.
 *
 * Written once on top of the backend's register and map operations, so the
 * simulator exercises the very code that drives the board.
 *
 * A transfer gets a fresh chain built from the IOVA pieces of the buffer
 * range: one descriptor per contiguous piece. The first descriptor goes
 * straight into the channel's register block; descriptors 2..n live in a
 * per-channel area of host memory that the library allocates page aligned
 * and maps for the device. Slot i of the area is at page i/64, byte
 * 64*(i%64): 64-byte aligned, never crossing 4 KiB. Nothing is patched in
 * place and restored afterwards (a defect of the original library).
 *
 * The protocol is the one the board's original stack used (evidence
 * "board" in REGISTERS.md); nothing here needs a model-defined effect
 * (ISR or GER write-1-to-clear, DONE or ISR cleared by a start):
 *  - start: CTRL = RESET_CODE|V|BAR, then STA read until BUSY is clear
 *    (this clears DONE and the channel's ISR bit); the channel's IER bit
 *    set (ABB_DMA_IRQ, descriptors with EDI|EEI) or cleared (polling) by a
 *    read-modify-write of that bit; PAH, PAL, HAH, HAL, BDAH, BDAL, LENG;
 *    CTRL last (V set: the channel starts).
 *  - completion: STA read until BUSY is clear. DONE without BUSY = done;
 *    DONE with BUSY = error (-EIO, channel reset); neither = the channel
 *    was stopped (reset, GCR.SOFT_RESET, hot reset: -EIO, channel reset).
 *    Polling: the first read after 7/8 of the expected time (poll_delay),
 *    then a few reads back to back, then reads spaced 1 us growing to
 *    100 us (the backend's delay_ns). Interrupts: the wait sleeps on the
 *    backend's interrupt count in slices of at most ABB_IRQ_SLICE_NS and
 *    reads STA after every wake or slice, so it does not matter who
 *    acknowledged the interrupt; at the end the channel's IER bit is
 *    cleared (the acknowledge: the INTx level falls) and the backend
 *    unmasks the line.
 *  - a wait that fails for any reason other than the caller's own timeout
 *    (a failed register read, the simulator's watchdog, the device's wait
 *    limit, abb_close) resets the channel and releases it, so libabb never
 *    treats a channel as free while its STA says BUSY. If even the reset
 *    fails, the channel stays claimed (its buffer cannot be unmapped) and
 *    the message says so.
 *
 * Locking: a channel's lock guards its bookkeeping only; it is never held
 * while waiting for the board, and every path that takes it releases it.
 * A second start on a busy channel fails with -EBUSY instead of blocking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abb_priv.h"

#define ABB_PAGE 4096u
#define ABB_DESC_PER_PAGE (ABB_PAGE / ABB_DESC_ALIGN)
/* Largest piece per descriptor (LENG is 32 bits; BAR1 is far smaller). */
#define ABB_PIECE_MAX (1u << 30)
/* Polled waits: STA reads back to back before backing off, and the
 * first and largest pause between reads (device time, ns). */
#define ABB_POLL_SPIN 8
#define ABB_POLL_NAP_MIN 1000
#define ABB_POLL_NAP_MAX 100000
/* each pause is longer than the last by a quarter */
#define ABB_POLL_NAP_GROW 4
/* abb_close waits this long (device time) for running DMAs. */
#define ABB_CLOSE_WAIT_NS 10000000
/* STA reads after a channel reset before giving up on it becoming idle. */
#define ABB_RESET_POLLS 100

static const uint32_t ctrl_reset = (ABB_CTRL_RESET_CODE & ABB_CTRL_RESET) | ABB_CTRL_V |
				   ABB_CTRL_BAR;

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void abb_dma_init(abb_dev *dev)
{
	struct abb_chan *rd = &dev->chan[ABB_CH_C2H], *wr = &dev->chan[ABB_CH_H2C];

	memset(dev->chan, 0, sizeof dev->chan);
	pthread_mutex_init(&rd->lock, NULL);
	pthread_mutex_init(&wr->lock, NULL);
	rd->what = "DMA read";
	rd->base = ABB_BLK_C2H;
	rd->irq_bit = ABB_ISR_C2H;
	wr->what = "DMA write";
	wr->base = ABB_BLK_H2C;
	wr->irq_bit = ABB_ISR_H2C;
}

/* Resets one channel (this clears its STA and its ISR bit) and waits
 * until STA shows it not busy. */
static int chan_reset(abb_dev *dev, struct abb_chan *ch)
{
	uint32_t sta = 0;
	int rc = abb_wr(dev, ch->base + ABB_CH_CTRL, ctrl_reset);

	for (int i = 0; !rc && i < ABB_RESET_POLLS; i++) {
		rc = abb_rd(dev, ch->base + ABB_CH_STA, &sta);
		if (!rc && !(sta & ABB_STA_BUSY))
			return 0;
	}
	return rc ? rc : abb_err(-EIO, "%s channel still busy after reset (STA 0x%08x)",
				 ch->what, sta);
}

/* Channel resets clear the channels' ISR bits; ISR is not written (a
 * write-1-to-clear ISR is model-defined). GER gets back what it holds:
 * clears it where it is write-1-to-clear, changes nothing elsewhere. */
int abb_dma_reset_all(abb_dev *dev)
{
	uint32_t ger = 0;
	int rc = chan_reset(dev, &dev->chan[ABB_CH_C2H]);

	if (!rc)
		rc = chan_reset(dev, &dev->chan[ABB_CH_H2C]);
	if (!rc)
		rc = abb_wr(dev, ABB_REG_IER, 0);
	if (!rc)
		rc = abb_rd(dev, ABB_REG_GER, &ger);
	if (!rc && ger)
		rc = abb_wr(dev, ABB_REG_GER, ger);
	return rc;
}

static void desc_area_free(abb_dev *dev, struct abb_chan *ch)
{
	if (ch->desc_mem) {
		dev->be->unmap(dev, ch->desc_mem, ch->desc_bytes);
		free(ch->desc_mem);
		free(ch->desc_segs);
	}
	ch->desc_mem = NULL;
	ch->desc_segs = NULL;
	ch->desc_bytes = 0;
	ch->desc_nsegs = 0;
}

/* Makes the descriptor area hold at least n descriptors. */
static int desc_area_reserve(abb_dev *dev, struct abb_chan *ch, size_t n)
{
	size_t need = (n + ABB_DESC_PER_PAGE - 1) / ABB_DESC_PER_PAGE * ABB_PAGE;
	size_t bytes = ch->desc_bytes ? ch->desc_bytes : ABB_PAGE;
	void *mem;
	int rc;

	if (n == 0 || need <= ch->desc_bytes)
		return 0;
	while (bytes < need)
		bytes *= 2;
	if (posix_memalign(&mem, ABB_PAGE, bytes))
		return abb_err(-ENOMEM, "out of memory for %zu bytes of descriptors", bytes);
	memset(mem, 0, bytes);
	desc_area_free(dev, ch);
	rc = dev->be->map(dev, mem, bytes, &ch->desc_segs, &ch->desc_nsegs);
	if (rc) {
		free(mem);
		ch->desc_segs = NULL;
		return abb_err_prefix(rc, "mapping the descriptor area");
	}
	ch->desc_mem = mem;
	ch->desc_bytes = bytes;
	return 0;
}

/* Device address of descriptor slot i of the area. */
static int desc_slot_iova(struct abb_chan *ch, size_t i, uint64_t *iova)
{
	uint64_t off = (uint64_t)(i / ABB_DESC_PER_PAGE) * ABB_PAGE +
		       (i % ABB_DESC_PER_PAGE) * ABB_DESC_ALIGN;
	uint64_t contig;

	if (abb_seg_iova(ch->desc_segs, ch->desc_nsegs, off, iova, &contig) ||
	    contig < ABB_DESC_BYTES || *iova % ABB_DESC_ALIGN)
		return abb_err(-EIO, "descriptor slot %zu has device address 0x%llx, not %u-byte "
			       "aligned or split: the backend mapped the area badly", i,
			       (unsigned long long)*iova, ABB_DESC_ALIGN);
	return 0;
}

/* [off, off+len) of a buffer cut into the pieces of a descriptor chain:
 * each contiguous in device addresses and at most ABB_PIECE_MAX. One pass
 * over the segments, however many pieces (a page each when scattered). */
struct pieces {
	const struct abb_seg *seg, *end; /* current segment, past the last */
	uint64_t skip;                   /* bytes of *seg before the next piece */
	size_t left;                     /* bytes still to cut */
};

static void pieces_start(struct pieces *p, const abb_dmabuf *buf, size_t off, size_t len)
{
	p->seg = buf->segs;
	p->end = buf->segs + buf->nsegs;
	p->skip = off;
	p->left = len;
}

/* 1 and the next piece; 0 when none is left; -1 when the mapping ends first. */
static int pieces_next(struct pieces *p, uint64_t *iova, uint64_t *len)
{
	uint64_t n;

	if (!p->left)
		return 0;
	while (p->seg < p->end && p->skip >= p->seg->len) {
		p->skip -= p->seg->len;
		p->seg++;
	}
	if (p->seg == p->end)
		return -1;
	n = p->seg->len - p->skip;
	if (n > p->left)
		n = p->left;
	if (n > ABB_PIECE_MAX)
		n = ABB_PIECE_MAX;
	*iova = p->seg->iova + p->skip;
	*len = n;
	p->skip += n;
	p->left -= n;
	return 1;
}

/* Counts the descriptors for [off, off+len) of buf (0: not all mapped). */
static size_t count_pieces(const abb_dmabuf *buf, size_t off, size_t len)
{
	struct pieces p;
	uint64_t iova, piece;
	size_t n = 0;
	int r;

	pieces_start(&p, buf, off, len);
	while ((r = pieces_next(&p, &iova, &piece)) > 0)
		n++;
	return r < 0 ? 0 : n;
}

struct xfer {
	abb_dmabuf *buf;
	size_t off;
	uint32_t board_addr;
	size_t len;
	unsigned flags;
};

/* Builds the chain: descriptor 0 into first[], the rest into the area. */
static int build_chain(struct abb_chan *ch, const struct xfer *x, size_t n,
		       uint32_t first[ABB_DESC_WORDS])
{
	uint32_t common = ABB_CTRL_V | ABB_CTRL_BAR;
	uint64_t pa = x->board_addr;
	struct pieces p;

	if (!(x->flags & ABB_DMA_FIXED))
		common |= ABB_CTRL_INC;
	if (x->flags & ABB_DMA_IRQ)
		common |= ABB_CTRL_EDI | ABB_CTRL_EEI;

	pieces_start(&p, x->buf, x->off, x->len);
	for (size_t k = 0; k < n; k++) {
		uint64_t iova = 0, piece = 0, next = 0;
		uint32_t w[ABB_DESC_WORDS], ctrl = common;
		int rc;

		(void)pieces_next(&p, &iova, &piece); /* count_pieces found all n */
		if (k == 0)
			ctrl |= ABB_CTRL_UPA;
		if (k + 1 == n) {
			ctrl |= ABB_CTRL_LAST;
		} else {
			rc = desc_slot_iova(ch, k, &next); /* descriptor k+1 is slot k */
			if (rc)
				return rc;
		}
		w[ABB_DW_PAH] = (uint32_t)(pa >> 32);
		w[ABB_DW_PAL] = (uint32_t)pa;
		w[ABB_DW_HAH] = (uint32_t)(iova >> 32);
		w[ABB_DW_HAL] = (uint32_t)iova;
		w[ABB_DW_BDAH] = (uint32_t)(next >> 32);
		w[ABB_DW_BDAL] = (uint32_t)next;
		w[ABB_DW_LENG] = (uint32_t)piece;
		w[ABB_DW_CTRL] = ctrl;
		if (k == 0) {
			memcpy(first, w, sizeof w);
		} else {
			size_t i = k - 1;
			uint8_t *d = (uint8_t *)ch->desc_mem + i / ABB_DESC_PER_PAGE * ABB_PAGE +
				     i % ABB_DESC_PER_PAGE * ABB_DESC_ALIGN;

			for (int j = 0; j < ABB_DESC_WORDS; j++)
				put_le32(d + 4 * j, w[j]);
		}
		if (!(x->flags & ABB_DMA_FIXED))
			pa += piece;
	}
	return 0;
}

/* Drops the channel's claim on its buffer and marks it idle. */
static void chan_release(struct abb_chan *ch)
{
	abb_registry_lock();
	pthread_mutex_lock(&ch->lock);
	if (ch->buf)
		ch->buf->users--;
	ch->buf = NULL;
	ch->busy = false;
	ch->waiting = false;
	pthread_mutex_unlock(&ch->lock);
	abb_registry_unlock();
}

/* Ends the transfer on a channel: resets the channel if asked,
 * acknowledges its interrupt (ABB_DMA_IRQ: IER bit cleared, line
 * unmasked) and releases it. If the reset fails the transfer may still
 * run: the channel then stays claimed (its buffer pinned) and the
 * negative errno of the reset is returned. */
static int chan_end(abb_dev *dev, struct abb_chan *ch, bool reset)
{
	int rc = reset ? chan_reset(dev, ch) : 0;

	if ((ch->flags & ABB_DMA_IRQ) && abb_ier_clear(dev, ch->irq_bit) == 0)
		abb_irq_unmask(dev);
	if (rc) {
		pthread_mutex_lock(&ch->lock);
		ch->waiting = false;
		pthread_mutex_unlock(&ch->lock);
		return rc;
	}
	chan_release(ch);
	return 0;
}

/* A wait or start failed with err (message set): stops the transfer
 * (chan_end with a reset) and says what became of the channel. */
static int chan_fail(const char *fn, abb_dev *dev, struct abb_chan *ch, int err)
{
	char why[384];
	int rc;

	snprintf(why, sizeof why, "%s", abb_last_error());
	abb_note(dev, ABB_SIM_NOTE_DMA_ERROR, (unsigned)(ch - dev->chan), "%s ERROR %s", fn, why);
	rc = chan_end(dev, ch, true);
	if (rc) {
		/* a copy: abb_err writes the buffer abb_last_error() points to */
		char how[256];

		snprintf(how, sizeof how, "%s", abb_last_error());
		return abb_err(err, "%s: %s; the %s could NOT be stopped (channel reset failed: "
			       "%s): the channel stays claimed, wait again or reopen the device",
			       fn, why, ch->what, how);
	}
	return abb_err(err, "%s: %s; the %s was stopped, the channel is reset and free", fn,
		       why, ch->what);
}

static int check_args(const char *fn, abb_dev *dev, const struct xfer *x)
{
	if (x->flags & ~(ABB_DMA_FIXED | ABB_DMA_IRQ))
		return abb_err(-EINVAL, "%s: unknown flags 0x%x; use ABB_DMA_FIXED and ABB_DMA_IRQ",
			       fn, x->flags & ~(ABB_DMA_FIXED | ABB_DMA_IRQ));
	if (x->len == 0)
		return abb_err(-EINVAL, "%s: len is 0", fn);
	if (x->len % 4 || x->off % 4 || x->board_addr % 4)
		return abb_err(-EINVAL, "%s: %s %#zx is not a multiple of 4; the DMA engine "
			       "moves 32-bit words", fn,
			       x->len % 4 ? "len" : x->off % 4 ? "buffer offset" : "board_addr",
			       x->len % 4 ? x->len : x->off % 4 ? x->off : (size_t)x->board_addr);
	if (x->flags & ABB_DMA_FIXED) {
		if ((size_t)x->board_addr + 4 > dev->bar1_size)
			return abb_err(-EINVAL, "%s: board_addr 0x%x is past the end of BAR1 (%zu "
				       "bytes)", fn, x->board_addr, dev->bar1_size);
	} else if (x->board_addr >= dev->bar1_size || x->len > dev->bar1_size - x->board_addr) {
		return abb_err(-EINVAL, "%s: board range 0x%x + %zu is past the end of BAR1 (%zu "
			       "bytes); use ABB_DMA_FIXED for a FIFO", fn, x->board_addr, x->len,
			       dev->bar1_size);
	}
	if ((x->flags & ABB_DMA_IRQ) && dev->be->irq_check) {
		int rc = dev->be->irq_check(dev);

		if (rc)
			return abb_err_prefix(rc, fn);
	}
	return 0;
}

/* The start; the caller holds an abb_dev_enter. */
static int do_start(const char *fn, abb_dev *dev, int chn, const struct xfer *x)
{
	uint32_t first[ABB_DESC_WORDS];
	struct abb_chan *ch;
	size_t n;
	int rc = check_args(fn, dev, x);

	if (rc)
		return rc;
	ch = &dev->chan[chn];

	abb_registry_lock();
	rc = abb_dmabuf_check_locked(fn, dev, x->buf);
	if (rc)
		goto out_registry;
	if (x->off >= x->buf->len || x->len > x->buf->len - x->off) {
		rc = abb_err(-EINVAL, "%s: buffer range %zu + %zu is past the end of the mapped "
			     "buffer (%zu bytes)", fn, x->off, x->len, x->buf->len);
		goto out_registry;
	}
	if (((uintptr_t)x->buf->ptr + x->off) % 4) {
		rc = abb_err(-EINVAL, "%s: host address %p + %zu is not 4-byte aligned; map a "
			     "4-byte aligned buffer", fn, x->buf->ptr, x->off);
		goto out_registry;
	}
	if ((rc = abb_dmabuf_can(fn, x->buf, chn == ABB_CH_C2H)))
		goto out_registry;
	pthread_mutex_lock(&ch->lock);
	if (ch->busy) {
		rc = abb_err(-EBUSY, "%s: a %s is in flight on this channel; collect it with "
			     "abb_dma_%s_wait() first", fn, ch->what,
			     chn == ABB_CH_C2H ? "read" : "write");
		goto out_chan;
	}
	n = count_pieces(x->buf, x->off, x->len);
	if (n == 0) {
		rc = abb_err(-EIO, "%s: the buffer's device mapping does not cover the range", fn);
		goto out_chan;
	}
	rc = desc_area_reserve(dev, ch, n - 1);
	if (!rc)
		rc = build_chain(ch, x, n, first);
	if (rc) {
		abb_err_prefix(rc, fn);
		goto out_chan;
	}
	ch->busy = true;
	ch->waiting = false;
	ch->flags = x->flags;
	ch->buf = x->buf;
	ch->len = x->len;
	ch->irq_seen = dev->be->irq_count(dev); /* before anything can fire */
	x->buf->users++;
out_chan:
	pthread_mutex_unlock(&ch->lock);
out_registry:
	abb_registry_unlock();
	if (rc)
		return rc;

	/* The descriptors in memory must be visible before the CTRL write. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rc = chan_reset(dev, ch);
	if (!rc)
		rc = (x->flags & ABB_DMA_IRQ) ? abb_ier_set(dev, ch->irq_bit, NULL) :
						abb_ier_clear(dev, ch->irq_bit);
	for (int j = 0; !rc && j < ABB_DW_CTRL; j++)
		rc = abb_wr(dev, ch->base + 4 * j, first[j]);
	if (!rc)
		rc = abb_wr(dev, ch->base + ABB_CH_CTRL, first[ABB_DW_CTRL]);
	if (!rc)
		abb_note(dev, ABB_SIM_NOTE_DMA_START, (unsigned)chn, "%s start len=%zu board=0x%x %s",
			 chn == ABB_CH_C2H ? "dma_read" : "dma_write", x->len, x->board_addr,
			 (x->flags & ABB_DMA_IRQ) ? "irq" : "polled");
	if (!rc)
		rc = dev->be->now_ns(dev, &ch->t_start_ns);
	if (rc)
		rc = chan_fail(fn, dev, ch, rc);
	return rc;
}

static int dma_start(const char *fn, abb_dev *dev, int chn, const struct xfer *x)
{
	int rc = abb_dev_enter(fn, dev);

	if (rc)
		return rc;
	rc = do_start(fn, dev, chn, x);
	abb_dev_leave(dev);
	return rc;
}

static const char *ger_text(uint32_t ger, char *s, size_t n)
{
	static const struct {
		uint32_t bit;
		const char *what;
	} causes[] = {
		{ABB_GER_CPL_ERR, "read request failed (UR/CA status: unmapped host memory?; or poisoned, timed out)"},
		{ABB_GER_DESC_ERR, "invalid descriptor"},
		{ABB_GER_BUS_MASTER, "bus mastering disabled"},
		{ABB_GER_BAD_TLP, "malformed TLP"},
		{ABB_GER_CPL_TAG, "unexpected completion (unknown tag, duplicated or out of order)"},
		{ABB_GER_CPL_TIMEOUT, "completion timeout"},
		{ABB_GER_POISONED, "poisoned completion (EP), its data not written"},
	};
	size_t used = 0;

	s[0] = 0;
	for (size_t i = 0; i < sizeof causes / sizeof causes[0] && used < n; i++)
		if (ger & causes[i].bit)
			used += (size_t)snprintf(s + used, n - used, "%s%s", used ? ", " : "",
						 causes[i].what);
	if (!s[0])
		snprintf(s, n, "no cause recorded");
	return s;
}

/* Collects an error (STA DONE|BUSY): reads GER for the message (and
 * writes back what it read: clears it where GER is write-1-to-clear,
 * changes nothing elsewhere), resets and releases the channel. */
static int chan_error(const char *fn, abb_dev *dev, struct abb_chan *ch, uint32_t sta)
{
	uint32_t ger = 0;
	char why[400];
	int rc;

	pthread_mutex_lock(&dev->irq_lock);
	if (!abb_rd(dev, ABB_REG_GER, &ger) && ger)
		abb_wr(dev, ABB_REG_GER, ger);
	pthread_mutex_unlock(&dev->irq_lock);
	abb_note(dev, ABB_SIM_NOTE_DMA_ERROR, (unsigned)(ch - dev->chan), "%s ERROR STA 0x%08x GER 0x%08x", fn, sta, ger);
	rc = chan_end(dev, ch, true);
	return abb_err(-EIO, "%s: the board reported an error (STA 0x%08x, GER 0x%08x: %s); the "
		       "channel was %s", fn, sta, ger, ger_text(ger, why, sizeof why),
		       rc ? "NOT reset and stays claimed: reopen the device" :
			    "reset and can be used again");
}

/* Transfers from this size on learn and use the expected duration. */
#define ABB_POLL_LEARN (64u * 1024)

/* Before the first STA read of a polled wait: lets 7/8 of the expected
 * duration pass (at the fastest rate seen on this channel), never past
 * stop (device time). Status reads before that would only cost link
 * bandwidth. */
static uint64_t poll_first_ns(const struct abb_chan *ch, uint64_t now, uint64_t stop)
{
	uint64_t expect, target;

	if (!ch->ps_per_byte || ch->len < ABB_POLL_LEARN)
		return 0;
	expect = ch->ps_per_byte * ch->len / 1000;
	target = ch->t_start_ns + expect - expect / 8;
	if (target > stop)
		target = stop;
	if (target <= now)
		return 0;
	return target - now;
}

static int poll_delay(abb_dev *dev, const struct abb_chan *ch, uint64_t now, uint64_t stop)
{
	uint64_t ns = poll_first_ns(ch, now, stop);

	return ns ? abb_nap(dev, (int64_t)ns) : 0;
}

/* The wait's deadline passed with the channel still busy: the wait limit
 * (the channel is reset) or the caller's timeout (it keeps running). */
static int wait_timed_out(const char *fn, abb_dev *dev, struct abb_chan *ch, bool by_limit,
			  uint64_t seen, int64_t timeout_ns)
{
	if (by_limit)
		return chan_fail(fn, dev, ch,
				 abb_err(-ETIMEDOUT, "the %s did not finish within the wait limit of "
					 "%llu ms (device time; ABB_WAIT_LIMIT_MS)", ch->what,
					 (unsigned long long)(dev->wait_limit_ns / 1000000)));
	pthread_mutex_lock(&ch->lock);
	ch->waiting = false;
	ch->irq_seen = seen;
	pthread_mutex_unlock(&ch->lock);
	return abb_err(-ETIMEDOUT, "%s: the %s did not finish within %lld ns (device time); it "
		       "keeps running: wait again", fn, ch->what, (long long)timeout_ns);
}

/* A polled wait run by the backend (the simulator: no hand-over to the
 * host per status read), the same reads at the same device times as the
 * loop of do_wait; 0 (sta: the last STA), 1 (the wait is over: *rc) */
static int poll_by_backend(const char *fn, abb_dev *dev, struct abb_chan *ch, bool closer,
			   uint64_t start, uint64_t stop, bool by_limit, uint64_t seen,
			   int64_t timeout_ns, uint32_t *sta, bool *saw_busy, int *rc)
{
	struct abb_poll p = {
		.off = ch->base + ABB_CH_STA, .mask = ABB_STA_BUSY | ABB_STA_DONE,
		.busy = ABB_STA_BUSY, .spin = ABB_POLL_SPIN, .nap_div = ABB_POLL_NAP_GROW,
		.first_ns = poll_first_ns(ch, start, stop), .nap_min_ns = ABB_POLL_NAP_MIN,
		.nap_max_ns = ABB_POLL_NAP_MAX, .stop_ns = stop,
	};
	uint64_t reads = 0;

	*rc = dev->be->poll_reg(dev, &p, sta, &reads);
	*saw_busy = reads > 1;
	if (!closer && abb_dev_closing(dev))
		*rc = chan_fail(fn, dev, ch, abb_err(-ECANCELED, "abb_close() was called while "
						      "waiting"));
	else if (*rc == -ETIMEDOUT)
		*rc = wait_timed_out(fn, dev, ch, by_limit, seen, timeout_ns);
	else if (*rc)
		*rc = chan_fail(fn, dev, ch, *rc);
	else
		return 0;
	return 1;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The wait; the caller holds an abb_dev_enter, or is abb_close (closer:
 * dev->closing does not end the wait, no wait limit). */
static int do_wait(const char *fn, abb_dev *dev, int chn, int64_t timeout_ns, bool closer)
{
	struct abb_chan *ch = &dev->chan[chn];
	uint64_t start, now, end, limit_end, stop, seen;
	int64_t nap = ABB_POLL_NAP_MIN;
	unsigned flags, reads = 0;
	bool saw_busy = false, by_limit;
	struct abb_watch wd;
	uint32_t sta = 0;
	int rc;

	abb_watch_init(&wd);
	pthread_mutex_lock(&ch->lock);
	if (!ch->busy)
		rc = abb_err(-EINVAL, "%s: no %s in flight; start one with abb_dma_%s_start()", fn,
			     ch->what, chn == ABB_CH_C2H ? "read" : "write");
	else if (ch->waiting)
		rc = abb_err(-EBUSY, "%s: another thread is waiting for this %s", fn, ch->what);
	else
		rc = 0;
	if (!rc)
		ch->waiting = true;
	flags = ch->flags;
	seen = ch->irq_seen;
	pthread_mutex_unlock(&ch->lock);
	if (rc)
		return rc;

	rc = dev->be->now_ns(dev, &start);
	if (rc)
		return chan_fail(fn, dev, ch, rc);
	end = abb_deadline(start, timeout_ns);
	limit_end = closer || !dev->wait_limit_ns ? UINT64_MAX :
		    abb_deadline(start, (int64_t)min_u64(dev->wait_limit_ns, INT64_MAX));
	/* the limit ends the wait when it comes no later than the caller's */
	by_limit = limit_end <= end && limit_end != UINT64_MAX;
	stop = min_u64(end, limit_end);
	if (!(flags & ABB_DMA_IRQ) && dev->be->poll_reg) {
		if (!closer && abb_dev_closing(dev))
			return chan_fail(fn, dev, ch, abb_err(-ECANCELED, "abb_close() was called "
							      "while waiting"));
		if (poll_by_backend(fn, dev, ch, closer, start, stop, by_limit, seen, timeout_ns, &sta,
				    &saw_busy, &rc))
			return rc;
		goto finished;
	}
	if (!(flags & ABB_DMA_IRQ)) {
		abb_watch_before_sleep(dev, &wd);
		rc = poll_delay(dev, ch, start, stop);
		abb_watch_after_sleep(dev, &wd);
		if (rc)
			return chan_fail(fn, dev, ch, rc);
	}
	for (bool woke = flags & ABB_DMA_IRQ;; woke = rc == 0 && (flags & ABB_DMA_IRQ)) {
		if (!closer && abb_dev_closing(dev))
			return chan_fail(fn, dev, ch, abb_err(-ECANCELED, "abb_close() was called "
							      "while waiting"));
		rc = abb_rd(dev, ch->base + ABB_CH_STA, &sta);
		if (rc)
			return chan_fail(fn, dev, ch, rc);
		if (!(sta & ABB_STA_BUSY) || (sta & ABB_STA_DONE))
			break; /* finished, with or without an error */
		saw_busy = true;
		/* before the first sleep, and when woken by someone else's
		 * interrupt: acknowledge the others, so that ours is a new
		 * edge of the line */
		if (woke && (rc = abb_irq_ack_others(dev, ch->irq_bit)) != 0)
			return chan_fail(fn, dev, ch, rc);
		if ((rc = abb_watch_check(dev, &wd, ch->what)) != 0)
			return chan_fail(fn, dev, ch, rc);
		rc = dev->be->now_ns(dev, &now);
		if (rc)
			return chan_fail(fn, dev, ch, rc);
		if (now >= stop)
			return wait_timed_out(fn, dev, ch, by_limit, seen, timeout_ns);
		if (flags & ABB_DMA_IRQ) {
			abb_note(dev, ABB_SIM_NOTE_TEXT, ABB_SIM_NOTE_NO_CHANNEL, "irq_wait %s",
				 ch->irq_bit == ABB_ISR_C2H ? "dma_read" : "dma_write");
			abb_watch_before_sleep(dev, &wd);
			rc = dev->be->irq_wait(dev, &seen,
					       (int64_t)min_u64(stop - now, ABB_IRQ_SLICE_NS));
			abb_watch_after_sleep(dev, &wd);
			if (rc && rc != -ETIMEDOUT)
				return chan_fail(fn, dev, ch, rc);
		} else if (++reads > ABB_POLL_SPIN) {
			abb_watch_before_sleep(dev, &wd);
			rc = abb_nap(dev, (int64_t)min_u64(stop - now, (uint64_t)nap));
			abb_watch_after_sleep(dev, &wd);
			if (rc)
				return chan_fail(fn, dev, ch, rc);
			nap += nap / ABB_POLL_NAP_GROW;
			if (nap > ABB_POLL_NAP_MAX)
				nap = ABB_POLL_NAP_MAX;
		}
	}

finished:
	if (sta & ABB_STA_BUSY) /* with DONE */
		return chan_error(fn, dev, ch, sta);
	if (!(sta & ABB_STA_DONE)) {
		abb_note(dev, ABB_SIM_NOTE_DMA_ERROR, (unsigned)(ch - dev->chan), "%s ERROR stopped (STA 0x%08x)", fn, sta);
		rc = chan_end(dev, ch, true);
		return abb_err(-EIO, "%s: the %s was stopped before it was done (STA 0x%08x: "
			       "neither DONE nor BUSY; a channel reset, GCR.SOFT_RESET or a hot "
			       "reset?); the channel %s", fn, ch->what, sta,
			       rc ? "could NOT be reset and stays claimed: reopen the device" :
				    "is reset and free");
	}
	/* done; learn the rate from transfers that were seen running */
	if (saw_busy && ch->len >= ABB_POLL_LEARN && dev->be->now_ns(dev, &now) == 0 &&
	    now > ch->t_start_ns) {
		uint64_t ps = (now - ch->t_start_ns) * 1000 / ch->len;

		if (!ch->ps_per_byte || ps < ch->ps_per_byte)
			ch->ps_per_byte = ps;
	}
	if (dev->sim && dev->be->now_ns(dev, &now) == 0 && now > ch->t_start_ns)
		abb_note(dev, ABB_SIM_NOTE_DMA_DONE, (unsigned)(ch - dev->chan), "%s done len=%zu %.0f MB/s",
			 ch->irq_bit == ABB_ISR_C2H ? "dma_read" : "dma_write", ch->len,
			 (double)ch->len * 1000.0 / (double)(now - ch->t_start_ns));
	chan_end(dev, ch, false);
	return 0;
}

static int dma_wait(const char *fn, abb_dev *dev, int chn, int64_t timeout_ns)
{
	int rc = abb_dev_enter(fn, dev);

	if (rc)
		return rc;
	rc = do_wait(fn, dev, chn, timeout_ns, false);
	abb_dev_leave(dev);
	return rc;
}

void abb_dma_stop_waiters(abb_dev *dev)
{
	for (int chn = 0; chn < 2; chn++) {
		struct abb_chan *ch = &dev->chan[chn];
		bool waited;

		pthread_mutex_lock(&ch->lock);
		waited = ch->waiting;
		pthread_mutex_unlock(&ch->lock);
		if (waited)
			abb_wr(dev, ch->base + ABB_CH_CTRL, ctrl_reset);
	}
}

void abb_dma_fini(abb_dev *dev)
{
	for (int chn = 0; chn < 2; chn++) {
		struct abb_chan *ch = &dev->chan[chn];
		const char *fn = chn == ABB_CH_C2H ? "abb_close (DMA read)" : "abb_close (DMA write)";

		if (ch->busy && do_wait(fn, dev, chn, ABB_CLOSE_WAIT_NS, true) == -ETIMEDOUT &&
		    ch->busy)
			chan_end(dev, ch, true);
		if (ch->busy) /* not even a reset worked: the buffers go anyway */
			chan_release(ch);
		desc_area_free(dev, ch);
		pthread_mutex_destroy(&ch->lock);
	}
}

static int dma_blocking(const char *fn, abb_dev *dev, int chn, const struct xfer *x)
{
	int rc = abb_dev_enter(fn, dev);

	if (rc)
		return rc;
	rc = do_start(fn, dev, chn, x);
	/* Every wait failure but the caller's own timeout (there is none
	 * here) ends with the channel reset and free. */
	if (!rc)
		rc = do_wait(fn, dev, chn, ABB_WAIT_FOREVER, false);
	abb_dev_leave(dev);
	return rc;
}

int abb_dma_read(abb_dev *dev, abb_dmabuf *buf, size_t off, uint32_t board_addr, size_t len,
		 unsigned flags)
{
	struct xfer x = {buf, off, board_addr, len, flags};

	return dma_blocking("abb_dma_read", dev, ABB_CH_C2H, &x);
}

int abb_dma_read_start(abb_dev *dev, abb_dmabuf *buf, size_t off, uint32_t board_addr,
		       size_t len, unsigned flags)
{
	struct xfer x = {buf, off, board_addr, len, flags};

	return dma_start("abb_dma_read_start", dev, ABB_CH_C2H, &x);
}

int abb_dma_read_wait(abb_dev *dev, int64_t timeout_ns)
{
	return dma_wait("abb_dma_read_wait", dev, ABB_CH_C2H, timeout_ns);
}

int abb_dma_write(abb_dev *dev, abb_dmabuf *buf, size_t off, uint32_t board_addr, size_t len,
		  unsigned flags)
{
	struct xfer x = {buf, off, board_addr, len, flags};

	return dma_blocking("abb_dma_write", dev, ABB_CH_H2C, &x);
}

int abb_dma_write_start(abb_dev *dev, abb_dmabuf *buf, size_t off, uint32_t board_addr,
			size_t len, unsigned flags)
{
	struct xfer x = {buf, off, board_addr, len, flags};

	return dma_start("abb_dma_write_start", dev, ABB_CH_H2C, &x);
}

int abb_dma_write_wait(abb_dev *dev, int64_t timeout_ns)
{
	return dma_wait("abb_dma_write_wait", dev, ABB_CH_H2C, timeout_ns);
}
