/*
 * backend.h - private operations table of a libabb backend.
 *
 * One file per backend (backend_sim.c, backend_vfio.c, backend_ref_model.c), each exporting one
 * filled-in table, in the manner of libpci's struct pci_methods. The core
 * (abb_core.c, abb_dma.c, abb_dmabuf.c) does every argument check before it
 * calls an operation, so an operation may assume valid arguments: offsets
 * inside the BAR, len > 0, a mapped buffer.
 *
 * Every int operation returns 0 (or a count) or a negative errno and, on
 * error, sets the thread's message with abb_err(). Optional operations are
 * NULL; the core then returns -ENOTSUP.
 *
 * Only the operations every backend has are here. What only the simulator
 * can do is a table of its own (sim_ops.h) that the sim backend registers
 * on the device at open (dev->sim), and the timed reference model too for
 * what it serves, so the board's and the untimed model's backends fill
 * only these. The timed model installs a table of its own at open
 * (backend_ref_timed.c), as the sim backend does for host-time coupling.
 */
#ifndef ABB_BACKEND_H
#define ABB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb.h>

/* A contiguous piece of device-visible (IOVA) address space. */
struct abb_seg {
	uint64_t iova;
	uint64_t len;
};

/* A polled wait (backend poll_reg): first first_ns of device time pass
 * (0: none), then BAR0 register off is read until (value & mask) != busy;
 * the first spin + 1 reads back to back, a pause before each later one
 * (nap_min_ns, growing by pause / nap_div up to nap_max_ns, never past
 * stop_ns); -ETIMEDOUT after a read at or after stop_ns (device time in
 * ns; UINT64_MAX: none). */
struct abb_poll {
	uint32_t off, mask, busy;
	unsigned spin, nap_div;
	uint64_t first_ns, nap_min_ns, nap_max_ns, stop_ns;
};

struct abb_backend {
	const char *name; /* "sim", "vfio", "model": what abb_backend() returns */

	/* args: the text after "name:" in the URI, or NULL. Fills
	 * dev->be_priv, dev->bar0_size and dev->bar1_size. */
	int (*open)(abb_dev *dev, const char *args);
	/* Optional: stops the device from mastering the bus and from
	 * interrupting (abb_close calls it before any buffer is unmapped).
	 * NULL: nothing to do. */
	void (*quiesce)(abb_dev *dev);
	/* Frees everything open made; called once, after every buffer of the
	 * device was unmapped. */
	void (*close)(abb_dev *dev);

	/* BAR0 32-bit register access; off a multiple of 4. */
	int (*reg_read)(abb_dev *dev, uint32_t off, uint32_t *val);
	int (*reg_write)(abb_dev *dev, uint32_t off, uint32_t val);
	/* BAR1 PIO, any byte offset and length inside BAR1. */
	int (*mem_read)(abb_dev *dev, uint32_t off, void *buf, size_t len);
	int (*mem_write)(abb_dev *dev, uint32_t off, const void *buf, size_t len);
	/* BAR1 stores as a CPU issues them (abb_pio_write_block): store_bytes
	 * 1..64, a power of two; off and len multiples of it. */
	int (*pio_store)(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			 unsigned store_bytes);
	/* Every store issued before leaves the CPU (SFENCE). */
	int (*pio_flush)(abb_dev *dev);
	/* ABB_PIO_UC or ABB_PIO_WC, and one line into why (n > 0) saying how
	 * BAR1 is mapped (and why not WC when WC was asked for). */
	int (*pio_mapping)(abb_dev *dev, char *why, size_t n);

	/* Makes [ptr, ptr+len) reachable by the device. On success *segs is a
	 * malloc()ed list of *nsegs IOVA pieces in buffer order (the caller
	 * frees it) and the bytes of the buffer lie at consecutive addresses
	 * inside each piece. */
	int (*map)(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs);
	/* Undoes map for the same ptr and len. */
	int (*unmap)(abb_dev *dev, void *ptr, size_t len);

	/* Interrupts (INTx asserts or MSI writes) are counted by the backend.
	 * Blocks until the count exceeds *seen or timeout_ns of device time
	 * passed (-ETIMEDOUT); timeout_ns < 0: no device-time limit. On return
	 * *seen is the count. The core passes only short slices
	 * (ABB_IRQ_SLICE_NS at most): it re-reads the device's status after
	 * each, so a backend need not be exact about who an interrupt was for. */
	int (*irq_wait)(abb_dev *dev, uint64_t *seen, int64_t timeout_ns);
	/* The current interrupt count (does not wait). */
	uint64_t (*irq_count)(abb_dev *dev);
	/* Optional: called by the core after it cleared the source of an
	 * interrupt (the source's IER bit, for the generator also IGEN_ACK).
	 * VFIO INTx: the kernel masks the line when it fires; this unmasks it.
	 * NULL: nothing to do (sim, model, MSI). */
	int (*irq_unmask)(abb_dev *dev);
	/* Optional: 0 if interrupts can be delivered, else a negative errno
	 * with a message (checked before any interrupt-driven operation).
	 * NULL: always available. */
	int (*irq_check)(abb_dev *dev);
	/* Device time in ns. */
	int (*now_ns)(abb_dev *dev, uint64_t *ns);
	/* Lets ns of device time pass (simulator: time advances; board, model:
	 * a sleep on the clock). The core uses it for the first status read of
	 * a polled wait and for the back-off between status reads (1 us ..
	 * 100 us). NULL: the core sleeps on the host's clock (nanosleep). */
	int (*delay_ns)(abb_dev *dev, int64_t ns);
	/* Optional: a polled wait on a BAR0 register run by the device side
	 * (the simulator) with the reads, their device times and the
	 * deadline test of the core's own loop (abb_dma.c); see struct
	 * abb_poll. *val the last value read, *reads how many. NULL: the
	 * core runs the loop itself. */
	int (*poll_reg)(abb_dev *dev, const struct abb_poll *p, uint32_t *val, uint64_t *reads);
};

/* The tables are internal to libabb (not exported from the shared library). */
#if defined(__GNUC__)
#define ABB_BACKEND_TABLE extern __attribute__((visibility("hidden"))) const struct abb_backend
#else
#define ABB_BACKEND_TABLE extern const struct abb_backend
#endif

ABB_BACKEND_TABLE abb_backend_sim;
ABB_BACKEND_TABLE abb_backend_vfio;
ABB_BACKEND_TABLE abb_backend_refmodel;

#endif
