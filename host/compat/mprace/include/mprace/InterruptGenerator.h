/*
 * mprace/InterruptGenerator.h - the ABB's interrupt generator (IGEN_*
 * registers, rtl-model/REGISTERS.md) in the mprace compatibility layer.
 *
 * A latency written with setLatency() (ns, stored in 4 ns units) makes the
 * generator assert its interrupt after that time; Board::waitForInterrupt
 * (ABB::IRQ_IG) starts the next period if none runs (latency not 0), waits,
 * and acknowledges the interrupt (IGEN_ACK: the deassert count), so the
 * generator fires once per wait, as the original test programs expect of
 * a generator that runs while its latency is not 0. enable()/disable()
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

	/* Extensions of the layer around a wait for the generator's
	 * interrupt: prime() starts a period unless one runs or the interrupt
	 * is pending (latency not 0); served() acknowledges the interrupt
	 * unless that happened already. */
	void prime();
	void served();

private:
	Board &board;
	unsigned int latency; /* saved by pause() */

	InterruptGenerator(const InterruptGenerator &); /* not copyable: never defined */
	InterruptGenerator &operator=(const InterruptGenerator &);
};

} /* namespace mprace */

#endif
