/*
 * abb_daq.h - readout and writer modules on top of libabb (the DABC layer).
 *
 * The pattern of DABC's AbbDevice / PCITransport / AbbReadoutModule /
 * AbbWriterModule (see ABB-INTERFACE.md, "DABC's layer on top"), in C:
 *
 *   pool        fixed-size buffers with ids (0..n-1) and reference counts
 *   queue       bounded FIFO of buffers between modules: a full queue stops
 *               the producer (back-pressure), nothing is ever dropped
 *   device      an open board plus the DMA mapping of every pool buffer,
 *               made once per buffer and extended when a pool grows
 *   transport   the size / start / complete cycle of one DMA channel; the
 *               modules run it double-buffered: one DMA in flight while the
 *               previous buffer is handed on
 *   module      readout (board to host) or writer (host to board), standalone
 *               or regular, one thread (transport and module share it) or
 *               two threads (transport thread + module thread, a queue
 *               between them)
 *
 * Words as in <abb/abb.h>: "read" = board to host, "write" = host to board.
 *
 * Every int function returns 0 (or a count) or a negative errno and never
 * exits; abb_last_error() explains errors that came from libabb. Objects
 * are created by *_create and freed by *_destroy; destroy order: modules,
 * then the device (it unmaps the pools), then pools.
 */
#ifndef ABB_ABB_DAQ_H
#define ABB_ABB_DAQ_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct abb_daq_pool abb_daq_pool;
typedef struct abb_daq_queue abb_daq_queue;
typedef struct abb_daq_device abb_daq_device;
typedef struct abb_daq_transport abb_daq_transport;
typedef struct abb_daq_module abb_daq_module;

/* ---- configuration by named parameters ---------------------------------
 * Names (case-insensitive) and defaults:
 *   DeviceName   ""      URI for abb_open ("" = $ABB_DEVICE)
 *   BoardNumber  0       goes into the unique id of the event header
 *                        (16 bits: 0..65535)
 *   BAR          1       DMA peripheral BAR (only 1 exists)
 *   Address      0       board byte address of the first DMA
 *   Length       0       bytes per DMA; 0 = BufferSize minus the header
 *   Region       0       bytes of board memory walked through: buffer i goes
 *                        to Address + (i * Length) % Region; 0 = Length
 *   BufferSize   65536   bytes of a pool buffer (header included; below 4 GiB:
 *                        a DMA length is 32 bits)
 *   NumBuffers   8       buffers in the pool the module creates (at least 2:
 *                        one in the DMA while the previous is handed on)
 *   QueueLength  4       capacity of the module's queues
 *   Standalone   1       1: readout releases, writer takes from the pool;
 *                        0: readout forwards to its output, writer sends
 *                        what arrives on its input
 *   PoolName     "abb"   name of the pool the module creates
 *   Fifo         0       1: fixed board address (ABB_DMA_FIXED, a FIFO)
 *   Threads      1       1: transport and module share a thread; 2: not
 *   EventHeader  1       readout: 16-byte header at the start of the buffer,
 *                        DMA into the buffer at offset 16
 *   Interrupt    0       complete DMAs by interrupt (ABB_DMA_IRQ)
 *   MaxBuffers   0       stop with end of stream after this many (0: never)
 *   Timeout      1000000 device ns one wait for completion may take before
 *                        the transport checks for a stop and waits again
 *                        (-1: no limit; other negative values are refused)
 *   SpinNs       20000   wall ns a thread polls an empty/full queue before
 *                        it sleeps (0: sleep at once; not negative)
 */
struct abb_daq_params {
	char device[128];
	unsigned board;
	unsigned bar;
	uint32_t address;
	uint32_t length;
	uint32_t region;
	size_t buffer_size;
	unsigned num_buffers;
	unsigned queue_length;
	int standalone;
	char pool[32];
	int fifo;
	int threads;
	int header;
	int irq;
	uint64_t max_buffers;
	int64_t timeout_ns;
	int64_t spin_ns;
};

void abb_daq_params_default(struct abb_daq_params *p);
/* Sets one parameter by name; value in C syntax, k/M suffixes for sizes.
 * -EINVAL: unknown name or bad value (nothing changed). */
ABB_MUST_USE int abb_daq_params_set(struct abb_daq_params *p, const char *name,
				    const char *value);
/* "Name=value,Name=value,..." (also whitespace separated). All or nothing:
 * on an error (the first bad item's) p is unchanged. Numbers are checked
 * against their field's range after the suffix (no wrap). */
ABB_MUST_USE int abb_daq_params_parse(struct abb_daq_params *p, const char *text);

/* ---- buffers and pools -------------------------------------------------- */

#define ABB_DAQ_HEADER_BYTES 16u

/* The 16-byte event header a readout writes at the start of a buffer: the
 * event counter (per device, +1 per buffer, 0 after the device is opened or
 * cleaned up) and a unique id = BoardNumber << 48 | counter (48 bits). */
struct abb_daq_evhdr {
	uint64_t event_counter;
	uint64_t unique_id;
};

struct abb_daq_buf {
	abb_daq_pool *pool;
	uint32_t id;    /* index in its pool, stable for the life of the pool */
	void *data;     /* size bytes, page aligned */
	size_t size;
	size_t len;     /* valid bytes (readout: header + DMA length) */
	uint64_t seq;   /* readout: the event counter of the header */
	int refs;       /* private: use abb_daq_buf_ref / abb_daq_buf_release */
	struct abb_daq_buf *ret_next; /* private: the pool's list of returned buffers */
};
typedef struct abb_daq_buf abb_daq_buf;

/* nbufs buffers of bufsize bytes (multiple of 4). -EINVAL for 0 or not a
 * multiple of 4, -EOVERFLOW when the sizes do not fit size_t or the count
 * unsigned, -ENOMEM when the memory is not there. */
ABB_MUST_USE int abb_daq_pool_create(abb_daq_pool **pool, const char *name, size_t bufsize,
				     unsigned nbufs);
/* Adds more buffers (ids continue); existing buffers stay where they are.
 * Devices map the new buffers at their next use of the pool. On failure
 * (-EINVAL, -EOVERFLOW past UINT_MAX buffers, -ENOMEM) the pool is
 * unchanged. */
ABB_MUST_USE int abb_daq_pool_grow(abb_daq_pool *pool, unsigned more);
/* -EBUSY (and nothing freed) while buffers are taken or a device has the
 * pool mapped (abb_daq_device_unmap_pool first). NULL is ignored. */
int abb_daq_pool_destroy(abb_daq_pool *pool);
/* Takes a free buffer (refs = 1, len = 0). Waits up to timeout_ns of wall
 * time (< 0: forever, 0: not at all): -ETIMEDOUT (-EAGAIN for 0). */
ABB_MUST_USE int abb_daq_pool_get(abb_daq_pool *pool, abb_daq_buf **buf, int64_t timeout_ns);
unsigned abb_daq_pool_size(const abb_daq_pool *pool);
unsigned abb_daq_pool_free(abb_daq_pool *pool);
size_t abb_daq_pool_bufsize(const abb_daq_pool *pool);
const char *abb_daq_pool_name(const abb_daq_pool *pool);
/* Incremented every time the pool changes (grows). */
unsigned abb_daq_pool_generation(abb_daq_pool *pool);
/* Buffer by id (NULL if out of range). */
abb_daq_buf *abb_daq_pool_buf(abb_daq_pool *pool, uint32_t id);

/* Adds one reference. NULL is ignored (as by release). */
void abb_daq_buf_ref(abb_daq_buf *buf);
/* Drops one reference; the last one returns the buffer to its pool. NULL
 * is ignored. */
void abb_daq_buf_release(abb_daq_buf *buf);

/* ---- queues ------------------------------------------------------------- */

ABB_MUST_USE int abb_daq_queue_create(abb_daq_queue **q, unsigned capacity);
/* Releases buffers still queued. NULL is ignored. */
void abb_daq_queue_destroy(abb_daq_queue *q);
/* Appends buf (the queue takes the caller's reference). Blocks while full,
 * up to timeout_ns of wall time (< 0: forever): -ETIMEDOUT; -EPIPE once the
 * queue is closed (the caller keeps buf). */
ABB_MUST_USE int abb_daq_queue_push(abb_daq_queue *q, abb_daq_buf *buf, int64_t timeout_ns);
/* Takes the oldest buffer (the caller gets its reference). Blocks while
 * empty: -ETIMEDOUT; -EPIPE when the queue is closed and empty (end of
 * stream). */
ABB_MUST_USE int abb_daq_queue_pop(abb_daq_queue *q, abb_daq_buf **buf, int64_t timeout_ns);
/* End of stream: pushes fail, pops drain what is left, then -EPIPE. */
void abb_daq_queue_close(abb_daq_queue *q);
unsigned abb_daq_queue_count(abb_daq_queue *q);

/* ---- device ------------------------------------------------------------- */

/* Opens the board named by p->device (NULL p: $ABB_DEVICE, board 0). */
ABB_MUST_USE int abb_daq_device_open(abb_daq_device **d, const struct abb_daq_params *p);
/* Uses an already open board (not closed by abb_daq_device_close). */
ABB_MUST_USE int abb_daq_device_attach(abb_daq_device **d, abb_dev *dev, unsigned board);
abb_dev *abb_daq_device_dev(abb_daq_device *d);
/* Maps every buffer of pool that is not mapped yet (a grown pool: the new
 * ones). Transports call it themselves; calling it early moves the cost of
 * mapping out of the first transfers. */
ABB_MUST_USE int abb_daq_device_map_pool(abb_daq_device *d, abb_daq_pool *pool);
/* Unmaps the buffers of pool (-EBUSY if one is in a running DMA). */
int abb_daq_device_unmap_pool(abb_daq_device *d, abb_daq_pool *pool);
/* Cleanup: unmaps every pool, resets the event counter. */
void abb_daq_device_cleanup(abb_daq_device *d);
/* Cleanup, then closes the board if abb_daq_device_open opened it. While
 * transports or modules still use the device (they should be destroyed
 * first), the close waits: the last one's destroy does it. */
void abb_daq_device_close(abb_daq_device *d);

/* The front-end event source (model-defined registers EVS_*): clears it,
 * sets source id, payload DWs per event and idle cycles between events,
 * points EVS_ADDR at the last 16 bytes of BAR1 (0x000FFFF0 with the default
 * 1 MiB) and enables it. *addr gets that address: read it with Fifo=1. */
ABB_MUST_USE int abb_daq_evs_start(abb_daq_device *d, uint16_t src, unsigned payload_dws,
				   unsigned gap, uint32_t *addr);
ABB_MUST_USE int abb_daq_evs_stop(abb_daq_device *d);
/* GCR.SHARED_ENGINE: 1 = the two channels share one engine. */
ABB_MUST_USE int abb_daq_shared_engine(abb_daq_device *d, int on);

/* ---- transport: the size / start / complete cycle ----------------------- */

enum abb_daq_dir { ABB_DAQ_READ = 0, ABB_DAQ_WRITE = 1 };

enum abb_daq_result {
	ABB_DAQ_OK,      /* the buffer is done */
	ABB_DAQ_SKIP,    /* nothing to transfer for this buffer (length 0) */
	ABB_DAQ_EOS,     /* end of stream (MaxBuffers reached) */
	ABB_DAQ_TIMEOUT, /* not done within the timeout: still running, complete again */
	ABB_DAQ_ERROR    /* the board reported an error or a call failed */
};
const char *abb_daq_result_name(enum abb_daq_result r);

ABB_MUST_USE int abb_daq_transport_create(abb_daq_transport **t, abb_daq_device *d,
					  enum abb_daq_dir dir, abb_daq_pool *pool,
					  const struct abb_daq_params *p);
void abb_daq_transport_destroy(abb_daq_transport *t);
/* Bytes the next transfer moves into (read) a buffer, header included;
 * 0 at end of stream. */
size_t abb_daq_transport_size(abb_daq_transport *t);
/* Starts the DMA of buf (read: into buf at the header offset; write: buf->len
 * bytes, or Length when buf->len is 0). Returns at once. */
ABB_MUST_USE int abb_daq_transport_start(abb_daq_transport *t, abb_daq_buf *buf);
/* Waits up to timeout_ns of device time (< 0: Timeout parameter). On OK a
 * read buffer has its header and len set. */
enum abb_daq_result abb_daq_transport_complete(abb_daq_transport *t, abb_daq_buf *buf,
					       int64_t timeout_ns);
/* Stops the running DMA (channel reset) and collects it. */
void abb_daq_transport_abort(abb_daq_transport *t);

/* ---- modules ------------------------------------------------------------ */

/* A readout module: pool (NULL: the module creates one from BufferSize,
 * NumBuffers, PoolName), the board region or FIFO of p. */
ABB_MUST_USE int abb_daq_readout_create(abb_daq_module **m, abb_daq_device *d,
					abb_daq_pool *pool, const struct abb_daq_params *p);
ABB_MUST_USE int abb_daq_writer_create(abb_daq_module **m, abb_daq_device *d,
				       abb_daq_pool *pool, const struct abb_daq_params *p);
/* Starts the thread(s). -EALREADY if running. Every start is a new run,
 * also after abb_daq_module_stop (one or two threads): the module's queues
 * are open again (what they still hold stays, in order), MaxBuffers, the
 * region walk from Address and the statistics begin anew; the event
 * counter goes on (the device's). */
ABB_MUST_USE int abb_daq_module_start(abb_daq_module *m);
/* Waits up to timeout_ms of wall time (< 0: forever) until the module has
 * finished by itself (end of stream or error): 0, or -ETIMEDOUT. */
ABB_MUST_USE int abb_daq_module_wait(abb_daq_module *m, int64_t timeout_ms);
/* Stops at any moment: the threads end, a running DMA is stopped, every
 * buffer the module holds goes back to its pool, the output is closed.
 * Returns the module's error (0 if none). */
int abb_daq_module_stop(abb_daq_module *m);
/* Stops, then frees (its queues release what they hold; its own pool is
 * destroyed). NULL is ignored. */
void abb_daq_module_destroy(abb_daq_module *m);
/* Readout in regular mode: where its buffers go (pop them, release them). */
abb_daq_queue *abb_daq_module_output(abb_daq_module *m);
/* Writer in regular mode: where it takes buffers from (push; close = end). */
abb_daq_queue *abb_daq_module_input(abb_daq_module *m);
abb_daq_pool *abb_daq_module_pool(abb_daq_module *m);

/* Of the current (or last) run: abb_daq_module_start begins them anew. */
struct abb_daq_stats {
	uint64_t buffers;   /* buffers the module processed (readout) or wrote (writer) */
	uint64_t bytes;     /* DMA bytes of those buffers */
	uint64_t t_start;   /* device ns when the transport thread began */
	uint64_t t_end;     /* device ns when the last buffer was processed */
	uint64_t timeouts;  /* complete() slices that timed out (and were repeated) */
	uint64_t skipped;
	enum abb_daq_result last; /* how the transport loop ended */
	int error;          /* negative errno of the first error, 0 if none */
	int finished;       /* 1 when the threads have ended */
};
void abb_daq_module_stats(abb_daq_module *m, struct abb_daq_stats *s);

#ifdef __cplusplus
}
#endif
#endif
