/*
 * abb_dmabuf.c - host memory mapped for DMA, and the registry of handles.
 *
 * A handle must be checkable after it was unmapped (a double unmap, or a
 * DMA on a stale handle, is a user error to report, not a crash). So
 * handles are carved from slabs that stay allocated while the library is
 * loaded, and the registry only compares pointer values against the slabs
 * before it reads a handle. An unmapped handle is marked dead and joins a
 * FIFO; it is handed out again only when more than ABB_DEAD_KEEP dead
 * handles exist, so a stale handle is recognised as dead unless that many
 * buffers were unmapped since. Memory use stays bounded by the number of
 * live buffers plus ABB_DEAD_KEEP.
 */
#include <errno.h>
#include <stdlib.h>

#include "abb_priv.h"

#define ABB_DMABUF_LIVE 0x4c424241u /* "ABBL" */
#define ABB_DMABUF_DEAD 0x44424241u /* "ABBD" */
#define ABB_SLAB_N 256
#define ABB_DEAD_KEEP 1024

struct abb_slab {
	struct abb_slab *next;
	size_t used;
	struct abb_dmabuf e[ABB_SLAB_N];
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abb_slab *slabs;
static struct abb_dmabuf *dead_head, *dead_tail;
static size_t dead_count;

void abb_registry_lock(void)
{
	pthread_mutex_lock(&registry_lock);
}

void abb_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_lock);
}

/* Is p a handle this library handed out (live or dead)? Compares pointer
 * values only. */
static bool is_handle(const abb_dmabuf *p)
{
	for (const struct abb_slab *s = slabs; s; s = s->next) {
		uintptr_t a = (uintptr_t)p, lo = (uintptr_t)&s->e[0];

		if (a >= lo && a < (uintptr_t)&s->e[s->used])
			return (a - lo) % sizeof s->e[0] == 0;
	}
	return false;
}

static abb_dmabuf *handle_alloc(void)
{
	abb_dmabuf *b;

	if (dead_count > ABB_DEAD_KEEP) {
		b = dead_head;
		dead_head = b->next;
		if (!dead_head)
			dead_tail = NULL;
		dead_count--;
		return b;
	}
	if (!slabs || slabs->used == ABB_SLAB_N) {
		struct abb_slab *s = calloc(1, sizeof *s);

		if (!s)
			return NULL;
		s->next = slabs;
		slabs = s;
	}
	return &slabs->e[slabs->used++];
}

/* Takes a live handle off its device list and makes it dead. */
static void handle_retire(abb_dmabuf *b)
{
	abb_dev *dev = b->dev;

	if (b->prev)
		b->prev->next = b->next;
	else
		dev->bufs = b->next;
	if (b->next)
		b->next->prev = b->prev;
	free(b->segs);
	b->segs = NULL;
	b->nsegs = 0;
	b->dev = NULL;
	b->magic = ABB_DMABUF_DEAD;
	b->prev = NULL;
	b->next = NULL;
	if (dead_tail)
		dead_tail->next = b;
	else
		dead_head = b;
	dead_tail = b;
	dead_count++;
}

int abb_dmabuf_check_locked(const char *fn, abb_dev *dev, const abb_dmabuf *buf)
{
	if (!buf)
		return abb_err(-EINVAL, "%s: buf is NULL; map the memory with abb_dmabuf_map() first",
			       fn);
	if (!is_handle(buf))
		return abb_err(-EINVAL, "%s: buf %p is not a handle returned by abb_dmabuf_map()",
			       fn, (const void *)buf);
	if (buf->magic != ABB_DMABUF_LIVE)
		return abb_err(-EINVAL, "%s: buf %p was unmapped (or its device closed); map the "
			       "memory again", fn, (const void *)buf);
	if (dev && buf->dev != dev)
		return abb_err(-EINVAL, "%s: buf %p is mapped on another device", fn,
			       (const void *)buf);
	return 0;
}

int abb_dmabuf_map(abb_dev *dev, void *ptr, size_t len, abb_dmabuf **out)
{
	struct abb_seg *segs = NULL;
	size_t nsegs = 0;
	abb_dmabuf *b;
	uintptr_t lo = (uintptr_t)ptr;
	int rc;

	if (!dev || !ptr || !out)
		return abb_err(-EINVAL, "abb_dmabuf_map: %s is NULL",
			       !dev ? "dev" : !ptr ? "ptr" : "buf");
	*out = NULL;
	if (len == 0)
		return abb_err(-EINVAL, "abb_dmabuf_map: len is 0");
	if (len > UINTPTR_MAX - lo)
		return abb_err(-EINVAL, "abb_dmabuf_map: ptr %p + len %zu wraps around the address "
			       "space", ptr, len);

	abb_registry_lock();
	for (b = dev->bufs; b; b = b->next) {
		uintptr_t blo = (uintptr_t)b->ptr;

		if (lo < blo + b->len && blo < lo + len) {
			rc = abb_err(-EEXIST, "abb_dmabuf_map: [%p, +%zu) overlaps the mapped buffer "
				     "[%p, +%zu); unmap that one first or map one buffer that "
				     "covers both", ptr, len, b->ptr, b->len);
			goto out;
		}
	}
	rc = dev->be->map(dev, ptr, len, &segs, &nsegs);
	if (rc) {
		abb_err_prefix(rc, "abb_dmabuf_map");
		goto out;
	}
	b = handle_alloc();
	if (!b) {
		dev->be->unmap(dev, ptr, len);
		free(segs);
		rc = abb_err(-ENOMEM, "abb_dmabuf_map: out of memory");
		goto out;
	}
	*b = (abb_dmabuf){
		.magic = ABB_DMABUF_LIVE,
		.dev = dev,
		.ptr = ptr,
		.len = len,
		.segs = segs,
		.nsegs = nsegs,
		.next = dev->bufs,
	};
	if (dev->bufs)
		dev->bufs->prev = b;
	dev->bufs = b;
	*out = b;
out:
	abb_registry_unlock();
	return rc;
}

int abb_dmabuf_unmap(abb_dmabuf *buf)
{
	int rc;

	abb_registry_lock();
	rc = abb_dmabuf_check_locked("abb_dmabuf_unmap", NULL, buf);
	if (rc)
		goto out;
	if (buf->users) {
		rc = abb_err(-EBUSY, "abb_dmabuf_unmap: a DMA into or out of buf %p is running; "
			     "wait for it (abb_dma_*_wait) before unmapping", (void *)buf);
		goto out;
	}
	rc = buf->dev->be->unmap(buf->dev, buf->ptr, buf->len);
	if (rc)
		abb_err_prefix(rc, "abb_dmabuf_unmap");
	handle_retire(buf);
out:
	abb_registry_unlock();
	return rc;
}

void abb_dmabuf_close_all(abb_dev *dev)
{
	abb_registry_lock();
	while (dev->bufs) {
		abb_dmabuf *b = dev->bufs;

		dev->be->unmap(dev, b->ptr, b->len);
		handle_retire(b);
	}
	abb_registry_unlock();
}

int abb_seg_iova(const struct abb_seg *segs, size_t nsegs, uint64_t off, uint64_t *iova,
		 uint64_t *contig)
{
	for (size_t i = 0; i < nsegs; i++) {
		if (off < segs[i].len) {
			*iova = segs[i].iova + off;
			*contig = segs[i].len - off;
			return 0;
		}
		off -= segs[i].len;
	}
	return -ERANGE;
}

/* Frees the slabs when the library is unloaded (for leak checkers). */
__attribute__((destructor)) static void registry_free(void)
{
	while (slabs) {
		struct abb_slab *s = slabs;

		slabs = s->next;
		for (size_t i = 0; i < s->used; i++)
			free(s->e[i].segs);
		free(s);
	}
	dead_head = dead_tail = NULL;
	dead_count = 0;
}
