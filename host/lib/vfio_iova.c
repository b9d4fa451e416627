/*
 * vfio_iova.c - the IOVA allocator of the vfio backend: the device
 * addresses its buffers get.
 *
 * Next fit (a freed IOVA is not reused at once, so a stale device address
 * faults) inside the IOVA ranges the kernel reports (the legacy path's
 * VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, the iommufd path's
 * IOMMU_IOAS_IOVA_RANGES), preferring [256 MiB, 4 GiB), in units of the
 * granule (the IOMMU's smallest page, at least the CPU's). Without a
 * reported range: [256 MiB, 0xf0000000). The blocks in use are the
 * device's mappings (v->maps, sorted by IOVA).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vfio_priv.h"

#define VFIO_IOVA_BASE 0x10000000ull /* 256 MiB: stays clear of low legacy ranges */
#define VFIO_IOVA_END 0xf0000000ull  /* below the x86 MSI window at 0xfee00000 */

int vfio_iova_add_range(struct vfio *v, uint64_t first, uint64_t last)
{
	uint64_t lo, hi;

	if (v->nranges == VFIO_MAX_RANGES)
		return -ENOSPC;
	lo = (first + v->granule - 1) & ~(v->granule - 1);
	hi = last == UINT64_MAX ? last & ~(v->granule - 1) : (last + 1) & ~(v->granule - 1);
	if (hi > lo)
		v->ranges[v->nranges++] = (struct iova_range){lo, hi};
	return 0;
}

/* The fallback window, or the reported ranges clipped to [256 MiB, 4 GiB)
 * where that leaves any; the cursor at the bottom. */
void vfio_iova_finish(struct vfio *v)
{
	if (!v->ranges_reported) {
		v->ranges[0] = (struct iova_range){VFIO_IOVA_BASE, VFIO_IOVA_END};
		v->nranges = 1;
	} else {
		/* Prefer [256 MiB, 4 GiB) where the kernel allows it: a 32-bit
		 * address is what the board's engine was first built for. */
		struct iova_range low[VFIO_MAX_RANGES];
		unsigned n = 0;

		for (unsigned i = 0; i < v->nranges; i++) {
			uint64_t lo = v->ranges[i].lo, hi = v->ranges[i].hi;

			if (lo < VFIO_IOVA_BASE)
				lo = VFIO_IOVA_BASE;
			if (hi > 0x100000000ull)
				hi = 0x100000000ull;
			if (hi > lo)
				low[n++] = (struct iova_range){lo, hi};
		}
		if (n) {
			memcpy(v->ranges, low, n * sizeof low[0]);
			v->nranges = n;
		}
	}
	v->cursor = v->nranges ? v->ranges[0].lo : 0;
}

/* A free IOVA block of size bytes at or above from inside range r, or 0. */
static uint64_t fit(const struct vfio *v, const struct iova_range *r, uint64_t from,
		    uint64_t size)
{
	uint64_t at = from > r->lo ? from : r->lo;

	for (const struct vmap *m = v->maps; m; m = m->next) {
		if (m->iova + m->size <= at)
			continue;
		if (m->iova >= at + size || at + size < at)
			break;
		at = m->iova + m->size; /* overlaps: try after it */
	}
	if (at + size < at || at + size > r->hi)
		return 0;
	return at;
}

/* Next fit inside the IOVA ranges, from the cursor, then from the bottom;
 * links m in (sorted by iova). */
int vfio_iova_alloc(struct vfio *v, struct vmap *m)
{
	uint64_t at = 0;
	struct vmap **link;
	char list[256] = "";
	size_t used = 0;

	for (int pass = 0; pass < 2 && !at; pass++)
		for (unsigned i = 0; i < v->nranges && !at; i++) {
			if (pass == 0 && v->ranges[i].hi <= v->cursor)
				continue;
			at = fit(v, &v->ranges[i], pass ? 0 : v->cursor, m->size);
		}
	if (!at) {
		for (unsigned i = 0; i < v->nranges && used < sizeof list - 48; i++)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s[0x%llx, 0x%llx)",
						 i ? " " : "", (unsigned long long)v->ranges[i].lo,
						 (unsigned long long)v->ranges[i].hi);
		return abb_err(-ENOSPC, "vfio: no free IOVA block of %llu bytes inside the IOMMU's "
			       "%s %s (IOMMU page %llu bytes); unmap buffers",
			       (unsigned long long)m->size,
			       v->ranges_reported ? "reported IOVA ranges" : "default IOVA window",
			       list, (unsigned long long)v->granule);
	}
	m->iova = at; /* the cursor moves when the kernel accepted it: vfio_iova_commit */
	for (link = &v->maps; *link && (*link)->iova < at; link = &(*link)->next)
		;
	m->next = *link;
	*link = m;
	return 0;
}

void vfio_iova_commit(struct vfio *v, const struct vmap *m)
{
	v->cursor = m->iova + m->size;
}

void vfio_iova_unlink(struct vfio *v, struct vmap *m)
{
	for (struct vmap **l = &v->maps; *l; l = &(*l)->next)
		if (*l == m) {
			*l = m->next;
			return;
		}
}
