/*
 * abb_bench_mprace.cpp - the DABC 2008 comparison with the original
 * baseline: the plain testABB loop (through the mprace layer: a KERNEL
 * DMABuffer, ABB::readDMA of the FIFO at 0x8000 with inc=false, lock=true,
 * timed by util::Timer, as testABB's DMA read performance test does) against
 * the readout module of <abb/abb_daq.h> with one and with two threads, on
 * the same open board, reading the same FIFO with DMAs of the same length.
 *
 *   abb_bench_mprace [--device URI] [--min SIZE] [--max SIZE] [--bytes N]
 *                    [--reps R] [--csv]
 *
 * Default device: $ABB_DEVICE, else sim:hosttime=1 (the simulator with
 * host-time coupling: device time includes the host's CPU time, so the
 * software's cost per buffer shows). For every size:
 *   tau = size x (1/B_module - 1/B_plain)   (the seed's overhead per buffer)
 * Best of R runs (default 3; plain, 1 thread and 2 threads interleaved).
 * Summary: the median of tau over the sizes, and tau weighted by 1/size^2
 * (the noise of a difference of per-buffer times grows with the size; the
 * small buffers carry the information, as in the seed).
 */
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <string>
#include <vector>

#include <abb/abb.h>
#include <abb/abb_daq.h>
#include <abb/abb_sim.h>

#include "mprace/ABB.h"
#include "mprace/DMABuffer.h"
#include "mprace/Exception.h"
#include "mprace/util/Timer.h"

using namespace mprace;
using mprace::util::Timer;

static const double SEED_TAU1_US = 0.8; /* DABC 2008: one thread */
static const double SEED_TAU2_US = 1.7; /* two threads */
static const unsigned FPGA_ADDR = 0x8000 >> 2; /* testABB's board address (words) */
static const unsigned NBUF = 8;               /* the module's pool */

struct opts {
	std::string device;
	size_t min = 1024, max = 1 << 20;
	unsigned long long bytes = 8ull << 20;
	int reps = 3, csv = 0;
};

static bool parse_size(const char *s, size_t &out)
{
	char *end;
	unsigned long long v = std::strtoull(s, &end, 0);

	if (end == s)
		return false;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v == 0 || v % 4)
		return false;
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
	struct abb_daq_stats st;
	abb_daq_module *m;
	int rc;

	abb_daq_params_default(&p);
	p.threads = threads;
	p.fifo = 1;
	p.address = FPGA_ADDR * 4;
	p.length = (uint32_t)size;
	p.buffer_size = size + ABB_DAQ_HEADER_BYTES;
	p.num_buffers = NBUF;
	p.max_buffers = n;
	rc = abb_daq_readout_create(&m, ddev, NULL, &p);
	if (rc)
		return rc;
	rc = abb_daq_module_start(m);
	if (!rc)
		rc = abb_daq_module_wait(m, -1);
	abb_daq_module_stats(m, &st);
	if (!rc)
		rc = abb_daq_module_stop(m);
	abb_daq_module_destroy(m);
	if (!rc && st.buffers != n)
		rc = -EIO;
	ns = (double)(st.t_end - st.t_start) / n;
	return rc;
}

static double mbs(size_t size, double ns)
{
	return ns > 0 ? (double)size / ns * 1e3 : 0.0;
}

static void usage(const char *prog)
{
	std::fprintf(stderr,
		     "usage: %s [--device URI] [--min SIZE] [--max SIZE] [--bytes N] [--reps R] [--csv]\n"
		     "  plain testABB loop (mprace layer) vs readout module, 1 and 2 threads;\n"
		     "  default device $ABB_DEVICE, else sim:hosttime=1\n",
		     prog);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"device", required_argument, 0, 'd'}, {"min", required_argument, 0, 1},
		{"max", required_argument, 0, 2},      {"bytes", required_argument, 0, 'b'},
		{"reps", required_argument, 0, 'r'},   {"csv", no_argument, 0, 'c'},
		{"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
	struct opts o;
	const char *env = std::getenv("ABB_DEVICE");
	int c;

	o.device = env && *env ? env : "sim:hosttime=1";
	while ((c = getopt_long(argc, argv, "d:b:r:ch", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.device = optarg; break;
		case 1:
			if (!parse_size(optarg, o.min))
				return usage(argv[0]), 2;
			break;
		case 2:
			if (!parse_size(optarg, o.max))
				return usage(argv[0]), 2;
			break;
		case 'b': o.bytes = std::strtoull(optarg, NULL, 0); break;
		case 'r': o.reps = std::atoi(optarg); break;
		case 'c': o.csv = 1; break;
		default: usage(argv[0]); return c == 'h' ? 0 : 2;
		}
	}
	if (o.reps < 1 || o.min > o.max || o.bytes == 0)
		return usage(argv[0]), 2;
	/* the layer opens the board $ABB_DEVICE names */
	setenv("ABB_DEVICE", o.device.c_str(), 1);

	try {
		ABB board(0);
		abb_daq_device *ddev;
		int hosttime = abb_sim_hosttime(board.device());
		std::vector<double> t1s, t2s;
		int rc = abb_daq_device_attach(&ddev, board.device(), 0);

		if (rc) {
			std::fprintf(stderr, "abb_bench_mprace: %s\n", abb_last_error());
			return 1;
		}
		if (o.csv)
			std::printf("size,plain_mbs,module1_mbs,ratio1,tau1_us,module2_mbs,ratio2,tau2_us\n");
		else
			std::printf("DMA read (board to host) of the FIFO at 0x%x: plain testABB loop "
				    "(mprace layer) vs readout module\ndevice %s (%s), best of %d; "
				    "tau = size x (1/B_module - 1/B_plain)\n"
				    "%9s | %11s | %9s %6s %8s | %9s %6s %8s | %s\n",
				    FPGA_ADDR * 4, o.device.c_str(),
				    hosttime == 1   ? "host-time coupling"
				    : hosttime == 0 ? "lockstep: software costs no device time"
						    : "device clock",
				    o.reps, "size", "testABB", "1 thread", "ratio", "tau us",
				    "2 threads", "ratio", "tau us", "DABC 2008 tau 1/2 thr");
		for (size_t size = o.min; size <= o.max; size *= 2) {
			unsigned long long cnt = o.bytes / size;
			unsigned n = cnt < 16 ? 16 : cnt > 1000000 ? 1000000 : (unsigned)cnt;
			double bp = 1e300, b1 = 1e300, b2 = 1e300, t;

			for (int k = 0; k < o.reps && !rc; k++) {
				t = plain_run(board, size, n);
				bp = t < bp ? t : bp;
				if (!(rc = module_run(ddev, size, n, 1, t)))
					b1 = t < b1 ? t : b1;
				if (!rc && !(rc = module_run(ddev, size, n, 2, t)))
					b2 = t < b2 ? t : b2;
			}
			if (rc) {
				std::fprintf(stderr, "abb_bench_mprace: readout module: %s: %s\n",
					     abb_strerror(rc), abb_last_error());
				abb_daq_device_close(ddev);
				return 1;
			}
			double p = mbs(size, bp), m1 = mbs(size, b1), m2 = mbs(size, b2);
			double tau1 = (b1 - bp) / 1e3, tau2 = (b2 - bp) / 1e3;

			t1s.push_back(tau1);
			t2s.push_back(tau2);
			if (o.csv)
				std::printf("%zu,%.2f,%.2f,%.4f,%.4f,%.2f,%.4f,%.4f\n", size, p, m1,
					    m1 / p, tau1, m2, m2 / p, tau2);
			else
				std::printf("%7zuKi | %11.1f | %9.1f %6.3f %8.3f | %9.1f %6.3f %8.3f | "
					    "%.1f / %.1f\n",
					    size >> 10, p, m1, m1 / p, tau1, m2, m2 / p, tau2,
					    SEED_TAU1_US, SEED_TAU2_US);
			std::fflush(stdout);
		}
		abb_daq_device_close(ddev);
		if (!o.csv && !t1s.empty()) {
			auto median = [](std::vector<double> v) {
				std::sort(v.begin(), v.end());
				size_t n = v.size();
				return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
			};
			/* tau is a time per buffer; the noise of a difference of two
			 * times per buffer grows with the size, so weight 1/size^2 */
			auto fit = [&](const std::vector<double> &v) {
				double sw = 0, swx = 0, size = (double)o.min;
				for (double x : v) {
					sw += 1 / (size * size);
					swx += x / (size * size);
					size *= 2;
				}
				return swx / sw;
			};
			std::printf("tau (median over sizes): 1 thread %.3f us, 2 threads %.3f us\n"
				    "tau (weighted 1/size^2): 1 thread %.3f us, 2 threads %.3f us "
				    "(DABC 2008: %.1f us, %.1f us)\n",
				    median(t1s), median(t2s), fit(t1s), fit(t2s), SEED_TAU1_US,
				    SEED_TAU2_US);
		}
	} catch (Exception &e) {
		std::fprintf(stderr, "abb_bench_mprace: %s\n", e.what());
		return 1;
	}
	return 0;
}
