/*
 * backend_ref_model.c - libabb's "model" backend: the reference model of the ABB
 * (the device core, ref_model.c) with the glue to struct abb_backend.
 *
 * URI: "model" or "model:mem_size=N,shared_engine=0|1,strict=0|1" (mem_size:
 * BAR1 bytes, power of two, 64 KiB .. 16 MiB, default 1 MiB; k/M
 * suffixes; strict: as the simulator's, default $ABB_SIM_STRICT or 0).
 * With timed=1 (ABB_MODEL_TIMED=1) the open hands over to the timed model
 * (backend_ref_timed.c), which also takes the simulator's link options;
 * what follows here is the untimed model.
 *
 * What the glue adds to the core:
 *  - one lock around every call into the core (any thread may access
 *    registers and BAR1);
 *  - device time: CLOCK_MONOTONIC since open, passed to the core before
 *    every register access and while an interrupt is waited for (so the
 *    interrupt generator fires on time); delay_ns sleeps on that clock;
 *  - host memory: IOVA = the process address; map() records the range and
 *    the core's DMA accesses to ranges not recorded are refused (-EFAULT);
 *  - interrupts: the core's rising edges of the line are counted
 *    (irq_count) and wake irq_wait.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abb_options.h"
#include "abb_priv.h"
#include "backend_ref.h"
#include "ref_model.h"

struct model_map {
	uintptr_t base;
	size_t len;
};

struct model {
	pthread_mutex_t lock;     /* guards everything below and the core */
	pthread_cond_t irq_cond;  /* broadcast on every interrupt */
	struct abb_refmodel *core;   /* the reference model */
	unsigned pio_wc;          /* pio=wc: what abb_pio_mapping answers */
	uint64_t t0;              /* CLOCK_MONOTONIC at open: device time 0 */

	struct model_map *maps; /* sorted by base, not overlapping */
	size_t nmaps, cap;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct model *M(abb_dev *dev)
{
	return dev->be_priv;
}

/* Device time now (ns since open), passed on to the core. */
static uint64_t model_tick(struct model *m)
{
	uint64_t t = mono_ns() - m->t0;

	abb_refmodel_advance(m->core, t);
	return t;
}

/* --- host memory (IOVA = process address) ------------------------------ */

/* Index of the first map with base > a. */
static size_t map_upper(const struct model *m, uintptr_t a)
{
	size_t lo = 0, hi = m->nmaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->maps[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 if every byte of [iova, iova+len) lies in mapped ranges. */
static bool mapped(const struct model *m, uint64_t iova, uint64_t len)
{
	while (len) {
		size_t i = map_upper(m, (uintptr_t)iova);
		const struct model_map *mp;
		uint64_t avail;

		if (i == 0)
			return false;
		mp = &m->maps[i - 1];
		if (iova >= (uint64_t)mp->base + mp->len)
			return false;
		avail = (uint64_t)mp->base + mp->len - iova;
		if (avail >= len)
			return true;
		iova += avail;
		len -= avail;
	}
	return true;
}

/* The core's DMA access to host memory (called with m->lock held). */
static int model_host_dma(void *ctx, int to_host, uint64_t iova, void *buf, size_t len)
{
	struct model *m = ctx;

	if (!mapped(m, iova, len))
		return -EFAULT;
	if (to_host)
		memcpy((void *)(uintptr_t)iova, buf, len);
	else
		memcpy(buf, (const void *)(uintptr_t)iova, len);
	return 0;
}

/* The core's interrupt (called with m->lock held). */
static void model_host_irq(void *ctx)
{
	struct model *m = ctx;

	pthread_cond_broadcast(&m->irq_cond);
}

/* --- the backend operations ------------------------------------------- */

/* The URI options of the reference model: the option table's parser
 * (abb_options.c), the same as for the simulator and the environment;
 * with timed=1 the simulator's link options too, the credit items given
 * as options of their own after credits= collected as sim_config.c does. */
struct model_uri {
	struct abb_optvals *v;
	unsigned backends;
	char credits[512];
};

static int model_opt(void *ctx, const char *key, const char *val)
{
	struct model_uri *u = ctx;
	struct abb_opt_row r;
	char msg[1024];
	int rc;

	if ((u->backends & ABB_OPT_TIMED) &&
	    (strcmp(key, "credits") == 0 || abb_opt_credit_item(key))) {
		size_t used = strlen(u->credits);

		snprintf(u->credits + used, sizeof u->credits - used, "%s%s%s%s", used ? "," : "",
			 strcmp(key, "credits") ? key : "", strcmp(key, "credits") ? "=" : "", val);
		return 0;
	}
	rc = abb_opt_set(u->v, u->backends, "model option", key, val, msg, sizeof msg);
	if (rc && !(u->backends & ABB_OPT_TIMED))
		for (size_t i = 0; abb_opt_row(i, &r) == 0; i++)
			if (!strcmp(r.name, key) && (r.backends & ABB_OPT_TIMED))
				return abb_err(rc, "unknown model option \"%s\" of the untimed model: a "
					       "link option, taken by the timed model: add timed=1", key);
	return rc ? abb_err(rc, "%s", msg) : 0;
}

/* The first pass over the URI: only timed= (the other options are read
 * once it is known which the model takes). */
static int model_timed_opt(void *ctx, const char *key, const char *val)
{
	struct model_uri *u = ctx;
	char msg[1024];
	int rc;

	if (strcmp(key, "timed"))
		return 0;
	rc = abb_opt_set(u->v, ABB_OPT_MODEL, "model option", key, val, msg, sizeof msg);
	return rc ? abb_err(rc, "%s", msg) : 0;
}

/* Defaults, the environment, then the URI. */
static int model_options(struct abb_optvals *o, const char *args)
{
	struct model_uri u = {o, ABB_OPT_MODEL, ""};
	char msg[1024];
	int rc;

	abb_opt_defaults(o);
	rc = abb_opt_from_env(o, ABB_OPT_MODEL, ABB_OPTG_ALL, msg, sizeof msg);
	if (rc)
		return abb_err(rc, "%s", msg);
	rc = abb_opt_each("model", args, 512, model_timed_opt, &u);
	if (rc)
		return rc;
	if (o->timed) {
		u.backends |= ABB_OPT_TIMED;
		rc = abb_opt_from_env(o, ABB_OPT_TIMED, ABB_OPTG_ALL, msg, sizeof msg);
		if (rc)
			return abb_err(rc, "%s", msg);
	}
	rc = abb_opt_each("model", args, o->timed ? 512 : 256, model_opt, &u);
	if (!rc && u.credits[0]) {
		rc = abb_opt_set(o, u.backends, "model option", "credits", u.credits, msg, sizeof msg);
		if (rc)
			return abb_err(rc, "%s", msg);
	}
	return rc;
}

static int model_open(abb_dev *dev, const char *args)
{
	struct abb_optvals o;
	pthread_condattr_t ca;
	struct model *m;
	size_t mem;
	int rc;

	/* the reference model's options (mem_size, strict, shared_engine, timed):
	 * defaults, ABB_SIM_MEM_SIZE / ABB_SIM_STRICT / ABB_MODEL_SHARED_ENGINE /
	 * ABB_MODEL_TIMED, then the URI, as the simulator's. o.p.strict is for
	 * the strict mode. */
	rc = model_options(&o, args);
	if (rc)
		return rc;
	if (o.timed)
		return abb_reftimed_open(dev, &o);
	mem = o.p.mem_bytes;
	m = calloc(1, sizeof *m);
	if (m) {
		struct abb_refmodel_cfg cfg = {
			.mem_bytes = mem,
			.shared_engine = o.shared_engine != 0,
			.strict = o.p.strict != 0,
		};
		struct abb_refmodel_host host = {
			.dma = model_host_dma,
			.irq = model_host_irq,
			.ctx = m,
		};

		m->core = abb_refmodel_create(&cfg, &host);
	}
	if (!m || !m->core) {
		free(m);
		return abb_err(-ENOMEM, "model: out of memory for %zu bytes of board memory", mem);
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->irq_cond, &ca);
	pthread_condattr_destroy(&ca);
	m->t0 = mono_ns();
	m->pio_wc = o.p.pio_wc;
	dev->be_priv = m;
	dev->bar0_size = ABB_REFMODEL_BAR0;
	dev->bar1_size = mem;
	dev->watchdog_s = 0;
	return 0;
}

static void model_close(abb_dev *dev)
{
	struct model *m = M(dev);

	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->irq_cond);
	abb_refmodel_destroy(m->core);
	free(m->maps);
	free(m);
	dev->be_priv = NULL;
}

static int model_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	model_tick(m);
	*val = abb_refmodel_reg_read(m->core, off);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	model_tick(m);
	abb_refmodel_reg_write(m->core, off, val);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	abb_refmodel_mem_read(m->core, off, buf, len);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	abb_refmodel_mem_write(m->core, off, buf, len);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* The untimed model has no store path: the stores land in board memory
 * at once, whatever their width and the mapping. */
static int model_pio_store(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			   unsigned store_bytes)
{
	(void)store_bytes;
	return model_mem_write(dev, off, buf, len);
}

static int model_pio_flush(abb_dev *dev)
{
	(void)dev;
	return 0;
}

static int model_pio_mapping(abb_dev *dev, char *why, size_t n)
{
	struct model *m = M(dev);

	snprintf(why, n, "%s (reference model: pio=%s; data only, no write shapes or timing)",
		 m->pio_wc ? "write-combined" : "uncached", m->pio_wc ? "wc" : "uc");
	return m->pio_wc ? ABB_PIO_WC : ABB_PIO_UC;
}

static int model_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	struct model *m = M(dev);
	uintptr_t a = (uintptr_t)ptr;
	struct abb_seg *s = malloc(sizeof *s);
	size_t i;
	int rc = 0;

	if (!s)
		return abb_err(-ENOMEM, "model: out of memory");
	pthread_mutex_lock(&m->lock);
	i = map_upper(m, a);
	if ((i > 0 && m->maps[i - 1].base + m->maps[i - 1].len > a) ||
	    (i < m->nmaps && m->maps[i].base < a + len)) {
		rc = abb_err(-EEXIST, "model: [%p, +%zu) overlaps a mapped range", ptr, len);
	} else if (m->nmaps == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct model_map *n = realloc(m->maps, cap * sizeof *n);

		if (!n) {
			rc = abb_err(-ENOMEM, "model: out of memory");
		} else {
			m->maps = n;
			m->cap = cap;
		}
	}
	if (!rc) {
		memmove(&m->maps[i + 1], &m->maps[i], (m->nmaps - i) * sizeof m->maps[0]);
		m->maps[i].base = a;
		m->maps[i].len = len;
		m->nmaps++;
	}
	pthread_mutex_unlock(&m->lock);
	if (rc) {
		free(s);
		return rc;
	}
	s->iova = (uint64_t)a;
	s->len = len;
	*segs = s;
	*nsegs = 1;
	return 0;
}

static int model_unmap(abb_dev *dev, void *ptr, size_t len)
{
	struct model *m = M(dev);
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	i = map_upper(m, (uintptr_t)ptr);
	if (i == 0 || m->maps[i - 1].base != (uintptr_t)ptr) {
		rc = abb_err(-ENOENT, "model: %p is not mapped", ptr);
	} else {
		memmove(&m->maps[i - 1], &m->maps[i], (m->nmaps - i) * sizeof m->maps[0]);
		m->nmaps--;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static int model_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct model *m = M(dev);
	uint64_t now = mono_ns();
	uint64_t end = timeout_ns < 0 || (uint64_t)timeout_ns > UINT64_MAX - now ?
			       UINT64_MAX : now + (uint64_t)timeout_ns;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		uint64_t until = end, next;
		struct timespec ts;

		abb_refmodel_advance(m->core, now - m->t0);
		if (abb_refmodel_irq_count(m->core) > *seen)
			break;
		if (now >= end) {
			rc = -ETIMEDOUT;
			break;
		}
		next = abb_refmodel_next_event(m->core); /* the interrupt generator */
		if (next != UINT64_MAX && next + m->t0 < until)
			until = next + m->t0;
		if (until == UINT64_MAX) {
			pthread_cond_wait(&m->irq_cond, &m->lock);
		} else {
			ts.tv_sec = (time_t)(until / 1000000000u);
			ts.tv_nsec = (long)(until % 1000000000u);
			pthread_cond_timedwait(&m->irq_cond, &m->lock, &ts);
		}
		now = mono_ns();
	}
	*seen = abb_refmodel_irq_count(m->core);
	pthread_mutex_unlock(&m->lock);
	if (rc)
		return abb_err(rc, "no interrupt within %lld ns", (long long)timeout_ns);
	return 0;
}

static uint64_t model_irq_count(abb_dev *dev)
{
	struct model *m = M(dev);
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = abb_refmodel_irq_count(m->core);
	pthread_mutex_unlock(&m->lock);
	return n;
}

static int model_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = mono_ns();
	return 0;
}

static int model_delay_ns(abb_dev *dev, int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return 0;
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return 0;
}

const struct abb_backend abb_backend_refmodel = {
	.name = "model",
	.open = model_open,
	.close = model_close,
	.reg_read = model_reg_read,
	.reg_write = model_reg_write,
	.mem_read = model_mem_read,
	.mem_write = model_mem_write,
	.pio_store = model_pio_store,
	.pio_flush = model_pio_flush,
	.pio_mapping = model_pio_mapping,
	.map = model_map,
	.unmap = model_unmap,
	.irq_wait = model_irq_wait,
	.irq_count = model_irq_count,
	.now_ns = model_now_ns,
	.delay_ns = model_delay_ns,
};
