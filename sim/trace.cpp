/*
 * trace.cpp - FST with text lanes, idle-gap drawing, the flight recorder
 * and the GTKWave save file (see trace.h).
 */
#include "trace.h"

#include <cstdio>
#include <cstring>

#include "model_inputs.h"
#include "rtl_model.h"
#include "verilated.h"

#ifdef ABBSIM_NO_TRACE
/* A simulator without tracing compiled in (SIM_TRACE=0): the reference
 * build of `make trace-cost`. Nothing is ever active. */
namespace abbsim {
struct Tracer::Rec {};
Tracer::Tracer(RtlModel &main, uint64_t half_ps) : main_(&main), half_ps_(half_ps) {}
Tracer::~Tracer() {}
void Tracer::rebind(RtlModel &main) { main_ = &main; }
int Tracer::file_open(const std::string &, uint64_t, std::string &err)
{
	err = "tracing is not compiled in (SIM_TRACE=0)";
	return -1;
}
std::string Tracer::file_close() { return ""; }
void Tracer::rec_arm(uint64_t, const std::string &, bool)
{
	fprintf(stderr, "abbsim: the flight recorder is not compiled in (SIM_TRACE=0)\n");
}
std::string Tracer::rec_dump(const std::string &, uint64_t) { return ""; }
void Tracer::edge_pre(uint64_t, uint32_t) {}
void Tracer::dump(uint64_t) {}
void Tracer::lane(Lane, const std::string &) {}
void Tracer::credits(const int32_t *, const int32_t *) {}
void Tracer::mark(const std::string &, uint64_t) {}
} // namespace abbsim
#else
#include "verilated_fst_c.h"

namespace abbsim {

/* Lane width in characters (abb_sim_top.sv: LaneBits = 8 * 96). */
static constexpr unsigned LaneChars = 96;

struct Tracer::In {
	uint32_t cred[2][3]; /* up_credits_i, down_credits_i */
	uint64_t t, cycle, edge, rx_data, board_cfg;
	uint32_t skip;
	uint16_t req_id;
	uint8_t rst_n, bme, mps, mrrs, msi, mem_bits, strict, rx_valid, rx_sop, rx_eop, rx_bar,
		tx_ready, tx_buf_av;
};

struct Tracer::Rec {
	uint64_t cycles; /* K */
	std::string path;
	bool exact;
	unsigned dumps = 0;
	std::unique_ptr<VerilatedContext> ctx;
	std::unique_ptr<RtlModel> m;
	ModelInputs smp; /* the inputs the shadow's abb_sim_top holds (model_inputs.h) */
	std::deque<In> ring;
	std::deque<LaneEv> lanes;
	std::deque<Mark> marks;
	std::string cur[LaneCount]; /* lane texts at the front of the ring */
};

static void get_in(const RtlModel &m, Tracer::In &i);

Tracer::Tracer(RtlModel &main, uint64_t half_ps) : main_(&main), half_ps_(half_ps) {}

void Tracer::rebind(RtlModel &main)
{
	file_close();
	main_ = &main;
	if (rec_) {
		/* the recorded edges belong to the old model: start again; the
		 * new model is as fresh as the new shadow (exact from here) */
		rec_->ring.clear();
		rec_->lanes.clear();
		rec_->marks.clear();
		for (std::string &c : rec_->cur)
			c.clear();
		rec_->exact = true;
		shadow_new();
	}
}

Tracer::~Tracer()
{
	file_close();
}

/* ---------- lanes ---------- */

void Tracer::set_lane_bits(RtlModel &m, unsigned l, const std::string &text)
{
	static_assert(LaneChars / 4 == RtlLaneWords && LaneCount == RtlLaneCount, "sim/rtl_model.h");
	uint32_t *v = m.lane_i[l];
	for (unsigned i = 0; i < LaneChars / 4; i++)
		v[i] = 0;
	size_t n = std::min<size_t>(text.size(), LaneChars);
	for (size_t i = 0; i < n; i++) {
		unsigned bit = 8 * (LaneChars - 1 - (unsigned)i);
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c > 0x7e)
			c = '?';
		v[bit / 32] |= (uint32_t)c << (bit % 32);
	}
}

void Tracer::lane(Lane l, const std::string &text)
{
	if (tfp_)
		set_lane_bits(*main_, l, text);
	if (rec_)
		rec_->lanes.push_back(LaneEv{edge_no_ + 1, (unsigned)l, text});
}

static void put_credits(uint32_t *w, const int32_t c[6])
{
	/* p_hdr is the top field: [95:80] */
	for (unsigned i = 0; i < 3; i++)
		w[i] = 0;
	for (unsigned f = 0; f < 6; f++) {
		uint32_t v = c[f] < 0 ? 0xffff : (uint32_t)(c[f] > 0xfffe ? 0xfffe : c[f]);
		unsigned bit = 16 * (5 - f);
		w[bit / 32] |= v << (bit % 32);
	}
}

void Tracer::credits(const int32_t up[6], const int32_t down[6])
{
	put_credits(main_->up_credits_i, up);
	put_credits(main_->down_credits_i, down);
}

void Tracer::mark(const std::string &name, uint64_t now_ps)
{
	if (tfp_)
		marks_.push_back(Mark{now_ps, name});
	if (rec_)
		rec_->marks.push_back(Mark{now_ps, name});
}

/* ---------- the file ---------- */

int Tracer::file_open(const std::string &path, uint64_t origin_ps, std::string &err)
{
	file_close();
	if (!main_->traced) {
		err = "the RTL model running has no tracing compiled in (the platform opens the "
		      "traced one when a waveform is asked for)";
		return -1;
	}
	tfp_ = new VerilatedFstC;
	main_->trace(tfp_, 99);
	tfp_->open(path.c_str());
	if (!tfp_->isOpen()) {
		delete tfp_;
		tfp_ = nullptr;
		err = "cannot open FST file " + path;
		return -1;
	}
	path_ = path;
	origin_ = origin_ps;
	last_t_ = origin_ps;
	dumped_ = 0;
	marks_.clear();
	for (unsigned l = 0; l < LaneCount; l++)
		set_lane_bits(*main_, l, "");
	return 0;
}

std::string Tracer::file_close()
{
	if (!tfp_)
		return "";
	tfp_->close();
	delete tfp_;
	tfp_ = nullptr;
	write_gtkw(path_, marks_, origin_, last_t_);
	char s[256];
	snprintf(s, sizeof s, "%llu edges", (unsigned long long)dumped_);
	return s;
}

/* ---------- per edge ---------- */

void Tracer::edge_pre(uint64_t t, uint32_t skip)
{
	edge_no_++;
	cycle_ += (uint64_t)skip + 1;
	if (tfp_) {
		main_->cycle_i = cycle_;
		last_t_ = t;
		dumped_++;
	}
	if (rec_) {
		In in;
		get_in(*main_, in);
		in.t = t;
		in.cycle = cycle_;
		in.edge = edge_no_;
		Rec &r = *rec_;
		r.ring.push_back(in);
		/* the shadow follows K cycles behind */
		while (!r.ring.empty() && r.ring.front().cycle + r.cycles < cycle_) {
			shadow_step(r.ring.front());
			r.ring.pop_front();
		}
		uint64_t keep_t = r.ring.empty() ? t : r.ring.front().t;
		while (!r.marks.empty() && r.marks.front().t + 4 * half_ps_ < keep_t)
			r.marks.pop_front();
	}
}

void Tracer::dump(uint64_t t)
{
	if (tfp_)
		tfp_->dump(t - origin_);
}

/* ---------- the flight recorder ---------- */

static void get_in(const RtlModel &m, Tracer::In &i)
{
	for (unsigned k = 0; k < 3; k++) {
		i.cred[0][k] = m.up_credits_i[k];
		i.cred[1][k] = m.down_credits_i[k];
	}
	i.rx_data = m.rx_data_i;
	i.skip = m.skip_cycles_i;
	i.board_cfg = m.board_cfg_i;
	i.req_id = m.cfg_req_id_i;
	i.rst_n = m.rst_ni;
	i.bme = m.cfg_bus_master_en_i;
	i.mps = m.cfg_max_payload_i;
	i.mrrs = m.cfg_max_read_req_i;
	i.msi = m.cfg_msi_en_i;
	i.mem_bits = m.cfg_mem_bits_i;
	i.strict = m.strict_i;
	i.rx_valid = m.rx_valid_i;
	i.rx_sop = m.rx_sop_i;
	i.rx_eop = m.rx_eop_i;
	i.rx_bar = m.rx_bar_i;
	i.tx_ready = m.tx_ready_i;
	i.tx_buf_av = m.tx_buf_av_i;
}

static void put_in(RtlModel &m, const Tracer::In &i)
{
	for (unsigned k = 0; k < 3; k++) {
		m.up_credits_i[k] = i.cred[0][k];
		m.down_credits_i[k] = i.cred[1][k];
	}
	m.rx_data_i = i.rx_data;
	m.skip_cycles_i = i.skip;
	m.board_cfg_i = i.board_cfg;
	m.cfg_req_id_i = i.req_id;
	m.rst_ni = i.rst_n;
	m.cfg_bus_master_en_i = i.bme;
	m.cfg_max_payload_i = i.mps;
	m.cfg_max_read_req_i = i.mrrs;
	m.cfg_msi_en_i = i.msi;
	m.cfg_mem_bits_i = i.mem_bits;
	m.strict_i = i.strict;
	m.rx_valid_i = i.rx_valid;
	m.rx_sop_i = i.rx_sop;
	m.rx_eop_i = i.rx_eop;
	m.rx_bar_i = i.rx_bar;
	m.tx_ready_i = i.tx_ready;
	m.tx_buf_av_i = i.tx_buf_av;
}

void Tracer::rec_arm(uint64_t cycles, const std::string &path, bool exact)
{
	if (rec_) {
		rec_->cycles = cycles;
		rec_->path = path;
		return;
	}
	rec_.reset(new Rec);
	rec_->cycles = cycles ? cycles : 1;
	rec_->path = path;
	rec_->exact = exact;
	shadow_new();
}

/* The shadow: a traced model of the clock being run (the real one may be
 * untraced: the RTL is the same), in a context of its own. */
void Tracer::shadow_new()
{
	rec_->m.reset();
	rec_->ctx.reset(new VerilatedContext);
	rec_->ctx->traceEverOn(true);
	rec_->m = make_rtl_model(rec_->ctx.get(), main_->clk_ns, "board", true);
	if (!rec_->m) { /* no traced model in this library (abbsim_open refuses that first) */
		rec_.reset();
		return;
	}
	rec_->smp = ModelInputs();
	RtlModel &s = *rec_->m;
	/* the state HardIp::select_model leaves the real model in */
	s.zero_inputs();
	s.eval();
}

void Tracer::shadow_step(const In &in)
{
	Rec &r = *rec_;
	RtlModel &s = *r.m;
	while (!r.lanes.empty() && r.lanes.front().edge <= in.edge) {
		r.cur[r.lanes.front().lane] = r.lanes.front().text;
		r.lanes.pop_front();
	}
	put_in(s, in);
	model_sample(s, r.smp);
	s.clk_i = 0;
	s.eval();
	model_sample_done(s);
	s.clk_i = 1;
	s.eval();
}

std::string Tracer::rec_dump(const std::string &why, uint64_t now_ps)
{
	if (!rec_)
		return "";
	Rec &r = *rec_;
	if (r.ring.empty())
		return "flight recorder: nothing recorded yet";
	std::string path = r.path;
	if (r.dumps) {
		size_t dot = path.rfind(".fst");
		std::string n = "-" + std::to_string(r.dumps + 1);
		path = dot == std::string::npos ? path + n : path.substr(0, dot) + n + path.substr(dot);
	}
	r.dumps++;
	r.marks.push_back(Mark{now_ps, "trigger: " + why});
	RtlModel &s = *r.m;
	VerilatedFstC f;
	s.trace(&f, 99);
	f.open(path.c_str());
	if (!f.isOpen())
		return "flight recorder: cannot open " + path;
	uint64_t first_cycle = r.ring.front().cycle;
	uint64_t origin = r.ring.front().t - (r.ring.front().skip + 1) * 2 * half_ps_;
	if (r.ring.front().t < (r.ring.front().skip + 1) * 2 * half_ps_ + half_ps_)
		origin = 0;
	for (unsigned l = 0; l < LaneCount; l++)
		set_lane_bits(s, l, r.cur[l]);
	uint64_t edges = 0, t_end = origin;
	for (const In &in : r.ring) {
		while (!r.lanes.empty() && r.lanes.front().edge <= in.edge) {
			r.cur[r.lanes.front().lane] = r.lanes.front().text;
			set_lane_bits(s, r.lanes.front().lane, r.lanes.front().text);
			r.lanes.pop_front();
		}
		put_in(s, in);
		s.cycle_i = in.cycle;
		model_sample(s, r.smp);
		s.clk_i = 0;
		s.eval();
		model_sample_done(s);
		f.dump(in.t - half_ps_ - origin);
		s.clk_i = 1;
		s.eval();
		f.dump(in.t - origin);
		edges++;
		t_end = in.t;
	}
	/* lane texts posted after the last edge (the trigger's own) */
	while (!r.lanes.empty()) {
		r.cur[r.lanes.front().lane] = r.lanes.front().text;
		set_lane_bits(s, r.lanes.front().lane, r.lanes.front().text);
		r.lanes.pop_front();
	}
	t_end += 2 * half_ps_;
	f.dump(t_end - half_ps_ - origin);
	f.close();
	uint64_t cycles = r.ring.back().cycle - first_cycle + 1;
	r.ring.clear();
	std::vector<Mark> marks(r.marks.begin(), r.marks.end());
	r.marks.clear();
	write_gtkw(path, marks, origin, t_end);
	char s2[512];
	snprintf(s2, sizeof s2, "flight recorder: %s: wrote %s (%llu cycles, %llu edges, cycles %llu..%llu%s)",
		 why.c_str(), path.c_str(), (unsigned long long)cycles, (unsigned long long)edges,
		 (unsigned long long)first_cycle, (unsigned long long)(first_cycle + cycles - 1),
		 r.exact ? "" : "; armed after the first open: board memory may differ");
	dumped_ = edges;
	return s2;
}

/* ---------- the GTKWave save file ---------- */

void Tracer::write_gtkw(const std::string &fst, const std::vector<Mark> &marks, uint64_t origin,
			uint64_t t_end)
{
	std::string gtkw = fst;
	size_t dot = gtkw.rfind(".fst");
	gtkw = (dot == std::string::npos ? gtkw : gtkw.substr(0, dot)) + ".gtkw";
	FILE *f = fopen(gtkw.c_str(), "w");
	if (!f)
		return;
	/* named markers: up to 26, A..Z, in time order */
	std::vector<Mark> ms;
	for (const Mark &m : marks)
		if (m.t >= origin && ms.size() < 26)
			ms.push_back(Mark{m.t - origin, m.name});
	fprintf(f, "[*] GTKWave save file written by the ABB simulator (sim/trace.cpp) with\n"
		   "[*] %s: signal groups, text lanes (ASCII) and markers at each DMA.\n",
		fst.c_str());
	size_t slash = fst.rfind('/');
	fprintf(f, "[dumpfile] \"%s\"\n", slash == std::string::npos ? fst.c_str() : fst.c_str() + slash + 1);
	fprintf(f, "[savefile] \"%s\"\n", gtkw.c_str() + (gtkw.rfind('/') == std::string::npos ? 0 : gtkw.rfind('/') + 1));
	/* view: from just before the first marker, the first DMA (two
	 * markers) or the whole window over the wave pane (~1000 pixels;
	 * GTKWave 3.3 shows about 2^(-z) / 200 ps per pixel at zoom z,
	 * measured) */
	uint64_t span = t_end > origin ? t_end - origin : 1, start = 0;
	if (ms.size() >= 2 && ms[1].t > ms[0].t + 200 * half_ps_)
		span = (ms[1].t - ms[0].t) * 11 / 10 + 1;
	else if (!ms.empty() && span > 1000 * half_ps_)
		span = 1000 * half_ps_; /* markers at the end (a trigger): its last 500 cycles */
	if (!ms.empty())
		start = ms[0].t > span / 20 ? ms[0].t - span / 20 : 0;
	if (!ms.empty() && ms[0].t + span / 2 > t_end - origin)
		start = ms[0].t > span * 19 / 20 ? ms[0].t - span * 19 / 20 : 0;
	double zoom = 0.0;
	for (double px = (double)span * 200.0 / 1000.0; px > 1.0; px /= 2)
		zoom -= 1.0;
	fprintf(f, "[timestart] %llu\n[size] 1600 1300\n[pos] -1 -1\n", (unsigned long long)start);
	fprintf(f, "*%.6f %lld", zoom, ms.empty() ? -1LL : (long long)ms[0].t);
	for (unsigned i = 0; i < 26; i++)
		fprintf(f, " %lld", i < ms.size() ? (long long)ms[i].t : -1LL);
	fprintf(f, "\n");
	for (unsigned i = 0; i < ms.size(); i++) {
		std::string n = ms[i].name;
		for (char &c : n)
			if (c == '\n')
				c = ' ';
		fprintf(f, "[markername] %c%s\n", 'A' + i, n.c_str());
	}
	fprintf(f, "[sst_width] 220\n[signals_width] 330\n[sst_expanded] 1\n[sst_vpaned_height] 300\n");
	const char *T = "board.abb_sim_top.";
	const char *U = "board.abb_sim_top.u_abb.";
	auto grp = [&](const char *name) { fprintf(f, "@800200\n-%s\n", name); };
	auto end = [&](const char *name) { fprintf(f, "@1000200\n-%s\n", name); };
	auto sig = [&](const char *fmt, const char *pre, const char *s) { fprintf(f, "@%s\n%s%s\n", fmt, pre, s); };
	/* formats: 28 binary, 22 hex, 24 decimal, 800 ASCII; 100000028: by the
	 * enum table Verilator wrote into the FST (names); 2024: by the
	 * translate filter file ^1 (STA's BUSY/DONE) */
	std::string filt = gtkw.substr(0, gtkw.size() - 5) + ".sta.txt";
	if (FILE *ff = fopen(filt.c_str(), "w")) {
		fprintf(ff, "0 -\n1 DONE\n2 BUSY\n3 DONE+BUSY(error)\n");
		fclose(ff);
	}
	fprintf(f, "^1 %s\n", filt.c_str());
	const char *E = "100000028", *STA = "2024";
	sig("28", T, "clk_i");
	sig("24", T, "cycle_i[63:0]");
	grp("text lanes");
	sig("800", T, "lane_api_i[767:0]");
	sig("800", T, "lane_tlp_down_i[767:0]");
	sig("800", T, "lane_tlp_up_i[767:0]");
	sig("800", T, "lane_desc_i[767:0]");
	sig("800", T, "lane_irq_i[767:0]");
	sig("800", T, "lane_err_i[767:0]");
	end("text lanes");
	grp("registers");
	sig("28", T, "rst_ni");
	sig("22", U, "u_regs.isr_q[2:0]");
	sig("22", U, "u_regs.ier_q[2:0]");
	sig("22", U, "u_regs.ger_q[6:0]");
	end("registers");
	grp("C2H channel (1, DMA read)");
	sig(E, U, "u_c2h_ctl.state_q[2:0]");
	sig(E, U, "u_c2h_ctl.fst_q[2:0]");
	sig(STA, U, "u_c2h_ctl.sta_q[1:0]");
	sig("22", U, "u_c2h_ctl.leng_q[31:0]");
	end("C2H channel (1, DMA read)");
	grp("H2C channel (0, DMA write)");
	sig(E, U, "u_h2c_ctl.state_q[2:0]");
	sig(E, U, "u_h2c_ctl.fst_q[2:0]");
	sig(STA, U, "u_h2c_ctl.sta_q[1:0]");
	sig("22", U, "u_h2c_ctl.leng_q[31:0]");
	end("H2C channel (0, DMA write)");
	grp("movers");
	sig(E, U, "u_c2h_mv.state_q[1:0]");
	sig("24", U, "u_c2h_mv.rem_q[29:0]");
	sig(E, U, "u_h2c_mv.state_q[1:0]");
	sig("22", U, "u_h2c_mv.out_q[15:0]");
	end("movers");
	grp("TLP out (board to host)");
	sig(E, U, "u_pio.state_q[1:0]");
	sig("28", T, "tx_valid_o");
	sig("28", T, "tx_ready_i");
	sig("28", T, "tx_sop_o");
	sig("28", T, "tx_eop_o");
	sig("22", T, "tx_data_o[63:0]");
	sig(E, T, "tx_hdr.fmt_type[7:0]");
	sig("24", T, "tx_hdr.length_dw[9:0]");
	sig("22", T, "tx_hdr.tag[7:0]");
	sig("24", T, "tx_cpl.byte_count[11:0]");
	end("TLP out (board to host)");
	grp("TLP in (host to board)");
	sig(E, U, "u_rx.state_q[2:0]");
	sig(E, U, "u_rx.kind_q[1:0]");
	sig("28", T, "rx_valid_i");
	sig("28", T, "rx_ready_o");
	sig("28", T, "rx_sop_i");
	sig("28", T, "rx_eop_i");
	sig("22", T, "rx_data_i[63:0]");
	sig(E, T, "rx_hdr.fmt_type[7:0]");
	sig("24", T, "rx_hdr.length_dw[9:0]");
	sig(E, T, "rx_cpl.status[2:0]");
	sig("24", T, "rx_cpl.byte_count[11:0]");
	end("TLP in (host to board)");
	grp("credits");
	for (const char *d : {"up_free", "down_free"})
		for (const char *fl : {"p_hdr", "p_data", "np_hdr", "np_data", "cpl_hdr", "cpl_data"}) {
			char nm[64];
			snprintf(nm, sizeof nm, "%s.%s[15:0]", d, fl);
			sig("22", T, nm);
		}
	sig("24", T, "tx_buf_av_i[5:0]");
	end("credits");
	grp("interrupts");
	sig("28", T, "irq_o");
	sig("28", T, "idle_o");
	end("interrupts");
	fprintf(f, "[pattern_trace] 1\n[pattern_trace] 0\n");
	fclose(f);
}

} // namespace abbsim
#endif
