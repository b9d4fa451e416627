/*
 * daq_net_out.c - the network output of a readout node (abb_daq_net.h):
 * full buffers of a readout module go to the event builder as ZeroMQ
 * multipart messages, the payload zero-copy from the pool, and are held
 * until the builder acknowledges them.
 *
 * Every buffer the unit holds sits in a ring in sequence order with one
 * pool reference; each ZeroMQ message of it holds one more, dropped by
 * ZeroMQ's free function when the message is gone (sent or discarded), so a
 * buffer returns to its pool only when both the builder and ZeroMQ are done
 * with it. Entries are sent in ring order; a resend (another builder
 * instance in an acknowledgement, or acknowledgement silence for resend_ms)
 * marks every entry unsent again. Sends never block inside ZeroMQ
 * (ZMQ_DONTWAIT, ZMQ_IMMEDIATE: nothing is queued for a builder that is not
 * connected); the waits are zmq_poll slices bounded by the caller's timeout.
 */
#include <abb/abb_daq_net.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#include <abb/abb_regs.h>

#define HEARTBEAT_MS 200

struct entry {
	abb_daq_buf *buf;
	struct abb_net_hdr hdr;
	uint64_t gen; /* the send generation it was last sent in (0: never) */
};

struct abb_daq_net_out {
	struct abb_daq_net_cfg c;
	void *ctx, *push, *sub;
	struct entry *ring;
	unsigned cap, head, count;
	uint64_t gen;          /* entries with another gen are (re)sent */
	uint64_t instance;     /* the builder's, from its acknowledgements */
	uint64_t next_seq;     /* of the next buffer handed in */
	int64_t last_ack_ms, last_send_ms;
	int ended;             /* END to be sent (1) or sent in gen end_gen (2) */
	uint64_t end_gen, end_seq;
	struct abb_daq_net_stats st;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int abb_net_hdr_check(const void *h, size_t n, char *why, size_t whylen)
{
	struct abb_net_hdr x;
	const uint16_t one = 1;

	if (*(const uint8_t *)&one != 1) {
		snprintf(why, whylen, "this host is big-endian: the farm's wire format is little-endian");
		return -EPROTO;
	}
	if (n != sizeof x) {
		snprintf(why, whylen, "header of %zu bytes, expected %zu", n, sizeof x);
		return -EPROTO;
	}
	memcpy(&x, h, sizeof x);
	if (x.magic != ABB_NET_MAGIC || x.version != ABB_NET_VERSION) {
		snprintf(why, whylen, "magic %08x version %u, expected %08x version %u (not an ABB farm "
			 "message, or another version)", x.magic, x.version, ABB_NET_MAGIC,
			 ABB_NET_VERSION);
		return -EPROTO;
	}
	return 0;
}

static void zfree(void *data, void *hint)
{
	(void)data;
	abb_daq_buf_release(hint);
}

int abb_daq_net_out_create(abb_daq_net_out **out, const struct abb_daq_net_cfg *c)
{
	abb_daq_net_out *o;
	int one = 1, zero = 0;

	if (!out || !c || !c->data_ep || !c->ack_ep || !c->board || c->board > 0xffff ||
	    c->event_dws < 4 || (c->event_dws & 1) || !c->max_unacked)
		return -EINVAL;
	*out = NULL;
	o = calloc(1, sizeof *o);
	if (!o)
		return -ENOMEM;
	o->c = *c;
	if (!o->c.hwm)
		o->c.hwm = 4;
	if (!o->c.resend_ms)
		o->c.resend_ms = 2000;
	o->cap = c->max_unacked;
	o->ring = calloc(o->cap, sizeof *o->ring);
	o->ctx = zmq_ctx_new();
	if (!o->ring || !o->ctx)
		goto fail;
	o->push = zmq_socket(o->ctx, ZMQ_PUSH);
	o->sub = zmq_socket(o->ctx, ZMQ_SUB);
	if (!o->push || !o->sub)
		goto fail;
	if (zmq_setsockopt(o->push, ZMQ_SNDHWM, &o->c.hwm, sizeof o->c.hwm) ||
	    zmq_setsockopt(o->push, ZMQ_IMMEDIATE, &one, sizeof one) ||
	    zmq_setsockopt(o->push, ZMQ_LINGER, &zero, sizeof zero) ||
	    zmq_setsockopt(o->sub, ZMQ_LINGER, &zero, sizeof zero) ||
	    zmq_setsockopt(o->sub, ZMQ_SUBSCRIBE, "", 0))
		goto fail;
	if (zmq_connect(o->push, c->data_ep) || zmq_connect(o->sub, c->ack_ep)) {
		int e = errno;
		fprintf(stderr, "abb_daq_net_out: cannot connect to %s / %s: %s\n", c->data_ep,
			c->ack_ep, zmq_strerror(e));
		abb_daq_net_out_destroy(o);
		return -e;
	}
	o->gen = 1;
	o->last_ack_ms = o->last_send_ms = now_ms();
	*out = o;
	return 0;
fail:
	abb_daq_net_out_destroy(o);
	return -ENOMEM;
}

/* One message of entry e (or a header alone): 0, -EAGAIN (high-water mark
 * or no builder), another negative errno. */
static int send_msg(abb_daq_net_out *o, const struct abb_net_hdr *hdr, abb_daq_buf *b)
{
	struct abb_net_hdr x = *hdr, *h = &x;
	zmq_msg_t m;

	x.oldest = o->count ? o->ring[o->head].hdr.seq : o->next_seq;
	if (zmq_send(o->push, h, sizeof *h, (b ? ZMQ_SNDMORE : 0) | ZMQ_DONTWAIT) < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	o->last_send_ms = now_ms();
	if (!b)
		return 0;
	abb_daq_buf_ref(b);
	if (zmq_msg_init_data(&m, b->data, b->len, zfree, b)) {
		abb_daq_buf_release(b);
		return -errno;
	}
	/* the rest of a multipart message is taken once its first frame was */
	if (zmq_msg_send(&m, o->push, 0) < 0) {
		int e = errno;
		zmq_msg_close(&m); /* calls zfree */
		return -e;
	}
	return 0;
}

static void handle_ack(abb_daq_net_out *o, const struct abb_net_ack *a)
{
	if (a->magic != ABB_NET_MAGIC || a->version != ABB_NET_VERSION || a->kind != ABB_NET_ACK)
		return;
	o->last_ack_ms = now_ms();
	if (a->instance != o->instance) {
		/* another builder than the one this node sent to: it does not
		 * know what this one sent, all again (the first builder heard
		 * of got everything through its own connection) */
		if (o->instance && (o->count || o->ended)) {
			o->gen++;
			o->st.resent += o->count;
		}
		if (o->instance)
			o->st.builder_changes++;
		o->instance = a->instance;
	}
	if (a->board != o->c.board)
		return;
	if ((a->flags & ABB_NET_ACK_RESEND) && o->count) {
		o->gen++;
		o->st.resent += o->count;
	}
	while (o->count && o->ring[o->head].hdr.seq < a->next_seq) {
		abb_daq_buf_release(o->ring[o->head].buf);
		o->ring[o->head].buf = NULL;
		o->head = (o->head + 1) % o->cap;
		o->count--;
		o->st.acked++;
	}
}

static void serve_acks(abb_daq_net_out *o)
{
	struct abb_net_ack a;
	int n;

	while ((n = zmq_recv(o->sub, &a, sizeof a, ZMQ_DONTWAIT)) >= 0)
		if (n == (int)sizeof a)
			handle_ack(o, &a);
}

/* Sends what is unsent in ring order, then END if due; stops at the first
 * -EAGAIN. Returns 0 when everything is sent, -EAGAIN, or an error. */
static int pump(abb_daq_net_out *o)
{
	int64_t t = now_ms();
	int rc;

	if ((o->count || o->ended) && t - o->last_ack_ms > o->c.resend_ms) {
		/* no acknowledgement at all for resend_ms: the builder is gone
		 * or restarting; what PUSH had queued for it is lost */
		o->gen++;
		o->st.resent += o->count;
		o->last_ack_ms = t;
	}
	for (unsigned i = 0; i < o->count; i++) {
		struct entry *e = &o->ring[(o->head + i) % o->cap];
		if (e->gen == o->gen)
			continue;
		rc = send_msg(o, &e->hdr, e->buf);
		if (rc)
			return rc;
		e->gen = o->gen;
	}
	if (o->ended && o->end_gen != o->gen) {
		struct abb_net_hdr h = {ABB_NET_MAGIC, ABB_NET_VERSION, ABB_NET_END, (uint16_t)o->c.board,
					o->c.src, 0, o->end_seq, 0, 0, 0, 0};
		rc = send_msg(o, &h, NULL);
		if (rc)
			return rc;
		o->end_gen = o->gen;
	}
	if (!o->ended && t - o->last_send_ms >= HEARTBEAT_MS) {
		struct abb_net_hdr h = {ABB_NET_MAGIC, ABB_NET_VERSION, ABB_NET_HEARTBEAT,
					(uint16_t)o->c.board, o->c.src, 0, o->next_seq, 0, 0, 0, 0};
		if (send_msg(o, &h, NULL) == 0)
			o->last_send_ms = t;
	}
	return 0;
}

/* Waits up to ms for an acknowledgement or room to send. */
static void wait_io(abb_daq_net_out *o, int ms)
{
	zmq_pollitem_t it[2] = {{o->sub, 0, ZMQ_POLLIN, 0}, {o->push, 0, ZMQ_POLLOUT, 0}};

	zmq_poll(it, 2, ms);
	serve_acks(o);
}

int abb_daq_net_out_poll(abb_daq_net_out *o, int wait_ms)
{
	int rc;

	if (!o)
		return -EINVAL;
	serve_acks(o);
	rc = pump(o);
	if (wait_ms > 0) {
		zmq_pollitem_t it = {o->sub, 0, ZMQ_POLLIN, 0};
		zmq_poll(&it, 1, wait_ms);
		serve_acks(o);
	}
	return rc == -EAGAIN ? 0 : rc;
}

int abb_daq_net_out_send(abb_daq_net_out *o, abb_daq_buf *b, uint64_t stalls, int64_t timeout_ms,
			 const volatile int *stop)
{
	size_t evb, data;
	const uint32_t *ev;
	struct entry *e;
	int64_t t0 = now_ms();
	int rc, counted = 0;

	if (!o || !b)
		return -EINVAL;
	evb = (size_t)o->c.event_dws * 4;
	data = b->len > ABB_DAQ_HEADER_BYTES ? b->len - ABB_DAQ_HEADER_BYTES : 0;
	ev = (const uint32_t *)((const char *)b->data + ABB_DAQ_HEADER_BYTES);
	if (!data || data % evb || (ev[0] & ABB_EVS_HDR_MAGIC) != ABB_EVS_MAGIC ||
	    (ev[0] & ABB_EVS_HDR_DWS) != o->c.event_dws) {
		fprintf(stderr, "abb_daq_net_out: board %u buffer %llu: %zu data bytes, first DW %08x: "
			"not whole events of %u DWs (the DMA length must be a multiple of the event "
			"size, the stream read from its start)\n", o->c.board,
			(unsigned long long)b->seq, data, data ? ev[0] : 0, o->c.event_dws);
		abb_daq_buf_release(b);
		return -EBADMSG;
	}
	/* room in the ring: wait for acknowledgements */
	while (o->count == o->cap) {
		if ((stop && *stop) || (timeout_ms >= 0 && now_ms() - t0 > timeout_ms))
			return stop && *stop ? -ECANCELED : -ETIMEDOUT;
		if (!counted++)
			o->st.blocked++;
		rc = pump(o);
		if (rc && rc != -EAGAIN)
			return rc;
		wait_io(o, 10);
	}
	e = &o->ring[(o->head + o->count) % o->cap];
	e->buf = b;
	e->gen = 0;
	e->hdr = (struct abb_net_hdr){ABB_NET_MAGIC, ABB_NET_VERSION, ABB_NET_DATA, (uint16_t)o->c.board,
				      o->c.src, (uint32_t)(data / evb), b->seq, ev[1], b->len, stalls, 0};
	o->count++;
	o->next_seq = b->seq + 1;
	if (o->count > o->st.max_unacked)
		o->st.max_unacked = o->count;
	o->st.sent++;
	o->st.bytes += b->len;
	o->st.events += data / evb;
	/* sent (or queued in ZeroMQ) before this returns: back-pressure */
	for (;;) {
		serve_acks(o);
		rc = pump(o);
		if (rc != -EAGAIN)
			return rc;
		if (!counted++)
			o->st.blocked++;
		if ((stop && *stop) || (timeout_ms >= 0 && now_ms() - t0 > timeout_ms))
			return 0; /* held: sent later by poll, send or finish */
		wait_io(o, 10);
	}
}

int abb_daq_net_out_finish(abb_daq_net_out *o, int64_t timeout_ms, const volatile int *stop)
{
	int64_t t0 = now_ms();
	int rc;

	if (!o)
		return -EINVAL;
	if (!o->ended) {
		o->ended = 1;
		o->end_seq = o->next_seq;
	}
	for (;;) {
		serve_acks(o);
		rc = pump(o);
		if (rc && rc != -EAGAIN)
			return rc;
		if (!rc && !o->count)
			return 0;
		if ((stop && *stop) || (timeout_ms >= 0 && now_ms() - t0 > timeout_ms))
			return -ETIMEDOUT;
		wait_io(o, 10);
	}
}

void abb_daq_net_out_stats(abb_daq_net_out *o, struct abb_daq_net_stats *s)
{
	if (!o || !s)
		return;
	*s = o->st;
	s->unacked = o->count;
}

void abb_daq_net_out_destroy(abb_daq_net_out *o)
{
	if (!o)
		return;
	if (o->push)
		zmq_close(o->push);
	if (o->sub)
		zmq_close(o->sub);
	/* every message ZeroMQ still holds is freed (zfree) before this returns */
	if (o->ctx)
		zmq_ctx_term(o->ctx);
	for (unsigned i = 0; o->ring && i < o->count; i++)
		abb_daq_buf_release(o->ring[(o->head + i) % o->cap].buf);
	free(o->ring);
	free(o);
}
