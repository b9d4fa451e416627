/*
 * vfio_emu_tree.c - the fake sysfs tree and /dev of the emulated VFIO
 * kernel (vfio_emu.c), in a temporary directory:
 *
 *   sys/devices/pci0000:00/0000:00:01.0/<bdf>/{vendor,device,class,
 *       subsystem_vendor,subsystem_device,irq,config}, driver -> the
 *       driver's directory, iommu_group -> sys/kernel/iommu_groups/<N>
 *   sys/bus/pci/devices/<bdf> -> the device directory
 *   sys/bus/pci/drivers/{vfio-pci,<other>}/
 *   sys/kernel/iommu_groups/<N>/devices/<bdf> (and a second device with
 *       a host driver when the group is not viable)
 *   dev/vfio/vfio, dev/vfio/<N> or dev/vfio/noiommu-<N>
 *   (iommufd only: dev/iommu, dev/vfio/devices/vfio0, no dev/vfio/vfio)
 *
 * The links are relative, as in the real sysfs.
 */
#define _GNU_SOURCE
#include "vfio_emu_tree.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfio_emu.h"

static int mkdirs(const char *root, const char *rel)
{
	char p[4096];
	size_t n = (size_t)snprintf(p, sizeof p, "%s/%s", root, rel);

	for (size_t i = strlen(root) + 1; i <= n; i++) {
		if (p[i] == '/' || p[i] == 0) {
			char c = p[i];

			p[i] = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
			p[i] = c;
		}
	}
	return 0;
}

static int put(const char *root, const char *rel, const void *data, size_t n)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f)
		return -errno;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

static int link_to(const char *root, const char *rel, const char *target)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return symlink(target, p) ? -errno : 0;
}

#define DEVDIR "sys/devices/pci0000:00/0000:00:01.0/"

/* One PCI device directory with its ids, bound to drv ("" none). */
static int pci_device(const char *root, const char *bdf, unsigned vendor, unsigned device,
		      const char *drv, const char *grp, int noiommu, const uint8_t *cfg, size_t cfglen)
{
	char rel[512], txt[64];
	int rc;

	snprintf(rel, sizeof rel, DEVDIR "%s", bdf);
	rc = mkdirs(root, rel);
#define FILE_(name, ...)                                                      \
	do {                                                                  \
		snprintf(rel, sizeof rel, DEVDIR "%s/" name, bdf);            \
		snprintf(txt, sizeof txt, __VA_ARGS__);                       \
		if (!rc)                                                      \
			rc = put(root, rel, txt, strlen(txt));                \
	} while (0)
	FILE_("vendor", "0x%04x\n", vendor);
	FILE_("device", "0x%04x\n", device);
	FILE_("subsystem_vendor", "0x%04x\n", vendor);
	FILE_("subsystem_device", "0x%04x\n", device);
	FILE_("class", "0x%06x\n", 0xff0000u);
	FILE_("irq", "%d\n", 16);
#undef FILE_
	snprintf(rel, sizeof rel, DEVDIR "%s/config", bdf);
	if (!rc)
		rc = put(root, rel, cfg, cfglen);
	snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s", bdf);
	snprintf(txt, sizeof txt, "../../../devices/pci0000:00/0000:00:01.0/%s", bdf);
	if (!rc)
		rc = link_to(root, rel, txt);
	if (!rc && drv && *drv) {
		snprintf(rel, sizeof rel, "sys/bus/pci/drivers/%s", drv);
		rc = mkdirs(root, rel);
		snprintf(rel, sizeof rel, DEVDIR "%s/driver", bdf);
		snprintf(txt, sizeof txt, "../../../../bus/pci/drivers/%s", drv);
		if (!rc)
			rc = link_to(root, rel, txt);
	}
	if (!rc && grp) {
		snprintf(rel, sizeof rel, "sys/kernel/iommu_groups/%s/devices", grp);
		rc = mkdirs(root, rel);
		snprintf(rel, sizeof rel, DEVDIR "%s/iommu_group", bdf);
		snprintf(txt, sizeof txt, "../../../../kernel/iommu_groups/%s", grp);
		if (!rc)
			rc = link_to(root, rel, txt);
		snprintf(rel, sizeof rel, "sys/kernel/iommu_groups/%s/name", grp);
		if (!rc && noiommu)
			rc = put(root, rel, "vfio-noiommu\n", 13);
		snprintf(rel, sizeof rel, "sys/kernel/iommu_groups/%s/devices/%s", grp, bdf);
		snprintf(txt, sizeof txt, "../../../../devices/pci0000:00/0000:00:01.0/%s", bdf);
		if (!rc)
			rc = link_to(root, rel, txt);
	}
	return rc;
}

int vfio_emu_tree_make(char *root, size_t n, const struct vfio_emu_opts *o, const uint8_t *cfg,
		       size_t cfglen)
{
	const char *drv = o->driver ? o->driver : "vfio-pci";
	const char *grp = o->no_iommu_group ? NULL : VFIO_EMU_GROUP;
	char rel[256];
	int rc;

	snprintf(root, n, "/tmp/abb-vfio-emu-XXXXXX");
	if (!mkdtemp(root))
		return -errno;
	rc = mkdirs(root, "sys/bus/pci/drivers/vfio-pci");
	if (!rc)
		rc = mkdirs(root, "sys/module/vfio_iommu_type1/parameters");
	if (!rc)
		rc = put(root, "sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts",
			 "N\n", 2);
	/* an Intel remapping unit; ECAP bit 3: interrupt remapping */
	if (!rc && !o->noiommu)
		rc = mkdirs(root, "sys/devices/virtual/iommu/dmar0/intel-iommu");
	if (!rc && !o->noiommu)
		rc = put(root, "sys/devices/virtual/iommu/dmar0/intel-iommu/ecap",
			 o->no_irq_remap ? "f0f056\n" : "f0f05e\n", 7);
	if (!rc)
		rc = mkdirs(root, "sys/class/iommu");
	if (!rc && !o->noiommu)
		rc = link_to(root, "sys/class/iommu/dmar0", "../../devices/virtual/iommu/dmar0");
	if (!rc)
		rc = mkdirs(root, "sys/bus/pci/devices");
	if (!rc)
		rc = pci_device(root, VFIO_EMU_BDF, 0x10dc, 0x0153, drv, grp, (int)o->noiommu, cfg,
				cfglen);
	if (!rc && o->not_viable)
		rc = pci_device(root, "0000:01:00.1", 0x8086, 0x10d3, "e1000e", grp, (int)o->noiommu,
				cfg, 64);
	if (!rc)
		rc = mkdirs(root, "dev/vfio");
	if (!rc && !o->iommufd_only && !o->no_container)
		rc = put(root, "dev/vfio/vfio", "", 0);
	if (!rc && o->iommufd_only) {
		rc = mkdirs(root, "dev/vfio/devices");
		if (!rc)
			rc = put(root, "dev/vfio/devices/vfio0", "", 0);
		if (!rc)
			rc = put(root, "dev/iommu", "", 0);
	}
	if (!rc && grp && !o->no_group_file) {
		snprintf(rel, sizeof rel, "dev/vfio/%s%s", o->noiommu ? "noiommu-" : "", grp);
		rc = put(root, rel, "", 0);
		if (!rc && o->group_eacces) {
			char p[4096];

			snprintf(p, sizeof p, "%s/%s", root, rel);
			chmod(p, 0);
		}
	}
	if (rc)
		vfio_emu_tree_remove(root);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void vfio_emu_tree_remove(const char *root)
{
	if (root && *root)
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
