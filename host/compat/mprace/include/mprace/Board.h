/*
 * mprace/Board.h - the abstract board of the mprace compatibility layer.
 *
 * Units, as in the original library: board addresses, register numbers,
 * counts and buffer offsets are 32-bit words (a word address N is byte
 * N*4). Registers live in BAR0, write/read/DMA address BAR1.
 */
#ifndef MPRACE_BOARD_H_
#define MPRACE_BOARD_H_

#include <string>

struct abb_dev;

namespace mprace {

class DMABuffer;
class DMAEngine;

class Board {
public:
	enum ConfigStatus { NOT_CONFIGURED, CONFIGURED, CRC_ERROR, BUSY };

	virtual ~Board() {}

	/* BAR0 register number address (word offset). */
	virtual void setReg(const unsigned int address, const unsigned int value) = 0;
	virtual unsigned int getReg(const unsigned int address) = 0;
	/* One word of BAR1 at word address. */
	virtual void write(const unsigned int address, const unsigned int value) = 0;
	virtual unsigned int read(const unsigned int address) = 0;
	/* count words of BAR1 by PIO; inc=false: all at the same address. */
	virtual void writeBlock(const unsigned int address, const unsigned int *data,
				const unsigned int count, const bool inc = true) = 0;
	virtual void readBlock(const unsigned int address, unsigned int *data,
			       const unsigned int count, const bool inc = true) = 0;
	/* DMA of count words between word offset `offset` of buf and word
	 * address `address` of BAR1. inc=false: a fixed board address (FIFO).
	 * lock=false: returns once started; the engine's getStatus() or
	 * waitReadComplete()/waitWriteComplete() collect it. */
	virtual void writeDMA(const unsigned int address, const DMABuffer &buf,
			      const unsigned int count, const unsigned int offset = 0,
			      const bool inc = true, const bool lock = true) = 0;
	virtual void readDMA(const unsigned int address, DMABuffer &buf, const unsigned int count,
			     const unsigned int offset = 0, const bool inc = true,
			     const bool lock = true) = 0;

	virtual DMAEngine &getDMAEngine() = 0;

	/* FPGA configuration: not supported (throws). */
	virtual ConfigStatus config(const std::string &filename) = 0;
	virtual ConfigStatus config(const char *filename) = 0;
	virtual ConfigStatus config(unsigned int byteCount, const char *bitstream) = 0;

	/* Blocks until interrupt source int_param (ABB::IRQ_*) fires. */
	virtual void waitForInterrupt(unsigned int int_param) = 0;

	/* Extension of the layer: the libabb device behind the board. */
	virtual abb_dev *device() const = 0;

protected:
	Board() {}

private:
	Board(const Board &); /* not copyable: never defined */
	Board &operator=(const Board &);
};

} /* namespace mprace */

#endif
