/*
 * tb_sysfs.h - generated /sys-like (and /dev-, /proc-like) trees for the
 * tests of discovery, the VFIO binding checks and `abb_tool doctor`.
 *
 * A tree lives in a new directory /tmp/abb-tb-sysfs-XXXXXX:
 *   sys/devices/pci<DDDD>:<BB>/<bdf>/   config (256 bytes), vendor, device,
 *        class, subsystem_vendor, subsystem_device, resource, irq,
 *        driver -> ../../../bus/pci/drivers/<name>,
 *        iommu_group -> ../../../kernel/iommu_groups/<n>
 *   sys/bus/pci/devices/<bdf> -> ../../../devices/pci<DDDD>:<BB>/<bdf>
 *   sys/bus/pci/drivers/<name>/<bdf> -> the device (vfio-pci's directory
 *        also when no device is bound to it, if vfio_loaded)
 *   sys/kernel/iommu_groups/<n>/devices/<bdf> -> the device; name
 *        "vfio-noiommu" in a no-IOMMU tree
 *   sys/class/iommu/dmar0/, with intel-iommu/{cap,ecap} if ir != 0  (iommu)
 *   sys/module/vfio_pci/, sys/module/vfio_iommu_type1/parameters/
 *        allow_unsafe_interrupts                    (vfio_loaded)
 *   dev/vfio/vfio, dev/vfio/<n> or dev/vfio/noiommu-<n>: plain files
 *        (enough for access() and open())          (vfio_loaded)
 *   proc/interrupts if ir != 0 ("IR-PCI-MSI" chips when interrupt
 *        remapping is on), proc/cmdline, proc/cpuinfo (GenuineIntel)
 * libpci's sysfs method (sysfs.path = <root>/sys/bus/pci) and the checks
 * of host/lib/vfio_sysfs.c accept it as a real /sys.
 */
#ifndef TB_SYSFS_H
#define TB_SYSFS_H

#include <stddef.h>

/* One PCI function. */
struct tb_sysfs_dev {
	const char *bdf;      /* "DDDD:BB:DD.F" */
	unsigned vendor;      /* 0: the ABB's 0x10dc */
	unsigned device;      /* 0: the ABB's 0x0153 */
	unsigned class_code;  /* 24 bits (class, subclass, prog-if); 0: 0xff0000 */
	const char *driver;   /* bound driver; NULL: none */
	int group;            /* IOMMU group; -1: none (no iommu_group link) */
	int msi;              /* 1: an MSI capability in config space */
	int pin;              /* Interrupt Pin: 0 none, 1 INTA .. 4 INTD */
	int irq;              /* the `irq` file */
	int cfg_bytes;        /* size of the `config` file: 0 = 256; 64 = what a
			       * user other than root reads */
};

/* The rest of the machine. */
struct tb_sysfs_opts {
	int iommu;       /* 1: an Intel IOMMU in sys/class/iommu (dmar0) */
	int ir;          /* interrupt remapping: 1 on (ecap IR bit, "IR-" chips in
			  * proc/interrupts); -1 the hardware has none (ecap IR bit
			  * clear); 0 nothing tells */
	int noiommu;     /* 1: every group is a VFIO no-IOMMU group */
	int vfio_loaded; /* 1: vfio-pci loaded: drivers/vfio-pci, dev/vfio/vfio,
			  * group nodes, module parameters */
	int unsafe;      /* allow_unsafe_interrupts: 1 "Y", 0 "N" (if vfio_loaded) */
	const char *cmdline; /* proc/cmdline; NULL: "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro" */
};

/*
 * Builds a tree with n devices; writes its root directory to root (at
 * least 64 bytes). The root holds sys/, dev/ and proc/. Returns 0, or -1
 * (and prints why).
 */
int tb_sysfs_make(char *root, size_t rootlen, const struct tb_sysfs_dev *devs, size_t n,
		  const struct tb_sysfs_opts *opts);

/* "<root>/sys" (static buffer, one at a time). */
const char *tb_sysfs_sys(const char *root);

/* Removes the tree (recursively; only paths below /tmp/abb-tb-sysfs-). */
void tb_sysfs_remove(const char *root);

#endif
