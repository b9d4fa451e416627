/*
 * testabb_log.cpp - reads testABB's DMA performance lines (testabb_log.h).
 */
#include "testabb_log.h"

#include <cstdio>
#include <cstring>

static std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");

	return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<testabb_section> parse_testabb_log(std::istream &in)
{
	std::vector<testabb_section> out;
	testabb_section cur;
	std::map<size_t, double> *perf = nullptr; /* inside a performance list */
	std::string line;

	auto flush = [&]() {
		if (!cur.read_mibs.empty() || !cur.write_mibs.empty())
			out.push_back(cur);
	};
	while (std::getline(in, line)) {
		std::string t = trim(line);
		double kb, rate;
		char unit[8];
		int used = 0;

		/* a heading: "  KernelMemory DMA Tests", "  UserMemory DMA Tests (HugePages)" */
		if (t.find("Memory DMA Tests") != std::string::npos) {
			flush();
			cur = testabb_section();
			cur.name = t;
			cur.interrupts = t.find("interrupts") != std::string::npos;
			perf = nullptr;
		} else if (t == "Testing DMA Write performance:") {
			perf = &cur.write_mibs;
		} else if (t == "Testing DMA Read performance:") {
			perf = &cur.read_mibs;
		} else if (perf && std::sscanf(t.c_str(), "%lf kB : %lf %7s%n", &kb, &rate, unit, &used) == 3 &&
			   (size_t)used == t.size() && std::strcmp(unit, "MBps") == 0 && kb > 0) {
			(*perf)[(size_t)(kb * 1024 + 0.5)] = rate;
		} else {
			perf = nullptr; /* the blank line after a list, or anything else */
		}
	}
	flush();
	return out;
}
