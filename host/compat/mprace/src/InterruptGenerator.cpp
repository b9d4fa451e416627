/*
 * InterruptGenerator.cpp - the IGEN_* registers of the ABB.
 *
 * IGEN_LAT counts 4 ns units. The simulated generator (and the reference
 * model) asserts once per IGEN_ARM (a model-defined word, REGISTERS.md)
 * after the latency; the board's generator ran on its own once a latency
 * was written (the original programs only write the latency). The layer
 * bridges the two: a non-zero latency is followed by IGEN_ARM, and a wait
 * for the generator's interrupt arms it again when it is neither armed nor
 * asserted (so the generator fires once per wait and stops when nobody
 * waits: pause() leaves no period running).
 */
#include "mprace/InterruptGenerator.h"

#include <abb/abb_regs.h>

#include "mprace/Board.h"

namespace mprace {

InterruptGenerator::InterruptGenerator(Board &b) : board(b), latency(0)
{
	setLatency(0);
	disable();
}

InterruptGenerator::~InterruptGenerator()
{
	try {
		disable();
	} catch (...) {
	}
}

unsigned int InterruptGenerator::getAssertCount()
{
	return board.getReg(ABB_REG_IGEN_ASSERT >> 2);
}

unsigned int InterruptGenerator::getDeassertCount()
{
	return board.getReg(ABB_REG_IGEN_DEASSERT >> 2);
}

void InterruptGenerator::reset()
{
	board.setReg(ABB_REG_IGEN_CTRL >> 2, ABB_IGEN_RESET);
}

void InterruptGenerator::setLatency(unsigned int nanoseconds)
{
	board.setReg(ABB_REG_IGEN_LAT >> 2, nanoseconds >> 2);
	if (nanoseconds >> 2)
		board.setReg(ABB_REG_IGEN_CTRL >> 2, ABB_IGEN_ARM);
}

unsigned int InterruptGenerator::getLatency()
{
	return board.getReg(ABB_REG_IGEN_LAT >> 2) * 4;
}

/* Only the generator's bit (the original cleared every bit: `&= !mask`). */
void InterruptGenerator::enable()
{
	board.setReg(ABB_REG_IER >> 2, board.getReg(ABB_REG_IER >> 2) | ABB_IER_IGEN);
}

void InterruptGenerator::disable()
{
	board.setReg(ABB_REG_IER >> 2, board.getReg(ABB_REG_IER >> 2) & ~ABB_IER_IGEN);
}

void InterruptGenerator::pause()
{
	latency = getLatency();
	setLatency(0);
}

void InterruptGenerator::play()
{
	setLatency(latency);
}

void InterruptGenerator::ack()
{
	board.setReg(ABB_REG_IGEN_CTRL >> 2, ABB_IGEN_ACK);
}

void InterruptGenerator::prime()
{
	if (board.getReg(ABB_REG_IGEN_LAT >> 2) == 0)
		return;
	if (board.getReg(ABB_REG_IGEN_CTRL >> 2) & ABB_IGEN_CTRL_ARMED)
		return;
	if (board.getReg(ABB_REG_ISR >> 2) & ABB_ISR_IGEN)
		return;
	board.setReg(ABB_REG_IGEN_CTRL >> 2, ABB_IGEN_ARM);
}

void InterruptGenerator::served()
{
	if (getDeassertCount() < getAssertCount())
		ack();
}

} /* namespace mprace */
