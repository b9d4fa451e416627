/*
 * abb_core.c - opening a board, choosing the backend, register and PIO
 * access, interrupts and device time.
 *
 * Every public function checks its arguments completely before the first
 * backend call, so a rejected call has touched no hardware.
 *
 * Device handles are never handed back to the allocator while the library
 * is loaded: abb_close marks one dead and queues it, and a dead handle is
 * used again only when more than ABB_DEV_DEAD_KEEP others are dead. So a
 * second abb_close, or any call on a closed handle, is recognised and
 * refused with a message instead of touching freed memory (unless that
 * many devices were closed since).
 *
 * PIO (registers, board memory, device time) is safe from any thread, also
 * while another closes the device: each call is counted (abb_pio_enter,
 * an atomic counter), abb_close waits for those in flight before the
 * backend goes, and later calls are refused (-EINVAL).
 *
 * Interrupts (contract of the board's original driver): a source is
 * enabled by setting its IER bit (read-modify-write of that bit only) and
 * acknowledged by clearing it again, for the interrupt generator also by
 * writing IGEN_ACK; then the backend's irq_unmask runs (VFIO INTx). ISR is
 * only read: whether a write clears it is model-defined.
 */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abb_priv.h"
#include "abb_options.h"

/* Backends by URI scheme; the first is the default. */
static const struct abb_backend *const abb_backends[] = {
	&abb_backend_sim,
	&abb_backend_vfio,
	&abb_backend_refmodel,
};

#define ABB_URI_FORMS "\"sim\", \"sim:key=val,...\", \"vfio\", \"vfio:DDDD:BB:DD.F\", " \
		      "\"model\" or \"model:mem_size=N\""

static int find_backend(const char *uri, const struct abb_backend **be, const char **args)
{
	size_t n = strcspn(uri, ":");

	for (size_t i = 0; i < sizeof abb_backends / sizeof abb_backends[0]; i++) {
		const char *name = abb_backends[i]->name;

		if (strlen(name) == n && strncmp(uri, name, n) == 0) {
			*be = abb_backends[i];
			*args = uri[n] == ':' ? uri + n + 1 : NULL;
			return 0;
		}
	}
	return abb_err(-EINVAL, "abb_open: unknown device URI \"%s\"; use " ABB_URI_FORMS
		       " (or set ABB_DEVICE to one of them)", uri);
}

/* Closed devices kept before one is used again (see the top). */
#define ABB_DEV_DEAD_KEEP 64
/* Default wait limit without a wall-clock watchdog (device time). */
#define ABB_WAIT_LIMIT_DEFAULT_NS 10000000000ull

static pthread_mutex_t dev_registry = PTHREAD_MUTEX_INITIALIZER;
static abb_dev *dead_head, *dead_tail;
static size_t dead_count;

static abb_dev *dev_alloc(void)
{
	abb_dev *dev = NULL;

	pthread_mutex_lock(&dev_registry);
	if (dead_count > ABB_DEV_DEAD_KEEP) {
		dev = dead_head;
		dead_head = dev->dead_next;
		if (!dead_head)
			dead_tail = NULL;
		dead_count--;
	}
	pthread_mutex_unlock(&dev_registry);
	if (dev) {
		/* a dead handle keeps its locks until here (dev_retire) */
		pthread_mutex_destroy(&dev->irq_lock);
		pthread_mutex_destroy(&dev->life_lock);
		pthread_cond_destroy(&dev->life_cond);
		memset(dev, 0, sizeof *dev);
	} else
		dev = calloc(1, sizeof *dev);
	return dev;
}

/* Marks dev dead and queues it. Its locks stay initialized until the
 * handle is used again (dev_alloc): a thread that passed abb_dev_check
 * just before a close may still take life_lock in abb_dev_enter, find
 * closing set and leave (a destroyed mutex blocked such a DMA call for
 * ever). */
static void dev_retire(abb_dev *dev)
{
	pthread_mutex_lock(&dev_registry);
	__atomic_store_n(&dev->magic, ABB_DEV_DEAD, __ATOMIC_RELEASE); /* abb_dev_check reads it in other threads */
	dev->be_priv = NULL;
	dev->dead_next = NULL;
	if (dead_tail)
		dead_tail->dead_next = dev;
	else
		dead_head = dev;
	dead_tail = dev;
	dead_count++;
	pthread_mutex_unlock(&dev_registry);
}

/* Frees the dead handles when the library is unloaded (for leak checkers). */
__attribute__((destructor)) static void dev_registry_free(void)
{
	while (dead_head) {
		abb_dev *dev = dead_head;

		dead_head = dev->dead_next;
		pthread_mutex_destroy(&dev->irq_lock);
		pthread_mutex_destroy(&dev->life_lock);
		pthread_cond_destroy(&dev->life_cond);
		free(dev);
	}
	dead_tail = NULL;
	dead_count = 0;
}

int abb_dev_check(const char *fn, const abb_dev *dev)
{
	uint32_t magic;

	if (!dev)
		return abb_err(-EINVAL, "%s: dev is NULL", fn);
	magic = __atomic_load_n(&dev->magic, __ATOMIC_ACQUIRE);
	if (magic == ABB_DEV_LIVE)
		return 0;
	if (magic == ABB_DEV_CLOSING)
		return abb_err(-EINVAL, "%s: dev %p is being closed (abb_close)", fn,
			       (const void *)dev);
	return abb_err(-EINVAL, "%s: dev %p is not an open device (closed already?); open it "
		       "again with abb_open()", fn, (const void *)dev);
}

int abb_dev_enter(const char *fn, abb_dev *dev)
{
	int rc = abb_dev_check(fn, dev);

	if (rc)
		return rc;
	pthread_mutex_lock(&dev->life_lock);
	if (dev->closing)
		rc = abb_err(-EINVAL, "%s: dev %p is being closed (abb_close)", fn, (void *)dev);
	else
		dev->active++;
	pthread_mutex_unlock(&dev->life_lock);
	return rc;
}

void abb_dev_leave(abb_dev *dev)
{
	pthread_mutex_lock(&dev->life_lock);
	if (--dev->active == 0)
		pthread_cond_broadcast(&dev->life_cond);
	pthread_mutex_unlock(&dev->life_lock);
}

/* PIO is a hot path: one atomic counter, no lock. With abb_close's store
 * of closing before its loads of pio (all sequentially consistent), either
 * the closer sees this thread counted and waits for it, or this thread
 * sees closing and leaves. A thread that passed abb_dev_check before a
 * whole close ran finds closing still set (the dead handle's memory is
 * kept, abb_core.c top) and is refused. */
int abb_pio_enter(const char *fn, abb_dev *dev)
{
	__atomic_add_fetch(&dev->pio, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&dev->closing, __ATOMIC_SEQ_CST)) {
		__atomic_sub_fetch(&dev->pio, 1, __ATOMIC_SEQ_CST);
		return abb_err(-EINVAL, "%s: dev %p is being closed (abb_close)", fn, (void *)dev);
	}
	return 0;
}

void abb_pio_leave(abb_dev *dev)
{
	__atomic_sub_fetch(&dev->pio, 1, __ATOMIC_SEQ_CST);
}

/* abb_close, with closing set: the PIO calls in flight end by themselves
 * (a register access, a copy of board memory), so a short poll suffices
 * and the PIO path needs no wake-up. */
static void pio_drain(abb_dev *dev)
{
	struct timespec ts = {0, 20000};

	while (__atomic_load_n(&dev->pio, __ATOMIC_SEQ_CST))
		nanosleep(&ts, NULL);
}

int abb_dev_closing(abb_dev *dev)
{
	return __atomic_load_n(&dev->closing, __ATOMIC_ACQUIRE);
}

int abb_nap(abb_dev *dev, int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return 0;
	if (dev->be->delay_ns)
		return dev->be->delay_ns(dev, ns);
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return 0;
}

uint64_t abb_deadline(uint64_t start, int64_t timeout_ns)
{
	if (timeout_ns < 0 || (uint64_t)timeout_ns > UINT64_MAX - start)
		return UINT64_MAX;
	return start + (uint64_t)timeout_ns;
}

void abb_irq_unmask(abb_dev *dev)
{
	if (dev->be->irq_unmask)
		dev->be->irq_unmask(dev);
}

/* The option wait_limit_ms (ABB_WAIT_LIMIT_MS): milliseconds of device
 * time, 0 = no limit; unset: none where the backend has a wall-clock
 * watchdog (the simulator), else ABB_WAIT_LIMIT_DEFAULT_NS. */
static int wait_limit(abb_dev *dev)
{
	unsigned backend = !strcmp(dev->be->name, "sim")     ? ABB_OPT_SIM
			   : !strcmp(dev->be->name, "model") ? ABB_OPT_MODEL
							     : ABB_OPT_VFIO;
	struct abb_optvals *v = malloc(sizeof *v); /* large (file names): not on the stack */
	char msg[512];
	int rc;

	if (!v)
		return abb_err(-ENOMEM, "out of memory");
	dev->wait_limit_ns = dev->watchdog_s ? 0 : ABB_WAIT_LIMIT_DEFAULT_NS;
	abb_opt_defaults(v);
	rc = abb_opt_from_env(v, backend, ABB_OPTG_CORE, msg, sizeof msg);
	if (rc)
		rc = abb_err(rc, "%s", msg);
	else if (abb_opt_given(v, "wait_limit_ms"))
		dev->wait_limit_ns = v->wait_limit_ms * 1000000u;
	free(v);
	return rc;
}

int abb_rd(abb_dev *dev, uint32_t off, uint32_t *val)
{
	return dev->be->reg_read(dev, off, val);
}

int abb_wr(abb_dev *dev, uint32_t off, uint32_t val)
{
	return dev->be->reg_write(dev, off, val);
}

int abb_open(abb_dev **devp, const char *uri)
{
	const struct abb_backend *be = NULL;
	const char *args = NULL;
	abb_dev *dev;
	uint32_t version;
	int rc;

	if (!devp)
		return abb_err(-EINVAL, "abb_open: dev is NULL; pass the address of an abb_dev pointer");
	*devp = NULL;
	if (!uri) {
		uri = getenv("ABB_DEVICE");
		if (!uri || !*uri)
			uri = "sim";
	}
	rc = find_backend(uri, &be, &args);
	if (rc)
		return rc;

	dev = dev_alloc();
	if (!dev)
		return abb_err(-ENOMEM, "abb_open: out of memory");
	dev->be = be;
	pthread_mutex_init(&dev->irq_lock, NULL);
	pthread_mutex_init(&dev->life_lock, NULL);
	pthread_cond_init(&dev->life_cond, NULL);
	abb_dma_init(dev);

	rc = be->open(dev, args);
	if (rc) {
		abb_err_prefix(rc, "abb_open");
		goto fail_free;
	}
	if (dev->bar0_size < ABB_REG_IGEN_DEASSERT + 4 || dev->bar1_size == 0) {
		rc = abb_err(-ENXIO, "abb_open(%s): BAR0 (%zu bytes) or BAR1 (%zu bytes) too small "
			     "for an ABB", uri, dev->bar0_size, dev->bar1_size);
		goto fail_close;
	}
	rc = abb_rd(dev, ABB_REG_VERSION, &version);
	if (rc) {
		abb_err_prefix(rc, "abb_open: reading VERSION");
		goto fail_close;
	}
	if (version != ABB_VERSION_ID) {
		rc = abb_err(-ENXIO, "abb_open(%s): VERSION reads 0x%08x, expected 0x%08x: not an "
			     "ABB or an incompatible firmware", uri, version, ABB_VERSION_ID);
		goto fail_close;
	}
	rc = wait_limit(dev);
	if (rc) {
		abb_err_prefix(rc, "abb_open");
		goto fail_close;
	}
	rc = abb_dma_reset_all(dev);
	if (rc) {
		abb_err_prefix(rc, "abb_open: resetting the DMA channels");
		goto fail_close;
	}
	__atomic_store_n(&dev->magic, ABB_DEV_LIVE, __ATOMIC_RELEASE);
	*devp = dev;
	return 0;

fail_close:
	abb_dma_fini(dev);
	be->close(dev);
	goto fail_destroy;
fail_free:
	abb_dma_fini(dev);
fail_destroy:
	__atomic_store_n(&dev->closing, 1, __ATOMIC_SEQ_CST); /* for stale callers */
	dev_retire(dev);
	return rc;
}

void abb_close(abb_dev *dev)
{
	uint32_t live = ABB_DEV_LIVE;

	if (!dev)
		return;
	/* Exactly one caller moves LIVE to CLOSING; a second close (or one
	 * racing the first) only gets a message. */
	if (!__atomic_compare_exchange_n(&dev->magic, &live, ABB_DEV_CLOSING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* one racing another returns when that one is done: after any
		 * abb_close returned, buffers are unmapped and may be freed */
		if (live == ABB_DEV_CLOSING) {
			struct timespec ts = {0, 50000};

			while (__atomic_load_n(&dev->magic, __ATOMIC_ACQUIRE) == ABB_DEV_CLOSING)
				nanosleep(&ts, NULL);
		}
		abb_err(-EINVAL, "abb_close: dev %p is %s; nothing done", (void *)dev,
			live == ABB_DEV_CLOSING ? "closed by another thread meanwhile" :
						  "not an open device (closed already?)");
		return;
	}
	pthread_mutex_lock(&dev->life_lock);
	__atomic_store_n(&dev->closing, 1, __ATOMIC_SEQ_CST); /* before pio_drain's loads */
	pthread_mutex_unlock(&dev->life_lock);
	/* Stop what threads wait for, then let them leave: every wait looks
	 * at dev->closing after each status read (polling) or slice
	 * (ABB_IRQ_SLICE_NS, interrupts), so this ends. */
	abb_dma_stop_waiters(dev);
	pthread_mutex_lock(&dev->life_lock);
	while (dev->active)
		pthread_cond_wait(&dev->life_cond, &dev->life_lock);
	pthread_mutex_unlock(&dev->life_lock);
	pio_drain(dev);

	abb_dma_fini(dev);
	if (dev->be->quiesce) /* no DMA, no interrupt before buffers go away */
		dev->be->quiesce(dev);
	abb_dmabuf_close_all(dev);
	dev->be->close(dev);
	dev_retire(dev);
}

const char *abb_backend(const abb_dev *dev)
{
	return dev ? dev->be->name : "none";
}

/* Register offset off is a word of BAR0 of the open dev. */
static int check_reg(const char *fn, abb_dev *dev, uint32_t off)
{
	if (off % 4)
		return abb_err(-EINVAL, "%s: offset 0x%x is not a multiple of 4; registers are "
			       "32-bit words", fn, off);
	if ((size_t)off + 4 > dev->bar0_size)
		return abb_err(-EINVAL, "%s: offset 0x%x is past BAR0 (%zu bytes)", fn, off,
			       dev->bar0_size);
	return 0;
}

int abb_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	int rc = abb_dev_check("abb_reg_read", dev);

	if (!rc && !val)
		rc = abb_err(-EINVAL, "abb_reg_read: val is NULL");
	if (!rc)
		rc = check_reg("abb_reg_read", dev, off);
	if (rc || (rc = abb_pio_enter("abb_reg_read", dev)) != 0)
		return rc;
	rc = abb_rd(dev, off, val);
	abb_pio_leave(dev);
	return rc;
}

int abb_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	int rc = abb_dev_check("abb_reg_write", dev);

	if (!rc)
		rc = check_reg("abb_reg_write", dev, off);
	if (rc || (rc = abb_pio_enter("abb_reg_write", dev)) != 0)
		return rc;
	rc = abb_wr(dev, off, val);
	abb_pio_leave(dev);
	return rc;
}

static int check_pio(const char *fn, abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	int rc = abb_dev_check(fn, dev);

	if (rc)
		return rc;
	if (!buf)
		return abb_err(-EINVAL, "%s: buf is NULL", fn);
	if (len == 0)
		return abb_err(-EINVAL, "%s: len is 0", fn);
	if (off >= dev->bar1_size || len > dev->bar1_size - off)
		return abb_err(-EINVAL, "%s: range 0x%x + %zu is past the end of BAR1 (%zu bytes)",
			       fn, off, len, dev->bar1_size);
	return abb_pio_enter(fn, dev);
}

int abb_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	int rc = check_pio("abb_mem_read", dev, off, buf, len);

	if (rc)
		return rc;
	rc = dev->be->mem_read(dev, off, buf, len);
	abb_pio_leave(dev);
	return rc;
}

int abb_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	int rc = check_pio("abb_mem_write", dev, off, buf, len);

	if (rc)
		return rc;
	rc = dev->be->mem_write(dev, off, buf, len);
	abb_pio_leave(dev);
	return rc;
}

int abb_mem_size(abb_dev *dev, size_t *size)
{
	int rc = abb_dev_check("abb_mem_size", dev);

	if (rc)
		return rc;
	if (!size)
		return abb_err(-EINVAL, "abb_mem_size: size is NULL");
	*size = dev->bar1_size;
	return 0;
}

int abb_time_ns(abb_dev *dev, uint64_t *ns)
{
	int rc = abb_dev_check("abb_time_ns", dev);

	if (!rc && !ns)
		rc = abb_err(-EINVAL, "abb_time_ns: ns is NULL");
	if (rc || (rc = abb_pio_enter("abb_time_ns", dev)) != 0)
		return rc;
	rc = dev->be->now_ns(dev, ns);
	abb_pio_leave(dev);
	return rc;
}

/* IER read-modify-write of the given bits only; *was gets the old value.
 * The write is skipped when no bit changes. */
static int ier_update(abb_dev *dev, uint32_t set, uint32_t clear, uint32_t *was)
{
	uint32_t ier;
	int rc;

	pthread_mutex_lock(&dev->irq_lock);
	rc = abb_rd(dev, ABB_REG_IER, &ier);
	if (!rc) {
		if (was)
			*was = ier;
		if (((ier | set) & ~clear) != ier)
			rc = abb_wr(dev, ABB_REG_IER, (ier | set) & ~clear);
	}
	pthread_mutex_unlock(&dev->irq_lock);
	return rc;
}

int abb_ier_set(abb_dev *dev, uint32_t bits, uint32_t *was)
{
	return ier_update(dev, bits, 0, was);
}

int abb_ier_clear(abb_dev *dev, uint32_t bits)
{
	return ier_update(dev, 0, bits, NULL);
}

/* Acknowledges the sources in fired: IER bits cleared, the generator
 * acknowledged (IGEN_ACK), then the backend unmasks the line. */
static int irq_ack(abb_dev *dev, uint32_t fired)
{
	int rc = abb_ier_clear(dev, fired);

	if (!rc && (fired & ABB_ISR_IGEN))
		rc = abb_wr(dev, ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	abb_irq_unmask(dev);
	return rc;
}

/* Before a waiter sleeps on the interrupt count (first sleep, or after a
 * wake that was not for keep): acknowledges every other source that is
 * pending (ISR & IER), as the original driver's handler did for whatever
 * fired. Otherwise an interrupt nobody collected yet would hold the level
 * line high (INTx; on VFIO also masked) and the waiter's own interrupt
 * would be no new edge. The other sources' waiters read their status
 * (STA, or ISR, which keeps the bit) and still see them. */
int abb_irq_ack_others(abb_dev *dev, uint32_t keep)
{
	uint32_t isr, ier, other = 0;
	int rc;

	pthread_mutex_lock(&dev->irq_lock);
	rc = abb_rd(dev, ABB_REG_ISR, &isr);
	if (!rc && (isr & ~keep))
		rc = abb_rd(dev, ABB_REG_IER, &ier);
	else
		ier = 0;
	if (!rc) {
		other = isr & ier & ~keep;
		if (other)
			rc = abb_wr(dev, ABB_REG_IER, ier & ~other);
	}
	pthread_mutex_unlock(&dev->irq_lock);
	if (!rc && other)
		abb_irq_unmask(dev);
	return rc;
}

int abb_irq_wait(abb_dev *dev, unsigned source, int64_t timeout_ns)
{
	const uint32_t all = ABB_ISR_C2H | ABB_ISR_H2C | ABB_ISR_IGEN;
	uint64_t seen, start, now, end, limit_end;
	uint32_t was = 0, isr, fired;
	struct abb_watch wd;
	char what[48];
	int rc = abb_dev_check("abb_irq_wait", dev);

	if (rc)
		return rc;
	if (source == 0 || (source & ~all))
		return abb_err(-EINVAL, "abb_irq_wait: source 0x%x is not a non-empty set of "
			       "ABB_IRQ_DMA_READ|ABB_IRQ_DMA_WRITE|ABB_IRQ_GEN", source);
	if (dev->be->irq_check && (rc = dev->be->irq_check(dev)) != 0)
		return abb_err_prefix(rc, "abb_irq_wait");
	rc = abb_dev_enter("abb_irq_wait", dev);
	if (rc)
		return rc;
	abb_note(dev, ABB_SIM_NOTE_TEXT, ABB_SIM_NOTE_NO_CHANNEL, "irq_wait%s%s%s", (source & ABB_ISR_C2H) ? " C2H" : "",
		 (source & ABB_ISR_H2C) ? " H2C" : "", (source & ABB_ISR_IGEN) ? " IG" : "");

	/* Count first, then enable: an interrupt for the enabled bits after
	 * this point always ends a slice below. */
	seen = dev->be->irq_count(dev);
	rc = dev->be->now_ns(dev, &start);
	if (!rc)
		rc = abb_ier_set(dev, source, &was);
	if (rc) {
		abb_err_prefix(rc, "abb_irq_wait");
		goto out;
	}
	end = abb_deadline(start, timeout_ns);
	limit_end = dev->wait_limit_ns ? abb_deadline(start, (int64_t)dev->wait_limit_ns) :
					 UINT64_MAX;
	abb_watch_init(&wd);
	snprintf(what, sizeof what, "no interrupt from source 0x%x", source);
	for (bool woke = true;; woke = rc == 0) {
		uint64_t stop = end < limit_end ? end : limit_end;
		int64_t slice = ABB_IRQ_SLICE_NS;

		rc = abb_rd(dev, ABB_REG_ISR, &isr);
		if (rc)
			break;
		fired = isr & source;
		if (!fired && woke && (rc = abb_irq_ack_others(dev, source)) != 0)
			break;
		if (fired) {
			rc = irq_ack(dev, fired);
			/* give back the other enable bits this call set */
			if (!rc)
				rc = abb_ier_clear(dev, source & ~was & ~fired);
			if (rc)
				abb_err_prefix(rc, "abb_irq_wait: acknowledging");
			else
				rc = (int)fired;
			goto out;
		}
		if (abb_dev_closing(dev)) {
			rc = abb_err(-ECANCELED, "abb_irq_wait: abb_close() was called while "
				     "waiting");
			break;
		}
		/* on the simulator: nothing happens on the link, so no interrupt
		 * can come (a hung or idle board) */
		if ((rc = abb_watch_check(dev, &wd, what)) != 0)
			break;
		rc = dev->be->now_ns(dev, &now);
		if (rc)
			break;
		if (now >= stop) {
			if (stop == end)
				rc = abb_err(-ETIMEDOUT, "abb_irq_wait: no interrupt from source "
					     "0x%x within %lld ns (device time)", source,
					     (long long)timeout_ns);
			else
				rc = abb_err(-ETIMEDOUT, "abb_irq_wait: no interrupt from source "
					     "0x%x within the wait limit of %llu ms (device time; "
					     "ABB_WAIT_LIMIT_MS)", source,
					     (unsigned long long)(dev->wait_limit_ns / 1000000));
			break;
		}
		if (stop - now < (uint64_t)slice)
			slice = (int64_t)(stop - now);
		abb_watch_before_sleep(dev, &wd);
		rc = dev->be->irq_wait(dev, &seen, slice);
		abb_watch_after_sleep(dev, &wd);
		if (rc && rc != -ETIMEDOUT)
			break;
	}
	/* Give back the enable bits this call set. */
	if (abb_ier_clear(dev, source & ~was) == 0)
		abb_irq_unmask(dev);
	if (rc != -ETIMEDOUT && rc != -ECANCELED)
		abb_err_prefix(rc, "abb_irq_wait");
out:
	abb_dev_leave(dev);
	return rc;
}
