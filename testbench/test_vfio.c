/*
 * test_vfio.c - suite "vfio": libabb's vfio backend on the emulated VFIO
 * kernel (vfio_emu.c), and the kernel rules the emulator enforces. Runs on
 * every backend (it installs its own emulator; the simulator must be built).
 *
 * Each test installs the emulator with its options, and the suite's
 * cleanup puts back what the runner installed (tb_vfio_emu_restore).
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include <abb/abb_regs.h>
#include <abb/abb_vfio.h>

#include "vfio_emu.h"
#include "vfio_seam.h" /* host/lib: the emulated calls, and the real table */
#include "vfio_iommufd_abi.h"

#define PG 4096u

static struct vfio_emu_stats st;

/* The call fails with -1 and errno err. */
#define REFUSED(call, err)                                                    \
	do {                                                                  \
		errno = 0;                                                    \
		CU_ASSERT_EQUAL((call), -1);                                  \
		CU_ASSERT_EQUAL(errno, err);                                  \
	} while (0)

static void stats(void)
{
	vfio_emu_stats(&st);
}

static int emu(const struct vfio_emu_opts *o)
{
	int rc = vfio_emu_install(o);

	CU_ASSERT_EQUAL(rc, 0);
	return rc;
}

static abb_dev *emu_open(const struct vfio_emu_opts *o)
{
	abb_dev *d = NULL;
	int rc;

	if (emu(o))
		return NULL;
	rc = abb_open(&d, VFIO_EMU_URI);
	if (rc)
		printf("\n    abb_open(" VFIO_EMU_URI "): %d %s\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	return rc ? NULL : d;
}

/* abb_open fails with rc, the message holds each of the words, and nothing
 * stays open in the emulated kernel. */
static void open_fails(const struct vfio_emu_opts *o, const char *uri, int rc, const char *w1,
		       const char *w2)
{
	abb_dev *d = NULL;
	int got;

	if (emu(o))
		return;
	got = abb_open(&d, uri ? uri : VFIO_EMU_URI);
	if (got != rc || (w1 && !strstr(abb_last_error(), w1)) ||
	    (w2 && !strstr(abb_last_error(), w2)))
		printf("\n    abb_open: %d (want %d): %s\n", got, rc, abb_last_error());
	CU_ASSERT_EQUAL(got, rc);
	CU_ASSERT_PTR_NULL(d);
	if (w1)
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), w1));
	if (w2)
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), w2));
	if (d)
		abb_close(d);
	stats();
	CU_ASSERT_EQUAL(st.containers + st.groups + st.devices, 0);
}

/* ---- the backend on a healthy machine -------------------------------- */

static void test_vfio_open_close(void)
{
	abb_dev *d = emu_open(NULL);
	uint32_t v = 0;

	if (!d)
		return;
	CU_ASSERT_STRING_EQUAL(abb_backend(d), "vfio");
	CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, ABB_VERSION_ID);
	stats();
	CU_ASSERT_EQUAL(st.containers, 1);
	CU_ASSERT_EQUAL(st.groups, 1);
	CU_ASSERT_EQUAL(st.devices, 1);
	CU_ASSERT_EQUAL(st.resets, 1);
	CU_ASSERT(st.mmio_preads > 0); /* no MMAP flag: pread/pwrite */
	CU_ASSERT_EQUAL(st.rule_errors, 0);
	CU_ASSERT_PTR_NOT_NULL(abb_vfio_irq_mode(d));
	CU_ASSERT_PTR_NULL(abb_vfio_irq_mode(NULL));
	abb_close(d);
	stats();
	CU_ASSERT_EQUAL(st.containers + st.groups + st.devices + st.maps, 0);
	CU_ASSERT_EQUAL(st.rule_errors, 0);
}

/* A DMA both ways, polled and by interrupt, through the emulated IOMMU;
 * device time runs; a large polled read uses delay_ns (nanosleep). */
static void test_vfio_dma(void)
{
	abb_dev *d = emu_open(NULL);
	size_t n = 256 * 1024;
	uint8_t *a = tb_alloc_pages(n), *b = tb_alloc_pages(n);
	abb_dmabuf *ma = NULL, *mb = NULL;
	uint64_t t0 = 0, t1 = 0;

	if (!d || !a || !b)
		goto out;
	tb_fill(a, n, 77);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, a, n, &ma), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, b, n, &mb), 0);
	CU_ASSERT_EQUAL(abb_time_ns(d, &t0), 0);
	/* a sleep of the polled wait's back-off interrupted by a signal */
	vfio_emu_fail("nanosleep", 0, EINTR, 0);
	for (int i = 0; i < 3; i++) {
		unsigned fl = i == 1 ? ABB_DMA_IRQ : 0;

		memset(b, 0, n);
		CU_ASSERT_EQUAL(abb_dma_write(d, ma, 0, 0, n, fl), 0);
		CU_ASSERT_EQUAL(abb_dma_read(d, mb, 0, 0, n, fl), 0);
		CU_ASSERT(tb_same("vfio DMA round trip", b, a, n));
	}
	CU_ASSERT_EQUAL(abb_time_ns(d, &t1), 0);
	CU_ASSERT(t1 > t0);
	vfio_emu_fail(NULL, 0, 0, 0);
	stats();
	CU_ASSERT_EQUAL(st.maps >= 2, 1);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(ma), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(mb), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(mb), -EINVAL);
out:
	if (d)
		abb_close(d);
	free(a);
	free(b);
}

/* The interrupt generator fires after 100 us: each wait needs its
 * interrupt, and ends soon after it (not at the 1 s timeout). */
static void irq_generator(abb_dev *d, unsigned times, int timed)
{
	for (unsigned i = 0; i < times; i++) {
		uint64_t t0 = 0, t1 = 0;

		CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_LAT, 25000), 0);
		CU_ASSERT_EQUAL(abb_time_ns(d, &t0), 0);
		CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_CTRL, ABB_IGEN_ARM), 0);
		CU_ASSERT_EQUAL(abb_irq_wait(d, ABB_IRQ_GEN, 1000000000), (int)ABB_IRQ_GEN);
		CU_ASSERT_EQUAL(abb_time_ns(d, &t1), 0);
		if (timed && (t1 - t0 < 100000 || t1 - t0 >= 200000))
			printf("\n    generator wait %u: %llu ns\n", i, (unsigned long long)(t1 - t0));
		if (timed)
			CU_ASSERT(t1 - t0 >= 100000 && t1 - t0 < 200000);
		CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_CTRL, ABB_IGEN_ACK), 0);
	}
}

/* Without MSI the backend takes INTx: the kernel masks the line when it
 * fires, the backend unmasks it after the source was cleared, so every
 * later interrupt arrives too. */
static void test_vfio_intx_automask_unmask(void)
{
	struct vfio_emu_opts o = {.no_msi = 1};
	abb_dev *d = emu_open(&o);
	size_t n = 64 * 1024;
	uint8_t *a = tb_alloc_pages(n);
	abb_dmabuf *m = NULL;

	if (!d || !a)
		goto out;
	CU_ASSERT_STRING_EQUAL(abb_vfio_irq_mode(d), "INTx");
	stats();
	CU_ASSERT_EQUAL(st.irq_index, VFIO_PCI_INTX_IRQ_INDEX);
	vfio_emu_stats_reset();
	irq_generator(d, 3, 1);
	/* each of the 3 waits needed its interrupt: the line fired, was
	 * masked by the kernel and unmasked by the backend before the next */
	stats();
	if (st.intx_signals < 3 || st.unmasks < 2)
		printf("\n    INTx: %u signals, %u unmasks\n", st.intx_signals, st.unmasks);
	CU_ASSERT(st.intx_signals >= 3);
	CU_ASSERT(st.unmasks >= 2);
	CU_ASSERT_EQUAL(st.msi_signals, 0);
	/* completion by interrupt, again and again (a lost unmask would hang
	 * a wait until its timeout) */
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, a, n, &m), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(abb_dma_write(d, m, 0, 0, n, ABB_DMA_IRQ), 0);
		CU_ASSERT_EQUAL(abb_dma_read(d, m, 0, 0, n, ABB_DMA_IRQ), 0);
	}
	stats();
	CU_ASSERT_EQUAL(st.msi_signals, 0);
	CU_ASSERT_EQUAL(st.rule_errors, 0);
	/* an unmask the kernel refuses: the line stays masked, the wait still
	 * ends (by the core's re-check of ISR after a slice) */
	vfio_emu_fail("ioctl", VFIO_DEVICE_SET_IRQS, EIO, 0);
	irq_generator(d, 1, 0);
	vfio_emu_fail(NULL, 0, 0, 0);
	abb_dmabuf_unmap(m);
out:
	if (d)
		abb_close(d);
	free(a);
}

/* With the MSI capability the backend prefers MSI. */
static void test_vfio_msi(void)
{
	const char *old = getenv("ABB_SIM_MSI");
	char *keep = old ? strdup(old) : NULL;
	abb_dev *d;

	setenv("ABB_SIM_MSI", "1", 1); /* the simulator's option (contract 1) */
	d = emu_open(NULL);
	if (d) {
		if (strcmp(abb_vfio_irq_mode(d), "MSI") == 0) {
			irq_generator(d, 3, 1);
			stats();
			CU_ASSERT(st.msi_signals >= 3);
			CU_ASSERT_EQUAL(st.intx_signals, 0);
			CU_ASSERT_EQUAL(st.irq_index, VFIO_PCI_MSI_IRQ_INDEX);
		} else {
			printf("\n    the simulator offers no MSI capability: INTx\n");
			CU_ASSERT_STRING_EQUAL(abb_vfio_irq_mode(d), "INTx");
		}
		abb_close(d);
	}
	if (keep)
		setenv("ABB_SIM_MSI", keep, 1);
	else
		unsetenv("ABB_SIM_MSI");
	free(keep);
}

/* Neither MSI nor INTx: polling works, interrupts are refused. */
static void test_vfio_no_interrupts(void)
{
	struct vfio_emu_opts o = {.no_msi = 1, .no_intx = 1};
	abb_dev *d = emu_open(&o);
	uint8_t *a = tb_alloc_pages(PG);
	abb_dmabuf *m = NULL;

	if (!d || !a)
		goto out;
	CU_ASSERT_STRING_EQUAL(abb_vfio_irq_mode(d), "none");
	CU_ASSERT_EQUAL(abb_irq_wait(d, ABB_IRQ_GEN, 1000), -ENOTSUP);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, a, PG, &m), 0);
	CU_ASSERT_EQUAL(abb_dma_read(d, m, 0, 0, PG, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read(d, m, 0, 0, PG, ABB_DMA_IRQ), -ENOTSUP);
	abb_dmabuf_unmap(m);
out:
	if (d)
		abb_close(d);
	free(a);
}

/* BARs: MMAP flag with a failing mmap falls back to pread/pwrite; with a
 * working mmap the backend uses the mapping (RAM here: the emulator cannot
 * trap loads and stores, so it holds a snapshot of the registers). */
static void test_vfio_bar_mmap(void)
{
	struct vfio_emu_opts o = {.bar_mmap = 1};
	abb_dev *d = emu_open(&o);
	uint8_t w[13] = "hello, board", r[13] = {0};
	uint32_t v = 0;

	if (d) {
		stats();
		CU_ASSERT(st.mmio_preads > 0);
		CU_ASSERT_EQUAL(abb_mem_write(d, 3, w, sizeof w), 0);
		CU_ASSERT_EQUAL(abb_mem_read(d, 3, r, sizeof r), 0);
		CU_ASSERT(tb_same("BAR1 by pread/pwrite", r, w, sizeof w));
		abb_close(d);
	}
	o.bar_mmap = 2;
	d = emu_open(&o);
	if (d) {
		vfio_emu_stats_reset();
		CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), 0);
		CU_ASSERT_EQUAL(v, ABB_VERSION_ID);
		CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_LAT, 1234), 0);
		CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_IGEN_LAT, &v), 0);
		CU_ASSERT_EQUAL(v, 1234);
		memset(r, 0, sizeof r);
		CU_ASSERT_EQUAL(abb_mem_write(d, 1, w, sizeof w), 0);
		CU_ASSERT_EQUAL(abb_mem_read(d, 1, r, sizeof r), 0);
		CU_ASSERT(tb_same("BAR1 through the mapping", r, w, sizeof w));
		stats();
		CU_ASSERT_EQUAL(st.mmio_preads + st.mmio_pwrites, 0);
		abb_close(d);
	}
}

/* The kernel's IOVA ranges and page sizes are used: allocation inside
 * them, ENOSPC naming them when full; no reported range: the default
 * window; a 64 KiB IOMMU page: mappings in 64 KiB units. */
static void test_vfio_iova_ranges(void)
{
	struct vfio_emu_opts o = {.nranges = 1, .ranges = {{0x20000000, 0x2000ffff}}};
	uint8_t *a = tb_alloc_pages(64 * 1024), *b = tb_alloc_pages(PG);
	abb_dmabuf *ma = NULL, *mb = NULL;
	abb_dev *d = emu_open(&o);

	if (!d || !a || !b)
		goto out;
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, 32 * 1024, &ma), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a + 32 * 1024, 32 * 1024, &mb), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, b, PG, &mb), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "reported IOVA ranges"));
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "0x20000000"));
	stats();
	CU_ASSERT_EQUAL(st.rule_errors, 0);
	abb_close(d);

	o = (struct vfio_emu_opts){.no_ranges = 1, .pgsizes = 0x10000};
	d = emu_open(&o);
	if (!d)
		goto out;
	vfio_emu_stats_reset();
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, b, 100, &mb), 0);
	stats();
	CU_ASSERT_EQUAL(st.pinned % 0x10000, 0);
	CU_ASSERT_EQUAL(st.rule_errors, 0);
	CU_ASSERT_EQUAL(abb_dma_read(d, mb, 0, 0, 100, 0), 0);
out:
	if (d)
		abb_close(d);
	free(a);
	free(b);
}

/* RLIMIT_MEMLOCK: a map beyond it fails with -ENOMEM naming the limit and
 * the fix; what fits still maps. */
static void test_vfio_memlock(void)
{
	struct vfio_emu_opts o = {.memlock = 1024 * 1024};
	size_t n = 1024 * 1024;
	uint8_t *a = tb_alloc_pages(n);
	abb_dmabuf *m = NULL, *m2 = NULL;
	abb_dev *d = emu_open(&o);
	int rc;

	if (!d || !a)
		goto out;
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, n / 2, &m), 0);
	rc = abb_dmabuf_map(d, a + n / 2, n / 2 + 1, &m2);
	if (rc != -ENOMEM)
		printf("\n    map beyond the limit: %d %s\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, -ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "ulimit -l"));
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "limits.conf"));
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "1048576"));
	stats();
	CU_ASSERT_EQUAL(st.rule_errors, 1); /* the kernel refused (ENOMEM) */
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(m), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, n, &m), 0);
out:
	if (d)
		abb_close(d);
	free(a);
}

/* Read-only memory maps read-only (the device may only read it): a DMA
 * write (host to board) from it works. */
static void test_vfio_read_only_source(void)
{
	abb_dev *d = emu_open(NULL);
	size_t n = 16 * 1024;
	uint8_t *ro = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *back = tb_alloc_pages(n), *want = tb_alloc_pages(n);
	abb_dmabuf *m = NULL;

	if (!d || ro == MAP_FAILED || !back || !want)
		goto out;
	tb_fill(ro, n, 99);
	memcpy(want, ro, n);
	CU_ASSERT_EQUAL_FATAL(mprotect(ro, n, PROT_READ), 0);
	vfio_emu_stats_reset();
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, ro, n, &m), 0);
	stats();
	CU_ASSERT_EQUAL(st.ro_maps, 1);
	CU_ASSERT_EQUAL(st.rule_errors, 1); /* the write-access attempt */
	CU_ASSERT_EQUAL(abb_dma_write(d, m, 0, 0x1000, n, 0), 0);
	CU_ASSERT_EQUAL(abb_mem_read(d, 0x1000, back, n), 0);
	CU_ASSERT(tb_same("DMA write from read-only memory", back, want, n));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(m), 0);
out:
	if (d)
		abb_close(d);
	if (ro != MAP_FAILED)
		munmap(ro, n);
	free(back);
	free(want);
}

/* close: interrupts off and bus master cleared before the IOMMU mappings
 * go away, also for buffers the program left mapped. */
static void test_vfio_close_order(void)
{
	abb_dev *d = emu_open(NULL);
	uint8_t *a = tb_alloc_pages(8 * PG);
	abb_dmabuf *m = NULL;

	if (!d || !a)
		goto out;
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, 8 * PG, &m), 0);
	CU_ASSERT_EQUAL(abb_dma_read(d, m, 0, 0, 8 * PG, 0), 0);
	vfio_emu_stats_reset();
	abb_close(d);
	d = NULL;
	stats();
	CU_ASSERT(st.unmap_calls >= 1);
	CU_ASSERT_EQUAL(st.unmap_with_master, 0);
	CU_ASSERT_EQUAL(st.maps, 0);
	CU_ASSERT_EQUAL(st.irq_index, -1);
out:
	if (d)
		abb_close(d);
	free(a);
}

/* Opening resets the board (VFIO_DEVICE_RESET); a device without reset
 * opens without one, and the kernel refuses the ioctl there. */
static void test_vfio_device_reset(void)
{
	struct vfio_emu_opts o = {.no_reset = 1};
	abb_dev *d = emu_open(NULL);
	uint32_t v = 1;

	if (!d)
		return;
	CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_LAT, 777), 0);
	abb_close(d);
	d = emu_open(NULL);
	if (!d)
		return;
	CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_IGEN_LAT, &v), 0);
	CU_ASSERT_EQUAL(v, ABB_REG_IGEN_LAT_RESET);
	stats();
	CU_ASSERT_EQUAL(st.resets, 1);
	abb_close(d);
	d = emu_open(&o);
	if (!d)
		return;
	stats();
	CU_ASSERT_EQUAL(st.resets, 0);
	abb_close(d);
}

/* ---- machines that are not ready: precise messages ------------------ */

static void test_vfio_other_driver(void)
{
	struct vfio_emu_opts o = {.driver = "abb_legacy"};

	open_fails(&o, NULL, -ENODEV, "bound to abb_legacy", "vfio-pci/new_id");
	o.driver = "";
	open_fails(&o, NULL, -ENODEV, "bound to no driver", "new_id");
}

static void test_vfio_no_group(void)
{
	struct vfio_emu_opts o = {.no_iommu_group = 1};

	open_fails(&o, NULL, -ENODEV, "no IOMMU group", "intel_iommu=on");
	open_fails(NULL, "vfio:0000:02:00.0", -ENODEV, "no PCI device", NULL);
	open_fails(NULL, "vfio:zz", -EINVAL, "not a PCI address", NULL);
	open_fails(NULL, "vfio:0000:100:00.0", -EINVAL, "out of range", NULL);
}

static void test_vfio_noiommu_group(void)
{
	struct vfio_emu_opts o = {.noiommu = 1};
	const struct abb_vfio_sys *s;
	char path[512];
	int c, g;

	open_fails(&o, NULL, -ENOTSUP, "no-IOMMU group", "intel_iommu=on");
	/* the kernel's rule: a noiommu group takes only the no-IOMMU type */
	s = abb_vfio_get_sys();
	snprintf(path, sizeof path, "%s/vfio/vfio", s->dev_root);
	c = s->open(path, O_RDWR);
	snprintf(path, sizeof path, "%s/vfio/noiommu-" VFIO_EMU_GROUP, s->dev_root);
	g = s->open(path, O_RDWR);
	CU_ASSERT(c >= 0 && g >= 0);
	CU_ASSERT_EQUAL(s->ioctl(g, VFIO_GROUP_SET_CONTAINER, &c), 0);
	CU_ASSERT_EQUAL(s->ioctl(c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	s->close(g);
	s->close(c);
}

static void test_vfio_no_interrupt_remapping(void)
{
	struct vfio_emu_opts o = {.no_irq_remap = 1};

	open_fails(&o, NULL, -EPERM, "interrupt remapping", "allow_unsafe_interrupts");
}

static void test_vfio_group_not_viable(void)
{
	struct vfio_emu_opts o = {.not_viable = 1};

	open_fails(&o, NULL, -EBUSY, "not viable", "iommu_groups/" VFIO_EMU_GROUP);
}

/* Issue 17 finding 12: the group's other device (an Intel NIC bound to
 * e1000e) is not an ABB: named with its IDs and the ABB's, no advice to
 * bind it to vfio-pci (before the fix: "bound to e1000e, not to vfio-pci;
 * ... unbind ... new_id"). */
static void test_vfio_not_an_abb(void)
{
	struct vfio_emu_opts o = {.not_viable = 1};

	open_fails(&o, "vfio:0000:01:00.1", -ENODEV, "8086:10d3", "10dc:0153");
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "is not an ABB"));
	CU_ASSERT_PTR_NULL(strstr(abb_last_error(), "bind"));
	CU_ASSERT_PTR_NULL(strstr(abb_last_error(), "new_id"));
}

static void test_vfio_group_access(void)
{
	struct vfio_emu_opts o = {.group_eacces = 1};

	open_fails(&o, NULL, -EACCES, "chown", NULL);
	o = (struct vfio_emu_opts){.group_busy = 1};
	open_fails(&o, NULL, -EBUSY, "another process", NULL);
}

static void test_vfio_iommu_types(void)
{
	struct vfio_emu_opts o = {.no_type1v2 = 1};
	abb_dev *d = emu_open(&o);
	uint8_t *a = tb_alloc_pages(PG);
	abb_dmabuf *m = NULL;

	if (d && a) {
		CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), 0);
		CU_ASSERT_EQUAL(abb_dma_read(d, m, 0, 0, PG, 0), 0);
	}
	if (d)
		abb_close(d);
	free(a);
	o = (struct vfio_emu_opts){.no_type1 = 1};
	open_fails(&o, NULL, -ENOTSUP, "type-1", NULL);
	o = (struct vfio_emu_opts){.iommufd_only = 1, .no_vfio_dev = 1};
	open_fails(&o, NULL, -ENOTSUP, "iommufd", "CONFIG_VFIO_CONTAINER");
}


/* ---- the iommufd/cdev path -------------------------------------------- */

#define CDEV_URI VFIO_EMU_URI ",iommu=iommufd"

static abb_dev *cdev_open(const struct vfio_emu_opts *o, const char *uri)
{
	abb_dev *d = NULL;
	int rc;

	if (emu(o))
		return NULL;
	rc = abb_open(&d, uri);
	if (rc)
		printf("\n    abb_open(%s): %d %s\n", uri, rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	return rc ? NULL : d;
}

/* Open, DMA both ways (polled and by interrupt), a read-only buffer,
 * interrupts (MSI and INTx), close: all through the cdev and /dev/iommu. */
static void test_vfio_cdev_dma(void)
{
	for (int intx = 0; intx < 2; intx++) {
		struct vfio_emu_opts o = {.cdev = 1, .no_msi = (unsigned)intx};
		abb_dev *d = cdev_open(&o, CDEV_URI);
		size_t n = 64 * 1024;
		uint8_t *a = tb_alloc_pages(n), *b = tb_alloc_pages(n);
		uint8_t *ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		abb_dmabuf *ma = NULL, *mb = NULL, *mr = NULL;

		if (!d || !a || !b || ro == MAP_FAILED)
			goto out;
		stats();
		CU_ASSERT_EQUAL(st.containers + st.groups, 0);
		CU_ASSERT_EQUAL(st.iommufds, 1);
		CU_ASSERT_EQUAL(st.ioas, 1);
		CU_ASSERT_EQUAL(st.binds, 1);
		CU_ASSERT_EQUAL(st.attaches, 1);
		CU_ASSERT_EQUAL(st.devices, 1);
		CU_ASSERT_EQUAL(st.resets, 1);
		if (intx) /* the simulated board has MSI only with its msi=1 */
			CU_ASSERT_STRING_EQUAL(abb_vfio_irq_mode(d), "INTx");
		CU_ASSERT_STRING_NOT_EQUAL(abb_vfio_irq_mode(d), "none");
		tb_fill(a, n, 91);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, a, n, &ma), 0);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, b, n, &mb), 0);
		for (int i = 0; i < 2; i++) {
			unsigned fl = i ? ABB_DMA_IRQ : 0;

			memset(b, 0, n);
			CU_ASSERT_EQUAL(abb_dma_write(d, ma, 0, 0, n, fl), 0);
			CU_ASSERT_EQUAL(abb_dma_read(d, mb, 0, 0, n, fl), 0);
			CU_ASSERT(tb_same("vfio cdev DMA round trip", b, a, n));
		}
		irq_generator(d, 2, 0);
		/* read-only memory: mapped without WRITEABLE, the board reads it */
		CU_ASSERT_EQUAL(abb_dmabuf_map(d, ro, PG, &mr), 0);
		stats();
		CU_ASSERT_EQUAL(st.ro_maps, 1);
		CU_ASSERT_EQUAL(st.maps, 3);
		CU_ASSERT_EQUAL(st.pinned, 2 * n + PG);
		if (mr)
			CU_ASSERT_EQUAL(abb_dma_write(d, mr, 0, 0, PG, 0), 0);
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(ma), 0);
		stats();
		CU_ASSERT_EQUAL(st.maps, 2);
		CU_ASSERT_EQUAL(st.unmap_with_master, 1); /* an unmap while open */
		vfio_emu_stats_reset();
		/* mb and mr stay mapped: close unmaps them after bus master off */
		abb_close(d);
		d = NULL;
		stats();
		CU_ASSERT_EQUAL(st.unmap_with_master, 0);
		if (st.devices + st.iommufds + st.ioas + st.maps)
			printf("\n    after close: devices %u iommufds %u ioas %u maps %u: %s\n",
			       st.devices, st.iommufds, st.ioas, st.maps, st.last_rule);
		CU_ASSERT_EQUAL(st.devices + st.iommufds + st.ioas + st.maps, 0);
		CU_ASSERT_EQUAL(st.pinned, 0);
		CU_ASSERT_EQUAL(st.rule_errors, 0);
out:
		if (d)
			abb_close(d);
		free(a);
		free(b);
		if (ro != MAP_FAILED)
			munmap(ro, PG);
	}
}

/* Which interface: the URI's iommu=, ABB_VFIO_IOMMU, else auto. */
static void test_vfio_cdev_select(void)
{
	struct vfio_emu_opts o = {.cdev = 1};
	abb_dev *d;

	d = cdev_open(&o, VFIO_EMU_URI); /* auto, both offered: the group */
	stats();
	CU_ASSERT_EQUAL(st.containers, 1);
	CU_ASSERT_EQUAL(st.iommufds, 0);
	if (d)
		abb_close(d);
	setenv("ABB_VFIO_IOMMU", "iommufd", 1);
	d = cdev_open(&o, VFIO_EMU_URI);
	stats();
	CU_ASSERT_EQUAL(st.containers, 0);
	CU_ASSERT_EQUAL(st.iommufds, 1);
	if (d)
		abb_close(d);
	d = cdev_open(&o, VFIO_EMU_URI ",iommu=group"); /* the URI wins */
	stats();
	CU_ASSERT_EQUAL(st.containers, 1);
	if (d)
		abb_close(d);
	setenv("ABB_VFIO_IOMMU", "both", 1);
	open_fails(&o, NULL, -EINVAL, "ABB_VFIO_IOMMU", "group");
	unsetenv("ABB_VFIO_IOMMU");
	open_fails(&o, VFIO_EMU_URI ",iommu=cdev", -EINVAL, "iommu=\"cdev\"", NULL);
	d = cdev_open(&o, VFIO_EMU_URI ",iommu=auto");
	if (d)
		abb_close(d);
	o = (struct vfio_emu_opts){.iommufd_only = 1}; /* auto: the only one */
	d = cdev_open(&o, "vfio");
	stats();
	CU_ASSERT_EQUAL(st.iommufds, 1);
	if (d)
		abb_close(d);
	o.cdev = 1; /* options only: discovery finds the address */
	d = cdev_open(&o, "vfio:iommu=iommufd");
	if (d)
		abb_close(d);
	open_fails(&o, VFIO_EMU_URI ",iommu=group", -ENOTSUP, "CONFIG_VFIO_CONTAINER", NULL);
	o = (struct vfio_emu_opts){0}; /* no cdev on this kernel */
	open_fails(&o, CDEV_URI, -ENOTSUP, "CONFIG_VFIO_DEVICE_CDEV", "iommu=group");
	o = (struct vfio_emu_opts){.cdev = 1, .no_vfio_dev = 1};
	open_fails(&o, CDEV_URI, -ENOTSUP, "vfio-dev", NULL);
	/* an IOVA alignment above the CPU page: maps in its units */
	o = (struct vfio_emu_opts){.cdev = 1, .pgsizes = 0x200000};
	d = cdev_open(&o, CDEV_URI);
	if (d) {
		uint8_t *a = aligned_alloc(0x200000, 0x200000); /* the whole IOVA unit */
		abb_dmabuf *m = NULL;

		if (a)
			memset(a, 0x5a, PG); /* the DMA write below reads it */
		if (a && abb_dmabuf_map(d, a, PG, &m) == 0) {
			stats();
			CU_ASSERT_EQUAL(st.pinned, 0x200000);
			CU_ASSERT_EQUAL(abb_dma_write(d, m, 0, 0, PG, 0), 0);
			CU_ASSERT_EQUAL(abb_dmabuf_unmap(m), 0);
		} else {
			printf("\n    %s\n", abb_last_error());
			CU_FAIL("map with a 2 MiB IOVA alignment");
		}
		abb_close(d);
		free(a);
	}
}

/* Each failure of the iommufd path has its message and leaves nothing open. */
static void test_vfio_cdev_failures(void)
{
	static const struct {
		const char *call;
		unsigned long req;
		int err;
		unsigned skip;
		int rc;
		const char *word;
	} cases[] = {
		{"open", 0, ENOENT, 0, -ENOTSUP, "CONFIG_IOMMUFD"},
		{"open", 0, EACCES, 0, -EACCES, "chmod 666"},
		{"open", 0, EIO, 0, -EIO, "/iommu"},
		{"open", 0, EACCES, 1, -EACCES, "chown"},
		{"open", 0, EBUSY, 1, -EBUSY, "another process"},
		{"open", 0, EIO, 1, -EIO, "vfio/devices/vfio0"},
		{"ioctl", VFIO_DEVICE_BIND_IOMMUFD, EBUSY, 0, -EBUSY, "in use"},
		{"ioctl", VFIO_DEVICE_BIND_IOMMUFD, EIO, 0, -EIO, "BIND_IOMMUFD"},
		{"ioctl", IOMMU_IOAS_ALLOC, ENOMEM, 0, -ENOMEM, "IOMMU_IOAS_ALLOC"},
		{"ioctl", VFIO_DEVICE_ATTACH_IOMMUFD_PT, EIO, 0, -EIO, "ATTACH_IOMMUFD_PT"},
		{"ioctl", IOMMU_IOAS_IOVA_RANGES, EIO, 0, -EIO, "IOVA_RANGES"},
	};
	struct vfio_emu_opts o = {.cdev = 1};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (emu(&o))
			return;
		vfio_emu_fail(cases[i].call, cases[i].req, cases[i].err, cases[i].skip);
		{
			abb_dev *d = NULL;
			int got = abb_open(&d, CDEV_URI);

			if (got != cases[i].rc || !strstr(abb_last_error(), cases[i].word))
				printf("\n    case %zu: %d (want %d): %s\n", i, got, cases[i].rc,
				       abb_last_error());
			CU_ASSERT_EQUAL(got, cases[i].rc);
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), cases[i].word));
			if (d)
				abb_close(d);
		}
		vfio_emu_fail(NULL, 0, 0, 0);
		stats();
		CU_ASSERT_EQUAL(st.devices + st.iommufds + st.ioas, 0);
	}
	o.no_irq_remap = 1;
	open_fails(&o, CDEV_URI, -EPERM, "interrupt remapping", "iommufd/parameters");
	o.no_irq_remap = 0;
	/* the memlock limit, a refused map, a refused unmap */
	o.memlock = 4 * PG;
	{
		abb_dev *d = cdev_open(&o, CDEV_URI);
		uint8_t *a = tb_alloc_pages(8 * PG);
		abb_dmabuf *m = NULL;

		if (d && a) {
			CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, 8 * PG, &m), -ENOMEM);
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "RLIMIT_MEMLOCK"));
			vfio_emu_fail("ioctl", IOMMU_IOAS_MAP, ENOMEM, 0);
			CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), -ENOMEM);
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "IOMMU_IOAS_MAP"));
			vfio_emu_fail("ioctl", IOMMU_IOAS_MAP, EIO, 0);
			CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), -EIO);
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "IOMMU_IOAS_MAP"));
			CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), 0);
			vfio_emu_fail("ioctl", IOMMU_IOAS_UNMAP, EIO, 0);
			CU_ASSERT_EQUAL(abb_dmabuf_unmap(m), -EIO);
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "IOMMU_IOAS_UNMAP"));
		}
		vfio_emu_fail(NULL, 0, 0, 0);
		if (d)
			abb_close(d);
		free(a);
	}
}

/* The emulated kernel's rules of the cdev path, call by call. */
static void test_vfio_rule_cdev(void)
{
	struct vfio_emu_opts o = {.cdev = 1, .memlock = 8 * PG};
	const struct abb_vfio_sys *s;
	char path[512];
	int ifd = -1, dfd = -1, efd = -1;
	struct vfio_region_info ri = {.argsz = sizeof ri};
	struct vfio_device_bind_iommufd bind = {.argsz = sizeof bind};
	struct vfio_device_attach_iommufd_pt at = {.argsz = sizeof at};
	struct iommu_ioas_alloc ia = {.size = sizeof ia};
	struct iommu_iova_range r[4];
	struct iommu_ioas_iova_ranges q = {.size = sizeof q};
	struct iommu_ioas_map im = {.size = sizeof im};
	struct iommu_ioas_unmap iu = {.size = sizeof iu};
	struct iommu_destroy ds = {.size = sizeof ds};
	uint8_t *a = tb_alloc_pages(16 * PG);
	uint8_t *ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t w;
	const unsigned FX = IOMMU_IOAS_MAP_FIXED_IOVA, RW = IOMMU_IOAS_MAP_READABLE |
							  IOMMU_IOAS_MAP_WRITEABLE;

	if (!a || ro == MAP_FAILED || emu(&o))
		goto out;
	s = abb_vfio_get_sys();
	snprintf(path, sizeof path, "%s/iommu", s->dev_root);
	ifd = s->open(path, O_RDWR);
	CU_ASSERT(ifd >= 0);
	snprintf(path, sizeof path, "%s/vfio/devices/vfio0", s->dev_root);
	dfd = s->open(path, O_RDWR);
	CU_ASSERT(dfd >= 0);
	REFUSED(s->open(path, O_RDWR), EBUSY);                          /* open twice */
	/* bind before anything else */
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_GET_REGION_INFO, &ri), EINVAL);
	REFUSED(s->pread(dfd, &w, 4, 0), EINVAL);
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at), EINVAL);
	bind.iommufd = dfd;
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_BIND_IOMMUFD, &bind), EBADF); /* not /dev/iommu */
	bind.iommufd = ifd, bind.flags = 1;
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_BIND_IOMMUFD, &bind), EINVAL);
	bind.flags = 0;
	CU_ASSERT_EQUAL(s->ioctl(dfd, VFIO_DEVICE_BIND_IOMMUFD, &bind), 0);
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_BIND_IOMMUFD, &bind), EINVAL); /* twice */
	/* attach before regions */
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_GET_REGION_INFO, &ri), EINVAL);
	REFUSED(s->mmap(NULL, PG, PROT_READ, MAP_SHARED, dfd, 0), EINVAL);
	at.pt_id = 2;
	REFUSED(s->ioctl(dfd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at), ENOENT); /* no IOAS yet */
	ia.flags = 1;
	REFUSED(s->ioctl(ifd, IOMMU_IOAS_ALLOC, &ia), EOPNOTSUPP);
	ia.flags = 0;
	CU_ASSERT_EQUAL(s->ioctl(ifd, IOMMU_IOAS_ALLOC, &ia), 0);
	CU_ASSERT(ia.out_ioas_id != 0);
	q.ioas_id = ia.out_ioas_id + 1;
	REFUSED(s->ioctl(ifd, IOMMU_IOAS_IOVA_RANGES, &q), ENOENT);
	q.ioas_id = ia.out_ioas_id, q.num_iovas = 0;
	REFUSED(s->ioctl(ifd, IOMMU_IOAS_IOVA_RANGES, &q), EMSGSIZE);   /* the count */
	CU_ASSERT_EQUAL(q.num_iovas, 2);
	q.allowed_iovas = (uintptr_t)r;
	CU_ASSERT_EQUAL(s->ioctl(ifd, IOMMU_IOAS_IOVA_RANGES, &q), 0);
	CU_ASSERT_EQUAL(r[0].last, 0xfedfffffull);
	CU_ASSERT_EQUAL(q.out_iova_alignment, PG);
	at.pt_id = ia.out_ioas_id;
	CU_ASSERT_EQUAL(s->ioctl(dfd, VFIO_DEVICE_ATTACH_IOMMUFD_PT, &at), 0);
	CU_ASSERT_EQUAL(s->ioctl(dfd, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	/* maps */
	im.ioas_id = ia.out_ioas_id;
#define MAP(va, io, sz, fl)                                                   \
	(im.user_va = (uintptr_t)(va), im.iova = (io), im.length = (sz), im.flags = (fl), \
	 s->ioctl(ifd, IOMMU_IOAS_MAP, &im))
	REFUSED(MAP(a + 1, 0x10000000, PG, FX | RW), EINVAL);      /* user_va misaligned */
	REFUSED(MAP(a, 0x10000800, PG, FX | RW), EINVAL);          /* iova misaligned */
	REFUSED(MAP(a, 0x10000000, PG + 8, FX | RW), EINVAL);      /* length misaligned */
	REFUSED(MAP(a, 0x10000000, PG, FX), EINVAL);               /* no access */
	REFUSED(MAP(a, 0x10000000, PG, RW), EOPNOTSUPP);           /* no FIXED_IOVA */
	REFUSED(MAP(a, 0x10000000, PG, FX | RW | 0x100), EOPNOTSUPP); /* unknown flag */
	REFUSED(MAP(a, 0xfee00000, PG, FX | RW), EINVAL);          /* the MSI hole */
	CU_ASSERT_EQUAL(MAP(a, 0x10000000, 4 * PG, FX | RW), 0);
	REFUSED(MAP(a + 4 * PG, 0x10003000, PG, FX | RW), EEXIST); /* overlap */
	REFUSED(MAP(a + 4 * PG, 0x20000000, 8 * PG, FX | RW), ENOMEM); /* memlock */
	REFUSED(MAP(ro, 0x20000000, PG, FX | RW), EFAULT);         /* write on read-only */
	CU_ASSERT_EQUAL(MAP(ro, 0x20000000, PG, FX | IOMMU_IOAS_MAP_READABLE), 0);
	im.ioas_id = 99;
	REFUSED(MAP(a, 0x30000000, PG, FX | RW), ENOENT);          /* unknown IOAS */
	im.ioas_id = ia.out_ioas_id;
#undef MAP
	stats();
	CU_ASSERT_EQUAL(st.maps, 2);
	CU_ASSERT_EQUAL(st.pinned, 5 * PG);
	CU_ASSERT_EQUAL(st.ro_maps, 1);
	iu.ioas_id = ia.out_ioas_id, iu.iova = 0x10001000, iu.length = PG; /* cuts */
	REFUSED(s->ioctl(ifd, IOMMU_IOAS_UNMAP, &iu), ENOENT);
	iu.iova = 0x40000000, iu.length = PG;                      /* nothing there */
	REFUSED(s->ioctl(ifd, IOMMU_IOAS_UNMAP, &iu), ENOENT);
	iu.iova = 0x10000000, iu.length = 0x20000000;
	CU_ASSERT_EQUAL(s->ioctl(ifd, IOMMU_IOAS_UNMAP, &iu), 0);
	CU_ASSERT_EQUAL(iu.length, 5 * PG);
	stats();
	CU_ASSERT_EQUAL(st.pinned, 0);
	/* the IOAS cannot go while the device is attached */
	ds.id = ia.out_ioas_id;
	REFUSED(s->ioctl(ifd, IOMMU_DESTROY, &ds), EBUSY);
	/* a device fd from the cdev refuses the group; the group path's device
	 * fd refuses the cdev ioctls (below, after close) */
	REFUSED(s->ioctl(ifd, 0x3bff, NULL), ENOTTY);
	efd = s->eventfd(0, 0);
	s->close(dfd);
	dfd = -1;
	CU_ASSERT_EQUAL(s->ioctl(ifd, IOMMU_DESTROY, &ds), 0);
	REFUSED(s->ioctl(ifd, IOMMU_DESTROY, &ds), ENOENT);
	s->close(ifd);
	ifd = -1;
	stats();
	CU_ASSERT_EQUAL(st.devices + st.iommufds + st.ioas + st.maps, 0);
out:
	if (efd >= 0)
		close(efd);
	if (dfd >= 0)
		abb_vfio_get_sys()->close(dfd);
	if (ifd >= 0)
		abb_vfio_get_sys()->close(ifd);
	free(a);
	if (ro != MAP_FAILED)
		munmap(ro, PG);
}

/* ---- failures of single calls (link injection) ----------------------- */

struct fail_case {
	const char *what;
	struct vfio_emu_opts o;
	const char *call;
	unsigned long req;
	unsigned skip;
	int rc;          /* of abb_open; 0: opens anyway */
	const char *word;
};

static void test_vfio_open_failures(void)
{
	static const struct fail_case cases[] = {
		{"no /dev/vfio/vfio", {.no_container = 1}, NULL, 0, 0, -ENOENT, "modprobe vfio-pci"},
		{"container mode", {.container_eacces = 1}, NULL, 0, 0, -EACCES, "world-accessible"},
		{"no group node", {.no_group_file = 1}, NULL, 0, 0, -ENODEV, "does not exist"},
		{"group open EIO", {0}, "open", 0, 1, -EIO, "vfio/" VFIO_EMU_GROUP},
		{"API version", {0}, "ioctl", VFIO_GET_API_VERSION, 0, -ENOTSUP, "API version"},
		{"SET_CONTAINER", {0}, "ioctl", VFIO_GROUP_SET_CONTAINER, 0, -EIO, "adding group"},
		{"SET_IOMMU", {0}, "ioctl", VFIO_SET_IOMMU, 0, -EIO, "VFIO_SET_IOMMU"},
		{"GET_INFO", {0}, "ioctl", VFIO_IOMMU_GET_INFO, 0, -EIO, "VFIO_IOMMU_GET_INFO"},
		{"GET_DEVICE_FD", {0}, "ioctl", VFIO_GROUP_GET_DEVICE_FD, 0, -EIO, "getting device"},
		{"config region", {0}, "ioctl", VFIO_DEVICE_GET_REGION_INFO, 0, -EIO, "region info 7"},
		{"BAR0 region", {0}, "ioctl", VFIO_DEVICE_GET_REGION_INFO, 1, -EIO, "region info 0"},
		{"no BAR1", {.no_bar1 = 1}, NULL, 0, 0, -ENXIO, "no BAR1"},
		{"command read", {0}, "pread", 0, 0, -EIO, "reading the command register"},
		{"command write", {0}, "pwrite", 0, 0, -EIO, "writing the command register"},
		{"eventfd", {0}, "eventfd", 0, 0, -EIO, "eventfd"},
		{"IRQ info", {0}, "ioctl", VFIO_DEVICE_GET_IRQ_INFO, 0, 0, NULL},
		{"IRQ trigger", {0}, "ioctl", VFIO_DEVICE_SET_IRQS, 0, 0, NULL},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct fail_case *c = &cases[i];
		abb_dev *d = NULL;
		int rc;

		if (emu(&c->o))
			return;
		if (c->call)
			vfio_emu_fail(c->call, c->req, EIO, c->skip);
		rc = abb_open(&d, VFIO_EMU_URI);
		if (rc != c->rc || (c->word && !strstr(abb_last_error(), c->word)))
			printf("\n    %s: abb_open %d (want %d): %s\n", c->what, rc, c->rc,
			       abb_last_error());
		CU_ASSERT_EQUAL(rc, c->rc);
		if (c->word)
			CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), c->word));
		if (d) {
			uint32_t v = 0;

			CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), 0);
			abb_close(d);
		}
		vfio_emu_fail(NULL, 0, 0, 0);
		stats();
		CU_ASSERT_EQUAL(st.containers + st.groups + st.devices + st.maps, 0);
	}
}

/* An open board whose register, memory and IOMMU calls fail: -errno with
 * a message, and the board still works afterwards. */
static void test_vfio_call_failures(void)
{
	abb_dev *d = emu_open(NULL);
	uint8_t *a = tb_alloc_pages(2 * PG), w[8] = {0};
	abb_dmabuf *m = NULL;
	uint32_t v;

	if (!d || !a)
		goto out;
	vfio_emu_fail("pread", 0, EIO, 0);
	CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "register read"));
	vfio_emu_fail("pwrite", 0, EIO, 0);
	CU_ASSERT_EQUAL(abb_reg_write(d, ABB_REG_IGEN_LAT, 1), -EIO);
	vfio_emu_fail("pread", 0, EIO, 0);
	CU_ASSERT_EQUAL(abb_mem_read(d, 0, w, sizeof w), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "BAR1 read"));
	vfio_emu_fail("pwrite", 0, EIO, 0);
	CU_ASSERT_EQUAL(abb_mem_write(d, 0, w, sizeof w), -EIO);
	vfio_emu_fail("ioctl", VFIO_IOMMU_MAP_DMA, ENOMEM, 0);
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), -ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "ulimit -l"));
	vfio_emu_fail("ioctl", VFIO_IOMMU_MAP_DMA, EINVAL, 0);
	CU_ASSERT_EQUAL(abb_dmabuf_map(d, a, PG, &m), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "IOMMU page"));
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, a, 2 * PG, &m), 0);
	vfio_emu_fail("ioctl", VFIO_IOMMU_UNMAP_DMA, EIO, 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(m), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "UNMAP_DMA"));
	CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, ABB_VERSION_ID);
out:
	vfio_emu_fail(NULL, 0, 0, 0);
	if (d)
		abb_close(d);
	free(a);
}

/* The default seam is the real system: its calls behave as libc's. */
static void test_vfio_real_seam(void)
{
	const struct abb_vfio_sys *r;
	struct rlimit rl;
	struct timespec ts = {0, 0};
	struct pollfd pfd;
	int fd, efd;

	abb_vfio_set_sys(NULL);
	r = abb_vfio_get_sys();
	CU_ASSERT_STRING_EQUAL(r->sysfs_root, "/sys");
	CU_ASSERT_STRING_EQUAL(r->dev_root, "/dev");
	fd = r->open("/dev/null", O_RDWR);
	CU_ASSERT(fd >= 0);
	REFUSED(r->ioctl(fd, VFIO_GET_API_VERSION, NULL), ENOTTY);
	CU_ASSERT_EQUAL(r->close(fd), 0);
	CU_ASSERT_EQUAL(r->getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	efd = r->eventfd(0, EFD_NONBLOCK);
	CU_ASSERT(efd >= 0);
	pfd = (struct pollfd){.fd = efd, .events = POLLIN};
	CU_ASSERT_EQUAL(r->poll(&pfd, 1, &ts), 0);
	r->close(efd);
	emu(NULL);
}

/* "vfio" without an address: discovery (abb_vfio_find, libpci) under the
 * seam's sysfs root finds the emulated board. */
static void test_vfio_uri_without_address(void)
{
	abb_dev *d = NULL;
	uint32_t v = 0;
	int rc;

	if (emu(NULL))
		return;
	rc = abb_open(&d, "vfio");
	if (rc)
		printf("\n    abb_open(\"vfio\"): %d %s\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	if (d) {
		CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), 0);
		CU_ASSERT_EQUAL(v, ABB_VERSION_ID);
		abb_close(d);
	}
}

/* ---- the emulated kernel's rules, by direct calls --------------------- */

struct handles {
	const struct abb_vfio_sys *s;
	int c, g, d;
};

static void h_open(struct handles *h)
{
	char path[512];

	h->s = abb_vfio_get_sys();
	snprintf(path, sizeof path, "%s/vfio/vfio", h->s->dev_root);
	h->c = h->s->open(path, O_RDWR);
	snprintf(path, sizeof path, "%s/vfio/" VFIO_EMU_GROUP, h->s->dev_root);
	h->g = h->s->open(path, O_RDWR);
	h->d = -1;
	CU_ASSERT(h->c >= 0 && h->g >= 0);
}

static void h_close(struct handles *h)
{
	if (h->d >= 0)
		h->s->close(h->d);
	h->s->close(h->g);
	h->s->close(h->c);
	stats();
	CU_ASSERT_EQUAL(st.containers + st.groups + st.devices + st.maps, 0);
}

static void test_vfio_rule_order(void)
{
	struct vfio_iommu_type1_dma_map dm = {.argsz = sizeof dm,
					      .flags = VFIO_DMA_MAP_FLAG_READ};
	struct vfio_group_status gs = {.argsz = sizeof gs};
	struct handles h;
	char path[512];

	if (emu(NULL))
		return;
	h_open(&h);
	REFUSED(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), EINVAL);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, VFIO_EMU_BDF), EINVAL);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_GET_STATUS, &gs), 0);
	CU_ASSERT_EQUAL(gs.flags, VFIO_GROUP_FLAGS_VIABLE);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.g), EBADF);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), 0);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), EINVAL);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, VFIO_EMU_BDF), EINVAL);
	REFUSED(h.s->ioctl(h.c, VFIO_IOMMU_MAP_DMA, &dm), EINVAL);
	REFUSED(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)99), EINVAL);
	CU_ASSERT_EQUAL(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), 0);
	REFUSED(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), EBUSY);
	snprintf(path, sizeof path, "%s/vfio/" VFIO_EMU_GROUP, h.s->dev_root);
	REFUSED(h.s->open(path, O_RDWR), EBUSY);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, "0000:09:00.0"), ENODEV);
	h.d = h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, VFIO_EMU_BDF);
	CU_ASSERT(h.d >= 0);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, VFIO_EMU_BDF), EBUSY);
	REFUSED(h.s->ioctl(h.d, VFIO_IOMMU_MAP_DMA, &dm), ENOTTY);
	REFUSED(h.s->ioctl(12345, VFIO_GET_API_VERSION, NULL), EBADF);
	h_close(&h);
}

static void test_vfio_rule_viability(void)
{
	struct vfio_emu_opts o = {.not_viable = 1};
	struct vfio_group_status gs = {.argsz = sizeof gs};
	struct handles h;

	if (emu(&o))
		return;
	h_open(&h);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_GET_STATUS, &gs), 0);
	CU_ASSERT_EQUAL(gs.flags & VFIO_GROUP_FLAGS_VIABLE, 0);
	REFUSED(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), EPERM);
	h_close(&h);
	o = (struct vfio_emu_opts){.no_irq_remap = 1};
	if (emu(&o))
		return;
	h_open(&h);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), 0);
	REFUSED(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), EPERM);
	h_close(&h);
}

static void test_vfio_rule_map_dma(void)
{
	struct vfio_emu_opts o = {.memlock = 8 * PG};
	struct vfio_iommu_type1_dma_map dm = {.argsz = sizeof dm,
					      .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE};
	struct vfio_iommu_type1_dma_unmap um = {.argsz = sizeof um};
	uint8_t *a = tb_alloc_pages(16 * PG);
	uint8_t *ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct handles h;

	if (!a || ro == MAP_FAILED || emu(&o))
		goto out;
	h_open(&h);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), 0);
	CU_ASSERT_EQUAL(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), 0);
#define MAP(va, io, sz, fl)                                                   \
	(dm.vaddr = (uintptr_t)(va), dm.iova = (io), dm.size = (sz), dm.flags = (fl), \
	 h.s->ioctl(h.c, VFIO_IOMMU_MAP_DMA, &dm))
	const unsigned RW = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	REFUSED(MAP(a + 1, 0x10000000, PG, RW), EINVAL);       /* vaddr misaligned */
	REFUSED(MAP(a, 0x10000800, PG, RW), EINVAL);           /* iova misaligned */
	REFUSED(MAP(a, 0x10000000, PG + 512, RW), EINVAL);     /* size misaligned */
	REFUSED(MAP(a, 0x10000000, 0, RW), EINVAL);            /* size 0 */
	REFUSED(MAP(a, 0x10000000, PG, 0), EINVAL);            /* no access */
	REFUSED(MAP(a, 0xfee00000, PG, RW), EINVAL);           /* the MSI hole */
	REFUSED(MAP(a, 0xfedff000, 2 * PG, RW), EINVAL);       /* across a range end */
	REFUSED(MAP(a, 1ull << 48, PG, RW), EINVAL);           /* above the ranges */
	CU_ASSERT_EQUAL(MAP(a, 0x10000000, 4 * PG, RW), 0);
	REFUSED(MAP(a + 4 * PG, 0x10003000, PG, RW), EEXIST);  /* overlap */
	REFUSED(MAP(a + 4 * PG, 0x20000000, 8 * PG, RW), ENOMEM); /* 4 + 8 pages > 8 */
	REFUSED(MAP(ro, 0x20000000, PG, RW), EFAULT);          /* write on read-only */
	CU_ASSERT_EQUAL(MAP(ro, 0x20000000, PG, VFIO_DMA_MAP_FLAG_READ), 0);
	stats();
	CU_ASSERT_EQUAL(st.maps, 2);
	CU_ASSERT_EQUAL(st.pinned, 5 * PG);
	um.iova = 0x10001000, um.size = PG; /* cuts the first mapping */
	REFUSED(h.s->ioctl(h.c, VFIO_IOMMU_UNMAP_DMA, &um), EINVAL);
	um.iova = 0x10000000, um.size = 100;
	REFUSED(h.s->ioctl(h.c, VFIO_IOMMU_UNMAP_DMA, &um), EINVAL);
	um.iova = 0x10000000, um.size = 0x20000000;
	CU_ASSERT_EQUAL(h.s->ioctl(h.c, VFIO_IOMMU_UNMAP_DMA, &um), 0);
	CU_ASSERT_EQUAL(um.size, 5 * PG); /* both, reported */
	CU_ASSERT_EQUAL(MAP(a, 0x10000000, 8 * PG, RW), 0); /* pinned count went back */
#undef MAP
	h_close(&h);
out:
	free(a);
	if (ro != MAP_FAILED)
		munmap(ro, PG);
}

static void test_vfio_rule_device(void)
{
	struct vfio_region_info ri = {.argsz = sizeof ri};
	struct vfio_irq_info ii = {.argsz = sizeof ii};
	char buf[sizeof(struct vfio_irq_set) + 4];
	struct vfio_irq_set *set = (void *)buf;
	struct vfio_emu_opts o = {.no_reset = 1, .no_msi = 1};
	struct handles h;
	uint32_t w;
	int32_t efd;

	if (emu(&o))
		return;
	h_open(&h);
	CU_ASSERT_EQUAL(h.s->ioctl(h.g, VFIO_GROUP_SET_CONTAINER, &h.c), 0);
	CU_ASSERT_EQUAL(h.s->ioctl(h.c, VFIO_SET_IOMMU, (void *)(long)VFIO_TYPE1v2_IOMMU), 0);
	h.d = h.s->ioctl(h.g, VFIO_GROUP_GET_DEVICE_FD, VFIO_EMU_BDF);
	CU_ASSERT_FATAL(h.d >= 0);
	REFUSED(h.s->ioctl(h.d, VFIO_DEVICE_RESET, NULL), EINVAL);
	ri.index = VFIO_PCI_BAR0_REGION_INDEX;
	CU_ASSERT_EQUAL(h.s->ioctl(h.d, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	CU_ASSERT_EQUAL(ri.flags & VFIO_REGION_INFO_FLAG_MMAP, 0);
	REFUSED(h.s->pread(h.d, &w, 4, (off_t)(ri.offset + ri.size)), EINVAL);
	CU_ASSERT(h.s->mmap(NULL, ri.size, PROT_READ, MAP_SHARED, h.d, (off_t)ri.offset) ==
		  MAP_FAILED);
	CU_ASSERT_EQUAL(errno, EINVAL);
	ri.index = VFIO_PCI_NUM_REGIONS;
	REFUSED(h.s->ioctl(h.d, VFIO_DEVICE_GET_REGION_INFO, &ri), EINVAL);
	ii.index = VFIO_PCI_MSI_IRQ_INDEX;
	CU_ASSERT_EQUAL(h.s->ioctl(h.d, VFIO_DEVICE_GET_IRQ_INFO, &ii), 0);
	CU_ASSERT_EQUAL(ii.count, 0);
	ii.index = VFIO_PCI_INTX_IRQ_INDEX;
	CU_ASSERT_EQUAL(h.s->ioctl(h.d, VFIO_DEVICE_GET_IRQ_INFO, &ii), 0);
	CU_ASSERT_EQUAL(ii.count, 1);
	CU_ASSERT(ii.flags & VFIO_IRQ_INFO_AUTOMASKED);
	/* an eventfd on the MSI index with count 0 is refused; INTx takes one */
	efd = h.s->eventfd(0, EFD_NONBLOCK);
	set->argsz = sizeof buf;
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSI_IRQ_INDEX;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &efd, 4);
	REFUSED(h.s->ioctl(h.d, VFIO_DEVICE_SET_IRQS, set), EINVAL);
	set->index = VFIO_PCI_INTX_IRQ_INDEX;
	CU_ASSERT_EQUAL(h.s->ioctl(h.d, VFIO_DEVICE_SET_IRQS, set), 0);
	h.s->close(efd);
	h_close(&h);
}

/* BAR1 for the CPU's stores (vfio_pio.c): pio=wc asks for the WC mapping
 * of sysfs resource1_wc; every way the kernel may not offer it falls back
 * to UC with its reason in abb_pio_mapping (what `abb_tool info` prints)
 * and the stores still land; with a mapping the emulator gives (RAM, as
 * bar_mmap 2: the stores reach the RAM, not the board) the mapping is WC,
 * every width stores through it and a read-back through it matches.
 * ABB_SIM_PIO=wc makes the emulated board's BAR1 prefetchable (and asks
 * the vfio backend for WC as the URI's pio=wc does). */
static void pio_case(const struct vfio_emu_opts *o, const char *uri, int want, const char *w1,
		     const char *w2)
{
	static const unsigned widths[] = {1, 2, 4, 8, 16, 32, 64};
	uint8_t w[256], r[256];
	char why[256];
	abb_dev *d = NULL;
	int rc, map;

	if (emu(o))
		return;
	rc = abb_open(&d, uri);
	if (rc)
		printf("\n    abb_open(%s): %d %s\n", uri, rc, abb_last_error());
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	map = abb_pio_mapping(d, why, sizeof why);
	if (map != want || (w1 && !strstr(why, w1)) || (w2 && !strstr(why, w2)))
		printf("\n    %s (res_wc %u): mapping %d: %s\n", uri, o->res_wc, map, why);
	CU_ASSERT_EQUAL(map, want);
	CU_ASSERT(!w1 || strstr(why, w1));
	CU_ASSERT(!w2 || strstr(why, w2));
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		tb_fill(w, sizeof w, 40 + widths[i]);
		rc = abb_pio_write_block(d, 256, w, sizeof w, widths[i]);
		if (rc == -ENOTSUP) {
			tb_skip_part("%u-byte stores: %s", widths[i], abb_last_error());
			continue;
		}
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(abb_pio_flush(d), 0);
		memset(r, 0, sizeof r);
		CU_ASSERT_EQUAL(abb_mem_read(d, 256, r, sizeof r), 0);
		CU_ASSERT(tb_same("BAR1 after block stores", r, w, sizeof r));
	}
	abb_close(d);
}

static void test_vfio_pio_mapping(void)
{
	struct vfio_emu_opts o = {0};
	const char *uri = VFIO_EMU_URI ",pio=wc";

	/* pio=uc: the VFIO region, no question of WC */
	pio_case(&o, VFIO_EMU_URI, ABB_PIO_UC, "pio=uc", "pread/pwrite");
	/* pio=wc, BAR1 not prefetchable (the board's pio=uc) */
	setenv("ABB_SIM_PIO", "uc", 1);
	pio_case(&o, uri, ABB_PIO_UC, "fell back", "not prefetchable");
	setenv("ABB_SIM_PIO", "wc", 1);
	/* prefetchable; mmap of resource1_wc refused */
	pio_case(&o, uri, ABB_PIO_UC, "fell back", "Invalid argument");
	/* no resource1_wc */
	o.res_wc = 1;
	pio_case(&o, uri, ABB_PIO_UC, "fell back", "offers no WC mapping");
	/* resource1_wc not ours */
	o.res_wc = 2;
	pio_case(&o, uri, ABB_PIO_UC, "fell back", "root's");
	/* a WC mapping (the emulator's RAM); pio=wc from ABB_SIM_PIO alone */
	o.res_wc = 3;
	pio_case(&o, VFIO_EMU_URI, ABB_PIO_WC, "write-combined", "resource1_wc");
	/* the URI wins over the environment */
	pio_case(&o, VFIO_EMU_URI ",pio=uc", ABB_PIO_UC, "pio=uc", NULL);
	unsetenv("ABB_SIM_PIO");
	open_fails(&o, VFIO_EMU_URI ",pio=xx", -EINVAL, "pio", "uc or wc");
}

static int vfio_cleanup(void)
{
	return tb_vfio_emu_restore() ? -1 : 0;
}

static CU_TestInfo vfio_tests[] = {
	{ "test_vfio_open_close", test_vfio_open_close },
	{ "test_vfio_dma", test_vfio_dma },
	{ "test_vfio_intx_automask_unmask", test_vfio_intx_automask_unmask },
	{ "test_vfio_msi", test_vfio_msi },
	{ "test_vfio_no_interrupts", test_vfio_no_interrupts },
	{ "test_vfio_bar_mmap", test_vfio_bar_mmap },
	{ "test_vfio_iova_ranges", test_vfio_iova_ranges },
	{ "test_vfio_memlock", test_vfio_memlock },
	{ "test_vfio_read_only_source", test_vfio_read_only_source },
	{ "test_vfio_close_order", test_vfio_close_order },
	{ "test_vfio_device_reset", test_vfio_device_reset },
	{ "test_vfio_other_driver", test_vfio_other_driver },
	{ "test_vfio_no_group", test_vfio_no_group },
	{ "test_vfio_noiommu_group", test_vfio_noiommu_group },
	{ "test_vfio_no_interrupt_remapping", test_vfio_no_interrupt_remapping },
	{ "test_vfio_group_not_viable", test_vfio_group_not_viable },
	{ "test_vfio_group_access", test_vfio_group_access },
	{ "test_vfio_iommu_types", test_vfio_iommu_types },
	{ "test_vfio_open_failures", test_vfio_open_failures },
	{ "test_vfio_call_failures", test_vfio_call_failures },
	{ "test_vfio_real_seam", test_vfio_real_seam },
	{ "test_vfio_uri_without_address", test_vfio_uri_without_address },
	{ "test_vfio_rule_order", test_vfio_rule_order },
	{ "test_vfio_rule_viability", test_vfio_rule_viability },
	{ "test_vfio_rule_map_dma", test_vfio_rule_map_dma },
	{ "test_vfio_cdev_dma", test_vfio_cdev_dma },
	{ "test_vfio_cdev_select", test_vfio_cdev_select },
	{ "test_vfio_cdev_failures", test_vfio_cdev_failures },
	{ "test_vfio_rule_cdev", test_vfio_rule_cdev },
	{ "test_vfio_rule_device", test_vfio_rule_device },
	{ "test_vfio_not_an_abb", test_vfio_not_an_abb },
	{ "test_vfio_pio_mapping", test_vfio_pio_mapping },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo vfio_suite[] = {
	{ "vfio", NULL, vfio_cleanup, NULL, NULL, vfio_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_vfio(void)
{
	return CU_register_suites(vfio_suite);
}
