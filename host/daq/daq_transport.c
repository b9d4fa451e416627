/*
 * daq_transport.c - the device transport of one DMA channel: DABC's
 * PCITransport size / start / complete contract (ReadBegin / ReadPrepare /
 * ReadComplete) on libabb's _start / _wait calls.
 *
 *   size      bytes the next buffer gets (0: end of stream)
 *   start     maps the buffer if its pool is new or grew (once per buffer),
 *             starts the DMA, returns at once
 *   complete  waits (device time, in slices) and, for a readout, writes the
 *             16-byte event header in front of the data
 *
 * The modules (daq_module.c) hand the previous buffer on between start and
 * complete: that is the double buffering.
 *
 * Board addresses: buffer i of the stream goes to Address + (i x Length)
 * mod Region (Region = Length: always Address), or always to Address with
 * Fifo = 1 (ABB_DMA_FIXED).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>

#include "daq_priv.h"

struct abb_daq_transport {
	abb_daq_device *d;
	abb_dev *dev;
	enum abb_daq_dir dir;
	abb_daq_pool *pool;
	struct abb_daq_params p;
	uint32_t length;     /* bytes per DMA */
	uint32_t region;
	size_t hdr;          /* header bytes in front of read data */
	unsigned flags;      /* ABB_DMA_* */
	uint64_t n;          /* transfers started */
	abb_daq_buf *busy;   /* in flight */
	uint32_t busy_len;
};

const char *abb_daq_result_name(enum abb_daq_result r)
{
	switch (r) {
	case ABB_DAQ_OK:
		return "ok";
	case ABB_DAQ_SKIP:
		return "skip";
	case ABB_DAQ_EOS:
		return "end of stream";
	case ABB_DAQ_TIMEOUT:
		return "timeout";
	case ABB_DAQ_ERROR:
		return "error";
	}
	return "?";
}

int abb_daq_transport_create(abb_daq_transport **out, abb_daq_device *d, enum abb_daq_dir dir,
			     abb_daq_pool *pool, const struct abb_daq_params *p)
{
	abb_daq_transport *t;
	size_t mem, bufsize, hdr;
	uint32_t length, region;
	int rc;

	if (!out || !d || !pool || !p || (dir != ABB_DAQ_READ && dir != ABB_DAQ_WRITE))
		return -EINVAL;
	*out = NULL;
	rc = abb_mem_size(abb_daq_device_dev(d), &mem);
	if (rc)
		return rc;
	bufsize = abb_daq_pool_bufsize(pool);
	hdr = dir == ABB_DAQ_READ && p->header ? ABB_DAQ_HEADER_BYTES : 0;
	if (bufsize <= hdr)
		return abb_err(-EINVAL, "DAQ transport: buffers of %zu bytes leave no room after "
			       "the %zu-byte header", bufsize, hdr);
	/* a DMA length is 32 bits (it was cut to them) */
	if (!p->length && bufsize - hdr > UINT32_MAX - 3)
		return abb_err(-EINVAL, "DAQ transport: buffers of %zu bytes: a DMA moves at most "
			       "%u bytes (set Length)", bufsize, UINT32_MAX - 3);
	length = p->length ? p->length : (uint32_t)(bufsize - hdr);
	region = p->region ? p->region : length;
	if (p->bar != 1)
		return abb_err(-EINVAL, "DAQ transport: BAR=%u; the DMA peripheral space is BAR 1",
			       p->bar);
	if (length == 0 || length % 4 || p->address % 4 || hdr + length > bufsize)
		return abb_err(-EINVAL, "DAQ transport: Length %" PRIu32 " at Address 0x%" PRIx32
			       ": both multiples of 4, the length not 0 and, with the %zu-byte "
			       "header, within the %zu-byte buffers", length, p->address, hdr,
			       bufsize);
	if (p->fifo) {
		if ((size_t)p->address + 4 > mem)
			return abb_err(-EINVAL, "DAQ transport: FIFO address 0x%" PRIx32 " is past "
				       "the %zu bytes of BAR1", p->address, mem);
	} else if (region % length || region > mem || p->address > mem - region) {
		return abb_err(-EINVAL, "DAQ transport: Region %" PRIu32 " at Address 0x%" PRIx32
			       " with Length %" PRIu32 ": the region a multiple of the length, "
			       "inside the %zu bytes of BAR1", region, p->address, length, mem);
	}
	t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->d = d;
	t->dev = abb_daq_device_dev(d);
	t->dir = dir;
	t->pool = pool;
	t->p = *p;
	t->length = length;
	t->region = region;
	t->hdr = hdr;
	t->flags = (p->fifo ? ABB_DMA_FIXED : 0) | (p->irq ? ABB_DMA_IRQ : 0);
	daq_device_hold(d);
	*out = t;
	return 0;
}

void abb_daq_transport_destroy(abb_daq_transport *t)
{
	abb_daq_device *d;

	if (!t)
		return;
	abb_daq_transport_abort(t);
	d = t->d;
	free(t);
	daq_device_drop(d); /* closes it if its close came first */
}

size_t abb_daq_transport_size(abb_daq_transport *t)
{
	if (!t || (t->p.max_buffers && t->n >= t->p.max_buffers))
		return 0;
	return t->hdr + t->length;
}

int abb_daq_transport_start(abb_daq_transport *t, abb_daq_buf *b)
{
	abb_dmabuf *db;
	uint32_t addr, len;
	int rc;

	if (!t || !b || t->busy)
		return t && t->busy ? -EBUSY : -EINVAL;
	if (b->size < t->hdr + t->length && t->dir == ABB_DAQ_READ)
		return -EMSGSIZE;
	len = t->dir == ABB_DAQ_READ ? t->length : (b->len ? (uint32_t)b->len : t->length);
	if (len > t->length || len % 4 || len > b->size)
		return -EMSGSIZE;
	rc = daq_device_dmabuf(t->d, b, &db);
	if (rc)
		return rc;
	addr = t->p.fifo ? t->p.address
			 : t->p.address + (uint32_t)((t->n * t->length) % t->region);
	if (t->dir == ABB_DAQ_READ)
		rc = abb_dma_read_start(t->dev, db, t->hdr, addr, len, t->flags);
	else
		rc = abb_dma_write_start(t->dev, db, 0, addr, len, t->flags);
	if (rc)
		return rc;
	t->n++;
	t->busy = b;
	t->busy_len = len;
	return 0;
}

/* The channel reset code, as libabb writes it. */
#define DAQ_CTRL_RESET ((ABB_CTRL_RESET_CODE & ABB_CTRL_RESET) | ABB_CTRL_V | ABB_CTRL_BAR)

/* Stops the transfer in flight and makes libabb let go of the channel:
 * reset the channel, then collect the transfer with short waits until
 * libabb reports it finished (0, done meanwhile), failed (-EIO: it reset
 * and released the channel) or not in flight (-EINVAL: a failed wait
 * released it already). A wait that fails otherwise (-ETIME, the
 * simulator's watchdog) means the channel is still held: reset again, a
 * few rounds. Returns 0 with t->busy cleared, or the last error with
 * t->busy still set: the buffer must not be reused or freed. */
static int transport_release(abb_daq_transport *t)
{
	uint32_t base = t->dir == ABB_DAQ_READ ? ABB_BLK_C2H : ABB_BLK_H2C;
	int rc = -EIO;

	for (int round = 0; round < 3; round++) {
		(void)!abb_reg_write(t->dev, base + ABB_CH_CTRL, DAQ_CTRL_RESET);
		for (int i = 0; i < 1000; i++) {
			rc = t->dir == ABB_DAQ_READ ? abb_dma_read_wait(t->dev, 1000000)
						    : abb_dma_write_wait(t->dev, 1000000);
			if (rc == 0 || rc == -EIO || rc == -EINVAL) {
				t->busy = NULL;
				return 0;
			}
			if (rc != -ETIMEDOUT && rc != -EBUSY)
				break; /* reset again */
		}
	}
	return rc;
}

enum abb_daq_result abb_daq_transport_complete(abb_daq_transport *t, abb_daq_buf *b,
					       int64_t timeout_ns)
{
	int rc;

	if (!t || !b || t->busy != b)
		return ABB_DAQ_ERROR;
	if (timeout_ns < 0)
		timeout_ns = t->p.timeout_ns;
	if (t->dir == ABB_DAQ_READ)
		rc = abb_dma_read_wait(t->dev, timeout_ns);
	else
		rc = abb_dma_write_wait(t->dev, timeout_ns);
	if (rc == -ETIMEDOUT)
		return ABB_DAQ_TIMEOUT;
	if (rc) {
		/* Any other failure (the simulator's watchdog -ETIME, a failed
		 * register read, a board error): the DMA may still run and
		 * libabb may still hold the channel. Never forget it: stop
		 * the channel and collect the transfer; if that fails too the
		 * buffer stays busy (daq_transport_stuck) and is not reused. */
		(void)transport_release(t);
		return ABB_DAQ_ERROR;
	}
	t->busy = NULL;
	if (t->dir == ABB_DAQ_READ) {
		uint64_t ev = daq_device_next_event(t->d);

		b->seq = ev;
		b->len = t->hdr + t->busy_len;
		if (t->hdr) {
			struct abb_daq_evhdr h = {
				.event_counter = ev,
				.unique_id = (uint64_t)daq_device_board(t->d) << 48 |
					     (ev & 0xffffffffffffull),
			};

			memcpy(b->data, &h, sizeof h);
		}
	} else {
		b->len = t->busy_len;
	}
	return ABB_DAQ_OK;
}


void abb_daq_transport_abort(abb_daq_transport *t)
{
	if (t && t->busy)
		(void)transport_release(t);
}

abb_daq_buf *daq_transport_stuck(const abb_daq_transport *t)
{
	return t ? t->busy : NULL;
}

void daq_transport_rewind(abb_daq_transport *t)
{
	if (t && !t->busy)
		t->n = 0;
}

/* For the modules: header bytes in front of the data of a read buffer. */
size_t daq_transport_header(const abb_daq_transport *t)
{
	return t->hdr;
}
