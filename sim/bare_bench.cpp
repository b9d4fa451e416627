/*
 * bare_bench.cpp - speed of the bare Verilator model, as the yardstick of
 * the full platform (make sim-speed).
 *
 * The same Verilated RTL, built with the same flags as libabbsim.so, driven
 * by a minimal loop with an ideal link: every TX beat is accepted at once,
 * memory writes land in a flat host array, nothing else is modelled. The
 * model is evaluated as the library's cycle loop evaluates it
 * (sim/hard_ip.cpp HardIp::edge, the case without a waveform or a port
 * record): a model edited by sim/defer_comb.py gets its combinational pass
 * deferred to the next clock-low eval (a forced sample) and is run by its
 * _eval_direct; any other model (a baseline RTL of make sim-speed
 * BASELINE=) by eval() at both clock levels, as before (defer_comb.py
 * defines <class>_DEFER_COMB and <class>_DIRECT_EVAL in the class header). It runs
 * one DMA read (board to host) of the given size (default 4 MiB) and prints
 * simulated cycles per wall second and simulated MB per wall second, one
 * line, "key=value" pairs, for the sim-speed target to compare; also the
 * process's CPU seconds of the transfer and cycles per CPU second (on a
 * loaded machine the wall time includes waiting for a core, CPU time
 * does not).
 */
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "Vabb_top.h"
#include "model_inputs.h"
#include "rtl_model_t.h"
#include "verilated.h"

#if defined(Vabb_top_DIRECT_EVAL)
void Vabb_top___024root___eval_direct(Vabb_top___024root *vlSelf);
#endif
/* the model takes the deferred combinational pass (sim/defer_comb.py) */
#if defined(Vabb_top_DEFER_COMB) && Vabb_top_DEFER_COMB
#define BARE_DEFER 1
#else
#define BARE_DEFER 0
#endif

#include <abb/abb_regs.h>

namespace {

constexpr uint64_t HostBase = 0x10000000; // IOVA of the host array

struct Bench {
	Vabb_top top;
	std::vector<uint8_t> host;
	std::vector<uint64_t> tlp; // TX beats of the TLP being received
	uint64_t cycles = 0;
	abbsim::ModelInputs inputs;

	explicit Bench(size_t bytes) : host(bytes) {}

	bool stale = false; // the last clock-high eval left out the combinational pass
	bool idle = false;  // idle_o after the last edge
	bool rx_fire = false; // the last edge took an RX beat

	// the library's eval of this model (sim/rtl_model.h RtlModel::run)
	void run()
	{
#if defined(Vabb_top_DIRECT_EVAL)
		Vabb_top___024root___eval_direct(top.rootp);
#else
		top.eval();
#endif
	}

#if BARE_DEFER
	// the combinational pass left out, now (HardIp::refresh)
	void refresh()
	{
		top.smp_i = 1;
		run();
		top.smp_i = 0;
		run();
		stale = false;
	}
#endif

	void edge()
	{
		abbsim::model_sample(top, inputs, stale); // sim/model_inputs.h
		stale = false;
		top.clk_i = 0;
#if BARE_DEFER
		if (!(!top.smp_i && abbsim::low_idle(top, 0)))
			run();
#else
		run();
#endif
		abbsim::model_sample_done(top);
		bool tx = top.tx_valid_o && top.tx_ready_i;
		rx_fire = top.rx_valid_i && top.rx_ready_o; // at this edge
		uint64_t data = top.tx_data_o;
		bool eop = top.tx_eop_o;
		top.clk_i = 1;
#if BARE_DEFER
		bool quiet_pre = top.quiet_o;
		top.defer_i = 1;
		run();
		top.defer_i = 0;
		// idle_o = quiet && quiet_q: 0 without the pass unless quiet before
		if (!quiet_pre) {
			stale = true;
			idle = false;
		} else {
			refresh();
			idle = top.idle_o;
		}
#else
		run();
		idle = top.idle_o;
#endif
		cycles++;
		if (tx) {
			tlp.push_back(data);
			if (eop) {
				take_tlp();
				tlp.clear();
			}
		}
	}

	// Memory writes land in the host array; nothing else is expected.
	void take_tlp()
	{
		uint32_t dw0 = (uint32_t)tlp[0];
		unsigned len = dw0 & 0x3ff ? dw0 & 0x3ff : 1024;
		if ((dw0 >> 29) != 2 || ((dw0 >> 24) & 0x1f) != 0)
			return;
		uint64_t addr = tlp[1] & 0xfffffffcu;
		for (unsigned i = 0; i < len; i++) {
			uint32_t v = (uint32_t)(tlp[2 + i / 2] >> (32 * (i & 1)));
			uint64_t off = addr - HostBase + 4 * i;
			if (off + 4 <= host.size())
				memcpy(&host[off], &v, 4);
		}
	}

	// A one-DW register write TLP (3-DW header), delivered beat by beat.
	void reg_write(uint32_t off, uint32_t val)
	{
		uint64_t beats[3] = {0x40000001ull | (0x0full << 32), off, val};
		for (int i = 0; i < 3; i++) {
			top.rx_valid_i = 1;
			top.rx_sop_i = i == 0;
			top.rx_eop_i = i == 2;
			top.rx_data_i = beats[i];
			top.rx_bar_i = 0;
			do
				edge();
			while (!rx_fire);
		}
		top.rx_valid_i = 0;
	}
};

double cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

} // namespace

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoull(argv[1], nullptr, 0) : 4u << 20;
	if (bytes == 0 || bytes % 4 || bytes > (16u << 20)) {
		fprintf(stderr, "usage: bare_bench [BYTES]  (multiple of 4, at most 16 MiB)\n");
		return 2;
	}
	Verilated::commandArgs(argc, argv);
	Bench b(bytes);
	b.top.eval(); // the model's initialisation (before any _eval_direct)
	b.top.cfg_bus_master_en_i = 1;
	b.top.cfg_max_payload_i = 0; // 128 B, the default of the platform
	b.top.cfg_max_read_req_i = 2;
	b.top.cfg_msi_en_i = 0;
	b.top.cfg_req_id_i = 0x0100;
	b.top.cfg_mem_bits_i = 24;
	b.top.tx_ready_i = 1;
	b.top.tx_buf_av_i = 63; // a sink that never backs up
	abbsim::board_cfg_set(b.top, 0, 0); // the default board (no DDR2 timing)
	b.top.rst_ni = 0;
	for (int i = 0; i < 4; i++)
		b.edge();
	b.top.rst_ni = 1;

	auto t0 = std::chrono::steady_clock::now();
	double cpu0 = cpu_seconds();
	uint32_t blk = ABB_BLK_C2H;
	b.reg_write(blk + ABB_CH_PAL, 0);
	b.reg_write(blk + ABB_CH_HAL, (uint32_t)HostBase);
	b.reg_write(blk + ABB_CH_LENG, (uint32_t)bytes);
	b.reg_write(blk + ABB_CH_CTRL,
		    ABB_CTRL_V | ABB_CTRL_LAST | ABB_CTRL_BAR | ABB_CTRL_UPA | ABB_CTRL_INC);
	uint64_t c0 = b.cycles;
	// the channel is done when the mover has sent everything and the engine
	// is quiet again
	while (!b.idle)
		b.edge();
	auto t1 = std::chrono::steady_clock::now();
	double cpu = cpu_seconds() - cpu0;
	double wall = std::chrono::duration<double>(t1 - t0).count();
	printf("bare: bytes=%zu cycles=%llu wall_s=%.4f cycles_per_s=%.0f sim_MB_per_s=%.2f cpu_s=%.4f "
	       "cycles_per_cpu_s=%.0f\n",
	       bytes, (unsigned long long)(b.cycles - c0), wall, (double)(b.cycles - c0) / wall,
	       (double)bytes / wall / 1e6, cpu, (double)(b.cycles - c0) / cpu);
	return 0;
}
