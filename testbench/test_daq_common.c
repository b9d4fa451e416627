/*
 * test_daq_common.c - helpers of the DAQ suites (see test_daq.h).
 */
#define _GNU_SOURCE
#include "tb.h"
#include "test_daq.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb_regs.h>

void evcheck_init(struct evcheck *c, uint32_t src, uint32_t payload_dws)
{
	memset(c, 0, sizeof *c);
	c->src = src;
	c->total = 4 + payload_dws + (payload_dws & 1);
}

static uint32_t ev_dw(const struct evcheck *c)
{
	switch (c->pos) {
	case 0:
		return ABB_EVS_MAGIC | c->total;
	case 1:
		return c->cnt;
	case 2:
		return c->src;
	case 3:
		return ~c->cnt;
	default:
		return ((c->cnt << 16) | ((c->pos - 4) & 0xfffu)) ^ (c->src << 8);
	}
}

uint64_t evcheck_feed(struct evcheck *c, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t bad = 0;

	for (size_t i = 0; i < n; i++, p += 4) {
		uint32_t got = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			       (uint32_t)p[3] << 24;
		uint32_t want = ev_dw(c);

		if (got != want) {
			if (!c->errors && !bad)
				snprintf(c->first, sizeof c->first,
					 "event stream DW %" PRIu64 " (event %u, DW %u): got 0x%08x, "
					 "want 0x%08x", c->dws, c->cnt, c->pos, got, want);
			bad++;
		}
		c->dws++;
		if (++c->pos == c->total) {
			c->pos = 0;
			c->cnt++;
		}
	}
	c->errors += bad;
	return bad;
}

int daq_check_buffer(const abb_daq_buf *b, uint64_t *next_seq, unsigned board,
		     struct evcheck *ev)
{
	struct abb_daq_evhdr h;

	if (b->len < ABB_DAQ_HEADER_BYTES || (b->len - ABB_DAQ_HEADER_BYTES) % 4) {
		printf("\n    buffer %u: length %zu\n", b->id, b->len);
		return 0;
	}
	memcpy(&h, b->data, sizeof h);
	if (h.event_counter != *next_seq || b->seq != *next_seq ||
	    h.unique_id != ((uint64_t)board << 48 | (*next_seq & 0xffffffffffffull))) {
		printf("\n    buffer %u: header counter %" PRIu64 " (seq %" PRIu64 ") id 0x%" PRIx64
		       ", want counter %" PRIu64 "\n", b->id, h.event_counter, b->seq,
		       h.unique_id, *next_seq);
		return 0;
	}
	(*next_seq)++;
	if (ev && evcheck_feed(ev, (const uint8_t *)b->data + ABB_DAQ_HEADER_BYTES,
			       (b->len - ABB_DAQ_HEADER_BYTES) / 4)) {
		printf("\n    buffer %" PRIu64 ": %s\n", *next_seq - 1, ev->first);
		return 0;
	}
	return 1;
}

uint64_t daq_test_buffers(uint64_t def)
{
	const char *e = getenv("ABB_DAQ_TEST_BUFFERS");

	if (e && *e) {
		uint64_t n = strtoull(e, NULL, 0);

		if (n > 0 && n < def)
			return n;
	}
	return def;
}

void daq_sleep_us(unsigned us)
{
	struct timespec d = {us / 1000000, (long)(us % 1000000) * 1000};

	nanosleep(&d, NULL);
}
