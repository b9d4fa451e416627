/*
 * mprace/DMAEngineWG.h - the ABB's DMA engine in the mprace compatibility
 * layer, implemented with libabb's DMA calls (descriptor chains, channel
 * reset before each start, completion by polling or by interrupt).
 */
#ifndef MPRACE_DMAENGINEWG_H_
#define MPRACE_DMAENGINEWG_H_

#include "DMAEngine.h"
#include "cxx98.h"

namespace mprace {

class Board;

class DMAEngineWG : public DMAEngine {
public:
	explicit DMAEngineWG(Board &board);
	virtual ~DMAEngineWG();

	DMAStatus getStatus(const unsigned int channel) MPRACE_OVERRIDE;
	void reset(const unsigned int channel) MPRACE_OVERRIDE;
	void host2board(const unsigned int addr, const DMABuffer &buf, const unsigned int count,
			const unsigned int offset = 0, const bool inc = true,
			const bool lock = true) MPRACE_OVERRIDE;
	void board2host(const unsigned int addr, DMABuffer &buf, const unsigned int count,
			const unsigned int offset = 0, const bool inc = true,
			const bool lock = true) MPRACE_OVERRIDE;

	/* Completion by interrupt (true) or by polling the status (false);
	 * applies to transfers started afterwards. */
	void setUseInterrupts(bool val) { useInterrupts = val; }
	bool getUseInterrupts() { return useInterrupts; }

	/* Block until the transfer in flight on channel 1 (0) finished;
	 * return at once if there is none. */
	void waitReadComplete();
	void waitWriteComplete();

	/* Extension of the layer: collects any transfer in flight that uses
	 * buf (a buffer is not released under a running DMA). */
	void collect(const DMABuffer &buf);

private:
	struct Transfer;
	Board &board;
	bool useInterrupts;
	Transfer *inflight[2];

	void start(unsigned ch, const unsigned int addr, const DMABuffer &buf,
		   const unsigned int count, const unsigned int offset, const bool inc,
		   const bool lock);
	int startPiece(unsigned ch);
	int pieceDone(unsigned ch);
	void finish(unsigned ch);
};

} /* namespace mprace */

#endif
