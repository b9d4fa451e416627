/*
 * abb_daq_net.h - the readout farm's network layer on ZeroMQ: the wire
 * format between readout nodes and the event builder, and the network
 * output unit of a readout node (host/daq/daq_net_out.c; not in libabb
 * itself: link build/host/daq/daq_net_out.o and -lzmq).
 *
 * Sockets (tcp:// or ipc://, any ZeroMQ endpoint):
 *   data  node PUSH --connect--> builder PULL (bind), one per board: the
 *         builder reads a board only while its queue for it has room, so
 *         ZeroMQ's high-water marks, then the node's bounded pool, then the
 *         board's FIFO take up the back-pressure (nothing dropped)
 *   ack   builder PUB (bind) --> node SUB (connect): cumulative
 *         acknowledgements, sent when a range is built and every 100 ms
 *         (a lost one is covered by the next); a node keeps every buffer
 *         until it is acknowledged and sends it again when the builder
 *         changed (another instance id) or acknowledged nothing for the
 *         resend time: PUSH drops what it had queued for a peer that died
 *
 * Messages: data = two frames, struct abb_net_hdr then the buffer as the
 * readout module filled it (struct abb_daq_evhdr, then the DMA data: whole
 * events of the front end), sent zero-copy from the pool; heartbeat and end
 * = the header alone; ack = struct abb_net_ack. Little-endian hosts only
 * (the fields go as they are in memory; abb_net_hdr_check says so).
 */
#ifndef ABB_ABB_DAQ_NET_H
#define ABB_ABB_DAQ_NET_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb_daq.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ABB_NET_MAGIC 0x46424241u /* "ABBF" */
#define ABB_NET_VERSION 1u

enum abb_net_kind {
	ABB_NET_DATA = 1,      /* a buffer: header + payload frame */
	ABB_NET_HEARTBEAT = 2, /* the node lives; seq = its next buffer's */
	ABB_NET_END = 3,       /* the node sent everything; seq = buffers in all */
	ABB_NET_ACK = 4        /* builder to nodes */
};

struct abb_net_hdr {
	uint32_t magic;       /* ABB_NET_MAGIC */
	uint16_t version;     /* ABB_NET_VERSION */
	uint16_t kind;        /* enum abb_net_kind */
	uint16_t board;       /* BoardNumber 1..65535 */
	uint16_t src;         /* the front end's source id (in every event) */
	uint32_t n_events;    /* whole events in the payload */
	uint64_t seq;         /* buffer sequence number (the event header's counter) */
	uint64_t first_event; /* event counter of the first event */
	uint64_t bytes;       /* payload bytes (the whole buffer, its 16-byte header too) */
	uint64_t stalls;      /* the front end's stall cycles so far (EVS_STALLS) */
	uint64_t oldest;      /* the node's oldest unacknowledged buffer (next_seq when it
			       * holds none): a builder that starts learns from it what an
			       * earlier instance built */
};

#define ABB_NET_ACK_RESEND 0x1u

struct abb_net_ack {
	uint32_t magic;    /* ABB_NET_MAGIC */
	uint16_t version;  /* ABB_NET_VERSION */
	uint16_t kind;     /* ABB_NET_ACK */
	uint16_t board;    /* whose buffers */
	uint16_t flags;    /* ABB_NET_ACK_RESEND: a buffer came out of order (one before it
			    * was lost with a connection): send every unacknowledged again */
	uint32_t pad;
	uint64_t next_seq; /* every buffer below this one is taken */
	uint64_t instance; /* the builder's instance id (a restart changes it) */
};

/* 0 if h (n bytes) is a header of this version, else -EPROTO with a reason
 * in why (at least 128 bytes). */
int abb_net_hdr_check(const void *h, size_t n, char *why, size_t whylen);

/* ---- the network output unit of a readout node ------------------------- */

typedef struct abb_daq_net_out abb_daq_net_out;

struct abb_daq_net_cfg {
	const char *data_ep; /* the builder's PULL for this board, e.g. tcp://host:5601 */
	const char *ack_ep;  /* the builder's PUB, e.g. tcp://host:5600 */
	unsigned board;      /* BoardNumber (also in every header) */
	uint16_t src;        /* event source id */
	unsigned event_dws;  /* DWs of one event (4 + payload, even) */
	int hwm;             /* ZeroMQ send high-water mark, messages (0: 4) */
	int64_t resend_ms;   /* resend the unacknowledged after this long without an
			      * acknowledgement (0: 2000) */
	unsigned max_unacked;/* buffers held at most (the pool's size): send waits
			      * for acknowledgements beyond it */
};

struct abb_daq_net_stats {
	uint64_t sent, bytes, events; /* first sends */
	uint64_t acked;               /* buffers acknowledged and returned */
	uint64_t resent;              /* sends again (builder restart or silence) */
	uint64_t blocked;             /* sends that found the high-water mark reached */
	uint64_t max_unacked;         /* most buffers held at once */
	uint64_t builder_changes;     /* other builder instances seen */
	unsigned unacked;             /* held now */
};

/* Connects (ZeroMQ connects in the background: no builder needed yet). */
int abb_daq_net_out_create(abb_daq_net_out **o, const struct abb_daq_net_cfg *c);
/* Sends buf (takes the caller's reference: the buffer goes back to its pool
 * once ZeroMQ has sent it and the builder has acknowledged it). Checks that
 * the payload is whole events of the configured size (-EBADMSG, buf
 * released). Waits while max_unacked buffers are held (-ETIMEDOUT after
 * timeout_ms of wall time, < 0: no limit, or -ECANCELED on *stop: buf not
 * taken, the caller still holds it), then while the high-water mark is
 * reached, serving acknowledgements meanwhile (0 after the timeout or a
 * stop too: buf is held and goes out with a later call). */
int abb_daq_net_out_send(abb_daq_net_out *o, abb_daq_buf *buf, uint64_t stalls,
			 int64_t timeout_ms, const volatile int *stop);
/* Serves acknowledgements, resends, sends a heartbeat when due; waits up to
 * wait_ms for an acknowledgement. */
int abb_daq_net_out_poll(abb_daq_net_out *o, int wait_ms);
/* Sends END and waits until every buffer is acknowledged, up to timeout_ms:
 * 0, or -ETIMEDOUT with the number still unacknowledged in the stats. */
int abb_daq_net_out_finish(abb_daq_net_out *o, int64_t timeout_ms, const volatile int *stop);
void abb_daq_net_out_stats(abb_daq_net_out *o, struct abb_daq_net_stats *s);
/* Releases every buffer held (after ZeroMQ let go of them) and closes. */
void abb_daq_net_out_destroy(abb_daq_net_out *o);

#ifdef __cplusplus
}
#endif
#endif
