/*
 * vfio_bar.c - the device's regions on the vfio backend: BAR0 (registers)
 * and BAR1 (board memory), and the config space's command register (memory
 * space and bus master).
 *
 * The BARs are mmap()ed when the region allows it; without
 * VFIO_REGION_INFO_FLAG_MMAP, or when the mmap fails, pread/pwrite on the
 * device fd reach them. Registers are 32-bit little-endian accesses; BAR1
 * PIO is aligned 32-bit accesses where possible, bytes at the edges. With
 * pio=wc BAR1 may be the write-combined mapping of vfio_pio.c instead; a
 * fence then follows every BAR1 write and precedes every BAR1 read.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/vfio.h>

#include "vfio_priv.h"

static int region(struct vfio *v, unsigned index, struct vfio_region_info *ri)
{
	memset(ri, 0, sizeof *ri);
	ri->argsz = sizeof *ri;
	ri->index = index;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, ri))
		return abb_err(-errno, "vfio: region info %u of %s: %s", index, v->bdf,
			       strerror(errno));
	return 0;
}

static int setup_bar(struct vfio *v, unsigned bar, int want_wc)
{
	struct vfio_region_info ri;
	void *p;
	int rc = region(v, VFIO_PCI_BAR0_REGION_INDEX + bar, &ri);

	if (rc)
		return rc;
	if (ri.size == 0)
		return abb_err(-ENXIO, "vfio: %s has no BAR%u: not an ABB", v->bdf, bar);
	v->bar_size[bar] = ri.size;
	v->bar_off[bar] = ri.offset;
	if (bar == 1 && vfio_pio_setup(v, want_wc))
		return 0; /* the WC mapping, and no other (vfio_pio.c) */
	if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP))
		return 0; /* pread/pwrite on the device fd */
	p = v->sys.mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->device,
			(off_t)ri.offset);
	if (p != MAP_FAILED)
		v->bar[bar] = p;
	/* else: pread/pwrite on the region work as well, only slower */
	return 0;
}

int vfio_bar_setup(struct vfio *v, int want_wc)
{
	struct vfio_region_info ri;
	int rc = region(v, VFIO_PCI_CONFIG_REGION_INDEX, &ri);

	if (rc)
		return rc;
	v->cfg_off = ri.offset;
	rc = setup_bar(v, 0, 0);
	if (!rc)
		rc = setup_bar(v, 1, want_wc);
	return rc;
}

void vfio_bar_release(struct vfio *v)
{
	if (v->pio_wc)
		vfio_pio_fence(); /* the WC buffers out before the mapping goes */
	for (int i = 0; i < 2; i++)
		if (v->bar[i])
			v->sys.munmap((void *)v->bar[i], v->bar_size[i]);
}

int vfio_command(struct vfio *v, uint16_t set, uint16_t clear)
{
	uint16_t cmd;

	if (v->sys.pread(v->device, &cmd, 2, (off_t)v->cfg_off + 4) != 2)
		return abb_err(-EIO, "vfio: reading the command register of %s failed", v->bdf);
	cmd = (uint16_t)((le16toh(cmd) | set) & ~clear);
	cmd = htole16(cmd);
	if (v->sys.pwrite(v->device, &cmd, 2, (off_t)v->cfg_off + 4) != 2)
		return abb_err(-EIO, "vfio: writing the command register of %s failed", v->bdf);
	return 0;
}

int vfio_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	struct vfio *v = V(dev);
	uint32_t le;

	if (v->bar[0]) {
		le = *(volatile uint32_t *)(v->bar[0] + off);
	} else if (v->sys.pread(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4) {
		return abb_err(-EIO, "vfio: register read at 0x%x failed", off);
	}
	*val = le32toh(le);
	return 0;
}

int vfio_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	struct vfio *v = V(dev);
	uint32_t le = htole32(val);

	if (v->bar[0])
		*(volatile uint32_t *)(v->bar[0] + off) = le;
	else if (v->sys.pwrite(v->device, &le, 4, (off_t)(v->bar_off[0] + off)) != 4)
		return abb_err(-EIO, "vfio: register write at 0x%x failed", off);
	return 0;
}

int vfio_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct vfio *v = V(dev);
	uint8_t *out = buf;

	if (!v->bar[1]) {
		if (v->sys.pread(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
			return abb_err(-EIO, "vfio: BAR1 read failed");
		return 0;
	}
	if (v->pio_wc)
		vfio_pio_fence(); /* a read comes after the stores before it */
	while (len) {
		if (off % 4 == 0 && len >= 4) {
			uint32_t w = *(volatile uint32_t *)(v->bar[1] + off);

			memcpy(out, &w, 4);
			off += 4, out += 4, len -= 4;
		} else {
			*out++ = *(volatile uint8_t *)(v->bar[1] + off);
			off++, len--;
		}
	}
	return 0;
}

int vfio_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	struct vfio *v = V(dev);
	const uint8_t *in = buf;

	if (!v->bar[1]) {
		if (v->sys.pwrite(v->device, buf, len, (off_t)(v->bar_off[1] + off)) != (ssize_t)len)
			return abb_err(-EIO, "vfio: BAR1 write failed");
		return 0;
	}
	while (len) {
		if (off % 4 == 0 && len >= 4) {
			uint32_t w;

			memcpy(&w, in, 4);
			*(volatile uint32_t *)(v->bar[1] + off) = w;
			off += 4, in += 4, len -= 4;
		} else {
			*(volatile uint8_t *)(v->bar[1] + off) = *in++;
			off++, len--;
		}
	}
	if (v->pio_wc)
		vfio_pio_fence(); /* abb_mem_write's write leaves before it returns */
	return 0;
}
