/*
 * vfio_priv.h - the vfio backend's device state and what its units call
 * in each other (not installed; every function here is hidden in libabb).
 *
 * The units, one job each (the overview is at the top of backend_vfio.c):
 *   backend_vfio.c  the backend table; open (address, binding checks, the
 *                   choice of kernel interface), quiesce and close
 *   vfio_seam.c     the system-call seam (vfio_seam.h)
 *   vfio_group.c    the legacy path: container, group, type-1 IOMMU
 *   vfio_iommufd.c  the iommufd path: device cdev, /dev/iommu, IOAS
 *   vfio_iova.c     the IOVA allocator: usable ranges, next fit
 *   vfio_dma.c      buffer mapping: the kernel's map calls, locked memory
 *   vfio_bar.c      the device's regions: BAR setup, register and BAR1
 *                   PIO, the command register
 *   vfio_pio.c      BAR1 for the CPU's stores: UC or WC mapping, block
 *                   stores of a width, the fence
 *   vfio_irq.c      interrupts: MSI or INTx through an eventfd, waits
 *   vfio_time.c     device time: the seam's CLOCK_MONOTONIC, delays
 * Discovery and diagnosis (vfio_find.c, vfio_sysfs.c) are the public
 * <abb/abb_vfio.h>.
 *
 * Locking: v->lock guards the mappings, the IOVA space and the interrupt
 * count and mask state; the rest is set at open and read-only after it.
 */
#ifndef ABB_VFIO_PRIV_H
#define ABB_VFIO_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <abb/abb_vfio.h>

#include "abb_priv.h"
#include "vfio_seam.h"

#define VFIO_MAX_RANGES 16

/* How the device interrupts (struct vfio.irq_mode). */
enum { IRQ_MODE_NONE, IRQ_MODE_INTX, IRQ_MODE_MSI };

/* One buffer mapped for the device. */
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
	int irq_mode;         /* IRQ_MODE_* */
	int masked;           /* INTx fired and not unmasked yet */
	int iommu_type;       /* VFIO_TYPE1v2_IOMMU or VFIO_TYPE1_IOMMU */
	int iommufd;          /* /dev/iommu (iommufd path), else -1 */
	uint32_t ioas;        /* the IOAS of the iommufd path (0: none) */
	int quiesced;
	int pio_wc;           /* BAR1 (bar[1]) is the WC mapping of sysfs resource1_wc */
	char pio_why[320];    /* the WC mapping's source, or why WC was not had */
};

#define V(dev) ((struct vfio *)(dev)->be_priv)

/* ---- vfio_sysfs.c ---- */
/* The last part of the target of symbolic link path (a driver or group
 * name) into out (n bytes), read with rl (the backend passes its seam's
 * readlink); 0, -errno of rl, -ENAMETOOLONG. */
ABB_HIDDEN int abb_vfio_link_base(ssize_t (*rl)(const char *, char *, size_t), const char *path,
				  char *out, size_t n);

/* ---- vfio_group.c: the legacy container and group ---- */
/* Container, group grp ("7"), type-1 IOMMU and its ranges, device fd;
 * 0 or -errno with a message saying what to check. */
ABB_HIDDEN int vfio_group_open(struct vfio *v, const char *grp);
/* Closes the group and the container (after the device fd). */
ABB_HIDDEN void vfio_group_release(struct vfio *v);

/* ---- vfio_iommufd.c: the device cdev and /dev/iommu ---- */
/* 1 if the path can be tried: the device has a vfio-dev entry and
 * dev_root/iommu exists. */
ABB_HIDDEN int vfio_iommufd_usable(struct vfio *v);
/* /dev/iommu, the device cdev, bind, IOAS, attach, the IOAS's ranges;
 * 0 or -errno with a message. */
ABB_HIDDEN int vfio_iommufd_open(struct vfio *v);
/* Destroys the IOAS and closes /dev/iommu (after the device fd). */
ABB_HIDDEN void vfio_iommufd_release(struct vfio *v);

/* ---- vfio_iova.c: the IOVA allocator ---- */
/* Adds the reported range [first, last] (inclusive, as the kernel reports
 * it), shrunk to whole granules; 0, or -ENOSPC when the table is full. */
ABB_HIDDEN int vfio_iova_add_range(struct vfio *v, uint64_t first, uint64_t last);
/* After the ranges are known: the fallback window if none was reported,
 * the preferred part of them, the cursor at the bottom. */
ABB_HIDDEN void vfio_iova_finish(struct vfio *v);
/* A free block of m->size bytes (next fit) into m->iova, m linked into
 * v->maps; 0 or -ENOSPC with a message. With v->lock held. */
ABB_HIDDEN int vfio_iova_alloc(struct vfio *v, struct vmap *m);
/* The kernel mapped m: the next search starts after it. With v->lock. */
ABB_HIDDEN void vfio_iova_commit(struct vfio *v, const struct vmap *m);
/* Takes m out of v->maps (its block is free again). With v->lock held. */
ABB_HIDDEN void vfio_iova_unlink(struct vfio *v, struct vmap *m);

/* ---- vfio_dma.c: buffers mapped for the device ---- */
ABB_HIDDEN int vfio_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs,
			size_t *nsegs);
ABB_HIDDEN int vfio_unmap(abb_dev *dev, void *ptr, size_t len);
/* Removes every mapping left (at close, bus master off) and frees it. */
ABB_HIDDEN void vfio_dma_release(struct vfio *v);

/* ---- vfio_bar.c: regions ---- */
/* The config region's offset, BAR0 and BAR1 (mmap()ed when allowed; with
 * want_wc write-combined where the kernel offers it, vfio_pio.c);
 * 0 or -errno with a message. */
ABB_HIDDEN int vfio_bar_setup(struct vfio *v, int want_wc);
/* Unmaps the BARs that were mmap()ed. */
ABB_HIDDEN void vfio_bar_release(struct vfio *v);
/* Command register: sets the bits set, clears the bits clear. */
ABB_HIDDEN int vfio_command(struct vfio *v, uint16_t set, uint16_t clear);
ABB_HIDDEN int vfio_reg_read(abb_dev *dev, uint32_t off, uint32_t *val);
ABB_HIDDEN int vfio_reg_write(abb_dev *dev, uint32_t off, uint32_t val);
ABB_HIDDEN int vfio_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len);
ABB_HIDDEN int vfio_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len);

/* ---- vfio_pio.c: BAR1 for the CPU's stores ---- */
/* With want_wc (pio=wc): BAR1 mapped write-combined through sysfs
 * resource1_wc into bar[1] (returns 1), else the reason in pio_why (0);
 * after the config region's offset and bar_size[1] are known, before any
 * access to BAR1 through VFIO. */
ABB_HIDDEN int vfio_pio_setup(struct vfio *v, int want_wc);
/* SFENCE (a full barrier where there is none). */
ABB_HIDDEN void vfio_pio_fence(void);
ABB_HIDDEN int vfio_pio_store(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			      unsigned store_bytes);
ABB_HIDDEN int vfio_pio_flush(abb_dev *dev);
ABB_HIDDEN int vfio_pio_mapping(abb_dev *dev, char *why, size_t n);

/* ---- vfio_irq.c: interrupts ---- */
/* MSI when the device has it, else INTx, else none (polling); 0 or
 * -errno if no eventfd could be made. */
ABB_HIDDEN int vfio_irq_setup(struct vfio *v);
/* The device's interrupt off (quiesce); the eventfd stays. */
ABB_HIDDEN void vfio_irq_disable(struct vfio *v);
/* Closes the eventfd. */
ABB_HIDDEN void vfio_irq_release(struct vfio *v);
ABB_HIDDEN int vfio_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns);
ABB_HIDDEN uint64_t vfio_irq_count(abb_dev *dev);
ABB_HIDDEN int vfio_irq_check(abb_dev *dev);
ABB_HIDDEN int vfio_irq_unmask(abb_dev *dev);

/* ---- vfio_time.c: device time ---- */
/* CLOCK_MONOTONIC of the seam in ns. */
ABB_HIDDEN uint64_t vfio_mono_ns(struct vfio *v);
ABB_HIDDEN int vfio_now_ns(abb_dev *dev, uint64_t *ns);
ABB_HIDDEN int vfio_delay_ns(abb_dev *dev, int64_t ns);

#endif
