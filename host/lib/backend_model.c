/*
 * backend_model.c - the functional reference model of the ABB ("model").
 *
 * The same BAR0 registers and descriptor semantics as the RTL
 * (rtl-model/REGISTERS.md, abb_dma_ctl.sv, abb_c2h_mover.sv,
 * abb_h2c_mover.sv, abb_evsrc.sv), in plain C and untimed: a transfer runs
 * to its end inside the CTRL write that starts it, so STA reads DONE (or
 * DONE|BUSY for an error) right afterwards. It needs no simulator and no
 * board, which makes it the yardstick for the cost of host software (the
 * DAQ benchmarks) and, later, the scoreboard for random tests.
 *
 * URI: "model" or "model:mem_size=N,shared_engine=0|1,strict=0|1" (mem_size:
 * BAR1 bytes, power of two, 64 KiB .. 16 MiB, default 1 MiB; k/M
 * suffixes; strict: as the simulator's, default $ABB_SIM_STRICT or 0).
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
 * Model-defined here (the RTL has time, the model has not):
 *  - Device time (now_ns) is CLOCK_MONOTONIC; delay_ns sleeps on it.
 *  - IOVA = the process address; map() only records the range. A DMA read
 *    (board to host) into unmapped memory is dropped (counted as a fault,
 *    the transfer completes, as the simulator's IOMMU does with a posted
 *    write); a DMA write or a descriptor fetch from unmapped memory gets an
 *    unsupported-request completion: GER CPL_ERR, STA error.
 *  - The event source generates events on demand while a fixed-address DMA
 *    read from EVS_ADDR takes them (the FIFO never holds anything:
 *    EVS_LEVEL and EVS_STALLS read 0). With EVS_CTRL.ENABLE clear such a
 *    transfer stays BUSY; it runs when ENABLE is set or at the next read of
 *    its STA (a RESET still stops it). EVS_EVENTS counts whole events taken.
 *  - GCR.SHARED_ENGINE is stored; transfers are atomic anyway.
 *  - The interrupt generator fires when a register is accessed or an
 *    interrupt is waited for after its latency (IGEN_LAT x 4 ns) passed.
 *  - A chain of more than MODEL_MAX_CHAIN descriptors is stopped as a
 *    descriptor error (a looping chain would otherwise never end).
 *  - DIAG_* counters: TLPs counted per descriptor as ceil(len / MPS=128),
 *    read requests as ceil(len / MRRS=512), completions as ceil(len / 64).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abb_options.h"
#include "abb_priv.h"

/* BAR0 size: 64 KiB, as the simulator's config space advertises (the real
 * board's size is not recorded; its FIFO ports at 0x4000..0x402C need at
 * least 32 KiB, which the model had: the two backends disagreed). */
#define MODEL_BAR0 0x10000u
#define MODEL_MAX_CHAIN (1u << 20)
#define MODEL_FIFO_DEPTH 16u
#define MODEL_MPS 128u
#define MODEL_MRRS 512u
#define MODEL_TAGS 16u

enum { STA_IDLE = 0, STA_DONE = 1, STA_BUSY = 2, STA_ERR = 3 };

struct model_map {
	uintptr_t base;
	size_t len;
};

struct model_chan {
	uint32_t reg[ABB_DESC_WORDS]; /* PAH .. CTRL: the descriptor being executed */
	uint32_t sta;
	uint32_t pa;   /* board address a descriptor without UPA continues at */
	bool busy;     /* started, not finished (waits for the event source) */
};

struct model {
	pthread_mutex_t lock;
	pthread_cond_t irq_cond; /* broadcast on every MSI */
	uint8_t *mem;
	size_t mem_bytes;
	unsigned mem_bits;
	uint64_t t0;

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
	uint64_t faults;

	struct model_map *maps; /* sorted by base, not overlapping */
	size_t nmaps, cap;

	struct model_chan ch[2];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct model *M(abb_dev *dev)
{
	return dev->be_priv;
}

/* --- interrupts -------------------------------------------------------- */

/* Call after ISR or IER changed: the line follows (ISR & IER) != 0, and
 * each rising edge counts one interrupt (an Assert_INTA). */
static void irq_update(struct model *m)
{
	bool line = (m->isr & m->ier) != 0;

	if (line && !m->line) {
		m->msi++;
		m->n_msi++;
		pthread_cond_broadcast(&m->irq_cond);
	}
	m->line = line;
}

static void isr_set(struct model *m, uint32_t bits)
{
	m->isr |= bits;
	irq_update(m);
}

static void isr_clear(struct model *m, uint32_t bits)
{
	m->isr &= ~bits;
	irq_update(m);
}

static uint32_t chan_isr_bit(int chn)
{
	return chn == (int)ABB_CH_C2H ? ABB_ISR_C2H : ABB_ISR_H2C;
}

static void igen_poll(struct model *m, uint64_t now)
{
	if (m->ig_armed && now >= m->ig_deadline) {
		m->ig_armed = false;
		m->ig_asrt++;
		isr_set(m, ABB_ISR_IGEN);
	}
}

/* --- host memory (IOVA = process address) ------------------------------ */

/* Index of the first map with base > a. */
static size_t map_upper(const struct model *m, uintptr_t a)
{
	size_t lo = 0, hi = m->nmaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->maps[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 if every byte of [iova, iova+len) lies in mapped ranges. */
static bool mapped(const struct model *m, uint64_t iova, uint64_t len)
{
	while (len) {
		size_t i = map_upper(m, (uintptr_t)iova);
		const struct model_map *mp;
		uint64_t avail;

		if (i == 0)
			return false;
		mp = &m->maps[i - 1];
		if (iova >= (uint64_t)mp->base + mp->len)
			return false;
		avail = (uint64_t)mp->base + mp->len - iova;
		if (avail >= len)
			return true;
		iova += avail;
		len -= avail;
	}
	return true;
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

static uint32_t evs_total(const struct model *m)
{
	return 4u + m->evs_size + (m->evs_size & 1u);
}

/* The next DW of the event stream (abb_evsrc.sv's ev_dw). */
static uint32_t evs_next(struct model *m)
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

static void evs_fill(struct model *m, uint8_t *dst, size_t dws)
{
	for (size_t i = 0; i < dws; i++)
		put_le32(dst + 4 * i, evs_next(m));
}

/* --- DMA channels ------------------------------------------------------ */

static void chan_error(struct model *m, struct model_chan *c, int chn, uint32_t ger,
		       uint32_t irq_mask)
{
	m->ger |= ger;
	c->sta = STA_ERR;
	c->busy = false;
	if (c->reg[ABB_DW_CTRL] & irq_mask)
		isr_set(m, chan_isr_bit(chn));
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* Runs the channel's chain from the descriptor in its registers until it
 * ends, fails, or (a FIFO read with the source disabled) has to wait. */
static void chan_run(struct model *m, int chn)
{
	struct model_chan *c = &m->ch[chn];
	unsigned ndesc = 0;

	while (c->busy) {
		uint32_t *r = c->reg, ctrl = r[ABB_DW_CTRL], len = r[ABB_DW_LENG];
		bool inc = ctrl & ABB_CTRL_INC;
		uint32_t pa = (ctrl & ABB_CTRL_UPA) ? r[ABB_DW_PAL] : c->pa;
		uint64_t ha = (uint64_t)r[ABB_DW_HAH] << 32 | r[ABB_DW_HAL];
		uint64_t pa_end = (uint64_t)pa + (inc ? len : 4u);
		bool evs = chn == (int)ABB_CH_C2H && !inc && pa == m->evs_addr;

		if (!(ctrl & ABB_CTRL_V) || !(ctrl & ABB_CTRL_BAR) || len == 0 || len % 4 ||
		    r[ABB_DW_HAL] % 4 || pa % 4 || r[ABB_DW_PAH] != 0 || pa_end > m->mem_bytes ||
		    ++ndesc > MODEL_MAX_CHAIN) {
			chan_error(m, c, chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI);
			return;
		}
		if (evs && !m->evs_en)
			return; /* stays busy until the source is enabled */

		if (chn == (int)ABB_CH_C2H) {
			/* board to host: posted writes, dropped if unmapped */
			m->n_c2h_tlp += div_up(len, MODEL_MPS);
			if (!mapped(m, ha, len)) {
				m->faults++;
				if (evs) /* the FIFO is drained all the same */
					for (uint32_t i = 0; i < len / 4; i++)
						evs_next(m);
			} else if (evs) {
				evs_fill(m, (uint8_t *)(uintptr_t)ha, len / 4);
			} else if (inc) {
				memcpy((void *)(uintptr_t)ha, m->mem + pa, len);
			} else {
				uint8_t *dst = (uint8_t *)(uintptr_t)ha;

				for (uint32_t i = 0; i < len; i += 4)
					memcpy(dst + i, m->mem + pa, 4);
			}
		} else {
			/* host to board: read requests, UR if unmapped */
			m->n_h2c_req += div_up(len, MODEL_MRRS);
			if (!mapped(m, ha, len)) {
				chan_error(m, c, chn, ABB_GER_CPL_ERR, ABB_CTRL_EEI | ABB_CTRL_ESEI);
				return;
			}
			m->n_cpl += div_up(len, 64);
			if (inc)
				memcpy(m->mem + pa, (const void *)(uintptr_t)ha, len);
			else
				memcpy(m->mem + pa, (const uint8_t *)(uintptr_t)ha + len - 4, 4);
		}
		c->pa = inc ? pa + len : pa;

		if (ctrl & ABB_CTRL_LAST) {
			c->sta = STA_DONE;
			c->busy = false;
			if (ctrl & ABB_CTRL_EDI)
				isr_set(m, chan_isr_bit(chn));
			return;
		}
		if (r[ABB_DW_BDAL] & (ABB_DESC_BYTES - 1u)) {
			chan_error(m, c, chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI);
			return;
		}
		{
			uint64_t bda = (uint64_t)r[ABB_DW_BDAH] << 32 | r[ABB_DW_BDAL];
			const uint8_t *d = (const uint8_t *)(uintptr_t)bda;

			if (!mapped(m, bda, ABB_DESC_BYTES)) {
				chan_error(m, c, chn, ABB_GER_CPL_ERR, ABB_CTRL_EEI | ABB_CTRL_ESEI);
				return;
			}
			m->n_cpl++;
			m->n_desc++;
			for (int j = 0; j < ABB_DESC_WORDS; j++)
				r[j] = get_le32(d + 4 * j);
		}
	}
}

/* Both modes: the channel stops, STA reads idle, its ISR bit clears. */
static void chan_reset(struct model *m, int chn)
{
	m->ch[chn].busy = false;
	m->ch[chn].sta = STA_IDLE;
	isr_clear(m, chan_isr_bit(chn));
}

/* A write into a channel's register block (off relative to the block). */
static void chan_write(struct model *m, int chn, uint32_t off, uint32_t val)
{
	struct model_chan *c = &m->ch[chn];
	bool is_ctrl = off == ABB_CH_CTRL;

	if (off > ABB_CH_STA || off % 4)
		return;
	if (is_ctrl && (val & ABB_CTRL_RESET) == ABB_CTRL_RESET_CODE) {
		if (!c->busy)
			c->reg[ABB_DW_CTRL] = val;
		chan_reset(m, chn);
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
		chan_run(m, chn);
	}
}

static uint32_t chan_read(struct model *m, int chn, uint32_t off)
{
	struct model_chan *c = &m->ch[chn];

	if (off == ABB_CH_STA) {
		if (c->busy)
			chan_run(m, chn);
		return c->sta;
	}
	return off < ABB_CH_STA && off % 4 == 0 ? c->reg[off / 4] : 0;
}

static void soft_reset(struct model *m)
{
	chan_reset(m, ABB_CH_C2H);
	chan_reset(m, ABB_CH_H2C);
	m->ger = 0;
	m->ig_armed = false;
	m->ig_asrt = 0;
	m->ig_dsrt = 0;
	isr_clear(m, ~0u);
}

/* --- the backend operations ------------------------------------------- */

/* One URI option of the model: the option table's parser (abb_options.c),
 * the same as for the simulator and the environment. */
static int model_opt(void *ctx, const char *key, const char *val)
{
	char msg[1024];
	int rc = abb_opt_set(ctx, ABB_OPT_MODEL, "model option", key, val, msg, sizeof msg);

	return rc ? abb_err(rc, "%s", msg) : 0;
}

static int model_open(abb_dev *dev, const char *args)
{
	struct abb_optvals o;
	pthread_condattr_t ca;
	struct model *m;
	char msg[1024];
	size_t mem;
	int rc;

	/* the model's options (mem_size, strict, shared_engine): defaults,
	 * ABB_SIM_MEM_SIZE / ABB_SIM_STRICT / ABB_MODEL_SHARED_ENGINE, then the
	 * URI, as the simulator's. o.p.strict is for the strict mode. */
	abb_opt_defaults(&o);
	rc = abb_opt_from_env(&o, ABB_OPT_MODEL, ABB_OPTG_ALL, msg, sizeof msg);
	if (rc)
		return abb_err(rc, "%s", msg);
	rc = abb_opt_each("model", args, 256, model_opt, &o);
	if (rc)
		return rc;
	mem = o.p.mem_bytes;
	m = calloc(1, sizeof *m);
	if (!m || !(m->mem = calloc(1, mem))) {
		free(m);
		return abb_err(-ENOMEM, "model: out of memory for %zu bytes of board memory", mem);
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->irq_cond, &ca);
	pthread_condattr_destroy(&ca);
	m->mem_bytes = mem;
	while ((1u << m->mem_bits) < mem)
		m->mem_bits++;
	m->t0 = mono_ns();
	m->gcr = o.shared_engine ? ABB_GCR_SHARED_ENGINE : 0;
	m->strict = o.p.strict != 0;
	m->evs_size = ABB_REG_EVS_SIZE_RESET;
	m->evs_addr = ABB_REG_EVS_ADDR_RESET;
	dev->be_priv = m;
	dev->bar0_size = MODEL_BAR0;
	dev->bar1_size = mem;
	dev->watchdog_s = 0;
	return 0;
}

static void model_close(abb_dev *dev)
{
	struct model *m = M(dev);

	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->irq_cond);
	free(m->maps);
	free(m->mem);
	free(m);
	dev->be_priv = NULL;
}

static uint32_t reg_read_locked(struct model *m, uint32_t off)
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
		/* bus master, MSI, MPS code 0 (128 B), MRRS code 2 (512 B) */
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
		cyc = (mono_ns() - m->t0) / 8u; /* 125 MHz user clock */
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

static void reg_write_locked(struct model *m, uint32_t off, uint32_t val)
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
			m->ig_deadline = mono_ns() + 4ull * m->ig_lat;
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
		if (m->evs_en && m->ch[ABB_CH_C2H].busy)
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

static int model_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	if (m->ig_armed)
		igen_poll(m, mono_ns());
	*val = reg_read_locked(m, off);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	if (m->ig_armed)
		igen_poll(m, mono_ns());
	reg_write_locked(m, off, val);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	memcpy(buf, m->mem + off, len);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	struct model *m = M(dev);

	pthread_mutex_lock(&m->lock);
	memcpy(m->mem + off, buf, len);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	struct model *m = M(dev);
	uintptr_t a = (uintptr_t)ptr;
	struct abb_seg *s = malloc(sizeof *s);
	size_t i;
	int rc = 0;

	if (!s)
		return abb_err(-ENOMEM, "model: out of memory");
	pthread_mutex_lock(&m->lock);
	i = map_upper(m, a);
	if ((i > 0 && m->maps[i - 1].base + m->maps[i - 1].len > a) ||
	    (i < m->nmaps && m->maps[i].base < a + len)) {
		rc = abb_err(-EEXIST, "model: [%p, +%zu) overlaps a mapped range", ptr, len);
	} else if (m->nmaps == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct model_map *n = realloc(m->maps, cap * sizeof *n);

		if (!n) {
			rc = abb_err(-ENOMEM, "model: out of memory");
		} else {
			m->maps = n;
			m->cap = cap;
		}
	}
	if (!rc) {
		memmove(&m->maps[i + 1], &m->maps[i], (m->nmaps - i) * sizeof m->maps[0]);
		m->maps[i].base = a;
		m->maps[i].len = len;
		m->nmaps++;
	}
	pthread_mutex_unlock(&m->lock);
	if (rc) {
		free(s);
		return rc;
	}
	s->iova = (uint64_t)a;
	s->len = len;
	*segs = s;
	*nsegs = 1;
	return 0;
}

static int model_unmap(abb_dev *dev, void *ptr, size_t len)
{
	struct model *m = M(dev);
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	i = map_upper(m, (uintptr_t)ptr);
	if (i == 0 || m->maps[i - 1].base != (uintptr_t)ptr) {
		rc = abb_err(-ENOENT, "model: %p is not mapped", ptr);
	} else {
		memmove(&m->maps[i - 1], &m->maps[i], (m->nmaps - i) * sizeof m->maps[0]);
		m->nmaps--;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static int model_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct model *m = M(dev);
	uint64_t now = mono_ns();
	uint64_t end = timeout_ns < 0 || (uint64_t)timeout_ns > UINT64_MAX - now ?
			       UINT64_MAX : now + (uint64_t)timeout_ns;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		uint64_t until = end;
		struct timespec ts;

		igen_poll(m, now);
		if (m->msi > *seen)
			break;
		if (now >= end) {
			rc = -ETIMEDOUT;
			break;
		}
		if (m->ig_armed && m->ig_deadline < until)
			until = m->ig_deadline;
		if (until == UINT64_MAX) {
			pthread_cond_wait(&m->irq_cond, &m->lock);
		} else {
			ts.tv_sec = (time_t)(until / 1000000000u);
			ts.tv_nsec = (long)(until % 1000000000u);
			pthread_cond_timedwait(&m->irq_cond, &m->lock, &ts);
		}
		now = mono_ns();
	}
	*seen = m->msi;
	pthread_mutex_unlock(&m->lock);
	if (rc)
		return abb_err(rc, "no interrupt within %lld ns", (long long)timeout_ns);
	return 0;
}

static uint64_t model_irq_count(abb_dev *dev)
{
	struct model *m = M(dev);
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->msi;
	pthread_mutex_unlock(&m->lock);
	return n;
}

static int model_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = mono_ns();
	return 0;
}

static int model_delay_ns(abb_dev *dev, int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return 0;
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return 0;
}

const struct abb_backend abb_backend_model = {
	.name = "model",
	.open = model_open,
	.close = model_close,
	.reg_read = model_reg_read,
	.reg_write = model_reg_write,
	.mem_read = model_mem_read,
	.mem_write = model_mem_write,
	.map = model_map,
	.unmap = model_unmap,
	.irq_wait = model_irq_wait,
	.irq_count = model_irq_count,
	.now_ns = model_now_ns,
	.delay_ns = model_delay_ns,
};
