/*
 * backend_vfio.c - the real board through VFIO (URI "vfio" or
 * "vfio:DDDD:BB:DD.F").
 *
 * Discovery with libpci (its default error hook calls exit(): ours jumps
 * back and turns the message into an error code). The device must be bound
 * to vfio-pci and sit alone (or with other vfio-bound devices) in an IOMMU
 * group. BAR0 (registers) and BAR1 (board memory) are mmap()ed; buffers are
 * mapped with VFIO_IOMMU_MAP_DMA at IOVAs from a first-fit allocator below
 * 4 GiB (the engine's first generation had 32-bit DMA in mind; the
 * descriptors carry high words anyway); the MSI is delivered through an
 * eventfd. Device time is CLOCK_MONOTONIC.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/vfio.h>
#include <pci/pci.h>

#include "abb_priv.h"
#include "abb_vfio.h"

#define VFIO_IOVA_BASE 0x10000000ull /* 256 MiB: stays clear of low legacy ranges */
#define VFIO_IOVA_END 0xf0000000ull  /* below the x86 MSI window at 0xfee00000 */
#define VFIO_IRQ_SLICE_MS 5          /* re-check period of a waiter sharing the eventfd */

/* discovery: abb_vfio_find() in vfio_find.c */

/* ---- the device ----------------------------------------------------- */

struct vmap {
	struct vmap *next;
	void *ptr;        /* as given to map */
	uint64_t iova;    /* of the first page */
	uint64_t size;    /* whole pages */
};

struct vfio {
	int container, group, device, irq_fd;
	char bdf[32];
	volatile uint8_t *bar[2];
	uint64_t bar_size[2], bar_off[2];
	pthread_mutex_t lock; /* maps, IOVA space, irq count */
	struct vmap *maps;    /* sorted by iova */
	uint64_t irqs;
	long page;
};

#define V(dev) ((struct vfio *)(dev)->be_priv)

static int read_link_base(const char *path, char *out, size_t n)
{
	char buf[PATH_MAX];
	ssize_t len = readlink(path, buf, sizeof buf - 1);
	const char *base;

	if (len < 0)
		return -errno;
	buf[len] = 0;
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strlen(base) >= n)
		return -ENAMETOOLONG;
	memcpy(out, base, strlen(base) + 1);
	return 0;
}

static int norm_bdf(const char *in, char *out, size_t n)
{
	unsigned dom = 0, bus, slot, fn;
	char tail;

	if (sscanf(in, "%x:%x:%x.%u%c", &dom, &bus, &slot, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(in, "%x:%x.%u%c", &bus, &slot, &fn, &tail) != 3)
			return abb_err(-EINVAL, "vfio: \"%s\" is not a PCI address; use "
				       "vfio:DDDD:BB:DD.F (as lspci -D prints it)", in);
	}
	if (bus > 0xff || slot > 0x1f || fn > 7)
		return abb_err(-EINVAL, "vfio: PCI address \"%s\" out of range", in);
	snprintf(out, n, "%04x:%02x:%02x.%u", dom, bus, slot, fn);
	return 0;
}

static int region(struct vfio *v, unsigned index, struct vfio_region_info *ri)
{
	memset(ri, 0, sizeof *ri);
	ri->argsz = sizeof *ri;
	ri->index = index;
	if (ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, ri))
		return abb_err(-errno, "vfio: region info %u of %s: %s", index, v->bdf,
			       strerror(errno));
	return 0;
}

static int setup_bar(struct vfio *v, unsigned bar)
{
	struct vfio_region_info ri;
	void *p;
	int rc = region(v, VFIO_PCI_BAR0_REGION_INDEX + bar, &ri);

	if (rc)
		return rc;
	if (ri.size == 0)
		return abb_err(-ENXIO, "vfio: %s has no BAR%u: not an ABB", v->bdf, bar);
	v->bar_size[bar] = ri.size;
	v->bar_off[bar] = ri.offset;
	if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP))
		return 0; /* pread/pwrite on the device fd */
	p = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->device, (off_t)ri.offset);
	if (p == MAP_FAILED)
		return abb_err(-errno, "vfio: mmap of BAR%u of %s: %s", bar, v->bdf,
			       strerror(errno));
	v->bar[bar] = p;
	return 0;
}

/* Sets memory space and bus master in the command register. */
static int enable_master(struct vfio *v)
{
	struct vfio_region_info ri;
	uint16_t cmd;
	int rc = region(v, VFIO_PCI_CONFIG_REGION_INDEX, &ri);

	if (rc)
		return rc;
	if (pread(v->device, &cmd, 2, (off_t)ri.offset + 4) != 2)
		return abb_err(-EIO, "vfio: reading the command register of %s failed", v->bdf);
	cmd |= 0x6; /* memory space, bus master */
	if (pwrite(v->device, &cmd, 2, (off_t)ri.offset + 4) != 2)
		return abb_err(-EIO, "vfio: writing the command register of %s failed", v->bdf);
	return 0;
}

static int setup_msi(struct vfio *v)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (struct vfio_irq_set *)buf;
	int32_t fd;

	v->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->irq_fd < 0)
		return abb_err(-errno, "vfio: eventfd: %s", strerror(errno));
	fd = v->irq_fd;
	set->argsz = sizeof buf;
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSI_IRQ_INDEX;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &fd, sizeof fd);
	if (ioctl(v->device, VFIO_DEVICE_SET_IRQS, set)) {
		/* Polling still works; ABB_DMA_IRQ and abb_irq_wait will not. */
		close(v->irq_fd);
		v->irq_fd = -1;
	}
	return 0;
}

static void vfio_close(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (!v)
		return;
	if (v->irq_fd >= 0) {
		struct vfio_irq_set set = {
			.argsz = sizeof set,
			.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
			.index = VFIO_PCI_MSI_IRQ_INDEX,
		};

		ioctl(v->device, VFIO_DEVICE_SET_IRQS, &set);
		close(v->irq_fd);
	}
	for (int i = 0; i < 2; i++)
		if (v->bar[i])
			munmap((void *)v->bar[i], v->bar_size[i]);
	while (v->maps) {
		struct vmap *m = v->maps;
		struct vfio_iommu_type1_dma_unmap um = {
			.argsz = sizeof um, .iova = m->iova, .size = m->size};

		ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &um);
		v->maps = m->next;
		free(m);
	}
	if (v->device >= 0)
		close(v->device);
	if (v->group >= 0)
		close(v->group);
	if (v->container >= 0)
		close(v->container);
	pthread_mutex_destroy(&v->lock);
	free(v);
	dev->be_priv = NULL;
}

static int vfio_open(abb_dev *dev, const char *args)
{
	struct vfio_group_status gs = {.argsz = sizeof gs};
	struct vfio_device_info di = {.argsz = sizeof di};
	char path[PATH_MAX], grp[64], drv[64];
	struct vfio *v;
	int rc;

	v = calloc(1, sizeof *v);
	if (!v)
		return abb_err(-ENOMEM, "out of memory");
	v->container = v->group = v->device = v->irq_fd = -1;
	v->page = sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&v->lock, NULL);
	dev->be_priv = v;

	if (args && *args)
		rc = norm_bdf(args, v->bdf, sizeof v->bdf);
	else if ((rc = abb_vfio_find(NULL, NULL, v->bdf, sizeof v->bdf)) > 0)
		rc = 0;
	if (rc)
		goto fail;

	snprintf(path, sizeof path, "/sys/bus/pci/devices/%s", v->bdf);
	if (access(path, F_OK)) {
		rc = abb_err(-ENODEV, "vfio: no PCI device %s (see lspci -D -d 10dc:0153)", v->bdf);
		goto fail;
	}
	snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/driver", v->bdf);
	if (read_link_base(path, drv, sizeof drv) || strcmp(drv, "vfio-pci")) {
		rc = abb_err(-ENODEV, "vfio: %s is not bound to vfio-pci; as root: modprobe "
			     "vfio-pci; echo %s > /sys/bus/pci/devices/%s/driver/unbind; echo 10dc "
			     "0153 > /sys/bus/pci/drivers/vfio-pci/new_id", v->bdf, v->bdf, v->bdf);
		goto fail;
	}
	snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/iommu_group", v->bdf);
	if (read_link_base(path, grp, sizeof grp)) {
		rc = abb_err(-ENODEV, "vfio: %s has no IOMMU group; enable the IOMMU (intel_iommu=on "
			     "or amd_iommu=on on the kernel command line)", v->bdf);
		goto fail;
	}

	v->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (v->container < 0) {
		rc = abb_err(-errno, "vfio: /dev/vfio/vfio: %s (modprobe vfio-pci?)", strerror(errno));
		goto fail;
	}
	if (ioctl(v->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    !ioctl(v->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU)) {
		rc = abb_err(-ENOTSUP, "vfio: the kernel's VFIO lacks API %d with the type-1 IOMMU",
			     VFIO_API_VERSION);
		goto fail;
	}
	snprintf(path, sizeof path, "/dev/vfio/%s", grp);
	v->group = open(path, O_RDWR | O_CLOEXEC);
	if (v->group < 0) {
		rc = abb_err(errno == EBUSY ? -EBUSY : -errno, "vfio: %s: %s (another process has "
			     "the board, or no permission)", path, strerror(errno));
		goto fail;
	}
	if (ioctl(v->group, VFIO_GROUP_GET_STATUS, &gs) || !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		rc = abb_err(-EBUSY, "vfio: IOMMU group %s is not viable: bind every device in "
			     "/sys/kernel/iommu_groups/%s/devices to vfio-pci", grp, grp);
		goto fail;
	}
	if (ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container) ||
	    ioctl(v->container, VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU)) {
		rc = abb_err(-errno, "vfio: setting up the IOMMU container: %s", strerror(errno));
		goto fail;
	}
	v->device = ioctl(v->group, VFIO_GROUP_GET_DEVICE_FD, v->bdf);
	if (v->device < 0) {
		rc = abb_err(-errno, "vfio: getting device %s: %s", v->bdf, strerror(errno));
		goto fail;
	}
	if (ioctl(v->device, VFIO_DEVICE_GET_INFO, &di) == 0 && (di.flags & VFIO_DEVICE_FLAGS_RESET))
		ioctl(v->device, VFIO_DEVICE_RESET);
	rc = setup_bar(v, 0);
	if (!rc)
		rc = setup_bar(v, 1);
	if (!rc)
		rc = enable_master(v);
	if (!rc)
		rc = setup_msi(v);
	if (rc)
		goto fail;
	dev->bar0_size = v->bar_size[0];
	dev->bar1_size = v->bar_size[1];
	dev->watchdog_s = 0;
	return 0;
fail:
	vfio_close(dev);
	return rc;
}

static int vfio_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	struct vfio *v = V(dev);
	uint32_t le;

	if (v->bar[0]) {
		le = *(volatile uint32_t *)(v->bar[0] + off);
	} else if (pread(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4) {
		return abb_err(-EIO, "vfio: register read at 0x%x failed", off);
	}
	*val = le32toh(le);
	return 0;
}

static int vfio_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	struct vfio *v = V(dev);
	uint32_t le = htole32(val);

	if (v->bar[0])
		*(volatile uint32_t *)(v->bar[0] + off) = le;
	else if (pwrite(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4)
		return abb_err(-EIO, "vfio: register write at 0x%x failed", off);
	return 0;
}

/* BAR1 PIO: aligned 32-bit accesses where possible, bytes at the edges. */
static int vfio_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct vfio *v = V(dev);
	uint8_t *out = buf;

	if (!v->bar[1]) {
		if (pread(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
			return abb_err(-EIO, "vfio: BAR1 read failed");
		return 0;
	}
	while (len) {
		if (off % 4 == 0 && len >= 4) {
			uint32_t w = *(volatile uint32_t *)(v->bar[1] + off);

			memcpy(out, &w, 4);
			off += 4, out += 4, len -= 4;
		} else {
			*out++ = *(volatile uint8_t *)(v->bar[1] + off);
			off++, len--;
		}
	}
	return 0;
}

static int vfio_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	struct vfio *v = V(dev);
	const uint8_t *in = buf;

	if (!v->bar[1]) {
		if (pwrite(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
			return abb_err(-EIO, "vfio: BAR1 write failed");
		return 0;
	}
	while (len) {
		if (off % 4 == 0 && len >= 4) {
			uint32_t w;

			memcpy(&w, in, 4);
			*(volatile uint32_t *)(v->bar[1] + off) = w;
			off += 4, in += 4, len -= 4;
		} else {
			*(volatile uint8_t *)(v->bar[1] + off) = *in++;
			off++, len--;
		}
	}
	return 0;
}

/* First fit in [VFIO_IOVA_BASE, VFIO_IOVA_END) between the sorted maps;
 * links m in. With v->lock held. */
static int iova_alloc(struct vfio *v, struct vmap *m)
{
	uint64_t at = VFIO_IOVA_BASE;
	struct vmap **link = &v->maps;

	for (; *link; link = &(*link)->next) {
		if ((*link)->iova - at >= m->size)
			break;
		at = (*link)->iova + (*link)->size;
	}
	if (at + m->size > VFIO_IOVA_END || at + m->size < at)
		return abb_err(-ENOSPC, "vfio: out of IOVA space for %llu bytes; unmap buffers",
			       (unsigned long long)m->size);
	m->iova = at;
	m->next = *link;
	*link = m;
	return 0;
}

static int vfio_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	struct vfio *v = V(dev);
	uintptr_t pg = (uintptr_t)v->page, start = (uintptr_t)ptr & ~(pg - 1);
	uintptr_t end = ((uintptr_t)ptr + len + pg - 1) & ~(pg - 1);
	struct vfio_iommu_type1_dma_map dm = {.argsz = sizeof dm};
	struct vmap *m = calloc(1, sizeof *m);
	struct abb_seg *s = calloc(1, sizeof *s);
	int rc;

	if (!m || !s) {
		free(m);
		free(s);
		return abb_err(-ENOMEM, "out of memory");
	}
	m->ptr = ptr;
	m->size = end - start;
	pthread_mutex_lock(&v->lock);
	rc = iova_alloc(v, m);
	if (!rc) {
		dm.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
		dm.vaddr = start;
		dm.iova = m->iova;
		dm.size = m->size;
		if (ioctl(v->container, VFIO_IOMMU_MAP_DMA, &dm)) {
			rc = abb_err(-errno, "vfio: VFIO_IOMMU_MAP_DMA of %zu bytes: %s (locked-memory "
				     "limit? see ulimit -l)", len, strerror(errno));
			for (struct vmap **l = &v->maps; *l; l = &(*l)->next)
				if (*l == m) {
					*l = m->next;
					break;
				}
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

static int vfio_unmap(abb_dev *dev, void *ptr, size_t len)
{
	struct vfio *v = V(dev);
	int rc = -ENOENT;

	pthread_mutex_lock(&v->lock);
	for (struct vmap **l = &v->maps; *l; l = &(*l)->next) {
		struct vmap *m = *l;
		struct vfio_iommu_type1_dma_unmap um = {
			.argsz = sizeof um, .iova = m->iova, .size = m->size};

		if (m->ptr != ptr)
			continue;
		rc = ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &um)
			     ? abb_err(-errno, "vfio: VFIO_IOMMU_UNMAP_DMA: %s", strerror(errno))
			     : 0;
		*l = m->next;
		free(m);
		break;
	}
	pthread_mutex_unlock(&v->lock);
	if (rc == -ENOENT) /* the message only when it is one (abb_last_error) */
		return abb_err(-ENOENT, "vfio: %p is not mapped", ptr);
	return rc;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Moves pending eventfd counts into v->irqs. With v->lock held. */
static void drain(struct vfio *v)
{
	uint64_t n;

	if (read(v->irq_fd, &n, sizeof n) == (ssize_t)sizeof n)
		v->irqs += n;
}

static uint64_t vfio_irq_count(abb_dev *dev)
{
	struct vfio *v = V(dev);
	uint64_t n;

	pthread_mutex_lock(&v->lock);
	if (v->irq_fd >= 0)
		drain(v);
	n = v->irqs;
	pthread_mutex_unlock(&v->lock);
	return n;
}

static int vfio_irq_check(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (v->irq_fd < 0)
		return abb_err(-ENOTSUP, "vfio: MSI could not be set up for %s; use polling (no "
			       "ABB_DMA_IRQ)", v->bdf);
	return 0;
}

static int vfio_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct vfio *v = V(dev);
	uint64_t start = mono_ns();

	if (v->irq_fd < 0)
		return vfio_irq_check(dev);
	for (;;) {
		struct pollfd pfd = {.fd = v->irq_fd, .events = POLLIN};
		int64_t left_ms = VFIO_IRQ_SLICE_MS;
		uint64_t n;

		pthread_mutex_lock(&v->lock);
		drain(v);
		n = v->irqs;
		pthread_mutex_unlock(&v->lock);
		if (n > *seen) {
			*seen = n;
			return 0;
		}
		if (timeout_ns >= 0) {
			int64_t left = timeout_ns - (int64_t)(mono_ns() - start);

			if (left <= 0)
				return abb_err(-ETIMEDOUT, "no interrupt within %lld ns",
					       (long long)timeout_ns);
			if (left / 1000000 < left_ms)
				left_ms = left / 1000000 + 1;
		}
		/* Another waiter may drain the eventfd first: hence the slice. */
		poll(&pfd, 1, (int)left_ms);
	}
}

static int vfio_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = mono_ns();
	return 0;
}

const struct abb_backend abb_backend_vfio = {
	.name = "vfio",
	.open = vfio_open,
	.close = vfio_close,
	.reg_read = vfio_reg_read,
	.reg_write = vfio_reg_write,
	.mem_read = vfio_mem_read,
	.mem_write = vfio_mem_write,
	.map = vfio_map,
	.unmap = vfio_unmap,
	.irq_wait = vfio_irq_wait,
	.irq_count = vfio_irq_count,
	.irq_check = vfio_irq_check,
	.now_ns = vfio_now_ns,
};
