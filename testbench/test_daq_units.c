/*
 * test_daq_units.c - the parts of the DAQ layer that need no board: pool
 * (ids, references, growth), queue (order, back-pressure, close), named
 * parameters; and, with the board, the mapping of a pool that grows and
 * the answers to bad arguments (device open, transports, device calls).
 */
#define _GNU_SOURCE
#include "tb.h"
#include "test_daq.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb_regs.h>

static void test_daq_pool_ids_and_refs(void)
{
	abb_daq_pool *p;
	abb_daq_buf *b[4], *x;
	unsigned seen = 0;

	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&p, "units", 4096, 4), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_size(p), 4);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 4);
	CU_ASSERT_STRING_EQUAL(abb_daq_pool_name(p), "units");
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(p, &b[i], 0), 0);
		CU_ASSERT(b[i]->id < 4);
		CU_ASSERT_EQUAL(b[i]->size, 4096);
		CU_ASSERT_EQUAL((uintptr_t)b[i]->data % 4096, 0);
		CU_ASSERT_PTR_EQUAL(abb_daq_pool_buf(p, b[i]->id), b[i]);
		seen |= 1u << b[i]->id;
	}
	CU_ASSERT_EQUAL(seen, 0xf); /* ids 0..3, each once */
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &x, 0), -EAGAIN);
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &x, 1000000), -ETIMEDOUT);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(p), -EBUSY); /* buffers are out */

	/* a second reference keeps the buffer out of the pool */
	abb_daq_buf_ref(b[0]);
	abb_daq_buf_release(b[0]);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 0);
	abb_daq_buf_release(b[0]);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 1);
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &x, 0), 0);
	CU_ASSERT_PTR_EQUAL(x, b[0]); /* LIFO: the warm buffer again */
	CU_ASSERT_EQUAL(x->refs, 1);
	for (int i = 0; i < 4; i++)
		abb_daq_buf_release(b[i]);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 4);

	/* growing keeps the old buffers and bumps the generation */
	{
		unsigned g = abb_daq_pool_generation(p);
		abb_daq_buf *old0 = abb_daq_pool_buf(p, 0);

		CU_ASSERT_EQUAL(abb_daq_pool_grow(p, 3), 0);
		CU_ASSERT_EQUAL(abb_daq_pool_size(p), 7);
		CU_ASSERT_EQUAL(abb_daq_pool_free(p), 7);
		CU_ASSERT_NOT_EQUAL(abb_daq_pool_generation(p), g);
		CU_ASSERT_PTR_EQUAL(abb_daq_pool_buf(p, 0), old0);
		CU_ASSERT_EQUAL(abb_daq_pool_buf(p, 6)->id, 6);
		CU_ASSERT_PTR_NULL(abb_daq_pool_buf(p, 7));
	}
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(p), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_create(&p, "bad", 4094, 4), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_pool_create(&p, "bad", 4096, 0), -EINVAL);
}

struct pusher {
	abb_daq_queue *q;
	abb_daq_buf *b[8];
	int n, pushed;
};

static void *push_all(void *arg)
{
	struct pusher *ps = arg;

	for (int i = 0; i < ps->n; i++) {
		if (abb_daq_queue_push(ps->q, ps->b[i], -1))
			break;
		__atomic_add_fetch(&ps->pushed, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void test_daq_queue_order_backpressure_close(void)
{
	abb_daq_pool *p;
	abb_daq_queue *q;
	struct pusher ps = {0};
	pthread_t th;
	abb_daq_buf *x;
	struct timespec d = {0, 20000000};

	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&p, "q", 64, 8), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_queue_create(&q, 3), 0);
	ps.q = q;
	ps.n = 8;
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(p, &ps.b[i], 0), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, push_all, &ps), 0);
	/* wait (up to 10 s: a loaded machine may not run the producer at
	 * once) until it filled the queue, then give it 20 ms more to push
	 * past the capacity, which it must not */
	for (int i = 0; i < 500 && __atomic_load_n(&ps.pushed, __ATOMIC_SEQ_CST) < 3; i++)
		nanosleep(&d, NULL);
	nanosleep(&d, NULL);
	/* back-pressure: the producer stopped at the capacity */
	CU_ASSERT_EQUAL(__atomic_load_n(&ps.pushed, __ATOMIC_SEQ_CST), 3);
	CU_ASSERT_EQUAL(abb_daq_queue_count(q), 3);
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(abb_daq_queue_pop(q, &x, 1000000000), 0);
		CU_ASSERT_PTR_EQUAL(x, ps.b[i]); /* in order, nothing dropped */
		abb_daq_buf_release(x);
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(abb_daq_queue_pop(q, &x, 0), -EAGAIN);
	CU_ASSERT_EQUAL(abb_daq_queue_pop(q, &x, 1000000), -ETIMEDOUT);

	/* close: what is queued can still be taken, then end of stream */
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &x, 0), 0);
	CU_ASSERT_EQUAL(abb_daq_queue_push(q, x, 0), 0);
	abb_daq_queue_close(q);
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &ps.b[0], 0), 0);
	CU_ASSERT_EQUAL(abb_daq_queue_push(q, ps.b[0], 0), -EPIPE);
	abb_daq_buf_release(ps.b[0]);
	CU_ASSERT_EQUAL(abb_daq_queue_pop(q, &x, 0), 0);
	abb_daq_buf_release(x);
	CU_ASSERT_EQUAL(abb_daq_queue_pop(q, &x, -1), -EPIPE);

	/* destroy releases what is still queued */
	abb_daq_queue_destroy(q);
	CU_ASSERT_EQUAL_FATAL(abb_daq_queue_create(&q, 4), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &x, 0), 0);
	CU_ASSERT_EQUAL(abb_daq_queue_push(q, x, 0), 0);
	abb_daq_queue_destroy(q);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 8);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(p), 0);
}

static void test_daq_params_by_name(void)
{
	struct abb_daq_params p;

	abb_daq_params_default(&p);
	CU_ASSERT_EQUAL(p.bar, 1);
	CU_ASSERT_EQUAL(p.standalone, 1);
	CU_ASSERT_EQUAL(p.threads, 1);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&p, "DeviceName=model,BoardNumber=3,Address=0x8000,"
					     "Length=8k,BufferSize=64K,QueueLength=7,"
					     "Standalone=0,PoolName=rd,Fifo=1,Threads=2,"
					     "NumBuffers=16 MaxBuffers=100 Timeout=5000"),
			0);
	CU_ASSERT_STRING_EQUAL(p.device, "model");
	CU_ASSERT_EQUAL(p.board, 3);
	CU_ASSERT_EQUAL(p.address, 0x8000);
	CU_ASSERT_EQUAL(p.length, 8192);
	CU_ASSERT_EQUAL(p.buffer_size, 65536);
	CU_ASSERT_EQUAL(p.queue_length, 7);
	CU_ASSERT_EQUAL(p.standalone, 0);
	CU_ASSERT_STRING_EQUAL(p.pool, "rd");
	CU_ASSERT_EQUAL(p.fifo, 1);
	CU_ASSERT_EQUAL(p.threads, 2);
	CU_ASSERT_EQUAL(p.num_buffers, 16);
	CU_ASSERT_EQUAL(p.max_buffers, 100);
	CU_ASSERT_EQUAL(p.timeout_ns, 5000);
	CU_ASSERT_EQUAL(abb_daq_params_set(&p, "bufferSIZE", "1M"), 0); /* case-insensitive */
	CU_ASSERT_EQUAL(p.buffer_size, 1u << 20);
	CU_ASSERT_EQUAL(abb_daq_params_set(&p, "NoSuchThing", "1"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "NoSuchThing"));
	CU_ASSERT_EQUAL(abb_daq_params_set(&p, "Address", "12x"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "Address=12x"));
	CU_ASSERT_EQUAL(abb_daq_params_parse(&p, "Address"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "Name=value"));
	CU_ASSERT_EQUAL(p.address, 0x8000); /* unchanged by the bad ones */
}

/* Issue 17, finding 9: values that mean nothing are refused with a
 * message, the parameters unchanged: BufferSize past 32 bits (with a
 * suffix that overflowed to 2^63 before), negative Timeout other than -1
 * (no limit) and negative SpinNs, BoardNumber past the 16 bits the unique
 * id has (65536 gave board 0's ids); a pool grown past 2^32 buffers says
 * why; a device attached with such a board number is refused. */
static void test_daq_params_ranges(void)
{
	static const char *const bad[] = {
		"BufferSize=9007199254740993K", "BufferSize=4294967296", "BufferSize=4M4",
		"BufferSize=4194304K", "Timeout=-5", "Timeout=-2", "SpinNs=-5", "SpinNs=-1",
		"BoardNumber=65536", "BoardNumber=0x10000", "BoardNumber=4294967295",
		"BoardNumber=-1",
	};
	struct abb_daq_params p, q;
	abb_daq_device *d = (abb_daq_device *)&p;
	abb_daq_pool *pool;

	abb_daq_params_default(&p);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		q = p;
		if (abb_daq_params_parse(&q, bad[i]) != -EINVAL)
			printf("\n    \"%s\" accepted\n", bad[i]);
		q = p;
		CU_ASSERT_EQUAL(abb_daq_params_parse(&q, bad[i]), -EINVAL);
		CU_ASSERT_EQUAL(memcmp(&q, &p, sizeof p), 0);
		/* the name, the value and what the range is */
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), bad[i]));
		if (strcmp(bad[i], "BufferSize=4M4"))
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "out of range"));
	}
	/* the ends of the ranges */
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "BoardNumber=65535,Timeout=-1,SpinNs=0,"
					     "BufferSize=4294967295"), 0);
	CU_ASSERT_EQUAL(q.board, 65535);
	CU_ASSERT_EQUAL(q.timeout_ns, -1);
	CU_ASSERT_EQUAL(q.spin_ns, 0);
	CU_ASSERT_EQUAL(q.buffer_size, 4294967295u);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "Timeout=-0,SpinNs=9223372036854775807"), 0);
	CU_ASSERT_EQUAL(q.timeout_ns, 0);
	CU_ASSERT_EQUAL(q.spin_ns, INT64_MAX);
	/* a leading zero is decimal, as host/daq/README.md says (C's base 0 read 010
	 * as 8); 0x is hex and needs a digit */
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "BoardNumber=010,Address=0x10"), 0);
	CU_ASSERT_EQUAL(q.board, 10);
	CU_ASSERT_EQUAL(q.address, 0x10);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "Address=0x"), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "Address=0x-5"), -EINVAL);
	/* a board number set in the struct: refused by the device */
	q = p;
	q.board = 65536;
	q.device[0] = 0;
	CU_ASSERT_EQUAL(abb_daq_device_open(&d, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "65536"));
	if (tb_dev) {
		d = (abb_daq_device *)&p;
		CU_ASSERT_EQUAL(abb_daq_device_attach(&d, tb_dev, 70000), -EINVAL);
		CU_ASSERT_PTR_NULL(d);
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "70000"));
	}
	/* a pool that cannot grow says why */
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "full", 64, 2), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_grow(pool, UINT_MAX), -EOVERFLOW);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "pool full"));
	CU_ASSERT_EQUAL(abb_daq_pool_grow(pool, 0), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "0 more buffers"));
	CU_ASSERT_EQUAL(abb_daq_pool_size(pool), 2);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
}

/* A pool that grows while a device uses it: the new buffers are mapped
 * at the next use, and the old mappings stay. */
static void test_daq_pool_grow_remaps(void)
{
	struct abb_daq_params p;
	abb_daq_device *d;
	abb_daq_pool *pool;
	abb_daq_module *m;
	abb_daq_buf *held[4], *b;
	uint64_t seq = 0;
	int ok = 1;

	TB_REQUIRE_DEV();
	abb_daq_params_default(&p);
	p.buffer_size = 4096 + ABB_DAQ_HEADER_BYTES;
	p.standalone = 0;
	p.max_buffers = 16;
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&d, tb_dev, 0), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "grow", p.buffer_size, 4), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, d, pool, &p), 0);
	/* hold every mapped buffer: the readout can only use new ones */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(pool, &held[i], 0), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_grow(pool, 4), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
	while (abb_daq_queue_pop(abb_daq_module_output(m), &b, 10000000000ll) == 0) {
		ok &= b->id >= 4;
		ok &= daq_check_buffer(b, &seq, 0, NULL);
		abb_daq_buf_release(b);
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(seq, 16);
	CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
	for (int i = 0; i < 4; i++)
		abb_daq_buf_release(held[i]);
	abb_daq_module_destroy(m);
	abb_daq_device_close(d);
	CU_ASSERT_EQUAL(abb_daq_pool_free(pool), 8);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
}

/* Out of the documented order, without a crash or a DMA into freed
 * memory: a pool a device still has mapped is not destroyed (-EBUSY); a
 * device closed while a module runs on it stays until the module is
 * destroyed (its thread keeps using the board until then). */
static void test_daq_lifetime_out_of_order(void)
{
	struct abb_daq_params p;
	abb_daq_device *d;
	abb_daq_pool *pool;
	abb_daq_module *m;
	abb_daq_buf *b;
	uint64_t seq = 0;
	int ok = 1, n = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&d, tb_dev, 0), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "mapped", 4096, 4), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_map_pool(d, pool), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), -EBUSY);
	CU_ASSERT_EQUAL(abb_daq_device_unmap_pool(d, pool), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);

	abb_daq_params_default(&p);
	p.buffer_size = 4096 + ABB_DAQ_HEADER_BYTES;
	p.standalone = 0;
	p.max_buffers = 64;
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, d, NULL, &p), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
	abb_daq_device_close(d); /* too early: waits for the module */
	while (abb_daq_queue_pop(abb_daq_module_output(m), &b, 10000000000ll) == 0) {
		ok &= daq_check_buffer(b, &seq, 0, NULL);
		abb_daq_buf_release(b);
		n++;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(n, 64);
	CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
	abb_daq_module_destroy(m); /* closes the device */
}

/* The DAQ layer's answers to bad arguments: result names, device open
 * (its own board, closed with it) and the argument checks of a transport
 * and of the device calls. */
static void test_daq_bad_input(void)
{
	struct abb_daq_params p, q;
	abb_daq_device *dd = NULL, *own = NULL;
	abb_daq_transport *t = NULL;
	abb_daq_pool *pool = NULL;
	abb_daq_buf *b = NULL;
	size_t mem = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_OK), "ok");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_SKIP), "skip");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_EOS), "end of stream");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_TIMEOUT), "timeout");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_ERROR), "error");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name((enum abb_daq_result)99), "?");

	abb_daq_params_default(&p);
	CU_ASSERT_EQUAL(abb_daq_device_open(NULL, &p), -EINVAL);
	q = p;
	q.bar = 0;
	CU_ASSERT_EQUAL(abb_daq_device_open(&own, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(own);
	q = p;
	snprintf(q.device, sizeof q.device, "model:mem_size=64K");
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_open(&own, &q), 0);
	CU_ASSERT_STRING_EQUAL(abb_backend(abb_daq_device_dev(own)), "model");
	CU_ASSERT_EQUAL(abb_mem_size(abb_daq_device_dev(own), &mem), 0);
	CU_ASSERT_EQUAL(mem, 64u << 10);
	abb_daq_device_close(own); /* closes the board it opened */
	CU_ASSERT_EQUAL(abb_daq_device_attach(NULL, tb_dev, 0), -EINVAL);

	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&dd, tb_dev, 5), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "bad_input", 4096, 2), 0);
	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &mem), 0);
	p.address = 0;
	p.length = 0;
	p.region = 0;
	p.header = 1;
	CU_ASSERT_EQUAL(abb_daq_transport_create(NULL, dd, ABB_DAQ_READ, pool, &p), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, (enum abb_daq_dir)7, pool, &p), -EINVAL);
	q = p, q.bar = 0;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 6;                     /* not whole DWs */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.address = 2;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 4096;                  /* header + length > buffer */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.fifo = 1, q.address = (uint32_t)mem;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 1024, q.region = 1500; /* not a multiple of the length */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 1024, q.region = (uint32_t)mem + 1024;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(t);

	/* a write transport: buffers of len not whole DWs are refused */
	q = p, q.length = 1024, q.header = 0;
	CU_ASSERT_EQUAL_FATAL(abb_daq_transport_create(&t, dd, ABB_DAQ_WRITE, pool, &q), 0);
	CU_ASSERT_EQUAL(abb_daq_transport_size(t), 1024);
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_transport_start(NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(pool, &b, 0), 0);
	b->len = 6;
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, b), -EMSGSIZE);
	b->len = 2048;                           /* more than Length */
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, b), -EMSGSIZE);
	abb_daq_buf_release(b);
	abb_daq_transport_destroy(t);
	abb_daq_transport_destroy(NULL);

	CU_ASSERT_EQUAL(abb_daq_evs_start(dd, 1, 0x1000, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_start(dd, 1, 4, 0x10000, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_start(NULL, 1, 4, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_stop(NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_shared_engine(NULL, 1), -EINVAL);
	abb_daq_device_close(dd);                /* attached: tb_dev stays open */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
}

static CU_TestInfo daq_units_tests[] = {
	{ "test_daq_pool_ids_and_refs", test_daq_pool_ids_and_refs },
	{ "test_daq_queue_order_backpressure_close", test_daq_queue_order_backpressure_close },
	{ "test_daq_params_by_name", test_daq_params_by_name },
	{ "test_daq_params_ranges", test_daq_params_ranges },
	{ "test_daq_pool_grow_remaps", test_daq_pool_grow_remaps },
	{ "test_daq_lifetime_out_of_order", test_daq_lifetime_out_of_order },
	TB_TEST(test_daq_bad_input),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo daq_units_suite[] = {
	{ "daq_units", tb_suite_open, tb_suite_close, NULL, NULL, daq_units_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_daq_units(void)
{
	return CU_register_suites(daq_units_suite);
}
