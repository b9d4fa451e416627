/*
 * vfio_iommufd.c - the iommufd path of the vfio backend (URI option
 * iommu=iommufd): the device's cdev dev_root/vfio/devices/vfioN (N from
 * sysfs_root/bus/pci/devices/<bdf>/vfio-dev/vfioN) bound to /dev/iommu
 * (VFIO_DEVICE_BIND_IOMMUFD), an IOAS (IOMMU_IOAS_ALLOC) attached to the
 * device (VFIO_DEVICE_ATTACH_IOMMUFD_PT). Buffers are mapped with
 * IOMMU_IOAS_MAP (vfio_dma.c) at IOVAs inside IOMMU_IOAS_IOVA_RANGES, in
 * units of its out_iova_alignment. The uAPI is in vfio_iommufd_abi.h
 * (Debian 12's 6.1 headers lack it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "vfio_iommufd_abi.h"
#include "vfio_priv.h"

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

int vfio_iommufd_usable(struct vfio *v)
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
	for (uint32_t i = 0; i < q.num_iovas && i < VFIO_MAX_RANGES; i++)
		vfio_iova_add_range(v, r[i].start, r[i].last);
	if (!v->nranges)
		return abb_err(-ENOSPC, "vfio: IOMMU_IOAS_IOVA_RANGES reports no usable IOVA range");
	vfio_iova_finish(v);
	return 0;
}

int vfio_iommufd_open(struct vfio *v)
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

void vfio_iommufd_release(struct vfio *v)
{
	if (v->iommufd < 0)
		return;
	if (v->ioas) {
		struct iommu_destroy d = {.size = sizeof d, .id = v->ioas};

		v->sys.ioctl(v->iommufd, IOMMU_DESTROY, &d);
	}
	v->sys.close(v->iommufd);
}
