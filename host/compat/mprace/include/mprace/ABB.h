/*
 * mprace/ABB.h - the Active Buffer Board in the mprace compatibility layer,
 * implemented over libabb (<abb/abb.h>).
 *
 * ABB(number) opens:
 *   $ABB_DEVICE unset, "sim...", "model..." or "vfio:BDF": that device
 *     (libabb's choice; on the simulator there is one board, number is
 *     not used);
 *   $ABB_DEVICE = "vfio": the number-th ABB (10dc:0153) in PCI address
 *     order, through VFIO.
 * Failures throw Exception(NOT_OPEN) with libabb's message.
 */
#ifndef MPRACE_ABB_H_
#define MPRACE_ABB_H_

#include <abb/abb_regs.h>

#include "cxx98.h"

#include "Board.h"
#include "DMABuffer.h"
#include "DMAEngineWG.h"
#include "Exception.h"
#include "InterruptGenerator.h"

namespace mprace {

class ABB : public Board {
public:
	ABB(const unsigned int number);
	virtual ~ABB();

	void setReg(const unsigned int address, const unsigned int value) MPRACE_OVERRIDE;
	unsigned int getReg(const unsigned int address) MPRACE_OVERRIDE;
	void write(const unsigned int address, const unsigned int value) MPRACE_OVERRIDE;
	unsigned int read(const unsigned int address) MPRACE_OVERRIDE;
	void writeBlock(const unsigned int address, const unsigned int *data,
			const unsigned int count, const bool inc = true) MPRACE_OVERRIDE;
	void readBlock(const unsigned int address, unsigned int *data, const unsigned int count,
		       const bool inc = true) MPRACE_OVERRIDE;
	void writeDMA(const unsigned int address, const DMABuffer &buf, const unsigned int count,
		      const unsigned int offset = 0, const bool inc = true,
		      const bool lock = true) MPRACE_OVERRIDE;
	void readDMA(const unsigned int address, DMABuffer &buf, const unsigned int count,
		     const unsigned int offset = 0, const bool inc = true,
		     const bool lock = true) MPRACE_OVERRIDE;

	DMAEngine &getDMAEngine() MPRACE_OVERRIDE { return *dma; }
	InterruptGenerator &getInterruptGenerator() { return *ig; }

	ConfigStatus config(const std::string &filename) MPRACE_OVERRIDE;
	ConfigStatus config(const char *filename) MPRACE_OVERRIDE;
	ConfigStatus config(unsigned int byteCount, const char *bitstream) MPRACE_OVERRIDE;

	/* int_id: IRQ_CH0, IRQ_CH1 or IRQ_IG. Waits without a time limit
	 * (the simulator's watchdog ends a wait for nothing). */
	void waitForInterrupt(unsigned int int_id) MPRACE_OVERRIDE;

	abb_dev *device() const MPRACE_OVERRIDE { return dev; }

	/* Register numbers (word offsets in BAR0), from <abb/abb_regs.h>.
	 * Defined in ABB.cpp as well (a program may take their address). */
	static const unsigned int DESIGN_ID = ABB_REG_VERSION >> 2;
	static const unsigned int ISR = ABB_REG_ISR >> 2;
	static const unsigned int IER = ABB_REG_IER >> 2;
	static const unsigned int GER = ABB_REG_GER >> 2;
	static const unsigned int GSR = ABB_REG_GSR >> 2;
	static const unsigned int GCR = ABB_REG_GCR >> 2;
	static const unsigned int DMA0_BASE = ABB_BLK_H2C >> 2; /* host to board */
	static const unsigned int DMA1_BASE = ABB_BLK_C2H >> 2; /* board to host */
	static const unsigned int MRd_CR = ABB_REG_MRD_CR >> 2;
	static const unsigned int Tx_CR = ABB_REG_TX_CR >> 2;
	static const unsigned int OUT_FIFO_BASE = ABB_REG_TXF_DATA >> 2;
	static const unsigned int IN_FIFO_BASE = ABB_REG_RXF_DATA >> 2;
	static const unsigned int ICAP = ABB_REG_ICAP >> 2;
	static const unsigned int IG_BASE = ABB_REG_IGEN_CTRL >> 2;

	/* Interrupt sources for waitForInterrupt. */
	static const unsigned int IRQ_CH0 = 0; /* channel 0, host to board */
	static const unsigned int IRQ_CH1 = 1; /* channel 1, board to host */
	static const unsigned int IRQ_IG = 2;  /* interrupt generator */

private:
	abb_dev *dev;
	unsigned int mem_words; /* BAR1 size in words */
	DMAEngineWG *dma;
	InterruptGenerator *ig;
};

} /* namespace mprace */

#endif
