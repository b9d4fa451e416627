/*
 * abb_bench_mprace.cpp - the DABC 2008 comparison with the original
 * baseline, and testABB's figures next to abb_bench's.
 *
 * 1. tau (default mode): the plain testABB loop (through the mprace layer:
 *    a KERNEL DMABuffer, ABB::readDMA of the FIFO at 0x8000 with
 *    inc=false, lock=true, timed by util::Timer, as testABB's DMA read
 *    performance test does) against the readout module of <abb/abb_daq.h>
 *    with one and with two threads, on the same open board, reading the
 *    same FIFO with DMAs of the same length.
 *
 *      abb_bench_mprace [--device URI] [--min SIZE] [--max SIZE] [--bytes N]
 *                       [--reps R] [--fit-max SIZE] [--csv] [--raw]
 *
 *    Default device: $ABB_DEVICE, else sim:hosttime=1 (the simulator with
 *    host-time coupling: device time includes the host's CPU time, so the
 *    software's cost per buffer shows); --device model runs it on the
 *    reference model (device time = wall time). Sizes 1K..256K, 2M bytes
 *    per run (at least 16 buffers). R repetitions (default 9),
 *    each a sweep over the sizes with the three runs of a size back to
 *    back in an order that rotates, so the machine's load drifts over all
 *    sizes and variants alike. Per size: the median MB/s of each variant
 *    and tau = t_module - t_plain per buffer (the seed's
 *    size x (1/B_module - 1/B_plain)) with its error; then tau fitted as a
 *    constant over the sizes up to --fit-max (default 64K: beyond it tau
 *    is a small difference of two long times and carries no information,
 *    as the seed notes), with its error and chi2/dof (tau_fit.h).
 *
 * 2. --vs-bench LOG: testABB's DMA read and write MiB/s per size, parsed
 *    from a testABB log (build/mprace-check/testABB.sim.log), next to
 *    abb_bench on the same device and link with testABB's transfer shape
 *    (--fixed 0x8000: a fixed-address transfer, --loops 50: testABB's
 *    NLOOPS, --irq for the sections "w/interrupts").
 *
 *      abb_bench_mprace --vs-bench LOG [--device URI] [--max SIZE]
 *                       [--loops N] [--abb-bench PATH]
 *
 *    Default device: $ABB_DEVICE, else sim (the lockstep simulator,
 *    mprace-check's device); default abb_bench: the one next to this
 *    program; --max caps the sizes (testABB's user-memory sizes reach
 *    64 MiB: hours on the simulator).
 */
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <getopt.h>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include <abb/abb.h>
#include <abb/abb_daq.h>
#include <abb/abb_sim.h>

#include "bench_module.h"
#include "mprace/ABB.h"
#include "mprace/DMABuffer.h"
#include "mprace/Exception.h"
#include "mprace/util/Timer.h"
#include "tau_fit.h"
#include "testabb_log.h"
#include "tool_args.h"

using namespace mprace;
using mprace::util::Timer;

static const double SEED_TAU1_US = 0.8;        /* DABC 2008: one thread */
static const double SEED_TAU2_US = 1.7;        /* two threads */
static const unsigned FPGA_ADDR = 0x8000 >> 2; /* testABB's board address (words) */
static const unsigned TESTABB_LOOPS = 50;      /* testABB's NLOOPS */

struct opts {
	std::string device;
	size_t min = 1024, max = 256 << 10, fit_max = 64 << 10;
	bool max_given = false;
	unsigned long long bytes = 2ull << 20;
	int reps = 9, csv = 0, raw = 0;
	std::string vs_log, abb_bench;
	unsigned loops = TESTABB_LOOPS;
};

/* A size: 4 bytes up to 4 GiB - 4 (a DMABuffer's size is 32 bits), a
 * multiple of 4; through the tools' parser (host/tools/tool_args.h: no
 * sign, no suffix overflow; "-1" was taken as 2^64-1). */
static bool parse_size(const char *what, const char *s, size_t &out)
{
	unsigned long long v;

	if (tool_num(what, s, 4, 0xfffffffcull, TOOL_NUM_SIZE, &v))
		return false;
	if (v % 4) {
		tool_error("%s %s: not a multiple of 4 bytes", what, s);
		return false;
	}
	out = (size_t)v;
	return true;
}

/* ns per buffer of testABB's DMA read loop. */
static double plain_run(ABB &board, size_t size, unsigned n)
{
	DMABuffer buf(board, (unsigned)size, DMABuffer::KERNEL);
	Timer t;

	t.start();
	for (unsigned i = 0; i < n; i++)
		board.readDMA(FPGA_ADDR, buf, (unsigned)(size / 4), 0, false, true);
	t.stop();
	return (double)t.asSeconds() * 1e9 / n;
}

/* ns per buffer of a standalone readout module reading the same FIFO. */
static int module_run(abb_daq_device *ddev, size_t size, unsigned n, int threads, double &ns)
{
	struct abb_daq_params p;

	bench_module_params(&p, 0, size, n, threads, FPGA_ADDR * 4);
	p.fifo = 1; /* testABB's inc=false */
	return bench_module_run(ddev, 0, &p, &ns);
}

static double mbs(size_t size, double ns)
{
	return ns > 0 ? (double)size / ns * 1e3 : 0.0;
}

/* ---- tau ------------------------------------------------------------------ */

struct size_runs {
	size_t size;
	unsigned n; /* buffers per run */
	std::vector<double> plain, m1, m2; /* ns per buffer, one per repetition */
};

static int tau_bench(const opts &o)
{
	/* the layer opens the board $ABB_DEVICE names */
	setenv("ABB_DEVICE", o.device.c_str(), 1);
	try {
		ABB board(0);
		abb_daq_device *ddev;
		int hosttime = abb_sim_hosttime(board.device());
		int rc = abb_daq_device_attach(&ddev, board.device(), 0);
		std::vector<size_runs> runs;

		if (rc) {
			std::fprintf(stderr, "abb_bench_mprace: %s\n", abb_last_error());
			return 1;
		}
		for (size_t size = o.min; size <= o.max; size *= 2) {
			unsigned long long cnt = o.bytes / size;
			size_runs r;

			r.size = size;
			r.n = cnt < 16 ? 16 : cnt > 1000000 ? 1000000 : (unsigned)cnt;
			runs.push_back(r);
		}
		if (!o.csv)
			std::printf("DMA read (board to host) of the FIFO at 0x%x: plain testABB loop "
				    "(mprace layer) vs readout module\n"
				    "device %s (%s); %d repetitions of the sweep, %llu bytes per run\n",
				    FPGA_ADDR * 4, o.device.c_str(),
				    hosttime == 1   ? "host-time coupling"
				    : hosttime == 0 ? "lockstep: software costs no device time"
						    : "device clock = wall clock",
				    o.reps, o.bytes);
		for (int k = 0; k < o.reps && !rc; k++) {
			for (size_runs &r : runs) {
				double t[3] = {0, 0, 0};

				/* the order of the three rotates with k */
				for (int j = 0; j < 3 && !rc; j++) {
					int v = (j + k) % 3;

					if (v == 0)
						t[0] = plain_run(board, r.size, r.n);
					else
						rc = module_run(ddev, r.size, r.n, v, t[v]);
				}
				if (rc)
					break;
				r.plain.push_back(t[0]);
				r.m1.push_back(t[1]);
				r.m2.push_back(t[2]);
				if (o.raw)
					std::printf("raw rep %d size %zu ns/buffer: plain %.1f 1thr %.1f "
						    "2thr %.1f\n",
						    k, r.size, t[0], t[1], t[2]);
			}
			if (!o.csv && !o.raw) {
				std::fprintf(stderr, "\rrepetition %d of %d done", k + 1, o.reps);
				if (k + 1 == o.reps)
					std::fprintf(stderr, "\n");
			}
		}
		abb_daq_device_close(ddev);
		if (rc) {
			std::fprintf(stderr, "abb_bench_mprace: readout module: %s: %s\n",
				     abb_strerror(rc), abb_last_error());
			return 1;
		}

		/* the run's typical noise (tau_fit.h): a floor for every size's error */
		std::vector<double> rel1, rel2;
		for (const size_runs &r : runs) {
			rel1.push_back(tau_fit::relative_noise(r.m1, r.plain));
			rel2.push_back(tau_fit::relative_noise(r.m2, r.plain));
		}
		double noise1 = tau_fit::median(rel1), noise2 = tau_fit::median(rel2);
		std::vector<tau_fit::estimate> fit1, fit2;
		if (o.csv)
			std::printf("size,plain_mbs,module1_mbs,module2_mbs,tau1_us,tau1_err_us,"
				    "tau2_us,tau2_err_us,in_fit\n");
		else
			std::printf("MB/s: median of the repetitions; tau = t_module - t_plain per buffer, "
				    "median of the paired differences +- its standard error\n"
				    "%9s | %9s | %9s %9s | %16s %16s | %s\n",
				    "size", "testABB", "1 thread", "2 threads", "tau 1 thr, us",
				    "tau 2 thr, us", "fit");
		for (const size_runs &r : runs) {
			double tp = tau_fit::median(r.plain);
			unsigned nr = (unsigned)r.plain.size();
			tau_fit::estimate e1 =
				tau_fit::per_size(r.m1, r.plain, tau_fit::error_floor(noise1, tp, nr));
			tau_fit::estimate e2 =
				tau_fit::per_size(r.m2, r.plain, tau_fit::error_floor(noise2, tp, nr));
			bool in_fit = r.size <= o.fit_max;
			double p = mbs(r.size, tp);
			double b1 = mbs(r.size, tau_fit::median(r.m1));
			double b2 = mbs(r.size, tau_fit::median(r.m2));

			if (in_fit) {
				fit1.push_back(e1);
				fit2.push_back(e2);
			}
			if (o.csv)
				std::printf("%zu,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%d\n", r.size, p, b1,
					    b2, e1.value / 1e3, e1.error / 1e3, e2.value / 1e3,
					    e2.error / 1e3, in_fit);
			else
				std::printf("%7zuKi | %9.1f | %9.1f %9.1f | %7.3f +- %5.3f %7.3f +- %5.3f "
					    "| %s\n",
					    r.size >> 10, p, b1, b2, e1.value / 1e3, e1.error / 1e3,
					    e2.value / 1e3, e2.error / 1e3, in_fit ? "yes" : "no");
		}
		if (!o.csv)
			std::printf("noise of a module-plain difference, relative to the plain time "
				    "per buffer (median over sizes): 1 thread %.1f %%, 2 threads %.1f %%\n",
				    100 * noise1, 100 * noise2);
		if (!o.csv && !fit1.empty()) {
			tau_fit::estimate f1 = tau_fit::fit(fit1), f2 = tau_fit::fit(fit2);

			std::printf("tau fitted as a constant over %u sizes (%zu..%zu bytes), weights "
				    "1/error^2, error scaled by sqrt(chi2/dof) when > 1:\n"
				    "  1 thread : tau = %6.3f +- %.3f us  (chi2/dof %.2f)   DABC 2008: "
				    "%.1f us\n"
				    "  2 threads: tau = %6.3f +- %.3f us  (chi2/dof %.2f)   DABC 2008: "
				    "%.1f us\n",
				    f1.n, o.min, std::min(o.fit_max, runs.back().size), f1.value / 1e3,
				    f1.error / 1e3, f1.chi2_dof, SEED_TAU1_US, f2.value / 1e3,
				    f2.error / 1e3, f2.chi2_dof, SEED_TAU2_US);
		}
	} catch (Exception &e) {
		std::fprintf(stderr, "abb_bench_mprace: %s\n", e.what());
		return 1;
	}
	return 0;
}

/* ---- testABB vs abb_bench ------------------------------------------------- */

static std::string self_dir()
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);

	if (n <= 0)
		return ".";
	buf[n] = 0;
	std::string s(buf);
	size_t slash = s.rfind('/');
	return slash == std::string::npos ? "." : s.substr(0, slash);
}

static std::string shell_quote(const std::string &s)
{
	std::string q = "'";

	for (char c : s)
		q += c == '\'' ? std::string("'\\''") : std::string(1, c);
	return q + "'";
}

/* abb_bench over min..max: size -> {read, write} MB/s; an empty map on error. */
static std::map<size_t, std::pair<double, double>>
run_abb_bench(const opts &o, size_t min, size_t max, bool irq, std::string &cmd)
{
	std::map<size_t, std::pair<double, double>> out;
	char args[256];

	std::snprintf(args, sizeof args,
		      " --fixed 0x%x --loops %u --min %zu --max %zu --no-concurrent%s --csv",
		      FPGA_ADDR * 4, o.loops, min, max, irq ? " --irq" : "");
	cmd = shell_quote(o.abb_bench) + " --device " + shell_quote(o.device) + args;
	FILE *f = popen(cmd.c_str(), "r");
	if (!f)
		return out;
	char line[512];
	while (std::fgets(line, sizeof line, f)) {
		size_t size;
		double rd, rd_lim, rd_ratio, wr;

		if (std::sscanf(line, "%zu,%lf,%lf,%lf,%lf", &size, &rd, &rd_lim, &rd_ratio, &wr) == 5)
			out[size] = {rd, wr};
	}
	if (pclose(f) != 0)
		out.clear();
	return out;
}

static int vs_bench(const opts &o)
{
	std::ifstream in(o.vs_log);
	if (!in) {
		std::fprintf(stderr, "abb_bench_mprace: cannot read %s: %s\n", o.vs_log.c_str(),
			     std::strerror(errno));
		return 1;
	}
	std::vector<testabb_section> secs = parse_testabb_log(in);
	if (secs.empty()) {
		std::fprintf(stderr, "abb_bench_mprace: no DMA performance figures of testABB in %s\n",
			     o.vs_log.c_str());
		return 1;
	}
	const double mib = 1e6 / 1048576.0; /* MB/s -> MiB/s */
	std::printf("testABB (%s) vs abb_bench on %s, the same shape: fixed-address transfers at "
		    "0x%x, %u per size\nunit MiB/s (testABB's MBps divides by 2^20); ratio = "
		    "abb_bench / testABB\n",
		    o.vs_log.c_str(), o.device.c_str(), FPGA_ADDR * 4, o.loops);
	int status = 0;
	size_t above = 0;
	for (const testabb_section &s : secs)
		for (const auto *m : {&s.read_mibs, &s.write_mibs})
			for (const auto &kv : *m)
				above += kv.first > o.max;
	if (above)
		std::printf("%zu figures of testABB at sizes above --max %zu left out\n", above, o.max);
	for (int irq = 0; irq < 2; irq++) {
		size_t lo = SIZE_MAX, hi = 0;

		for (const testabb_section &s : secs)
			if (s.interrupts == (irq != 0))
				for (const auto *m : {&s.read_mibs, &s.write_mibs})
					for (const auto &kv : *m)
						if (kv.first <= o.max) {
							lo = std::min(lo, kv.first);
							hi = std::max(hi, kv.first);
						}
		if (hi == 0)
			continue;
		std::string cmd;
		auto bench = run_abb_bench(o, lo, hi, irq != 0, cmd);
		std::printf("\n$ %s\n", cmd.c_str());
		if (bench.empty()) {
			std::fprintf(stderr, "abb_bench_mprace: abb_bench failed: %s\n", cmd.c_str());
			status = 1;
			continue;
		}
		for (const testabb_section &s : secs) {
			if (s.interrupts != (irq != 0))
				continue;
			std::printf("%s\n%9s | %9s %9s %6s | %9s %9s %6s\n", s.name.c_str(), "size",
				    "read tABB", "abb_bench", "ratio", "write tABB", "abb_bench", "ratio");
			for (const auto &kv : bench) {
				size_t size = kv.first;
				auto r = s.read_mibs.find(size), w = s.write_mibs.find(size);
				double br = kv.second.first * mib, bw = kv.second.second * mib;
				char rc[48] = "        -         -      -", wc[48] = "        -         -      -";

				if (r == s.read_mibs.end() && w == s.write_mibs.end())
					continue;
				if (r != s.read_mibs.end())
					std::snprintf(rc, sizeof rc, "%9.1f %9.1f %6.3f", r->second, br,
						      br / r->second);
				if (w != s.write_mibs.end())
					std::snprintf(wc, sizeof wc, "%9.1f %9.1f %6.3f", w->second, bw,
						      bw / w->second);
				std::printf("%9zu | %s | %s\n", size, rc, wc);
			}
		}
	}
	return status;
}

/* ---- main ----------------------------------------------------------------- */

static void usage(const char *prog)
{
	std::fprintf(stderr,
		     "usage: %s [--device URI] [--min SIZE] [--max SIZE] [--bytes N] [--reps R]\n"
		     "          [--fit-max SIZE] [--csv] [--raw]\n"
		     "  plain testABB loop (mprace layer) vs readout module, 1 and 2 threads, tau;\n"
		     "  default device $ABB_DEVICE, else sim:hosttime=1\n"
		     "usage: %s --vs-bench LOG [--device URI] [--max SIZE] [--loops N] "
		     "[--abb-bench PATH]\n"
		     "  testABB's DMA MiB/s from LOG next to abb_bench with testABB's transfer shape;\n"
		     "  default device $ABB_DEVICE, else sim\n",
		     prog, prog);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"device", required_argument, 0, 'd'}, {"min", required_argument, 0, 1},
		{"max", required_argument, 0, 2},      {"bytes", required_argument, 0, 'b'},
		{"reps", required_argument, 0, 'r'},   {"csv", no_argument, 0, 'c'},
		{"fit-max", required_argument, 0, 3},  {"raw", no_argument, 0, 4},
		{"vs-bench", required_argument, 0, 5}, {"loops", required_argument, 0, 6},
		{"abb-bench", required_argument, 0, 7}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	struct opts o;
	const char *env = std::getenv("ABB_DEVICE");
	bool device_given = false;
	int c;

	unsigned long long v;

	tool_begin(argv[0]);
	while ((c = getopt_long(argc, argv, "d:b:r:ch", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.device = optarg; device_given = true; break;
		case 1:
			if (!parse_size("--min", optarg, o.min))
				return usage(argv[0]), 2;
			break;
		case 2:
			if (!parse_size("--max", optarg, o.max))
				return usage(argv[0]), 2;
			o.max_given = true;
			break;
		case 3:
			if (!parse_size("--fit-max", optarg, o.fit_max))
				return usage(argv[0]), 2;
			break;
		case 'b':
			if (tool_num("--bytes", optarg, 4, 64ull << 30, TOOL_NUM_SIZE, &v))
				return usage(argv[0]), 2;
			o.bytes = v;
			break;
		case 'r':
			if (tool_num("--reps", optarg, 1, 1000, 0, &v))
				return usage(argv[0]), 2;
			o.reps = (int)v;
			break;
		case 'c': o.csv = 1; break;
		case 4: o.raw = 1; break;
		case 5: o.vs_log = optarg; break;
		case 6:
			if (tool_num("--loops", optarg, 1, 1000000, 0, &v))
				return usage(argv[0]), 2;
			o.loops = (unsigned)v;
			break;
		case 7: o.abb_bench = optarg; break;
		default: usage(argv[0]); return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		tool_error("%s: no such option or argument", argv[optind]);
		return usage(argv[0]), 2;
	}
	if (o.min > o.max) {
		tool_error("--min %zu is larger than --max %zu", o.min, o.max);
		return usage(argv[0]), 2;
	}
	if (!device_given)
		o.device = env && *env ? env : o.vs_log.empty() ? "sim:hosttime=1" : "sim";
	if (!o.vs_log.empty()) {
		if (o.abb_bench.empty())
			o.abb_bench = self_dir() + "/abb_bench";
		if (!o.max_given)
			o.max = SIZE_MAX;
		return vs_bench(o);
	}
	return tau_bench(o);
}
