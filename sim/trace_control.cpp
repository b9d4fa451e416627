/*
 * trace_control.cpp - the waveform's windows, the TLP log, the flight
 * recorder's triggers and the text lanes (trace_control.h).
 */
#include "trace_control.h"

#include <cerrno>
#include <cstring>

namespace abbsim {

TraceControl::TraceControl(HardIp &hip, const CfgSpace &cfg, const DeviceClock &clk)
	: hip_(hip), cfg_(cfg), clk_(clk), tracer_(new Tracer(hip.model(), hip.half_ps))
{
}

TraceControl::~TraceControl()
{
	finish();
	if (tlp_log_)
		fclose(tlp_log_);
}

/* ---------- windows ---------- */

int TraceControl::cycle_window(const std::string &path, uint64_t from, uint64_t to, std::string &err)
{
	if (to && to <= from) {
		err = "trace window is empty: to_cycle must be 0 or greater than from_cycle";
		return -EINVAL;
	}
	if (to && to <= clk_.cycle) {
		err = "trace window [" + std::to_string(from) + ", " + std::to_string(to) +
		      ") has passed: the board is at cycle " + std::to_string(clk_.cycle) +
		      " (cycles count from the open; to_cycle 0: until close)";
		return -EINVAL;
	}
	if (!hip_.rtl_traced()) {
		err = rtl_traced_available()
			      ? "the board was opened with the RTL model without tracing (the faster "
				"one): to start a waveform during a run, open it with "
				"ABB_SIM_TRACEABLE=1 (URI option traceable=1), or ask for the "
				"waveform at open (ABB_TRACE=file.fst or the URI option trace=)"
			      : "this libabbsim has no traced RTL model (built with SIM_TRACE=0)";
		return -ENOTSUP;
	}
	if (tracer_->file_on())
		file_close("a new trace");
	win_ = WinCycles;
	win_key_.clear();
	path_ = path;
	from_ = from;
	to_ = to;
	if (from <= clk_.cycle) {
		if (tracer_->file_open(path, clk_.epoch, err))
			return -EIO;
		win_t0_ = std::chrono::steady_clock::now();
		tracer_->set_cycle(clk_.cycle);
		update();
		switch_ = to ? to : UINT64_MAX;
	} else {
		switch_ = from;
	}
	return 0;
}

void TraceControl::content_window(const std::string &path, uint64_t dma_from, uint64_t dma_to,
				  const std::string &test)
{
	std::string key = path + "|" + std::to_string(dma_from) + "-" + std::to_string(dma_to) + "|" + test;
	if (key == win_key_)
		return;
	if (tracer_->file_on())
		file_close("window changed");
	win_key_ = key;
	win_ = dma_from ? WinDma : WinTest;
	path_ = path;
	win_dma_from_ = dma_from;
	win_dma_to_ = dma_to;
	win_test_ = test;
	dma_count_ = 0;
	win_done_ = false;
}

void TraceControl::switch_window()
{
	if (!tracer_->file_on()) {
		file_open("cycle window");
		switch_ = to_ ? to_ : UINT64_MAX;
	} else {
		file_close("cycle window end");
		switch_ = UINT64_MAX;
	}
}

/* The Tracer has work per edge (a file open, the recorder armed), or the
 * TLP log is open: then the hard IP reports every TLP (log_tlp). */
void TraceControl::update()
{
	tr_ = tracer_->active() ? tracer_.get() : nullptr;
	hip_.tr = tr_;
	if (tlp_log_ || tr_)
		hip_.log = [this](const char *dir, const Tlp &t, uint64_t now) { log_tlp(dir, t, now); };
	else
		hip_.log = nullptr;
}

void TraceControl::file_open(const char *why)
{
	std::string err;
	if (tracer_->file_on())
		return;
	if (tracer_->file_open(path_, clk_.epoch, err)) {
		if (on_error)
			on_error("trace: " + err);
		return;
	}
	win_t0_ = std::chrono::steady_clock::now();
	win_c0_ = clk_.cycle;
	tracer_->set_cycle(clk_.cycle);
	update();
	(void)why;
}

void TraceControl::file_close(const char *why)
{
	if (!tracer_->file_on())
		return;
	std::string sum = tracer_->file_close();
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - win_t0_).count();
	FILE *f = fopen(path_.c_str(), "rb");
	long size = -1;
	if (f && !fseek(f, 0, SEEK_END))
		size = ftell(f);
	if (f)
		fclose(f);
	fprintf(stderr, "abbsim: trace (%s): wrote %s: %ld bytes, cycles %llu..%llu, %s, "
		"%.3f s of wall-clock time while the window was open\n", why, path_.c_str(), size,
		(unsigned long long)win_c0_, (unsigned long long)clk_.cycle, sum.c_str(), s);
	if (win_ != WinCycles)
		win_done_ = true;
	update();
}

void TraceControl::board_closed()
{
	if (win_ == WinCycles && tracer_->file_on())
		file_close("closed");
	switch_ = UINT64_MAX;
	if (tlp_log_) {
		fclose(tlp_log_);
		tlp_log_ = nullptr;
		update();
	}
}

void TraceControl::finish()
{
	if (tracer_->file_on())
		file_close("finished");
}

/* ---------- the flight recorder ---------- */

void TraceControl::arm_recorder(uint64_t k, const std::string &trace_path, bool with_window, bool exact)
{
	std::string rp = trace_path;
	if (with_window) {
		size_t dot = rp.rfind(".fst");
		rp = (dot == std::string::npos ? rp : rp.substr(0, dot)) + "-error.fst";
	}
	tracer_->rec_arm(k, rp, exact);
	update();
}

void TraceControl::rec_trigger(const std::string &why)
{
	if (!tracer_->rec_on() || rec_dumps_ >= 8)
		return;
	rec_dumps_++;
	auto t0 = std::chrono::steady_clock::now();
	std::string s = tracer_->rec_dump(why, clk_.now);
	double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	fprintf(stderr, "abbsim: %s; %.3f s to write\n", s.c_str(), sec);
}

/* ---------- notes from the host ---------- */

void TraceControl::note(unsigned kind, unsigned channel, const std::string &text)
{
	switch (kind) {
	case ABB_SIM_NOTE_DMA_START:
		dma_count_++;
		dma_num_[channel] = dma_count_;
		if (win_ == WinDma && !win_done_ && dma_count_ == win_dma_from_)
			file_open("DMA window");
		if (tr_) {
			tr_->lane(LaneApi, text);
			tr_->mark("DMA " + std::to_string(dma_count_) + " start: " + text, clk_.now);
		}
		break;
	case ABB_SIM_NOTE_DMA_DONE:
	case ABB_SIM_NOTE_DMA_ERROR: {
		/* which DMA ended: the last started on its channel (a failing
		 * call that started none: the last of the run) */
		auto it = dma_num_.find(channel);
		uint64_t num = it != dma_num_.end() ? it->second : dma_count_;
		if (tr_) {
			tr_->lane(LaneApi, text);
			tr_->mark("DMA " + std::to_string(num) + " end: " + text, clk_.now);
		}
		if (kind == ABB_SIM_NOTE_DMA_ERROR)
			rec_trigger("DMA error: " + text);
		if (win_ == WinDma && tracer_->file_on() && num >= win_dma_to_)
			file_close("DMA window end");
		break;
	}
	case ABB_SIM_NOTE_TEST_BEGIN:
		if (win_ == WinTest && !win_done_ && text == win_test_)
			file_open("test");
		if (tr_) {
			tr_->lane(LaneApi, "test " + text);
			tr_->mark("test " + text, clk_.now);
		}
		break;
	case ABB_SIM_NOTE_TEST_PASS:
	case ABB_SIM_NOTE_TEST_FAIL:
		if (tr_) {
			std::string s = (kind == ABB_SIM_NOTE_TEST_FAIL ? "FAILED test " : "passed test ") + text;
			tr_->lane(LaneApi, s);
			tr_->mark(s, clk_.now);
		}
		if (kind == ABB_SIM_NOTE_TEST_FAIL)
			rec_trigger("test failed: " + text);
		if (win_ == WinTest && tracer_->file_on() && text == win_test_)
			file_close("test end");
		break;
	default:
		if (tr_)
			tr_->lane(LaneApi, text);
	}
}

/* ---------- the TLP log and the lanes ---------- */

int TraceControl::log_open(const std::string &path, const abbsim_params &p, const Enumerated &bars,
			   std::string &err)
{
	if (tlp_log_)
		fclose(tlp_log_);
	tlp_log_ = fopen(path.c_str(), "w");
	if (!tlp_log_) {
		err = "cannot open TLP log " + path + ": " + strerror(errno);
		update();
		return -errno;
	}
	fprintf(tlp_log_, "# cycle time_ns dir TLP (gen %u x%u, MPS %u, MRRS %u, RCB %u, cpl=%s, %u MHz)\n",
		p.gen, p.lanes, bars.mps, bars.mrrs, p.rcb, p.cpl_rcb ? "rcb" : "mps", p.clk_mhz);
	update();
	hip_.stim_mark(clk_.cycle, clk_.cycle_of(clk_.now));
	return 0;
}

void TraceControl::lane_tlp(const char *dir, const Tlp &t)
{
	bool up = dir[0] == 'u';
	std::string d = t.describe();
	TlpKind k = t.kind();
	tr_->lane(up ? LaneTlpUp : LaneTlpDown, d);
	char b[200];
	if (up && k == TlpKind::MRd && (t.req_tag() == 0x80 || t.req_tag() == 0x81)) {
		snprintf(b, sizeof b, "%s fetches the descriptor at 0x%llx",
			 t.req_tag() == 0x80 ? "C2H (DMA read)" : "H2C (DMA write)",
			 (unsigned long long)t.addr());
		tr_->lane(LaneDesc, b);
	} else if (!up && (k == TlpKind::Cpl || k == TlpKind::CplD) &&
		   (t.cpl_tag() == 0x80 || t.cpl_tag() == 0x81)) {
		const char *ch = t.cpl_tag() == 0x80 ? "C2H" : "H2C";
		if (t.cpl_status() != CplSC || t.data.size() < 8) {
			snprintf(b, sizeof b, "%s descriptor fetch failed: %s", ch, d.c_str());
		} else {
			const auto &w = t.data; /* PAH PAL HAH HAL BDAH BDAL LENG CTRL */
			snprintf(b, sizeof b, "%s descriptor: board 0x%x host 0x%llx len %u next 0x%llx ctrl 0x%x",
				 ch, (unsigned)w[1], (unsigned long long)(((uint64_t)w[2] << 32) | w[3]),
				 (unsigned)w[6], (unsigned long long)(((uint64_t)w[4] << 32) | w[5]),
				 (unsigned)w[7]);
		}
		tr_->lane(LaneDesc, b);
	}
	if (up && k == TlpKind::Msg)
		tr_->lane(LaneIrq, d);
	else if (up && k == TlpKind::MWr && cfg_.msi_enabled() && t.addr() == (cfg_.msi_addr() & ~3ull))
		tr_->lane(LaneIrq, "MSI " + d);
}

void TraceControl::log_tlp(const char *dir, const Tlp &t, uint64_t now)
{
	if (tr_)
		lane_tlp(dir, t);
	if (!tlp_log_)
		return;
	uint64_t rel = now - clk_.epoch;
	fprintf(tlp_log_, "%10llu %10llu.%03llu %-4s %s\n", (unsigned long long)clk_.cycle_of(now),
		(unsigned long long)(rel / 1000), (unsigned long long)(rel % 1000), dir,
		t.describe().c_str());
}

void TraceControl::fault_note(unsigned dir, const std::string &what, uint64_t now)
{
	if (tr_)
		tr_->lane(LaneErr, std::string("FAULT ") + (dir ? "up " : "down ") + what);
	if (!tlp_log_)
		return;
	uint64_t rel = now > clk_.epoch ? now - clk_.epoch : 0;
	fprintf(tlp_log_, "%10llu %10llu.%03llu %-4s FAULT %s\n", (unsigned long long)clk_.cycle_of(now),
		(unsigned long long)(rel / 1000), (unsigned long long)(rel % 1000), dir ? "up" : "down",
		what.c_str());
}

void TraceControl::iommu_fault(const abbsim_fault &f)
{
	if (tr_) {
		char b[160];
		snprintf(b, sizeof b, "IOMMU fault: %s iova 0x%llx len %u (%s)", f.is_write ? "write" : "read",
			 (unsigned long long)f.iova, f.len, f.is_write ? "dropped" : "answered UR");
		tr_->lane(LaneErr, b);
	}
}

void TraceControl::violation(const std::string &s)
{
	if (tlp_log_)
		fprintf(tlp_log_, "# violation: %s\n", s.c_str());
	if (tr_) {
		tr_->lane(LaneErr, s);
		rec_trigger("protocol error: " + s);
	}
}

void TraceControl::error_note(const std::string &msg)
{
	if (tlp_log_)
		fprintf(tlp_log_, "# %s\n", msg.c_str());
	if (tr_)
		tr_->lane(LaneErr, msg);
}

} // namespace abbsim
