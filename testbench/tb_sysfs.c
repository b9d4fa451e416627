/*
 * tb_sysfs.c - generated /sys-like trees for the tests (see tb_sysfs.h).
 */
#define _GNU_SOURCE
#include "tb_sysfs.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <abbsim_cfg.h>
#include <abb/abb_regs.h>

#define TB_SYSFS_PREFIX "/tmp/abb-tb-sysfs-"

/* root + "/" + formatted relative path into out */
static int at(char *out, size_t n, const char *root, const char *fmt, ...)
{
	va_list ap;
	int len = snprintf(out, n, "%s/", root);

	if (len < 0 || (size_t)len >= n)
		return -1;
	va_start(ap, fmt);
	len += vsnprintf(out + len, n - (size_t)len, fmt, ap);
	va_end(ap);
	return (size_t)len >= n ? -1 : 0;
}

static int mkdirs(const char *path)
{
	char p[PATH_MAX];

	if (strlen(path) >= sizeof p)
		return -1;
	strcpy(p, path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* Writes len bytes to path (creating its directory), with mode. */
static int put(const char *path, const void *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX];
	FILE *f;
	int ok;

	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	if (mkdirs(dir))
		return -1;
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	if (fclose(f))
		ok = 0;
	return ok && chmod(path, mode) == 0 ? 0 : -1;
}

static int puts_at(const char *root, const char *text, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	if (at(path, sizeof path, root, "%s", rel))
		return -1;
	return put(path, text, strlen(text), 0644);
}

/* A symbolic link root/<rel> -> target (relative), its directory made. */
static int link_at(const char *root, const char *target, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX], dir[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	if (at(path, sizeof path, root, "%s", rel))
		return -1;
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	if (mkdirs(dir))
		return -1;
	return symlink(target, path) && errno != EEXIST ? -1 : 0;
}

static void put16(uint8_t *c, unsigned off, unsigned v)
{
	c[off] = (uint8_t)v;
	c[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *c, unsigned off, uint32_t v)
{
	put16(c, off, v & 0xffff);
	put16(c, off + 2, v >> 16);
}

/* Type-0 header of an endpoint with two 32-bit memory BARs and a
 * capability list, laid out as the simulated ABB's (abbsim_cfg.h): power
 * management, MSI (64-bit) if wanted, PCI Express (endpoint). */
static void config_space(uint8_t *c, const struct tb_sysfs_dev *d, unsigned vendor,
			 unsigned device, unsigned cls, uint32_t bar0, uint32_t bar1)
{
	const unsigned pm = ABBSIM_CFG_PM, msi = ABBSIM_CFG_MSI, exp = ABBSIM_CFG_EXP;

	memset(c, 0, 256);
	put16(c, ABBSIM_CFG_VENDOR, vendor);
	put16(c, ABBSIM_CFG_DEVICE, device);
	put16(c, ABBSIM_CFG_COMMAND, ABBSIM_CMD_MEM | ABBSIM_CMD_MASTER);
	put16(c, ABBSIM_CFG_STATUS, ABBSIM_STATUS_CAP_LIST);
	c[ABBSIM_CFG_REVISION] = 0x00;
	c[ABBSIM_CFG_CLASS] = (uint8_t)cls;   /* prog-if, subclass, class */
	c[ABBSIM_CFG_CLASS + 1] = (uint8_t)(cls >> 8);
	c[ABBSIM_CFG_CLASS + 2] = (uint8_t)(cls >> 16);
	c[ABBSIM_CFG_HEADER_TYPE] = 0x00;     /* header type 0 */
	put32(c, ABBSIM_CFG_BAR(0), bar0);    /* 32-bit memory, not prefetchable */
	put32(c, ABBSIM_CFG_BAR(1), bar1);
	put16(c, ABBSIM_CFG_SUBSYS_VENDOR, vendor);
	put16(c, ABBSIM_CFG_SUBSYS, device);
	c[ABBSIM_CFG_CAP_PTR] = (uint8_t)pm;
	c[ABBSIM_CFG_INT_LINE] = (uint8_t)d->irq;
	c[ABBSIM_CFG_INT_PIN] = (uint8_t)d->pin;
	/* power management, version 2 */
	c[pm + ABBSIM_CAP_ID] = ABBSIM_CAP_ID_PM;
	c[pm + ABBSIM_CAP_NEXT] = (uint8_t)(d->msi ? msi : exp);
	put16(c, pm + ABBSIM_PM_PMC, 0x0002);
	if (d->msi) {             /* MSI, 64-bit address, 1 vector, disabled */
		c[msi + ABBSIM_CAP_ID] = ABBSIM_CAP_ID_MSI;
		c[msi + ABBSIM_CAP_NEXT] = (uint8_t)exp;
		put16(c, msi + ABBSIM_MSI_CTRL, ABBSIM_MSI_CTRL_64BIT);
	}
	/* PCI Express v1 endpoint; x1 2.5 GT/s link; MaxPayload 128 */
	c[exp + ABBSIM_CAP_ID] = ABBSIM_CAP_ID_EXP;
	c[exp + ABBSIM_CAP_NEXT] = 0x00;
	put16(c, exp + ABBSIM_EXP_FLAGS, 0x0001);
	put32(c, exp + ABBSIM_EXP_DEVCAP, 0x00000000);
	put32(c, exp + ABBSIM_EXP_LNKCAP, 0x00000011); /* x1, 2.5 GT/s */
	put16(c, exp + ABBSIM_EXP_LNKSTA, 0x0011);     /* x1, 2.5 GT/s */
}

int tb_sysfs_make(char *root, size_t rootlen, const struct tb_sysfs_dev *devs, size_t n,
		  const struct tb_sysfs_opts *opts)
{
	static const struct tb_sysfs_opts none = {0};
	const struct tb_sysfs_opts *o = opts ? opts : &none;
	/* text: the resource file is 13 lines of 57 bytes */
	char path[PATH_MAX], text[1024];
	int ok = 0;

	if (rootlen < sizeof TB_SYSFS_PREFIX + 7) {
		fprintf(stderr, "tb_sysfs_make: root buffer too small\n");
		return -1;
	}
	snprintf(root, rootlen, TB_SYSFS_PREFIX "XXXXXX");
	if (!mkdtemp(root)) {
		fprintf(stderr, "tb_sysfs_make: mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	/* the skeleton every /sys has */
	for (const char *const *d = (const char *const[]){"sys/bus/pci/devices", "sys/bus/pci/drivers",
		     "sys/kernel/iommu_groups", "sys/class/iommu", "sys/module", "sys/devices", "dev",
		     "proc", NULL}; *d; d++)
		ok |= at(path, sizeof path, root, "%s", *d) || mkdirs(path);

	for (size_t i = 0; i < n; i++) {
		const struct tb_sysfs_dev *d = &devs[i];
		unsigned vendor = d->vendor ? d->vendor : ABB_VENDOR_ID;
		unsigned device = d->device ? d->device : ABB_DEVICE_ID;
		unsigned cls = d->class_code ? d->class_code : 0xff0000;
		uint32_t bar0 = 0xf8000000u + (uint32_t)i * 0x00100000u;
		uint32_t bar1 = 0xe0000000u + (uint32_t)i * 0x01000000u;
		unsigned dom = 0, bus = 0;
		char dir[128], tgt[192];
		uint8_t cfg[256];

		sscanf(d->bdf, "%x:%x", &dom, &bus);
		snprintf(dir, sizeof dir, "sys/devices/pci%04x:%02x/%s", dom, bus, d->bdf);
		config_space(cfg, d, vendor, device, cls, bar0, bar1);
		ok |= at(path, sizeof path, root, "%s/config", dir) ||
		      put(path, cfg, d->cfg_bytes > 0 && d->cfg_bytes < 256 ? (size_t)d->cfg_bytes : 256,
			  0644);
		snprintf(text, sizeof text, "0x%04x\n", vendor);
		ok |= puts_at(root, text, "%s/vendor", dir) | puts_at(root, text, "%s/subsystem_vendor", dir);
		snprintf(text, sizeof text, "0x%04x\n", device);
		ok |= puts_at(root, text, "%s/device", dir) | puts_at(root, text, "%s/subsystem_device", dir);
		snprintf(text, sizeof text, "0x%06x\n", cls);
		ok |= puts_at(root, text, "%s/class", dir);
		snprintf(text, sizeof text, "%d\n", d->irq);
		ok |= puts_at(root, text, "%s/irq", dir);
		/* resource: BAR0 64 KiB, BAR1 16 MiB, the rest unused (13 lines) */
		{
			int len = snprintf(text, sizeof text,
					   "0x%016x 0x%016x 0x0000000000040200\n"
					   "0x%016x 0x%016x 0x0000000000040200\n",
					   bar0, bar0 + ABBSIM_CFG_BAR0_BYTES - 1, bar1, bar1 + 0xffffffu);

			for (int r = 2; r < 13 && len >= 0 && (size_t)len < sizeof text; r++)
				len += snprintf(text + len, sizeof text - (size_t)len,
						"0x%016x 0x%016x 0x%016x\n", 0, 0, 0);
			ok |= puts_at(root, text, "%s/resource", dir);
		}
		snprintf(tgt, sizeof tgt, "../../../devices/pci%04x:%02x/%s", dom, bus, d->bdf);
		ok |= link_at(root, tgt, "sys/bus/pci/devices/%s", d->bdf);
		if (d->driver) {
			snprintf(tgt, sizeof tgt, "../../../bus/pci/drivers/%s", d->driver);
			ok |= link_at(root, tgt, "%s/driver", dir);
			snprintf(tgt, sizeof tgt, "../../../../devices/pci%04x:%02x/%s", dom, bus, d->bdf);
			ok |= link_at(root, tgt, "sys/bus/pci/drivers/%s/%s", d->driver, d->bdf);
		}
		if (d->group >= 0) {
			snprintf(tgt, sizeof tgt, "../../../kernel/iommu_groups/%d", d->group);
			ok |= link_at(root, tgt, "%s/iommu_group", dir);
			snprintf(tgt, sizeof tgt, "../../../../devices/pci%04x:%02x/%s", dom, bus, d->bdf);
			ok |= link_at(root, tgt, "sys/kernel/iommu_groups/%d/devices/%s", d->group, d->bdf);
			if (o->noiommu)
				ok |= puts_at(root, "vfio-noiommu\n", "sys/kernel/iommu_groups/%d/name",
					      d->group);
			if (o->vfio_loaded) {
				ok |= at(path, sizeof path, root, "dev/vfio/%s%d", o->noiommu ? "noiommu-" : "",
					 d->group) || put(path, "", 0, 0600);
			}
		}
	}
	if (o->iommu && o->ir) { /* ecap bit 3: interrupt remapping supported */
		ok |= puts_at(root, "d2008c40660462\n", "sys/class/iommu/dmar0/intel-iommu/cap");
		ok |= puts_at(root, o->ir > 0 ? "f050da\n" : "f050d2\n",
			      "sys/class/iommu/dmar0/intel-iommu/ecap");
	} else if (o->iommu) {
		ok |= at(path, sizeof path, root, "sys/class/iommu/dmar0") || mkdirs(path);
	}
	if (o->vfio_loaded) {
		ok |= at(path, sizeof path, root, "sys/bus/pci/drivers/vfio-pci") || mkdirs(path);
		ok |= at(path, sizeof path, root, "sys/module/vfio_pci") || mkdirs(path);
		ok |= puts_at(root, o->unsafe ? "Y\n" : "N\n",
			      "sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts");
		ok |= at(path, sizeof path, root, "dev/vfio/vfio") || put(path, "", 0, 0666);
	}
	if (o->ir) {
		const char *ir = o->ir > 0 ? "IR-" : "";

		snprintf(text, sizeof text,
			 "           CPU0       CPU1\n"
			 "  0:         40          0   %sIO-APIC    2-edge      timer\n"
			 " 24:          0        118   %sPCI-MSI 524288-edge      nvme0q0\n", ir, ir);
		ok |= puts_at(root, text, "proc/interrupts");
	}
	snprintf(text, sizeof text, "%s\n",
		 o->cmdline ? o->cmdline : "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro");
	ok |= puts_at(root, text, "proc/cmdline");
	ok |= puts_at(root, "processor\t: 0\nvendor_id\t: GenuineIntel\n", "proc/cpuinfo");
	if (ok) {
		fprintf(stderr, "tb_sysfs_make: building %s failed: %s\n", root, strerror(errno));
		tb_sysfs_remove(root);
		return -1;
	}
	return 0;
}

const char *tb_sysfs_sys(const char *root)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/sys", root);
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void tb_sysfs_remove(const char *root)
{
	if (!root || strncmp(root, TB_SYSFS_PREFIX, strlen(TB_SYSFS_PREFIX)) || strstr(root, ".."))
		return;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
