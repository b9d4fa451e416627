/*
 * backend_ref_timed.c - the "model" backend with device time
 * (model:timed=1): the timed reference model (ref_timing.h) with the glue
 * to struct abb_backend and the simulation-only operations it can serve
 * (sim_ops.h: cycles, advance, link parameters, the link's TLP count for
 * the watchdog; the rest -ENOTSUP).
 *
 * Lockstep as the simulator (sim/platform.h, platform_lockstep.cpp):
 * device time moves only while a host thread waits on the device (a
 * register or BAR1 read, an interrupt wait, a delay), and it moves in the
 * model's time order, not the wall clock's. A register write is posted.
 * With several threads, the waits are one list (as the simulator's
 * waiters): the thread that runs the model runs it for all, to the
 * earliest deadline of any wait and no further than the first event (a
 * PIO read done, an interrupt) that ends any of them; that wait ends at
 * that device time. Host code costs no device time, as on the simulator
 * (whose device time passes far slower than the host's): time stands while
 * a thread is on its way into a call (blocked on the device lock), and
 * while a thread whose wait ended computes on to its next calls, until
 * RELEASE_MAX_NS of wall clock after that wait; computing includes being
 * runnable without a core and sleeping (nanosleep: a poll loop), not being
 * blocked elsewhere (a lock, a queue: it may wait for the very thread that
 * waits on the device), which its CPU time standing still and its state
 * and system call in /proc/self/task/TID tell. A thread just created is
 * not known until its first call: while one is runnable the thread that
 * runs the model sleeps briefly after every short batch (newcomer()).
 * And when nothing at all happens on the board before a wait's end
 * (an idle stretch) while another thread used the device in the last
 * PACE_RECENT_NS, that stretch passes no faster than the wall clock, in
 * steps of PACE_STEP_PS or more (the wall clock since the last step) and
 * never past the earliest wait's end: a thread that acts after a sleep of
 * its own gets in, as it does on the simulator. With hosttime=1 every device
 * call first lets device time pass by the CPU time the thread spent since
 * its previous call (backend_sim_hosttime.c does the same for the
 * simulator).
 *
 * Host memory: the IOVAs of the simulator's IOMMU (ref_iova.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "abb_options.h"
#include "abb_priv.h"
#include "backend_ref.h"
#include "ref_iova.h"
#include "ref_timing.h"
#include "sim_ops.h"
#include <abb/abb_sim.h>

/* events the model runs before a waiting thread lets the others in; fewer
 * while other threads use the device (one arriving at a call, not known
 * to be on its way, waits at most this many: about 16 TLPs, a few us) */
#define RUN_BATCH 4096u
#define RUN_BATCH_SHARED 64u
/* while other threads use the device, the process's threads are listed
 * every NEWCOMER_EVERY batches; a new one that is runnable and has not made
 * its first call makes the thread that runs the model sleep RELEASE_IDLE_NS
 * after every batch, for NEWCOMER_NS of wall clock at most */
#define NEWCOMER_EVERY 4u
#define NEWCOMER_NS 20000000ull
#define KNOWN_TIDS 64
#define NEWCOMERS 8
/* a thread whose wait ended: time waits for its next call this long at
 * most (wall clock), and not at all once its CPU time stood still this
 * long (it is blocked, not computing) */
#define RELEASE_MAX_NS 50000000ull
#define RELEASE_IDLE_NS 10000ull
#define RELEASE_SLOTS 16
#define PACE_RECENT_NS 100000000ull
#define PACE_STEP_PS 10000000ull
#define USER_SLOTS 16

struct released {
	pthread_t th;
	pid_t tid;
	clockid_t clk;
	uint64_t cpu, wall_moved, wall_start;
	bool used;
	bool in_call;             /* inside a device call now (not computing) */
};

struct until;

struct timed {
	pthread_mutex_t lock;
	pthread_cond_t cond;      /* broadcast whenever time moved or a thread came back */
	struct abb_reftime *rt;
	struct abb_refiova *iova;
	bool running;             /* a thread runs the model */
	unsigned entering;        /* threads blocked on lock to make a call (atomic) */
	struct until *waiters;    /* what every thread inside a wait waits for */
	uint64_t pace_wall;       /* wall clock of the last paced step */
	unsigned waiting;         /* threads inside a wait */
	struct released rel[RELEASE_SLOTS];
	unsigned nrel;            /* rel slots used (0: the loops over them are skipped) */
	pid_t known[KNOWN_TIDS];  /* the process's threads when last listed */
	unsigned nknown;
	unsigned batches;         /* model runs since then */
	struct {
		pid_t tid;        /* 0: free */
		uint64_t until;   /* wall clock */
	} newc[NEWCOMERS];        /* threads created since open, no call yet */
	/* the threads that made device calls, and when (wall clock) */
	struct {
		pthread_t th;
		pid_t tid;
		uint64_t wall;
	} user[USER_SLOTS];
	unsigned nuser;           /* user[0 .. nuser-1] in use */
	int64_t irq_host_ns;      /* device time after every interrupt wait (abb_opt_irq_host_ns) */
	unsigned hosttime;
	unsigned pio_wc;          /* pio=wc: BAR1 stores leave as 64-byte lines */
	unsigned epoch;           /* the per-thread marks of hosttime belong to this open */
	uint64_t ht_cost;         /* ns of overhead in every interval (ht_setup) */
	bool ht_calibrating;
	uint64_t ht_gap[33];
	unsigned ht_n;
};

static struct abb_backend timed_backend, timed_backend_ht;
static const struct abb_sim_ops timed_ops, timed_ops_hosttime;

static struct timed *T(abb_dev *dev)
{
	return dev->be_priv;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall clock of the users' calls (seen, others_recent): it only has
 * to tell calls within PACE_RECENT_NS (100 ms) apart from older ones, and
 * every call reads it, so the coarse clock (a few ms of resolution, a few
 * ns per read against about 25 for CLOCK_MONOTONIC). */
static uint64_t coarse_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

/* --- host memory ------------------------------------------------------- */

static int host_dma(void *ctx, int to_host, uint64_t iova, void *buf, size_t len)
{
	struct timed *m = ctx;

	return abb_refiova_dma(m->iova, to_host, iova, buf, len);
}

static bool host_mapped(void *ctx, int to_host, uint64_t iova, size_t len)
{
	struct timed *m = ctx;

	(void)to_host;
	return abb_refiova_mapped(m->iova, iova, len);
}

/* --- lockstep among threads (called with m->lock held) ---------------- */

/* The calling thread makes a device call (for the pacing of idle time).
 * The slots in use are m->user[0 .. nuser-1] (never given back while the
 * device is open); when all are taken, the least recently seen is reused. */
static void seen(struct timed *m, uint64_t now)
{
	pthread_t self = pthread_self();
	unsigned k = 0;

	for (unsigned i = 0; i < m->nuser; i++) {
		if (pthread_equal(m->user[i].th, self)) {
			m->user[i].wall = now;
			return;
		}
		if (m->user[i].wall < m->user[k].wall)
			k = i;
	}
	if (m->nuser < USER_SLOTS)
		k = m->nuser++;
	m->user[k].th = self;
	m->user[k].tid = (pid_t)syscall(SYS_gettid);
	m->user[k].wall = now;
	for (unsigned i = 0; i < NEWCOMERS; i++)
		if (m->newc[i].tid == m->user[k].tid)
			m->newc[i].tid = 0;
}

/* Another thread made a device call lately. */
static bool others_recent(struct timed *m, uint64_t now)
{
	pthread_t self = pthread_self();

	for (unsigned i = 0; i < m->nuser; i++)
		if (!pthread_equal(m->user[i].th, self) && now - m->user[i].wall < PACE_RECENT_NS)
			return true;
	return false;
}

/* The device lock, taken by a thread that counts as entering (at a device
 * call) while it is blocked on it: time does not move on without it. */
static void lock_dev(struct timed *m)
{
	__atomic_add_fetch(&m->entering, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&m->lock);
	__atomic_sub_fetch(&m->entering, 1, __ATOMIC_SEQ_CST);
}

/* A released slot taken or given back (m->nrel counts them). */
static void rel_use(struct timed *m, struct released *r, bool used)
{
	if (r->used != used)
		m->nrel += used ? 1u : -1u;
	r->used = used;
}

static struct released *rel_self(struct timed *m)
{
	pthread_t self;

	if (!m->nrel)
		return NULL;
	self = pthread_self();
	for (unsigned i = 0; i < RELEASE_SLOTS; i++)
		if (m->rel[i].used && pthread_equal(m->rel[i].th, self))
			return &m->rel[i];
	return NULL;
}

/* The calling thread is at a device call: not computing while in it. */
static void back(struct timed *m)
{
	struct released *r = rel_self(m);

	if (r && !r->in_call) {
		r->in_call = true;
		pthread_cond_broadcast(&m->cond);
	}
}

/* The calling thread returns from a device call: if its last wait ended
 * lately (RELEASE_MAX_NS), time waits for its next call again. */
static void away(struct timed *m)
{
	struct released *r = rel_self(m);
	uint64_t now;

	if (!r)
		return;
	now = clock_ns(CLOCK_MONOTONIC);
	if (now - r->wall_start > RELEASE_MAX_NS) {
		rel_use(m, r, false);
		return;
	}
	r->in_call = false;
	r->cpu = clock_ns(r->clk);
	r->wall_moved = now;
}

/* The calling thread waits on the device now: time moves for it. */
static void unrelease(struct timed *m)
{
	struct released *r = rel_self(m);

	if (r)
		rel_use(m, r, false);
}

/* The calling thread's wait ended while other threads use the device:
 * time waits for it until its next call, and keeps waiting for it between
 * the calls after that (its start of the next transfer, its reaction to
 * the event) until RELEASE_MAX_NS after this wait. */
static void release(struct timed *m)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	struct released *r = rel_self(m);

	for (unsigned i = 0; !r && i < RELEASE_SLOTS; i++)
		if (!m->rel[i].used)
			r = &m->rel[i];
	if (!r)
		return;
	r->th = pthread_self();
	r->tid = (pid_t)syscall(SYS_gettid);
	if (pthread_getcpuclockid(r->th, &r->clk)) {
		rel_use(m, r, false);
		return;
	}
	r->cpu = clock_ns(r->clk);
	r->wall_moved = r->wall_start = now;
	r->in_call = true;
	rel_use(m, r, true);
}

static ssize_t read_proc(pid_t tid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	if (tid)
		snprintf(path, sizeof path, "/proc/self/task/%ld/%s", (long)tid, what);
	else
		snprintf(path, sizeof path, "/proc/self/%s", what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n > 0)
		buf[n] = 0;
	return n;
}

static char task_state(pid_t tid)
{
	char buf[512];
	const char *st;

	if (read_proc(tid, "stat", buf, sizeof buf) <= 0 || !(st = strrchr(buf, ')')) ||
	    st[1] != ' ')
		return 0;
	return st[2];
}

static bool is_user(struct timed *m, pid_t tid)
{
	for (unsigned i = 0; i < m->nuser; i++)
		if (m->user[i].tid == tid)
			return true;
	return false;
}

/* Lists the process's threads (/proc/self/task): the ones not listed before
 * and not users yet become newcomers (with init: none, all are known). */
static void list_threads(struct timed *m, uint64_t wall, bool init)
{
	pid_t now[KNOWN_TIDS];
	unsigned n = 0;
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return;
	while ((e = readdir(d)) != NULL && n < KNOWN_TIDS) {
		pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
		bool old = init;

		if (tid <= 0)
			continue;
		now[n++] = tid;
		for (unsigned i = 0; !old && i < m->nknown; i++)
			old = m->known[i] == tid;
		if (old || is_user(m, tid))
			continue;
		for (unsigned i = 0; i < NEWCOMERS; i++)
			if (!m->newc[i].tid) {
				m->newc[i].tid = tid;
				m->newc[i].until = wall + NEWCOMER_NS;
				break;
			}
	}
	closedir(d);
	memcpy(m->known, now, n * sizeof now[0]);
	m->nknown = n;
}

/* After a model run while other threads use the device: 1 if the runner
 * should leave its core to a newcomer. A thread just created has not made its first call
 * and nothing tells that it is on its way; on a busy machine it may wait
 * for the core the runner keeps busy (the simulator, far slower, lets it in
 * within a few ns of device time; the model ran whole transfers before it
 * came). Newcomers that are blocked (state S, D) are not waited for. */
static bool newcomer(struct timed *m, uint64_t wall)
{
	bool any = false;

	if (++m->batches >= NEWCOMER_EVERY) {
		m->batches = 0;
		list_threads(m, wall, false);
	}
	for (unsigned i = 0; i < NEWCOMERS; i++) {
		if (!m->newc[i].tid)
			continue;
		if (wall > m->newc[i].until) {
			m->newc[i].tid = 0;
			continue;
		}
		if (task_state(m->newc[i].tid) == 'R')
			any = true;
	}
	return any;
}

/* A thread whose CPU time stands still: 1 if it is on its way all the same
 * (runnable but waiting for a core, or woken and not yet running: state R;
 * asleep in nanosleep or clock_nanosleep: it comes back by itself), 0 if
 * it is blocked on something else (a lock, a queue, a join: it may wait for
 * the very thread that waits on the device). */
static bool on_its_way(pid_t tid)
{
	char buf[512];
	const char *st;
	long nr;

	if (read_proc(tid, "stat", buf, sizeof buf) <= 0 || !(st = strrchr(buf, ')')))
		return false;
	if (st[1] == ' ' && st[2] == 'R')
		return true;
	if (read_proc(tid, "syscall", buf, sizeof buf) <= 0)
		return false;
	nr = strtol(buf, NULL, 10);
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep)
		return true;
#endif
#ifdef SYS_clock_nanosleep
	if (nr == SYS_clock_nanosleep)
		return true;
#endif
	return false;
}

/* 1 while a released thread is on its way to its next call. One that is
 * blocked elsewhere is not waited for while it is, but again once it runs
 * (a host lock another thread held across a device call: dev->irq_lock);
 * after RELEASE_MAX_NS of wall clock since its wait it is not waited for. */
static bool others_computing(struct timed *m)
{
	uint64_t now = 0;
	bool any = false;

	for (unsigned i = 0; m->nrel && i < RELEASE_SLOTS; i++) {
		struct released *r = &m->rel[i];
		uint64_t cpu;

		if (!r->used || r->in_call)
			continue;
		if (!now) /* read only when a thread is released (never alone) */
			now = clock_ns(CLOCK_MONOTONIC);
		if (now - r->wall_start > RELEASE_MAX_NS) {
			rel_use(m, r, false); /* long host work: time goes on */
			continue;
		}
		cpu = clock_ns(r->clk);
		if (cpu != r->cpu) {
			r->cpu = cpu;
			r->wall_moved = now;
		}
		if (now - r->wall_moved <= RELEASE_IDLE_NS || on_its_way(r->tid))
			any = true;
	}
	return any;
}

/* What a wait waits for. */
struct until {
	struct abb_reftime_deadline d; /* device time limit (ps UINT64_MAX: none) */
	struct abb_reftime_read *read; /* a PIO read to complete */
	uint64_t irq_seen;             /* an interrupt count to exceed (with irq) */
	bool irq;
	struct until *next;            /* m->waiters (set by wait_until) */
};

static bool reached(struct timed *m, const struct until *u)
{
	if (u->read && u->read->done)
		return true;
	if (u->irq && abb_reftime_irq_count(m->rt) > u->irq_seen)
		return true;
	return u->d.ps != UINT64_MAX && abb_reftime_now(m->rt) >= u->d.ps;
}

/* Another thread's wait is reached: it ends at this device time, and
 * time waits until its thread has taken it. */
static bool other_reached(struct timed *m, const struct until *u)
{
	for (const struct until *w = m->waiters; w; w = w->next)
		if (w != u && reached(m, w))
			return true;
	return false;
}

/* The earliest deadline of all the waits (as the simulator's waiters:
 * time runs to the first thing any waiting thread waits for). */
static struct abb_reftime_deadline earliest(struct timed *m)
{
	struct abb_reftime_deadline d = {UINT64_MAX, 0};

	for (const struct until *w = m->waiters; w; w = w->next)
		if (w->d.ps < d.ps || (w->d.ps == d.ps && w->d.seq < d.seq))
			d = w->d;
	return d;
}

static void nap(struct timed *m, uint64_t ns)
{
	struct timespec ts;
	uint64_t t = clock_ns(CLOCK_MONOTONIC) + ns;

	ts.tv_sec = (time_t)(t / 1000000000u);
	ts.tv_nsec = (long)(t % 1000000000u);
	pthread_cond_timedwait(&m->cond, &m->lock, &ts);
}

/* Runs the model (or lets another thread run it) until u is reached.
 * Lockstep among threads as the simulator's waiters (sim/platform_
 * lockstep.cpp settle_waiters): whichever thread runs the model runs it
 * for all of them, up to the earliest deadline of any wait and no further
 * than the first event (a PIO read done, an interrupt) that ends any of
 * them; then time stands until that thread has its answer. It stands too
 * while a thread is on its way into a call (entering) or computing after
 * a wait (released). -EIO if nothing can ever reach u (the model has no
 * event left). */
static int wait_until(struct timed *m, struct until *u)
{
	int rc = 0;

	unrelease(m);
	u->next = m->waiters;
	m->waiters = u;
	m->waiting++;
	while (!reached(m, u)) {
		if (m->running || __atomic_load_n(&m->entering, __ATOMIC_SEQ_CST) ||
		    other_reached(m, u) || others_computing(m)) {
			nap(m, RELEASE_IDLE_NS);
			continue;
		}
		{
			uint64_t now = abb_reftime_now(m->rt), next = abb_reftime_next(m->rt);
			struct abb_reftime_deadline d = earliest(m);
			uint64_t wall = 0;
			bool shared;

			if (d.ps == UINT64_MAX && next == UINT64_MAX) {
				rc = -EIO;
				break;
			}
			shared = others_recent(m, coarse_ns());
			if (shared) /* the pacing's and the newcomers' clock */
				wall = clock_ns(CLOCK_MONOTONIC);
			/* an idle stretch while another thread may act: paced */
			if (next > now + PACE_STEP_PS && d.ps > now + PACE_STEP_PS && shared) {
				uint64_t allowed = (wall - m->pace_wall) * 1000u;

				if (wall - m->pace_wall > 1000000u)
					allowed = PACE_STEP_PS; /* a new stretch */
				m->pace_wall = wall;
				if (allowed < PACE_STEP_PS) {
					nap(m, 10000);
					continue;
				}
				/* never past the earliest wait's end: a nap longer
				 * than asked (timer slack, a busy core) would run
				 * the board on past the time a wait ends at */
				if (allowed < d.ps - now)
					d = abb_reftime_deadline(m->rt, now + allowed);
			}
			m->running = true;
			(void)abb_reftime_run(m->rt, d, shared ? RUN_BATCH_SHARED : RUN_BATCH);
			m->running = false;
			/* a sleep, not sched_yield: an idle core takes the
			 * newcomer from a busy one's queue */
			if (shared && newcomer(m, wall))
				nap(m, RELEASE_IDLE_NS);
		}
		pthread_cond_broadcast(&m->cond);
	}
	for (struct until **p = &m->waiters; *p; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	m->waiting--;
	if (m->waiting || others_recent(m, coarse_ns()))
		release(m);
	pthread_cond_broadcast(&m->cond);
	return rc;
}

/* --- host-time coupling (hosttime=1) --------------------------------- */

/* As backend_sim_hosttime.c: the coupling charges the host software's own
 * CPU time, not what taking part in the model costs the thread between
 * two calls (the reads of its CPU clock, the return from a call): ht_cost
 * is that overhead, the median gap between HT_CAL_CALLS consecutive
 * register reads with no host code between them, measured at every open. */
#define HT_CAL_CALLS 33

static unsigned ht_epoch_next;
static _Thread_local uint64_t ht_last; /* thread CPU ns when its last call returned */
static _Thread_local uint64_t ht_dev;  /* device ps then */
static _Thread_local unsigned ht_mark; /* the open's epoch of ht_last */

/* At the entry of a call (lock held): device time moves by the thread's
 * CPU time since its previous call, from where it was then. */
static void ht_enter(struct timed *m)
{
	uint64_t now, target;
	struct until u = {0};

	if (!m->hosttime || ht_mark != m->epoch)
		return;
	now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (m->ht_calibrating) {
		if (m->ht_n < HT_CAL_CALLS)
			m->ht_gap[m->ht_n++] = now - ht_last;
		return;
	}
	if (now <= ht_last + m->ht_cost)
		return;
	target = ht_dev + (now - ht_last - m->ht_cost) * 1000u;
	if (target <= abb_reftime_now(m->rt))
		return;
	u.d = abb_reftime_deadline(m->rt, target);
	(void)wait_until(m, &u);
}

static void ht_leave(struct timed *m)
{
	if (!m->hosttime)
		return;
	ht_dev = abb_reftime_now(m->rt);
	ht_last = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ht_mark = m->epoch;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int timed_reg_read(abb_dev *dev, uint32_t off, uint32_t *val);
static int timed_advance(abb_dev *dev, int64_t ns);
static int timed_link_tlps(abb_dev *dev, uint64_t *n);

static void ht_setup(abb_dev *dev, struct timed *m)
{
	uint32_t v;

	m->ht_cost = 0;
	m->ht_n = 0;
	m->ht_calibrating = true;
	for (int i = 0; i < HT_CAL_CALLS + 1; i++) /* the first has no gap before it */
		(void)timed_reg_read(dev, ABB_REG_VERSION, &v);
	m->ht_calibrating = false;
	qsort(m->ht_gap, m->ht_n, sizeof m->ht_gap[0], cmp_u64);
	m->ht_cost = m->ht_n ? m->ht_gap[m->ht_n / 2] : 0;
}

static void enter(struct timed *m)
{
	lock_dev(m);
	seen(m, coarse_ns());
	back(m);
	ht_enter(m);
}

static void leave(struct timed *m)
{
	ht_leave(m);
	away(m);
	if (m->waiting)
		pthread_cond_broadcast(&m->cond); /* the runner may wait for this call */
	pthread_mutex_unlock(&m->lock);
}

/* --- the backend operations ------------------------------------------ */

static int timed_read(struct timed *m, unsigned bar, uint32_t off, void *buf, size_t len)
{
	struct abb_reftime_read r = {buf, (uint32_t)len, 0, false};
	struct until u = {{UINT64_MAX, 0}, &r, 0, false, NULL};
	int rc;

	abb_reftime_pio_read(m->rt, bar, off, &r);
	rc = wait_until(m, &u);
	if (rc)
		return abb_err(rc, "model (timed): the %s read at 0x%x got no completion: the "
			       "timing model has nothing left to do", bar ? "BAR1" : "register", off);
	return 0;
}

static int timed_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	struct timed *m = T(dev);
	uint8_t b[4] = {0xff, 0xff, 0xff, 0xff};
	int rc;

	enter(m);
	rc = timed_read(m, 0, off, b, 4);
	leave(m);
	*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return rc;
}

static int timed_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	struct timed *m = T(dev);
	uint8_t b[4] = {(uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16), (uint8_t)(val >> 24)};

	enter(m);
	abb_reftime_pio_write(m->rt, 0, off, b, 4);
	leave(m);
	return 0;
}

static int timed_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct timed *m = T(dev);
	int rc;

	enter(m);
	rc = timed_read(m, 1, off, buf, len);
	leave(m);
	return rc;
}

static int timed_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	struct timed *m = T(dev);

	enter(m);
	abb_reftime_pio_write(m->rt, 1, off, buf, len);
	leave(m);
	return 0;
}

/* BAR1 stores in the shapes the simulator's store model gives them
 * (sim/cpu_store.cpp): UC one write per store (16- and 32-byte stores as
 * 8-byte writes), WC one write per 64-byte line. Not its timing: the
 * model has no CPU store path, every write is posted at once (doc/pio.md). */
static int timed_pio_store(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			   unsigned store_bytes)
{
	struct timed *m = T(dev);
	const uint8_t *b = buf;
	unsigned piece = m->pio_wc ? 64 : store_bytes > 8 && store_bytes < 64 ? 8 : store_bytes;

	enter(m);
	for (size_t i = 0; i < len;) {
		size_t n = piece - (off + i) % piece;

		if (n > len - i)
			n = len - i;
		abb_reftime_pio_write(m->rt, 1, (uint32_t)(off + i), b + i, n);
		i += n;
	}
	leave(m);
	return 0;
}

/* Nothing waits in a CPU: every write was posted at its store. */
static int timed_pio_flush(abb_dev *dev)
{
	(void)dev;
	return 0;
}

static int timed_pio_mapping(abb_dev *dev, char *why, size_t n)
{
	struct timed *m = T(dev);

	snprintf(why, n, "%s (reference model, timed: pio=%s; write shapes of the store model, "
		 "no CPU store-path timing)", m->pio_wc ? "write-combined" : "uncached",
		 m->pio_wc ? "wc" : "uc");
	return m->pio_wc ? ABB_PIO_WC : ABB_PIO_UC;
}

static int timed_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	struct timed *m = T(dev);
	struct abb_refiova_seg *s = NULL;
	struct abb_seg *out;
	size_t n = 0;
	int rc;

	lock_dev(m);
	rc = abb_refiova_map(m->iova, ptr, len, &s, &n);
	pthread_mutex_unlock(&m->lock);
	if (rc == -EEXIST)
		return abb_err(rc, "model: %p is mapped already", ptr);
	if (rc)
		return abb_err(rc, "model: IOVA space or memory exhausted mapping %zu bytes", len);
	out = calloc(n, sizeof *out);
	if (!out) {
		lock_dev(m);
		abb_refiova_unmap(m->iova, ptr);
		pthread_mutex_unlock(&m->lock);
		free(s);
		return abb_err(-ENOMEM, "model: out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		out[i].iova = s[i].iova;
		out[i].len = s[i].len;
	}
	free(s);
	*segs = out;
	*nsegs = n;
	return 0;
}

static int timed_unmap(abb_dev *dev, void *ptr, size_t len)
{
	struct timed *m = T(dev);
	int rc;

	(void)len;
	lock_dev(m);
	rc = abb_refiova_unmap(m->iova, ptr);
	pthread_mutex_unlock(&m->lock);
	return rc ? abb_err(rc, "model: %p is not mapped", ptr) : 0;
}

static int timed_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct timed *m = T(dev);
	struct until u = {{UINT64_MAX, 0}, NULL, *seen, true, NULL};
	uint64_t now;
	int rc;

	enter(m);
	now = abb_reftime_now(m->rt);
	if (timeout_ns >= 0 && (uint64_t)timeout_ns < (UINT64_MAX - now) / 1000u)
		u.d = abb_reftime_deadline(m->rt, now + (uint64_t)timeout_ns * 1000u);
	rc = wait_until(m, &u);
	*seen = abb_reftime_irq_count(m->rt);
	if (!rc && *seen <= u.irq_seen)
		rc = -ETIMEDOUT;
	/* as the simulator's (backend_sim.c sim_irq_wait): the host sees the
	 * interrupt only after its delivery and the driver's wake-up */
	if (!rc && m->irq_host_ns > 0) {
		struct until h = {0};

		h.d = abb_reftime_deadline(m->rt, abb_reftime_now(m->rt) +
						  (uint64_t)m->irq_host_ns * 1000u);
		(void)wait_until(m, &h);
	}
	leave(m);
	if (rc == -ETIMEDOUT)
		return abb_err(rc, "no interrupt within %lld ns (device time)", (long long)timeout_ns);
	if (rc)
		return abb_err(rc, "model (timed): waiting for an interrupt on a board with nothing "
			       "left to do and no time limit");
	return 0;
}

/* libabb's polled wait (backend.h struct abb_poll) run here: the same STA
 * reads at the same device times as do_wait's host loop (abb_dma.c) makes
 * them, without the trip through libabb per read; the lock is given up
 * between the steps as between the host loop's calls. The watchdog as
 * abb_watchdog.c's: TLPs but the poll's own reads during a pause are
 * progress. Not with hosttime=1 (the host loop's CPU time is device time
 * there: timed_backend_ht has no poll_reg). */
static int timed_poll_reg(abb_dev *dev, const struct abb_poll *q, uint32_t *val, uint64_t *reads)
{
	struct timed *m = T(dev);
	struct abb_watch w;
	uint64_t nap = q->nap_min_ns, n = 0, own = 0;
	int rc = 0;

	abb_watch_init(&w);
	*val = 0xffffffffu;
	*reads = 0;
	if (q->first_ns) {
		uint64_t before = 0, after = 0;

		(void)timed_link_tlps(dev, &before);
		rc = timed_advance(dev, (int64_t)q->first_ns);
		if (rc)
			return rc;
		(void)timed_link_tlps(dev, &after);
		if (dev->watchdog_s && after != before) { /* as around do_wait's first pause */
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			w.last_move = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
		}
	}
	for (;;) {
		uint8_t b[4] = {0xff, 0xff, 0xff, 0xff};
		uint64_t now, ns, before;

		enter(m);
		rc = timed_read(m, 0, q->off, b, 4);
		if (rc) {
			leave(m);
			return rc;
		}
		n++;
		own += 2; /* the read's request and completion */
		*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
		*reads = n;
		if ((*val & q->mask) != q->busy) {
			leave(m);
			return 0;
		}
		if ((rc = abb_watch_check(dev, &w, "polled wait")) != 0) {
			leave(m);
			return rc;
		}
		now = abb_reftime_now(m->rt) / 1000u;
		if (now >= q->stop_ns) {
			leave(m);
			return abb_err(-ETIMEDOUT, "register 0x%x did not change by %llu ns (device "
				       "time)", q->off, (unsigned long long)q->stop_ns);
		}
		if (n <= q->spin || !nap) {
			leave(m);
			continue;
		}
		ns = q->stop_ns - now < nap ? q->stop_ns - now : nap;
		if (q->nap_div)
			nap += nap / q->nap_div;
		if (nap > q->nap_max_ns)
			nap = q->nap_max_ns;
		before = abb_reftime_link_tlps(m->rt) - own;
		{
			struct until u = {0};

			u.d = abb_reftime_deadline(m->rt, abb_reftime_now(m->rt) + ns * 1000u);
			(void)wait_until(m, &u);
		}
		if (dev->watchdog_s && abb_reftime_link_tlps(m->rt) - own != before) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			w.last_move = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
		}
		leave(m);
	}
}

static uint64_t timed_irq_count(abb_dev *dev)
{
	struct timed *m = T(dev);
	uint64_t n;

	lock_dev(m);
	n = abb_reftime_irq_count(m->rt);
	pthread_mutex_unlock(&m->lock);
	return n;
}

static int timed_now_ns(abb_dev *dev, uint64_t *ns)
{
	struct timed *m = T(dev);

	enter(m);
	*ns = abb_reftime_now(m->rt) / 1000u;
	leave(m);
	return 0;
}

static int timed_advance(abb_dev *dev, int64_t ns)
{
	struct timed *m = T(dev);
	struct until u = {0};
	uint64_t now;

	if (ns <= 0)
		return 0;
	enter(m);
	now = abb_reftime_now(m->rt);
	if ((uint64_t)ns > (UINT64_MAX - now) / 1000u) {
		leave(m);
		return abb_err(-EINVAL, "advance: %lld ns would run device time past the end of "
			       "its 64-bit picosecond clock", (long long)ns);
	}
	u.d = abb_reftime_deadline(m->rt, now + (uint64_t)ns * 1000u);
	(void)wait_until(m, &u);
	leave(m);
	return 0;
}

/* --- the simulation-only operations it serves (sim_ops.h) ------------- */

static int timed_cycles(abb_dev *dev, uint64_t *cycles)
{
	struct timed *m = T(dev);

	enter(m);
	*cycles = abb_reftime_cycles(m->rt);
	leave(m);
	return 0;
}

static int timed_link_tlps(abb_dev *dev, uint64_t *n)
{
	struct timed *m = T(dev);

	lock_dev(m);
	*n = abb_reftime_link_tlps(m->rt);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static void credits_out(struct abb_sim_credits *o, const struct abbsim_credits *c)
{
	o->ph = c->ph;
	o->pd = c->pd;
	o->nph = c->nph;
	o->npd = c->npd;
	o->cplh = c->cplh;
	o->cpld = c->cpld;
}

static int timed_link_params(abb_dev *dev, struct abb_sim_link *out)
{
	const struct abbsim_params *p = abb_reftime_params(T(dev)->rt);

	memset(out, 0, sizeof *out);
	out->gen = p->gen;
	out->lanes = p->lanes;
	out->mps = p->mps;
	out->mrrs = p->mrrs;
	out->rcb = p->rcb;
	out->clk_mhz = p->clk_mhz;
	out->cpl_rcb = p->cpl_rcb;
	out->link_ns = p->link_latency_ns;
	out->mem_ns = p->mem_latency_ns;
	out->reorder = p->reorder;
	out->seed = p->seed;
	out->mem_size = p->mem_bytes;
	out->iova_scatter = p->iova_scatter;
	credits_out(&out->up, &p->credits_up);
	credits_out(&out->down, &p->credits_down);
	return 0;
}

static int nosup(const char *what)
{
	return abb_err(-ENOTSUP, "%s: the timed reference model has no %s (only the simulator)",
		       "model", what);
}

static int timed_trace(abb_dev *dev, const char *path, uint64_t from, uint64_t to)
{
	return nosup("RTL waveform");
}

static int timed_tlp_log(abb_dev *dev, const char *path)
{
	struct timed *m = T(dev);
	int rc;

	lock_dev(m);
	rc = abb_reftime_tlp_log(m->rt, path);
	pthread_mutex_unlock(&m->lock);
	return rc ? abb_err(rc, "TLP log %s: %s", path, strerror(-rc)) : 0;
}

static int timed_faults(abb_dev *dev, struct abb_sim_fault *out, size_t max)
{
	return nosup("IOMMU fault record");
}

static int timed_cfg_dump(abb_dev *dev, const char *path)
{
	return nosup("config space");
}

static int timed_cfg_read(abb_dev *dev, unsigned off, unsigned size, uint32_t *val)
{
	return nosup("config space");
}

static int timed_cfg_write(abb_dev *dev, unsigned off, unsigned size, uint32_t val)
{
	return nosup("config space");
}

static int timed_protocol_errors(abb_dev *dev, char *buf, size_t len)
{
	return nosup("PCIe rule checks");
}

static int timed_inject(abb_dev *dev, const struct abb_sim_inject_spec *spec)
{
	return nosup("link injection");
}

static int timed_inject_clear(abb_dev *dev)
{
	return nosup("link injection");
}

static int timed_inject_hits(abb_dev *dev, int id)
{
	return nosup("link injection");
}

static int timed_pio_stats(abb_dev *dev, struct abb_sim_pio_stats *out, int clear)
{
	return nosup("CPU store model");
}

#define TIMED_OPS(ht)                                  \
	{                                              \
		.hosttime = ht,                        \
		.cycles = timed_cycles,                \
		.link_tlps = timed_link_tlps,          \
		.advance = timed_advance,              \
		.trace = timed_trace,                  \
		.tlp_log = timed_tlp_log,              \
		.faults = timed_faults,                \
		.cfg_dump = timed_cfg_dump,            \
		.cfg_read = timed_cfg_read,            \
		.cfg_write = timed_cfg_write,          \
		.link_params = timed_link_params,      \
		.protocol_errors = timed_protocol_errors, \
		.inject = timed_inject,                \
		.inject_clear = timed_inject_clear,    \
		.inject_hits = timed_inject_hits,      \
		.pio_stats = timed_pio_stats,          \
		.note = NULL, /* no waveform */        \
	}
static const struct abb_sim_ops timed_ops = TIMED_OPS(0);
static const struct abb_sim_ops timed_ops_hosttime = TIMED_OPS(1);

/* --- open and close ---------------------------------------------------- */

static void timed_close(abb_dev *dev)
{
	struct timed *m = T(dev);

	if (!m)
		return;
	abb_reftime_destroy(m->rt);
	abb_refiova_destroy(m->iova);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->cond);
	free(m);
	dev->be_priv = NULL;
}

static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_fill(void)
{
	struct abb_backend *t = &timed_backend;

	*t = abb_backend_refmodel; /* the name, open */
	t->close = timed_close;
	t->reg_read = timed_reg_read;
	t->reg_write = timed_reg_write;
	t->mem_read = timed_mem_read;
	t->mem_write = timed_mem_write;
	t->pio_store = timed_pio_store;
	t->pio_flush = timed_pio_flush;
	t->pio_mapping = timed_pio_mapping;
	t->map = timed_map;
	t->unmap = timed_unmap;
	t->irq_wait = timed_irq_wait;
	t->irq_count = timed_irq_count;
	t->now_ns = timed_now_ns;
	t->delay_ns = timed_advance;
	timed_backend_ht = *t;
	t->poll_reg = timed_poll_reg;
}

int abb_reftimed_open(abb_dev *dev, const struct abb_optvals *o)
{
	struct abb_refmodel_cfg cfg = {
		.mem_bytes = o->p.mem_bytes,
		.shared_engine = o->shared_engine != 0,
		.strict = o->p.strict != 0,
	};
	struct abb_reftime_host host;
	struct abb_optvals prof = *o;
	pthread_condattr_t ca;
	struct timed *m;
	char msg[512];
	int rc;

	/* the profile as the simulator applies it */
	if ((rc = abb_opt_apply_profile(&prof, ABB_OPT_TIMED, msg, sizeof msg)))
		return abb_err(rc, "model (timed): %s", msg);
	o = &prof;
	if ((rc = abb_reftime_check(&o->p, msg, sizeof msg)))
		return abb_err(rc, "model (timed): %s", msg);
	m = calloc(1, sizeof *m);
	if (!m)
		return abb_err(-ENOMEM, "model: out of memory");
	m->iova = abb_refiova_create(o->p.iova_scatter != 0, o->p.seed);
	host = (struct abb_reftime_host){host_dma, host_mapped, m};
	if (m->iova)
		m->rt = abb_reftime_create(&o->p, &cfg, &host);
	if (!m->rt) {
		abb_refiova_destroy(m->iova);
		free(m);
		return abb_err(-ENOMEM, "model: out of memory for %u bytes of board memory",
			       o->p.mem_bytes);
	}
	if (o->tlp_log[0] && (rc = abb_reftime_tlp_log(m->rt, o->tlp_log)) != 0) {
		abb_reftime_destroy(m->rt);
		abb_refiova_destroy(m->iova);
		free(m);
		return abb_err(rc, "model (timed): TLP log %s: %s", o->tlp_log, strerror(-rc));
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	m->irq_host_ns = abb_opt_irq_host_ns(&prof);
	m->hosttime = o->hosttime;
	m->pio_wc = o->p.pio_wc;
	m->epoch = __atomic_add_fetch(&ht_epoch_next, 1, __ATOMIC_RELAXED);
	list_threads(m, 0, true);
	pthread_once(&table_once, table_fill);
	dev->be = o->hosttime ? &timed_backend_ht : &timed_backend;
	dev->sim = o->hosttime ? &timed_ops_hosttime : &timed_ops;
	dev->be_priv = m;
	dev->bar0_size = ABB_REFMODEL_BAR0;
	dev->bar1_size = o->p.mem_bytes;
	dev->watchdog_s = o->p.watchdog_s;
	if (m->hosttime)
		ht_setup(dev, m);
	return 0;
}
