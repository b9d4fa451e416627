/*
 * vfio_iommufd_abi.h - the few iommufd and VFIO-cdev uAPI items the vfio
 * backend uses, for builds against kernel headers older than Linux 6.6
 * (Debian 12 ships 6.1: no linux/iommufd.h, no VFIO cdev ioctls).
 *
 * Written from the documented kernel ABI (Documentation/userspace-api/
 * iommufd.rst and vfio.rst; include/uapi/linux/iommufd.h and vfio.h of
 * Linux 6.6): ioctl type ';' (0x3b); iommufd commands are numbered from
 * 0x80 (DESTROY 0x80, IOAS_ALLOC 0x81, ALLOW_IOVAS 0x82, COPY 0x83,
 * IOVA_RANGES 0x84, MAP 0x85, UNMAP 0x86); the VFIO cdev commands are
 * VFIO_BASE (100) + 18 (BIND_IOMMUFD) and + 19 (ATTACH_IOMMUFD_PT). All
 * are _IO() requests whose argument starts with its own size (size or
 * argsz), so the numbers carry no struct size.
 *
 * Each item is guarded so that newer system headers win.
 */
#ifndef ABB_VFIO_IOMMUFD_ABI_H
#define ABB_VFIO_IOMMUFD_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/vfio.h>

#if __has_include(<linux/iommufd.h>)
#include <linux/iommufd.h>
#endif

#ifndef IOMMUFD_TYPE
#define IOMMUFD_TYPE (';')
#endif

#ifndef IOMMU_DESTROY
struct iommu_destroy {
	__u32 size;
	__u32 id;
};
#define IOMMU_DESTROY _IO(IOMMUFD_TYPE, 0x80)
#endif

#ifndef IOMMU_IOAS_ALLOC
struct iommu_ioas_alloc {
	__u32 size;
	__u32 flags;       /* must be 0 */
	__u32 out_ioas_id;
};
#define IOMMU_IOAS_ALLOC _IO(IOMMUFD_TYPE, 0x81)
#endif

#ifndef IOMMU_IOAS_IOVA_RANGES
struct iommu_iova_range {
	__aligned_u64 start;
	__aligned_u64 last; /* inclusive */
};
struct iommu_ioas_iova_ranges {
	__u32 size;
	__u32 ioas_id;
	__u32 num_iovas;        /* in: room in allowed_iovas; out: how many (EMSGSIZE if more) */
	__u32 __reserved;
	__aligned_u64 allowed_iovas; /* user pointer to struct iommu_iova_range[] */
	__aligned_u64 out_iova_alignment;
};
#define IOMMU_IOAS_IOVA_RANGES _IO(IOMMUFD_TYPE, 0x84)
#endif

#ifndef IOMMU_IOAS_MAP
#define IOMMU_IOAS_MAP_FIXED_IOVA (1u << 0)
#define IOMMU_IOAS_MAP_WRITEABLE (1u << 1)
#define IOMMU_IOAS_MAP_READABLE (1u << 2)
struct iommu_ioas_map {
	__u32 size;
	__u32 flags;
	__u32 ioas_id;
	__u32 __reserved;
	__aligned_u64 user_va;
	__aligned_u64 length;
	__aligned_u64 iova; /* in with FIXED_IOVA, else out */
};
#define IOMMU_IOAS_MAP _IO(IOMMUFD_TYPE, 0x85)
#endif

#ifndef IOMMU_IOAS_UNMAP
struct iommu_ioas_unmap {
	__u32 size;
	__u32 ioas_id;
	__aligned_u64 iova;
	__aligned_u64 length; /* in: bytes; out: bytes unmapped */
};
#define IOMMU_IOAS_UNMAP _IO(IOMMUFD_TYPE, 0x86)
#endif

#ifndef VFIO_DEVICE_BIND_IOMMUFD
struct vfio_device_bind_iommufd {
	__u32 argsz;
	__u32 flags;   /* must be 0 */
	__s32 iommufd;
	__u32 out_devid;
};
#define VFIO_DEVICE_BIND_IOMMUFD _IO(VFIO_TYPE, VFIO_BASE + 18)
#endif

#ifndef VFIO_DEVICE_ATTACH_IOMMUFD_PT
struct vfio_device_attach_iommufd_pt {
	__u32 argsz;
	__u32 flags;   /* must be 0 */
	__u32 pt_id;   /* an IOAS (or HWPT) id */
};
#define VFIO_DEVICE_ATTACH_IOMMUFD_PT _IO(VFIO_TYPE, VFIO_BASE + 19)
#endif

#endif
