/*
 * DMAEngineWG.cpp - the ABB's two DMA channels through libabb.
 *
 * Channel 0 = host to board (abb_dma_write_*), channel 1 = board to host
 * (abb_dma_read_*). Every transfer is started with libabb's _start call
 * (libabb resets the channel, sets or clears its IER bit, writes the
 * descriptor registers, CTRL last) and collected with its _wait call: at
 * once for lock=true, later for lock=false (getStatus, waitRead/Write-
 * Complete, the next transfer on the channel, reset, or the buffer's
 * destructor). A KERNEL_PIECES buffer is moved as one libabb DMA per piece
 * the range touches, the next started when the previous one is collected.
 */
#include "mprace/DMAEngineWG.h"

#include <algorithm>
#include <cerrno>
#include <string>

#include <abb/abb.h>
#include <abb/abb_regs.h>

#include "mprace/Board.h"
#include "mprace/DMABuffer.h"
#include "mprace/Exception.h"
#include "mprace_priv.h"

namespace mprace {

using priv::fail;

struct DMAEngineWG::Transfer {
	const DMABuffer *buf;
	unsigned flags;
	std::size_t next, end; /* byte range of buf still to move */
	unsigned piece;        /* piece of buf that next lies in */
	uint32_t board;        /* byte address of next on the board */
	std::size_t len;       /* bytes of the piece in flight */
};

static const uint32_t CTRL_RESET =
	(ABB_CTRL_RESET_CODE << ABB_CTRL_RESET_SHIFT) | ABB_CTRL_V | ABB_CTRL_BAR;

DMAEngineWG::DMAEngineWG(Board &b) : board(b), useInterrupts(false), inflight{nullptr, nullptr}
{
}

DMAEngineWG::~DMAEngineWG()
{
	for (unsigned ch = 0; ch < 2; ch++) {
		try {
			finish(ch);
		} catch (...) {
		}
		delete inflight[ch];
	}
}

static void check_channel(unsigned ch, const char *fn)
{
	if (ch > 1)
		throw Exception(Exception::UNKNOWN, EINVAL,
				std::string(fn) + ": channel " + std::to_string(ch) +
					" does not exist (0: host to board, 1: board to host)");
}

static Exception::Types dma_error(int rc)
{
	return rc == -EINVAL ? Exception::ADDRESS_OUT_OF_RANGE
	       : rc == -ENOTSUP ? Exception::DMA_NOT_SUPPORTED
				: Exception::UNKNOWN;
}

/* The board range of a DMA in bytes must fit libabb's 32-bit board
 * address: word address addr (a FIFO: that word; else addr + count words)
 * at most 2^32 bytes. addr * 4 wrapped before, so writeDMA(0x40000000, ...)
 * wrote board words 0.. and readDMA(0x40000000, ...) read word 0. What
 * fits is then judged by libabb (BAR1's size). */
static void check_board_range(unsigned addr, unsigned count, bool inc, const char *fn)
{
	unsigned long long end = ((unsigned long long)addr + (inc ? count : 1)) * 4;

	if (end > 0x100000000ull)
		throw Exception(Exception::ADDRESS_OUT_OF_RANGE, EINVAL,
				std::string(fn) + ": word address " + std::to_string(addr) +
					(inc ? " + " + std::to_string(count) + " words" : std::string()) +
					" is past 32-bit board addresses (word addresses below "
					"0x40000000; every BAR is smaller)");
}

/* Starts the piece of inflight[ch] at t->next; on failure forgets the
 * transfer and returns the error. */
int DMAEngineWG::startPiece(unsigned ch)
{
	Transfer *t = inflight[ch];
	std::size_t stop = t->end;
	int rc;

	/* inside the buffer: up to the end of the piece; otherwise let libabb
	 * judge the whole range */
	if (t->end <= t->buf->size())
		stop = std::min(stop, t->buf->pieceStart(t->piece + 1));
	t->len = stop - t->next;
	rc = ch == 0 ? abb_dma_write_start(board.device(), t->buf->handle(), t->next, t->board,
					   t->len, t->flags)
		     : abb_dma_read_start(board.device(), t->buf->handle(), t->next, t->board,
					  t->len, t->flags);
	if (rc) {
		delete t;
		inflight[ch] = nullptr;
	}
	return rc;
}

void DMAEngineWG::start(unsigned ch, const unsigned int addr, const DMABuffer &buf,
			const unsigned int count, const unsigned int offset, const bool inc,
			const bool lock)
{
	Transfer *t;
	int rc;

	finish(ch); /* a transfer started with lock=false and never collected */
	check_board_range(addr, count, inc, ch == 0 ? "writeDMA" : "readDMA");
	t = new Transfer();
	t->buf = &buf;
	t->flags = (inc ? 0u : ABB_DMA_FIXED) | (useInterrupts ? ABB_DMA_IRQ : 0u);
	t->next = (std::size_t)offset * 4;
	t->end = t->next + (std::size_t)count * 4;
	t->board = addr * 4u;
	t->piece = 0;
	while (t->piece + 1 < buf.pieces() && buf.pieceStart(t->piece + 1) <= t->next)
		t->piece++;
	inflight[ch] = t;
	rc = startPiece(ch);
	if (rc)
		fail(dma_error(rc), rc, "starting the DMA failed");
	if (lock)
		finish(ch);
}

/* libabb's wait for the channel's piece in flight. */
static int wait_piece(abb_dev *dev, unsigned ch, int64_t timeout_ns)
{
	return ch == 0 ? abb_dma_write_wait(dev, timeout_ns) : abb_dma_read_wait(dev, timeout_ns);
}

/* After a piece finished: 0 when the transfer is complete, 1 when the next
 * piece was started, a negative errno when starting it failed (the
 * transfer is forgotten). */
int DMAEngineWG::pieceDone(unsigned ch)
{
	Transfer *t = inflight[ch];

	t->next += t->len;
	if (!(t->flags & ABB_DMA_FIXED)) /* a FIFO keeps its board address */
		t->board += (uint32_t)t->len;
	t->piece++;
	if (t->next >= t->end) {
		delete t;
		inflight[ch] = nullptr;
		return 0;
	}
	int rc = startPiece(ch);

	return rc ? rc : 1;
}

void DMAEngineWG::finish(unsigned ch)
{
	while (Transfer *t = inflight[ch]) {
		int rc = wait_piece(board.device(), ch, ABB_WAIT_FOREVER);

		if (rc) {
			delete t;
			inflight[ch] = nullptr;
			fail(Exception::UNKNOWN, rc, "the DMA failed");
		}
		rc = pieceDone(ch);
		if (rc < 0)
			fail(dma_error(rc), rc, "starting the next piece of the DMA failed");
	}
}

DMAEngine::DMAStatus DMAEngineWG::getStatus(const unsigned int ch)
{
	check_channel(ch, "DMAEngineWG::getStatus");
	if (Transfer *t = inflight[ch]) {
		int rc = wait_piece(board.device(), ch, 0);

		if (rc == -ETIMEDOUT)
			return BUSY;
		if (rc) {
			delete t;
			inflight[ch] = nullptr;
			return ERROR;
		}
		rc = pieceDone(ch);
		return rc == 0 ? IDLE : rc > 0 ? BUSY : ERROR;
	}
	uint32_t base = ch == 0 ? ABB_BLK_H2C : ABB_BLK_C2H;
	unsigned sta = board.getReg((base + ABB_CH_STA) >> 2);

	if ((sta & ABB_STA_BUSY) && (sta & ABB_STA_DONE))
		return ERROR;
	return (sta & ABB_STA_BUSY) ? BUSY : IDLE;
}

void DMAEngineWG::reset(const unsigned int ch)
{
	check_channel(ch, "DMAEngineWG::reset");
	finish(ch);
	board.setReg(((ch == 0 ? ABB_BLK_H2C : ABB_BLK_C2H) + ABB_CH_CTRL) >> 2, CTRL_RESET);
}

void DMAEngineWG::host2board(const unsigned int addr, const DMABuffer &buf,
			     const unsigned int count, const unsigned int offset, const bool inc,
			     const bool lock)
{
	start(0, addr, buf, count, offset, inc, lock);
}

void DMAEngineWG::board2host(const unsigned int addr, DMABuffer &buf, const unsigned int count,
			     const unsigned int offset, const bool inc, const bool lock)
{
	start(1, addr, buf, count, offset, inc, lock);
}

void DMAEngineWG::waitReadComplete()
{
	finish(1);
}

void DMAEngineWG::waitWriteComplete()
{
	finish(0);
}

void DMAEngineWG::collect(const DMABuffer &buf)
{
	for (unsigned ch = 0; ch < 2; ch++)
		if (inflight[ch] && inflight[ch]->buf == &buf)
			finish(ch);
}

} /* namespace mprace */
