/*
 * tb_scoreboard.h - the reference model as scoreboard: one program, two
 * devices in one process.
 *
 * A struct sb holds the simulator ("sim:...") and the reference model
 * ("model:...") open at the same time, each with its own host buffer and
 * descriptor area of the same size and content. Every operation (register
 * write, PIO, a DMA through libabb, a hand-built descriptor chain, an
 * interrupt wait) is done on both; sb_check() then compares host memory,
 * a window of board memory (BAR1), STA of both channels, GER, ISR and IER.
 * A mismatch prints the program's seed, the step, what differs and both
 * values, and counts in sb->mismatches.
 *
 * Used by the differential suite (test_scoreboard.c) and by the
 * constrained-random regression (regress.c). Needs no CUnit.
 */
#ifndef TB_SCOREBOARD_H
#define TB_SCOREBOARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <abb/abb.h>

enum { SB_SIM, SB_MODEL, SB_NDEV };

/* Device time of one operation on both devices (the timed model against
 * the simulator): a transfer, a pair, a chain up to settled. */
struct sb_time {
	uint64_t ns[SB_NDEV];
	size_t len;          /* bytes of the largest transfer in it */
	unsigned two;        /* both channels at once */
	unsigned long step;
	char what[160];
};

struct sb {
	abb_dev *dev[SB_NDEV];
	uint8_t *host[SB_NDEV];   /* host buffer of each device, host_len bytes */
	abb_dmabuf *buf[SB_NDEV];
	uint8_t *desc[SB_NDEV];   /* descriptor area (hand-built chains) */
	abb_dmabuf *dbuf[SB_NDEV];
	size_t host_len, desc_len, mem_size;
	unsigned strict;
	uint64_t seed;            /* of the program, printed on a mismatch */
	unsigned long step;       /* step number, printed on a mismatch */
	char what[160];           /* the current step, printed on a mismatch */
	unsigned mismatches;      /* mismatches so far */
	unsigned timed;           /* the model has device time (model:timed=1): operations
				   * are timed on both and their times recorded */
	struct sb_time *times;    /* the timed operations so far (malloc()ed) */
	size_t ntimes, cap_times;
	unsigned quiet;           /* 1: do not print mismatches */
	unsigned trace;           /* 1: print every step ($ABB_SB_TRACE=1) */
	FILE *out;                /* messages (stdout if NULL) */
};

/* Channel reset (CTRL = RESET code | V | BAR) on both, then idle; what it
 * leaves is compared by the next sb_check, never adjusted on one side. */
void sb_chan_reset(struct sb *s, int chn);

/* Opens both: "sim:<sim_opts>" and "model:<model_opts>" (either may be
 * NULL or ""), maps host_len bytes of host buffer and a descriptor area
 * on each. Returns 0 or a negative errno (with a message on out). */
int sb_open(struct sb *s, const char *sim_opts, const char *model_opts, size_t host_len);
void sb_close(struct sb *s);

/* Names the next step (printf format): printed with a mismatch. */
void sb_step(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same register write / PIO on both. */
void sb_reg_write(struct sb *s, uint32_t off, uint32_t val);
void sb_board_fill(struct sb *s, uint32_t off, size_t len, uint32_t seed);
void sb_host_fill(struct sb *s, size_t off, size_t len, uint32_t seed);

/* One transfer through libabb on both (blocking): dir 0 = DMA read (board
 * to host), 1 = DMA write (host to board). The return codes must agree. */
int sb_dma(struct sb *s, int dir, size_t off, uint32_t board, size_t len, unsigned flags);
/* A DMA read and a DMA write in flight at the same time on both. */
int sb_dma_pair(struct sb *s, size_t roff, uint32_t rboard, size_t rlen, unsigned rflags,
		size_t woff, uint32_t wboard, size_t wlen, unsigned wflags);

/* A hand-built descriptor chain, started by register writes (no libabb
 * DMA call): piece i moves len[i] bytes between host offset hoff[i] and
 * the board (UPA: board[i], else where the previous piece ended), with
 * ctrl_extra (ABB_CTRL_EDI, EEI, INC...) on every descriptor. reset: reset
 * the channel first (the driver's protocol); without it a leftover DONE
 * shows. Each piece must be contiguous in IOVA on both (inside one page
 * with iova=scatter). Waits until the channel is idle (at most 2 ms of
 * device time). */
void sb_chain(struct sb *s, int chn, unsigned n, const size_t *hoff, const uint32_t *board,
	      const uint32_t *len, const uint32_t *upa, uint32_t ctrl_extra, int reset);
/* A raw start of one descriptor with the given register values: HAH:HAL
 * is raw_ha on both (for error paths: an IOVA mapped on neither), or with
 * raw_ha == SB_HOST_OFF each device's IOVA of host offset hoff. */
#define SB_HOST_OFF (~0ull)
void sb_raw_start(struct sb *s, int chn, uint32_t pal, size_t hoff, uint64_t raw_ha, uint32_t len,
		  uint32_t ctrl);

/* A chain of two whose link or second descriptor is bad (after a channel
 * reset): kind 0 the next-descriptor address misaligned, 1 unmapped, 2 the
 * second descriptor has LENG 0, 3 it lacks V. The first moves len bytes
 * between host offset hoff and board; the second would continue there. */
void sb_chain_bad(struct sb *s, int chn, int kind, size_t hoff, uint32_t board, uint32_t len,
		  uint32_t ctrl_extra);

/* abb_irq_wait(source, timeout) on both; the results must agree. */
int sb_irq_wait(struct sb *s, unsigned source, int64_t timeout_ns);

/* Lets the simulator (and a timed model) run until both channels are
 * idle (at most max_ns of device time), by the same GSR reads and 1-us
 * advances on both; the untimed model is settled already. */
void sb_settle(struct sb *s, int64_t max_ns);
/* ns of device time on both (with device time) with no host access at all:
 * what a board does while its host is away (abb_sim_advance; a failure
 * is a mismatch) */
void sb_idle(struct sb *s, int64_t ns);

/* Timing of the timed model against the simulator (s->times):
 * the error of one operation, |model - sim| / sim; its bound: 2 % for a
 * single-channel transfer of 4 KiB or more, 5 % for smaller ones and for
 * both channels at once (issue 20's acceptance). */
double sb_time_err(const struct sb_time *t);
double sb_time_bound(const struct sb_time *t);
/* Prints the distribution of the errors of n operations (two classes:
 * single-channel >= 4 KiB, the rest): count, median, 99th percentile,
 * worst with its step and what; label says whose. Returns how many exceed
 * their bound. */
unsigned sb_time_report(FILE *out, const char *label, const struct sb_time *t, size_t n);

/* Compares: the whole host buffer and descriptor-free state, STA of both
 * channels, GER, ISR, IER, and board memory [board_lo, board_hi) (read by
 * PIO; empty range: not compared). Returns the number of mismatches. */
unsigned sb_check(struct sb *s, uint32_t board_lo, uint32_t board_hi);
/* Compares one register. */
unsigned sb_check_reg(struct sb *s, uint32_t off, const char *name);

/* IOVA of host offset off on device d (the descriptor area if desc), from
 * the buffer's pieces (abb_dmabuf_piece); ~0 if off is outside it. */
uint64_t sb_iova(struct sb *s, int d, int desc, size_t off);

/* Deterministic 64-bit generator (splitmix64). */
uint64_t sb_rand(uint64_t *state);
/* Uniform in [lo, hi]. */
uint64_t sb_range(uint64_t *state, uint64_t lo, uint64_t hi);

#endif
