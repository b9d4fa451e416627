/*
 * vfio_emu.c - the emulated VFIO kernel (see vfio_emu.h): the system-call
 * seam of libabb's vfio backend implemented on a fake sysfs/dev tree
 * (vfio_emu_tree.c) and the simulator.
 *
 * Rules of the kernel it enforces (errno as the kernel gives it; each is
 * tested in test_vfio.c):
 *   - order: a group is added to a container (VFIO_GROUP_SET_CONTAINER)
 *     before VFIO_SET_IOMMU (EINVAL without a group); VFIO_SET_IOMMU before
 *     VFIO_IOMMU_GET_INFO / MAP_DMA / UNMAP_DMA and before
 *     VFIO_GROUP_GET_DEVICE_FD (EINVAL); a second SET_CONTAINER (EINVAL);
 *     a second SET_IOMMU (EBUSY); an IOMMU type not offered (EINVAL);
 *   - group viability: SET_CONTAINER of a group that is not viable (a
 *     device of the group bound to a host driver): EPERM; a group open
 *     twice: EBUSY; a device fd taken twice: EBUSY; an unknown device
 *     name: ENODEV;
 *   - no interrupt remapping: VFIO_SET_IOMMU EPERM (option no_irq_remap);
 *   - a noiommu group (/dev/vfio/noiommu-N) accepts only the no-IOMMU
 *     type: SET_IOMMU with a type-1 IOMMU EINVAL;
 *   - MAP_DMA: flags READ and/or WRITE (EINVAL otherwise), vaddr, iova and
 *     size multiples of the smallest IOMMU page and size > 0 (EINVAL),
 *     [iova, iova+size) inside one reported IOVA range (EINVAL),
 *     overlapping an existing mapping (EEXIST), pinned bytes beyond
 *     RLIMIT_MEMLOCK (ENOMEM), WRITE on memory that is not writable or
 *     vaddr not mapped (EFAULT);
 *   - UNMAP_DMA: iova and size aligned (EINVAL); a range that cuts a
 *     mapping in two (type-1 v2: EINVAL); reports the bytes unmapped;
 *   - regions: pread/pwrite inside the region (EINVAL), mmap only of a
 *     region with VFIO_REGION_INFO_FLAG_MMAP (EINVAL);
 *   - sysfs resource1_wc exists only while BAR1 is prefetchable (ENOENT);
 *     its mmap is refused (EINVAL) unless option res_wc 3 (vfio_emu.h);
 *   - interrupts: one index at a time (EINVAL when another has an
 *     eventfd); INTx is automasked when it fires (its eventfd is signalled
 *     once, the line stays masked until VFIO_IRQ_SET_ACTION_UNMASK, which
 *     signals again if the line is still asserted); MSI eventfds are
 *     signalled on every interrupt; an index with count 0 refuses
 *     eventfds (EINVAL);
 *   - VFIO_DEVICE_RESET only with VFIO_DEVICE_FLAGS_RESET (EINVAL else):
 *     the board is hot reset (its registers back to reset values), the
 *     IOMMU mappings of the container stay;
 *   - closing the container removes its mappings; UNMAP_DMA while the
 *     device's bus master bit is on is counted (unmap_with_master).
 *   - the iommufd/cdev path (options cdev, iommufd_only): the device cdev
 *     /dev/vfio/devices/vfio0 (open twice: EBUSY) takes no ioctl but
 *     VFIO_DEVICE_BIND_IOMMUFD until bound (EINVAL), and no region, irq or
 *     reset ioctl, pread/pwrite or mmap until attached to an IOAS
 *     (VFIO_DEVICE_ATTACH_IOMMUFD_PT; EINVAL); BIND twice (EINVAL), flags
 *     not 0 (EINVAL), an fd that is not /dev/iommu (EBADF), the group open
 *     (EBUSY); ATTACH of an unknown IOAS (ENOENT), without interrupt
 *     remapping (EPERM); IOMMU_IOAS_ALLOC flags not 0 (EOPNOTSUPP);
 *     IOMMU_IOAS_IOVA_RANGES with too little room (EMSGSIZE and the count);
 *     IOMMU_IOAS_MAP: unknown IOAS (ENOENT), unknown flags (EOPNOTSUPP),
 *     neither READABLE nor WRITEABLE (EINVAL), without FIXED_IOVA (not
 *     emulated: EOPNOTSUPP), iova, length or user_va not aligned to the
 *     IOVA alignment (EINVAL), outside the ranges (EINVAL), overlap
 *     (EEXIST), memlock (ENOMEM), WRITEABLE on read-only memory (EFAULT);
 *     IOMMU_IOAS_UNMAP of a range that cuts an area or covers none
 *     (ENOENT), reports the bytes unmapped; IOMMU_DESTROY of an IOAS a
 *     device is attached to (EBUSY); closing /dev/iommu drops the IOAS.
 *
 * Device time: clock_gettime(CLOCK_MONOTONIC) is the simulator's time,
 * nanosleep advances it, poll() on the interrupt eventfd waits for the
 * simulator's interrupts (abbsim_wait_irq) up to its timeout in device
 * time.
 *
 * This file is the seam: fds, dispatch, device time, installation; the
 * board, the IOMMU and the group/device are vfio_emu_board.c,
 * vfio_emu_iommu.c and vfio_emu_device.c.
 *
 * Fds of the container, group and device are real fds (of /dev/null), so
 * their numbers never collide with other fds of the process; eventfds are
 * real eventfds.
 */
#define _GNU_SOURCE
#include "vfio_emu_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "vfio_emu_tree.h"

struct emu_state emu = {.lock = PTHREAD_MUTEX_INITIALIZER, .container_fd = -1, .group_fd = -1,
			.device_fd = -1, .irq_index = -1, .irq_efd = -1, .iommufd_fd = -1};

/* Link injection (vfio_emu_fail). */
static struct {
	char call[16];
	unsigned long request;
	int err;
	unsigned skip;
} F;

void vfio_emu_fail(const char *call, unsigned long request, int err, unsigned skip)
{
	pthread_mutex_lock(&emu.lock);
	snprintf(F.call, sizeof F.call, "%s", call ? call : "");
	F.request = request;
	F.err = err;
	F.skip = skip;
	pthread_mutex_unlock(&emu.lock);
}

/* 1 (errno set, the injection used up) if this call is to fail. */
int emu_inject(const char *call, unsigned long request)
{
	int hit = 0;

	pthread_mutex_lock(&emu.lock);
	if (F.call[0] && !strcmp(F.call, call) && (!F.request || F.request == request)) {
		if (F.skip)
			F.skip--;
		else {
			F.call[0] = 0;
			errno = F.err;
			hit = 1;
		}
	}
	pthread_mutex_unlock(&emu.lock);
	return hit;
}

/* Refuses a call: errno err, counted, described. Returns -1. */
int emu_rule(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(emu.st.last_rule, sizeof emu.st.last_rule, fmt, ap);
	va_end(ap);
	emu.st.rule_errors++;
	errno = err;
	return -1;
}

enum kind emu_kind_of(int fd)
{
	return fd >= 0 && fd < MAX_FD ? emu.fds[fd] : K_NONE;
}

int emu_new_fd(enum kind k)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fd >= MAX_FD) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	emu.fds[fd] = k;
	return fd;
}

static int emu_open(const char *path, int flags)
{
	char p[512];
	int fd;

	if (emu_inject("open", 0))
		return -1;
	snprintf(p, sizeof p, "%s/bus/pci/devices/" VFIO_EMU_BDF "/resource1_wc", emu.sysfs);
	if (strcmp(path, p) == 0) {
		uint32_t bar1 = 0;

		/* the PCI core makes the file for a prefetchable BAR only (the
		 * config read outside the lock: it waits for the simulator) */
		if (emu.sim_open)
			emu_sim.cfg_read(0x14, 4, &bar1);
		pthread_mutex_lock(&emu.lock);
		if (emu.o.res_wc == 1 || !(bar1 & 0x8)) {
			errno = ENOENT;
			fd = -1;
		} else if (emu.o.res_wc == 2) {
			fd = emu_rule(EACCES, "open %s: permission denied (root's)", path);
		} else {
			fd = emu_new_fd(K_RESWC);
		}
		pthread_mutex_unlock(&emu.lock);
		return fd;
	}
	pthread_mutex_lock(&emu.lock);
	snprintf(p, sizeof p, "%s/vfio/vfio", emu.dev);
	if (strcmp(path, p) == 0 && emu.o.container_eacces)
		fd = emu_rule(EACCES, "open %s: permission denied", path);
	else if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		fd = emu_new_fd(K_CONTAINER);
		if (fd >= 0) {
			emu.container_fd = fd;
			emu.st.containers++;
		}
	} else {
		fd = -2;
	}
	if (fd != -2) {
		pthread_mutex_unlock(&emu.lock);
		return fd;
	}
	snprintf(p, sizeof p, "%s/iommu", emu.dev);
	if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		if ((fd = emu_new_fd(K_IOMMUFD)) >= 0) {
			emu.iommufd_fd = fd;
			emu.st.iommufds++;
		}
		pthread_mutex_unlock(&emu.lock);
		return fd;
	}
	snprintf(p, sizeof p, "%s/vfio/devices/vfio0", emu.dev);
	if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		if (emu.device_fd >= 0)
			fd = emu_rule(EBUSY, "open %s: the device is open", path);
		else if ((fd = emu_new_fd(K_DEVICE)) >= 0) {
			emu.device_fd = fd;
			emu.dev_cdev = 1;
			emu.cdev_bound = emu.cdev_attached = 0;
			emu.st.devices++;
		}
		pthread_mutex_unlock(&emu.lock);
		return fd;
	}
	snprintf(p, sizeof p, "%s/vfio/%s" VFIO_EMU_GROUP, emu.dev, emu.o.noiommu ? "noiommu-" : "");
	if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		if (emu.o.group_eacces)
			fd = emu_rule(EACCES, "open %s: permission denied", path);
		else if (emu.o.group_busy || emu.group_fd >= 0)
			fd = emu_rule(EBUSY, "open %s: the group is open", path);
		else if ((fd = emu_new_fd(K_GROUP)) >= 0) {
			emu.group_fd = fd;
			emu.st.groups++;
		}
		pthread_mutex_unlock(&emu.lock);
		return fd;
	}
	pthread_mutex_unlock(&emu.lock);
	if (strncmp(path, emu.dev, strlen(emu.dev)) == 0) {
		errno = ENOENT; /* other device nodes of the fake /dev */
		return -1;
	}
	return open(path, flags);
}

static int emu_close(int fd)
{
	pthread_mutex_lock(&emu.lock);
	switch (emu_kind_of(fd)) {
	case K_CONTAINER:
		emu_drop_maps();
		emu.container_fd = -1;
		emu.iommu_type = 0;
		emu.group_in_container = 0;
		emu.st.containers--;
		break;
	case K_GROUP:
		emu.group_fd = -1;
		emu.st.groups--;
		break;
	case K_DEVICE:
		emu_irq_off();
		emu_board_close();
		emu.device_fd = -1;
		emu.dev_cdev = emu.cdev_bound = emu.cdev_attached = 0;
		emu.st.devices--;
		break;
	case K_IOMMUFD:
		/* closing the iommufd destroys its IOAS and mappings */
		if (emu.ioas_id) {
			emu_drop_maps();
			emu.ioas_id = 0;
			emu.st.ioas--;
		}
		emu.iommufd_fd = -1;
		emu.st.iommufds--;
		break;
	case K_EVENTFD:
		if (emu.irq_efd == fd)
			emu_irq_off();
		break;
	default:
		break;
	}
	if (fd >= 0 && fd < MAX_FD)
		emu.fds[fd] = K_NONE;
	pthread_mutex_unlock(&emu.lock);
	return close(fd);
}

static int emu_ioctl(int fd, unsigned long req, void *arg)
{
	int rc;

	if (emu_inject("ioctl", req))
		return -1;
	pthread_mutex_lock(&emu.lock);
	emu_service();
	switch (emu_kind_of(fd)) {
	case K_CONTAINER:
		rc = emu_container_ioctl(req, arg);
		break;
	case K_GROUP:
		rc = emu_group_ioctl(req, arg);
		break;
	case K_DEVICE:
		rc = emu_device_ioctl(req, arg);
		break;
	case K_IOMMUFD:
		rc = emu_iommufd_ioctl(req, arg);
		break;
	default:
		rc = emu_rule(EBADF, "ioctl on fd %d", fd);
		break;
	}
	pthread_mutex_unlock(&emu.lock);
	return rc;
}

static ssize_t emu_pread(int fd, void *buf, size_t n, off_t off)
{
	if (emu_inject("pread", 0))
		return -1;
	if (emu_kind_of(fd) != K_DEVICE)
		return pread(fd, buf, n, off);
	return emu_dev_rw(fd, buf, n, off, 0);
}

static ssize_t emu_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (emu_inject("pwrite", 0))
		return -1;
	if (emu_kind_of(fd) != K_DEVICE)
		return pwrite(fd, buf, n, off);
	return emu_dev_rw(fd, (void *)buf, n, off, 1);
}

static ssize_t emu_read(int fd, void *buf, size_t n)
{
	if (emu_inject("read", 0))
		return -1;
	if (emu_kind_of(fd) == K_EVENTFD) {
		pthread_mutex_lock(&emu.lock);
		emu_service();
		pthread_mutex_unlock(&emu.lock);
	}
	return read(fd, buf, n);
}

static int emu_eventfd(unsigned int initval, int flags)
{
	int fd;

	if (emu_inject("eventfd", 0))
		return -1;
	fd = eventfd(initval, flags);
	if (fd >= 0 && fd < MAX_FD) {
		pthread_mutex_lock(&emu.lock);
		emu.fds[fd] = K_EVENTFD;
		pthread_mutex_unlock(&emu.lock);
	}
	return fd;
}

/* poll on the interrupt eventfd waits in device time. */
static int emu_poll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout)
{
	uint64_t end_ps = 0;

	if (nfds != 1 || emu_kind_of(fds[0].fd) != K_EVENTFD || !emu.sim_open)
		return ppoll(fds, nfds, timeout, NULL);
	if (timeout)
		end_ps = emu_sim.now_ps() + ((uint64_t)timeout->tv_sec * 1000000000u +
					 (uint64_t)timeout->tv_nsec) * 1000u;
	for (;;) {
		struct timespec zero = {0, 0};
		uint64_t seen;
		int rc;

		pthread_mutex_lock(&emu.lock);
		emu_service();
		seen = emu.irq_seen;
		pthread_mutex_unlock(&emu.lock);
		rc = ppoll(fds, 1, &zero, NULL);
		if (rc != 0)
			return rc;
		if (timeout) {
			uint64_t now = emu_sim.now_ps();

			if (now >= end_ps)
				return 0;
			rc = emu_sim.wait_irq(&seen, (int64_t)((end_ps - now + 999) / 1000));
		} else {
			rc = emu_sim.wait_irq(&seen, -1);
		}
		if (rc && rc != -ETIMEDOUT) {
			errno = -rc;
			return -1;
		}
	}
}

static int emu_getrlimit(int res, struct rlimit *rl)
{
	if (res != RLIMIT_MEMLOCK)
		return getrlimit((__rlimit_resource_t)res, rl);
	rl->rlim_cur = rl->rlim_max = emu.o.memlock ? emu.o.memlock : RLIM_INFINITY;
	return 0;
}

static int emu_clock_gettime(clockid_t clk, struct timespec *ts)
{
	uint64_t ns;

	if (clk != CLOCK_MONOTONIC || !emu.sim_open)
		return clock_gettime(clk, ts);
	ns = emu_sim.now_ps() / 1000;
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}

static int emu_nanosleep(const struct timespec *req, struct timespec *rem)
{
	int64_t ns;
	int rc;

	if (emu_inject("nanosleep", 0)) {
		if (rem)
			*rem = *req; /* interrupted before any time passed */
		return -1;
	}
	if (!emu.sim_open)
		return nanosleep(req, rem);
	ns = (int64_t)req->tv_sec * 1000000000 + req->tv_nsec;
	rc = emu_sim.advance(ns);
	pthread_mutex_lock(&emu.lock);
	emu_service();
	pthread_mutex_unlock(&emu.lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

static int emu_munmap(void *addr, size_t len)
{
	pthread_mutex_lock(&emu.lock);
	if (emu.ram_wc == addr)
		emu.ram_wc = NULL;
	for (int i = 0; i < 2; i++)
		if (emu.ram_bar[i] == addr)
			emu.ram_bar[i] = NULL;
	pthread_mutex_unlock(&emu.lock);
	return munmap(addr, len);
}

static int emu_ioctl_entry(int fd, unsigned long req, void *arg)
{
	return emu_ioctl(fd, req, arg);
}

int vfio_emu_install(const struct vfio_emu_opts *opts)
{
	/* the first 64 bytes (what a non-root user reads): IDs, class, INTA */
	uint8_t cfg[64] = {0xdc, 0x10, 0x53, 0x01, 0x06, 0x00, 0x10, 0x00, 0, 0, 0x00, 0xff};
	int rc;

	vfio_emu_remove();
	rc = emu_load_sim();
	if (rc)
		return rc;
	pthread_mutex_lock(&emu.lock);
	memset(&emu.o, 0, sizeof emu.o);
	if (opts)
		emu.o = *opts;
	memset(&emu.st, 0, sizeof emu.st);
	memset(&F, 0, sizeof F);
	cfg[0x3d] = emu.o.no_intx ? 0 : 1;
	rc = vfio_emu_tree_make(emu.root, sizeof emu.root, &emu.o, cfg, sizeof cfg);
	if (rc) {
		pthread_mutex_unlock(&emu.lock);
		fprintf(stderr, "vfio_emu: cannot make the sysfs tree: %s\n", strerror(-rc));
		return rc;
	}
	snprintf(emu.sysfs, sizeof emu.sysfs, "%s/sys", emu.root);
	snprintf(emu.dev, sizeof emu.dev, "%s/dev", emu.root);
	emu.sys = (struct abb_vfio_sys){
		.open = emu_open,
		.close = emu_close,
		.ioctl = emu_ioctl_entry,
		.mmap = emu_dev_mmap,
		.munmap = emu_munmap,
		.pread = emu_pread,
		.pwrite = emu_pwrite,
		.read = emu_read,
		.write = write,
		.eventfd = emu_eventfd,
		.poll = emu_poll,
		.readlink = readlink,
		.access = access,
		.getrlimit = emu_getrlimit,
		.clock_gettime = emu_clock_gettime,
		.nanosleep = emu_nanosleep,
		.sysfs_root = emu.sysfs,
		.dev_root = emu.dev,
	};
	emu.installed = 1;
	pthread_mutex_unlock(&emu.lock);
	abb_vfio_set_sys(&emu.sys);
	return 0;
}

void vfio_emu_remove(void)
{
	if (!emu.installed)
		return;
	abb_vfio_set_sys(NULL);
	pthread_mutex_lock(&emu.lock);
	vfio_emu_tree_remove(emu.root);
	emu.root[0] = 0;
	emu.installed = 0;
	pthread_mutex_unlock(&emu.lock);
}

int vfio_emu_installed(void)
{
	return emu.installed;
}

const struct vfio_emu_opts *vfio_emu_opts(void)
{
	return &emu.o;
}

void vfio_emu_stats(struct vfio_emu_stats *out)
{
	pthread_mutex_lock(&emu.lock);
	emu_service();
	*out = emu.st;
	out->irq_index = emu.irq_index;
	pthread_mutex_unlock(&emu.lock);
}

void vfio_emu_stats_reset(void)
{
	pthread_mutex_lock(&emu.lock);
	{
		unsigned c = emu.st.containers, g = emu.st.groups, d = emu.st.devices, m = emu.st.maps;
		unsigned fds = emu.st.iommufds, ioas = emu.st.ioas;
		uint64_t p = emu.st.pinned;

		memset(&emu.st, 0, sizeof emu.st);
		emu.st.containers = c, emu.st.groups = g, emu.st.devices = d, emu.st.maps = m;
		emu.st.iommufds = fds, emu.st.ioas = ioas;
		emu.st.pinned = p;
	}
	pthread_mutex_unlock(&emu.lock);
}

const char *vfio_emu_sysfs_root(void)
{
	return emu.sysfs;
}
