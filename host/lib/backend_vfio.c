/*
 * backend_vfio.c - the real board through VFIO (URI "vfio" or
 * "vfio:DDDD:BB:DD.F"): the backend table, open, quiesce and close. The
 * units it calls are listed in vfio_priv.h.
 *
 * Open: the address from the URI, or discovery (abb_vfio_find, libpci)
 * under the seam's sysfs_root when the URI names none; then the checks
 * before any advice: the device exists, it is an ABB (its IDs), it is
 * bound to vfio-pci, it has an IOMMU group. Then one of two kernel
 * interfaces (URI option "iommu=", e.g. "vfio:0000:01:00.0,iommu=iommufd",
 * or the environment ABB_VFIO_IOMMU; the URI wins; likewise pio=uc|wc,
 * ABB_SIM_PIO: BAR1 write-combined where the kernel offers it, vfio_pio.c):
 *   - "group": the legacy container and group (vfio_group.c);
 *   - "iommufd": the device cdev and /dev/iommu (vfio_iommufd.c);
 *   - "auto" (default): the group path when /dev/vfio/vfio exists (it is
 *     the one every kernel since 3.6 has, and iommufd's compatibility
 *     container offers it too), else the iommufd path when the device has
 *     a vfio-dev entry and /dev/iommu exists, else the container's error.
 * Both paths share everything from the device fd on: reset, regions
 * (vfio_bar.c), memory space and bus master on, interrupts (vfio_irq.c).
 *
 * Every system call goes through the seam (vfio_seam.h): the real libc
 * calls by default, an emulated VFIO kernel in the test bench
 * (testbench/vfio_emu.c). Paths start at the seam's sysfs_root / dev_root.
 *
 * Close: interrupts off and bus master cleared (quiesce) before any IOMMU
 * mapping is removed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "abb_options.h"
#include "vfio_priv.h"

/* "DDDD:BB:DD.F" from the URI's address (abb_vfio_bdf_norm), with a message. */
static int norm_bdf(const char *in, char *out, size_t n)
{
	if (abb_vfio_bdf_norm(in, out, n))
		return abb_err(-EINVAL, "vfio: \"%s\" is not a PCI address or out of range; use "
			       "vfio:DDDD:BB:DD.F (as lspci -D prints it)", in);
	return 0;
}

/* Stops the device from reaching host memory and from interrupting: before
 * any IOMMU mapping goes away (abb_close, or a failed open). */
static void vfio_quiesce(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (!v || v->quiesced || v->device < 0)
		return;
	vfio_irq_disable(v);
	if (v->cfg_off)
		vfio_command(v, 0, 0x4); /* bus master off */
	v->quiesced = 1;
}

static void vfio_close(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (!v)
		return;
	vfio_quiesce(dev);
	vfio_irq_release(v);
	vfio_bar_release(v);
	vfio_dma_release(v); /* with bus master off (quiesced above) */
	if (v->device >= 0)
		v->sys.close(v->device);
	vfio_iommufd_release(v);
	vfio_group_release(v);
	pthread_mutex_destroy(&v->lock);
	free(v);
	dev->be_priv = NULL;
}

enum { MODE_AUTO = ABB_OPT_IOMMU_AUTO, MODE_GROUP = ABB_OPT_IOMMU_GROUP,
       MODE_IOMMUFD = ABB_OPT_IOMMU_IOMMUFD };

/* The value of option key among the URI's options ("key=value" after the
 * address and a comma, or alone) into val; 1 if there, 0 if not. */
static int uri_opt(const char *args, const char *key, char *val, size_t n)
{
	size_t k = strlen(key);

	for (const char *o = args; o && *o; o += strcspn(o, ","), o += *o == ',') {
		if (!strncmp(o, key, k) && o[k] == '=') {
			size_t len = strcspn(o + k + 1, ",");

			snprintf(val, n, "%.*s", (int)(len < n ? len : n - 1), o + k + 1);
			return 1;
		}
	}
	return 0;
}

/* The options iommu and pio (the option table, abb_options.c) among the
 * URI's options win over ABB_VFIO_IOMMU and ABB_SIM_PIO; unset: auto and
 * uc. */
static int parse_opts(const char *args, int *mode, int *pio_wc)
{
	struct abb_optvals *v = malloc(sizeof *v); /* large (file names): not on the stack */
	char msg[512], val[32];
	int rc;

	*mode = MODE_AUTO;
	*pio_wc = 0;
	if (!v)
		return abb_err(-ENOMEM, "out of memory");
	abb_opt_defaults(v);
	rc = abb_opt_from_env(v, ABB_OPT_VFIO, ABB_OPTG_LIBABB | ABB_OPTG_PARAMS, msg, sizeof msg);
	if (!rc && uri_opt(args, "iommu", val, sizeof val))
		rc = abb_opt_set(v, ABB_OPT_VFIO, "vfio option", "iommu", val, msg, sizeof msg);
	if (!rc && uri_opt(args, "pio", val, sizeof val))
		rc = abb_opt_set(v, ABB_OPT_VFIO, "vfio option", "pio", val, msg, sizeof msg);
	*mode = (int)v->iommu;
	*pio_wc = (int)v->p.pio_wc;
	free(v);
	return rc ? abb_err(rc, "%s", msg) : 0;
}

static int vfio_open(abb_dev *dev, const char *args)
{
	struct vfio_device_info di = {.argsz = sizeof di};
	char path[PATH_MAX], grp[64], drv[64], addr[64];
	struct vfio *v;
	int rc, mode, pio_wc;

	v = calloc(1, sizeof *v);
	if (!v)
		return abb_err(-ENOMEM, "out of memory");
	v->sys = *abb_vfio_get_sys();
	v->container = v->group = v->device = v->irq_fd = v->iommufd = -1;
	pthread_mutex_init(&v->lock, NULL);
	dev->be_priv = v;

	/* the address: args up to the first ',' (options follow) */
	snprintf(addr, sizeof addr, "%.*s", args ? (int)strcspn(args, ",") : 0, args ? args : "");
	if (strchr(addr, '=')) /* "vfio:iommu=...": options only, discovery */
		addr[0] = 0;
	if (addr[0])
		rc = norm_bdf(addr, v->bdf, sizeof v->bdf);
	else if ((rc = abb_vfio_find(v->sys.sysfs_root, NULL, v->bdf, sizeof v->bdf)) > 0)
		rc = 0;
	if (rc)
		goto fail;

	snprintf(path, sizeof path, "%s/bus/pci/devices/%s", v->sys.sysfs_root, v->bdf);
	if (v->sys.access(path, F_OK)) {
		rc = abb_err(-ENODEV, "vfio: no PCI device %s (%s missing; see lspci -D -d "
			     "10dc:0153)", v->bdf, path);
		goto fail;
	}
	/* the IDs before any advice to bind it: vfio:0000:00:00.0 (a host
	 * bridge) must not be told to go to vfio-pci. IDs that cannot be read
	 * are left to the VERSION check after the open. */
	{
		unsigned vid, did;
		long cls;
		char what[64];

		if (abb_vfio_ids(v->sys.sysfs_root, v->bdf, &vid, &did, &cls) == 0 &&
		    (vid != ABB_VENDOR_ID || did != ABB_DEVICE_ID)) {
			abb_vfio_class_name(cls, what, sizeof what);
			rc = abb_err(-ENODEV, "vfio: %s is not an ABB: it is %04x:%04x%s%s%s, the "
				     "ABB is %04x:%04x; give the ABB's address (lspci -D -d "
				     "%04x:%04x) or none (\"vfio\" finds it)", v->bdf, vid, did,
				     what[0] ? " (" : "", what, what[0] ? ")" : "", ABB_VENDOR_ID,
				     ABB_DEVICE_ID, ABB_VENDOR_ID, ABB_DEVICE_ID);
			goto fail;
		}
	}
	snprintf(path, sizeof path, "%s/bus/pci/devices/%s/driver", v->sys.sysfs_root, v->bdf);
	if (abb_vfio_link_base(v->sys.readlink, path, drv, sizeof drv))
		drv[0] = 0;
	if (strcmp(drv, "vfio-pci")) {
		const char *sr = v->sys.sysfs_root;

		if (drv[0])
			rc = abb_err(-ENODEV, "vfio: %s is bound to %s, not to vfio-pci; as root: "
				     "modprobe vfio-pci; echo %s > %s/bus/pci/drivers/%s/unbind; echo "
				     "10dc 0153 > %s/bus/pci/drivers/vfio-pci/new_id", v->bdf, drv,
				     v->bdf, sr, drv, sr);
		else
			rc = abb_err(-ENODEV, "vfio: %s is bound to no driver, not to vfio-pci; as "
				     "root: modprobe vfio-pci; echo 10dc 0153 > "
				     "%s/bus/pci/drivers/vfio-pci/new_id", v->bdf, sr);
		goto fail;
	}
	snprintf(path, sizeof path, "%s/bus/pci/devices/%s/iommu_group", v->sys.sysfs_root, v->bdf);
	if (abb_vfio_link_base(v->sys.readlink, path, grp, sizeof grp)) {
		rc = abb_err(-ENODEV, "vfio: %s has no IOMMU group; enable the IOMMU (intel_iommu=on "
			     "or amd_iommu=on on the kernel command line)", v->bdf);
		goto fail;
	}

	rc = parse_opts(args, &mode, &pio_wc);
	if (!rc) {
		snprintf(path, sizeof path, "%s/vfio/vfio", v->sys.dev_root);
		if (mode == MODE_AUTO && v->sys.access(path, F_OK) && vfio_iommufd_usable(v))
			mode = MODE_IOMMUFD;
		rc = mode == MODE_IOMMUFD ? vfio_iommufd_open(v) : vfio_group_open(v, grp);
	}
	if (rc)
		goto fail;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_INFO, &di) == 0 &&
	    (di.flags & VFIO_DEVICE_FLAGS_RESET))
		v->sys.ioctl(v->device, VFIO_DEVICE_RESET, NULL);
	rc = vfio_bar_setup(v, pio_wc);
	if (!rc)
		rc = vfio_command(v, 0x6, 0); /* memory space, bus master */
	if (!rc)
		rc = vfio_irq_setup(v);
	if (rc)
		goto fail;
	dev->bar0_size = v->bar_size[0];
	dev->bar1_size = v->bar_size[1];
	dev->watchdog_s = 0;
	return 0;
fail:
	vfio_close(dev);
	return rc;
}

const struct abb_backend abb_backend_vfio = {
	.name = "vfio",
	.open = vfio_open,
	.close = vfio_close,
	.quiesce = vfio_quiesce,
	.reg_read = vfio_reg_read,
	.reg_write = vfio_reg_write,
	.mem_read = vfio_mem_read,
	.mem_write = vfio_mem_write,
	.pio_store = vfio_pio_store,
	.pio_flush = vfio_pio_flush,
	.pio_mapping = vfio_pio_mapping,
	.map = vfio_map,
	.unmap = vfio_unmap,
	.irq_wait = vfio_irq_wait,
	.irq_count = vfio_irq_count,
	.irq_check = vfio_irq_check,
	.irq_unmask = vfio_irq_unmask,
	.now_ns = vfio_now_ns,
	.delay_ns = vfio_delay_ns,
};
