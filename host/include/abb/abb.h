/*
 * abb.h - host library for the Active Buffer Board (ABB), any backend.
 *
 * One API for the real board and the simulator. The backend is chosen by
 * the URI given to abb_open() or, when it is NULL, by $ABB_DEVICE:
 *   "sim"             the simulated board (libabbsim.so, loaded on demand)
 *   "vfio"            the first ABB (10dc:0153) found on the PCI bus, via VFIO
 *   "vfio:DDDD:BB:DD.F"  that PCI device, via VFIO
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
 * accesses are safe from any thread.
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
 * on the board. A negative timeout waits without limit. */
#define ABB_WAIT_FOREVER ((int64_t)-1)

/* Opens a board. uri: see above; NULL: $ABB_DEVICE. -ENODEV: no such board;
 * -EINVAL: unknown URI (the message lists the accepted forms); -EBUSY: the
 * simulated board is open already. Checks VERSION (-ENXIO if it is not
 * 0x00020003) and resets both DMA channels. */
ABB_MUST_USE int abb_open(abb_dev **dev, const char *uri);
/* Waits for running DMAs (bounded), unmaps buffers still mapped, frees dev.
 * NULL is ignored. */
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

/*
 * DMA. DMA read: board_addr in BAR1 to buf at byte offset off; DMA write:
 * the other way. board_addr, off and len must be multiples of 4, len > 0,
 * both ranges inside BAR1 and inside the buffer (with ABB_DMA_FIXED only
 * the 4 bytes at board_addr need to be inside BAR1).
 * The blocking forms return when the data is in its destination (DMA read:
 * visible in the user buffer). _start returns at once; _wait then blocks
 * until done (0), -ETIMEDOUT (the DMA keeps running: wait again), or -EIO
 * (the board reported an error; the channel is reset and usable again).
 * -EBUSY: that channel already has a DMA in flight. One DMA read and one
 * DMA write may be in flight at the same time.
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
 * other bits alone), waits until ISR shows one, clears those ISR bits and
 * their IER bits, and returns the bits that fired; -ETIMEDOUT. */
ABB_MUST_USE int abb_irq_wait(abb_dev *dev, unsigned source, int64_t timeout_ns);

/* Device time in ns (simulated time on the simulator, CLOCK_MONOTONIC on
 * the board): the clock that bandwidth figures are measured in. */
ABB_MUST_USE int abb_time_ns(abb_dev *dev, uint64_t *ns);

#ifdef __cplusplus
}
#endif
#endif
