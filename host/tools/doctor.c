/*
 * doctor.c - `abb_tool doctor [URI] [--root DIR] [--buffer SIZE]`: checks
 * a machine for the ABB through VFIO, prints the command that fixes each
 * problem, exits 1 while any remains (0 when all pass, 2 on usage).
 *
 * Checks, in the order a fresh machine needs them: the IOMMU is on;
 * vfio-pci is loaded; the board is on the bus; it is bound to vfio-pci;
 * its IOMMU group (not a no-IOMMU group) holds nothing bound to another
 * driver; /dev/vfio/vfio and /dev/vfio/<group> can be opened by this user;
 * RLIMIT_MEMLOCK covers the buffer a program will map (--buffer, default
 * 64 MiB as the original testABB); interrupt remapping (or
 * allow_unsafe_interrupts); INTx or MSI from the config-space capability
 * list. Everything is read-only except an open()+close() of the group node
 * (the kernel's own answer on permission and on another user of the board).
 *
 * --root DIR reads DIR/sys, DIR/dev and DIR/proc instead of /sys, /dev and
 * /proc (generated trees in the tests); the fix commands always name the
 * real paths. The process's own limits and capabilities are always the
 * real ones.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_vfio.h>

#include "doctor.h"
#include "tool_args.h"

#define DEFAULT_BUFFER (64ull << 20) /* the original testABB's user buffer */
#define DESC_MARGIN (1ull << 20)     /* descriptor areas and small mappings */

struct doc {
	char sys[PATH_MAX], dev[PATH_MAX], proc[PATH_MAX];
	const char *sudo;   /* "sudo " unless root */
	int problems, warnings;
};

static void line(const char *tag, const char *fmt, va_list ap)
{
	printf("[%s] ", tag);
	vprintf(fmt, ap);
	putchar('\n');
}

#define TAGGED(name, tag, counter)                                  \
	static void name(struct doc *d, const char *fmt, ...)       \
	{                                                           \
		va_list ap;                                         \
		va_start(ap, fmt);                                  \
		line(tag, fmt, ap);                                 \
		va_end(ap);                                         \
		counter;                                            \
	}
TAGGED(ok, " ok ", (void)d)
TAGGED(bad, "FAIL", d->problems++)
TAGGED(warn, "warn", d->warnings++)
TAGGED(skip, "skip", (void)d)

/* An indented line under a check: a fix command or a note. */
static void more(const char *fmt, ...)
{
	va_list ap;

	printf("       ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Entries (not . or ..) of a directory; -1 if it cannot be read. first:
 * the name of one of them (may be NULL). */
static int entries(const char *path, char *first, size_t n)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	int count = 0;

	if (first && n)
		first[0] = 0;
	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.') {
			if (!count && first)
				snprintf(first, n, "%s", e->d_name);
			count++;
		}
	closedir(dir);
	return count;
}

/* The first line of file containing word (whole text search); 1 found,
 * 0 not, -1 unreadable. */
static int file_has(const char *path, const char *word)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(buf, sizeof buf, f))
		found = strstr(buf, word) != NULL;
	fclose(f);
	return found;
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)n, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void pathf(char *out, size_t n, const char *root, const char *fmt, ...)
{
	va_list ap;
	int len = snprintf(out, n, "%s", root);

	va_start(ap, fmt);
	vsnprintf(out + len, n - (size_t)len, fmt, ap);
	va_end(ap);
}

/* "intel", "amd" or NULL (unknown), from cpuinfo. */
static const char *cpu_vendor(struct doc *d)
{
	char path[PATH_MAX];

	pathf(path, sizeof path, d->proc, "/cpuinfo");
	if (file_has(path, "GenuineIntel") == 1)
		return "intel";
	if (file_has(path, "AuthenticAMD") == 1 || file_has(path, "HygonGenuine") == 1)
		return "amd";
	return NULL;
}

/* How to turn the IOMMU on: firmware, then the kernel command line. */
static void fix_iommu(struct doc *d)
{
	const char *cpu = cpu_vendor(d);
	char path[PATH_MAX], cmdline[4096] = "";
	int have_on, have_pt;

	pathf(path, sizeof path, d->proc, "/cmdline");
	read_line(path, cmdline, sizeof cmdline);
	have_on = strstr(cmdline, "intel_iommu=on") != NULL;
	have_pt = strstr(cmdline, "iommu=pt") != NULL;
	if (!cpu || !strcmp(cpu, "intel"))
		more("fix: enable VT-d (\"Intel Virtualization Technology for Directed I/O\") in "
		     "the firmware (BIOS/UEFI) setup");
	if (!cpu || !strcmp(cpu, "amd"))
		more("fix: enable AMD-Vi (\"IOMMU\") in the firmware (BIOS/UEFI) setup; the kernel "
		     "turns the AMD IOMMU on by itself");
	if ((!cpu || !strcmp(cpu, "intel")) && !have_on) {
		more("fix: add intel_iommu=on iommu=pt to the kernel command line, then reboot:");
		more("       Debian/Ubuntu: %ssed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&intel_iommu=on "
		     "iommu=pt /' /etc/default/grub && %supdate-grub && %sreboot",
		     d->sudo, d->sudo, d->sudo);
		more("       Fedora/RHEL:   %sgrubby --update-kernel=ALL --args=\"intel_iommu=on "
		     "iommu=pt\" && %sreboot", d->sudo, d->sudo);
	} else if (!have_pt) {
		more("     (optional: iommu=pt on the kernel command line keeps other devices "
		     "fast)");
	}
	if (have_on)
		more("     (the kernel command line already has intel_iommu=on: the firmware "
		     "setting is what is missing)");
	pathf(path, sizeof path, d->proc, "/cpuinfo");
	if (file_has(path, " hypervisor") == 1)
		more("     (this is a virtual machine: the board needs PCI passthrough from the "
		     "host and a virtual IOMMU in the guest, e.g. QEMU -device intel-iommu,intremap=on)");
}

/* 1 if the IOMMU is on. */
static int check_iommu(struct doc *d)
{
	char path[PATH_MAX], unit[256], grp[64];
	int units, groups, real = 0;

	pathf(path, sizeof path, d->sys, "/class/iommu");
	units = entries(path, unit, sizeof unit);
	pathf(path, sizeof path, d->sys, "/kernel/iommu_groups");
	groups = entries(path, grp, sizeof grp);
	if (groups > 0) { /* groups that are not VFIO no-IOMMU groups */
		DIR *dir = opendir(path);
		struct dirent *e;

		while (dir && (e = readdir(dir)))
			if (e->d_name[0] != '.' &&
			    abb_vfio_group_noiommu(d->sys, atoi(e->d_name)) == 0)
				real++;
		if (dir)
			closedir(dir);
	}
	if (units > 0 || real > 0) {
		ok(d, "IOMMU on: %d IOMMU unit%s in %s/class/iommu%s%s%s, %d IOMMU group%s", units < 0 ? 0 : units,
		   units == 1 ? "" : "s", d->sys, units > 0 ? " (" : "", units > 0 ? unit : "",
		   units > 1 ? ", ..)" : units > 0 ? ")" : "", real, real == 1 ? "" : "s");
		return 1;
	}
	bad(d, "IOMMU off: no IOMMU in %s/class/iommu and no IOMMU group in "
	    "%s/kernel/iommu_groups%s", d->sys, d->sys,
	    groups > 0 ? " (only VFIO no-IOMMU groups)" : "");
	fix_iommu(d);
	return 0;
}

/* 1 if vfio-pci is loaded. */
static int check_vfio_pci(struct doc *d)
{
	char path[PATH_MAX];

	pathf(path, sizeof path, d->sys, "/bus/pci/drivers/vfio-pci");
	if (exists(path)) {
		ok(d, "vfio-pci loaded (%s)", path);
		return 1;
	}
	bad(d, "vfio-pci not loaded (no %s)", path);
	more("fix: %smodprobe vfio-pci", d->sudo);
	more("     at every boot: echo vfio-pci | %stee /etc/modules-load.d/vfio-pci.conf", d->sudo);
	return 0;
}

/* The board's address into bdf; 1 found, 0 not. */
static int check_board(struct doc *d, const char *args, char *bdf)
{
	char all[8][ABB_BDF_LEN];
	int n;

	if (args && *args) {
		if (abb_vfio_bdf_norm(args, bdf, ABB_BDF_LEN)) {
			bad(d, "board: \"%s\" is not a PCI address (URI vfio:DDDD:BB:DD.F)", args);
			return 0;
		}
		if (abb_vfio_dev_exists(d->sys, bdf)) {
			bad(d, "board: no PCI device %s under %s/bus/pci/devices", bdf, d->sys);
			more("fix: find the board's address with: lspci -D -nn -d 10dc:0153");
			return 0;
		}
		n = abb_vfio_find_all(d->sys, NULL, all, 8);
		for (int i = 0; i < n && i < 8; i++)
			if (!strcmp(all[i], bdf)) {
				ok(d, "board: ABB 10dc:0153 at %s (board %d of %d)", bdf, i, n);
				return 1;
			}
		bad(d, "board: %s is not an ABB (10dc:0153)", bdf);
		more("fix: find the board's address with: lspci -D -nn -d 10dc:0153");
		return 0;
	}
	n = abb_vfio_find_all(d->sys, NULL, all, 8);
	if (n == -ENODEV) {
		bad(d, "board: no ABB 10dc:0153 under %s/bus/pci", d->sys);
		more("fix: seat the board in a PCIe slot with its FPGA configured before the host "
		     "boots (or after loading the FPGA: echo 1 | %stee /sys/bus/pci/rescan); "
		     "check: lspci -nn -d 10dc:", d->sudo);
		return 0;
	}
	if (n < 0) {
		bad(d, "board: the PCI bus cannot be read: %s", abb_last_error());
		return 0;
	}
	snprintf(bdf, ABB_BDF_LEN, "%s", all[0]);
	ok(d, "board: ABB 10dc:0153 at %s%s", bdf, n > 1 ? " (board 0; others:" : "");
	if (n > 1) {
		for (int i = 1; i < n && i < 8; i++)
			more("board %d: %s", i, all[i]);
		more("(the vfio backend opens board 0; another with URI vfio:DDDD:BB:DD.F)");
	}
	return 1;
}

static void fix_bind(struct doc *d, const char *bdf, const char *drv)
{
	if (drv[0])
		more("fix: echo %s | %stee /sys/bus/pci/devices/%s/driver/unbind", bdf, d->sudo, bdf);
	more("%s %smodprobe vfio-pci", drv[0] ? "    " : "fix:", d->sudo);
	more("     echo vfio-pci | %stee /sys/bus/pci/devices/%s/driver_override", d->sudo, bdf);
	more("     echo %s | %stee /sys/bus/pci/drivers/vfio-pci/bind", bdf, d->sudo);
	more("     or, kept across reboots: %sdriverctl set-override %s vfio-pci", d->sudo, bdf);
}

/* 1 if bound to vfio-pci. */
static int check_driver(struct doc *d, const char *bdf)
{
	char drv[64];
	int rc = abb_vfio_driver(d->sys, bdf, drv, sizeof drv);

	if (rc == 1 && !strcmp(drv, "vfio-pci")) {
		ok(d, "driver: %s is bound to vfio-pci", bdf);
		return 1;
	}
	if (rc < 0) {
		bad(d, "driver: cannot read the driver of %s: %s", bdf, strerror(-rc));
		return 0;
	}
	if (rc == 1)
		bad(d, "driver: %s is bound to %s, not vfio-pci", bdf, drv);
	else
		bad(d, "driver: %s is bound to no driver (vfio-pci needed)", bdf);
	fix_bind(d, bdf, drv);
	return 0;
}

/* The group number (>= 0), or -1; *noiommu set. */
static int check_group(struct doc *d, const char *bdf, int iommu_on, int *noiommu)
{
	struct abb_vfio_member m[32];
	int g = abb_vfio_group(d->sys, bdf), n, others = 0;

	*noiommu = 0;
	if (g < 0) {
		if (!iommu_on)
			skip(d, "IOMMU group: %s has none (the IOMMU is off: see above)", bdf);
		else
			bad(d, "IOMMU group: %s has none although the IOMMU is on (a device "
			    "behind a bridge the IOMMU does not translate?)", bdf);
		if (iommu_on)
			more("fix: move the board to a slot the IOMMU covers; check dmesg | grep "
			     "-i -e DMAR -e IOMMU");
		return -1;
	}
	*noiommu = abb_vfio_group_noiommu(d->sys, g) == 1;
	if (*noiommu) {
		bad(d, "IOMMU group: %d is a VFIO no-IOMMU group (/dev/vfio/noiommu-%d): no "
		    "IOMMU, so no DMA mapping; libabb's vfio backend needs the type-1 IOMMU", g, g);
		more("fix: turn the IOMMU on (see the IOMMU check; reboot), then "
		     "enable_unsafe_noiommu_mode is not needed:");
		more("     echo 0 | %stee /sys/module/vfio/parameters/enable_unsafe_noiommu_mode",
		     d->sudo);
		fix_iommu(d);
		return g;
	}
	n = abb_vfio_group_members(d->sys, g, m, sizeof m / sizeof m[0]);
	if (n < 0) {
		bad(d, "IOMMU group %d: cannot list %s/kernel/iommu_groups/%d/devices", g, d->sys, g);
		return g;
	}
	for (int i = 0; i < n && i < (int)(sizeof m / sizeof m[0]); i++) {
		if (!strcmp(m[i].bdf, bdf))
			continue;
		others++;
		if (abb_vfio_driver_viable(m[i].driver))
			continue;
		bad(d, "IOMMU group %d: %s shares the board's group and is bound to %s (every "
		    "device of the group must be bound to vfio-pci or to no driver)", g, m[i].bdf,
		    m[i].driver);
		more("fix: echo %s | %stee /sys/bus/pci/devices/%s/driver/unbind", m[i].bdf, d->sudo,
		     m[i].bdf);
		more("     (or bind it to vfio-pci as well; or move the board to a slot with "
		     "its own group: ACS)");
	}
	if (others == 0)
		ok(d, "IOMMU group %d: the board is alone in it", g);
	else
		more("(IOMMU group %d has %d other device%s: see %s/kernel/iommu_groups/%d/devices)",
		     g, others, others == 1 ? "" : "s", d->sys, g);
	return g;
}

static void fix_perm(struct doc *d)
{
	struct passwd *pw = getpwuid(getuid());
	const char *user = pw ? pw->pw_name : "$USER";

	more("fix: echo 'SUBSYSTEM==\"vfio\", GROUP=\"vfio\", MODE=\"0660\"' | %stee "
	     "/etc/udev/rules.d/99-vfio.rules", d->sudo);
	more("     %sgroupadd -f vfio && %susermod -aG vfio %s && %sudevadm control --reload && "
	     "%sudevadm trigger --subsystem-match=vfio", d->sudo, d->sudo, user, d->sudo, d->sudo);
	more("     (then log in again for the new group)");
}

static void check_nodes(struct doc *d, const char *bdf, int group, int noiommu, int bound,
			int vfio_pci)
{
	char path[PATH_MAX];
	int fd;

	pathf(path, sizeof path, d->dev, "/vfio/vfio");
	if (!exists(path)) {
		bad(d, "%s missing (the VFIO container device)", path);
		more("fix: %smodprobe vfio-pci%s", d->sudo, vfio_pci ? "" : " (as above)");
	} else if (access(path, R_OK | W_OK)) {
		bad(d, "%s: %s for this user", path, strerror(errno));
		more("fix: %schmod 0666 /dev/vfio/vfio (its usual mode)", d->sudo);
	} else {
		ok(d, "%s can be opened read-write", path);
	}
	if (group < 0) {
		skip(d, "%s/vfio/<group>: no IOMMU group", d->dev);
		return;
	}
	abb_vfio_group_node(d->dev, group, noiommu, path, sizeof path);
	if (!exists(path)) {
		bad(d, "%s missing%s", path, bound ? " although the board is bound to vfio-pci" :
			"; it appears when the board is bound to vfio-pci (see above)");
		if (bound)
			more("fix: bind again: echo %s | %stee /sys/bus/pci/drivers/vfio-pci/unbind "
			     "&& echo %s | %stee /sys/bus/pci/drivers/vfio-pci/bind", bdf, d->sudo,
			     bdf, d->sudo);
		return;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		ok(d, "%s can be opened read-write (and no other process holds it)", path);
		return;
	}
	if (errno == EBUSY) {
		bad(d, "%s is busy: another process has the board open", path);
		more("fix: find it with: %sfuser -v /dev/vfio/%s%d", d->sudo,
		     noiommu ? "noiommu-" : "", group);
	} else {
		bad(d, "%s: %s for this user", path, strerror(errno));
		fix_perm(d);
	}
}

/* 1 if the process has CAP_IPC_LOCK (VFIO then ignores RLIMIT_MEMLOCK). */
static int has_ipc_lock(void)
{
	char buf[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof buf, f))
		if (sscanf(buf, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> 14) & 1; /* CAP_IPC_LOCK */
}

static void check_memlock(struct doc *d, unsigned long long buffer)
{
	struct passwd *pw = getpwuid(getuid());
	unsigned long long need = buffer + DESC_MARGIN, kib = (need + 1023) / 1024;
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		warn(d, "locked memory: getrlimit: %s", strerror(errno));
		return;
	}
	if (rl.rlim_cur == RLIM_INFINITY) {
		ok(d, "locked memory: unlimited (buffer %llu MiB)", buffer >> 20);
		return;
	}
	if (has_ipc_lock()) {
		ok(d, "locked memory: limit %llu KiB, but this process has CAP_IPC_LOCK (root): "
		   "VFIO does not count its pages (buffer %llu KiB)",
		   (unsigned long long)rl.rlim_cur / 1024, (buffer + 1023) / 1024);
		more("(a program run by another user needs its own limit: run abb_tool doctor "
		     "as that user)");
		return;
	}
	if (rl.rlim_cur >= need) {
		ok(d, "locked memory: limit %llu KiB covers the buffer (%llu KiB) and descriptors",
		   (unsigned long long)rl.rlim_cur / 1024, (buffer + 1023) / 1024);
		return;
	}
	bad(d, "locked memory: limit %llu KiB (ulimit -l) is below the %llu KiB a program maps "
	    "(buffer %llu KiB + 1 MiB descriptors): VFIO_IOMMU_MAP_DMA fails with ENOMEM",
	    (unsigned long long)rl.rlim_cur / 1024, kib, (buffer + 1023) / 1024);
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need)
		more("fix: in this shell: ulimit -l %llu", kib);
	more("fix: for every login: echo '%s - memlock %llu' | %stee "
	     "/etc/security/limits.d/abb.conf (then log in again)", pw ? pw->pw_name : "$USER",
	     kib, d->sudo);
}

/* What can be told about interrupt remapping, which VFIO's type-1 IOMMU
 * requires unless allow_unsafe_interrupts is set (EPERM otherwise). */
static void check_remap(struct doc *d, int iommu_on, int noiommu)
{
	char path[PATH_MAX], val[16] = "";
	int ir_chips, ecap_ir = -1;
	DIR *dir;

	if (!iommu_on || noiommu) {
		skip(d, "interrupt remapping: no IOMMU");
		return;
	}
	pathf(path, sizeof path, d->sys, "/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts");
	if (read_line(path, val, sizeof val) == 0 && (val[0] == 'Y' || val[0] == '1')) {
		ok(d, "interrupt remapping: not needed (vfio_iommu_type1 allow_unsafe_interrupts=Y)");
		return;
	}
	pathf(path, sizeof path, d->proc, "/interrupts");
	ir_chips = file_has(path, "IR-");
	if (ir_chips == 1) {
		ok(d, "interrupt remapping: on (IR- interrupt chips in %s)", path);
		return;
	}
	/* Intel: ECAP bit 3 of each remapping unit = interrupt remapping supported */
	pathf(path, sizeof path, d->sys, "/class/iommu");
	if ((dir = opendir(path))) {
		struct dirent *e;

		while ((e = readdir(dir))) {
			char p[PATH_MAX], hex[64];

			if (e->d_name[0] == '.')
				continue;
			pathf(p, sizeof p, d->sys, "/class/iommu/%s/intel-iommu/ecap", e->d_name);
			if (read_line(p, hex, sizeof hex) == 0 && hex[0]) {
				int ir = (int)((strtoull(hex, NULL, 16) >> 3) & 1);

				ecap_ir = ecap_ir < 0 ? ir : ecap_ir & ir;
			}
		}
		closedir(dir);
	}
	if (ecap_ir == 0 || ir_chips == 0) {
		bad(d, "interrupt remapping: %s; VFIO refuses the IOMMU (EPERM at VFIO_SET_IOMMU) "
		    "unless unsafe interrupts are allowed",
		    ecap_ir == 0 ? "the IOMMU hardware has none (ECAP.IR = 0)"
				 : "off (no IR- interrupt chip in /proc/interrupts)");
		if (ecap_ir != 0)
			more("fix: if the hardware has it, remove intremap=off / nointremap from the "
			     "kernel command line; else:");
		more("fix: echo 'options vfio_iommu_type1 allow_unsafe_interrupts=1' | %stee "
		     "/etc/modprobe.d/abb-vfio.conf", d->sudo);
		more("     now: echo 1 | %stee "
		     "/sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts "
		     "(after modprobe vfio_iommu_type1)", d->sudo);
		more("     (the board's interrupts are then not isolated from other devices' DMA)");
		return;
	}
	warn(d, "interrupt remapping: cannot tell (%s unreadable%s); if abb_open fails with "
	     "EPERM at VFIO_SET_IOMMU, it is off: see `%sdmesg | grep -i remapping`", path,
	     ecap_ir == 1 ? "; the IOMMU hardware supports it" : "", d->sudo);
}

static const char *pin_name(int pin)
{
	static const char *const names[] = {"none", "INTA", "INTB", "INTC", "INTD"};

	return pin >= 0 && pin <= 4 ? names[pin] : "invalid";
}

static void check_irq(struct doc *d, const char *bdf)
{
	struct abb_vfio_irqinfo q;
	int rc = abb_vfio_irqinfo(d->sys, bdf, &q);

	if (rc) {
		warn(d, "interrupts: cannot read the config space of %s", bdf);
		return;
	}
	if (q.msi == 1) {
		ok(d, "interrupts: MSI capability present (VFIO_PCI_MSI_IRQ_INDEX); Interrupt "
		   "Pin %s", pin_name(q.pin));
	} else if (q.pin >= 1 && q.pin <= 4) {
		ok(d, "interrupts: legacy INTx (Interrupt Pin %s, IRQ %d)%s", pin_name(q.pin), q.irq, q.msi == 0 ? ", no MSI capability: interrupts come through VFIO's "
				       "INTx index (VFIO_PCI_INTX_IRQ_INDEX)"
				     : "; MSI unknown: the capability list needs root to read "
				       "(lspci -vv as root)");
	} else if (q.msi == -1) {
		warn(d, "interrupts: no Interrupt Pin; MSI unknown (the capability list needs "
		     "root to read: run abb_tool doctor as root, or lspci -vv as root)");
	} else {
		warn(d, "interrupts: neither an Interrupt Pin nor MSI: only polled transfers work "
		     "(no ABB_DMA_IRQ, no abb_irq_wait)");
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: abb_tool doctor [vfio | vfio:DDDD:BB:DD.F] [--root DIR] "
			"[--buffer SIZE]\n"
			"  checks this machine for the ABB through VFIO; SIZE: bytes a program "
			"will map (K/M/G; default 64M)\n");
	return 2;
}

int abb_doctor(int argc, char **argv, const char *uri)
{
	unsigned long long buffer = DEFAULT_BUFFER;
	const char *root = NULL, *env = getenv("ABB_DEVICE"), *args;
	char bdf[ABB_BDF_LEN] = "";
	struct doc d = {.sudo = geteuid() ? "sudo " : ""};
	int iommu_on, vfio_pci, bound = 0, group = -1, noiommu = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--buffer") && i + 1 < argc) {
			if (tool_num("doctor --buffer", argv[++i], 1, 1ull << 40, TOOL_NUM_SIZE, &buffer))
				return usage();
		} else if (argv[i][0] != '-')
			uri = argv[i];
		else
			return usage();
	}
	if (!uri)
		uri = env && !strncmp(env, "vfio", 4) ? env : "vfio";
	if (strcmp(uri, "vfio") && strncmp(uri, "vfio:", 5)) {
		fprintf(stderr, "abb_tool doctor: URI \"%s\" is not the board; the doctor checks "
				"vfio or vfio:DDDD:BB:DD.F\n", uri);
		return 2;
	}
	args = uri[4] == ':' ? uri + 5 : NULL;
	snprintf(d.sys, sizeof d.sys, "%s/sys", root ? root : "");
	snprintf(d.dev, sizeof d.dev, "%s/dev", root ? root : "");
	snprintf(d.proc, sizeof d.proc, "%s/proc", root ? root : "");
	printf("abb_tool doctor: this machine for the ABB through VFIO (URI %s; %s, %s; buffer "
	       "%llu KiB)%s\n", uri, d.sys, d.dev, (buffer + 1023) / 1024,
	       root ? "\n  (a tree under --root: the fix commands name the real paths)" : "");

	iommu_on = check_iommu(&d);
	vfio_pci = check_vfio_pci(&d);
	if (check_board(&d, args, bdf)) {
		bound = check_driver(&d, bdf);
		group = check_group(&d, bdf, iommu_on, &noiommu);
	} else {
		skip(&d, "driver, IOMMU group, interrupts: no board");
	}
	check_nodes(&d, bdf, group, noiommu, bound, vfio_pci);
	check_memlock(&d, buffer);
	check_remap(&d, iommu_on, noiommu);
	if (bdf[0])
		check_irq(&d, bdf);

	if (d.problems) {
		printf("\n%d problem%s: run the fix commands above in order, then abb_tool doctor "
		       "again\n", d.problems, d.problems == 1 ? "" : "s");
		return 1;
	}
	printf("\nall checks passed%s: the board at %s is ready for ABB_DEVICE=%s make test\n",
	       d.warnings ? " (read the warnings)" : "", bdf, uri);
	return 0;
}
