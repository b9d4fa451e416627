/*
 * test_bench_parts.cpp - tests of abb_bench_mprace's parts that need no
 * board: the tau statistics (tau_fit.cpp) and the reader of testABB's log
 * (testabb_log.cpp). Run by make mprace-test (build/mprace_bench_tests).
 * Exit status 0 when every check passed.
 */
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tau_fit.h"
#include "testabb_compare.h"
#include "testabb_log.h"

#include "check.h"

static int failures;

#define CHECK(cond) MPRACE_CHECK(failures, "    ", cond)

static bool near(double a, double b, double eps = 1e-6)
{
	return std::fabs(a - b) <= eps;
}

static void test_median_mad()
{
	CHECK(near(tau_fit::median({}), 0));
	CHECK(near(tau_fit::median({3, 1, 2}), 2));
	CHECK(near(tau_fit::median({4, 1, 3, 2}), 2.5));
	CHECK(near(tau_fit::mad({1, 2, 3, 4, 100}), 1)); /* deviations 2 1 0 1 97 */
}

/* tau of a size is the median of the paired differences: an outlier pair
 * and a load that moves both runs of a pair change nothing, where the
 * difference of the two medians would be off by 600 ns */
static void test_per_size_paired()
{
	std::vector<double> plain = {100, 900, 200, 800, 150};
	std::vector<double> module = {1100, 51900, 1200, 1800, 1150};
	tau_fit::estimate e = tau_fit::per_size(module, plain);

	CHECK(near(e.value, 1000));
	CHECK(e.n == 5);
	CHECK(near(e.error, 1.0)); /* all good pairs agree: MAD 0, the floor */
	CHECK(near(tau_fit::per_size(module, plain, 0.25).error, 0.25));
}

static void test_per_size_error()
{
	/* differences 1000 1010 990 1000 1020 980 1000: MAD 10 */
	std::vector<double> plain(7, 500.0);
	std::vector<double> module = {1500, 1510, 1490, 1500, 1520, 1480, 1500};
	tau_fit::estimate e = tau_fit::per_size(module, plain);

	CHECK(near(e.value, 1000));
	CHECK(near(e.error, 1.2533 * 1.4826 * 10 / std::sqrt(7.0), 1e-9));
	CHECK(tau_fit::per_size({}, {}).n == 0);
	/* unequal lengths: the pairs there are */
	CHECK(tau_fit::per_size({10, 20, 30}, {0, 0}).n == 2);
}

/* the error floor from the run's typical noise keeps a size whose few
 * differences agree by chance from taking all the weight of the fit */
static void test_noise_floor()
{
	/* differences 90 100 110 (MAD 10), plain median 1000: sigma 1.4826 % */
	std::vector<double> plain = {1000, 990, 1010}, module = {1090, 1090, 1120};
	double rel = tau_fit::relative_noise(module, plain);

	CHECK(near(rel, 1.4826 * 10 / 1000, 1e-12));
	CHECK(near(tau_fit::relative_noise({}, {}), 0));
	/* 1.2533 x rel x t_plain / sqrt(n) */
	CHECK(near(tau_fit::error_floor(0.05, 10000, 4), 1.2533 * 0.05 * 10000 / 2, 1e-9));
	CHECK(near(tau_fit::error_floor(0.0, 10000, 4), 1.0));
	/* three differences that agree exactly get the floor, not 1 ns */
	tau_fit::estimate e = tau_fit::per_size({1500, 1600, 1700}, {1000, 1100, 1200},
						 tau_fit::error_floor(0.05, 1100, 3));
	CHECK(near(e.value, 500) && near(e.error, 1.2533 * 0.05 * 1100 / std::sqrt(3.0), 1e-9));
}

static tau_fit::estimate est(double v, double e)
{
	tau_fit::estimate x;

	x.value = v;
	x.error = e;
	x.n = 1;
	return x;
}

static void test_fit()
{
	tau_fit::estimate f;

	/* weighted: the precise size dominates */
	f = tau_fit::fit({est(1000, 1), est(2000, 100)});
	CHECK(std::fabs(f.value - 1000.1) < 0.01);
	CHECK(f.n == 2);
	/* consistent sizes: error sqrt(1/sum w), not scaled (chi2/dof 0.5) */
	f = tau_fit::fit({est(1000, 10), est(1010, 10)});
	CHECK(near(f.value, 1005));
	CHECK(near(f.chi2_dof, 0.5));
	CHECK(near(f.error, std::sqrt(50.0)));
	/* sizes that disagree: the error grows by sqrt(chi2/dof) */
	f = tau_fit::fit({est(1000, 10), est(2000, 10)});
	CHECK(near(f.value, 1500));
	CHECK(near(f.chi2_dof, 5000));
	CHECK(near(f.error, std::sqrt(50.0) * std::sqrt(5000.0), 1e-6));
	CHECK(tau_fit::fit({}).n == 0);
}

static void test_agree()
{
	CHECK(tau_fit::agree(est(1000, 30), est(1080, 30)));  /* 80 <= 2 x 42.4 */
	CHECK(!tau_fit::agree(est(1000, 30), est(1100, 30))); /* 100 > 84.9 */
	CHECK(tau_fit::agree(est(1000, 30), est(1100, 30), 3.0));
}

/* A log in testABB's output format (made up here: sizes and rates are
 * not a run's), cut short in the second interrupt section. */
static const char LOG[] =
	"Design ID: 20003\n"
	"********************************************************************\n"
	"  KernelMemory DMA Tests\n"
	"********************************************************************\n"
	"\n"
	"Testing DMA Buffers access from application: \n"
	"4 kB\t: ok\n"
	"8 kB\t: ok\n"
	"Testing DMA Write: \n"
	"..........\n"
	"\n"
	"Testing DMA Write performance: \n"
	" 4 kB\t: 274.5 MBps\n"
	" 8 kB\t: 254.25 MBps\n"
	"\n"
	"Testing DMA Read performance: \n"
	" 4 kB\t: 560 MBps\n"
	" 8 kB\t: 1.5e+02 MBps\n"
	" 16 kB\t: 700.125 MBps\n"
	"\n"
	"********************************************************************\n"
	"  UserMemory DMA Tests\n"
	"********************************************************************\n"
	"\n"
	"Testing DMA Buffers access from application: \n"
	"4 kB\t: ok\n"
	"\n"
	" Enabling interrupts \n"
	"\n"
	"********************************************************************\n"
	"  KernelMemory DMA Tests (w/interrupts)\n"
	"********************************************************************\n"
	"Testing DMA Write performance: \n"
	" 65536 kB\t: 300 MBps\n"
	"\n"
	"4 kB\t: 1 MBps\n"
	"********************************************************************\n"
	"  UserMemory DMA Tests (w/interrupts)\n"
	"********************************************************************\n"
	"Testing DMA Read performance: \n"
	" 4 kB\t: 400 MBps\n"
	" 8 kB\t: 4";

static void test_log_reader()
{
	std::istringstream in(LOG);
	std::vector<testabb_section> s = parse_testabb_log(in);

	/* UserMemory DMA Tests has no performance figure: left out */
	CHECK(s.size() == 3);
	if (s.size() != 3)
		return;
	CHECK(s[0].name == "KernelMemory DMA Tests");
	CHECK(!s[0].interrupts);
	CHECK(s[0].write_mibs.size() == 2 && s[0].read_mibs.size() == 3);
	CHECK(near(s[0].write_mibs[4096], 274.5));
	CHECK(near(s[0].write_mibs[8192], 254.25));
	CHECK(near(s[0].read_mibs[4096], 560));
	CHECK(near(s[0].read_mibs[8192], 150));
	CHECK(near(s[0].read_mibs[16384], 700.125));
	CHECK(s[1].name == "KernelMemory DMA Tests (w/interrupts)");
	CHECK(s[1].interrupts);
	/* 64 MiB; the stray "4 kB : 1 MBps" after the list's blank line is no figure */
	CHECK(s[1].write_mibs.size() == 1 && near(s[1].write_mibs[64u << 20], 300));
	CHECK(s[1].read_mibs.empty());
	CHECK(s[2].interrupts && s[2].name == "UserMemory DMA Tests (w/interrupts)");
	/* the last line is cut short: only the complete one counts */
	CHECK(s[2].read_mibs.size() == 1 && near(s[2].read_mibs[4096], 400));

	std::istringstream none("Design ID: 20003\nmprace::Exception: no board\n");
	CHECK(parse_testabb_log(none).empty());
}

/* Two logs: one figure equal, one 10 % off, one in each only; a heading
 * twice matches by occurrence. */
static void test_log_compare()
{
	std::vector<testabb_section> a(3), b(2);

	a[0].name = b[0].name = "KernelMemory DMA Tests";
	a[0].read_mibs[4096] = 500;
	b[0].read_mibs[4096] = 500;
	a[0].write_mibs[4096] = 200;
	b[0].write_mibs[4096] = 220;
	b[0].write_mibs[8192] = 250; /* only in b */
	a[1].name = b[1].name = "UserMemory DMA Tests";
	a[1].read_mibs[1 << 20] = 800;
	b[1].read_mibs[1 << 20] = 792;
	a[2].name = "UserMemory DMA Tests"; /* its second occurrence: only in a */
	a[2].read_mibs[1 << 20] = 700;

	std::vector<testabb_pair> r = compare_testabb_logs(a, b);
	CHECK(r.size() == 5);
	if (r.size() != 5)
		return;
	/* section 0: writes first (4K both, 8K b only), then the read */
	CHECK(!r[0].read && r[0].bytes == 4096 && r[0].in_a && r[0].in_b && near(r[0].rel, 0.1, 1e-12));
	CHECK(!r[1].read && r[1].bytes == 8192 && !r[1].in_a && r[1].in_b && near(r[1].b, 250));
	CHECK(r[2].read && near(r[2].rel, 0));
	CHECK(r[3].section == "UserMemory DMA Tests" && near(r[3].rel, -0.01, 1e-12));
	CHECK(r[4].in_a && !r[4].in_b && near(r[4].a, 700));
	CHECK(compare_testabb_logs({}, {}).empty());
}

int main()
{
	struct {
		const char *name;
		void (*fn)();
	} tests[] = {
		{"median_mad", test_median_mad},       {"per_size_paired", test_per_size_paired},
		{"per_size_error", test_per_size_error}, {"fit", test_fit},
		{"agree", test_agree},                 {"noise_floor", test_noise_floor},                 {"log_reader", test_log_reader},
		{"log_compare", test_log_compare},
	};
	int failed = 0, n = 0;

	for (auto &t : tests) {
		int before = failures;

		t.fn();
		n++;
		failed += failures != before;
		std::printf("  %-24s %s\n", t.name, failures != before ? "FAILED" : "passed");
	}
	std::printf("mprace bench parts: %d run, %d passed, %d failed\n", n, n - failed, failed);
	return failed ? 1 : 0;
}
