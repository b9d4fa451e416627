/*
 * test_cxx98.cpp - a program of the board's time, in C++98 (built with
 * -std=c++98 -pedantic-errors against the layer's public headers, linked
 * with the C++17 library): the headers compile as C++98, and what crosses
 * between the two (virtual calls through Board and DMAEngine, an
 * Exception thrown by the library and caught here by its type and as
 * std::exception, what(), the register numbers' addresses) works.
 *
 *   mprace_cxx98_test          on the device $ABB_DEVICE names
 *
 * Exit status 0 when every check passed. Written here, not taken from the
 * original programs.
 */
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "mprace/ABB.h"
#include "mprace/Board.h"
#include "mprace/DMABuffer.h"
#include "mprace/DMAEngine.h"
#include "mprace/DMAEngineWG.h"
#include "mprace/Exception.h"
#include "mprace/InterruptGenerator.h"
#include "mprace/util/Timer.h"

#if __cplusplus >= 201103L
#error "build this test as C++98 (-std=c++98)"
#endif

using namespace mprace;

#include "check.h"

static int failures;

#define CHECK(cond) MPRACE_CHECK(failures, "  ", cond)

static const unsigned AREA = 0x8000 >> 2;

/* A DMA write and read back through the abstract Board, as old programs
 * wrote them. */
static void roundtrip(Board &board)
{
	DMABuffer out(board, 4096, DMABuffer::KERNEL);
	DMABuffer in(board, 4096, DMABuffer::USER);
	unsigned bad = 0;

	for (unsigned i = 0; i < 1024; i++) {
		out[i] = 0x98000000u + i * 7;
		in[i] = 0;
	}
	board.writeDMA(AREA, out, 1024);
	board.readDMA(AREA, in, 1024);
	for (unsigned i = 0; i < 1024; i++)
		bad += in[i] != out[i];
	CHECK(bad == 0);
	CHECK(board.read(AREA + 5) == out[5]);
	CHECK(board.getDMAEngine().getStatus(0) == DMAEngine::IDLE);
}

/* An exception of the library, caught by its type and as std::exception. */
static void exceptions(ABB &abb)
{
	DMABuffer buf(abb, 4096, DMABuffer::KERNEL);
	bool typed = false, base = false;

	try {
		abb.writeDMA(0x40000000u, buf, 16);
	} catch (Exception &e) {
		typed = true;
		CHECK(e.getType() == Exception::ADDRESS_OUT_OF_RANGE);
		CHECK(std::strstr(e.what(), "mprace::Exception: Address out of range") != NULL);
	}
	CHECK(typed);
	try {
		abb.getReg(0x40000000u);
	} catch (std::exception &e) {
		base = true;
		CHECK(std::strncmp(e.what(), "mprace::Exception: ", 19) == 0);
		CHECK(dynamic_cast<Exception *>(&e) != NULL);
	}
	CHECK(base);
	/* thrown here, by the constructors of the library */
	try {
		throw Exception(Exception::NOT_OPEN, 19, std::string("from C++98"));
	} catch (std::exception &e) {
		CHECK(std::strcmp(e.what(), "mprace::Exception: Device not open: from C++98") == 0);
	}
	Exception plain(Exception::UNKNOWN);
	CHECK(plain.getParameter() == 0 && std::strcmp(plain.what(), "mprace::Exception: "
						       "Unknown exception") == 0);
}

int main()
{
	try {
		ABB abb(0);
		const unsigned *isr = &ABB::ISR; /* odr-used: defined by the library */

		CHECK(*isr == 2);
		CHECK(abb.getReg(ABB::DESIGN_ID) == 0x20003u);
		roundtrip(abb);
		exceptions(abb);
		DMAEngineWG &dma = static_cast<DMAEngineWG &>(abb.getDMAEngine());
		dma.setUseInterrupts(true);
		roundtrip(abb);
		dma.setUseInterrupts(false);
		util::Timer t;
		t.start();
		t.stop();
		CHECK(t.asSeconds() >= 0.0f);
		abb.getInterruptGenerator().reset();
		CHECK(abb.getInterruptGenerator().getAssertCount() == 0);
	} catch (std::exception &e) {
		std::printf("  FAILED: exception %s\n", e.what());
		failures++;
	}
	std::printf("mprace C++98 program: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
