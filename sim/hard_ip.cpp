/*
 * hard_ip.cpp - the RTL port: per-edge beat exchange with the Verilator
 * model (kept small: it is the simulator's hot path), TLP-level handling
 * out of line.
 */
#include <algorithm>
#include "hard_ip.h"

#include "verilated.h"

#if VM_COVERAGE
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include "verilated_cov.h"
#endif

namespace abbsim {

#if VM_COVERAGE
/* Coverage build (make coverage): the RTL model's coverage counters are
 * written to <coverage>.<pid>.<n>.dat (abbsim_record.coverage of the last
 * open that gave one; nothing before) when the
 * process exits and before a model is replaced (another clock), then
 * cleared (the points belong to the RTL model being destroyed); make coverage
 * merges the files only after the bench passed. */
static VerilatedContext *cov_ctx;
static std::string cov_base;

static void cov_write()
{
	static unsigned seq;
	char path[4096];

	if (!cov_ctx || cov_base.empty())
		return;
	snprintf(path, sizeof path, "%s.%ld.%u.dat", cov_base.c_str(), (long)getpid(), seq++);
	cov_ctx->coveragep()->write(path);
}
#endif

HardIp::HardIp(EventQueue &q, Link &up, Link &down, CfgSpace &cfg)
	: q_(q), up_(up), down_(down), cfg_(cfg)
{
	ctx_.reset(new VerilatedContext);
	ctx_->traceEverOn(true);
#if VM_COVERAGE
	if (!cov_ctx)
		atexit(cov_write);
	cov_ctx = ctx_.get();
#endif
	select_model(125, false);
}

bool HardIp::select_model(unsigned clk_mhz, bool traced)
{
	unsigned ns = abbsim::rtl_clk_ns(clk_mhz);
	if (top_ && top_->clk_ns == ns && top_->traced == traced)
		return true;
	if (traced && !rtl_traced_available())
		return false;
	if (top_)
		top_->final();
#if VM_COVERAGE
	if (top_ && cov_ctx == ctx_.get()) {
		cov_write();
		ctx_->coveragep()->clear();
	}
#endif
	top_.reset();
	top_ = make_rtl_model(ctx_.get(), ns, "board", traced);
	inputs_ = ModelInputs(); // the new model has sampled nothing yet
	stale_ = false;
	top_->zero_inputs();
	top_->eval();
	return true;
}

unsigned HardIp::rtl_clk_ns() const { return top_->clk_ns; }
bool HardIp::rtl_traced() const { return top_->traced; }

HardIp::~HardIp()
{
#if VM_COVERAGE
	if (cov_ctx == ctx_.get()) {
		cov_write();
		cov_ctx = nullptr;
	}
#endif
	top_->final();
}

void HardIp::set_record(const std::string &stim_path, const std::string &coverage_base)
{
	stim_path_ = stim_path;
#if VM_COVERAGE
	if (!coverage_base.empty())
		cov_base = coverage_base;
#else
	(void)coverage_base;
#endif
}

void HardIp::reset()
{
	if (stale_)
		refresh(); /* the outputs as without the deferred pass */
	rx_.clear();
	rx_beat_ = 0;
	tx_beats_.clear();
	tx_in_tlp_ = tx_valid_ = false;
	irq_after_tlp_.clear();
	irq_lvl_ = intx_on_ = false;
	cfg_.set_int_status(false);
	top_->rx_valid_i = 0;
	top_->tx_ready_i = 0;
	std::string err;
	rec_.reset(StimRec::create(stim_path_, err));
	rec_irq_ = false;
	if (!err.empty() && violation)
		violation(err);
}

void HardIp::stim_in()
{
	const RtlModel &m = *top_;
	StimIn s{};
	s.rst_n = m.rst_ni;
	s.bm = m.cfg_bus_master_en_i;
	s.mps = m.cfg_max_payload_i;
	s.mrrs = m.cfg_max_read_req_i;
	s.reqid = m.cfg_req_id_i;
	s.msi = m.cfg_msi_en_i;
	s.membits = m.cfg_mem_bits_i;
	s.strict = m.strict_i;
	s.rxv = m.rx_valid_i;
	if (s.rxv) {
		s.sop = m.rx_sop_i;
		s.eop = m.rx_eop_i;
		s.bar = m.rx_bar_i;
		s.rxdata = m.rx_data_i;
	}
	s.txready = m.tx_ready_i;
	s.bufav = m.tx_buf_av_i;
	s.skip = m.skip_cycles_i;
	rec_->in(s);
}

void HardIp::set_reset(bool active)
{
	top_->rst_ni = active ? 0 : 1;
	in_reset_ = active;
}

void HardIp::set_strict(bool on) { top_->strict_i = on; }

void HardIp::set_board_cfg(uint64_t w) { top_->board_cfg_i = w; }

void HardIp::apply_cfg(uint64_t now)
{
	mem_en_ = cfg_.mem_enabled();
	master_ = cfg_.bus_master();
	msi_en_ = cfg_.msi_enabled();
	intx_dis_ = cfg_.intx_disabled();
	for (unsigned i = 0; i < 2; i++) {
		bar_lo_[i] = cfg_.bar_addr(i);
		bar_sz_[i] = cfg_.bar_size(i);
	}
	msi_addr_ = cfg_.msi_addr();
	msi_data_ = cfg_.msi_data();
	bdf_ = cfg_.bdf();
	top_->cfg_bus_master_en_i = master_;
	top_->cfg_max_payload_i = cfg_.mps_code();
	top_->cfg_max_read_req_i = cfg_.mrrs_code();
	top_->cfg_req_id_i = bdf_;
	top_->cfg_msi_en_i = msi_en_;
	/* BAR1 size; TLP-STREAM.md: only changes while rst_ni is low (open). */
	top_->cfg_mem_bits_i = (uint8_t)__builtin_ctz(bar_sz_[1]);
	irq_update(irq_lvl_, now);
}

void HardIp::on_downstream(Tlp &&t, uint64_t now)
{
	unsigned bar = 0;
	TlpKind k = t.kind();
	if (k == TlpKind::MRd || k == TlpKind::MWr) {
		uint64_t a = t.addr();
		bool hit = false;
		for (unsigned i = 0; i < 2 && mem_en_; i++)
			if (a >= bar_lo_[i] && a < (uint64_t)bar_lo_[i] + bar_sz_[i]) {
				bar = i;
				hit = true;
				break;
			}
		if (!hit) {
			/* Unsupported request (no BAR as programmed decodes the
			 * address, or memory decode is off): a read gets a UR
			 * completion from the hard block, a write is dropped; the
			 * RTL never sees either; Device Status records it. */
			cfg_.set_ur_detected();
			if (log)
				log("down", t, now);
			down_.consumed(t.fc_class(), t.data_credits(), now);
			if (k == TlpKind::MRd) {
				Tlp c = make_cpl(bdf_, CplUR, t.byte_span(), t.req_id(), t.req_tag(),
						 (unsigned)(t.first_byte_addr() & 0x7f), nullptr, 0);
				if (log)
					log("up", c, now);
				up_.submit(std::move(c), now);
			}
			return;
		}
	} else if (k != TlpKind::Cpl && k != TlpKind::CplD) {
		down_.consumed(t.fc_class(), t.data_credits(), now);
		if (violation)
			violation("hard IP: unsupported downstream TLP dropped: " + t.describe());
		return;
	}
	t.bar = bar;
	rx_.push_back(std::move(t));
}

bool HardIp::tx_accept() const
{
	return up_.unsent_bytes() < TxBufferBytes;
}

uint8_t HardIp::tx_buf_av() const
{
	size_t used = std::min(up_.unsent_bytes(), TxBufferBytes);

	return (uint8_t)std::min<size_t>(63, (TxBufferBytes - used) / 128);
}

void HardIp::edge(uint64_t t, uint32_t skip)
{
	RtlModel &m = *top_;
	const Tlp *rx = rx_.empty() ? nullptr : &rx_.front();
	/* the deferred pass (below): the last edge's outputs are needed now
	 * only under back-pressure (ready then follows tx_valid_o) */
	if (stale_ && !tx_in_tlp_ && !tx_accept()) {
		refresh();
		tx_valid_ = m.tx_valid_o;
	}
	if (rx) {
		m.rx_valid_i = 1;
		m.rx_sop_i = rx_beat_ == 0;
		m.rx_eop_i = rx_beat_ + 1 == beat_count(*rx);
		m.rx_data_i = beat(*rx, rx_beat_);
		m.rx_bar_i = rx->bar;
	} else {
		m.rx_valid_i = 0;
	}
	/* the model's outputs are the last edge's, but while stale_ (they are
	 * older then, and not needed: ready is 1) */
	if (!stale_)
		tx_valid_ = m.tx_valid_o;
	bool ready = tx_in_tlp_ || !tx_valid_ || tx_accept();
	m.tx_ready_i = ready;
	m.tx_buf_av_i = tx_buf_av();
	m.skip_cycles_i = skip;
	model_sample(m, inputs_, stale_); // sim/model_inputs.h
	stale_ = false;
	if (rec_)
		stim_in();
#ifndef ABBSIM_NO_TRACE
	if (tr)
		tr->edge_pre(t, skip);
#endif
	m.clk_i = 0;
	/* (nothing to evaluate in the clock-low eval without a sample, no
	 * waveform: a deferrable model skips it) */
	if (!(m.deferrable && !m.smp_i && !rec_
#ifndef ABBSIM_NO_TRACE
	      && !tr
#endif
	      && m.clock_low_idle()))
		m.run();
	model_sample_done(m);
#ifndef ABBSIM_NO_TRACE
	if (tr)
		tr->dump(t - half_ps);
#endif
	/* Deferred combinational pass (sim/defer_comb.py): a model edited for
	 * it (untraced, no assertions), with nothing recorded and no waveform,
	 * may leave out the pass after the clock edge; the next clock-low
	 * eval evaluates the logic (forced sample). The stream's valid is
	 * then the one abb_top's arbiter has at the edge (the same as after
	 * the last edge unless it followed an input). */
	const bool defer = m.deferrable && !rec_
#ifndef ABBSIM_NO_TRACE
			   && !tr
#endif
		;
	if (defer)
		tx_valid_ = m.tx_valid_o;
	bool quiet_pre = defer && m.quiet_o;
	bool rx_fire = rx && m.rx_ready_o;
	bool tx_fire = tx_valid_ && ready;
	uint64_t tx_data = m.tx_data_o;
	bool tx_sop = m.tx_sop_o, tx_eop = m.tx_eop_o;
	bool irq = m.irq_o;
	m.clk_i = 1;
	m.defer_i = defer;
	m.run();
	m.defer_i = 0;
#ifndef ABBSIM_NO_TRACE
	if (tr)
		tr->dump(t);
#endif
	if (defer && !quiet_pre) {
		/* idle_o = quiet && quiet_q, and quiet_q now holds quiet_pre:
		 * idle_o is 0 without evaluating */
		stale_ = true;
		idle_o_ = false;
	} else {
		/* idle_o may have risen: its value needs the pass */
		if (defer)
			refresh();
		idle_o_ = m.idle_o;
		tx_valid_ = m.tx_valid_o;
	}
	if (rec_) {
		if (tx_fire)
			rec_->tx(tx_sop, tx_eop, tx_data);
		if (irq != rec_irq_)
			rec_->irq(rec_irq_ = irq);
	}
	if (rx_fire && ++rx_beat_ == beat_count(*rx))
		rx_done(t);
	if (tx_fire)
		tx_beat(tx_data, tx_sop, tx_eop, t);
	if (irq != irq_lvl_ && !in_reset_)
		irq_update(irq, t);
}

/* The combinational pass left out after the last clock edge, now: the
 * inputs reloaded (unchanged) by a strobe of smp_i, which evaluates the
 * logic, then smp_i low again (seen by an eval, so that the next strobe is
 * an edge; that eval triggers nothing). */
void HardIp::refresh()
{
	RtlModel &m = *top_;
	m.smp_i = 1;
	m.run();
	m.smp_i = 0;
	m.run();
	stale_ = false;
}

void HardIp::rx_done(uint64_t now)
{
	const Tlp &t = rx_.front();
	if (log)
		log("down", t, now);
	down_.consumed(t.fc_class(), t.data_credits(), now);
	rx_.pop_front();
	rx_beat_ = 0;
}

void HardIp::tx_beat(uint64_t data, bool sop, bool eop, uint64_t now)
{
	if (sop && tx_in_tlp_ && violation)
		violation("hard IP: start of packet inside a TLP; the partial TLP is dropped");
	if (sop)
		tx_beats_.clear();
	else if (!tx_in_tlp_) {
		if (violation)
			violation("hard IP: TX beat without start of packet dropped");
		return;
	}
	tx_beats_.push_back(data);
	tx_in_tlp_ = !eop;
	if (eop)
		tx_tlp(now);
}

void HardIp::tx_tlp(uint64_t now)
{
	Tlp t;
	std::string why;
	if (!from_beats(tx_beats_, t, why)) {
		if (violation)
			violation("hard IP: malformed TLP from the RTL dropped: " + why);
	} else if ((t.kind() == TlpKind::MRd || t.kind() == TlpKind::MWr) && !master_) {
		if (violation)
			violation("hard IP: request sent while bus mastering is disabled, dropped: " +
				  t.describe());
	} else {
		if (log)
			log("up", t, now);
		up_.submit(std::move(t), now);
	}
	tx_beats_.clear();
	for (IrqMsg m : irq_after_tlp_)
		irq_send(m, now);
	irq_after_tlp_.clear();
}

void HardIp::irq_update(bool level, uint64_t now)
{
	bool rise = level && !irq_lvl_;
	irq_lvl_ = level;
	cfg_.set_int_status(level);
	if (msi_en_) {
		/* MSI enabled: the function uses no INTx (a line left asserted
		 * when MSI was enabled is deasserted); one MSI per rising edge. */
		if (intx_on_) {
			intx_on_ = false;
			irq_emit(IrqDeassert, now);
		}
		if (rise)
			irq_emit(IrqMsi, now);
		return;
	}
	bool want = level && !intx_dis_;
	if (want != intx_on_) {
		intx_on_ = want;
		irq_emit(want ? IrqAssert : IrqDeassert, now);
	}
}

void HardIp::irq_emit(IrqMsg m, uint64_t now)
{
	/* Posted, behind every TLP already accepted from the RTL: the message
	 * never passes the data whose completion it reports. */
	if (tx_in_tlp_)
		irq_after_tlp_.push_back(m);
	else
		irq_send(m, now);
}

void HardIp::irq_send(IrqMsg m, uint64_t now)
{
	Tlp t;
	if (m == IrqMsi) {
		if (!master_) {
			if (violation)
				violation("hard IP: interrupt while bus mastering is disabled, no MSI sent");
			return;
		}
		uint8_t d[4] = {(uint8_t)msi_data_, (uint8_t)(msi_data_ >> 8), 0, 0};
		t = make_mem(true, msi_addr_, 4, bdf_, 0, d);
	} else {
		t = make_msg(m == IrqAssert ? MsgAssertIntA : MsgDeassertIntA, MsgRouteLocal, bdf_);
	}
	if (log)
		log("up", t, now);
	up_.submit(std::move(t), now);
}

} // namespace abbsim
