/*
 * check.h - the condition check of the mprace layer's test programs
 * (test_mprace.cpp, test_bench_parts.cpp, test_cxx98.cpp): a failed
 * condition is printed with its place and counted in `counter`, and the
 * program goes on. C++98, as test_cxx98.cpp is built.
 */
#ifndef MPRACE_TEST_CHECK_H
#define MPRACE_TEST_CHECK_H

#include <cstdio>

#define MPRACE_CHECK(counter, indent, cond)                                              \
	do {                                                                             \
		if (!(cond)) {                                                           \
			std::printf(indent "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			(counter)++;                                                     \
		}                                                                        \
	} while (0)

#endif
