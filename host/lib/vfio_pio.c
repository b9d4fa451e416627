/*
 * vfio_pio.c - BAR1 for the CPU's stores on the vfio backend (doc/pio.md):
 * which mapping, block stores of a given width, the fence.
 *
 * What the kernel offers: vfio-pci mmap()s a BAR region with
 * pgprot_noncached (UC on x86) whatever the BAR's prefetchable bit says,
 * and reports no cache attribute in the region info, so the VFIO region is
 * the UC mapping. A write-combined mapping of a BAR exists only as the PCI
 * core's sysfs file resourceN_wc, which the kernel creates for a
 * prefetchable BAR on an architecture with WC mappings (x86 with PAT and
 * others); it is root's (mode 0600), and mmap() of it is refused under
 * kernel lockdown (EPERM) and, on kernels built with
 * CONFIG_IO_STRICT_DEVMEM, once a driver holds the BAR (EINVAL). vfio-pci
 * claims a BAR only when it is first accessed through the device fd, so
 * with pio=wc BAR1 is mapped through resource1_wc before and then never
 * touched through VFIO: its one mapping is the WC one (x86 PAT gives a
 * second mapping of the same pages the type of the first, silently, so a
 * UC VFIO mapping made first would have turned the WC one UC). Any failure
 * on the way falls back to UC with the reason (abb_pio_mapping).
 *
 * Stores are issued as the CPU's stores of that width: 1, 2, 4, 8 bytes
 * as volatile integer stores, 16 as an SSE store, 32 as an AVX store, 64
 * as MOVDIR64B (x86-64; AVX and MOVDIR64B only where CPUID reports them,
 * else -ENOTSUP). Without a mapping (no VFIO_REGION_INFO_FLAG_MMAP) each
 * store is a pwrite() of its bytes on the region, which vfio-pci splits
 * into accesses of at most 8 bytes.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vfio_priv.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define CFG_BAR1 0x14          /* PCI_BASE_ADDRESS_1 */
#define BAR_MEM_PREFETCH 0x08u /* PCI_BASE_ADDRESS_MEM_PREFETCH */

int vfio_pio_setup(struct vfio *v, int want_wc)
{
	char path[PATH_MAX];
	uint32_t bar;
	void *p;
	int fd, e;

	v->pio_wc = 0;
	v->pio_why[0] = 0;
	if (!want_wc)
		return 0;
	if (v->sys.pread(v->device, &bar, 4, (off_t)(v->cfg_off + CFG_BAR1)) != 4) {
		snprintf(v->pio_why, sizeof v->pio_why, "reading BAR1 of config space failed");
		return 0;
	}
	if (!(le32toh(bar) & BAR_MEM_PREFETCH)) {
		snprintf(v->pio_why, sizeof v->pio_why, "BAR1 is not prefetchable (0x%08x): the "
			 "kernel maps only prefetchable BARs write-combined", le32toh(bar));
		return 0;
	}
	if ((size_t)snprintf(path, sizeof path, "%s/bus/pci/devices/%s/resource1_wc",
			     v->sys.sysfs_root, v->bdf) >= sizeof path) {
		snprintf(v->pio_why, sizeof v->pio_why, "sysfs path too long");
		return 0;
	}
	fd = v->sys.open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(v->pio_why, sizeof v->pio_why, "open %.160s: %s%s", path, strerror(e),
			 e == ENOENT ? " (the kernel offers no WC mapping of BAR1 on this machine)"
			 : e == EACCES || e == EPERM ? " (the sysfs resource files are root's)" : "");
		return 0;
	}
	p = v->sys.mmap(NULL, v->bar_size[1], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e = errno;
	v->sys.close(fd); /* the mapping stays */
	if (p == MAP_FAILED) {
		snprintf(v->pio_why, sizeof v->pio_why, "mmap of %.160s: %s%s", path, strerror(e),
			 e == EPERM ? " (kernel lockdown)"
			 : e == EINVAL ? " (a kernel with CONFIG_IO_STRICT_DEVMEM refuses it while a "
					 "driver holds the BAR)" : "");
		return 0;
	}
	v->bar[1] = p;
	v->pio_wc = 1;
	snprintf(v->pio_why, sizeof v->pio_why, "sysfs resource1_wc of %s", v->bdf);
	return 1;
}

void vfio_pio_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("sfence" ::: "memory");
#else
	__sync_synchronize();
#endif
}

#if defined(__x86_64__)
/* CPUID: AVX usable (the CPU has it and the OS saves the YMM state) and
 * MOVDIR64B. */
static int cpu_has_avx(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28)))
		return 0;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6u) == 6u;
}

static int cpu_has_movdir64b(void)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 28));
}
#endif

/* The stores through the mapping m (BAR1 at 0), width w. */
static int store_mapped(volatile uint8_t *m, uint32_t off, const uint8_t *src, size_t len,
			unsigned w)
{
	size_t i;

	switch (w) {
	case 1:
		for (i = 0; i < len; i++)
			m[off + i] = src[i];
		return 0;
	case 2:
		for (i = 0; i < len; i += 2) {
			uint16_t x;

			memcpy(&x, src + i, 2);
			*(volatile uint16_t *)(m + off + i) = x;
		}
		return 0;
	case 4:
		for (i = 0; i < len; i += 4) {
			uint32_t x;

			memcpy(&x, src + i, 4);
			*(volatile uint32_t *)(m + off + i) = x;
		}
		return 0;
	case 8:
		for (i = 0; i < len; i += 8) {
			uint64_t x;

			memcpy(&x, src + i, 8);
			*(volatile uint64_t *)(m + off + i) = x;
		}
		return 0;
#if defined(__x86_64__)
	case 16:
		for (i = 0; i < len; i += 16)
			__asm__ __volatile__("movdqu (%1), %%xmm0\n\tmovdqa %%xmm0, (%0)"
					     : : "r"(m + off + i), "r"(src + i) : "xmm0", "memory");
		return 0;
	case 32:
		if (!cpu_has_avx())
			return abb_err(-ENOTSUP, "abb_pio_write_block: 32-byte stores need AVX, "
				       "which this CPU (or OS) does not offer");
		for (i = 0; i < len; i += 32)
			__asm__ __volatile__("vmovdqu (%1), %%ymm0\n\tvmovdqa %%ymm0, (%0)"
					     : : "r"(m + off + i), "r"(src + i) : "xmm0", "memory");
		__asm__ __volatile__("vzeroupper" ::: "memory");
		return 0;
	case 64:
		if (!cpu_has_movdir64b())
			return abb_err(-ENOTSUP, "abb_pio_write_block: 64-byte stores are MOVDIR64B, "
				       "which this CPU does not have");
		for (i = 0; i < len; i += 64)
			__asm__ __volatile__("movdir64b (%1), %0"
					     : : "r"(m + off + i), "r"(src + i) : "memory");
		return 0;
#endif
	default:
		return abb_err(-ENOTSUP, "abb_pio_write_block: %u-byte stores: this build has no "
			       "store of that width for the CPU architecture", w);
	}
}

int vfio_pio_store(abb_dev *dev, uint32_t off, const void *buf, size_t len, unsigned w)
{
	struct vfio *v = V(dev);
	const uint8_t *src = buf;

	if (v->bar[1])
		return store_mapped(v->bar[1], off, src, len, w);
	for (size_t i = 0; i < len; i += w)
		if (v->sys.pwrite(v->device, src + i, w, (off_t)(v->bar_off[1] + off + i)) !=
		    (ssize_t)w)
			return abb_err(-EIO, "vfio: BAR1 store at 0x%zx failed", off + i);
	return 0;
}

int vfio_pio_flush(abb_dev *dev)
{
	(void)dev;
	vfio_pio_fence();
	return 0;
}

int vfio_pio_mapping(abb_dev *dev, char *why, size_t n)
{
	struct vfio *v = V(dev);

	if (v->pio_wc)
		snprintf(why, n, "write-combined (%s)", v->pio_why);
	else if (v->pio_why[0])
		snprintf(why, n, "uncached (pio=wc asked for, fell back: %s)", v->pio_why);
	else
		snprintf(why, n, "uncached (pio=uc; %s)",
			 v->bar[1] ? "the VFIO region's mmap" : "pread/pwrite on the VFIO region");
	return v->pio_wc ? ABB_PIO_WC : ABB_PIO_UC;
}
