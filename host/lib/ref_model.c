/*
 * ref_model.c - the reference model of the ABB: the device core (ref_model.h).
 *
 * The same BAR0 registers and descriptor semantics as the RTL
 * (rtl-model/REGISTERS.md, abb_dma_ctl.sv, abb_c2h_mover.sv,
 * abb_h2c_mover.sv, abb_evsrc.sv), in plain C and untimed: a transfer runs
 * to its end inside the CTRL write that starts it, so STA reads DONE (or
 * DONE|BUSY for an error) right afterwards. It needs no simulator and no
 * board, which makes it the yardstick for the cost of host software (the
 * DAQ benchmarks) and the scoreboard of the differential suite
 * (testbench/test_scoreboard.c) and of `make regress`. backend_ref_model.c
 * wraps it into libabb's "model" backend.
 *
 * Interrupts as the RTL signals them: the line is the level
 * |(ISR & IER), and the interrupt count (irq_count, irq_wait) goes up on
 * each rising edge of it, as the root complex counts Assert_INTA
 * messages. A channel reset clears the channel's STA and its ISR bit;
 * IGEN_ACK clears the generator's ISR bit. Model-defined side effects, on
 * by default and off in strict mode (strict=1, as the simulator's):
 *  - a write of 1 to an ISR bit clears it (strict: ISR writes ignored);
 *  - a start clears the channel's ISR bit (strict: only its reset does);
 *  - a write of 1 to a GER bit clears it (strict: GER writes ignored,
 *    sticky until GCR.SOFT_RESET);
 *  - a start clears DONE (strict: only the channel reset does, so a start
 *    without a reset reads DONE|BUSY while the transfer waits).
 *
 * Model-defined here (the RTL has time, the reference model has not):
 *  - Device time is what the caller passes to abb_refmodel_advance (the
 *    backend: CLOCK_MONOTONIC since open).
 *  - Host memory is the host's dma callback (the backend: IOVA = the
 *    process address, map() records the range). A DMA read (board to
 *    host) the host refuses is dropped (counted as a fault, the transfer
 *    completes, as the simulator's IOMMU does with a posted write); a DMA
 *    write or a descriptor fetch the host refuses gets an
 *    unsupported-request completion: GER CPL_ERR, STA error.
 *  - The event source generates events on demand while a fixed-address DMA
 *    read from EVS_ADDR takes them (the FIFO never holds anything:
 *    EVS_LEVEL and EVS_STALLS read 0). With EVS_CTRL.ENABLE clear such a
 *    transfer stays BUSY; it runs when ENABLE is set or at the next read of
 *    its STA (a RESET still stops it). EVS_EVENTS counts whole events taken.
 *  - GCR.SHARED_ENGINE is stored; transfers are atomic anyway.
 *  - The interrupt generator fires when device time (abb_refmodel_advance)
 *    reaches the time of its ARM plus its latency (IGEN_LAT x 4 ns).
 *  - A chain that fails keeps the data of the descriptors before the
 *    failing one (REGISTERS.md STA.ERR_DATA; the RTL writes the data of
 *    every completion that arrived, also while the channel drains).
 *  - GER.CPL_TIMEOUT, GER.POISONED and the CPL_TAG of an unexpected
 *    completion come from link faults only (simulator link injection,
 *    abb_sim_fault_add); the reference model has no link and never sets them. Its
 *    GER holds and clears them as every cause (ABB_REG_GER_FIELDS).
 *  - A chain of more than MODEL_MAX_CHAIN descriptors is stopped as a
 *    descriptor error (a looping chain would otherwise never end).
 *  - DIAG_* counters: TLPs counted per descriptor as ceil(len / MPS=128),
 *    read requests as ceil(len / MRRS=512), completions as ceil(len / 64).
 *
 * Where the RTL differs (found by the differential suite, reported; the
 * model follows rtl-model/REGISTERS.md where it says something):
 *  - the RTL has no strict mode yet (strict=1 changes nothing there);
 *  - a channel reset does not clear the channel's ISR bit in the RTL
 *    (REGISTERS.md ISR.CLR_RESET says it does, in both modes);
 *  - pieces of one chain that overlap on the board: the RTL's reads of consecutive descriptors
 *    overlap, so with reordered completions an earlier piece may land
 *    last; here the later piece wins.
 */
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>

#include "ref_model.h"

#define MODEL_MAX_CHAIN (1u << 20)
#define MODEL_FIFO_DEPTH 16u
#define MODEL_MPS 128u
#define MODEL_MRRS 512u
#define MODEL_TAGS 16u
#define MODEL_DESC_BYTES 32u
/* A transfer goes to or from the host in pieces of at most this many bytes
 * (each piece all or nothing: a refused piece is dropped or ends the
 * transfer, the pieces before it took effect). */
#define MODEL_PIECE 0x10000u

/* Descriptor words, in the order of the channel register block. */
enum { DW_PAH, DW_PAL, DW_HAH, DW_HAL, DW_BDAH, DW_BDAL, DW_LENG, DW_CTRL, DESC_WORDS };

enum { STA_IDLE = 0, STA_DONE = 1, STA_BUSY = 2, STA_ERR = 3 };

struct model_chan {
	uint32_t reg[DESC_WORDS]; /* PAH .. CTRL: the descriptor being executed */
	uint32_t sta;
	uint32_t pa;   /* board address a descriptor without UPA continues at */
	bool busy;     /* started, not finished (waits for the event source) */
};

struct abb_refmodel {
	struct abb_refmodel_host host;
	uint8_t *mem;
	size_t mem_bytes;
	unsigned mem_bits;
	uint64_t now;   /* device time, ns (abb_refmodel_advance) */

	uint32_t isr, ier, ger, gcr, mrd_cr, tx_cr;
	uint64_t msi;   /* interrupt count: rising edges of the line */
	bool line;      /* the interrupt line: (ISR & IER) != 0 */
	bool strict;    /* no model-defined side effects (see the top) */

	bool ig_armed;
	uint32_t ig_lat, ig_asrt, ig_dsrt;
	uint64_t ig_deadline;

	uint32_t fifo[MODEL_FIFO_DEPTH];
	unsigned f_wr, f_rd;

	bool evs_en;
	uint32_t evs_src, evs_size, evs_gap, evs_addr;
	uint32_t evs_cnt; /* counter of the event being generated */
	uint32_t evs_pos; /* DW position inside it */

	uint32_t n_c2h_tlp, n_h2c_req, n_cpl, n_desc, n_msi;

	uint8_t *scratch; /* MODEL_PIECE bytes on their way to or from the host */

	struct model_chan ch[2];

	bool is_timed;    /* the engine's timing model drives the channels */
	struct abb_refmodel_timed timed;
};

/* --- interrupts -------------------------------------------------------- */

/* Call after ISR or IER changed: the line follows (ISR & IER) != 0, and
 * each rising edge counts one interrupt (an Assert_INTA). */
static void irq_update(struct abb_refmodel *m)
{
	bool line = (m->isr & m->ier) != 0;

	if (line && !m->line) {
		m->msi++;
		m->n_msi++;
		if (m->host.irq)
			m->host.irq(m->host.ctx);
	}
	if (m->is_timed && line != m->line)
		m->timed.line(m->timed.ctx, line);
	m->line = line;
}

static void isr_set(struct abb_refmodel *m, uint32_t bits)
{
	m->isr |= bits;
	irq_update(m);
}

static void isr_clear(struct abb_refmodel *m, uint32_t bits)
{
	m->isr &= ~bits;
	irq_update(m);
}

static uint32_t chan_isr_bit(int chn)
{
	return chn == (int)ABB_CH_C2H ? ABB_ISR_C2H : ABB_ISR_H2C;
}

static void igen_poll(struct abb_refmodel *m, uint64_t now)
{
	if (m->ig_armed && !m->is_timed && now >= m->ig_deadline) {
		m->ig_armed = false;
		m->ig_asrt++;
		isr_set(m, ABB_ISR_IGEN);
	}
}

/* --- host memory (the host's dma callback) ----------------------------- */

static int host_dma(struct abb_refmodel *m, int to_host, uint64_t iova, void *buf, size_t len)
{
	return m->host.dma(m->host.ctx, to_host, iova, buf, len);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* --- event source ------------------------------------------------------ */

static uint32_t evs_total(const struct abb_refmodel *m)
{
	return 4u + m->evs_size + (m->evs_size & 1u);
}

/* The next DW of the event stream (abb_evsrc.sv's ev_dw). */
static uint32_t evs_next(struct abb_refmodel *m)
{
	uint32_t total = evs_total(m), pos = m->evs_pos, cnt = m->evs_cnt, v;

	if (pos == 0)
		v = ABB_EVS_MAGIC | ABB_FIELD_PUT(EVS_HDR_DWS, total);
	else if (pos == 1)
		v = cnt;
	else if (pos == 2)
		v = m->evs_src;
	else if (pos == 3)
		v = ~cnt;
	else
		v = (ABB_FIELD_PUT(EVS_DATA_CNT, cnt) | ABB_FIELD_PUT(EVS_DATA_IDX, pos - 4u)) ^
		    ABB_FIELD_PUT(EVS_DATA_SRC, m->evs_src);
	if (++m->evs_pos >= total) {
		m->evs_pos = 0;
		m->evs_cnt++;
	}
	return v;
}

static void evs_fill(struct abb_refmodel *m, uint8_t *dst, size_t dws)
{
	for (size_t i = 0; i < dws; i++)
		put_le32(dst + 4 * i, evs_next(m));
}

/* --- DMA channels ------------------------------------------------------ */

static void chan_error(struct abb_refmodel *m, struct model_chan *c, int chn, uint32_t ger,
		       uint32_t irq_mask)
{
	m->ger |= ger;
	c->sta = STA_ERR;
	c->busy = false;
	if (c->reg[DW_CTRL] & irq_mask)
		isr_set(m, chan_isr_bit(chn));
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* Runs the channel's chain from the descriptor in its registers until it
 * ends, fails, or (a FIFO read with the source disabled) has to wait. */
static void chan_run(struct abb_refmodel *m, int chn)
{
	struct model_chan *c = &m->ch[chn];
	unsigned ndesc = 0;

	while (c->busy) {
		uint32_t *r = c->reg, ctrl = r[DW_CTRL], len = r[DW_LENG];
		bool inc = ctrl & ABB_CTRL_INC;
		uint32_t pa = (ctrl & ABB_CTRL_UPA) ? r[DW_PAL] : c->pa;
		uint64_t ha = (uint64_t)r[DW_HAH] << 32 | r[DW_HAL];
		uint64_t pa_end = (uint64_t)pa + (inc ? len : 4u);
		bool evs = chn == (int)ABB_CH_C2H && !inc && pa == m->evs_addr;

		if (!(ctrl & ABB_CTRL_V) || !(ctrl & ABB_CTRL_BAR) || len == 0 || len % 4 ||
		    r[DW_HAL] % 4 || pa % 4 || r[DW_PAH] != 0 || pa_end > m->mem_bytes ||
		    ++ndesc > MODEL_MAX_CHAIN) {
			chan_error(m, c, chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI);
			return;
		}
		if (evs && !m->evs_en)
			return; /* stays busy until the source is enabled */

		if (chn == (int)ABB_CH_C2H) {
			/* board to host: posted writes, a piece the host refuses
			 * is dropped (a fault; the event source is drained all
			 * the same) */
			m->n_c2h_tlp += div_up(len, MODEL_MPS);
			for (uint32_t done = 0; done < len;) {
				uint32_t n = len - done < MODEL_PIECE ? len - done : MODEL_PIECE;
				uint8_t *buf = m->scratch;

				if (evs)
					evs_fill(m, buf, n / 4);
				else if (inc)
					buf = m->mem + pa + done;
				else
					for (uint32_t i = 0; i < n; i += 4)
						memcpy(buf + i, m->mem + pa, 4);
				/* a write the host refuses is dropped, as the
				 * IOMMU drops it (no error reaches the board) */
				(void)host_dma(m, 1, ha + done, buf, n);
				done += n;
			}
		} else {
			/* host to board: read requests; a piece the host refuses
			 * gets UR: the channel stops with an error */
			m->n_h2c_req += div_up(len, MODEL_MRRS);
			for (uint32_t done = 0; done < len;) {
				uint32_t n = len - done < MODEL_PIECE ? len - done : MODEL_PIECE;
				uint8_t *buf = inc ? m->mem + pa + done : m->scratch;

				if (host_dma(m, 0, ha + done, buf, n)) {
					chan_error(m, c, chn, ABB_GER_CPL_ERR,
						   ABB_CTRL_EEI | ABB_CTRL_ESEI);
					return;
				}
				if (!inc) /* a FIFO port keeps the last DW */
					memcpy(m->mem + pa, buf + n - 4, 4);
				done += n;
			}
			m->n_cpl += div_up(len, 64);
		}
		c->pa = inc ? pa + len : pa;

		if (ctrl & ABB_CTRL_LAST) {
			c->sta = STA_DONE;
			c->busy = false;
			if (ctrl & ABB_CTRL_EDI)
				isr_set(m, chan_isr_bit(chn));
			return;
		}
		if (r[DW_BDAL] & (MODEL_DESC_BYTES - 1u)) {
			chan_error(m, c, chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI);
			return;
		}
		{
			uint64_t bda = (uint64_t)r[DW_BDAH] << 32 | r[DW_BDAL];
			uint8_t d[MODEL_DESC_BYTES];

			if (host_dma(m, 0, bda, d, sizeof d)) {
				chan_error(m, c, chn, ABB_GER_CPL_ERR, ABB_CTRL_EEI | ABB_CTRL_ESEI);
				return;
			}
			m->n_cpl++;
			m->n_desc++;
			for (int j = 0; j < DESC_WORDS; j++)
				r[j] = get_le32(d + 4 * j);
		}
	}
}

/* Both modes: the channel stops, STA reads idle, its ISR bit clears.
 * Timed, a busy channel drains first (the RTL's StDrain: the mover ends
 * its TLP and collects its reads); the engine calls abb_refmodel_chan_idle
 * then. soft: GCR.SOFT_RESET, whose STA reads idle at once. */
static void chan_reset(struct abb_refmodel *m, int chn, bool soft)
{
	if (m->is_timed && m->ch[chn].busy) {
		if (soft)
			m->ch[chn].sta = STA_IDLE;
		isr_clear(m, chan_isr_bit(chn));
		m->timed.reset(m->timed.ctx, chn, soft);
		return;
	}
	m->ch[chn].busy = false;
	m->ch[chn].sta = STA_IDLE;
	isr_clear(m, chan_isr_bit(chn));
}

/* A write into a channel's register block (off relative to the block). */
static void chan_write(struct abb_refmodel *m, int chn, uint32_t off, uint32_t val)
{
	struct model_chan *c = &m->ch[chn];
	bool is_ctrl = off == ABB_CH_CTRL;

	if (off > ABB_CH_STA || off % 4)
		return;
	if (is_ctrl && (val & ABB_CTRL_RESET) == ABB_CTRL_RESET_CODE) {
		if (!c->busy)
			c->reg[DW_CTRL] = val;
		chan_reset(m, chn, false);
		return;
	}
	if (c->busy || off == ABB_CH_STA)
		return; /* the block is read-only while busy; STA is read-only */
	c->reg[off / 4] = val;
	if (is_ctrl && (val & ABB_CTRL_V)) {
		if (m->strict) {
			c->sta = STA_BUSY | (c->sta & STA_DONE); /* DONE stays */
		} else {
			isr_clear(m, chan_isr_bit(chn)); /* cleared when the channel starts */
			c->sta = STA_BUSY;
		}
		c->busy = true;
		if (m->is_timed)
			m->timed.start(m->timed.ctx, chn);
		else
			chan_run(m, chn);
	}
}

static uint32_t chan_read(struct abb_refmodel *m, int chn, uint32_t off)
{
	struct model_chan *c = &m->ch[chn];

	if (off == ABB_CH_STA) {
		if (c->busy && !m->is_timed)
			chan_run(m, chn);
		return c->sta;
	}
	return off < ABB_CH_STA && off % 4 == 0 ? c->reg[off / 4] : 0;
}

static void soft_reset(struct abb_refmodel *m)
{
	chan_reset(m, ABB_CH_C2H, true);
	chan_reset(m, ABB_CH_H2C, true);
	m->ger = 0;
	if (m->is_timed)
		m->timed.igen_stop(m->timed.ctx);
	m->ig_armed = false;
	m->ig_asrt = 0;
	m->ig_dsrt = 0;
	isr_clear(m, ~0u);
}

static uint32_t reg_read(struct abb_refmodel *m, uint32_t off)
{
	unsigned used = m->f_wr - m->f_rd;
	uint64_t cyc;

	if (off >= ABB_BLK_C2H && off <= ABB_BLK_C2H + ABB_CH_STA)
		return chan_read(m, ABB_CH_C2H, off - ABB_BLK_C2H);
	if (off >= ABB_BLK_H2C && off <= ABB_BLK_H2C + ABB_CH_STA)
		return chan_read(m, ABB_CH_H2C, off - ABB_BLK_H2C);
	switch (off) {
	case ABB_REG_VERSION:
		return ABB_VERSION_ID;
	case ABB_REG_ISR:
		return m->isr;
	case ABB_REG_IER:
		return m->ier;
	case ABB_REG_GER:
		return m->ger;
	case ABB_REG_GSR:
		/* bus master, MSI, MPS code 0 (128 B), MRRS code 2 (512 B);
		 * timed: the codes of the link parameters */
		if (m->is_timed)
			return ABB_GSR_BME | ABB_GSR_MSI |
			       ABB_FIELD_PUT(GSR_MPS, m->timed.mps_code) |
			       ABB_FIELD_PUT(GSR_MRRS, m->timed.mrrs_code) |
			       (m->ch[ABB_CH_C2H].busy ? ABB_GSR_C2H_BUSY : 0) |
			       (m->ch[ABB_CH_H2C].busy ? ABB_GSR_H2C_BUSY : 0);
		return ABB_GSR_BME | ABB_GSR_MSI | ABB_FIELD_PUT(GSR_MRRS, 2) |
		       (m->ch[ABB_CH_C2H].busy ? ABB_GSR_C2H_BUSY : 0) |
		       (m->ch[ABB_CH_H2C].busy ? ABB_GSR_H2C_BUSY : 0);
	case ABB_REG_GCR:
		return m->gcr;
	case ABB_REG_MRD_CR:
		return m->mrd_cr;
	case ABB_REG_TX_CR:
		return m->tx_cr;
	case ABB_REG_IGEN_CTRL:
		return m->ig_armed;
	case ABB_REG_IGEN_LAT:
		return m->ig_lat;
	case ABB_REG_IGEN_ASSERT:
		return m->ig_asrt;
	case ABB_REG_IGEN_DEASSERT:
		return m->ig_dsrt;
	case ABB_REG_TXF_CSR:
		return MODEL_FIFO_DEPTH - used;
	case ABB_REG_RXF_DATA: {
		uint32_t v = used ? m->fifo[m->f_rd % MODEL_FIFO_DEPTH] : 0;

		if (used)
			m->f_rd++;
		return v;
	}
	case ABB_REG_RXF_CSR:
		return used;
	case ABB_REG_EVS_CTRL:
		return m->evs_en;
	case ABB_REG_EVS_SRC:
		return m->evs_src;
	case ABB_REG_EVS_SIZE:
		return m->evs_size;
	case ABB_REG_EVS_GAP:
		return m->evs_gap;
	case ABB_REG_EVS_ADDR:
		return m->evs_addr;
	case ABB_REG_EVS_EVENTS:
		return m->evs_cnt;
	case ABB_REG_EVS_LEVEL:
	case ABB_REG_EVS_STALLS:
		return 0;
	case ABB_REG_DIAG_ID:
		return ABB_REG_DIAG_ID_RESET;
	case ABB_REG_DIAG_PARAM:
		return ABB_FIELD_PUT(DIAG_PARAM_TAGS, MODEL_TAGS) |
		       ABB_FIELD_PUT(DIAG_PARAM_MEM_BITS, m->mem_bits);
	case ABB_REG_DIAG_CYC_LO:
	case ABB_REG_DIAG_CYC_HI:
		cyc = m->is_timed ? m->timed.cycles(m->timed.ctx)
				  : m->now / 8u; /* 125 MHz user clock */
		return off == ABB_REG_DIAG_CYC_LO ? (uint32_t)cyc : (uint32_t)(cyc >> 32);
	case ABB_REG_DIAG_C2H_TLP:
		return m->n_c2h_tlp;
	case ABB_REG_DIAG_H2C_RDREQ:
		return m->n_h2c_req;
	case ABB_REG_DIAG_CPL:
		return m->n_cpl;
	case ABB_REG_DIAG_DESC:
		return m->n_desc;
	case ABB_REG_DIAG_MSI:
		return m->n_msi;
	default:
		return 0;
	}
}

static void reg_write(struct abb_refmodel *m, uint32_t off, uint32_t val)
{
	if (off >= ABB_BLK_C2H && off <= ABB_BLK_C2H + ABB_CH_STA) {
		chan_write(m, ABB_CH_C2H, off - ABB_BLK_C2H, val);
		return;
	}
	if (off >= ABB_BLK_H2C && off <= ABB_BLK_H2C + ABB_CH_STA) {
		chan_write(m, ABB_CH_H2C, off - ABB_BLK_H2C, val);
		return;
	}
	switch (off) {
	case ABB_REG_ISR:
		if (!m->strict)
			isr_clear(m, val & ABB_REG_ISR_FIELDS);
		break;
	case ABB_REG_IER:
		m->ier = val & ABB_REG_IER_FIELDS;
		irq_update(m);
		break;
	case ABB_REG_GER:
		if (!m->strict)
			m->ger &= ~(val & ABB_REG_GER_FIELDS);
		break;
	case ABB_REG_GCR:
		m->gcr = val & ~ABB_GCR_SOFT_RESET;
		if (val & ABB_GCR_SOFT_RESET)
			soft_reset(m);
		break;
	case ABB_REG_MRD_CR:
		m->mrd_cr = val;
		break;
	case ABB_REG_TX_CR:
		m->tx_cr = val;
		break;
	case ABB_REG_IGEN_LAT:
		m->ig_lat = val;
		break;
	case ABB_REG_IGEN_CTRL:
		switch (ABB_FIELD_GET(IGEN_CTRL_WORD, val)) {
		case ABB_IGEN_RESET:
			if (m->is_timed)
				m->timed.igen_stop(m->timed.ctx);
			m->ig_armed = false;
			m->ig_asrt = 0;
			m->ig_dsrt = 0;
			isr_clear(m, ABB_ISR_IGEN);
			break;
		case ABB_IGEN_ACK:
			isr_clear(m, ABB_ISR_IGEN);
			m->ig_dsrt++;
			break;
		case ABB_IGEN_ARM:
			m->ig_armed = true;
			m->ig_deadline = m->now + 4ull * m->ig_lat;
			if (m->is_timed)
				m->timed.igen_arm(m->timed.ctx, m->ig_lat);
			break;
		default:
			break;
		}
		break;
	case ABB_REG_TXF_DATA:
		if (m->f_wr - m->f_rd < MODEL_FIFO_DEPTH)
			m->fifo[m->f_wr++ % MODEL_FIFO_DEPTH] = val;
		break;
	case ABB_REG_EVS_CTRL:
		m->evs_en = val & ABB_EVS_CTRL_ENABLE;
		if (val & ABB_EVS_CTRL_CLEAR) {
			m->evs_cnt = 0;
			m->evs_pos = 0;
		}
		if (m->is_timed)
			m->timed.evs_ctrl(m->timed.ctx, m->evs_en, (val & ABB_EVS_CTRL_CLEAR) != 0);
		else if (m->evs_en && m->ch[ABB_CH_C2H].busy)
			chan_run(m, ABB_CH_C2H);
		break;
	case ABB_REG_EVS_SRC:
		m->evs_src = ABB_FIELD_GET(EVS_SRC_ID, val);
		break;
	case ABB_REG_EVS_SIZE:
		m->evs_size = ABB_FIELD_GET(EVS_SIZE_DWS, val);
		break;
	case ABB_REG_EVS_GAP:
		m->evs_gap = ABB_FIELD_GET(EVS_GAP_CYCLES, val);
		break;
	case ABB_REG_EVS_ADDR:
		m->evs_addr = val;
		break;
	default:
		break;
	}
}


/* --- the interface (ref_model.h) -------------------------------------- */

struct abb_refmodel *abb_refmodel_create(const struct abb_refmodel_cfg *cfg,
				   const struct abb_refmodel_host *host)
{
	struct abb_refmodel *m;

	if (!cfg || !host || !host->dma || cfg->mem_bytes < 4 ||
	    (cfg->mem_bytes & (cfg->mem_bytes - 1)))
		return NULL;
	m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->mem = calloc(1, cfg->mem_bytes);
	m->scratch = malloc(MODEL_PIECE);
	if (!m->mem || !m->scratch) {
		abb_refmodel_destroy(m);
		return NULL;
	}
	m->host = *host;
	m->mem_bytes = cfg->mem_bytes;
	while (((size_t)1 << m->mem_bits) < cfg->mem_bytes)
		m->mem_bits++;
	m->gcr = cfg->shared_engine ? ABB_GCR_SHARED_ENGINE : 0;
	m->strict = cfg->strict;
	m->evs_size = ABB_REG_EVS_SIZE_RESET;
	m->evs_addr = ABB_REG_EVS_ADDR_RESET;
	return m;
}

void abb_refmodel_destroy(struct abb_refmodel *m)
{
	if (!m)
		return;
	free(m->scratch);
	free(m->mem);
	free(m);
}

uint32_t abb_refmodel_reg_read(struct abb_refmodel *m, uint32_t off)
{
	return reg_read(m, off);
}

void abb_refmodel_reg_write(struct abb_refmodel *m, uint32_t off, uint32_t val)
{
	reg_write(m, off, val);
}

void abb_refmodel_mem_read(struct abb_refmodel *m, uint32_t off, void *buf, size_t len)
{
	memcpy(buf, m->mem + off, len);
}

void abb_refmodel_mem_write(struct abb_refmodel *m, uint32_t off, const void *buf, size_t len)
{
	memcpy(m->mem + off, buf, len);
}

void abb_refmodel_advance(struct abb_refmodel *m, uint64_t now_ns)
{
	if (now_ns > m->now)
		m->now = now_ns;
	if (m->ig_armed)
		igen_poll(m, m->now);
}

uint64_t abb_refmodel_next_event(const struct abb_refmodel *m)
{
	return m->ig_armed ? m->ig_deadline : UINT64_MAX;
}

uint64_t abb_refmodel_irq_count(const struct abb_refmodel *m)
{
	return m->msi;
}

/* --- timed mode: the calls of the engine's timing model (ref_engine.c) -- */

void abb_refmodel_set_timed(struct abb_refmodel *m, const struct abb_refmodel_timed *t)
{
	m->timed = *t;
	m->is_timed = t->start != NULL;
}

/* abb_dma_ctl.sv's desc_ok (and the model's checks of chan_run, without
 * its chain limit: the RTL runs a looping chain until it is reset). */
int abb_refmodel_desc_check(struct abb_refmodel *m, int chn, struct abb_refmodel_desc *d)
{
	struct model_chan *c = &m->ch[chn];
	uint32_t *r = c->reg, ctrl = r[DW_CTRL], len = r[DW_LENG];
	bool inc = ctrl & ABB_CTRL_INC;
	uint32_t pa = (ctrl & ABB_CTRL_UPA) ? r[DW_PAL] : c->pa;
	uint64_t pa_end = (uint64_t)pa + (inc ? len : 4u);

	d->pa = pa;
	d->ha = (uint64_t)r[DW_HAH] << 32 | r[DW_HAL];
	d->len = len;
	d->bda = (uint64_t)r[DW_BDAH] << 32 | r[DW_BDAL];
	d->ctrl = ctrl;
	d->inc = inc;
	d->last = ctrl & ABB_CTRL_LAST;
	d->bda_ok = (r[DW_BDAL] & (MODEL_DESC_BYTES - 1u)) == 0;
	d->evs = chn == (int)ABB_CH_C2H && !inc && pa == m->evs_addr;
	if (!(ctrl & ABB_CTRL_V) || !(ctrl & ABB_CTRL_BAR) || len == 0 || len % 4 ||
	    r[DW_HAL] % 4 || pa % 4 || r[DW_PAH] != 0 || pa_end > m->mem_bytes)
		return -1;
	return 0;
}

void abb_refmodel_desc_moved(struct abb_refmodel *m, int chn, const struct abb_refmodel_desc *d)
{
	m->ch[chn].pa = d->inc ? d->pa + d->len : d->pa;
}

void abb_refmodel_desc_load(struct abb_refmodel *m, int chn, const uint8_t *d)
{
	for (int j = 0; j < DESC_WORDS; j++)
		m->ch[chn].reg[j] = get_le32(d + 4 * j);
}

void abb_refmodel_chan_done(struct abb_refmodel *m, int chn)
{
	struct model_chan *c = &m->ch[chn];

	c->sta = STA_DONE;
	c->busy = false;
	if (c->reg[DW_CTRL] & ABB_CTRL_EDI)
		isr_set(m, chan_isr_bit(chn));
}

void abb_refmodel_chan_error(struct abb_refmodel *m, int chn, uint32_t ger, uint32_t irq_mask,
			     bool idle)
{
	struct model_chan *c = &m->ch[chn];

	m->ger |= ger;
	c->sta = STA_ERR;
	if (idle)
		c->busy = false;
	if (c->reg[DW_CTRL] & irq_mask)
		isr_set(m, chan_isr_bit(chn));
}

void abb_refmodel_chan_idle(struct abb_refmodel *m, int chn, bool keep)
{
	m->ch[chn].busy = false;
	if (!keep)
		m->ch[chn].sta = STA_IDLE;
}

void abb_refmodel_c2h_data(struct abb_refmodel *m, uint32_t pa, bool inc, bool evs, uint8_t *buf,
			   uint32_t n)
{
	if (evs)
		evs_fill(m, buf, n / 4);
	else if (inc)
		memcpy(buf, m->mem + pa, n);
	else
		for (uint32_t i = 0; i < n; i += 4)
			memcpy(buf + i, m->mem + pa, 4);
}

void abb_refmodel_h2c_data(struct abb_refmodel *m, uint32_t pa, bool inc, const uint8_t *buf,
			   uint32_t n)
{
	if (inc)
		memcpy(m->mem + pa, buf, n);
	else if (n >= 4)
		memcpy(m->mem + pa, buf + n - 4, 4);
}

void abb_refmodel_count(struct abb_refmodel *m, enum abb_refmodel_counter c)
{
	switch (c) {
	case ABB_REFMODEL_C2H_TLP:
		m->n_c2h_tlp++;
		break;
	case ABB_REFMODEL_H2C_REQ:
		m->n_h2c_req++;
		break;
	case ABB_REFMODEL_CPL:
		m->n_cpl++;
		break;
	case ABB_REFMODEL_DESC:
		m->n_desc++;
		break;
	}
}

void abb_refmodel_igen_fire(struct abb_refmodel *m)
{
	if (!m->ig_armed)
		return;
	m->ig_armed = false;
	m->ig_asrt++;
	isr_set(m, ABB_ISR_IGEN);
}

unsigned abb_refmodel_tag_limit(const struct abb_refmodel *m)
{
	return ABB_FIELD_GET(MRD_CR_TAG_LIMIT, m->mrd_cr);
}

bool abb_refmodel_shared_engine(const struct abb_refmodel *m)
{
	return (m->gcr & ABB_GCR_SHARED_ENGINE) != 0;
}

bool abb_refmodel_chan_busy(const struct abb_refmodel *m, int chn)
{
	return m->ch[chn].busy;
}

uint32_t abb_refmodel_evs_size(const struct abb_refmodel *m)
{
	return m->evs_size;
}

uint32_t abb_refmodel_evs_gap(const struct abb_refmodel *m)
{
	return m->evs_gap;
}

uint32_t abb_refmodel_evs_addr(const struct abb_refmodel *m)
{
	return m->evs_addr;
}
