/*
 * testabb_compare_tool.cpp - abb_testabb_compare: testABB's DMA MiB/s of
 * two logs side by side, e.g. the simulator's log of a full run and the
 * timed reference model's:
 *
 *   abb_testabb_compare [--tolerance PCT] [--partial] [--names A,B] LOG_A LOG_B
 *
 * Per section and size the two figures and (B - A) / A in percent, then the
 * worst difference (where), the figures beyond PCT (default 2) and those in
 * one log only. Exit status 0 when every figure of either log is in both
 * and within PCT; 1 otherwise (with --partial, figures in one log only, a
 * run cut short, do not count); 2 on a usage error or a log without
 * figures.
 */
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <getopt.h>
#include <string>
#include <vector>

#include "testabb_compare.h"
#include "testabb_log.h"
#include "tool_args.h"

static bool read_log(const char *path, std::vector<testabb_section> &out)
{
	std::ifstream in(path);

	if (!in) {
		tool_error("cannot read %s: %s", path, std::strerror(errno));
		return false;
	}
	out = parse_testabb_log(in);
	if (out.empty()) {
		tool_error("%s: no DMA performance figures of testABB (\"Testing DMA ... performance:\" lists)",
			   path);
		return false;
	}
	return true;
}

static void usage(const char *prog)
{
	std::fprintf(stderr,
		     "usage: %s [--tolerance PCT] [--partial] [--names A,B] LOG_A LOG_B\n"
		     "  testABB's DMA MiB/s of two logs side by side, (B - A) / A in percent;\n"
		     "  exit 1 when a figure differs by more than PCT (default 2) or is in one\n"
		     "  log only (not with --partial)\n",
		     prog);
}

static std::string cell(bool there, double v)
{
	char b[32];

	if (!there)
		return "        -";
	std::snprintf(b, sizeof b, "%9.2f", v);
	return b;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"tolerance", required_argument, 0, 't'},
					   {"partial", no_argument, 0, 'p'},
					   {"names", required_argument, 0, 'n'},
					   {"help", no_argument, 0, 'h'},
					   {0, 0, 0, 0}};
	double tol = 2.0;
	bool partial = false;
	std::string na = "A", nb = "B";
	int c;

	tool_begin(argv[0]);
	while ((c = getopt_long(argc, argv, "t:pn:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': {
			char *end = nullptr;

			errno = 0;
			tol = std::strtod(optarg, &end);
			if (errno || end == optarg || *end || !(tol >= 0) || tol > 1000) {
				tool_error("--tolerance %s: give a percentage from 0 to 1000", optarg);
				return usage(argv[0]), 2;
			}
			break;
		}
		case 'p': partial = true; break;
		case 'n': {
			std::string s = optarg;
			size_t comma = s.find(',');

			if (comma == std::string::npos || comma == 0 || comma + 1 == s.size()) {
				tool_error("--names %s: give two names, A,B", optarg);
				return usage(argv[0]), 2;
			}
			na = s.substr(0, comma);
			nb = s.substr(comma + 1);
			break;
		}
		default: usage(argv[0]); return c == 'h' ? 0 : 2;
		}
	}
	if (argc - optind != 2) {
		tool_error("give two testABB logs (%d given)", argc - optind);
		return usage(argv[0]), 2;
	}
	std::vector<testabb_section> la, lb;
	if (!read_log(argv[optind], la) || !read_log(argv[optind + 1], lb))
		return 2;

	std::vector<testabb_pair> rows = compare_testabb_logs(la, lb);
	std::printf("testABB MiB/s: %s = %s, %s = %s; diff = (%s - %s) / %s\n", na.c_str(), argv[optind],
		    nb.c_str(), argv[optind + 1], nb.c_str(), na.c_str(), na.c_str());
	std::string cur;
	size_t compared = 0, beyond = 0, only_a = 0, only_b = 0;
	const testabb_pair *worst = nullptr;
	for (const testabb_pair &p : rows) {
		if (p.section != cur) {
			cur = p.section;
			std::printf("\n%s\n  %-5s %9s | %9s %9s %8s\n", cur.c_str(), "dir", "size", na.c_str(),
				    nb.c_str(), "diff");
		}
		char d[32] = "       -";
		if (p.in_a && p.in_b) {
			compared++;
			std::snprintf(d, sizeof d, "%+7.2f%%", 100 * p.rel);
			if (std::fabs(100 * p.rel) > tol)
				beyond++;
			if (!worst || std::fabs(p.rel) > std::fabs(worst->rel))
				worst = &p;
		} else if (p.in_a) {
			only_a++;
		} else {
			only_b++;
		}
		std::printf("  %-5s %8zuK | %s %s %s%s\n", p.read ? "read" : "write", p.bytes / 1024,
			    cell(p.in_a, p.a).c_str(), cell(p.in_b, p.b).c_str(), d,
			    p.in_a && p.in_b && std::fabs(100 * p.rel) > tol ? "  beyond" : "");
	}
	std::printf("\n%zu figures in both", compared);
	if (worst)
		std::printf("; worst %+.2f%% (%s, %s %zuK)", 100 * worst->rel, worst->section.c_str(),
			    worst->read ? "read" : "write", worst->bytes / 1024);
	std::printf("; %zu beyond %.3g%%; %zu only in %s, %zu only in %s\n", beyond, tol, only_a,
		    na.c_str(), only_b, nb.c_str());
	if (beyond || (!partial && (only_a || only_b)))
		return 1;
	return 0;
}
