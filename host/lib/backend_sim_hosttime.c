/*
 * backend_sim_hosttime.c - host-time coupling of the simulated board
 * (opt-in: ABB_SIM_HOSTTIME=1 or the URI option hosttime=1).
 *
 * At the entry of every backend operation the simulator advances by the CPU
 * time (CLOCK_THREAD_CPUTIME_ID) the calling thread spent since its
 * previous device call returned, minus the overhead of the measurement
 * itself (ht_setup). Device time then includes the host software's own
 * cost, as on the board. Threads run in parallel: a thread advances device
 * time only up to (device time when its last call returned + its CPU time
 * since), so time another thread already let pass counts for both. The
 * coupled operations are second tables (sim_backend_hosttime,
 * sim_ops_hosttime) that the open installs only when asked: the default
 * lockstep path is unchanged.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "backend_sim.h"


static struct abb_backend sim_backend_hosttime;
static struct abb_sim_ops sim_ops_hosttime;

static unsigned ht_epoch;              /* +1 per open: stale thread marks are ignored */
static uint64_t ht_cost;               /* ns of overhead in every interval (ht_setup) */
static _Thread_local uint64_t ht_last; /* thread CPU ns when its last device call returned */
static _Thread_local uint64_t ht_dev;  /* device ps then */
static _Thread_local unsigned ht_mark; /* ht_epoch of ht_last */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The coupling must charge the host software's own CPU time, not what
 * taking part in the simulation costs the thread between two calls: the
 * reads of the thread's CPU clock (system calls of about 0.3 us here) and
 * the return from a call that blocked while the simulator ran. ht_cost is
 * that overhead, measured at every open as the median gap between
 * consecutive device calls with no host code between them (register reads,
 * which block as a driver's calls do). The minimum of two back-to-back
 * clock reads, used before, left about 0.9 us per register read charged. */
#define HT_CAL_CALLS 33
static int ht_calibrating;              /* set while ht_setup measures */
static uint64_t ht_cal_gap[HT_CAL_CALLS];
static unsigned ht_cal_n;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int ht_reg_read(abb_dev *dev, uint32_t off, uint32_t *val);

static void ht_setup(abb_dev *dev)
{
	uint32_t v;

	__atomic_add_fetch(&ht_epoch, 1, __ATOMIC_RELAXED);
	ht_cost = 0;
	ht_cal_n = 0;
	ht_calibrating = 1;
	for (int i = 0; i < HT_CAL_CALLS + 1; i++) /* the first has no gap before it */
		(void)ht_reg_read(dev, ABB_REG_VERSION, &v);
	ht_calibrating = 0;
	qsort(ht_cal_gap, ht_cal_n, sizeof ht_cal_gap[0], cmp_u64);
	ht_cost = ht_cal_n ? ht_cal_gap[ht_cal_n / 2] : 0;
}

static void ht_enter(void)
{
	uint64_t now = thread_cpu_ns(), target, dev;

	if (ht_mark != __atomic_load_n(&ht_epoch, __ATOMIC_RELAXED) || abb_simlib_in_child())
		return;
	if (ht_calibrating) {
		if (ht_cal_n < HT_CAL_CALLS)
			ht_cal_gap[ht_cal_n++] = now - ht_last;
		return;
	}
	if (now <= ht_last + ht_cost)
		return;
	target = ht_dev + (now - ht_last - ht_cost) * 1000u;
	dev = abb_simlib.now_ps();
	if (target > dev + 999u)
		abb_simlib.advance((int64_t)((target - dev) / 1000u));
}

static void ht_leave(void)
{
	ht_dev = abb_simlib.now_ps();
	ht_last = thread_cpu_ns();
	ht_mark = __atomic_load_n(&ht_epoch, __ATOMIC_RELAXED);
}

/* The lockstep operations the coupled ones wrap. */
#define LOCKSTEP_reg_read abb_backend_sim.reg_read
#define LOCKSTEP_reg_write abb_backend_sim.reg_write
#define LOCKSTEP_mem_read abb_backend_sim.mem_read
#define LOCKSTEP_mem_write abb_backend_sim.mem_write
#define LOCKSTEP_pio_store abb_backend_sim.pio_store
#define LOCKSTEP_pio_flush abb_backend_sim.pio_flush
#define LOCKSTEP_map abb_backend_sim.map
#define LOCKSTEP_unmap abb_backend_sim.unmap
#define LOCKSTEP_irq_wait abb_backend_sim.irq_wait
#define LOCKSTEP_irq_count abb_backend_sim.irq_count
#define LOCKSTEP_now_ns abb_backend_sim.now_ns
#define LOCKSTEP_advance abb_backend_sim.delay_ns

#define HT_OP(name, type, params, args)                                            \
	static type ht_##name params                                               \
	{                                                                          \
		type rc;                                                           \
                                                                                   \
		ht_enter();                                                        \
		rc = LOCKSTEP_##name args;                                         \
		ht_leave();                                                        \
		return rc;                                                         \
	}
HT_OP(reg_read, int, (abb_dev *dev, uint32_t off, uint32_t *val), (dev, off, val))
HT_OP(reg_write, int, (abb_dev *dev, uint32_t off, uint32_t val), (dev, off, val))
HT_OP(mem_read, int, (abb_dev *dev, uint32_t off, void *buf, size_t len), (dev, off, buf, len))
HT_OP(mem_write, int, (abb_dev *dev, uint32_t off, const void *buf, size_t len),
      (dev, off, buf, len))
HT_OP(pio_store, int,
      (abb_dev *dev, uint32_t off, const void *buf, size_t len, unsigned store_bytes),
      (dev, off, buf, len, store_bytes))
HT_OP(pio_flush, int, (abb_dev *dev), (dev))
HT_OP(map, int, (abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs),
      (dev, ptr, len, segs, nsegs))
HT_OP(unmap, int, (abb_dev *dev, void *ptr, size_t len), (dev, ptr, len))
HT_OP(irq_wait, int, (abb_dev *dev, uint64_t *seen, int64_t timeout_ns), (dev, seen, timeout_ns))
HT_OP(irq_count, uint64_t, (abb_dev *dev), (dev))
HT_OP(now_ns, int, (abb_dev *dev, uint64_t *ns), (dev, ns))
HT_OP(advance, int, (abb_dev *dev, int64_t ns), (dev, ns))
#undef HT_OP

/* The coupled tables: the lockstep ones with every operation that lets
 * device time pass (or reads it) wrapped, so an operation added to a
 * lockstep table is in its coupled one too. Filled once, before the first
 * coupled open. */
static pthread_once_t ht_table_once = PTHREAD_ONCE_INIT;

static void ht_table_fill(void)
{
	struct abb_backend *t = &sim_backend_hosttime;
	struct abb_sim_ops *o = &sim_ops_hosttime;

	*t = abb_backend_sim;
	t->reg_read = ht_reg_read;
	t->reg_write = ht_reg_write;
	t->mem_read = ht_mem_read;
	t->mem_write = ht_mem_write;
	t->pio_store = ht_pio_store;
	t->pio_flush = ht_pio_flush;
	t->map = ht_map;
	t->unmap = ht_unmap;
	t->irq_wait = ht_irq_wait;
	t->irq_count = ht_irq_count;
	t->now_ns = ht_now_ns;
	t->delay_ns = ht_advance;
	/* the host's own loop: its CPU time between the reads is device time */
	t->poll_reg = NULL;

	*o = abb_sim_ops_lockstep;
	o->hosttime = 1;
	o->advance = ht_advance;
}

void abb_sim_hosttime_start(abb_dev *dev)
{
	pthread_once(&ht_table_once, ht_table_fill);
	dev->be = &sim_backend_hosttime;
	dev->sim = &sim_ops_hosttime;
	ht_setup(dev);
}
