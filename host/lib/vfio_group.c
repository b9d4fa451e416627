/*
 * vfio_group.c - the legacy VFIO path (URI option iommu=group): the
 * container /dev/vfio/vfio with the type-1 v2 IOMMU (v1 as a fallback),
 * the group /dev/vfio/<N>, and the device fd from the group. The IOMMU's
 * page sizes and IOVA ranges come from VFIO_IOMMU_GET_INFO (its
 * VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE capability); buffers are mapped on
 * the container (vfio_dma.c). Every failure says what to check: vfio-pci
 * not loaded, permissions, a no-IOMMU group, a group that is not viable,
 * no interrupt remapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "vfio_priv.h"

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
						     (i + 1) * sizeof r->iova_ranges[0] <= argsz; i++)
					if (vfio_iova_add_range(v, r->iova_ranges[i].start,
								r->iova_ranges[i].end))
						break; /* the table is full */
			}
			off = h->next;
		}
	}
	free(info);
	vfio_iova_finish(v);
	return 0;
}

int vfio_group_open(struct vfio *v, const char *grp)
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

void vfio_group_release(struct vfio *v)
{
	if (v->group >= 0)
		v->sys.close(v->group);
	if (v->container >= 0)
		v->sys.close(v->container);
}
