/*
 * mprace/InterruptGenerator.h - the ABB's interrupt generator (IGEN_*
 * registers, rtl-model/REGISTERS.md) in the mprace compatibility layer.
 *
 * A latency written with setLatency() (ns, stored in 4 ns units) makes the
 * generator assert its interrupt after that time; Board::waitForInterrupt
 * (ABB::IRQ_IG) acknowledges it (IGEN_ACK: the deassert count) and starts
 * the next period while the latency is not 0, so the generator fires
 * periodically as the original test programs expect. enable()/disable()
 * set and clear only the generator's IER bit.
 */
#ifndef MPRACE_INTERRUPTGENERATOR_H_
#define MPRACE_INTERRUPTGENERATOR_H_

namespace mprace {

class Board;

class InterruptGenerator {
public:
	/* Latency 0, the generator's interrupt disabled. */
	explicit InterruptGenerator(Board &board);
	~InterruptGenerator();

	unsigned int getAssertCount();
	unsigned int getDeassertCount();
	/* Stops the generator, clears both counts and its interrupt. */
	void reset();
	void setLatency(unsigned int nanoseconds);
	unsigned int getLatency();
	void enable();
	void disable();
	/* Latency 0 (no further period), remembering the latency for play(). */
	void pause();
	void play();
	/* Acknowledge: clears the generator's interrupt, counts a deassert. */
	void ack();

	/* Extension of the layer, called after an interrupt of the generator
	 * was waited for: acknowledges it unless that happened already, and
	 * starts the next period while the latency is not 0. */
	void served();

private:
	Board &board;
	unsigned int latency; /* saved by pause() */

	InterruptGenerator(const InterruptGenerator &) = delete;
	InterruptGenerator &operator=(const InterruptGenerator &) = delete;
};

} /* namespace mprace */

#endif
