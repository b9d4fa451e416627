/*
 * backend_vfio.c - the real board through VFIO (URI "vfio" or
 * "vfio:DDDD:BB:DD.F").
 *
 * Discovery: abb_vfio_find (vfio_find.c, libpci) under the seam's
 * sysfs_root when the URI names no address. The device must be bound
 * to vfio-pci and sit alone (or with other vfio-bound devices) in an IOMMU
 * group.
 *
 * Two kernel interfaces (URI option "iommu=", e.g. "vfio:0000:01:00.0,
 * iommu=iommufd", or the environment ABB_VFIO_IOMMU; the URI wins):
 *   - "group": the legacy container (/dev/vfio/vfio, type-1 v2 IOMMU, v1 as
 *     a fallback) and the group /dev/vfio/<N>;
 *   - "iommufd": the device's cdev dev_root/vfio/devices/vfioN (N from
 *     sysfs_root/bus/pci/devices/<bdf>/vfio-dev/vfioN) bound to /dev/iommu
 *     (VFIO_DEVICE_BIND_IOMMUFD), an IOAS (IOMMU_IOAS_ALLOC) attached to
 *     the device (VFIO_DEVICE_ATTACH_IOMMUFD_PT), buffers mapped with
 *     IOMMU_IOAS_MAP at the IOVA the allocator below picks (FIXED_IOVA)
 *     inside IOMMU_IOAS_IOVA_RANGES, in units of its out_iova_alignment;
 *   - "auto" (default): the group path when /dev/vfio/vfio exists (it is
 *     the one every kernel since 3.6 has, and iommufd's compatibility
 *     container offers it too), else the iommufd path when the device has
 *     a vfio-dev entry and /dev/iommu exists, else the container's error.
 * The uAPI of the iommufd path is in vfio_iommufd_abi.h (Debian 12's 6.1
 * headers lack it). Both paths share everything from the device fd on.
 *
 * Every system call goes through a seam (struct abb_vfio_sys, abb_vfio.h):
 * the real libc calls by default, an emulated VFIO kernel in the test bench
 * (testbench/vfio_emu.c). Paths start at the seam's sysfs_root / dev_root.
 *
 * BARs: BAR0 (registers) and BAR1 (board memory) are mmap()ed when the
 * region allows it; without VFIO_REGION_INFO_FLAG_MMAP, or when the mmap
 * fails, pread/pwrite on the device fd reach them.
 *
 * DMA: buffers are mapped with VFIO_IOMMU_MAP_DMA at IOVAs from a next-fit
 * allocator (a freed IOVA is not reused at once, so a stale device address
 * faults) inside the IOVA ranges the kernel reports
 * (VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE), preferring [256 MiB, 4 GiB), in
 * units of the IOMMU's smallest page (the page-size bitmap). Without a
 * reported range: [256 MiB, 0xf0000000). A buffer is mapped read+write; if
 * the kernel refuses write access (EFAULT: read-only memory) it is mapped
 * read-only, so the device may only read it (host-to-board DMA). The
 * locked-memory limit (RLIMIT_MEMLOCK) is compared with what the device has
 * pinned before each map; ENOMEM names the numbers and the fix.
 *
 * Interrupts: MSI when the device has it (VFIO_PCI_MSI_IRQ_INDEX count > 0),
 * else legacy INTx (VFIO_PCI_INTX_IRQ_INDEX), each through an eventfd. The
 * kernel masks INTx when it fires; irq_unmask (called by the core after it
 * cleared the source) unmasks it, and a waiter unmasks a line it saw fire
 * before it sleeps again. Device time is the seam's CLOCK_MONOTONIC.
 *
 * Close: interrupts off and bus master cleared (quiesce) before any IOMMU
 * mapping is removed.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "vfio_iommufd_abi.h"

#include "abb_priv.h"
#include "abb_vfio.h"

#define VFIO_IOVA_BASE 0x10000000ull /* 256 MiB: stays clear of low legacy ranges */
#define VFIO_IOVA_END 0xf0000000ull  /* below the x86 MSI window at 0xfee00000 */
#define VFIO_IRQ_SLICE_NS 5000000ll  /* re-check period of a waiter sharing the eventfd */

/* discovery: abb_vfio_find() in vfio_find.c */

/* ---- the system-call seam ------------------------------------------- */

static int sys_open(const char *path, int flags)
{
	return open(path, flags);
}

static int sys_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

static int sys_getrlimit(int resource, struct rlimit *rl)
{
	return getrlimit((__rlimit_resource_t)resource, rl);
}

static int sys_poll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout)
{
	return ppoll(fds, nfds, timeout, NULL);
}

static int sys_eventfd(unsigned int initval, int flags)
{
	return eventfd(initval, flags);
}

static const struct abb_vfio_sys sys_real = {
	.open = sys_open,
	.close = close,
	.ioctl = sys_ioctl,
	.mmap = mmap,
	.munmap = munmap,
	.pread = pread,
	.pwrite = pwrite,
	.read = read,
	.write = write,
	.eventfd = sys_eventfd,
	.poll = sys_poll,
	.readlink = readlink,
	.access = access,
	.getrlimit = sys_getrlimit,
	.clock_gettime = clock_gettime,
	.nanosleep = nanosleep,
	.sysfs_root = "/sys",
	.dev_root = "/dev",
};

/* the table in use: sys_real unless a test replaced it (a pointer: C does
 * not allow one static struct as the initialiser of another, gcc does) */
static struct abb_vfio_sys sys_test;
static const struct abb_vfio_sys *sys_now = &sys_real;
#define SYS sys_now

void abb_vfio_set_sys(const struct abb_vfio_sys *sys)
{
	if (sys) {
		sys_test = *sys;
		sys_now = &sys_test;
	} else {
		sys_now = &sys_real;
	}
}

const struct abb_vfio_sys *abb_vfio_get_sys(void)
{
	return sys_now;
}

/* ---- the device ----------------------------------------------------- */

#define VFIO_MAX_RANGES 16

enum { IRQ_NONE, IRQ_INTX, IRQ_MSI };

struct vmap {
	struct vmap *next;
	void *ptr;        /* as given to map */
	uint64_t iova;    /* of the first page */
	uint64_t size;    /* whole IOMMU pages */
	int read_only;    /* the device may only read it */
};

struct iova_range {
	uint64_t lo, hi;  /* [lo, hi) */
};

struct vfio {
	struct abb_vfio_sys sys; /* the seam as it was at open */
	int container, group, device, irq_fd;
	char bdf[32];
	volatile uint8_t *bar[2];
	uint64_t bar_size[2], bar_off[2], cfg_off;
	pthread_mutex_t lock; /* maps, IOVA space, irq count, mask state */
	struct vmap *maps;    /* sorted by iova */
	uint64_t irqs;
	uint64_t granule;     /* mapping unit: max(CPU page, smallest IOMMU page) */
	uint64_t pgsizes;     /* the IOMMU's page-size bitmap (0: not reported) */
	struct iova_range ranges[VFIO_MAX_RANGES];
	unsigned nranges;
	int ranges_reported;  /* 0: the kernel reported none (the fallback window) */
	uint64_t cursor;      /* next-fit start */
	uint64_t pinned;      /* bytes mapped (pinned against RLIMIT_MEMLOCK) */
	int irq_mode;         /* IRQ_* */
	int masked;           /* INTx fired and not unmasked yet */
	int iommu_type;       /* VFIO_TYPE1v2_IOMMU or VFIO_TYPE1_IOMMU */
	int iommufd;          /* /dev/iommu (iommufd path), else -1 */
	uint32_t ioas;        /* the IOAS of the iommufd path (0: none) */
	int quiesced;
};

#define V(dev) ((struct vfio *)(dev)->be_priv)

/* "DDDD:BB:DD.F" from the URI's address (abb_vfio_bdf_norm), with a message. */
static int norm_bdf(const char *in, char *out, size_t n)
{
	if (abb_vfio_bdf_norm(in, out, n))
		return abb_err(-EINVAL, "vfio: \"%s\" is not a PCI address or out of range; use "
			       "vfio:DDDD:BB:DD.F (as lspci -D prints it)", in);
	return 0;
}

static int region(struct vfio *v, unsigned index, struct vfio_region_info *ri)
{
	memset(ri, 0, sizeof *ri);
	ri->argsz = sizeof *ri;
	ri->index = index;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, ri))
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
	p = v->sys.mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->device,
			(off_t)ri.offset);
	if (p != MAP_FAILED)
		v->bar[bar] = p;
	/* else: pread/pwrite on the region work as well, only slower */
	return 0;
}

/* Command register: sets (on) or clears bits. */
static int command(struct vfio *v, uint16_t set, uint16_t clear)
{
	uint16_t cmd;

	if (v->sys.pread(v->device, &cmd, 2, (off_t)v->cfg_off + 4) != 2)
		return abb_err(-EIO, "vfio: reading the command register of %s failed", v->bdf);
	cmd = (uint16_t)((le16toh(cmd) | set) & ~clear);
	cmd = htole16(cmd);
	if (v->sys.pwrite(v->device, &cmd, 2, (off_t)v->cfg_off + 4) != 2)
		return abb_err(-EIO, "vfio: writing the command register of %s failed", v->bdf);
	return 0;
}

static int irq_count_of(struct vfio *v, unsigned index)
{
	struct vfio_irq_info ii = {.argsz = sizeof ii, .index = index};

	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_IRQ_INFO, &ii))
		return 0;
	return (int)ii.count;
}

static int irq_trigger(struct vfio *v, unsigned index, int32_t fd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (struct vfio_irq_set *)buf;

	set->argsz = sizeof buf;
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = index;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &fd, sizeof fd);
	return v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, set);
}

/* MSI when the device has the capability, else INTx; neither: polling. */
static int setup_irq(struct vfio *v)
{
	static const struct {
		unsigned index;
		int mode;
	} try[] = {{VFIO_PCI_MSI_IRQ_INDEX, IRQ_MSI}, {VFIO_PCI_INTX_IRQ_INDEX, IRQ_INTX}};

	v->irq_fd = v->sys.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->irq_fd < 0)
		return abb_err(-errno, "vfio: eventfd: %s", strerror(errno));
	for (size_t i = 0; i < sizeof try / sizeof try[0]; i++) {
		if (irq_count_of(v, try[i].index) <= 0)
			continue;
		if (irq_trigger(v, try[i].index, v->irq_fd) == 0) {
			v->irq_mode = try[i].mode;
			return 0;
		}
	}
	/* Polling still works; ABB_DMA_IRQ and abb_irq_wait will not. */
	v->sys.close(v->irq_fd);
	v->irq_fd = -1;
	return 0;
}

static void irq_disable(struct vfio *v)
{
	struct vfio_irq_set set = {
		.argsz = sizeof set,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
		.index = v->irq_mode == IRQ_MSI ? VFIO_PCI_MSI_IRQ_INDEX : VFIO_PCI_INTX_IRQ_INDEX,
		.count = 0,
	};

	if (v->irq_mode == IRQ_NONE)
		return;
	v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, &set);
	v->irq_mode = IRQ_NONE;
}

/* Stops the device from reaching host memory and from interrupting: before
 * any IOMMU mapping goes away (abb_close, or a failed open). */
static void vfio_quiesce(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (!v || v->quiesced || v->device < 0)
		return;
	irq_disable(v);
	if (v->cfg_off)
		command(v, 0, 0x4); /* bus master off */
	v->quiesced = 1;
}

static int dma_unmap_one(struct vfio *v, const struct vmap *m);

static void vfio_close(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (!v)
		return;
	vfio_quiesce(dev);
	if (v->irq_fd >= 0)
		v->sys.close(v->irq_fd);
	for (int i = 0; i < 2; i++)
		if (v->bar[i])
			v->sys.munmap((void *)v->bar[i], v->bar_size[i]);
	/* Normally empty (the core unmapped every buffer before close); any
	 * left go now, with bus master off (quiesced above). */
	while (v->maps) {
		struct vmap *m = v->maps;

		dma_unmap_one(v, m);
		v->maps = m->next;
		free(m);
	}
	if (v->device >= 0)
		v->sys.close(v->device);
	if (v->iommufd >= 0) {
		if (v->ioas) {
			struct iommu_destroy d = {.size = sizeof d, .id = v->ioas};

			v->sys.ioctl(v->iommufd, IOMMU_DESTROY, &d);
		}
		v->sys.close(v->iommufd);
	}
	if (v->group >= 0)
		v->sys.close(v->group);
	if (v->container >= 0)
		v->sys.close(v->container);
	pthread_mutex_destroy(&v->lock);
	free(v);
	dev->be_priv = NULL;
}

/* The container could not be opened: say why as precisely as we can. */
static int container_error(struct vfio *v, const char *path, int err)
{
	char p[PATH_MAX];
	int cdev;

	snprintf(p, sizeof p, "%s/vfio/devices", v->sys.dev_root);
	cdev = v->sys.access(p, F_OK) == 0;
	snprintf(p, sizeof p, "%s/iommu", v->sys.dev_root);
	if (err == ENOENT && cdev && v->sys.access(p, F_OK) == 0)
		return abb_err(-ENOTSUP, "vfio: %s is missing but %s/vfio/devices and %s exist: this "
			       "kernel offers only the iommufd/cdev interface, and %s has no "
			       "%s/bus/pci/devices/%s/vfio-dev/vfioN entry for it (is it bound to "
			       "vfio-pci? CONFIG_VFIO_DEVICE_CDEV=y?); or enable the legacy container "
			       "(CONFIG_VFIO_CONTAINER=y, or iommufd's compatibility /dev/vfio/vfio: "
			       "CONFIG_IOMMUFD_VFIO_CONTAINER=y)",
			       path, v->sys.dev_root, p, v->bdf, v->sys.sysfs_root, v->bdf);
	if (err == EACCES || err == EPERM)
		return abb_err(-err, "vfio: %s: %s; it is normally world-accessible: check its mode "
			       "(ls -l %s)", path, strerror(err), path);
	return abb_err(-err, "vfio: %s: %s (as root: modprobe vfio-pci)", path, strerror(err));
}

/* The group could not be opened. */
static int group_error(struct vfio *v, const char *path, const char *grp, int err)
{
	char p[PATH_MAX];

	if (err == ENOENT) {
		snprintf(p, sizeof p, "%s/vfio/noiommu-%s", v->sys.dev_root, grp);
		if (v->sys.access(p, F_OK) == 0)
			return abb_err(-ENOTSUP, "vfio: %s is a no-IOMMU group (%s: vfio's "
				       "enable_unsafe_noiommu_mode): without an IOMMU the board cannot "
				       "DMA safely and libabb does not support it; turn the IOMMU on "
				       "(VT-d/AMD-Vi in the firmware, intel_iommu=on or amd_iommu=on "
				       "on the kernel command line)", v->bdf, p);
		return abb_err(-ENODEV, "vfio: %s does not exist although %s is in IOMMU group %s "
			       "and bound to vfio-pci (is vfio-pci loaded? modprobe vfio-pci)", path,
			       v->bdf, grp);
	}
	if (err == EACCES || err == EPERM)
		return abb_err(-err, "vfio: %s: %s; as root: chown $USER %s (or a udev rule: "
			       "SUBSYSTEM==\"vfio\", OWNER=\"youruser\")", path, strerror(err), path);
	if (err == EBUSY)
		return abb_err(-EBUSY, "vfio: %s: %s: another process has the board open", path,
			       strerror(err));
	return abb_err(-err, "vfio: %s: %s", path, strerror(err));
}

static void finish_ranges(struct vfio *v);

/* The IOMMU's IOVA ranges and page sizes (VFIO_IOMMU_GET_INFO). */
static int iommu_info(struct vfio *v)
{
	struct vfio_iommu_type1_info *info;
	size_t argsz = sizeof *info;
	uint64_t cpu = (uint64_t)sysconf(_SC_PAGESIZE);

	for (int pass = 0; pass < 2; pass++) {
		info = calloc(1, argsz);
		if (!info)
			return abb_err(-ENOMEM, "out of memory");
		info->argsz = (uint32_t)argsz;
		if (v->sys.ioctl(v->container, VFIO_IOMMU_GET_INFO, info)) {
			int rc = abb_err(-errno, "vfio: VFIO_IOMMU_GET_INFO: %s", strerror(errno));

			free(info);
			return rc;
		}
		if (info->argsz <= argsz || pass)
			break;
		argsz = info->argsz; /* the capabilities need more room */
		free(info);
	}
	if ((info->flags & VFIO_IOMMU_INFO_PGSIZES) && info->iova_pgsizes)
		v->pgsizes = info->iova_pgsizes;
	v->granule = cpu;
	if (v->pgsizes) {
		uint64_t min = v->pgsizes & -v->pgsizes;

		if (min > v->granule)
			v->granule = min;
	}
	if ((info->flags & VFIO_IOMMU_INFO_CAPS) && info->cap_offset) {
		uint32_t off = info->cap_offset;

		for (int hops = 0; off && off + sizeof(struct vfio_info_cap_header) <= argsz &&
				   hops < 64; hops++) {
			struct vfio_info_cap_header *h = (void *)((char *)info + off);

			if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
				struct vfio_iommu_type1_info_cap_iova_range *r = (void *)h;

				v->ranges_reported = 1;
				for (uint32_t i = 0; i < r->nr_iovas && off + sizeof *r +
						     (i + 1) * sizeof r->iova_ranges[0] <= argsz; i++) {
					uint64_t lo = r->iova_ranges[i].start, hi = r->iova_ranges[i].end;

					if (v->nranges == VFIO_MAX_RANGES)
						break;
					lo = (lo + v->granule - 1) & ~(v->granule - 1);
					hi = hi == UINT64_MAX ? hi & ~(v->granule - 1)
							      : (hi + 1) & ~(v->granule - 1);
					if (hi > lo)
						v->ranges[v->nranges++] = (struct iova_range){lo, hi};
				}
			}
			off = h->next;
		}
	}
	free(info);
	finish_ranges(v);
	return 0;
}

/* The fallback window, or the reported ranges clipped to [256 MiB, 4 GiB)
 * where that leaves any; the cursor at the bottom. */
static void finish_ranges(struct vfio *v)
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

enum { MODE_AUTO, MODE_GROUP, MODE_IOMMUFD };

/* "iommu=group|iommufd|auto" in the URI's options (after the address and
 * a comma, or alone), else ABB_VFIO_IOMMU; unset: auto. */
static int parse_iommu(struct vfio *v, const char *args, int *mode)
{
	const char *o = args ? strstr(args, "iommu=") : NULL;
	const char *val = o ? o + 6 : getenv("ABB_VFIO_IOMMU");
	size_t n;

	*mode = MODE_AUTO;
	if (!val || !*val)
		return 0;
	n = strcspn(val, ",");
	if (n == 5 && !strncmp(val, "group", 5))
		*mode = MODE_GROUP;
	else if (n == 7 && !strncmp(val, "iommufd", 7))
		*mode = MODE_IOMMUFD;
	else if (!(n == 4 && !strncmp(val, "auto", 4)))
		return abb_err(-EINVAL, "vfio: iommu=%.*s%s: use iommu=group (the legacy "
			       "container), iommu=iommufd (the device cdev and /dev/iommu) or "
			       "iommu=auto", (int)n, val, o ? "" : " (ABB_VFIO_IOMMU)");
	(void)v;
	return 0;
}

/* The device's cdev number (sysfs .../vfio-dev/vfioN), or -ENOENT. */
static int cdev_index(struct vfio *v)
{
	char p[PATH_MAX];

	for (int i = 0; i < 256; i++) {
		snprintf(p, sizeof p, "%s/bus/pci/devices/%s/vfio-dev/vfio%d", v->sys.sysfs_root,
			 v->bdf, i);
		if (v->sys.access(p, F_OK) == 0)
			return i;
	}
	return -ENOENT;
}

/* 1 if the iommufd path can be tried: a vfio-dev entry and /dev/iommu. */
static int cdev_usable(struct vfio *v)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/iommu", v->sys.dev_root);
	return cdev_index(v) >= 0 && v->sys.access(p, F_OK) == 0;
}

/* IOMMU_IOAS_IOVA_RANGES: the usable ranges and the IOVA alignment. */
static int ioas_ranges(struct vfio *v)
{
	struct iommu_iova_range r[VFIO_MAX_RANGES];
	struct iommu_ioas_iova_ranges q = {.size = sizeof q, .ioas_id = v->ioas,
					   .num_iovas = VFIO_MAX_RANGES,
					   .allowed_iovas = (uintptr_t)r};
	uint64_t cpu = (uint64_t)sysconf(_SC_PAGESIZE);

	if (v->sys.ioctl(v->iommufd, IOMMU_IOAS_IOVA_RANGES, &q)) {
		if (errno != EMSGSIZE)
			return abb_err(-errno, "vfio: IOMMU_IOAS_IOVA_RANGES: %s", strerror(errno));
		q.num_iovas = VFIO_MAX_RANGES; /* more than we keep: the first ones */
	}
	v->granule = cpu;
	if (q.out_iova_alignment > cpu) {
		if (q.out_iova_alignment & (q.out_iova_alignment - 1))
			return abb_err(-EINVAL, "vfio: IOMMU_IOAS_IOVA_RANGES: IOVA alignment %llu "
				       "is not a power of two",
				       (unsigned long long)q.out_iova_alignment);
		v->granule = q.out_iova_alignment;
	}
	v->ranges_reported = 1;
	for (uint32_t i = 0; i < q.num_iovas && i < VFIO_MAX_RANGES; i++) {
		uint64_t lo = (r[i].start + v->granule - 1) & ~(v->granule - 1);
		uint64_t hi = r[i].last == UINT64_MAX ? r[i].last & ~(v->granule - 1)
						      : (r[i].last + 1) & ~(v->granule - 1);

		if (hi > lo)
			v->ranges[v->nranges++] = (struct iova_range){lo, hi};
	}
	if (!v->nranges)
		return abb_err(-ENOSPC, "vfio: IOMMU_IOAS_IOVA_RANGES reports no usable IOVA range");
	finish_ranges(v);
	return 0;
}

/* The iommufd path: device cdev, /dev/iommu, bind, IOAS, attach. */
static int open_iommufd(struct vfio *v)
{
	struct vfio_device_bind_iommufd bind = {.argsz = sizeof bind};
	struct vfio_device_attach_iommufd_pt at = {.argsz = sizeof at};
	struct iommu_ioas_alloc ia = {.size = sizeof ia};
	char path[PATH_MAX];
	int n = cdev_index(v);

	if (n < 0)
		return abb_err(-ENOTSUP, "vfio: iommu=iommufd, but %s/bus/pci/devices/%s/vfio-dev/ "
			       "has no vfioN entry: the kernel lacks the VFIO device cdev "
			       "(CONFIG_VFIO_DEVICE_CDEV=y, Linux 6.6 or later); use iommu=group",
			       v->sys.sysfs_root, v->bdf);
	snprintf(path, sizeof path, "%s/iommu", v->sys.dev_root);
	v->iommufd = v->sys.open(path, O_RDWR | O_CLOEXEC);
	if (v->iommufd < 0) {
		int err = errno;

		if (err == ENOENT)
			return abb_err(-ENOTSUP, "vfio: %s is missing: iommufd is not enabled "
				       "(CONFIG_IOMMUFD, modprobe iommufd); use iommu=group", path);
		return abb_err(-err, "vfio: %s: %s%s", path, strerror(err),
			       err == EACCES || err == EPERM
				       ? "; as root: chmod 666 it (or a udev rule: KERNEL==\"iommu\", "
					 "MODE=\"0666\")"
				       : "");
	}
	snprintf(path, sizeof path, "%s/vfio/devices/vfio%d", v->sys.dev_root, n);
	v->device = v->sys.open(path, O_RDWR | O_CLOEXEC);
	if (v->device < 0) {
		int err = errno;

		if (err == EACCES || err == EPERM)
			return abb_err(-err, "vfio: %s: %s; as root: chown $USER %s (or a udev "
				       "rule: SUBSYSTEM==\"vfio\", OWNER=\"youruser\")", path,
				       strerror(err), path);
		if (err == EBUSY)
			return abb_err(-EBUSY, "vfio: %s: %s: another process has the board open",
				       path, strerror(err));
		return abb_err(-err, "vfio: %s: %s", path, strerror(err));
	}
	bind.iommufd = v->iommufd;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_BIND_IOMMUFD, &bind)) {
		int err = errno;

		if (err == EBUSY)
			return abb_err(-EBUSY, "vfio: VFIO_DEVICE_BIND_IOMMUFD of %s: %s: the device "
				       "is in use (another process, or its group is open)", v->bdf,
				       strerror(err));
		return abb_err(-err, "vfio: VFIO_DEVICE_BIND_IOMMUFD of %s: %s", v->bdf,
			       strerror(err));
	}
	if (v->sys.ioctl(v->iommufd, IOMMU_IOAS_ALLOC, &ia))
		return abb_err(-errno, "vfio: IOMMU_IOAS_ALLOC: %s", strerror(errno));
	v->ioas = ia.out_ioas_id;
	at.pt_id = v->ioas;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at)) {
		int err = errno;

		if (err == EPERM)
			return abb_err(-EPERM, "vfio: VFIO_DEVICE_ATTACH_IOMMUFD_PT refused (EPERM): "
				       "the IOMMU lacks interrupt remapping; enable it (x2APIC/IR in "
				       "the firmware) or, accepting the risk, as root: echo 1 > "
				       "%s/module/iommufd/parameters/allow_unsafe_interrupts",
				       v->sys.sysfs_root);
		return abb_err(-err, "vfio: VFIO_DEVICE_ATTACH_IOMMUFD_PT of %s to IOAS %u: %s",
			       v->bdf, v->ioas, strerror(err));
	}
	return ioas_ranges(v);
}

/* The legacy path: container, group, type-1 IOMMU, device fd. */
static int open_group(struct vfio *v, const char *grp)
{
	struct vfio_group_status gs = {.argsz = sizeof gs};
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof path, "%s/vfio/vfio", v->sys.dev_root);
	v->container = v->sys.open(path, O_RDWR | O_CLOEXEC);
	if (v->container < 0) {
		rc = container_error(v, path, errno);
		return rc;
	}
	if (v->sys.ioctl(v->container, VFIO_GET_API_VERSION, NULL) != VFIO_API_VERSION) {
		rc = abb_err(-ENOTSUP, "vfio: the kernel's VFIO is not API version %d",
			     VFIO_API_VERSION);
		return rc;
	}
	if (v->sys.ioctl(v->container, VFIO_CHECK_EXTENSION, (void *)(long)VFIO_TYPE1v2_IOMMU) > 0)
		v->iommu_type = VFIO_TYPE1v2_IOMMU;
	else if (v->sys.ioctl(v->container, VFIO_CHECK_EXTENSION, (void *)(long)VFIO_TYPE1_IOMMU) > 0)
		v->iommu_type = VFIO_TYPE1_IOMMU;
	else {
		rc = abb_err(-ENOTSUP, "vfio: the kernel's VFIO has no type-1 IOMMU (v2 or v1); "
			     "modprobe vfio_iommu_type1");
		return rc;
	}
	snprintf(path, sizeof path, "%s/vfio/%s", v->sys.dev_root, grp);
	v->group = v->sys.open(path, O_RDWR | O_CLOEXEC);
	if (v->group < 0) {
		rc = group_error(v, path, grp, errno);
		return rc;
	}
	if (v->sys.ioctl(v->group, VFIO_GROUP_GET_STATUS, &gs) ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		rc = abb_err(-EBUSY, "vfio: IOMMU group %s is not viable: bind every device in "
			     "%s/kernel/iommu_groups/%s/devices to vfio-pci (or unbind it)", grp,
			     v->sys.sysfs_root, grp);
		return rc;
	}
	if (v->sys.ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container)) {
		rc = abb_err(-errno, "vfio: adding group %s to the container: %s", grp,
			     strerror(errno));
		return rc;
	}
	if (v->sys.ioctl(v->container, VFIO_SET_IOMMU, (void *)(long)v->iommu_type)) {
		if (errno == EPERM)
			rc = abb_err(-EPERM, "vfio: VFIO_SET_IOMMU refused (EPERM): the IOMMU lacks "
				     "interrupt remapping, so vfio_iommu_type1 will not isolate "
				     "the device's interrupts. Enable interrupt remapping (x2APIC/IR "
				     "in the firmware), or accept the risk that the board can forge "
				     "interrupts to other devices and the host: as root echo 1 > "
				     "%s/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts "
				     "(or options vfio_iommu_type1 allow_unsafe_interrupts=1 in "
				     "/etc/modprobe.d)", v->sys.sysfs_root);
		else
			rc = abb_err(-errno, "vfio: VFIO_SET_IOMMU (type-1%s): %s",
				     v->iommu_type == VFIO_TYPE1v2_IOMMU ? " v2" : "", strerror(errno));
		return rc;
	}
	rc = iommu_info(v);
	if (rc)
		return rc;
	v->device = v->sys.ioctl(v->group, VFIO_GROUP_GET_DEVICE_FD, v->bdf);
	if (v->device < 0)
		return abb_err(-errno, "vfio: getting device %s from group %s: %s", v->bdf, grp,
			       strerror(errno));
	return 0;
}

static int vfio_open(abb_dev *dev, const char *args)
{
	struct vfio_device_info di = {.argsz = sizeof di};
	struct vfio_region_info ri;
	char path[PATH_MAX], grp[64], drv[64], addr[64];
	struct vfio *v;
	int rc, mode;

	v = calloc(1, sizeof *v);
	if (!v)
		return abb_err(-ENOMEM, "out of memory");
	v->sys = *sys_now;
	v->container = v->group = v->device = v->irq_fd = v->iommufd = -1;
	pthread_mutex_init(&v->lock, NULL);
	dev->be_priv = v;

	/* the address: args up to the first ',' (options follow) */
	snprintf(addr, sizeof addr, "%.*s", args ? (int)strcspn(args, ",") : 0, args ? args : "");
	if (strchr(addr, '=')) /* "vfio:iommu=...": options only, discovery */
		addr[0] = 0;
	if (addr[0])
		rc = norm_bdf(addr, v->bdf, sizeof v->bdf);
	else if ((rc = abb_vfio_find(v->sys.sysfs_root, NULL, v->bdf, sizeof v->bdf)) > 0)
		rc = 0;
	if (rc)
		goto fail;

	snprintf(path, sizeof path, "%s/bus/pci/devices/%s", v->sys.sysfs_root, v->bdf);
	if (v->sys.access(path, F_OK)) {
		rc = abb_err(-ENODEV, "vfio: no PCI device %s (%s missing; see lspci -D -d "
			     "10dc:0153)", v->bdf, path);
		goto fail;
	}
	/* the IDs before any advice to bind it: vfio:0000:00:00.0 (a host
	 * bridge) must not be told to go to vfio-pci. IDs that cannot be read
	 * are left to the VERSION check after the open. */
	{
		unsigned vid, did;
		long cls;
		char what[64];

		if (abb_vfio_ids(v->sys.sysfs_root, v->bdf, &vid, &did, &cls) == 0 &&
		    (vid != ABB_VENDOR_ID || did != ABB_DEVICE_ID)) {
			abb_vfio_class_name(cls, what, sizeof what);
			rc = abb_err(-ENODEV, "vfio: %s is not an ABB: it is %04x:%04x%s%s%s, the "
				     "ABB is %04x:%04x; give the ABB's address (lspci -D -d "
				     "%04x:%04x) or none (\"vfio\" finds it)", v->bdf, vid, did,
				     what[0] ? " (" : "", what, what[0] ? ")" : "", ABB_VENDOR_ID,
				     ABB_DEVICE_ID, ABB_VENDOR_ID, ABB_DEVICE_ID);
			goto fail;
		}
	}
	snprintf(path, sizeof path, "%s/bus/pci/devices/%s/driver", v->sys.sysfs_root, v->bdf);
	if (abb_vfio_link_base(v->sys.readlink, path, drv, sizeof drv))
		drv[0] = 0;
	if (strcmp(drv, "vfio-pci")) {
		const char *sr = v->sys.sysfs_root;

		if (drv[0])
			rc = abb_err(-ENODEV, "vfio: %s is bound to %s, not to vfio-pci; as root: "
				     "modprobe vfio-pci; echo %s > %s/bus/pci/drivers/%s/unbind; echo "
				     "10dc 0153 > %s/bus/pci/drivers/vfio-pci/new_id", v->bdf, drv,
				     v->bdf, sr, drv, sr);
		else
			rc = abb_err(-ENODEV, "vfio: %s is bound to no driver, not to vfio-pci; as "
				     "root: modprobe vfio-pci; echo 10dc 0153 > "
				     "%s/bus/pci/drivers/vfio-pci/new_id", v->bdf, sr);
		goto fail;
	}
	snprintf(path, sizeof path, "%s/bus/pci/devices/%s/iommu_group", v->sys.sysfs_root, v->bdf);
	if (abb_vfio_link_base(v->sys.readlink, path, grp, sizeof grp)) {
		rc = abb_err(-ENODEV, "vfio: %s has no IOMMU group; enable the IOMMU (intel_iommu=on "
			     "or amd_iommu=on on the kernel command line)", v->bdf);
		goto fail;
	}

	rc = parse_iommu(v, args, &mode);
	if (!rc) {
		snprintf(path, sizeof path, "%s/vfio/vfio", v->sys.dev_root);
		if (mode == MODE_AUTO)
			mode = v->sys.access(path, F_OK) && cdev_usable(v) ? MODE_IOMMUFD : MODE_GROUP;
		rc = mode == MODE_IOMMUFD ? open_iommufd(v) : open_group(v, grp);
	}
	if (rc)
		goto fail;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_INFO, &di) == 0 &&
	    (di.flags & VFIO_DEVICE_FLAGS_RESET))
		v->sys.ioctl(v->device, VFIO_DEVICE_RESET, NULL);
	rc = region(v, VFIO_PCI_CONFIG_REGION_INDEX, &ri);
	if (rc)
		goto fail;
	v->cfg_off = ri.offset;
	rc = setup_bar(v, 0);
	if (!rc)
		rc = setup_bar(v, 1);
	if (!rc)
		rc = command(v, 0x6, 0); /* memory space, bus master */
	if (!rc)
		rc = setup_irq(v);
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
	} else if (v->sys.pread(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4) {
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
	else if (v->sys.pwrite(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4)
		return abb_err(-EIO, "vfio: register write at 0x%x failed", off);
	return 0;
}

/* BAR1 PIO: aligned 32-bit accesses where possible, bytes at the edges. */
static int vfio_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct vfio *v = V(dev);
	uint8_t *out = buf;

	if (!v->bar[1]) {
		if (v->sys.pread(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
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
		if (v->sys.pwrite(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
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
 * links m in (sorted by iova). With v->lock held. */
static int iova_alloc(struct vfio *v, struct vmap *m)
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
	m->iova = at; /* the cursor moves when the kernel accepted it */
	for (link = &v->maps; *link && (*link)->iova < at; link = &(*link)->next)
		;
	m->next = *link;
	*link = m;
	return 0;
}

static void unlink_map(struct vfio *v, struct vmap *m)
{
	for (struct vmap **l = &v->maps; *l; l = &(*l)->next)
		if (*l == m) {
			*l = m->next;
			return;
		}
}

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

static int vfio_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
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
	rc = iova_alloc(v, m);
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
			unlink_map(v, m);
		} else {
			v->pinned += m->size;
			v->cursor = m->iova + m->size;
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

static uint64_t mono_ns(struct vfio *v)
{
	struct timespec ts = {0, 0};

	v->sys.clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Moves pending eventfd counts into v->irqs; an INTx that fired is masked
 * by the kernel now. With v->lock held. */
static void drain(struct vfio *v)
{
	uint64_t n;

	if (v->sys.read(v->irq_fd, &n, sizeof n) == (ssize_t)sizeof n && n) {
		v->irqs += n;
		if (v->irq_mode == IRQ_INTX)
			v->masked = 1;
	}
}

/* INTx: lets the line fire again (the source was cleared). With v->lock. */
static int unmask_locked(struct vfio *v)
{
	struct vfio_irq_set set = {
		.argsz = sizeof set,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK,
		.index = VFIO_PCI_INTX_IRQ_INDEX,
		.start = 0,
		.count = 1,
	};

	v->masked = 0;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, &set))
		return abb_err(-errno, "vfio: unmasking INTx of %s: %s", v->bdf, strerror(errno));
	return 0;
}

static int vfio_irq_unmask(abb_dev *dev)
{
	struct vfio *v = V(dev);
	int rc = 0;

	if (v->irq_mode != IRQ_INTX)
		return 0;
	pthread_mutex_lock(&v->lock);
	drain(v);
	rc = unmask_locked(v);
	pthread_mutex_unlock(&v->lock);
	return rc;
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
		return abb_err(-ENOTSUP, "vfio: neither MSI nor INTx could be set up for %s; use "
			       "polling (no ABB_DMA_IRQ)", v->bdf);
	return 0;
}

static int vfio_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct vfio *v = V(dev);
	uint64_t start = mono_ns(v);

	if (v->irq_fd < 0)
		return vfio_irq_check(dev);
	for (;;) {
		struct pollfd pfd = {.fd = v->irq_fd, .events = POLLIN};
		int64_t slice = VFIO_IRQ_SLICE_NS;
		struct timespec ts;
		uint64_t n;

		pthread_mutex_lock(&v->lock);
		drain(v);
		n = v->irqs;
		/* A line that fired stays masked until its source is cleared;
		 * a waiter that saw nothing new sleeps with it unmasked, so an
		 * interrupt for it can come (a spurious one is rechecked). */
		if (n <= *seen && v->masked)
			unmask_locked(v);
		pthread_mutex_unlock(&v->lock);
		if (n > *seen) {
			*seen = n;
			return 0;
		}
		if (timeout_ns >= 0) {
			int64_t left = timeout_ns - (int64_t)(mono_ns(v) - start);

			if (left <= 0)
				return abb_err(-ETIMEDOUT, "no interrupt within %lld ns",
					       (long long)timeout_ns);
			if (left < slice)
				slice = left;
		}
		/* Another waiter may drain the eventfd first: hence the slice. */
		ts.tv_sec = (time_t)(slice / 1000000000);
		ts.tv_nsec = (long)(slice % 1000000000);
		v->sys.poll(&pfd, 1, &ts);
	}
}

static int vfio_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = mono_ns(V(dev));
	return 0;
}

static int vfio_delay_ns(abb_dev *dev, int64_t ns)
{
	struct vfio *v = V(dev);
	struct timespec req = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)}, rem;

	if (ns <= 0)
		return 0;
	while (v->sys.nanosleep(&req, &rem) && errno == EINTR)
		req = rem;
	return 0;
}

const char *abb_vfio_irq_mode(const abb_dev *dev)
{
	if (!dev || dev->be != &abb_backend_vfio || !dev->be_priv)
		return NULL;
	switch (V(dev)->irq_mode) {
	case IRQ_MSI:
		return "MSI";
	case IRQ_INTX:
		return "INTx";
	default:
		return "none";
	}
}

const struct abb_backend abb_backend_vfio = {
	.name = "vfio",
	.open = vfio_open,
	.close = vfio_close,
	.quiesce = vfio_quiesce,
	.reg_read = vfio_reg_read,
	.reg_write = vfio_reg_write,
	.mem_read = vfio_mem_read,
	.mem_write = vfio_mem_write,
	.map = vfio_map,
	.unmap = vfio_unmap,
	.irq_wait = vfio_irq_wait,
	.irq_count = vfio_irq_count,
	.irq_check = vfio_irq_check,
	.irq_unmask = vfio_irq_unmask,
	.now_ns = vfio_now_ns,
	.delay_ns = vfio_delay_ns,
};
