/*
 * test_discovery.c - discovery of the board on the PCI bus (the VFIO
 * backend's abb_vfio_find, public header <abb/abb_vfio.h>), on fake
 * buses: `lspci -x` style dumps read through libpci's dump method,
 * generated sysfs trees (tb_sysfs.h) read through libpci's sysfs method,
 * and (simulator) the config space that the simulated endpoint dumps; the
 * read-only binding checks (driver, IOMMU group, noiommu, group members,
 * interrupt pin and MSI, vendor/device/class); abb_open("vfio:ADDR") of a
 * device that is not an ABB (issue 17 finding 12); `abb_tool doctor` run as
 * a program on generated trees and on this machine; the tools' refusal of
 * bad arguments.
 * Needs no device: runs the same on every backend.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/resource.h>
#include <sys/wait.h>

#include <abb/abb_sim.h>
#include <abb/abb_vfio.h>

#include "tb_sysfs.h"
#include "vfio_seam.h" /* host/lib: the real system calls on a generated tree */

#ifndef TB_BUILD_DIR
#define TB_BUILD_DIR "build"
#endif

/* Config-space header lines (first 64 bytes) of some devices. */
#define HOST_BRIDGE                                                          \
	"00:00.0 Host bridge: Intel Corporation 440FX - 82441FX PMC [Natoma] (rev 02)\n" \
	"00: 86 80 37 12 06 00 00 00 02 00 00 06 00 00 00 00\n"             \
	"10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"30: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n\n"
/* the same vendor, another device; another vendor, the ABB's device id */
#define NEAR_MISSES                                                          \
	"02:00.0 Non-VGA unclassified device: CERN/ECP/EDU Device 0154\n"    \
	"00: dc 10 54 01 06 00 10 00 00 00 80 ff 00 00 00 00\n"             \
	"10: 00 00 00 fe 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 dc 10 54 01\n"             \
	"30: 00 00 00 00 40 00 00 00 00 00 00 00 0b 01 00 00\n\n"           \
	"02:01.0 VGA compatible controller: NVIDIA Corporation Device 0153\n" \
	"00: de 10 53 01 07 00 10 00 a1 00 00 03 00 00 00 00\n"             \
	"10: 00 00 00 fd 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 de 10 53 01\n"             \
	"30: 00 00 00 00 60 00 00 00 00 00 00 00 0b 01 00 00\n\n"
#define ABB_AT(bdf)                                                          \
	bdf " Non-VGA unclassified device: CERN/ECP/EDU Device 0153\n"       \
	"00: dc 10 53 01 06 00 10 00 00 00 80 ff 00 00 00 00\n"             \
	"10: 00 00 00 f8 00 00 00 f0 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 dc 10 53 01\n"             \
	"30: 00 00 00 00 50 00 00 00 00 00 00 00 0b 01 00 00\n\n"

/* Writes text to a new temporary file; returns its path in a static
 * buffer (one at a time), or NULL. */
static const char *dump_file(const char *text)
{
	static char path[64];
	int fd;
	size_t n = strlen(text);

	snprintf(path, sizeof(path), "/tmp/abb-tb-dump-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* abb_vfio_find on a dump with this text; the result and the bdf. */
static int find_in(const char *text, char *bdf, size_t n)
{
	const char *path = dump_file(text);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	memset(bdf, 0, n);
	rc = abb_vfio_find(NULL, path, bdf, n);
	unlink(path);
	return rc;
}

static void test_discovery_finds_abb(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE NEAR_MISSES ABB_AT("03:00.0"), bdf, sizeof(bdf));

	if (rc != 1)
		printf("\n    abb_vfio_find: %d (%s)\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:03:00.0");
}

static void test_discovery_no_abb(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE NEAR_MISSES, bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, -ENODEV);
	CU_ASSERT(abb_last_error()[0] != '\0');
	CU_ASSERT_STRING_EQUAL(bdf, "");
}

static void test_discovery_domain_and_function(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE ABB_AT("0001:8a:1f.3"), bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0001:8a:1f.3");
}

static void test_discovery_counts_boards(void)
{
	char bdf[32];
	int rc = find_in(ABB_AT("05:00.0") HOST_BRIDGE ABB_AT("81:00.0"), bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, 2);
	/* the first one found, whichever order libpci lists them in */
	CU_ASSERT(strcmp(bdf, "0000:05:00.0") == 0 || strcmp(bdf, "0000:81:00.0") == 0);
}

static void test_discovery_bad_input(void)
{
	char bdf[32];

	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", bdf, sizeof(bdf)), -EIO);
	CU_ASSERT(abb_last_error()[0] != '\0');
	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", NULL, 32), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", bdf, 12), -EINVAL);
}

/* A domain above 0xffff (VMD) makes a 14-byte address: a 13-byte buffer
 * is refused, never filled with a truncated one (found by fuzz_lspci,
 * testbench/fuzz/crashes/fuzz_lspci-domain-truncated). */
static void test_discovery_long_domain(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE ABB_AT("10000:03:00.0"), bdf, 13);

	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_STRING_EQUAL(bdf, "");
	rc = find_in(HOST_BRIDGE ABB_AT("10000:03:00.0"), bdf, 14);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "10000:03:00.0");
}

/* The simulated endpoint's config space, dumped as lspci would, is found
 * as an ABB. */
static void test_discovery_sim_config_space(void)
{
	char path[64], bdf[32];
	int fd, rc;

	CU_ASSERT_EQUAL_FATAL(tb_open(NULL), 0);
	snprintf(path, sizeof(path), "/tmp/abb-tb-cfg-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	rc = abb_sim_cfg_dump(tb_dev, path);
	CU_ASSERT_EQUAL(rc, 0);
	tb_close();
	if (rc == 0) {
		rc = abb_vfio_find(NULL, path, bdf, sizeof(bdf));
		if (rc != 1)
			printf("\n    abb_vfio_find(simulator's config dump): %d (%s)\n", rc,
			       abb_last_error());
		CU_ASSERT_EQUAL(rc, 1);
		CU_ASSERT_EQUAL(strlen(bdf), 12);
	}
	unlink(path);
}

/* ---- generated sysfs trees ------------------------------------------ */

/* Devices that are not ABBs: a host bridge, the same vendor with another
 * device, another vendor with the ABB's device id. */
#define NOT_ABBS                                                              \
	{.bdf = "0000:00:00.0", .vendor = 0x8086, .device = 0x1237, .class_code = 0x060000, \
	 .group = 0},                                                         \
	{.bdf = "0000:02:00.0", .vendor = 0x10dc, .device = 0x0154, .group = 1, .pin = 1},  \
	{.bdf = "0000:02:01.0", .vendor = 0x10de, .device = 0x0153, .class_code = 0x030000, \
	 .driver = "nouveau", .group = 2, .pin = 1}

/* An ABB at bdf in group g bound to drv. */
#define ABB_DEV(b, g, drv) {.bdf = (b), .driver = (drv), .group = (g), .pin = 1, .irq = 16}

static const struct tb_sysfs_opts machine_ok = {.iommu = 1, .ir = 1, .vfio_loaded = 1};

#define MAKE_TREE(root, devs, opts)                                           \
	CU_ASSERT_EQUAL_FATAL(tb_sysfs_make(root, sizeof(root), devs,          \
					    sizeof(devs) / sizeof(devs[0]), opts), 0)

static void test_discovery_sysfs_no_abb(void)
{
	const struct tb_sysfs_dev devs[] = {NOT_ABBS};
	char root[64], bdf[32] = "x";
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	rc = abb_vfio_find(tb_sysfs_sys(root), NULL, bdf, sizeof(bdf));
	CU_ASSERT_EQUAL(rc, -ENODEV);
	CU_ASSERT_STRING_EQUAL(bdf, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "10dc:0153"));
	tb_sysfs_remove(root);
}

static void test_discovery_sysfs_one_abb(void)
{
	const struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, "vfio-pci")};
	struct abb_vfio_member m[4];
	struct abb_vfio_irqinfo irq;
	char root[64], bdf[32], drv[64], node[256];
	const char *sys;
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	sys = tb_sysfs_sys(root);
	rc = abb_vfio_find(sys, NULL, bdf, sizeof(bdf));
	if (rc != 1)
		printf("\n    abb_vfio_find(%s): %d (%s)\n", sys, rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:03:00.0");
	CU_ASSERT_EQUAL(abb_vfio_dev_exists(sys, bdf), 0);
	CU_ASSERT_EQUAL(abb_vfio_dev_exists(sys, "0000:09:00.0"), -ENODEV);
	CU_ASSERT_EQUAL(abb_vfio_driver(sys, bdf, drv, sizeof(drv)), 1);
	CU_ASSERT_STRING_EQUAL(drv, "vfio-pci");
	CU_ASSERT_EQUAL(abb_vfio_driver(sys, "0000:02:00.0", drv, sizeof(drv)), 0);
	CU_ASSERT_STRING_EQUAL(drv, "");
	CU_ASSERT_EQUAL(abb_vfio_driver(sys, "0000:09:00.0", drv, sizeof(drv)), -ENODEV);
	CU_ASSERT_EQUAL(abb_vfio_group(sys, bdf), 5);
	CU_ASSERT_EQUAL(abb_vfio_group(sys, "0000:09:00.0"), -ENODEV);
	CU_ASSERT_EQUAL(abb_vfio_group_noiommu(sys, 5), 0);
	CU_ASSERT_EQUAL(abb_vfio_group_noiommu(sys, 99), -ENOENT);
	CU_ASSERT_EQUAL(abb_vfio_group_node(NULL, 5, 0, node, sizeof(node)), 0);
	CU_ASSERT_STRING_EQUAL(node, "/dev/vfio/5");
	rc = abb_vfio_group_members(sys, 5, m, 4);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(m[0].bdf, "0000:03:00.0");
	CU_ASSERT_STRING_EQUAL(m[0].driver, "vfio-pci");
	CU_ASSERT_EQUAL(abb_vfio_group_members(sys, 99, m, 4), -ENOENT);
	CU_ASSERT_EQUAL(abb_vfio_irqinfo(sys, bdf, &irq), 0);
	CU_ASSERT_EQUAL(irq.pin, 1);
	CU_ASSERT_EQUAL(irq.msi, 0);
	CU_ASSERT_EQUAL(irq.msix, 0);
	CU_ASSERT_EQUAL(irq.irq, 16);
	tb_sysfs_remove(root);
}

/* Several ABBs, listed in no particular order on the bus: the first in PCI
 * address order is found, and abb_vfio_find_all lists them in that order. */
static void test_discovery_sysfs_several_abbs(void)
{
	const struct tb_sysfs_dev devs[] = {
		ABB_DEV("0000:81:00.0", 12, "vfio-pci"), NOT_ABBS,
		ABB_DEV("0001:02:00.0", 20, "vfio-pci"), ABB_DEV("0000:05:00.1", 9, "vfio-pci"),
		ABB_DEV("0000:05:00.0", 8, "vfio-pci"), ABB_DEV("0000:1a:00.0", 10, NULL),
	};
	static const char *const order[] = {"0000:05:00.0", "0000:05:00.1", "0000:1a:00.0",
					    "0000:81:00.0", "0001:02:00.0"};
	char root[64], bdf[32], all[8][ABB_BDF_LEN], two[2][ABB_BDF_LEN];
	const char *sys;
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_find(sys, NULL, bdf, sizeof(bdf)), 5);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:05:00.0");
	rc = abb_vfio_find_all(sys, NULL, all, 8);
	CU_ASSERT_EQUAL(rc, 5);
	for (int i = 0; i < 5 && rc == 5; i++)
		CU_ASSERT_STRING_EQUAL(all[i], order[i]);
	CU_ASSERT_STRING_EQUAL(all[5], "");
	/* fewer slots than boards: the first ones, and the count of all */
	CU_ASSERT_EQUAL(abb_vfio_find_all(sys, NULL, two, 2), 5);
	CU_ASSERT_STRING_EQUAL(two[0], order[0]);
	CU_ASSERT_STRING_EQUAL(two[1], order[1]);
	tb_sysfs_remove(root);
}

/* Issue 17 finding 12: abb_open("vfio:ADDR") of a device that is not an ABB
 * (a host bridge, a graphics card, the ABB's vendor with another device)
 * names what it is and the ABB's IDs, and gives no advice to bind it to
 * vfio-pci; an ABB bound to no driver still gets that advice. The backend
 * runs on a generated tree through the real system calls. Before the
 * fix: "vfio: 0000:00:00.0 is bound to no driver, not to vfio-pci; as
 * root: modprobe vfio-pci; echo 10dc 0153 > .../new_id". */
static void test_discovery_vfio_open_not_an_abb(void)
{
	const struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, NULL)};
	static const struct {
		const char *uri, *ids, *what;
	} cases[] = {
		{"vfio:0000:00:00.0", "8086:1237", "host bridge"},
		{"vfio:00:00.0", "8086:1237", "host bridge"},
		{"vfio:0000:02:01.0", "10de:0153", "display controller"},
		{"vfio:0000:02:00.0", "10dc:0154", NULL},
	};
	struct abb_vfio_sys saved = *abb_vfio_get_sys(), sys;
	char root[64], sysroot[128], devroot[128];
	abb_dev *d = NULL;
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	snprintf(sysroot, sizeof sysroot, "%s", tb_sysfs_sys(root));
	snprintf(devroot, sizeof devroot, "%s/dev", root);
	abb_vfio_set_sys(NULL);
	sys = *abb_vfio_get_sys();
	sys.sysfs_root = sysroot;
	sys.dev_root = devroot;
	abb_vfio_set_sys(&sys);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *msg;

		d = NULL;
		rc = abb_open(&d, cases[i].uri);
		msg = abb_last_error();
		if (rc != -ENODEV || !strstr(msg, cases[i].ids) || !strstr(msg, "10dc:0153") ||
		    (cases[i].what && !strstr(msg, cases[i].what)) || strstr(msg, "new_id") ||
		    strstr(msg, "bind"))
			printf("\n    abb_open(%s): %d: %s\n", cases[i].uri, rc, msg);
		CU_ASSERT_EQUAL(rc, -ENODEV);
		CU_ASSERT_PTR_NULL(d);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "is not an ABB"));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].ids));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "10dc:0153"));
		if (cases[i].what)
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].what));
		CU_ASSERT_PTR_NULL(strstr(msg, "new_id"));
		CU_ASSERT_PTR_NULL(strstr(msg, "bind"));
		if (d)
			abb_close(d);
	}
	/* the ABB itself, bound to no driver: the advice to bind it */
	d = NULL;
	rc = abb_open(&d, "vfio:0000:03:00.0");
	CU_ASSERT_EQUAL(rc, -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "new_id"));
	if (d)
		abb_close(d);
	abb_vfio_set_sys(&saved);
	tb_sysfs_remove(root);
}

/* Identity from sysfs: IDs, class in words, missing or garbled files. */
static void test_discovery_sysfs_ids(void)
{
	const struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, NULL)};
	char root[64], path[256], name[64];
	unsigned v = 0, dv = 0;
	long cls = 0;
	const char *sys;
	FILE *f;

	MAKE_TREE(root, devs, &machine_ok);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_ids(sys, "0000:03:00.0", &v, &dv, &cls), 0);
	CU_ASSERT_EQUAL(v, 0x10dc);
	CU_ASSERT_EQUAL(dv, 0x0153);
	CU_ASSERT_EQUAL(cls, 0xff0000);
	CU_ASSERT_EQUAL(abb_vfio_ids(sys, "0000:00:00.0", &v, &dv, &cls), 0);
	CU_ASSERT_EQUAL(v, 0x8086);
	CU_ASSERT_EQUAL(dv, 0x1237);
	CU_ASSERT_STRING_EQUAL(abb_vfio_class_name(cls, name, sizeof name), "a host bridge");
	CU_ASSERT_STRING_EQUAL(abb_vfio_class_name(0x030000, name, sizeof name),
			       "a display controller");
	CU_ASSERT_STRING_EQUAL(abb_vfio_class_name(0xff0000, name, sizeof name),
			       "a device of class 0xff0000");
	CU_ASSERT_STRING_EQUAL(abb_vfio_class_name(-1, name, sizeof name), "");
	CU_ASSERT_EQUAL(abb_vfio_ids(sys, "0000:09:00.0", &v, &dv, &cls), -ENODEV);
	CU_ASSERT_EQUAL(abb_vfio_ids(sys, "0000:03:00.0", NULL, &dv, &cls), -EINVAL);
	/* a garbled vendor file */
	snprintf(path, sizeof path, "%s/bus/pci/devices/0000:02:00.0/vendor", sys);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("0x10dcz\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(abb_vfio_ids(sys, "0000:02:00.0", &v, &dv, &cls), -EIO);
	tb_sysfs_remove(root);
}

static void test_discovery_sysfs_other_driver(void)
{
	const struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, "pciDriver")};
	char root[64], bdf[32], drv[64];
	const char *sys;

	MAKE_TREE(root, devs, &machine_ok);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_find(sys, NULL, bdf, sizeof(bdf)), 1);
	CU_ASSERT_EQUAL(abb_vfio_driver(sys, bdf, drv, sizeof(drv)), 1);
	CU_ASSERT_STRING_EQUAL(drv, "pciDriver");
	CU_ASSERT_FALSE(abb_vfio_driver_viable(drv));
	CU_ASSERT_TRUE(abb_vfio_driver_viable("vfio-pci"));
	CU_ASSERT_TRUE(abb_vfio_driver_viable(""));
	tb_sysfs_remove(root);
}

/* The ABB shares its group with an audio function (bound to its driver:
 * the group is not viable) and a bridge (pcieport may stay). */
static void test_discovery_sysfs_shared_group(void)
{
	const struct tb_sysfs_dev devs[] = {
		NOT_ABBS,
		{.bdf = "0000:03:00.1", .vendor = 0x8086, .device = 0x2668, .class_code = 0x040300,
		 .driver = "snd_hda_intel", .group = 7, .pin = 2},
		ABB_DEV("0000:03:00.0", 7, "vfio-pci"),
		{.bdf = "0000:00:1c.0", .vendor = 0x8086, .device = 0x2940, .class_code = 0x060400,
		 .driver = "pcieport", .group = 7},
	};
	struct abb_vfio_member m[2];
	char root[64], bdf[32];
	const char *sys;
	int g;

	MAKE_TREE(root, devs, &machine_ok);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_find(sys, NULL, bdf, sizeof(bdf)), 1);
	g = abb_vfio_group(sys, bdf);
	CU_ASSERT_EQUAL(g, 7);
	/* three members, two slots: the count of all, the first two by address */
	CU_ASSERT_EQUAL(abb_vfio_group_members(sys, g, m, 2), 3);
	CU_ASSERT_STRING_EQUAL(m[0].bdf, "0000:00:1c.0");
	CU_ASSERT_STRING_EQUAL(m[0].driver, "pcieport");
	CU_ASSERT_STRING_EQUAL(m[1].bdf, "0000:03:00.0");
	{
		struct abb_vfio_member all[4];

		CU_ASSERT_EQUAL(abb_vfio_group_members(sys, g, all, 4), 3);
		CU_ASSERT_STRING_EQUAL(all[2].bdf, "0000:03:00.1");
		CU_ASSERT_STRING_EQUAL(all[2].driver, "snd_hda_intel");
		CU_ASSERT_FALSE(abb_vfio_driver_viable(all[2].driver));
		CU_ASSERT_TRUE(abb_vfio_driver_viable(all[0].driver));
	}
	tb_sysfs_remove(root);
}

static void test_discovery_sysfs_noiommu(void)
{
	const struct tb_sysfs_dev devs[] = {ABB_DEV("0000:03:00.0", 0, "vfio-pci")};
	const struct tb_sysfs_opts o = {.noiommu = 1, .vfio_loaded = 1};
	char root[64], bdf[32], node[256], dev[128];
	const char *sys;

	MAKE_TREE(root, devs, &o);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_find(sys, NULL, bdf, sizeof(bdf)), 1);
	CU_ASSERT_EQUAL(abb_vfio_group(sys, bdf), 0);
	CU_ASSERT_EQUAL(abb_vfio_group_noiommu(sys, 0), 1);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	CU_ASSERT_EQUAL(abb_vfio_group_node(dev, 0, 1, node, sizeof(node)), 0);
	CU_ASSERT_EQUAL(access(node, F_OK), 0);
	tb_sysfs_remove(root);
}

/* No IOMMU (no group), and an ABB with an MSI capability. */
static void test_discovery_sysfs_no_group_msi(void)
{
	struct tb_sysfs_dev devs[] = {ABB_DEV("0000:03:00.0", -1, NULL)};
	struct abb_vfio_irqinfo irq;
	char root[64];
	const char *sys;

	devs[0].msi = 1;
	MAKE_TREE(root, devs, NULL);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_group(sys, "0000:03:00.0"), -ENOENT);
	CU_ASSERT_EQUAL(abb_vfio_irqinfo(sys, "0000:03:00.0", &irq), 0);
	CU_ASSERT_EQUAL(irq.pin, 1);
	CU_ASSERT_EQUAL(irq.msi, 1);
	CU_ASSERT_EQUAL(irq.msix, 0);
	CU_ASSERT_EQUAL(abb_vfio_irqinfo(sys, "0000:09:00.0", &irq), -ENODEV);
	tb_sysfs_remove(root);

	/* the 64 bytes a user other than root reads: the pin, MSI unknown */
	devs[0].cfg_bytes = 64;
	MAKE_TREE(root, devs, NULL);
	sys = tb_sysfs_sys(root);
	CU_ASSERT_EQUAL(abb_vfio_irqinfo(sys, "0000:03:00.0", &irq), 0);
	CU_ASSERT_EQUAL(irq.pin, 1);
	CU_ASSERT_EQUAL(irq.msi, -1);
	CU_ASSERT_EQUAL(irq.msix, -1);
	tb_sysfs_remove(root);
}

/* libpci's errors come back as -EIO with its message (its default hook
 * would exit the program), and addresses are normalized. */
static void test_discovery_sysfs_errors(void)
{
	char bdf[32];

	CU_ASSERT_EQUAL(abb_vfio_find("/nonexistent/abb-sysfs", NULL, bdf, sizeof(bdf)), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "libpci"));
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("3:0.0", bdf, sizeof(bdf)), 0);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:03:00.0");
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("0001:8a:1f.3", bdf, sizeof(bdf)), 0);
	CU_ASSERT_STRING_EQUAL(bdf, "0001:8a:1f.3");
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("03:00", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("03:20.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("03:00.0", bdf, 8), -EINVAL);
	/* hex fields only (sscanf's %x took signs, blanks and 0x: issue 17,
	 * the user-text number parsers of finding 7) */
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("+0:0x1:00.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm(" 03:00.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("03:-0.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("03:00.+1", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("0x3:00.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("1:2:3:4.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("100000000:03:00.0", bdf, sizeof(bdf)), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_bdf_norm("10000:3:0.7", bdf, sizeof(bdf)), 0);
	CU_ASSERT_STRING_EQUAL(bdf, "10000:03:00.7");
}

/* ---- abb_tool doctor ------------------------------------------------ */

/* Runs build/TOOL with args (shell words, then redir: the shell's
 * redirections; NULL: stderr with stdout) under a time limit of 120 s (a
 * tool that takes a bad argument runs a whole benchmark); its output into
 * out. Returns its exit status (124: the time limit), or -1. */
static int run_prog(const char *tool, const char *args, const char *redir, char *out, size_t n)
{
	char cmd[1024];
	size_t len = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 120 %s/%s %s %s", TB_BUILD_DIR, tool, args,
		 redir ? redir : "2>&1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len + 1 < n && !feof(p)) {
		size_t got = fread(out + len, 1, n - 1 - len, p);

		if (!got)
			break;
		len += got;
	}
	out[len] = 0;
	while (fgetc(p) != EOF) /* the rest, unread */
		;
	st = pclose(p);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* build/abb_tool with args; stdout and stderr into out. */
static int run_tool(const char *args, char *out, size_t n)
{
	return run_prog("abb_tool", args, NULL, out, n);
}

/* A --buffer the locked-memory limit of this process allows (root
 * without CAP_IPC_LOCK in a container has only the limit). */
static unsigned long long fitting_buffer(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= (64ull << 20) + (2ull << 20))
		return 64ull << 20;
	return rl.rlim_cur > (2ull << 20) ? (rl.rlim_cur - (1ull << 20)) / 2 : 4096;
}

static void test_doctor_bound_abb_passes(void)
{
	struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, "vfio-pci")};
	char root[64], args[256], out[8192];
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	snprintf(args, sizeof(args), "doctor vfio --root %s --buffer %llu", root, fitting_buffer());
	rc = run_tool(args, out, sizeof(out));
	if (rc != 0)
		printf("\n    abb_tool %s: exit %d\n%s\n", args, rc, out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0000:03:00.0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ABB_DEVICE=vfio make test"));
	CU_ASSERT_PTR_NULL(strstr(out, "FAIL"));
	/* the same with the board's address in the URI */
	snprintf(args, sizeof(args), "doctor vfio:03:00.0 --root %s --buffer %llu", root,
		 fitting_buffer());
	CU_ASSERT_EQUAL(run_tool(args, out, sizeof(out)), 0);
	tb_sysfs_remove(root);
}

static void test_doctor_other_driver(void)
{
	struct tb_sysfs_dev devs[] = {NOT_ABBS, ABB_DEV("0000:03:00.0", 5, "pciDriver")};
	char root[64], args[256], out[8192];
	int rc;

	MAKE_TREE(root, devs, &machine_ok);
	snprintf(args, sizeof(args), "doctor vfio --root %s --buffer 4096", root);
	rc = run_tool(args, out, sizeof(out));
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "pciDriver"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tee "
				       "/sys/bus/pci/devices/0000:03:00.0/driver/unbind"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tee "
				       "/sys/bus/pci/drivers/vfio-pci/bind"));
	if (rc == 0 || !strstr(out, "driver/unbind"))
		printf("\n    abb_tool %s: exit %d\n%s\n", args, rc, out);
	tb_sysfs_remove(root);
}

/* A group shared with a device bound to its own driver, no interrupt
 * remapping, vfio-pci not loaded: each named with its fix. */
static void test_doctor_names_each_problem(void)
{
	struct tb_sysfs_dev devs[] = {
		{.bdf = "0000:03:00.1", .vendor = 0x8086, .device = 0x2668, .class_code = 0x040300,
		 .driver = "snd_hda_intel", .group = 7, .pin = 2},
		ABB_DEV("0000:03:00.0", 7, "vfio-pci"),
	};
	const struct tb_sysfs_opts o = {.iommu = 1, .ir = -1, .vfio_loaded = 1};
	char root[64], args[256], out[8192];
	int rc;

	MAKE_TREE(root, devs, &o);
	snprintf(args, sizeof(args), "doctor vfio --root %s --buffer 4096", root);
	rc = run_tool(args, out, sizeof(out));
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "snd_hda_intel"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/sys/bus/pci/devices/0000:03:00.1/driver/unbind"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "allow_unsafe_interrupts"));
	tb_sysfs_remove(root);

	/* noiommu: no DMA through the type-1 IOMMU */
	{
		const struct tb_sysfs_opts n = {.noiommu = 1, .vfio_loaded = 1};
		struct tb_sysfs_dev one[] = {ABB_DEV("0000:03:00.0", 0, "vfio-pci")};

		MAKE_TREE(root, one, &n);
		snprintf(args, sizeof(args), "doctor vfio --root %s --buffer 4096", root);
		rc = run_tool(args, out, sizeof(out));
		CU_ASSERT_NOT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "noiommu"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "intel_iommu=on"));
		tb_sysfs_remove(root);
	}
	/* an empty machine: no IOMMU, no vfio-pci, no board */
	{
		struct tb_sysfs_dev bus[] = {NOT_ABBS};

		MAKE_TREE(root, bus, NULL);
		snprintf(args, sizeof(args), "doctor --root %s", root);
		rc = run_tool(args, out, sizeof(out));
		CU_ASSERT_NOT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "modprobe vfio-pci"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "10dc:0153"));
		tb_sysfs_remove(root);
	}
}

/* This machine (the real /sys and /dev): without VFIO and a board the
 * doctor fails, and says what is missing and how to fix it; with a bound
 * board it may pass (then nothing to check here). */
static void test_doctor_this_machine(void)
{
	char out[16384];
	int rc = run_tool("doctor vfio", out, sizeof(out));

	CU_ASSERT(rc == 0 || rc == 1);
	if (rc == 1) {
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "fix:"));
	} else if (rc != 0) {
		printf("\n    abb_tool doctor: exit %d\n%s\n", rc, out);
	}
	/* a URI that is no board */
	CU_ASSERT_EQUAL(run_tool("doctor sim", out, sizeof(out)), 2);
}

/* ---- the tools refuse what they cannot do ---------------------------- */

/* Issue 17, findings 6 and 11: every tool refuses a bad argument with a
 * message saying what is wrong, its usage and exit status 2 (before,
 * offsets were cut to 32 bits: reg 0x100000000 printed VERSION, mem
 * 0x100000000 dumped offset 0; suffixes overflowed into another size,
 * "-1" was 2^64-1, --lanes 3 or --mps 100 were taken, and abb_bench_daq
 * --bytes -4 ran for 2^64-4 bytes); and a tool whose output cannot be
 * written says so and fails (abb_tool options >/dev/full exited 0). */
static void test_tools_refuse_bad_arguments(void)
{
	static const struct {
		const char *tool, *args, *says;
	} cases[] = {
		{"abb_tool", "-d model reg 0x100000000", "reg OFF 0x100000000: out of range"},
		{"abb_tool", "-d model reg 0 0x100000000", "reg VAL 0x100000000: out of range"},
		{"abb_tool", "-d model mem 0x100000000 16", "mem OFF 0x100000000: out of range"},
		{"abb_tool", "-d model mem 0xFFFFFFF0 32", "past the end of BAR1"},
		{"abb_tool", "-d model mem 0 0", "mem LEN 0: out of range"},
		{"abb_tool", "-d model reg 0xFFFFFFFC", "past BAR0"},
		{"abb_tool", "-d model reg -1", "reg OFF -1: not negative"},
		{"abb_tool", "-d model reg 010", "leading 0"},
		{"abb_tool", "-d model reg 4x", "reg OFF 4x: not a number"},
		{"abb_tool", "-d model frob", "no command \"frob\""},
		{"abb_tool", "doctor --buffer -1", "--buffer -1: not negative"},
		{"abb_bench", "--device model --max 17592186044417M", "--max 17592186044417M: out of range"},
		{"abb_bench", "--device model --max -1", "--max -1: not negative"},
		{"abb_bench", "--device model --min 6", "--min 6: not a multiple of 4"},
		{"abb_bench", "--device model --bytes 1T", "--bytes 1T: not a number"},
		{"abb_bench", "--device model --lanes -1", "--lanes -1: not negative"},
		{"abb_bench", "--device model --lanes 3", "--lanes 3: not a PCIe value"},
		{"abb_bench", "--device model --mps 100", "--mps 100: out of range"},
		{"abb_bench", "--device model --mps 200", "--mps 200: not a PCIe value"},
		{"abb_bench", "--device model --rcb 7", "--rcb 7: out of range"},
		{"abb_bench", "--device model --rcb 100", "--rcb 100: not a PCIe value"},
		{"abb_bench", "--device model --gen 4", "--gen 4: out of range"},
		{"abb_bench", "--device model --fixed 0x100000000", "--fixed 0x100000000: out of range"},
		{"abb_bench", "--device model --loops 1000001", "--loops 1000001: out of range"},
		{"abb_bench", "--device model stray", "stray: no such option"},
		{"abb_bench_daq", "readout --device model --bytes -4", "--bytes -4: not negative"},
		{"abb_bench_daq", "readout --device model -b 18014398509481984K",
		 "--bytes 18014398509481984K: out of range"},
		{"abb_bench_daq", "readout --device model --max 17592186044417M",
		 "--max 17592186044417M: out of range"},
		{"abb_bench_daq", "readout --device model --min -1K", "--min -1K: not negative"},
		{"abb_bench_daq", "readout --device model --threads 3", "--threads 3: out of range"},
		{"abb_bench_daq", "readout --device model --reps x", "--reps x: not a number"},
		{"abb_bench_daq", "nosuch --device model", "no test \"nosuch\""},
	};
	char out[8192];
	int rc;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rc = run_prog(cases[i].tool, cases[i].args, NULL, out, sizeof(out));
		if (rc != 2 || !strstr(out, cases[i].says) || !strstr(out, "usage:"))
			printf("\n    %s %s: exit %d, expected 2 with \"%s\" and the usage:\n%.600s\n",
			       cases[i].tool, cases[i].args, rc, cases[i].says, out);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].says));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage:"));
	}
	/* the numbers that fit still work */
	CU_ASSERT_EQUAL(run_tool("-d model reg 0", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0x00020003"));
	CU_ASSERT_EQUAL(run_tool("-d model mem 0x10 0x10", out, sizeof(out)), 0);
	/* output that cannot be written: a message and a failure */
	rc = run_prog("abb_tool", "options", "2>&1 >/dev/full", out, sizeof(out));
	if (rc != 1 || !strstr(out, "writing the output failed"))
		printf("\n    abb_tool options >/dev/full: exit %d\n%.600s\n", rc, out);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "writing the output failed"));
	CU_ASSERT_EQUAL(run_prog("abb_tool", "-d model info", "2>&1 >/dev/full", out, sizeof(out)), 1);
	CU_ASSERT_EQUAL(run_prog("abb_bench", "--help", "2>&1 >/dev/full", out, sizeof(out)), 1);
}

static CU_TestInfo discovery_tests[] = {
	{ "test_discovery_finds_abb", test_discovery_finds_abb },
	{ "test_discovery_no_abb", test_discovery_no_abb },
	{ "test_discovery_domain_and_function", test_discovery_domain_and_function },
	{ "test_discovery_counts_boards", test_discovery_counts_boards },
	{ "test_discovery_bad_input", test_discovery_bad_input },
	{ "test_discovery_long_domain", test_discovery_long_domain },
	TB_SIM_TEST(test_discovery_sim_config_space),
	{ "test_discovery_sysfs_no_abb", test_discovery_sysfs_no_abb },
	{ "test_discovery_sysfs_one_abb", test_discovery_sysfs_one_abb },
	{ "test_discovery_sysfs_several_abbs", test_discovery_sysfs_several_abbs },
	{ "test_discovery_sysfs_other_driver", test_discovery_sysfs_other_driver },
	{ "test_discovery_sysfs_shared_group", test_discovery_sysfs_shared_group },
	{ "test_discovery_sysfs_noiommu", test_discovery_sysfs_noiommu },
	{ "test_discovery_sysfs_no_group_msi", test_discovery_sysfs_no_group_msi },
	{ "test_discovery_sysfs_errors", test_discovery_sysfs_errors },
	{ "test_doctor_bound_abb_passes", test_doctor_bound_abb_passes },
	{ "test_doctor_other_driver", test_doctor_other_driver },
	{ "test_doctor_names_each_problem", test_doctor_names_each_problem },
	{ "test_doctor_this_machine", test_doctor_this_machine },
	{ "test_tools_refuse_bad_arguments", test_tools_refuse_bad_arguments },
	{ "test_discovery_vfio_open_not_an_abb", test_discovery_vfio_open_not_an_abb },
	{ "test_discovery_sysfs_ids", test_discovery_sysfs_ids },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo discovery_suite[] = {
	{ "discovery", NULL, tb_suite_close, NULL, NULL, discovery_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_discovery(void)
{
	return CU_register_suites(discovery_suite);
}
