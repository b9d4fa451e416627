/*
 * abb_dmabuf.c - host memory mapped for DMA, and the registry of handles.
 *
 * A handle must be checkable after it was unmapped (a double unmap, or a
 * DMA on a stale handle, is a user error to report, not a crash), and a
 * stale handle must never come back to life as another buffer (abb.h
 * promises -EINVAL for an unmapped buffer; slots were reused after 1,024
 * unmaps before, and a stale handle then unmapped somebody else's buffer).
 * So a handle's address is never handed out twice: handles are carved in
 * order from slabs of anonymous memory that stay reserved while the
 * library is loaded, and the registry only compares pointer values against
 * the slabs before it reads a handle. When every handle of a slab is dead
 * its pages go back to the system (MADV_DONTNEED: they read as zeros
 * afterwards, which is "not live" too); only the address range stays
 * reserved. Cost of a map/unmap cycle: sizeof(struct abb_dmabuf) bytes of
 * address space, no memory.
 *
 * Access: abb_dmabuf_map looks up the range in /proc/self/maps: memory
 * that is not mapped or not readable (PROT_NONE) is refused with -EFAULT,
 * read-only memory is mapped for the device to read only (a DMA write, host
 * to board); a DMA read into it is refused at its start (-EACCES). Before,
 * such memory was accepted and the device's first access killed the
 * process with SIGSEGV on the simulator and the reference model.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abb_priv.h"
#include "abb_procmap.h"

/* Under LeakSanitizer (ASan or LSan builds: make sanitize, make fuzz) the
 * slabs are roots: they are mmap'ed, which LSan does not scan, and hold
 * the only pointers to the live handles' segment tables, which it would
 * report as leaks at a check while buffers are mapped. */
#if defined(__SANITIZE_ADDRESS__)
#define ABB_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define ABB_LSAN 1
#endif
#endif
#ifdef ABB_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define ABB_DMABUF_LIVE 0x4c424241u /* "ABBL" */
#define ABB_DMABUF_DEAD 0x44424241u /* "ABBD" */
#define ABB_SLAB_N 4096             /* handles per slab */

struct abb_slab {
	struct abb_slab *next;
	struct abb_dmabuf *e; /* ABB_SLAB_N handles, mmap'ed */
	size_t used, dead;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abb_slab *slabs; /* newest first */

void abb_registry_lock(void)
{
	pthread_mutex_lock(&registry_lock);
}

void abb_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_lock);
}

static size_t slab_bytes(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t b = ABB_SLAB_N * sizeof(struct abb_dmabuf), p = pg > 0 ? (size_t)pg : 4096;

	return (b + p - 1) / p * p;
}

/* The slab of p if p is a handle this library handed out (live or dead).
 * Compares pointer values only. */
static struct abb_slab *slab_of(const abb_dmabuf *p)
{
	for (struct abb_slab *s = slabs; s; s = s->next) {
		uintptr_t a = (uintptr_t)p, lo = (uintptr_t)&s->e[0];

		if (a >= lo && a < (uintptr_t)&s->e[s->used])
			return (a - lo) % sizeof s->e[0] == 0 ? s : NULL;
	}
	return NULL;
}

static bool is_handle(const abb_dmabuf *p)
{
	return slab_of(p) != NULL;
}

/* A handle never handed out before. */
static abb_dmabuf *handle_alloc(void)
{
	if (!slabs || slabs->used == ABB_SLAB_N) {
		struct abb_slab *s = calloc(1, sizeof *s);
		void *m = s ? mmap(NULL, slab_bytes(), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;

		if (m == MAP_FAILED) {
			free(s);
			return NULL;
		}
		s->e = m;
		s->next = slabs;
		slabs = s;
#ifdef ABB_LSAN
		__lsan_register_root_region(m, slab_bytes());
#endif
	}
	return &slabs->e[slabs->used++];
}

/* Takes a live handle off its device list and makes it dead for good. */
static void handle_retire(abb_dmabuf *b)
{
	abb_dev *dev = b->dev;
	struct abb_slab *s = slab_of(b);

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
	if (s && ++s->dead == ABB_SLAB_N)
		(void)madvise(s->e, slab_bytes(), MADV_DONTNEED); /* reads as zeros now */
}

/* ---- what the process's memory allows ---- */

static int mem_access_text(uintptr_t lo, uintptr_t hi);

/* PROCMAP_QUERY (abb_procmap.h): about 1 us per VMA instead of 30 for
 * reading /proc/self/maps here. */

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static int maps_fd = -1, maps_noquery;
static pid_t maps_pid;

/* The access by PROCMAP_QUERY; -ENOTTY when the kernel lacks it. */
static int mem_access_query(uintptr_t lo, uintptr_t hi)
{
	unsigned acc = ABB_ACCESS_DEV_READ | ABB_ACCESS_DEV_WRITE;
	uintptr_t at = lo;
	int rc = 0;

	pthread_mutex_lock(&maps_lock);
	if (maps_noquery) {
		pthread_mutex_unlock(&maps_lock);
		return -ENOTTY;
	}
	if (maps_fd < 0 || maps_pid != getpid()) { /* a forked child: its own maps */
		if (maps_fd >= 0)
			close(maps_fd);
		maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		maps_pid = getpid();
		if (maps_fd < 0) {
			pthread_mutex_unlock(&maps_lock);
			return -ENOTTY; /* the parser says why */
		}
	}
	while (at < hi && acc) {
		struct abb_procmap_query q = {.size = sizeof q, .query_addr = at};

		if (ioctl(maps_fd, ABB_PROCMAP_QUERY, &q) < 0) {
			if (errno == ENOENT) {
				acc = 0; /* not mapped */
				break;
			}
			if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
				maps_noquery = 1;
			rc = -ENOTTY;
			break;
		}
		if (q.vma_start > at || !(q.vma_flags & ABB_PROCMAP_READABLE))
			acc = 0;
		else if (!(q.vma_flags & ABB_PROCMAP_WRITABLE))
			acc &= ~ABB_ACCESS_DEV_WRITE;
		at = (uintptr_t)q.vma_end;
	}
	pthread_mutex_unlock(&maps_lock);
	return rc ? rc : (int)acc;
}

/* ABB_ACCESS_* that every byte of [lo, hi) allows, from /proc/self/maps
 * (PROCMAP_QUERY, or the text: sorted by address, read until the range is
 * covered). 0: some byte is not mapped or not readable. -errno when the
 * file cannot be read. */
static int mem_access(uintptr_t lo, uintptr_t hi)
{
	int q = mem_access_query(lo, hi);

	if (q != -ENOTTY)
		return q;
	return mem_access_text(lo, hi);
}

static int mem_access_text(uintptr_t lo, uintptr_t hi)
{
	char buf[8192];
	size_t have = 0;
	uintptr_t at = lo;
	unsigned acc = ABB_ACCESS_DEV_READ | ABB_ACCESS_DEV_WRITE;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), done = 0;

	if (fd < 0)
		return -errno;
	while (!done) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		char *line = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		while (!done && (nl = strchr(line, '\n'))) {
			unsigned long a, b;
			char perm[5];

			*nl = 0;
			if (sscanf(line, "%lx-%lx %4s", &a, &b, perm) == 3 && b > at) {
				if (a > at) {
					acc = 0; /* a hole */
					done = 1;
				} else {
					if (perm[0] != 'r')
						acc = 0, done = 1;
					else if (perm[1] != 'w')
						acc &= ~ABB_ACCESS_DEV_WRITE;
					at = b;
					if (at >= hi)
						done = 1;
				}
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
	}
	close(fd);
	return at >= hi ? (int)acc : 0;
}

int abb_dmabuf_can(const char *fn, const abb_dmabuf *buf, bool dev_writes)
{
	if (dev_writes && !(buf->access & ABB_ACCESS_DEV_WRITE))
		return abb_err(-EACCES, "%s: buf %p is read-only memory: a DMA read (board to host) "
			       "cannot write it; map writable memory", fn, (const void *)buf);
	if (!(buf->access & ABB_ACCESS_DEV_READ))
		return abb_err(-EACCES, "%s: buf %p is not readable memory", fn, (const void *)buf);
	return 0;
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
	int rc, acc;

	if (!dev || !ptr || !out)
		return abb_err(-EINVAL, "abb_dmabuf_map: %s is NULL",
			       !dev ? "dev" : !ptr ? "ptr" : "buf");
	*out = NULL;
	rc = abb_dev_check("abb_dmabuf_map", dev);
	if (rc)
		return rc;
	if (len == 0)
		return abb_err(-EINVAL, "abb_dmabuf_map: len is 0");
	if (len > UINTPTR_MAX - lo)
		return abb_err(-EINVAL, "abb_dmabuf_map: ptr %p + len %zu wraps around the address "
			       "space", ptr, len);

	acc = mem_access(lo, lo + len);
	if (acc < 0)
		return abb_err(acc, "abb_dmabuf_map: cannot read /proc/self/maps to check "
			       "[%p, +%zu): %s", ptr, len, strerror(-acc));
	if (acc == 0)
		return abb_err(-EFAULT, "abb_dmabuf_map: [%p, +%zu) is not all readable memory of "
			       "this process (not mapped, or PROT_NONE): the device could not "
			       "use it", ptr, len);

	/* counted as a PIO call: abb_close waits for it before it unmaps the
	 * device's buffers (a buffer mapped after that would outlive it) */
	rc = abb_pio_enter("abb_dmabuf_map", dev);
	if (rc)
		return rc;
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
		.access = (unsigned)acc,
		.next = dev->bufs,
	};
	if (dev->bufs)
		dev->bufs->prev = b;
	dev->bufs = b;
	*out = b;
out:
	abb_registry_unlock();
	abb_pio_leave(dev);
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

/* The pieces are the segment table the backend's map returned (every
 * backend fills one); read under the registry lock, which unmap and
 * abb_close take before they retire a handle. */
int abb_dmabuf_pieces(const abb_dmabuf *buf, size_t *count)
{
	int rc;

	if (!count)
		return abb_err(-EINVAL, "abb_dmabuf_pieces: count is NULL");
	*count = 0;
	abb_registry_lock();
	rc = abb_dmabuf_check_locked("abb_dmabuf_pieces", NULL, buf);
	if (!rc)
		*count = buf->nsegs;
	abb_registry_unlock();
	return rc;
}

int abb_dmabuf_piece(const abb_dmabuf *buf, size_t i, uint64_t *dev_addr, uint64_t *len)
{
	int rc;

	if (!dev_addr || !len)
		return abb_err(-EINVAL, "abb_dmabuf_piece: %s is NULL", !dev_addr ? "dev_addr" : "len");
	abb_registry_lock();
	rc = abb_dmabuf_check_locked("abb_dmabuf_piece", NULL, buf);
	if (!rc && i >= buf->nsegs)
		rc = abb_err(-ERANGE, "abb_dmabuf_piece: piece %zu of buf %p: it has %zu (0..%zu)", i,
			     (const void *)buf, buf->nsegs, buf->nsegs - 1);
	if (!rc) {
		*dev_addr = buf->segs[i].iova;
		*len = buf->segs[i].len;
	}
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
#ifdef ABB_LSAN
		__lsan_unregister_root_region(s->e, slab_bytes());
#endif
		munmap(s->e, slab_bytes());
		free(s);
	}
}
