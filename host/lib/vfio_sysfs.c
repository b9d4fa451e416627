/*
 * vfio_sysfs.c - read-only checks of a PCI device under a sysfs root, for
 * the vfio backend and `abb_tool doctor`: vendor, device and class, bound
 * driver, IOMMU group, no-IOMMU groups, the other members of a group, interrupt pin and MSI from
 * config space. Plain file-system reads; no libpci, no messages (callers
 * word their own).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <abb/abb_vfio.h>

#include "abb_priv.h"
#include "vfio_priv.h" /* abb_vfio_link_base */

static const char *root_or(const char *root, const char *dflt)
{
	return root && *root ? root : dflt;
}

static int dev_path(const char *sysfs_root, const char *bdf, const char *file, char *out,
		    size_t n)
{
	int len = snprintf(out, n, "%s/bus/pci/devices/%s%s%s", root_or(sysfs_root, "/sys"), bdf,
			   file ? "/" : "", file ? file : "");

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* The last part of the target of link path into out, read with rl (the
 * vfio backend passes its system-call seam's readlink). */
int abb_vfio_link_base(ssize_t (*rl)(const char *, char *, size_t), const char *path, char *out,
		       size_t n)
{
	char buf[PATH_MAX];
	ssize_t len = rl(path, buf, sizeof buf - 1);
	const char *base;

	if (len < 0)
		return -errno;
	buf[len] = 0;
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strlen(base) >= n)
		return -ENAMETOOLONG;
	memcpy(out, base, strlen(base) + 1);
	return 0;
}

/* Hex digits (1..8) at *p into *v, *p moved past them; 0 if none. */
static int hex_field(const char **p, unsigned *v)
{
	const char *s = *p;
	unsigned x = 0;
	int n = 0;

	for (; n < 9; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		x = x * 16 + d;
	}
	if (n == 0 || n > 8)
		return 0;
	*p = s;
	*v = x;
	return 1;
}

/* Hex fields only: no sign, blank or 0x prefix (sscanf's %x took "+0:0x1:00.0"
 * for 0000:01:00.0), the function one digit 0..7. */
int abb_vfio_bdf_norm(const char *in, char *out, size_t n)
{
	unsigned f[3], dom = 0, fn;
	const char *p = in;
	int nf = 0;

	if (!in || !out || n < ABB_BDF_LEN)
		return -EINVAL;
	while (nf < 3 && hex_field(&p, &f[nf])) {
		nf++;
		if (*p != ':')
			break;
		p++;
	}
	if ((nf != 2 && nf != 3) || *p != '.' || p[1] < '0' || p[1] > '7' || p[2])
		return -EINVAL;
	fn = (unsigned)(p[1] - '0');
	if (nf == 3)
		dom = f[0];
	if (dom > 0xfffff || f[nf - 2] > 0xff || f[nf - 1] > 0x1f)
		return -EINVAL;
	snprintf(out, n, "%04x:%02x:%02x.%u", dom, f[nf - 2], f[nf - 1], fn);
	return 0;
}

int abb_vfio_dev_exists(const char *sysfs_root, const char *bdf)
{
	char path[PATH_MAX];

	if (!bdf || strchr(bdf, '/') || dev_path(sysfs_root, bdf, NULL, path, sizeof path))
		return -ENODEV;
	return access(path, F_OK) ? -ENODEV : 0;
}

int abb_vfio_driver(const char *sysfs_root, const char *bdf, char *drv, size_t n)
{
	char path[PATH_MAX];
	int rc;

	if (!drv || !n)
		return -EINVAL;
	drv[0] = 0;
	if (abb_vfio_dev_exists(sysfs_root, bdf))
		return -ENODEV;
	rc = dev_path(sysfs_root, bdf, "driver", path, sizeof path);
	if (!rc)
		rc = abb_vfio_link_base(readlink, path, drv, n);
	if (rc == -ENOENT)
		return 0;
	return rc ? rc : 1;
}

int abb_vfio_group(const char *sysfs_root, const char *bdf)
{
	char path[PATH_MAX], name[32], *end;
	long g;
	int rc;

	if (abb_vfio_dev_exists(sysfs_root, bdf))
		return -ENODEV;
	rc = dev_path(sysfs_root, bdf, "iommu_group", path, sizeof path);
	if (!rc)
		rc = abb_vfio_link_base(readlink, path, name, sizeof name);
	if (rc)
		return rc == -ENOENT ? -ENOENT : rc;
	g = strtol(name, &end, 10);
	if (end == name || *end || g < 0 || g > INT_MAX)
		return -EINVAL;
	return (int)g;
}

static int group_path(const char *sysfs_root, int group, const char *file, char *out, size_t n)
{
	int len = snprintf(out, n, "%s/kernel/iommu_groups/%d%s%s", root_or(sysfs_root, "/sys"),
			   group, file ? "/" : "", file ? file : "");

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int abb_vfio_group_noiommu(const char *sysfs_root, int group)
{
	char path[PATH_MAX], name[64] = "";
	FILE *f;

	if (group < 0 || group_path(sysfs_root, group, NULL, path, sizeof path))
		return -EINVAL;
	if (access(path, F_OK))
		return -ENOENT;
	group_path(sysfs_root, group, "name", path, sizeof path);
	f = fopen(path, "r");
	if (!f)
		return 0; /* groups of an IOMMU driver may have no name */
	if (!fgets(name, sizeof name, f))
		name[0] = 0;
	fclose(f);
	return strncmp(name, "vfio-noiommu", 12) == 0;
}

int abb_vfio_group_node(const char *dev_root, int group, int noiommu, char *path, size_t n)
{
	int len = snprintf(path, n, "%s/vfio/%s%d", root_or(dev_root, "/dev"),
			   noiommu ? "noiommu-" : "", group);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int member_cmp(const void *a, const void *b)
{
	const struct abb_vfio_member *x = a, *y = b;
	unsigned xd = 0, xb = 0, xs = 0, xf = 0, yd = 0, yb = 0, ys = 0, yf = 0;

	sscanf(x->bdf, "%x:%x:%x.%u", &xd, &xb, &xs, &xf);
	sscanf(y->bdf, "%x:%x:%x.%u", &yd, &yb, &ys, &yf);
	if (xd != yd)
		return xd < yd ? -1 : 1;
	if (xb != yb)
		return xb < yb ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	return xf < yf ? -1 : xf > yf;
}

int abb_vfio_group_members(const char *sysfs_root, int group, struct abb_vfio_member *out,
			   size_t max)
{
	char path[PATH_MAX];
	struct abb_vfio_member *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (group < 0 || group_path(sysfs_root, group, "devices", path, sizeof path))
		return -EINVAL;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		struct abb_vfio_member m = {0};

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof m.bdf)
			continue;
		memcpy(m.bdf, e->d_name, strlen(e->d_name) + 1);
		if (abb_vfio_driver(sysfs_root, m.bdf, m.driver, sizeof m.driver) < 0)
			m.driver[0] = 0;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct abb_vfio_member *na = realloc(all, ncap * sizeof *na);

			if (!na) {
				closedir(d);
				free(all);
				return -ENOMEM;
			}
			all = na;
			cap = ncap;
		}
		all[n++] = m;
	}
	closedir(d);
	if (n)
		qsort(all, n, sizeof *all, member_cmp);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = all[i];
	free(all);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int abb_vfio_driver_viable(const char *driver)
{
	static const char *const ok[] = {"", "vfio-pci", "pci-stub", "pcieport"};

	if (!driver)
		return 1;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (!strcmp(driver, ok[i]))
			return 1;
	return 0;
}

/* A sysfs number file of bdf: "0x" and hex digits, a newline; into *out. */
static int hex_file(const char *sysfs_root, const char *bdf, const char *file,
		    unsigned long *out)
{
	char path[PATH_MAX], text[32], *end;
	ssize_t len;
	int fd;

	if (dev_path(sysfs_root, bdf, file, path, sizeof path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EIO;
	len = read(fd, text, sizeof text - 1);
	close(fd);
	if (len <= 2)
		return -EIO;
	text[len] = 0;
	if (text[0] != '0' || (text[1] != 'x' && text[1] != 'X') || !strchr("0123456789abcdefABCDEF", text[2]))
		return -EIO;
	errno = 0;
	*out = strtoul(text + 2, &end, 16);
	if (errno || (*end && strcmp(end, "\n")))
		return -EIO;
	return 0;
}

int abb_vfio_ids(const char *sysfs_root, const char *bdf, unsigned *vendor, unsigned *device,
		 long *class_code)
{
	unsigned long v, d, c;

	if (!vendor || !device || !class_code)
		return -EINVAL;
	if (abb_vfio_dev_exists(sysfs_root, bdf))
		return -ENODEV;
	if (hex_file(sysfs_root, bdf, "vendor", &v) || v > 0xffff ||
	    hex_file(sysfs_root, bdf, "device", &d) || d > 0xffff)
		return -EIO;
	*vendor = (unsigned)v;
	*device = (unsigned)d;
	*class_code = hex_file(sysfs_root, bdf, "class", &c) || c > 0xffffff ? -1 : (long)c;
	return 0;
}

const char *abb_vfio_class_name(long class_code, char *buf, size_t n)
{
	static const struct {
		long code, mask;
		const char *name;
	} names[] = {
		{0x060000, 0xffff00, "a host bridge"},
		{0x060100, 0xffff00, "an ISA bridge"},
		{0x060400, 0xffff00, "a PCI bridge (a root or switch port)"},
		{0x0c0300, 0xffff00, "a USB controller"},
		{0x010000, 0xff0000, "a storage controller"},
		{0x020000, 0xff0000, "a network controller"},
		{0x030000, 0xff0000, "a display controller"},
		{0x040000, 0xff0000, "a multimedia controller"},
		{0x050000, 0xff0000, "a memory controller"},
		{0x060000, 0xff0000, "a bridge"},
		{0x070000, 0xff0000, "a communication controller"},
		{0x080000, 0xff0000, "a system peripheral"},
		{0x0c0000, 0xff0000, "a serial bus controller"},
	};

	if (!buf || !n)
		return "";
	buf[0] = 0;
	if (class_code < 0)
		return buf;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((class_code & names[i].mask) == names[i].code) {
			snprintf(buf, n, "%s", names[i].name);
			return buf;
		}
	snprintf(buf, n, "a device of class 0x%06lx", class_code);
	return buf;
}

int abb_vfio_irqinfo(const char *sysfs_root, const char *bdf, struct abb_vfio_irqinfo *info)
{
	unsigned char cfg[256];
	char path[PATH_MAX];
	ssize_t len;
	FILE *f;
	int fd;

	if (!info)
		return -EINVAL;
	*info = (struct abb_vfio_irqinfo){.pin = 0, .msi = -1, .msix = -1, .irq = -1};
	if (abb_vfio_dev_exists(sysfs_root, bdf))
		return -ENODEV;
	if (dev_path(sysfs_root, bdf, "config", path, sizeof path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EIO;
	len = pread(fd, cfg, sizeof cfg, 0);
	close(fd);
	if (len < 64)
		return -EIO;
	info->pin = cfg[0x3d];
	if (!(cfg[0x06] & 0x10)) { /* Status: no capability list */
		info->msi = info->msix = 0;
	} else {
		unsigned pos = cfg[0x34] & 0xfc;
		int known = 1;

		info->msi = info->msix = 0;
		/* at most 48 capabilities fit in 192 bytes: ends a loop */
		for (int i = 0; pos && i < 48; i++) {
			if (pos < 0x40 || pos + 1 >= (unsigned)len) {
				known = pos < 0x40 ? known : 0;
				break;
			}
			if (cfg[pos] == 0x05)
				info->msi = 1;
			else if (cfg[pos] == 0x11)
				info->msix = 1;
			pos = cfg[pos + 1] & 0xfc;
		}
		if (!known) { /* only the first 64 bytes readable (not root) */
			info->msi = info->msi ? 1 : -1;
			info->msix = info->msix ? 1 : -1;
		}
	}
	if (dev_path(sysfs_root, bdf, "irq", path, sizeof path) == 0 && (f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &info->irq) != 1)
			info->irq = -1;
		fclose(f);
	}
	return 0;
}
