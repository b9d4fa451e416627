/*
 * abb_readout_node.c - a readout node of the farm: one board (its front-end
 * event source), a readout module in regular mode, its full buffers out to
 * the event builder over ZeroMQ (host/daq/daq_net_out.c, abb_daq_net.h).
 *
 *   abb_readout_node --board N --buffers B [options]
 *
 *   --board N         BoardNumber 1..65535 (event ids, the builder's socket
 *                     port+N, the event source id)
 *   --buffers B       buffers to read out, then END and wait for the
 *                     acknowledgements
 *   --builder HOST    the builder's address (127.0.0.1); --port P its ack port
 *                     (5600), data port P+N; or --data EP --ack EP (ZeroMQ
 *                     endpoints)
 *   --device URI      the board (default $ABB_DEVICE): e.g. sim:clock=free,board=2
 *   --buffer-size S   pool buffer bytes (32K); the DMA length is the largest
 *                     multiple of the event size that fits after the header
 *   --pool N          pool buffers (16): also the most held unacknowledged
 *   --payload DWS     payload DWs of an event (60: 256-byte events)
 *   --gap CYCLES      idle cycles of the event source between events (0)
 *   --hwm N           ZeroMQ send high-water mark (4)
 *   --resend-ms MS    resend the unacknowledged after this long without an
 *                     acknowledgement (2000)
 *   --finish-s S      wait at most this long for the last acknowledgements (30)
 *
 * Prints one line at the end: buffers, events, MB/s (wall), CPU %, how
 * often the network held it back, the front end's stall cycles (FIFO full:
 * the source waits, nothing is dropped on the board), resends. Exit 0 when
 * every buffer was acknowledged, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <abb/abb.h>
#include <abb/abb_daq.h>
#include <abb/abb_daq_net.h>
#include <abb/abb_regs.h>

#include "tool_args.h"

static volatile int g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int usage(void)
{
	fprintf(stderr, "usage: abb_readout_node --board N --buffers B [--builder HOST] [--port P] "
		"[--data EP --ack EP] [--device URI] [--buffer-size S] [--pool N] [--payload DWS] "
		"[--gap CYCLES] [--hwm N] [--resend-ms MS] [--finish-s S]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long board = 0, buffers = 0, bufsize = 32768, pool = 16, payload = 60, gap = 0,
			   hwm = 4, port = 5600, resend_ms = 2000, finish_s = 30;
	const char *host = "127.0.0.1", *data_ep = NULL, *ack_ep = NULL, *uri = NULL;
	char dep[256], aep[256], pv[24];
	struct abb_daq_params p;
	abb_daq_device *d = NULL;
	abb_daq_module *m = NULL;
	abb_daq_net_out *o = NULL;
	struct abb_daq_net_stats ns;
	struct abb_daq_stats ms;
	uint32_t addr, stalls = 0;
	int rc, status = 1;

	tool_begin("abb_readout_node");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(name, var, lo, hi, fl)                                                      \
	if (!strcmp(a, name)) {                                                         \
		if (!v || tool_num(name, v, lo, hi, fl, &var))                          \
			return usage();                                                 \
		i++;                                                                    \
		continue;                                                               \
	}
#define STR(name, var)                                                                  \
	if (!strcmp(a, name)) {                                                         \
		if (!v)                                                                 \
			return usage();                                                 \
		var = v;                                                                \
		i++;                                                                    \
		continue;                                                               \
	}
		NUM("--board", board, 1, 65535, 0)
		NUM("--buffers", buffers, 1, 1ull << 40, 0)
		NUM("--buffer-size", bufsize, 1024, 16u << 20, TOOL_NUM_SIZE)
		NUM("--pool", pool, 2, 4096, 0)
		NUM("--payload", payload, 0, 4092, 0)
		NUM("--gap", gap, 0, 65535, 0)
		NUM("--hwm", hwm, 1, 100000, 0)
		NUM("--port", port, 1, 65535, 0)
		NUM("--resend-ms", resend_ms, 10, 3600000, 0)
		NUM("--finish-s", finish_s, 1, 86400, 0)
		STR("--builder", host)
		STR("--data", data_ep)
		STR("--ack", ack_ep)
		STR("--device", uri)
		fprintf(stderr, "abb_readout_node: unknown argument \"%s\"\n", a);
		return usage();
	}
	if (!board || !buffers) {
		fprintf(stderr, "abb_readout_node: --board and --buffers are needed\n");
		return usage();
	}
	if (payload & 1) {
		fprintf(stderr, "abb_readout_node: --payload %llu: the event source rounds odd payloads "
			"up; give an even number of DWs\n", payload);
		return 2;
	}
	if (!data_ep != !ack_ep) {
		fprintf(stderr, "abb_readout_node: give both --data and --ack, or neither\n");
		return 2;
	}
	if (!data_ep) {
		if (port + board > 65535) {
			fprintf(stderr, "abb_readout_node: data port %llu + board %llu is past 65535\n",
				port, board);
			return 2;
		}
		snprintf(dep, sizeof dep, "tcp://%s:%llu", host, port + board);
		snprintf(aep, sizeof aep, "tcp://%s:%llu", host, port);
		data_ep = dep;
		ack_ep = aep;
	}
	unsigned evdws = 4 + (unsigned)payload;
	size_t evb = evdws * 4u;
	size_t len = (bufsize - ABB_DAQ_HEADER_BYTES) / evb * evb;
	if (!len) {
		fprintf(stderr, "abb_readout_node: --buffer-size %llu holds no event of %zu bytes after "
			"the %u-byte header\n", bufsize, evb, ABB_DAQ_HEADER_BYTES);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	abb_daq_params_default(&p);
	if (uri)
		snprintf(p.device, sizeof p.device, "%s", uri);
	p.board = (unsigned)board;
	if ((rc = abb_daq_device_open(&d, &p))) {
		fprintf(stderr, "abb_readout_node: board %llu: open %s: %s\n  %s\n", board,
			uri ? uri : "$ABB_DEVICE", abb_strerror(rc), abb_last_error());
		return 1;
	}
	if ((rc = abb_daq_evs_start(d, (uint16_t)board, (unsigned)payload, (unsigned)gap, &addr))) {
		fprintf(stderr, "abb_readout_node: board %llu: event source: %s\n", board, abb_strerror(rc));
		goto out;
	}
	p.buffer_size = bufsize;
	p.num_buffers = (unsigned)pool;
	p.standalone = 0;
	p.fifo = 1;
	p.address = addr;
	p.length = (uint32_t)len;
	p.max_buffers = buffers;
	p.threads = 1;
	snprintf(pv, sizeof pv, "node%llu", board);
	snprintf(p.pool, sizeof p.pool, "%s", pv);
	if ((rc = abb_daq_readout_create(&m, d, NULL, &p))) {
		fprintf(stderr, "abb_readout_node: board %llu: readout module: %s\n  %s\n", board,
			abb_strerror(rc), abb_last_error());
		goto out;
	}
	struct abb_daq_net_cfg nc = {data_ep, ack_ep, (unsigned)board, (uint16_t)board, evdws, (int)hwm,
				     (int64_t)resend_ms, (unsigned)pool};
	if ((rc = abb_daq_net_out_create(&o, &nc))) {
		fprintf(stderr, "abb_readout_node: board %llu: network output: %s\n", board, strerror(-rc));
		goto out;
	}
	double w0 = wall_s(), c0 = cpu_s();
	if ((rc = abb_daq_module_start(m))) {
		fprintf(stderr, "abb_readout_node: board %llu: start: %s\n", board, abb_strerror(rc));
		goto out;
	}
	uint32_t stalls_logged = 0;
	while (!g_stop) {
		abb_daq_buf *b;
		/* serve acknowledgements without waiting (they free the pool
		 * buffers the readout waits for), then wait for a buffer in short
		 * slices: a buffer goes out within 100 us of being filled, an
		 * acknowledgement is taken within 100 us of arriving */
		if ((rc = abb_daq_net_out_poll(o, 0)))
			break;
		rc = abb_daq_queue_pop(abb_daq_module_output(m), &b, 100000);
		if (rc == -ETIMEDOUT || rc == -EAGAIN)
			continue;
		if (rc)
			break; /* -EPIPE: the module ended (MaxBuffers, or an error) */
		if (abb_reg_read(abb_daq_device_dev(d), ABB_REG_EVS_STALLS, &stalls))
			stalls = 0;
		if (stalls - stalls_logged >= 125000000u) { /* a second of 125 MHz cycles */
			fprintf(stderr, "abb_readout_node: board %llu: front end stalled %u cycles so far "
				"(board FIFO full: the source waits for the readout, nothing is dropped)\n",
				board, stalls);
			stalls_logged = stalls;
		}
		rc = abb_daq_net_out_send(o, b, stalls, -1, &g_stop);
		if (rc == -ECANCELED) {
			abb_daq_buf_release(b);
			break;
		}
		if (rc)
			break;
	}
	abb_daq_module_stats(m, &ms);
	if (ms.error)
		fprintf(stderr, "abb_readout_node: board %llu: readout ended with an error: %s\n", board,
			abb_strerror(ms.error));
	if (rc && rc != -EPIPE)
		fprintf(stderr, "abb_readout_node: board %llu: %s\n", board, strerror(-rc));
	int fin = g_stop ? -ECANCELED : abb_daq_net_out_finish(o, (int64_t)finish_s * 1000, &g_stop);
	double w1 = wall_s(), c1 = cpu_s();
	abb_daq_net_out_stats(o, &ns);
	if (fin)
		fprintf(stderr, "abb_readout_node: board %llu: %u buffers not acknowledged (%s)\n", board,
			ns.unacked, fin == -ETIMEDOUT ? "no builder took them within --finish-s" : "stopped");
	printf("node %llu: %llu buffers, %llu events, %.1f MB/s, CPU %.0f %%, held back %llu times, "
	       "max unacked %llu of %llu, front-end stalls %u cycles, resent %llu, builder changes %llu%s\n",
	       board, (unsigned long long)ns.sent, (unsigned long long)ns.events,
	       w1 > w0 ? ns.bytes / (w1 - w0) / 1e6 : 0.0, w1 > w0 ? 100 * (c1 - c0) / (w1 - w0) : 0.0,
	       (unsigned long long)ns.blocked, (unsigned long long)ns.max_unacked, pool, stalls,
	       (unsigned long long)ns.resent, (unsigned long long)ns.builder_changes,
	       fin ? " (incomplete)" : "");
	status = (!fin && !ms.error && ns.sent == buffers) ? 0 : 1;
out:
	abb_daq_net_out_destroy(o);
	if (m)
		abb_daq_module_destroy(m);
	if (d) {
		rc = abb_daq_evs_stop(d);
		(void)rc;
		abb_daq_device_close(d);
	}
	return status;
}
