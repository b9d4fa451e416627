/*
 * testabb_compare.h - two testABB logs side by side (testabb_log.h reads
 * each): the same section (by heading and its occurrence), direction and
 * size in both, their MiB/s and the relative difference of the second
 * against the first. Used to put testABB on the timed reference model
 * beside the simulator's log of a full run (issue 20).
 */
#ifndef MPRACE_TESTABB_COMPARE_H
#define MPRACE_TESTABB_COMPARE_H

#include <cstddef>
#include <string>
#include <vector>

#include "testabb_log.h"

struct testabb_pair {
	std::string section;  /* heading of the section */
	bool read = false;    /* DMA read (board to host) or write */
	size_t bytes = 0;
	bool in_a = false, in_b = false; /* the figure is in that log */
	double a = 0, b = 0;  /* MiB/s */
	double rel = 0;       /* (b - a) / a when both are there and a > 0 */
};

/* Every figure of either log, in the order of a (then what only b has).
 * Sections are matched by heading; a heading that occurs twice matches
 * its n-th occurrence in the other log. */
std::vector<testabb_pair> compare_testabb_logs(const std::vector<testabb_section> &a,
					       const std::vector<testabb_section> &b);

#endif
