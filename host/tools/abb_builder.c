/*
 * abb_builder.c - the farm's event builder: receives the buffers of N
 * readout nodes (abb_readout_node) over ZeroMQ (abb_daq_net.h), combines
 * the buffers of the same event range from every board, checks continuity
 * (every event of every board exactly once, in order per board: counter,
 * magic, size, source id and ~counter of every event, the buffer's own
 * header), passes the built range to a filter stage and acknowledges it.
 *
 *   abb_builder --boards N [options]
 *
 *   --boards N        readout nodes, BoardNumbers 1..N
 *   --bind HOST       address to bind (127.0.0.1; * for every interface)
 *   --port P          ack PUB on P, board k's data PULL on P+k (5600)
 *   --queue Q         buffers held per board (8): a board whose queue is
 *                     full is not read, so its node is held back
 *   --rcvhwm H        ZeroMQ receive high-water mark per board (4)
 *   --filter-mbps R   the filter stage takes size/R per built range (0: no-op)
 *   --on-fault continue|stop
 *                     a node that died or stalls (nothing for --dead-ms while
 *                     the builder waits for it): go on with the others, or
 *                     stop cleanly (exit 3); default stop
 *   --dead-ms MS      (2000)
 *   --start-ms MS     wait at most this long for the first word of every node (30000)
 *   --quiet           no statistics lines (one a second otherwise)
 *
 * Ends when every node has sent END and all is built, and prints
 *   farm: E events from N boards, L lost, D duplicated
 * E: built events (each from every board); L: events of a board that were
 * not built (a dead board's after its last one, an incomplete last range);
 * D: events built twice (the continuity check would have failed: 0). Also:
 * duplicate buffers dropped (resends), resend requests. Exit 0 when all
 * went well, 3 on a fault (a board named), 1 on a continuity error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include <abb/abb_daq.h>
#include <abb/abb_daq_net.h>
#include <abb/abb_regs.h>

#include "tool_args.h"

#define MAX_BOARDS 64
#define ACK_EVERY_MS 100

struct pending {
	struct abb_net_hdr h;
	zmq_msg_t m;
};

struct board {
	unsigned id;
	void *sock;
	struct pending *q;
	unsigned head, count;
	int heard;           /* a first message came (oldest known) */
	uint64_t oldest;     /* of the first message */
	uint64_t next_recv;  /* the next buffer expected */
	uint64_t acked;      /* acknowledged: every buffer below */
	uint64_t last_event; /* last event built (UINT64_MAX: none) */
	uint64_t last_seq;   /* highest buffer received */
	int64_t last_seen;
	int ended, dead;
	uint64_t end_seq;
	int want_resend;
	int64_t resend_asked;
	uint64_t dups, gaps, bytes, stalls;
};

static volatile int g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) && errno == EINTR && !g_stop)
		;
}

static int usage(void)
{
	fprintf(stderr, "usage: abb_builder --boards N [--bind HOST] [--port P] [--queue Q] [--rcvhwm H] "
		"[--filter-mbps R] [--on-fault continue|stop] [--dead-ms MS] [--start-ms MS] [--quiet]\n");
	return 2;
}

static void *g_pub;
static uint64_t g_instance;

static void send_ack(struct board *b)
{
	struct abb_net_ack a = {ABB_NET_MAGIC, ABB_NET_VERSION, ABB_NET_ACK, (uint16_t)b->id, 0, 0,
				b->acked, g_instance};

	if (b->want_resend) {
		a.flags = ABB_NET_ACK_RESEND;
		b->want_resend = 0;
	}
	zmq_send(g_pub, &a, sizeof a, ZMQ_DONTWAIT); /* PUB: a lost one is covered by the next */
}

/* Checks every event of a buffer of board b: 0, or -1 with a message. */
static int check_buffer(struct board *b, const struct pending *p)
{
	const char *data = zmq_msg_data((zmq_msg_t *)&p->m);
	size_t len = zmq_msg_size((zmq_msg_t *)&p->m);
	struct abb_daq_evhdr eh;
	uint32_t dws, n = p->h.n_events;

	if (len != p->h.bytes || len < ABB_DAQ_HEADER_BYTES || !n) {
		fprintf(stderr, "builder: board %u buffer %llu: %zu payload bytes, header says %llu "
			"with %u events\n", b->id, (unsigned long long)p->h.seq, len,
			(unsigned long long)p->h.bytes, n);
		return -1;
	}
	memcpy(&eh, data, sizeof eh);
	if (eh.event_counter != p->h.seq || eh.unique_id != ((uint64_t)b->id << 48 | p->h.seq)) {
		fprintf(stderr, "builder: board %u buffer %llu: its event header says counter %llu, "
			"unique id %016llx\n", b->id, (unsigned long long)p->h.seq,
			(unsigned long long)eh.event_counter, (unsigned long long)eh.unique_id);
		return -1;
	}
	dws = (uint32_t)((len - ABB_DAQ_HEADER_BYTES) / 4 / n);
	if ((size_t)dws * 4 * n != len - ABB_DAQ_HEADER_BYTES) {
		fprintf(stderr, "builder: board %u buffer %llu: %zu bytes are not %u whole events\n", b->id,
			(unsigned long long)p->h.seq, len - ABB_DAQ_HEADER_BYTES, n);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ev[4], last;
		uint64_t want = p->h.first_event + i;
		memcpy(ev, data + ABB_DAQ_HEADER_BYTES + (size_t)i * dws * 4, sizeof ev);
		memcpy(&last, data + ABB_DAQ_HEADER_BYTES + ((size_t)i + 1) * dws * 4 - 4, 4);
		uint32_t want_last = dws > 4 ? (((uint32_t)want << ABB_EVS_DATA_CNT_SHIFT & ABB_EVS_DATA_CNT) |
						((dws - 5) << ABB_EVS_DATA_IDX_SHIFT & ABB_EVS_DATA_IDX)) ^
						       ((uint32_t)p->h.src << ABB_EVS_DATA_SRC_SHIFT &
							ABB_EVS_DATA_SRC)
					     : ~(uint32_t)want;
		if ((ev[0] & ABB_EVS_HDR_MAGIC) != ABB_EVS_MAGIC || (ev[0] & ABB_EVS_HDR_DWS) != dws ||
		    ev[1] != (uint32_t)want || ev[2] != p->h.src || ev[3] != ~(uint32_t)want ||
		    last != want_last) {
			fprintf(stderr, "builder: board %u buffer %llu event %u: %08x %08x %08x %08x .. %08x, "
				"expected event %llu of source %u (%u DWs)\n", b->id,
				(unsigned long long)p->h.seq, i, ev[0], ev[1], ev[2], ev[3], last,
				(unsigned long long)want, p->h.src, dws);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long nb = 0, port = 5600, qcap = 8, rcvhwm = 4, filter_mbps = 0, dead_ms = 2000,
			   start_ms = 30000;
	const char *bind_host = "127.0.0.1", *on_fault = "stop";
	int quiet = 0, status = 0, faulted = 0;
	struct board bd[MAX_BOARDS];
	void *ctx;

	tool_begin("abb_builder");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(name, var, lo, hi)                                                          \
	if (!strcmp(a, name)) {                                                         \
		if (!v || tool_num(name, v, lo, hi, 0, &var))                           \
			return usage();                                                 \
		i++;                                                                    \
		continue;                                                               \
	}
		NUM("--boards", nb, 1, MAX_BOARDS)
		NUM("--port", port, 1, 65535)
		NUM("--queue", qcap, 1, 4096)
		NUM("--rcvhwm", rcvhwm, 1, 100000)
		NUM("--filter-mbps", filter_mbps, 0, 1000000)
		NUM("--dead-ms", dead_ms, 10, 3600000)
		NUM("--start-ms", start_ms, 10, 3600000)
		if (!strcmp(a, "--bind") && v) {
			bind_host = v;
			i++;
			continue;
		}
		if (!strcmp(a, "--on-fault") && v) {
			if (strcmp(v, "continue") && strcmp(v, "stop")) {
				fprintf(stderr, "abb_builder: --on-fault %s: accepted continue or stop\n", v);
				return 2;
			}
			on_fault = v;
			i++;
			continue;
		}
		if (!strcmp(a, "--quiet")) {
			quiet = 1;
			continue;
		}
		fprintf(stderr, "abb_builder: unknown argument \"%s\"\n", a);
		return usage();
	}
	if (!nb) {
		fprintf(stderr, "abb_builder: --boards is needed\n");
		return usage();
	}
	if (port + nb > 65535) {
		fprintf(stderr, "abb_builder: ports %llu..%llu: past 65535\n", port, port + nb);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	g_instance = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ms() ^ ((uint64_t)time(NULL) << 20);
	if (!g_instance)
		g_instance = 1;

	ctx = zmq_ctx_new();
	g_pub = zmq_socket(ctx, ZMQ_PUB);
	int zero = 0, hwm = (int)rcvhwm;
	char ep[300];
	zmq_setsockopt(g_pub, ZMQ_LINGER, &zero, sizeof zero);
	snprintf(ep, sizeof ep, "tcp://%s:%llu", bind_host, port);
	if (zmq_bind(g_pub, ep)) {
		fprintf(stderr, "abb_builder: bind %s: %s\n", ep, zmq_strerror(errno));
		return 1;
	}
	memset(bd, 0, sizeof bd);
	for (unsigned k = 0; k < nb; k++) {
		struct board *b = &bd[k];
		b->id = k + 1;
		b->q = calloc(qcap, sizeof *b->q);
		b->sock = zmq_socket(ctx, ZMQ_PULL);
		b->last_event = UINT64_MAX;
		zmq_setsockopt(b->sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
		zmq_setsockopt(b->sock, ZMQ_LINGER, &zero, sizeof zero);
		snprintf(ep, sizeof ep, "tcp://%s:%llu", bind_host, port + b->id);
		if (!b->q || zmq_bind(b->sock, ep)) {
			fprintf(stderr, "abb_builder: bind %s: %s\n", ep, zmq_strerror(errno));
			return 1;
		}
	}

	int64_t t_start = now_ms(), last_ack = 0, last_stat = t_start, t_first = 0;
	double c0 = cpu_s();
	uint64_t build_seq = 0, built_events = 0, built_bytes = 0, dup_events = 0, err_events = 0;
	uint64_t stat_events = 0, stat_bytes = 0, max_q = 0;
	int started = 0;

	while (!g_stop) {
		int64_t t = now_ms();
		zmq_pollitem_t it[MAX_BOARDS];
		unsigned idx[MAX_BOARDS], ni = 0;

		/* read the boards whose queue has room: the others are held back */
		for (unsigned k = 0; k < nb; k++)
			if (!bd[k].dead && bd[k].count < qcap) {
				it[ni] = (zmq_pollitem_t){bd[k].sock, 0, ZMQ_POLLIN, 0};
				idx[ni++] = k;
			}
		zmq_poll(it, (int)ni, 20);
		t = now_ms();
		for (unsigned j = 0; j < ni; j++) {
			struct board *b = &bd[idx[j]];
			for (int r = 0; r < 16 && b->count < qcap && (it[j].revents & ZMQ_POLLIN); r++) {
				/* received in place: the tail slot (zmq_msg_t is never copied) */
				struct pending *p = &b->q[(b->head + b->count) % qcap];
				char why[160] = "";
				int more = 0;
				size_t ml = sizeof more;
				int n = zmq_recv(b->sock, &p->h, sizeof p->h, ZMQ_DONTWAIT);
				if (n < 0)
					break;
				zmq_getsockopt(b->sock, ZMQ_RCVMORE, &more, &ml);
				zmq_msg_init(&p->m);
				if (more && zmq_msg_recv(&p->m, b->sock, 0) < 0) {
					zmq_msg_close(&p->m);
					break;
				}
				if (abb_net_hdr_check(&p->h, (size_t)n, why, sizeof why) || p->h.board != b->id) {
					fprintf(stderr, "builder: board %u's socket: a message dropped: %s\n", b->id,
						why[0] ? why : "another board's");
					zmq_msg_close(&p->m);
					continue;
				}
				b->last_seen = t;
				if (!b->heard) {
					b->heard = 1;
					b->oldest = p->h.oldest;
				}
				if (p->h.kind == ABB_NET_END) {
					b->ended = 1;
					b->end_seq = p->h.seq;
				}
				if (p->h.kind != ABB_NET_DATA || !more) {
					zmq_msg_close(&p->m);
					continue;
				}
				b->stalls = p->h.stalls;
				if (!started) {
					b->count++; /* held until the start is known */
					continue;
				}
				if (p->h.seq < b->next_recv) {
					/* built already (a resend): dropped, acknowledged again */
					b->dups++;
					send_ack(b);
					zmq_msg_close(&p->m);
					continue;
				}
				if (p->h.seq > b->next_recv) {
					/* one before it was lost with a connection: ask for all again */
					b->gaps++;
					if (t - b->resend_asked > 500) {
						b->want_resend = 1;
						b->resend_asked = t;
						send_ack(b);
					}
					zmq_msg_close(&p->m);
					continue;
				}
				b->count++;
				b->next_recv = p->h.seq + 1;
				if (p->h.seq + 1 > b->last_seq)
					b->last_seq = p->h.seq + 1;
				if (b->count > max_q)
					max_q = b->count;
			}
		}
		/* acknowledgements go out from the first moment (before the start
		 * too: a node that hears nothing would take the builder for gone) */
		if (t - last_ack >= ACK_EVERY_MS) {
			for (unsigned k = 0; k < nb; k++)
				send_ack(&bd[k]);
			last_ack = t;
		}
		/* the start: every board heard (or given up on) */
		if (!started) {
			unsigned heard = 0;
			for (unsigned k = 0; k < nb; k++)
				heard += bd[k].heard;
			if (heard < nb && t - t_start < (int64_t)start_ms)
				continue;
			uint64_t s = 0;
			for (unsigned k = 0; k < nb; k++) {
				if (!bd[k].heard) {
					fprintf(stderr, "builder: board %u: never heard from within %llu ms\n",
						bd[k].id, start_ms);
					bd[k].dead = 1;
					faulted = 1;
				} else if (bd[k].oldest > s) {
					s = bd[k].oldest;
				}
			}
			if (faulted && !strcmp(on_fault, "stop"))
				break;
			build_seq = s;
			for (unsigned k = 0; k < nb; k++) {
				struct board *b = &bd[k];
				unsigned n = b->count, kept = 0;
				b->next_recv = b->acked = s;
				b->last_seen = t;
				/* sort out what came before the start, in place */
				for (unsigned i = 0; i < n; i++) {
					struct pending *p = &b->q[(b->head + i) % qcap];
					if (p->h.seq < b->next_recv) {
						b->dups++;
						zmq_msg_close(&p->m);
					} else if (p->h.seq > b->next_recv) {
						b->gaps++;
						b->want_resend = 1;
						zmq_msg_close(&p->m);
					} else {
						struct pending *d = &b->q[(b->head + kept++) % qcap];
						if (d != p) {
							d->h = p->h;
							zmq_msg_init(&d->m);
							zmq_msg_move(&d->m, &p->m);
							zmq_msg_close(&p->m);
						}
						b->next_recv = d->h.seq + 1;
						b->last_seq = b->next_recv;
					}
				}
				b->count = kept;
				send_ack(b);
			}
			started = 1;
			t_first = t;
			if (s)
				fprintf(stderr, "builder: starting at buffer %llu (what the nodes held)\n",
					(unsigned long long)s);
		}
		/* build every range all live boards have */
		for (;;) {
			unsigned live = 0, have = 0;
			for (unsigned k = 0; k < nb; k++) {
				struct board *b = &bd[k];
				if (b->dead || (b->ended && b->end_seq <= build_seq))
					continue;
				live++;
				if (b->count && b->q[b->head].h.seq == build_seq)
					have++;
			}
			if (!live || have < live)
				break;
			struct pending *ref = NULL;
			uint64_t bytes = 0;
			int bad = 0;
			for (unsigned k = 0; k < nb; k++) {
				struct board *b = &bd[k];
				if (b->dead || (b->ended && b->end_seq <= build_seq))
					continue;
				struct pending *p = &b->q[b->head];
				if (!ref)
					ref = p;
				if (p->h.first_event != ref->h.first_event || p->h.n_events != ref->h.n_events) {
					fprintf(stderr, "builder: buffer %llu: board %u has events %llu+%u, board %u "
						"%llu+%u: the boards' event ranges differ (same --payload and "
						"--buffer-size on every node?)\n", (unsigned long long)build_seq,
						ref->h.board, (unsigned long long)ref->h.first_event, ref->h.n_events,
						b->id, (unsigned long long)p->h.first_event, p->h.n_events);
					bad = 1;
				}
				if (b->last_event != UINT64_MAX && p->h.first_event != b->last_event + 1) {
					if (p->h.first_event <= b->last_event)
						dup_events += b->last_event + 1 - p->h.first_event;
					fprintf(stderr, "builder: board %u buffer %llu starts at event %llu, the last "
						"one built was %llu\n", b->id, (unsigned long long)build_seq,
						(unsigned long long)p->h.first_event,
						(unsigned long long)b->last_event);
					bad = 1;
				}
				if (check_buffer(b, p))
					bad = 1;
				bytes += p->h.bytes;
			}
			if (bad) {
				err_events += ref->h.n_events;
				status = 1;
				g_stop = 1;
				break;
			}
			/* the filter stage: a no-op, or as slow as asked */
			if (filter_mbps)
				sleep_us(bytes / filter_mbps);
			for (unsigned k = 0; k < nb; k++) {
				struct board *b = &bd[k];
				if (b->dead || (b->ended && b->end_seq <= build_seq))
					continue;
				struct pending *p = &b->q[b->head];
				b->last_event = p->h.first_event + p->h.n_events - 1;
				b->bytes += p->h.bytes;
				zmq_msg_close(&p->m);
				b->head = (b->head + 1) % qcap;
				b->count--;
				b->acked = build_seq + 1;
				send_ack(b);
			}
			built_events += ref->h.n_events;
			built_bytes += bytes;
			stat_events += ref->h.n_events;
			stat_bytes += bytes;
			build_seq++;
		}
		if (g_stop)
			break;
		t = now_ms();
		if (t - last_ack >= ACK_EVERY_MS) {
			for (unsigned k = 0; k < nb; k++)
				send_ack(&bd[k]);
			last_ack = t;
		}
		/* a node that died or stalls: the builder waits for it (its queue
		 * is empty) and hears nothing; boards it holds back are not late */
		for (unsigned k = 0; k < nb; k++) {
			struct board *b = &bd[k];
			if (b->dead || (b->ended && b->end_seq <= build_seq))
				continue;
			if (b->count)
				b->last_seen = t;
			else if (t - b->last_seen > (int64_t)dead_ms) {
				fprintf(stderr, "builder: board %u: nothing for %lld ms, last event %lld (buffer "
					"%lld); %s\n", b->id, (long long)(t - b->last_seen),
					b->last_event == UINT64_MAX ? -1LL : (long long)b->last_event,
					build_seq ? (long long)build_seq - 1 : -1LL,
					!strcmp(on_fault, "stop") ? "stopping" : "going on with the others");
				faulted = 1;
				b->dead = 1;
				for (; b->count; b->count--, b->head = (b->head + 1) % qcap)
					zmq_msg_close(&b->q[b->head].m);
			}
		}
		if (faulted && !strcmp(on_fault, "stop"))
			break;
		if (!quiet && t - last_stat >= 1000) {
			char qs[256] = "", ls[256] = "";
			size_t qo = 0, lo = 0;
			for (unsigned k = 0; k < nb && qo < sizeof qs - 16; k++) {
				qo += snprintf(qs + qo, sizeof qs - qo, "%s%u", k ? " " : "", bd[k].count);
				lo += snprintf(ls + lo, sizeof ls - lo, "%s%lld", k ? " " : "",
					       bd[k].dead ? -1LL : (long long)(bd[k].last_seq - build_seq));
			}
			fprintf(stderr, "builder: %.0f events/s, %.1f MB/s, queues [%s], lag [%s] buffers\n",
				stat_events * 1000.0 / (t - last_stat), stat_bytes / 1e3 / (t - last_stat), qs, ls);
			stat_events = stat_bytes = 0;
			last_stat = t;
		}
		/* the end: every live board ended and built */
		unsigned open_boards = 0;
		for (unsigned k = 0; k < nb; k++)
			if (!bd[k].dead && !(bd[k].ended && bd[k].end_seq <= build_seq))
				open_boards++;
		if (started && !open_boards)
			break;
	}
	/* the last acknowledgements, so the nodes can end */
	for (int r = 0; r < 3; r++) {
		for (unsigned k = 0; k < nb; k++)
			send_ack(&bd[k]);
		usleep(20000);
	}
	int64_t t_end = now_ms();
	double cpu = cpu_s() - c0;
	uint64_t lost = 0, dups = 0, gaps = 0;
	unsigned alive = 0;
	for (unsigned k = 0; k < nb; k++) {
		struct board *b = &bd[k];
		dups += b->dups;
		gaps += b->gaps;
		alive += !b->dead;
		uint64_t got = b->last_event == UINT64_MAX ? 0 : b->last_event + 1;
		uint64_t want = built_events + (b->dead ? 0 : 0);
		if (b->dead) {
			fprintf(stderr, "builder: board %u lost after event %lld\n", b->id,
				b->last_event == UINT64_MAX ? -1LL : (long long)b->last_event);
			lost += built_events > got ? built_events - got : 0;
		}
		(void)want;
		for (; b->count; b->count--, b->head = (b->head + 1) % qcap) {
			lost += b->q[b->head].h.n_events;
			zmq_msg_close(&b->q[b->head].m);
		}
	}
	double secs = t_end > t_first ? (t_end - t_first) / 1e3 : 0;
	fprintf(stderr, "builder: %.1f MB/s over %.2f s, CPU %.0f %%, max queue %llu of %llu, %llu duplicate "
		"buffers dropped, %llu out-of-order buffers (resend asked)\n",
		secs > 0 ? built_bytes / secs / 1e6 : 0.0, secs, secs > 0 ? 100 * cpu / secs : 0.0,
		(unsigned long long)max_q, qcap, (unsigned long long)dups, (unsigned long long)gaps);
	if (alive == nb)
		printf("farm: %llu events from %llu boards, %llu lost, %llu duplicated\n",
		       (unsigned long long)built_events, nb, (unsigned long long)(lost + err_events),
		       (unsigned long long)dup_events);
	else
		printf("farm: %llu events from %u of %llu boards, %llu lost, %llu duplicated\n",
		       (unsigned long long)built_events, alive, nb, (unsigned long long)(lost + err_events),
		       (unsigned long long)dup_events);
	for (unsigned k = 0; k < nb; k++) {
		zmq_close(bd[k].sock);
		free(bd[k].q);
	}
	zmq_close(g_pub);
	zmq_ctx_term(ctx);
	if (status)
		return status;
	return faulted ? 3 : 0;
}
