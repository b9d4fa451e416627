/*
 * testabb_log.h - the DMA performance figures of a log of the original
 * testABB program (its output, as mprace-check writes it to
 * build/mprace-check/testABB.sim.log): per test section ("KernelMemory DMA
 * Tests", "UserMemory DMA Tests (w/interrupts)", ...) the lines of "Testing
 * DMA Write performance:" and "Testing DMA Read performance:", each
 * " <size> kB\t: <rate> MBps" with the rate in MiB/s (testABB's asMB
 * divides by 2^20). A log cut short (a run stopped by a timeout) gives the
 * sections and sizes it got to.
 */
#ifndef MPRACE_TESTABB_LOG_H
#define MPRACE_TESTABB_LOG_H

#include <cstddef>
#include <istream>
#include <map>
#include <string>
#include <vector>

struct testabb_section {
	std::string name;      /* the heading, e.g. "KernelMemory DMA Tests" */
	bool interrupts = false; /* "(w/interrupts)": completion by interrupt */
	std::map<size_t, double> read_mibs, write_mibs; /* bytes -> MiB/s */
};

/* The sections that have at least one performance figure, in log order. */
std::vector<testabb_section> parse_testabb_log(std::istream &in);

#endif
