/*
 * abb_vfio.h - finding and diagnosing the board on the PCI bus, for
 * programs that choose a board or explain why it cannot be opened
 * (abb_tool find and doctor, the mprace layer's board number).
 *
 * Read-only: nothing here opens a device or changes a binding; opening is
 * abb_open("vfio") or abb_open("vfio:DDDD:BB:DD.F") (<abb/abb.h>).
 * sysfs_root NULL means "/sys", dev_root NULL "/dev" (a generated tree in
 * tests). Every int function returns 0 (or a count) or a negative errno
 * and never exits; only abb_vfio_find and abb_vfio_find_all leave a
 * message in abb_last_error(): the checks return codes and their callers
 * word the message.
 */
#ifndef ABB_ABB_VFIO_H
#define ABB_ABB_VFIO_H

#include <stddef.h>

#include <abb/abb.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- discovery (libpci) ----------------------------------------------- */

/* Bytes of a PCI address "DDDD:BB:DD.F" with its NUL (room for a 5-digit
 * domain). */
#define ABB_BDF_LEN 16

/*
 * Finds the ABBs (10dc:0153) with libpci and writes the address
 * "DDDD:BB:DD.F" of the first one in PCI address order (domain, bus,
 * device, function) to bdf (n >= 13 bytes).
 * dump_file non-NULL: a text dump in `lspci -x` format read through
 * libpci's "dump" access method (a fake bus for tests); else libpci's
 * "sysfs" method with sysfs.path = sysfs_root/bus/pci.
 * Returns the number of ABBs found (>= 1), -ENODEV if none (the message
 * says how to check the board), -EIO if libpci failed (its message; it
 * never exits the program), -EINVAL for bad arguments or when the address
 * found does not fit in n bytes (a domain above 0xffff needs more than 13).
 */
int abb_vfio_find(const char *sysfs_root, const char *dump_file, char *bdf, size_t n);

/*
 * The same search, every ABB: writes up to max addresses, in PCI address
 * order, to bdfs (so "board N" is bdfs[N]); returns the number found
 * (which may exceed max), or the errors of abb_vfio_find.
 */
int abb_vfio_find_all(const char *sysfs_root, const char *dump_file,
		      char (*bdfs)[ABB_BDF_LEN], size_t max);

/* ---- read-only checks of a device under a sysfs root ------------------ */

/* Normalizes "BB:DD.F" or "DDDD:BB:DD.F" to "DDDD:BB:DD.F" (out: n >=
 * ABB_BDF_LEN). 0, or -EINVAL if in is not a PCI address. */
int abb_vfio_bdf_norm(const char *in, char *out, size_t n);

/* 0 if sysfs_root/bus/pci/devices/<bdf> exists, else -ENODEV. */
int abb_vfio_dev_exists(const char *sysfs_root, const char *bdf);

/* Name of the driver bound to bdf (the last part of the `driver` link)
 * into drv (n bytes). Returns 1 and the name if bound, 0 and "" if no
 * driver, -ENODEV if there is no such device, another -errno on errors. */
int abb_vfio_driver(const char *sysfs_root, const char *bdf, char *drv, size_t n);

/* IOMMU group number of bdf (the `iommu_group` link): >= 0; -ENOENT if
 * the device has none (IOMMU off, no noiommu group yet), -ENODEV if there
 * is no such device. */
int abb_vfio_group(const char *sysfs_root, const char *bdf);

/* 1 if group is a VFIO no-IOMMU group (kernel/iommu_groups/<group>/name
 * reads "vfio-noiommu"; its node is /dev/vfio/noiommu-<group>), 0 if
 * not, -ENOENT if there is no such group. */
int abb_vfio_group_noiommu(const char *sysfs_root, int group);

/* Path of the group's character device under dev_root into path (n
 * bytes): dev_root/vfio/<group> or dev_root/vfio/noiommu-<group>. 0, or
 * -ENAMETOOLONG if it does not fit. */
int abb_vfio_group_node(const char *dev_root, int group, int noiommu, char *path, size_t n);

/* One device of an IOMMU group. driver "" = none. */
struct abb_vfio_member {
	char bdf[ABB_BDF_LEN];
	char driver[64];
};

/* Devices of IOMMU group (kernel/iommu_groups/<group>/devices), in PCI
 * address order: writes up to max to out; returns how many the group has
 * (may exceed max), -ENOENT if there is no such group. */
int abb_vfio_group_members(const char *sysfs_root, int group, struct abb_vfio_member *out,
			   size_t max);

/* 1 if a driver may stay bound to a device of the group the ABB is used
 * in (vfio-pci, pci-stub, pcieport on bridges, or none), else 0. */
int abb_vfio_driver_viable(const char *driver);

/* The identity of a device, from the sysfs files vendor, device and class
 * ("0x10dc\n"): vendor and device IDs, the 24-bit class code (class,
 * subclass, prog-if; -1 if the class file is missing or unreadable). 0,
 * -ENODEV if there is no such device, -EIO if vendor or device is
 * unreadable or not a hex number. */
int abb_vfio_ids(const char *sysfs_root, const char *bdf, unsigned *vendor, unsigned *device,
		 long *class_code);

/* What a class code is, in words ("a host bridge", "a network
 * controller"; "a device of class 0xCC" for others; "" for -1), written
 * to buf (n bytes); returns buf. */
const char *abb_vfio_class_name(long class_code, char *buf, size_t n);

/* Interrupt support of a device, from its config space (the sysfs
 * `config` file). pin: Interrupt Pin (0 none, 1..4 INTA..INTD); msi,
 * msix: 1 capability present, 0 absent, -1 unknown (the capability list
 * lies beyond the 64 bytes a non-root user may read). */
struct abb_vfio_irqinfo {
	int pin;
	int msi;
	int msix;
	int irq; /* the `irq` file (the line the kernel routed), -1 unknown */
};

/* 0, -ENODEV if there is no such device, -EIO if config is unreadable. */
int abb_vfio_irqinfo(const char *sysfs_root, const char *bdf, struct abb_vfio_irqinfo *info);

/* ---- an open device ---------------------------------------------------- */

/* How the open vfio device delivers interrupts: "MSI", "INTx" or "none"
 * (polling only); NULL if dev is not a vfio device. */
const char *abb_vfio_irq_mode(const abb_dev *dev);

#ifdef __cplusplus
}
#endif
#endif
