/*
 * abb.h - host library for the Active Buffer Board (ABB), any backend.
 *
 * One API for the real board and the simulator. The backend is chosen by
 * the URI given to abb_open() or, when it is NULL, by $ABB_DEVICE:
 *   "sim"             the simulated board (libabbsim.so, loaded on demand)
 *   "vfio"            the first ABB (10dc:0153) found on the PCI bus, via VFIO
 *   "vfio:DDDD:BB:DD.F"  that PCI device, via VFIO
 *   "vfio:...,iommu=group|iommufd|auto"  the VFIO interface: the group/container
 *                     one (type1v2, else type1), the device cdev with iommufd
 *                     (Linux 6.6+), or auto (default: the group one when
 *                     /dev/vfio/vfio exists); also $ABB_VFIO_IOMMU (the URI wins)
 * Unset or empty $ABB_DEVICE means "sim".
 *
 * Words: "DMA read" = board to host (upstream channel 1, C2H);
 *        "DMA write" = host to board (downstream channel 0, H2C).
 *
 * Every function returns 0 (or a count) on success or a negative errno.
 * Bad arguments are rejected before any hardware access. abb_strerror()
 * and abb_last_error() explain an error. No function exits or aborts.
 * Thread safety: one thread per channel (one DMA-read thread, one
 * DMA-write thread) may use a device at the same time; register and PIO
 * accesses are safe from any thread, also while another thread closes the
 * device: abb_close waits for those in flight, later ones get -EINVAL.
 *
 * The rules every call keeps (each has tests: testbench/test_bad_input.c,
 * test_robust.c, test_protocol.c, test_faults.c):
 *  1. A rejected call changes nothing: arguments are checked before any
 *     register access, mapping or allocation that outlives the call.
 *  2. A call that fails after touching the device leaves the channel reset
 *     and usable: the next DMA on it starts normally (a failed or aborted
 *     wait resets and releases the channel; only the caller's own
 *     -ETIMEDOUT leaves the DMA running, to be waited for again).
 *  3. A buffer is never unmapped, freed or reused while a DMA may still
 *     write it: abb_dmabuf_unmap() answers -EBUSY while a DMA uses it, an
 *     unmapped handle stays invalid (-EINVAL) and is never handed out again.
 *  4. No call blocks forever on any backend: device-time timeouts are the
 *     caller's; ABB_WAIT_FOREVER is bounded by ABB_WAIT_LIMIT_MS of device
 *     time (default 10 s on the board and the reference model; the channel
 *     is then reset: -ETIMEDOUT) and, on the simulator, by the wall-clock
 *     watchdog ABB_SIM_WATCHDOG_S; abb_close() stops running DMAs and wakes
 *     waiting threads before it frees anything.
 *  5. Every negative errno a call returns has a name in abb_strerror().
 */
#ifndef ABB_ABB_H
#define ABB_ABB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ABB_MUST_USE __attribute__((warn_unused_result))
#else
#define ABB_MUST_USE
#endif

typedef struct abb_dev abb_dev;       /* an open board */
typedef struct abb_dmabuf abb_dmabuf; /* host memory mapped for DMA */

/* DMA flags */
#define ABB_DMA_FIXED 0x1u /* peripheral (board) address not incremented: a FIFO */
#define ABB_DMA_IRQ   0x2u /* wait for completion by interrupt instead of polling */

/* Interrupt sources for abb_irq_wait (the ISR/IER bits) */
#define ABB_IRQ_DMA_READ  0x1u /* upstream channel 1, board to host */
#define ABB_IRQ_DMA_WRITE 0x2u /* downstream channel 0, host to board */
#define ABB_IRQ_GEN       0x4u /* interrupt generator */

/* Timeouts are device time in ns: simulated ns on the simulator, real ns
 * on the board. A negative timeout waits without a limit of its own; any
 * value up to INT64_MAX is valid.
 *
 * Wait limit: no wait for a DMA or an interrupt lasts longer than the
 * device's wait limit, ABB_WAIT_LIMIT_MS milliseconds of device time
 * (environment, read by abb_open; 0 = none). Default: 10000 (10 s) on the
 * board ("vfio") and the reference model ("model"); none on the
 * simulator, whose wall-clock watchdog (ABB_SIM_WATCHDOG_S) ends a hung
 * wait with -ETIME instead. A DMA wait (or blocking call) that reaches the
 * limit returns -ETIMEDOUT with the transfer stopped: the channel is reset
 * and free, unlike a wait that reached its own, shorter timeout. */
#define ABB_WAIT_FOREVER ((int64_t)-1)

/* Opens a board. uri: see above; NULL: $ABB_DEVICE. -ENODEV: no such board;
 * -EINVAL: unknown URI (the message lists the accepted forms); -EBUSY: the
 * simulated board is open already (of opens at the same moment from several
 * threads exactly one succeeds). Checks VERSION (-ENXIO if it is not
 * 0x00020003) and resets both DMA channels. */
ABB_MUST_USE int abb_open(abb_dev **dev, const char *uri);
/* Waits (at most 10 ms of device time) for running DMAs nobody waits for,
 * stops them after that, unmaps buffers still mapped, frees dev. A thread
 * blocked in a DMA wait or abb_irq_wait on dev is woken first: its
 * transfer is stopped, the call returns -ECANCELED (or -EIO), and
 * abb_close returns after every such thread left the library. NULL is
 * ignored. A closed handle is recognised (as long as fewer than 64 other
 * devices were closed since): a second abb_close, or any other call on
 * it, changes nothing and leaves a message (calls: -EINVAL); an abb_close
 * racing another one returns when that one has finished. */
void abb_close(abb_dev *dev);
/* "sim", "vfio" */
const char *abb_backend(const abb_dev *dev);
/* err: a negative errno. Never NULL. */
const char *abb_strerror(int err);
/* The message of the last error in this thread (what was wrong and what
 * to do), or "" if none. */
const char *abb_last_error(void);

/* BAR0 registers: off a byte offset, multiple of 4, below the BAR0 size. */
ABB_MUST_USE int abb_reg_read(abb_dev *dev, uint32_t off, uint32_t *val);
ABB_MUST_USE int abb_reg_write(abb_dev *dev, uint32_t off, uint32_t val);
/* BAR1 board memory by PIO, any byte offset and length within BAR1. */
ABB_MUST_USE int abb_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len);
ABB_MUST_USE int abb_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len);
/* Size of BAR1 (the DMA peripheral space) in bytes. */
ABB_MUST_USE int abb_mem_size(abb_dev *dev, size_t *size);

/*
 * PIO as a CPU issues it (doc/pio.md). BAR1 is mapped for the CPU's stores
 * either uncached (UC: one write per store, each waits its turn in the
 * store path) or write-combined (WC: stores merge into 64-byte lines that
 * leave as one write when full, on a flush or an eviction, in no promised
 * order). The mapping is chosen at open: URI option pio=uc|wc (or
 * $ABB_SIM_PIO; every backend, default uc). WC needs a prefetchable BAR1:
 * the simulator's is with pio=wc; on the board the vfio backend maps BAR1
 * through sysfs resource1_wc where the kernel offers it and falls back to
 * UC otherwise (abb_pio_mapping says why). The reference model has no
 * store path: the data semantics only (no timing, no write shapes).
 */
#define ABB_PIO_UC 0 /* uncached */
#define ABB_PIO_WC 1 /* write-combined */

/* Writes len bytes of buf to BAR1 at off as stores of store_bytes each
 * (1, 2, 4, 8: integer stores; 16 SSE, 32 AVX, 64 MOVDIR64B), in address
 * order: off and len multiples of store_bytes, len > 0, inside BAR1.
 * Posted: returns when the stores are issued; with WC the last lines may
 * still sit in the CPU until abb_pio_flush (or a read, abb_mem_write,
 * abb_close). -EINVAL (message) for a bad width, a misaligned off or len,
 * a range past BAR1, NULL buf, len 0, before any store; -ENOTSUP on the
 * board when the CPU lacks the instruction of that width (AVX,
 * MOVDIR64B) or the architecture has none. */
ABB_MUST_USE int abb_pio_write_block(abb_dev *dev, uint32_t off, const void *buf, size_t len,
				     unsigned store_bytes);
/* Makes every store issued before it leave the CPU (SFENCE): the WC
 * buffers are written out. Nothing to do with UC (returns 0). */
ABB_MUST_USE int abb_pio_flush(abb_dev *dev);
/* The mapping in effect: ABB_PIO_UC or ABB_PIO_WC (>= 0), or a negative
 * errno. why (may be NULL; n bytes, NUL terminated, truncated) gets one
 * line saying how BAR1 is mapped and, when WC was asked for and UC is in
 * use, why (what `abb_tool info` prints). */
ABB_MUST_USE int abb_pio_mapping(abb_dev *dev, char *why, size_t n);

/* Maps [ptr, ptr+len) for DMA (ptr need not be page aligned; the memory
 * must stay allocated until unmapped). A buffer may not overlap another
 * mapped buffer of the same device (-EEXIST). Memory that is not mapped or
 * not readable (PROT_NONE) is refused (-EFAULT); read-only memory maps for
 * DMA writes only (a DMA read into it: -EACCES at its start). An unmapped
 * handle stays invalid (-EINVAL): its address is never handed out again. */
ABB_MUST_USE int abb_dmabuf_map(abb_dev *dev, void *ptr, size_t len, abb_dmabuf **buf);
/* -EBUSY while a DMA into or out of it runs; -EINVAL for NULL or a buffer
 * already unmapped. */
int abb_dmabuf_unmap(abb_dmabuf *buf);
/* How the device addresses a mapped buffer: as *count pieces (at least 1),
 * the buffer's bytes in order, each piece contiguous at the device (bus)
 * address the board's DMA uses: the IOVA on the board and the simulator
 * (one piece per page with the simulator's iova=scatter), the reference
 * model's own address. For programs that write descriptors or registers
 * themselves, and for following a transfer in a TLP log.
 * abb_dmabuf_piece: piece i's device address and length in bytes (the
 * lengths add up to the buffer's). Every backend. -EINVAL for NULL or a
 * buffer not mapped (also for a NULL count, dev_addr or len); -ERANGE for
 * i >= count. */
ABB_MUST_USE int abb_dmabuf_pieces(const abb_dmabuf *buf, size_t *count);
ABB_MUST_USE int abb_dmabuf_piece(const abb_dmabuf *buf, size_t i, uint64_t *dev_addr,
				  uint64_t *len);

/*
 * DMA. DMA read: board_addr in BAR1 to buf at byte offset off; DMA write:
 * the other way. board_addr, off and len must be multiples of 4, len > 0,
 * both ranges inside BAR1 and inside the buffer (with ABB_DMA_FIXED only
 * the 4 bytes at board_addr need to be inside BAR1).
 * The blocking forms return when the data is in its destination (DMA read:
 * visible in the user buffer). _start returns at once; _wait then blocks
 * until done (0), or:
 *  -ETIMEDOUT  its own timeout passed: the DMA keeps running, wait again;
 *              or the device's wait limit was reached (see Timeouts): the
 *              DMA was stopped, the channel is reset and free;
 *  -EIO        the board reported an error, or the transfer was stopped
 *              from outside (a channel reset, GCR.SOFT_RESET, a hot reset);
 *  -ECANCELED  abb_close was called meanwhile;
 *  -ETIME      the simulator's wall-clock watchdog;
 *  any other   a backend call failed.
 * Every outcome but "keeps running" leaves the channel reset and free: a
 * new start is accepted and the buffer can be unmapped. (Only if even the
 * channel reset fails does the channel stay claimed, with a message.)
 * -EBUSY: that channel already has a DMA in flight. One DMA read and one
 * DMA write may be in flight at the same time.
 *
 * How the board is driven (its original driver's protocol): before each
 * start the channel is reset and its IER bit set (ABB_DMA_IRQ) or cleared
 * (polling); completion is STA.BUSY clear, with DONE = success. With
 * ABB_DMA_IRQ the wait sleeps until an interrupt or for at most 1 ms of
 * device time, then reads STA again, so it ends even if another thread
 * acknowledged the interrupt (abb_irq_wait); at the end the channel's IER
 * bit is cleared (the acknowledge). Before it sleeps, a wait by interrupt
 * (and abb_irq_wait) acknowledges any other pending source (clears the IER
 * bit of each ISR & IER bit not its own), as the original driver's
 * interrupt handler did: an interrupt nobody collected yet would hold the
 * level (INTx) line high. Polled waits read STA a few times back to back,
 * then at intervals growing from 1 us to 100 us.
 */
ABB_MUST_USE int abb_dma_read(abb_dev *dev, abb_dmabuf *buf, size_t off,
			      uint32_t board_addr, size_t len, unsigned flags);
ABB_MUST_USE int abb_dma_read_start(abb_dev *dev, abb_dmabuf *buf, size_t off,
				    uint32_t board_addr, size_t len, unsigned flags);
ABB_MUST_USE int abb_dma_read_wait(abb_dev *dev, int64_t timeout_ns);
ABB_MUST_USE int abb_dma_write(abb_dev *dev, abb_dmabuf *buf, size_t off,
			       uint32_t board_addr, size_t len, unsigned flags);
ABB_MUST_USE int abb_dma_write_start(abb_dev *dev, abb_dmabuf *buf, size_t off,
				     uint32_t board_addr, size_t len, unsigned flags);
ABB_MUST_USE int abb_dma_write_wait(abb_dev *dev, int64_t timeout_ns);

/* Waits for interrupt source(s) (ABB_IRQ_*): enables them in IER (leaving
 * other bits alone), waits until ISR shows one, acknowledges those that
 * fired (clears their IER bits; the generator also gets IGEN_ACK, which
 * clears its ISR bit) and returns the bits that fired. ISR is not
 * written: a DMA channel's ISR bit stays set after its transfer ended
 * until the channel's next reset, i.e. the next DMA start on it (on a
 * board without the model-defined write-1-to-clear ISR, strict mode). So after
 * a DMA by interrupt, abb_irq_wait on that channel returns at once.
 * Enable bits this call set for sources that did not fire are cleared
 * again. -ETIMEDOUT after timeout_ns or the device's wait limit;
 * -ECANCELED when abb_close was called meanwhile. */
ABB_MUST_USE int abb_irq_wait(abb_dev *dev, unsigned source, int64_t timeout_ns);

/* Device time in ns (simulated time on the simulator, CLOCK_MONOTONIC on
 * the board): the clock that bandwidth figures are measured in. */
ABB_MUST_USE int abb_time_ns(abb_dev *dev, uint64_t *ns);

#ifdef __cplusplus
}
#endif
#endif
