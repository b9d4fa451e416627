/*
 * vfio_emu.h - an emulated VFIO kernel for the vfio backend of libabb.
 *
 * vfio_emu_install() creates a fake sysfs tree and a fake /dev in a
 * temporary directory and installs a system-call seam (struct abb_vfio_sys,
 * host/lib/vfio_seam.h) that emulates, on top of them, the VFIO container
 * (/dev/vfio/vfio), the group (/dev/vfio/<N>), the device fd and the IOMMU
 * of the type-1 driver. The device is the simulator (libabbsim.so, loaded
 * with dlopen as the sim backend loads it): BAR regions are
 * abbsim_mmio_read/write, the config region abbsim_cfg_read/write,
 * VFIO_IOMMU_MAP_DMA is abbsim_iommu_map_at, interrupts come from the
 * simulator's interrupt count. poll(), nanosleep() and
 * clock_gettime(CLOCK_MONOTONIC) run in device time (lockstep).
 *
 * The emulator enforces the kernel's documented rules and returns its
 * errno (see vfio_emu.c for the list); each broken rule is also counted
 * and the last one described in vfio_emu_stats.
 */
#ifndef VFIO_EMU_H
#define VFIO_EMU_H

#include <stdint.h>

/* The emulated device's address, and its URI. */
#define VFIO_EMU_BDF "0000:01:00.0"
#define VFIO_EMU_URI "vfio:" VFIO_EMU_BDF
#define VFIO_EMU_GROUP "7"

/* Emulator options; all zero = a healthy machine (type-1 v2 IOMMU with
 * interrupt remapping, x86-like IOVA ranges, 4 KiB/2 MiB/1 GiB pages, no
 * locked-memory limit, BARs without the MMAP flag, MSI if the simulated
 * board has the capability, INTx otherwise). */
struct vfio_emu_opts {
	unsigned no_msi;        /* MSI index reports count 0 (the board lacks MSI) */
	unsigned no_intx;       /* INTx index reports count 0 too */
	unsigned bar_mmap;      /* 0: no MMAP flag; 1: MMAP flag, mmap fails (ENODEV);
				 * 2: MMAP flag, mmap gives RAM holding a snapshot of the
				 * BAR (loads and stores cannot be trapped: they do not
				 * reach the board) */
	unsigned noiommu;       /* the group is /dev/vfio/noiommu-N */
	unsigned not_viable;    /* another device of the group is bound to a host driver */
	const char *driver;     /* the device's driver (NULL: "vfio-pci"; "": none) */
	unsigned no_irq_remap;  /* VFIO_SET_IOMMU fails with EPERM */
	unsigned no_type1v2;    /* only the type-1 v1 IOMMU */
	unsigned no_type1;      /* no type-1 IOMMU at all */
	unsigned iommufd_only;  /* no /dev/vfio/vfio; /dev/iommu and /dev/vfio/devices exist
				 * (the cdev path as with cdev) */
	unsigned cdev;          /* also the iommufd/cdev path: /dev/iommu,
				 * /dev/vfio/devices/vfio0, sysfs <bdf>/vfio-dev/vfio0 */
	unsigned no_vfio_dev;   /* with cdev/iommufd_only: no sysfs vfio-dev entry */
	unsigned no_ranges;     /* VFIO_IOMMU_GET_INFO reports no IOVA range */
	unsigned no_reset;      /* the device has no reset (no VFIO_DEVICE_FLAGS_RESET) */
	unsigned no_iommu_group;/* the device has no iommu_group link */
	uint64_t pgsizes;       /* IOMMU page-size bitmap (0: 4 KiB | 2 MiB | 1 GiB) */
	unsigned nranges;       /* IOVA ranges (0: [0, 0xfedfffff] and [0xfef00000, 2^48-1]) */
	struct {
		uint64_t start, end; /* inclusive, as the kernel reports them */
	} ranges[4];
	uint64_t memlock;       /* RLIMIT_MEMLOCK in bytes (0: unlimited) */
	unsigned group_busy;    /* the group is open elsewhere: EBUSY */
	unsigned group_eacces;  /* no permission on the group file */
	unsigned no_container;  /* no /dev/vfio/vfio (vfio not loaded) */
	unsigned container_eacces; /* no permission on /dev/vfio/vfio */
	unsigned no_group_file; /* the group is in sysfs but /dev/vfio/<N> is missing */
	unsigned no_bar1;       /* BAR1 region of size 0 */
	/* sysfs resource1_wc (the write-combined BAR1 mapping of vfio_pio.c).
	 * 0: there when BAR1 is prefetchable (the simulator's pio=wc, as the
	 * PCI core creates it), mmap refused with EINVAL (the emulator has no
	 * write-combined mapping of the board; a kernel with
	 * CONFIG_IO_STRICT_DEVMEM refuses it so); 1: missing (an architecture
	 * without WC mappings); 2: open refused, EACCES (not root); 3: mmap
	 * gives RAM, as bar_mmap 2 (stores do not reach the board) */
	unsigned res_wc;
};

struct vfio_emu_stats {
	unsigned containers, groups, devices; /* open now */
	unsigned maps;           /* IOMMU mappings now */
	uint64_t pinned;         /* bytes mapped (counted against memlock) */
	unsigned map_calls, unmap_calls, ro_maps;
	unsigned resets;         /* VFIO_DEVICE_RESET */
	unsigned intx_signals, msi_signals, unmasks, intx_masked;
	unsigned mmio_preads, mmio_pwrites, cfg_accesses;
	unsigned unmap_with_master; /* UNMAP_DMA while bus master was on */
	unsigned rule_errors;    /* calls refused for a broken rule */
	char last_rule[256];     /* what the last refused call broke */
	int irq_index;           /* VFIO_PCI_*_IRQ_INDEX with an eventfd, -1: none */
	unsigned iommufds, ioas; /* /dev/iommu fds and IOASes now */
	unsigned binds, attaches;/* VFIO_DEVICE_BIND_IOMMUFD / ATTACH_IOMMUFD_PT that worked */
};

/* Creates the trees and installs the seam (after a vfio_emu_remove of an
 * earlier installation). opts NULL = all zero. 0 or a negative errno
 * (message on stderr). */
int vfio_emu_install(const struct vfio_emu_opts *opts);
/* Uninstalls the seam and deletes the trees (nothing may be open). */
void vfio_emu_remove(void);
/* 1 while installed. */
int vfio_emu_installed(void);
/* The options in effect. */
const struct vfio_emu_opts *vfio_emu_opts(void);
/* Statistics since install (or the last reset of them). */
void vfio_emu_stats(struct vfio_emu_stats *out);
void vfio_emu_stats_reset(void);
/* The sysfs root of the tree (for messages and discovery). */
const char *vfio_emu_sysfs_root(void);
/* Link injection: the next call of the seam function call ("open",
 * "ioctl", "pread", "pwrite", "mmap", "eventfd", "read", "nanosleep") -
 * for "ioctl"
 * only one with this request (0: any) - after skip matching calls fails
 * once with errno err. call NULL cancels. */
void vfio_emu_fail(const char *call, unsigned long request, int err, unsigned skip);


#endif
