/*
 * daq_device.c - a board as the DAQ layer sees it (DABC's PCIBoardDevice /
 * AbbDevice): the open abb_dev, the DMA mapping of every pool buffer by
 * buffer id, the event counter of the 16-byte header, and the reference model's
 * front-end event source and engine mode.
 *
 * Mapping: one table per pool, indexed by buffer id. A pool buffer is
 * mapped once, the first time the device sees its pool, and the buffers a
 * pool gained since (its generation changed) are mapped when the device
 * next looks at it. Both channels share the table: a pool used by a
 * readout and a writer of the same board is mapped once (libabb refuses
 * overlapping mappings, and a second mapping would only cost).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>

#include "daq_priv.h"

struct poolmap {
	abb_daq_pool *pool;
	unsigned gen;
	unsigned n;
	abb_dmabuf **map;
	struct poolmap *next;
};

struct abb_daq_device {
	abb_dev *dev;
	int own;
	unsigned board;
	pthread_mutex_t lock;
	struct poolmap *maps;
	atomic_uint_fast64_t evcount;
	/* transports using the device (lock): abb_daq_device_close while
	 * there are any only marks it, the last one's destroy closes it */
	unsigned users;
	bool close_pending;
};

/* The unique id of an event is board << 48 | counter: 16 bits of board
 * number (a larger one gave other boards' ids). */
#define DAQ_BOARD_MAX 0xffffu

static int board_ok(const char *fn, unsigned board)
{
	if (board > DAQ_BOARD_MAX)
		return abb_err(-EINVAL, "%s: board number %u; at most %u (16 bits of the event "
			       "header's unique id)", fn, board, DAQ_BOARD_MAX);
	return 0;
}

static int device_new(abb_daq_device **out, abb_dev *dev, int own, unsigned board)
{
	abb_daq_device *d = calloc(1, sizeof *d);

	if (!d)
		return abb_err(-ENOMEM, "DAQ device: no memory");
	d->dev = dev;
	d->own = own;
	d->board = board;
	daq_mutex_init(&d->lock); /* taken for every DMA start */
	*out = d;
	return 0;
}

int abb_daq_device_open(abb_daq_device **out, const struct abb_daq_params *p)
{
	abb_dev *dev;
	int rc;

	if (!out)
		return abb_err(-EINVAL, "abb_daq_device_open: out is NULL");
	*out = NULL;
	if (p && p->bar != 1) /* BAR1 is the only DMA peripheral space */
		return abb_err(-EINVAL, "abb_daq_device_open: BAR=%u; the board's DMA peripheral "
			       "space is BAR 1", p->bar);
	if (p && (rc = board_ok("abb_daq_device_open", p->board)))
		return rc;
	rc = abb_open(&dev, p && p->device[0] ? p->device : NULL);
	if (rc)
		return rc;
	rc = device_new(out, dev, 1, p ? p->board : 0);
	if (rc)
		abb_close(dev);
	return rc;
}

int abb_daq_device_attach(abb_daq_device **out, abb_dev *dev, unsigned board)
{
	if (!out || !dev)
		return abb_err(-EINVAL, "abb_daq_device_attach: %s is NULL", !out ? "out" : "dev");
	*out = NULL;
	if (board_ok("abb_daq_device_attach", board))
		return -EINVAL;
	return device_new(out, dev, 0, board);
}

abb_dev *abb_daq_device_dev(abb_daq_device *d)
{
	return d ? d->dev : NULL;
}

unsigned daq_device_board(const abb_daq_device *d)
{
	return d->board;
}

uint64_t daq_device_next_event(abb_daq_device *d)
{
	return atomic_fetch_add_explicit(&d->evcount, 1, memory_order_relaxed);
}

/* With d->lock held: the table of pool, created if needed, with every
 * buffer mapped. */
static int poolmap_update(abb_daq_device *d, abb_daq_pool *pool, struct poolmap **out)
{
	struct poolmap *pm;
	unsigned gen = abb_daq_pool_generation(pool), n;

	for (pm = d->maps; pm; pm = pm->next)
		if (pm->pool == pool)
			break;
	if (!pm) {
		pm = calloc(1, sizeof *pm);
		if (!pm)
			return -ENOMEM;
		pm->pool = pool;
		pm->gen = gen - 1; /* forces the mapping below */
		pm->next = d->maps;
		d->maps = pm;
		daq_pool_mapped(pool, 1);
	}
	if (pm->gen != gen) {
		n = abb_daq_pool_size(pool);
		if (n > pm->n) {
			abb_dmabuf **map = realloc(pm->map, n * sizeof *map);

			if (!map)
				return -ENOMEM;
			memset(map + pm->n, 0, (n - pm->n) * sizeof *map);
			pm->map = map;
		}
		for (unsigned i = pm->n; i < n; i++) {
			abb_daq_buf *b = abb_daq_pool_buf(pool, i);
			int rc = abb_dmabuf_map(d->dev, b->data, b->size, &pm->map[i]);

			if (rc) {
				pm->n = i; /* the ones before stay mapped */
				return rc;
			}
		}
		pm->n = n;
		pm->gen = gen;
	}
	*out = pm;
	return 0;
}

int abb_daq_device_map_pool(abb_daq_device *d, abb_daq_pool *pool)
{
	struct poolmap *pm;
	int rc;

	if (!d || !pool)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	rc = poolmap_update(d, pool, &pm);
	pthread_mutex_unlock(&d->lock);
	return rc;
}

int daq_device_dmabuf(abb_daq_device *d, abb_daq_buf *b, abb_dmabuf **dmabuf)
{
	struct poolmap *pm;
	int rc;

	pthread_mutex_lock(&d->lock);
	/* hot path: the pool's table (a device has one per pool of its
	 * modules, a short list), with the buffer mapped (ids never move) */
	for (pm = d->maps; pm && pm->pool != b->pool; pm = pm->next)
		;
	if (pm && b->id < pm->n) {
		*dmabuf = pm->map[b->id];
		pthread_mutex_unlock(&d->lock);
		return 0;
	}
	rc = poolmap_update(d, b->pool, &pm);
	if (!rc && b->id >= pm->n)
		rc = -ENOENT;
	if (!rc)
		*dmabuf = pm->map[b->id];
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* Unmaps every buffer of pm; frees pm when all are unmapped. Else (a
 * buffer in a running DMA: -EBUSY) returns the first error and keeps pm
 * with the buffers still mapped, so that nothing forgets them (the error
 * was ignored and the table freed before). */
static int poolmap_free(struct poolmap *pm)
{
	int rc = 0;

	for (unsigned i = 0; i < pm->n; i++) {
		int r = pm->map[i] ? abb_dmabuf_unmap(pm->map[i]) : 0;

		if (!r)
			pm->map[i] = NULL;
		else if (!rc)
			rc = r;
	}
	if (rc)
		return rc;
	daq_pool_mapped(pm->pool, -1);
	free(pm->map);
	free(pm);
	return 0;
}

int abb_daq_device_unmap_pool(abb_daq_device *d, abb_daq_pool *pool)
{
	struct poolmap **pp, *pm;
	int rc = 0;

	if (!d || !pool)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	for (pp = &d->maps; (pm = *pp); pp = &pm->next) {
		if (pm->pool == pool) {
			struct poolmap *next = pm->next;

			rc = poolmap_free(pm);
			if (!rc)
				*pp = next;
			break;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

void abb_daq_device_cleanup(abb_daq_device *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	for (struct poolmap **pp = &d->maps, *pm; (pm = *pp);) {
		struct poolmap *next = pm->next;

		if (poolmap_free(pm) == 0)
			*pp = next; /* else kept: still mapped */
		else
			pp = &pm->next;
	}
	atomic_store(&d->evcount, 0);
	pthread_mutex_unlock(&d->lock);
}

static void device_free(abb_daq_device *d);

void daq_device_hold(abb_daq_device *d)
{
	pthread_mutex_lock(&d->lock);
	d->users++;
	pthread_mutex_unlock(&d->lock);
}

void daq_device_drop(abb_daq_device *d)
{
	bool last;

	pthread_mutex_lock(&d->lock);
	last = --d->users == 0 && d->close_pending;
	pthread_mutex_unlock(&d->lock);
	if (last)
		device_free(d);
}

void abb_daq_device_close(abb_daq_device *d)
{
	bool used;

	if (!d)
		return;
	/* a module or transport still running on it (destroyed after the
	 * device, against the documented order): closing now would pull the
	 * board from under its thread */
	pthread_mutex_lock(&d->lock);
	used = d->users != 0;
	d->close_pending = used;
	pthread_mutex_unlock(&d->lock);
	if (!used)
		device_free(d);
}

static void device_free(abb_daq_device *d)
{
	abb_daq_device_cleanup(d);
	if (d->own)
		abb_close(d->dev); /* waits for running DMAs, unmaps what is left */
	while (d->maps) { /* tables of buffers that were still busy */
		struct poolmap *pm = d->maps;

		d->maps = pm->next;
		daq_pool_mapped(pm->pool, -1); /* abb_close unmapped them */
		free(pm->map);
		free(pm);
	}
	pthread_mutex_destroy(&d->lock);
	free(d);
}

int abb_daq_evs_start(abb_daq_device *d, uint16_t src, unsigned payload_dws, unsigned gap,
		      uint32_t *addr)
{
	size_t mem;
	uint32_t a;
	int rc;

	if (!d || payload_dws > 0xfff || gap > 0xffff)
		return -EINVAL;
	rc = abb_mem_size(d->dev, &mem);
	if (rc)
		return rc;
	a = (uint32_t)(mem - 16);
	rc = abb_reg_write(d->dev, ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
	if (!rc)
		rc = abb_reg_write(d->dev, ABB_REG_EVS_SRC, src);
	if (!rc)
		rc = abb_reg_write(d->dev, ABB_REG_EVS_SIZE, payload_dws);
	if (!rc)
		rc = abb_reg_write(d->dev, ABB_REG_EVS_GAP, gap);
	if (!rc)
		rc = abb_reg_write(d->dev, ABB_REG_EVS_ADDR, a);
	if (!rc)
		rc = abb_reg_write(d->dev, ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE);
	if (!rc && addr)
		*addr = a;
	return rc;
}

int abb_daq_evs_stop(abb_daq_device *d)
{
	if (!d)
		return -EINVAL;
	return abb_reg_write(d->dev, ABB_REG_EVS_CTRL, 0);
}

int abb_daq_shared_engine(abb_daq_device *d, int on)
{
	uint32_t gcr;
	int rc;

	if (!d)
		return abb_err(-EINVAL, "abb_daq_shared_engine: device is NULL");
	if (on != 0 && on != 1)
		return abb_err(-EINVAL, "abb_daq_shared_engine: on=%d; 0 (independent) or 1 (shared)",
			       on);
	rc = abb_reg_read(d->dev, ABB_REG_GCR, &gcr);
	if (rc)
		return rc;
	gcr &= ~(ABB_GCR_SOFT_RESET | ABB_GCR_SHARED_ENGINE);
	return abb_reg_write(d->dev, ABB_REG_GCR, gcr | (on ? ABB_GCR_SHARED_ENGINE : 0));
}
