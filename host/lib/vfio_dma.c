/*
 * vfio_dma.c - buffers mapped for the board's DMA on the vfio backend.
 *
 * A buffer is rounded out to whole granules, gets an IOVA block from the
 * allocator (vfio_iova.c) and is mapped there by the kernel: legacy path
 * VFIO_IOMMU_MAP_DMA on the container, iommufd path IOMMU_IOAS_MAP
 * (FIXED_IOVA) on the IOAS. It is mapped read+write; if the kernel
 * refuses write access (EFAULT: read-only memory) it is mapped read-only,
 * so the device may only read it (host-to-board DMA). The locked-memory
 * limit (RLIMIT_MEMLOCK) is compared with what the device has pinned
 * before each map; ENOMEM names the numbers and the fix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <linux/vfio.h>

#include "vfio_iommufd_abi.h"
#include "vfio_priv.h"

/* The -ENOMEM of a map that the locked-memory limit refused (or would). */
static int memlock_error(struct vfio *v, size_t len, uint64_t size, const struct rlimit *rl)
{
	return abb_err(-ENOMEM, "vfio: mapping %zu bytes (%llu pinned) would exceed the "
		       "locked-memory limit: %llu bytes already pinned for this board, limit "
		       "RLIMIT_MEMLOCK %llu bytes; raise it (ulimit -l unlimited, or in "
		       "/etc/security/limits.conf: youruser - memlock unlimited, then log in "
		       "again)", len, (unsigned long long)size, (unsigned long long)v->pinned,
		       (unsigned long long)rl->rlim_cur);
}

static const char *map_name(const struct vfio *v)
{
	return v->iommufd >= 0 ? "IOMMU_IOAS_MAP" : "VFIO_IOMMU_MAP_DMA";
}

/* One kernel mapping of m at its IOVA: -1 and errno on failure. */
static int dma_map_one(struct vfio *v, const struct vmap *m, uintptr_t va, int read_only)
{
	if (v->iommufd >= 0) {
		struct iommu_ioas_map im = {
			.size = sizeof im,
			.flags = IOMMU_IOAS_MAP_FIXED_IOVA | IOMMU_IOAS_MAP_READABLE |
				 (read_only ? 0 : IOMMU_IOAS_MAP_WRITEABLE),
			.ioas_id = v->ioas,
			.user_va = va,
			.length = m->size,
			.iova = m->iova,
		};

		return v->sys.ioctl(v->iommufd, IOMMU_IOAS_MAP, &im);
	} else {
		struct vfio_iommu_type1_dma_map dm = {
			.argsz = sizeof dm,
			.flags = VFIO_DMA_MAP_FLAG_READ | (read_only ? 0 : VFIO_DMA_MAP_FLAG_WRITE),
			.vaddr = va,
			.iova = m->iova,
			.size = m->size,
		};

		return v->sys.ioctl(v->container, VFIO_IOMMU_MAP_DMA, &dm);
	}
}

/* Removes the kernel mapping of m: 0 or -errno (message). */
static int dma_unmap_one(struct vfio *v, const struct vmap *m)
{
	if (v->iommufd >= 0) {
		struct iommu_ioas_unmap iu = {
			.size = sizeof iu, .ioas_id = v->ioas, .iova = m->iova, .length = m->size};

		if (v->sys.ioctl(v->iommufd, IOMMU_IOAS_UNMAP, &iu))
			return abb_err(-errno, "vfio: IOMMU_IOAS_UNMAP of IOVA 0x%llx: %s",
				       (unsigned long long)m->iova, strerror(errno));
	} else {
		struct vfio_iommu_type1_dma_unmap um = {
			.argsz = sizeof um, .iova = m->iova, .size = m->size};

		if (v->sys.ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &um))
			return abb_err(-errno, "vfio: VFIO_IOMMU_UNMAP_DMA: %s", strerror(errno));
	}
	return 0;
}

int vfio_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	struct vfio *v = V(dev);
	uint64_t g = v->granule;
	uintptr_t start = (uintptr_t)ptr & ~(uintptr_t)(g - 1);
	uintptr_t end = ((uintptr_t)ptr + len + g - 1) & ~(uintptr_t)(g - 1);
	struct vmap *m = calloc(1, sizeof *m);
	struct abb_seg *s = calloc(1, sizeof *s);
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	int over, rc;

	if (!m || !s) {
		free(m);
		free(s);
		return abb_err(-ENOMEM, "out of memory");
	}
	m->ptr = ptr;
	m->size = end - start;
	pthread_mutex_lock(&v->lock);
	/* The kernel is the judge (CAP_IPC_LOCK lifts the limit), but the
	 * numbers are known here: a refusal then names them. */
	over = v->sys.getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	       v->pinned + m->size > rl.rlim_cur;
	rc = vfio_iova_alloc(v, m);
	if (!rc) {
		int r = dma_map_one(v, m, start, 0);

		if (r && errno == EFAULT) {
			/* read-only memory: the device may only read it */
			m->read_only = 1;
			r = dma_map_one(v, m, start, 1);
		}
		if (r) {
			int err = errno;

			if (err == ENOMEM && over)
				rc = memlock_error(v, len, m->size, &rl);
			else if (err == ENOMEM)
				rc = abb_err(-ENOMEM, "vfio: %s of %zu bytes at IOVA 0x%llx: "
					     "%s (%llu bytes pinned, RLIMIT_MEMLOCK %lld; the kernel "
					     "counts all locked memory of the process: ulimit -l)",
					     map_name(v), len,
					     (unsigned long long)m->iova, strerror(err),
					     (unsigned long long)v->pinned,
					     rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur);
			else
				rc = abb_err(-err, "vfio: %s of %zu bytes at IOVA 0x%llx "
					     "(IOMMU page %llu bytes): %s", map_name(v), len,
					     (unsigned long long)m->iova, (unsigned long long)g,
					     strerror(err));
			vfio_iova_unlink(v, m);
		} else {
			v->pinned += m->size;
			vfio_iova_commit(v, m);
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (rc) {
		free(m);
		free(s);
		return rc;
	}
	s->iova = m->iova + ((uintptr_t)ptr - start);
	s->len = len;
	*segs = s;
	*nsegs = 1;
	return 0;
}

int vfio_unmap(abb_dev *dev, void *ptr, size_t len)
{
	struct vfio *v = V(dev);
	int rc = -ENOENT;

	pthread_mutex_lock(&v->lock);
	for (struct vmap **l = &v->maps; *l; l = &(*l)->next) {
		struct vmap *m = *l;

		if (m->ptr != ptr)
			continue;
		rc = dma_unmap_one(v, m);
		v->pinned -= m->size;
		*l = m->next;
		free(m);
		break;
	}
	pthread_mutex_unlock(&v->lock);
	if (rc == -ENOENT) /* the message only when it is one (abb_last_error) */
		return abb_err(-ENOENT, "vfio: %p is not mapped", ptr);
	return rc;
}

/* Normally nothing is left (the core unmapped every buffer before close);
 * any left go now. The caller has turned bus master off. */
void vfio_dma_release(struct vfio *v)
{
	while (v->maps) {
		struct vmap *m = v->maps;

		dma_unmap_one(v, m);
		v->maps = m->next;
		free(m);
	}
}
