/*
 * test_mprace.cpp - tests of the mprace compatibility layer, written here
 * (not taken from the original programs): every class and method the
 * original test programs use, on the device $ABB_DEVICE names (make
 * mprace-test runs it on the simulator and on the reference model),
 * including failure paths and the fixed-address and non-blocking forms.
 *
 *   mprace_tests [NAME...]     all tests, or those whose name contains NAME
 *
 * Exit status 0 when every test passed.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <abb/abb.h>

#include "mprace/ABB.h"
#include "mprace/Board.h"
#include "mprace/DMABuffer.h"
#include "mprace/DMAEngineWG.h"
#include "mprace/Exception.h"
#include "mprace/InterruptGenerator.h"
#include "mprace/util/Timer.h"
#include "mprace_priv.h"

extern "C" {
#include "tb_sysfs.h"
}

using namespace mprace;
using mprace::util::Timer;

#include "check.h"

static int failures_in_test;

#define CHECK(cond) MPRACE_CHECK(failures_in_test, "    ", cond)

/* Runs stmt, which must throw mprace::Exception of type t with a message. */
#define CHECK_THROWS(stmt, t)                                                            \
	do {                                                                             \
		bool thrown_ = false;                                                    \
		try {                                                                    \
			stmt;                                                            \
		} catch (mprace::Exception & e_) {                                       \
			thrown_ = true;                                                  \
			if (e_.getType() != (t))                                         \
				std::printf("    FAILED %s:%d: %s threw type %d (%s), "    \
					    "expected %d\n",                             \
					    __FILE__, __LINE__, #stmt, (int)e_.getType(), \
					    e_.what(), (int)(t));                        \
			failures_in_test += e_.getType() != (t);                         \
			CHECK(std::strlen(e_.what()) > std::strlen("mprace::Exception: ")); \
		}                                                                        \
		if (!thrown_) {                                                          \
			std::printf("    FAILED %s:%d: %s did not throw\n", __FILE__, __LINE__, \
				    #stmt);                                              \
			failures_in_test++;                                              \
		}                                                                        \
	} while (0)

static const char *device()
{
	const char *d = std::getenv("ABB_DEVICE");

	return d && *d ? d : "sim";
}

static bool on_sim()
{
	return std::strncmp(device(), "sim", 3) == 0;
}

/* Board word addresses used by the tests (BAR1 is at least 64 KiB). */
static const unsigned AREA = 0x8000 >> 2;
static const unsigned AREA2 = 0xC000 >> 2;

static unsigned pattern(unsigned seed, unsigned i)
{
	unsigned x = seed * 2654435761u + i * 40503u + 1;

	return x ^ (x >> 13);
}

static void fill_board(ABB &b, unsigned addr, unsigned n, unsigned seed)
{
	std::vector<unsigned> v(n);

	for (unsigned i = 0; i < n; i++)
		v[i] = pattern(seed, i);
	b.writeBlock(addr, v.data(), n);
}

static unsigned board_mismatches(ABB &b, unsigned addr, const unsigned *want, unsigned n)
{
	std::vector<unsigned> v(n);
	unsigned bad = 0;

	b.readBlock(addr, v.data(), n);
	for (unsigned i = 0; i < n; i++)
		bad += v[i] != want[i];
	return bad;
}

/* ---- the tests ----------------------------------------------------------- */

static void test_open_and_registers(ABB &b)
{
	CHECK(b.getReg(ABB::DESIGN_ID) == 0x00020003u);
	/* word offsets of the board's registers */
	CHECK(ABB::ISR == 0x08 / 4 && ABB::IER == 0x10 / 4 && ABB::Tx_CR == 0x78 / 4);
	CHECK(ABB::DMA0_BASE == 0x50 / 4 && ABB::DMA1_BASE == 0x2C / 4 && ABB::IG_BASE == 0x80 / 4);
	CHECK(ABB::IRQ_CH0 == 0 && ABB::IRQ_CH1 == 1 && ABB::IRQ_IG == 2);
	b.setReg(ABB::Tx_CR, 0x0A);
	CHECK(b.getReg(ABB::Tx_CR) == 0x0A);
	b.setReg(ABB::Tx_CR, 0);
	Board &base = b;
	CHECK(base.getReg(0) == 0x00020003u);
	CHECK(b.device() != nullptr);
}

static void test_pio(ABB &b)
{
	unsigned v[16], w[16];

	b.write(AREA, 0x12345678);
	CHECK(b.read(AREA) == 0x12345678);
	for (unsigned i = 0; i < 16; i++)
		v[i] = 100 + i;
	b.writeBlock(AREA, v, 16);
	b.readBlock(AREA, w, 16);
	CHECK(std::memcmp(v, w, sizeof v) == 0);
	/* inc=false: every word to (from) the same address */
	b.writeBlock(AREA2, v, 16, false);
	CHECK(b.read(AREA2) == 115 && b.read(AREA2 + 1) != 101);
	b.readBlock(AREA, w, 4, false);
	CHECK(w[0] == 100 && w[1] == 100 && w[2] == 100 && w[3] == 100);
}

static void test_pio_out_of_range(ABB &b)
{
	size_t bytes = 0;
	unsigned v[4] = {0};

	CHECK(abb_mem_size(b.device(), &bytes) == 0);
	unsigned words = (unsigned)(bytes / 4);
	CHECK_THROWS(b.read(words), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.write(words, 1), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.writeBlock(words - 2, v, 4), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.readBlock(words - 2, v, 4), Exception::ADDRESS_OUT_OF_RANGE);
	b.writeBlock(words - 4, v, 4); /* the last words fit exactly */
	CHECK_THROWS(b.getReg(0x40000000u), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.setReg(0x40000000u, 0), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.getReg(0x100000u), Exception::ADDRESS_OUT_OF_RANGE); /* 4 MiB: past BAR0 */
	CHECK_THROWS(b.setReg(0x100000u, 0), Exception::ADDRESS_OUT_OF_RANGE);
	try {
		b.read(words);
	} catch (Exception &e) {
		CHECK(e.getParameter() == EINVAL);
		CHECK(std::strstr(e.what(), "Address out of range") != nullptr);
	}
}

/* A DMA write of the whole buffer and a DMA read back, compared through PIO. */
static void roundtrip(ABB &b, DMABuffer &buf, unsigned seed, bool irq)
{
	DMAEngineWG &dma = static_cast<DMAEngineWG &>(b.getDMAEngine());
	unsigned n = buf.size() / 4;

	dma.setUseInterrupts(irq);
	CHECK(dma.getUseInterrupts() == irq);
	for (unsigned i = 0; i < n; i++)
		buf[i] = pattern(seed, i);
	b.writeDMA(AREA, buf, n, 0, true, true);
	CHECK(board_mismatches(b, AREA, buf.getPointer(), n) == 0);
	fill_board(b, AREA, n, seed + 1);
	for (unsigned i = 0; i < n; i++)
		buf[i] = 0;
	b.readDMA(AREA, buf, n, 0, true, true);
	for (unsigned i = 0, bad = 0; i < n; i++)
		if (buf[i] != pattern(seed + 1, i) && !bad++)
			CHECK(buf[i] == pattern(seed + 1, i));
	dma.setUseInterrupts(false);
}

static void test_dma_types(ABB &b)
{
	for (int irq = 0; irq < 2; irq++) {
		DMABuffer k(b, 16384, DMABuffer::KERNEL);
		DMABuffer kp(b, 16384, DMABuffer::KERNEL_PIECES, 7);
		DMABuffer u(b, 12288 + 4, DMABuffer::USER);
		DMABuffer ua(b, 8192, true);
		DMABuffer un(b, 8192, false);
		std::vector<unsigned> mem(1000);
		DMABuffer c(b, 4000, mem.data());

		CHECK(k.getType() == DMABuffer::KERNEL && kp.getType() == DMABuffer::KERNEL_PIECES);
		CHECK(u.getType() == DMABuffer::USER && c.getType() == DMABuffer::USER);
		CHECK(k.size() == 16384 && kp.pieces() == 7 && c.getPointer() == mem.data());
		CHECK(((uintptr_t)k.getPointer() & 4095) == 0 && ((uintptr_t)ua.getPointer() & 4095) == 0);
		CHECK(&k.getBoard() == &b);
		roundtrip(b, k, 1, irq);
		roundtrip(b, kp, 2, irq);
		roundtrip(b, u, 3, irq);
		roundtrip(b, ua, 4, irq);
		roundtrip(b, un, 5, irq);
		roundtrip(b, c, 6, irq);
	}
}

/* Word offsets and counts, across the pieces of a KERNEL_PIECES buffer. */
static void test_dma_offset_count(ABB &b)
{
	DMABuffer kp(b, 4096, DMABuffer::KERNEL_PIECES, 4); /* pieces of 256 words */
	DMABuffer u(b, 4096, DMABuffer::USER);
	DMABuffer *bufs[] = {&kp, &u};

	CHECK(kp.pieceStart(0) == 0 && kp.pieceStart(1) == 1024 && kp.pieceStart(4) == 4096);
	for (DMABuffer *p : bufs) {
		DMABuffer &buf = *p;

		for (unsigned i = 0; i < 1024; i++)
			buf[i] = pattern(7, i);
		fill_board(b, AREA, 1024, 9);
		b.writeDMA(AREA + 3, buf, 600, 200, true, true); /* words 200..799: 3 pieces */
		CHECK(board_mismatches(b, AREA + 3, &buf[200], 600) == 0);
		CHECK(b.read(AREA + 2) == pattern(9, 2) && b.read(AREA + 603) == pattern(9, 603));
		for (unsigned i = 0; i < 1024; i++)
			buf[i] = 0;
		b.readDMA(AREA + 3, buf, 300, 250, true, true);
		CHECK(buf[249] == 0 && buf[550] == 0);
		CHECK(board_mismatches(b, AREA + 3, &buf[250], 300) == 0);
	}
}

/* inc=false: every word to (from) one board address, a FIFO. */
static void test_dma_fixed_address(ABB &b)
{
	DMABuffer k(b, 4096, DMABuffer::KERNEL);
	DMABuffer kp(b, 4096, DMABuffer::KERNEL_PIECES, 3);
	DMABuffer *bufs[] = {&k, &kp};

	for (DMABuffer *p : bufs) {
		DMABuffer &buf = *p;

		for (unsigned i = 0; i < 1024; i++)
			buf[i] = pattern(11, i);
		fill_board(b, AREA, 4, 12);
		b.writeDMA(AREA, buf, 1024, 0, false, true);
		CHECK(b.read(AREA) == buf[1023]);
		CHECK(b.read(AREA + 1) == pattern(12, 1));
		b.write(AREA, 0xCAFEF00D);
		b.readDMA(AREA, buf, 1024, 0, false, true);
		unsigned bad = 0;
		for (unsigned i = 0; i < 1024; i++)
			bad += buf[i] != 0xCAFEF00D;
		CHECK(bad == 0);
	}
	/* a FIFO address at the last word of BAR1: the range need not fit */
	size_t bytes = 0;
	CHECK(abb_mem_size(b.device(), &bytes) == 0);
	b.readDMA((unsigned)(bytes / 4) - 1, k, 1024, 0, false, true);
}

/* lock=false: returns at once; getStatus / waitXComplete collect it. */
static void test_dma_nonblocking(ABB &b)
{
	DMAEngineWG &dma = static_cast<DMAEngineWG &>(b.getDMAEngine());
	DMABuffer in(b, 65536, DMABuffer::KERNEL);
	DMABuffer out(b, 65536, DMABuffer::KERNEL_PIECES, 5);
	unsigned n = 16384;

	for (int irq = 0; irq < 2; irq++) {
		dma.setUseInterrupts(irq);
		for (unsigned i = 0; i < n; i++)
			out[i] = pattern(20 + irq, i);
		fill_board(b, AREA2, n, 30 + irq);
		CHECK(dma.getStatus(0) == DMAEngine::IDLE && dma.getStatus(1) == DMAEngine::IDLE);
		b.writeDMA(AREA, out, n, 0, true, false);
		b.readDMA(AREA2, in, n, 0, true, false);
		/* a 64 KiB DMA takes tens of us: both still run */
		CHECK(dma.getStatus(0) == DMAEngine::BUSY || !on_sim());
		unsigned polls = 0;
		while (dma.getStatus(0) != DMAEngine::IDLE && polls < 10000000)
			polls++;
		CHECK(dma.getStatus(0) == DMAEngine::IDLE);
		dma.waitReadComplete();
		CHECK(dma.getStatus(1) == DMAEngine::IDLE);
		CHECK(board_mismatches(b, AREA, out.getPointer(), n) == 0);
		unsigned bad = 0;
		for (unsigned i = 0; i < n; i++)
			bad += in[i] != pattern(30 + irq, i);
		CHECK(bad == 0);
		/* waitWriteComplete collects; with nothing in flight it returns */
		b.writeDMA(AREA, in, n, 0, true, false);
		dma.waitWriteComplete();
		dma.waitWriteComplete();
		CHECK(board_mismatches(b, AREA, in.getPointer(), n) == 0);
		/* a second start on a channel collects the first */
		b.readDMA(AREA, out, n, 0, true, false);
		b.readDMA(AREA, out, n / 2, 0, true, false);
		dma.waitReadComplete();
		CHECK(out[n - 1] == in[n - 1]);
	}
	dma.setUseInterrupts(false);
	/* a buffer destroyed under its running DMA: collected first */
	{
		DMABuffer tmp(b, 65536, DMABuffer::USER);
		b.readDMA(AREA, tmp, n, 0, true, false);
	}
	CHECK(dma.getStatus(1) == DMAEngine::IDLE);
	dma.reset(0);
	dma.reset(1);
	CHECK(dma.getStatus(0) == DMAEngine::IDLE && dma.getStatus(1) == DMAEngine::IDLE);
	CHECK_THROWS(dma.getStatus(2), Exception::UNKNOWN);
	CHECK_THROWS(dma.reset(2), Exception::UNKNOWN);
	/* the engine's own calls, words like the board's */
	for (unsigned i = 0; i < 64; i++)
		in[i] = pattern(40, i);
	dma.host2board(AREA, in, 64);
	dma.board2host(AREA, out, 64, 64);
	CHECK(std::memcmp(&out[64], &in[0], 256) == 0);
}

static void test_dma_bad_arguments(ABB &b)
{
	DMABuffer k(b, 4096, DMABuffer::KERNEL);
	DMABuffer kp(b, 4096, DMABuffer::KERNEL_PIECES, 2);
	size_t bytes = 0;

	CHECK(abb_mem_size(b.device(), &bytes) == 0);
	CHECK_THROWS(b.writeDMA(AREA, k, 0), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.readDMA(AREA, k, 1025), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.readDMA(AREA, k, 1000, 100), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.readDMA(AREA, kp, 1000, 100), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.writeDMA((unsigned)(bytes / 4) - 10, k, 11), Exception::ADDRESS_OUT_OF_RANGE);
	CHECK_THROWS(b.writeDMA((unsigned)(bytes / 4), k, 1, 0, false),
		     Exception::ADDRESS_OUT_OF_RANGE);
	try {
		b.writeDMA(AREA, k, 0);
	} catch (Exception &e) {
		/* libabb's message */
		CHECK(std::strstr(e.what(), "len is 0") != nullptr);
		CHECK(e.getParameter() == EINVAL);
	}
	/* the channel is usable after the refusals */
	b.writeDMA(AREA, k, 1024);
	CHECK(static_cast<DMAEngineWG &>(b.getDMAEngine()).getStatus(0) == DMAEngine::IDLE);
}

/* Word addresses whose byte address does not fit 32 bits (issue 17,
 * finding 2): addr * 4 wrapped, so writeDMA(0x40000000, buf, 16)
 * overwrote board words 0-15 and readDMA(0x40000000, ...) returned word 0.
 * Every DMA form refuses them, as PIO does; the board is untouched. */
static void test_dma_address_wrap(ABB &b)
{
	DMAEngineWG &dma = static_cast<DMAEngineWG &>(b.getDMAEngine());
	DMABuffer k(b, 4096, DMABuffer::KERNEL);
	DMABuffer kp(b, 4096, DMABuffer::KERNEL_PIECES, 2);
	DMABuffer u(b, 4096, DMABuffer::USER);
	DMABuffer *bufs[] = {&k, &kp, &u};
	const unsigned far[] = {0x40000000u, 0x40000010u, 0x7fffffffu, 0xffffffffu};

	fill_board(b, 0, 16, 70);
	for (DMABuffer *p : bufs) {
		DMABuffer &buf = *p;

		for (unsigned i = 0; i < 1024; i++)
			buf[i] = 0xBAD00000u + i;
		for (unsigned a : far) {
			for (int inc = 0; inc < 2; inc++) {
				for (int lock = 0; lock < 2; lock++) {
					CHECK_THROWS(b.writeDMA(a, buf, 16, 0, inc, lock),
						     Exception::ADDRESS_OUT_OF_RANGE);
					CHECK_THROWS(b.readDMA(a, buf, 16, 0, inc, lock),
						     Exception::ADDRESS_OUT_OF_RANGE);
				}
			}
			CHECK_THROWS(dma.host2board(a, buf, 16), Exception::ADDRESS_OUT_OF_RANGE);
			CHECK_THROWS(dma.board2host(a, buf, 16), Exception::ADDRESS_OUT_OF_RANGE);
		}
		/* the last words below 2^32 bytes, with a length that runs past */
		CHECK_THROWS(b.writeDMA(0x3fffffffu, buf, 2), Exception::ADDRESS_OUT_OF_RANGE);
		CHECK_THROWS(b.readDMA(0x3ffffff0u, buf, 17, 0, true, false),
			     Exception::ADDRESS_OUT_OF_RANGE);
		/* nothing was read into the buffer */
		unsigned bad = 0;
		for (unsigned i = 0; i < 1024; i++)
			bad += buf[i] != 0xBAD00000u + i;
		CHECK(bad == 0);
	}
	/* board words 0-15 unchanged */
	std::vector<unsigned> want(16);
	for (unsigned i = 0; i < 16; i++)
		want[i] = pattern(70, i);
	CHECK(board_mismatches(b, 0, want.data(), 16) == 0);
	try {
		b.writeDMA(0x40000000u, k, 16);
	} catch (Exception &e) {
		CHECK(std::strstr(e.what(), "32-bit board addresses") != nullptr);
		CHECK(e.getParameter() == EINVAL);
	}
	/* both channels work after the refusals */
	CHECK(dma.getStatus(0) == DMAEngine::IDLE && dma.getStatus(1) == DMAEngine::IDLE);
	b.writeDMA(AREA, k, 16);
	b.readDMA(AREA, u, 16);
	CHECK(std::memcmp(u.getPointer(), k.getPointer(), 64) == 0);
}

static void test_buffer_bad_arguments(ABB &b)
{
	CHECK_THROWS(DMABuffer(b, 0, DMABuffer::KERNEL), Exception::KERNEL_ALLOC_FAILED);
	CHECK_THROWS(DMABuffer(b, 0, DMABuffer::USER), Exception::USER_MMAP_FAILED);
	CHECK_THROWS(DMABuffer(b, 4096, DMABuffer::KERNEL_PIECES, 0), Exception::KERNEL_ALLOC_FAILED);
	CHECK_THROWS(DMABuffer(b, 4096, DMABuffer::KERNEL_PIECES, 1025),
		     Exception::KERNEL_ALLOC_FAILED);
	CHECK_THROWS(DMABuffer(b, 4096, (unsigned *)nullptr), Exception::USER_MMAP_FAILED);
	CHECK_THROWS(DMABuffer(b, 4096, (DMABuffer::MemType)9), Exception::UNKNOWN);
	/* the same memory mapped twice: libabb refuses the overlap */
	std::vector<unsigned> mem(1024);
	DMABuffer first(b, 4096, mem.data());
	CHECK_THROWS(DMABuffer(b, 4096, mem.data()), Exception::USER_MMAP_FAILED);
	try {
		DMABuffer again(b, 4096, mem.data());
	} catch (Exception &e) {
		CHECK(std::strstr(e.what(), "overlaps") != nullptr && e.getParameter() == EEXIST);
	}
	/* huge pages: mapped if the machine has them, else the original's error */
	try {
		DMABuffer h(b, 4096, DMABuffer::USER_HUGEPAGES);
		roundtrip(b, h, 50, false);
	} catch (Exception &e) {
		CHECK(e.getType() == Exception::HUGEPAGES_MMAP_FAILED);
	}
}

static void test_config_and_irq_source(ABB &b)
{
	CHECK_THROWS(b.config("x.bit"), Exception::UNKNOWN);
	CHECK_THROWS(b.config(std::string("x.bit")), Exception::UNKNOWN);
	CHECK_THROWS(b.config(4, "abcd"), Exception::UNKNOWN);
	CHECK_THROWS(b.waitForInterrupt(7), Exception::INTERRUPT_FAILED);
}

/* The DMA channels' interrupt sources through waitForInterrupt. */
static void test_wait_dma_interrupt(ABB &b)
{
	DMABuffer k(b, 4096, DMABuffer::KERNEL);
	DMAEngineWG &dma = static_cast<DMAEngineWG &>(b.getDMAEngine());

	dma.setUseInterrupts(true);
	b.writeDMA(AREA, k, 1024, 0, true, false);
	/* the layer's wait collects it; a later wait for the source would
	 * have nothing to wait for, so the status must say IDLE now */
	dma.waitWriteComplete();
	CHECK(dma.getStatus(0) == DMAEngine::IDLE);
	dma.setUseInterrupts(false);
	CHECK((b.getReg(ABB::IER) & (ABB_IER_H2C | ABB_IER_C2H)) == 0);
}

static void test_interrupt_generator(ABB &b)
{
	InterruptGenerator &ig = b.getInterruptGenerator();

	ig.reset();
	CHECK(ig.getAssertCount() == 0 && ig.getDeassertCount() == 0);
	ig.enable();
	CHECK(b.getReg(ABB::IER) & ABB_IER_IGEN);
	ig.setLatency(2000);
	CHECK(ig.getLatency() == 2000);
	Timer t;
	t.start();
	for (int i = 0; i < 5; i++) {
		b.waitForInterrupt(ABB::IRQ_IG);
		ig.enable();
	}
	ig.pause();
	t.stop();
	CHECK(ig.getLatency() == 0);
	CHECK(ig.getAssertCount() == 5 && ig.getDeassertCount() == 5);
	/* five periods of 2 us in device time */
	CHECK(t.asMillis() >= 0.0099f);
	ig.play();
	CHECK(ig.getLatency() == 2000);
	ig.pause();
	/* disable clears the generator's bit only */
	b.setReg(ABB::IER, ABB_IER_C2H | ABB_IER_IGEN);
	ig.disable();
	CHECK(b.getReg(ABB::IER) == ABB_IER_C2H);
	b.setReg(ABB::IER, 0);
	/* an interrupt nobody served, acknowledged by ack() */
	ig.reset();
	ig.setLatency(1000);
	Timer::wait(20e-6f);
	if (on_sim()) {
		CHECK(ig.getAssertCount() == 1 && ig.getDeassertCount() == 0);
		CHECK(b.getReg(ABB::ISR) & ABB_ISR_IGEN);
	}
	ig.setLatency(0);
	ig.ack();
	if (on_sim())
		CHECK(ig.getDeassertCount() == 1);
	CHECK((b.getReg(ABB::ISR) & ABB_ISR_IGEN) == 0);
	ig.reset();
	CHECK(ig.getAssertCount() == 0 && ig.getDeassertCount() == 0);
}

static void test_timer(ABB &b)
{
	uint64_t t0 = 0, t1 = 0;
	Timer t;

	Timer::calibrate();
	CHECK(abb_time_ns(b.device(), &t0) == 0);
	t.start();
	Timer::wait(0.001f);
	t.stop();
	CHECK(abb_time_ns(b.device(), &t1) == 0);
	CHECK(t1 - t0 >= 1000000);
	CHECK(t.asMillis() >= 0.999f);
	if (on_sim())
		CHECK(t.asMillis() < 1.1f); /* device time: nothing else passes */
	CHECK(t.asSeconds() > 0.000999f && t.asSeconds() < t.asMillis());
	Timer::wait(0);
	Timer::wait(-1);
}

/* The sequence of an original configuration test, written here: PIO fill
 * of BAR1 from address 0, DMA write of kernel and user memory, compare. */
static void test_dma_to_address_zero(ABB &b)
{
	DMABuffer k(b, 4096, DMABuffer::KERNEL);
	DMABuffer u(b, 4096, DMABuffer::USER);
	DMABuffer *bufs[] = {&k, &u};

	for (DMABuffer *p : bufs) {
		for (unsigned i = 0; i < 4096; i++)
			b.write(i, i);
		for (unsigned i = 0; i < 1024; i++)
			(*p)[i] = pattern(60, i);
		b.writeDMA(0, *p, 1024, 0, true, true);
		CHECK(board_mismatches(b, 0, p->getPointer(), 1024) == 0);
		CHECK(b.read(1024) == 1024 && b.read(4095) == 4095);
	}
}

/* ---- without an open board ---------------------------------------------- */

static void test_no_board()
{
	const char *saved = std::getenv("ABB_DEVICE");
	std::string keep = saved ? saved : "";

	setenv("ABB_DEVICE", "nosuchdevice", 1);
	CHECK_THROWS(ABB(0), Exception::NOT_OPEN);
	try {
		ABB b(0);
	} catch (Exception &e) {
		CHECK(e.getParameter() == EINVAL && std::strstr(e.what(), "Device not open"));
	}
	setenv("ABB_DEVICE", "vfio:0000:ff:1f.7", 1);
	CHECK_THROWS(ABB(0), Exception::NOT_OPEN);
	if (saved)
		setenv("ABB_DEVICE", keep.c_str(), 1);
	else
		unsetenv("ABB_DEVICE");
	/* with no board open, Timer is wall time */
	Timer t;
	t.start();
	Timer::wait(0.0005f);
	t.stop();
	CHECK(t.asMillis() >= 0.5f);
}

/* Board numbers: the N-th ABB in PCI address order, in a generated sysfs
 * tree (testbench/tb_sysfs.c), found through libabb's discovery. */
static void test_board_numbers()
{
	const struct tb_sysfs_dev devs[] = {
		{"0000:05:00.0", 0, 0, 0, nullptr, -1, 0, 1, 11, 0},
		{"0000:03:00.0", 0, 0, 0, nullptr, -1, 0, 1, 10, 0},
		{"0000:04:00.0", 0x8086, 0x1533, 0x020000, nullptr, -1, 0, 1, 12, 0},
		{"0001:01:00.0", 0, 0, 0, nullptr, -1, 0, 1, 13, 0},
	};
	struct tb_sysfs_opts opts = {};
	char root[256];
	std::string sys, bdf;

	/* two ABBs, at 05:00.0 and 03:00.0 */
	CHECK(tb_sysfs_make(root, sizeof root, devs, 2, &opts) == 0);
	sys = std::string(root) + "/sys";
	CHECK(priv::find_board(sys, 0, bdf) == 2 && bdf == "0000:03:00.0");
	tb_sysfs_remove(root);
	/* three, and another device between them */
	CHECK(tb_sysfs_make(root, sizeof root, devs, 4, &opts) == 0);
	sys = std::string(root) + "/sys";
	CHECK(priv::find_board(sys, 0, bdf) == 3 && bdf == "0000:03:00.0");
	CHECK(priv::find_board(sys, 1, bdf) == 3 && bdf == "0000:05:00.0");
	CHECK(priv::find_board(sys, 2, bdf) == 3 && bdf == "0001:01:00.0");
	bdf.clear();
	CHECK(priv::find_board(sys, 3, bdf) == 3 && bdf.empty());
	tb_sysfs_remove(root);
	/* none */
	CHECK(tb_sysfs_make(root, sizeof root, &devs[2], 1, &opts) == 0);
	CHECK(priv::find_board(std::string(root) + "/sys", 0, bdf) == -ENODEV);
	tb_sysfs_remove(root);
	CHECK(std::strlen(abb_last_error()) > 0);
}

/* ---- runner -------------------------------------------------------------- */

struct test_case {
	const char *name;
	std::function<void(ABB &)> fn;
	bool needs_board;
};

int main(int argc, char **argv)
{
	const test_case tests[] = {
		{"no_board", [](ABB &) { test_no_board(); }, false},
		{"board_numbers", [](ABB &) { test_board_numbers(); }, false},
		{"open_and_registers", test_open_and_registers, true},
		{"pio", test_pio, true},
		{"pio_out_of_range", test_pio_out_of_range, true},
		{"dma_types", test_dma_types, true},
		{"dma_offset_count", test_dma_offset_count, true},
		{"dma_fixed_address", test_dma_fixed_address, true},
		{"dma_nonblocking", test_dma_nonblocking, true},
		{"dma_bad_arguments", test_dma_bad_arguments, true},
		{"dma_address_wrap", test_dma_address_wrap, true},
		{"buffer_bad_arguments", test_buffer_bad_arguments, true},
		{"config_and_irq_source", test_config_and_irq_source, true},
		{"wait_dma_interrupt", test_wait_dma_interrupt, true},
		{"interrupt_generator", test_interrupt_generator, true},
		{"timer", test_timer, true},
		{"dma_to_address_zero", test_dma_to_address_zero, true},
	};
	unsigned run = 0, failed = 0;
	ABB *board = nullptr;

	std::printf("mprace layer tests on ABB_DEVICE=%s\n", device());
	for (const test_case &t : tests) {
		bool wanted = argc < 2;

		for (int i = 1; i < argc; i++)
			wanted |= std::strstr(t.name, argv[i]) != nullptr;
		if (!wanted)
			continue;
		failures_in_test = 0;
		try {
			if (t.needs_board && !board)
				board = new ABB(0);
			t.fn(*board);
		} catch (std::exception &e) {
			std::printf("    FAILED: exception %s\n", e.what());
			failures_in_test++;
		}
		run++;
		failed += failures_in_test != 0;
		std::printf("  %-24s %s\n", t.name, failures_in_test ? "FAILED" : "passed");
	}
	delete board;
	std::printf("mprace layer tests on %s: %u run, %u passed, %u failed\n", device(), run,
		    run - failed, failed);
	return failed ? 1 : 0;
}
