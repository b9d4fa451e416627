/*
 * mprace/DMAEngine.h - the abstract DMA engine of the mprace compatibility
 * layer. Channel 0 moves host to board (libabb's DMA write), channel 1
 * board to host (DMA read).
 */
#ifndef MPRACE_DMAENGINE_H_
#define MPRACE_DMAENGINE_H_

namespace mprace {

class DMABuffer;

class DMAEngine {
public:
	enum DMAStatus { IDLE, BUSY, ERROR };

	virtual ~DMAEngine() {}

	/* A transfer started with lock=false and not yet collected: BUSY
	 * while it runs; the call that sees it finished collects it (IDLE, or
	 * ERROR if the board reported an error). Otherwise the channel's
	 * status register: BUSY and DONE = ERROR, BUSY = BUSY, else IDLE. */
	virtual DMAStatus getStatus(const unsigned int channel) = 0;
	/* Resets the channel (after collecting a transfer still running on it). */
	virtual void reset(const unsigned int channel) = 0;
	/* count and offset in words (the original's comment said bytes, its
	 * code used words); addr a word address. */
	virtual void host2board(const unsigned int addr, const DMABuffer &buf,
				const unsigned int count, const unsigned int offset = 0,
				const bool inc = true, const bool lock = true) = 0;
	virtual void board2host(const unsigned int addr, DMABuffer &buf, const unsigned int count,
				const unsigned int offset = 0, const bool inc = true,
				const bool lock = true) = 0;

protected:
	DMAEngine() {}

private:
	DMAEngine(const DMAEngine &); /* not copyable: never defined */
	DMAEngine &operator=(const DMAEngine &);
};

} /* namespace mprace */

#endif
