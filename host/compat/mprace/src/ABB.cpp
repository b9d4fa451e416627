/*
 * ABB.cpp - mprace::ABB over libabb: open by board number, registers and
 * BAR1 by PIO in word units, DMA through DMAEngineWG, interrupt waits.
 */
#include "mprace/ABB.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <abb/abb.h>

#include "mprace_priv.h"

namespace mprace {

using priv::fail;

/* The register numbers' definitions (their values are in ABB.h). */
const unsigned int ABB::DESIGN_ID;
const unsigned int ABB::ISR;
const unsigned int ABB::IER;
const unsigned int ABB::GER;
const unsigned int ABB::GSR;
const unsigned int ABB::GCR;
const unsigned int ABB::DMA0_BASE;
const unsigned int ABB::DMA1_BASE;
const unsigned int ABB::MRd_CR;
const unsigned int ABB::Tx_CR;
const unsigned int ABB::OUT_FIFO_BASE;
const unsigned int ABB::IN_FIFO_BASE;
const unsigned int ABB::ICAP;
const unsigned int ABB::IG_BASE;
const unsigned int ABB::IRQ_CH0;
const unsigned int ABB::IRQ_CH1;
const unsigned int ABB::IRQ_IG;

/* The URI for board number: see ABB.h. */
static std::string board_uri(unsigned number)
{
	const char *env = std::getenv("ABB_DEVICE");
	std::string bdf;
	int n;

	if (!env || std::strcmp(env, "vfio") != 0)
		return env ? env : "";
	n = priv::find_board("/sys", number, bdf);
	if (n < 0)
		fail(Exception::NOT_OPEN, n, "no ABB (10dc:0153) found");
	if (bdf.empty())
		throw Exception(Exception::NOT_OPEN, ENODEV,
				"board number " + std::to_string(number) + " asked for, but only " +
					std::to_string(n) + " ABB(s) found (numbers start at 0)");
	return "vfio:" + bdf;
}

ABB::ABB(const unsigned int number) : dev(nullptr), mem_words(0), dma(nullptr), ig(nullptr)
{
	std::string uri = board_uri(number);
	size_t mem = 0;
	int rc = abb_open(&dev, uri.empty() ? nullptr : uri.c_str());

	if (rc)
		fail(Exception::NOT_OPEN, rc, "abb_open failed");
	rc = abb_mem_size(dev, &mem);
	if (rc) {
		abb_close(dev);
		fail(Exception::NOT_OPEN, rc, "abb_mem_size failed");
	}
	mem_words = (unsigned)(mem / 4);
	try {
		dma = new DMAEngineWG(*this);
		ig = new InterruptGenerator(*this);
	} catch (...) {
		delete dma;
		abb_close(dev);
		throw;
	}
	priv::clock_attach(dev);
}

ABB::~ABB()
{
	priv::clock_detach(dev);
	delete ig;
	delete dma;
	abb_close(dev);
}

/* A word address whose byte address does not fit libabb's 32 bits. */
static void check_word(unsigned address, const char *fn)
{
	if (address > 0x3fffffffu)
		throw Exception(Exception::ADDRESS_OUT_OF_RANGE, EINVAL,
				std::string(fn) + ": word address " + std::to_string(address) +
					" is past every BAR");
}

void ABB::setReg(const unsigned int address, const unsigned int value)
{
	check_word(address, "ABB::setReg");
	int rc = abb_reg_write(dev, address * 4u, value);

	if (rc)
		fail(rc == -EINVAL ? Exception::ADDRESS_OUT_OF_RANGE : Exception::UNKNOWN, rc,
		     "abb_reg_write failed");
}

unsigned int ABB::getReg(const unsigned int address)
{
	uint32_t v = 0;

	check_word(address, "ABB::getReg");
	int rc = abb_reg_read(dev, address * 4u, &v);

	if (rc)
		fail(rc == -EINVAL ? Exception::ADDRESS_OUT_OF_RANGE : Exception::UNKNOWN, rc,
		     "abb_reg_read failed");
	return v;
}

/* Word range [address, address+count) inside BAR1 (count 0: one word). */
static void check_range(unsigned mem_words, unsigned address, unsigned count, const char *fn)
{
	unsigned long long end = (unsigned long long)address + (count ? count : 1);

	if (end > mem_words)
		throw Exception(Exception::ADDRESS_OUT_OF_RANGE, EINVAL,
				std::string(fn) + ": words " + std::to_string(address) + " + " +
					std::to_string(count ? count : 1) +
					" are past the end of BAR1 (" +
					std::to_string(mem_words) + " words)");
}

void ABB::write(const unsigned int address, const unsigned int value)
{
	uint32_t v = value;
	int rc;

	check_range(mem_words, address, 1, "ABB::write");
	rc = abb_mem_write(dev, address * 4u, &v, 4);
	if (rc)
		fail(Exception::UNKNOWN, rc, "abb_mem_write failed");
}

unsigned int ABB::read(const unsigned int address)
{
	uint32_t v = 0;
	int rc;

	check_range(mem_words, address, 1, "ABB::read");
	rc = abb_mem_read(dev, address * 4u, &v, 4);
	if (rc)
		fail(Exception::UNKNOWN, rc, "abb_mem_read failed");
	return v;
}

void ABB::writeBlock(const unsigned int address, const unsigned int *data,
		     const unsigned int count, const bool inc)
{
	int rc = 0;

	if (count == 0)
		return;
	check_range(mem_words, address, inc ? count : 1, "ABB::writeBlock");
	if (inc)
		rc = abb_mem_write(dev, address * 4u, data, (size_t)count * 4);
	for (unsigned i = 0; !inc && !rc && i < count; i++)
		rc = abb_mem_write(dev, address * 4u, &data[i], 4);
	if (rc)
		fail(Exception::UNKNOWN, rc, "abb_mem_write failed");
}

void ABB::readBlock(const unsigned int address, unsigned int *data, const unsigned int count,
		    const bool inc)
{
	int rc = 0;

	if (count == 0)
		return;
	check_range(mem_words, address, inc ? count : 1, "ABB::readBlock");
	if (inc)
		rc = abb_mem_read(dev, address * 4u, data, (size_t)count * 4);
	for (unsigned i = 0; !inc && !rc && i < count; i++)
		rc = abb_mem_read(dev, address * 4u, &data[i], 4);
	if (rc)
		fail(Exception::UNKNOWN, rc, "abb_mem_read failed");
}

void ABB::writeDMA(const unsigned int address, const DMABuffer &buf, const unsigned int count,
		   const unsigned int offset, const bool inc, const bool lock)
{
	dma->host2board(address, buf, count, offset, inc, lock);
}

void ABB::readDMA(const unsigned int address, DMABuffer &buf, const unsigned int count,
		  const unsigned int offset, const bool inc, const bool lock)
{
	dma->board2host(address, buf, count, offset, inc, lock);
}

static Board::ConfigStatus no_config()
{
	throw Exception(Exception::UNKNOWN, ENOTSUP,
			"FPGA configuration is not supported by the mprace layer over libabb");
}

Board::ConfigStatus ABB::config(const std::string &)
{
	return no_config();
}

Board::ConfigStatus ABB::config(const char *)
{
	return no_config();
}

Board::ConfigStatus ABB::config(unsigned int, const char *)
{
	return no_config();
}

void ABB::waitForInterrupt(unsigned int int_id)
{
	unsigned src;
	int rc;

	switch (int_id) {
	case IRQ_CH0: src = ABB_IRQ_DMA_WRITE; break;
	case IRQ_CH1: src = ABB_IRQ_DMA_READ; break;
	case IRQ_IG: src = ABB_IRQ_GEN; break;
	default:
		throw Exception(Exception::INTERRUPT_FAILED, EINVAL,
				"ABB::waitForInterrupt: source " + std::to_string(int_id) +
					" is not IRQ_CH0, IRQ_CH1 or IRQ_IG");
	}
	if (int_id == IRQ_IG)
		ig->prime();
	rc = abb_irq_wait(dev, src, ABB_WAIT_FOREVER);
	if (rc < 0)
		fail(Exception::INTERRUPT_FAILED, rc, "abb_irq_wait failed");
	if (int_id == IRQ_IG)
		ig->served();
}

} /* namespace mprace */
