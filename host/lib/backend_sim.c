/*
 * backend_sim.c - the simulated board: the backend operations and the
 * simulation-only ones (sim_ops.h) over the simulator's C interface
 * (abbsim.h), loaded by backend_sim_load.c.
 *
 * URI options ("sim:mem_size=4M,mps=256") override the ABB_SIM_* and
 * ABB_TRACE* variables; both are the option table of abb_options.c
 * (`abb_tool options` lists it), parsed once (sim_config.c) and handed to
 * the simulator at abbsim_open: its parameters and what the run records.
 * Host-time coupling (hosttime=1): backend_sim_hosttime.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abbsim_cfg.h"
#include "backend_sim.h"
#include <abb/abb_sim.h>


/* BAR0 size if config-space sizing gives no plausible answer: the 64 KiB
 * the simulator's config space advertises (and the reference model uses). */
#define SIM_BAR0_FALLBACK 0x10000u

static size_t size_bar0(void)
{
	uint32_t cmd, orig, probe;
	size_t size;

	if (abb_simlib.cfg_read(ABBSIM_CFG_COMMAND, 2, &cmd) || abb_simlib.cfg_read(ABBSIM_CFG_BAR0, 4, &orig))
		return 0;
	abb_simlib.cfg_write(ABBSIM_CFG_COMMAND, 2, cmd & ~ABBSIM_CMD_MEM); /* memory decode off while sizing */
	abb_simlib.cfg_write(ABBSIM_CFG_BAR0, 4, 0xffffffffu);
	if (abb_simlib.cfg_read(ABBSIM_CFG_BAR0, 4, &probe))
		probe = 0;
	abb_simlib.cfg_write(ABBSIM_CFG_BAR0, 4, orig);
	abb_simlib.cfg_write(ABBSIM_CFG_COMMAND, 2, cmd);
	probe &= ~ABBSIM_BAR_FLAGS;
	if (!probe)
		return 0;
	size = (size_t)(~probe + 1u);
	return size & (size - 1) ? 0 : size;
}

/* Per-interrupt host latency of the open board (irq_ns + driver_ns, or the
 * profile's values): one board per process, so one value. */
static int64_t sim_irq_host_ns;
/* How the open board's BAR1 is mapped for the store model (pio=), and
 * its CPU profile: for abb_pio_mapping. */
static unsigned sim_pio_wc, sim_pio_cpu;

static int sim_open(abb_dev *dev, const char *args)
{
	struct abb_sim_config *c;
	size_t bar0;
	char msg[256];
	int rc;

	if (abb_simlib_in_child())
		return abb_simlib_forked("open");
	c = malloc(sizeof *c); /* large (file names): not on the stack */
	if (!c)
		return abb_err(-ENOMEM, "out of memory");
	rc = abb_sim_config_parse(c, args);
	if (!rc && (rc = abb_opt_apply_profile(&c->v, ABB_OPT_SIM, msg, sizeof msg)))
		rc = abb_err(rc, "%s", msg);
	if (!rc) {
		sim_irq_host_ns = abb_opt_irq_host_ns(&c->v);
		sim_pio_wc = c->v.p.pio_wc;
		sim_pio_cpu = c->v.p.cpu;
		rc = abb_simlib_load(c->v.sim_lib);
	}
	if (!rc && (rc = abb_simlib.params_check(&c->v.p)))
		rc = abb_simlib_err(rc, "parameters");
	if (!rc && (rc = abb_simlib.open(&c->v.p, &c->rec))) {
		if (rc == -EBUSY)
			rc = abb_err(rc, "the simulated board is open already (one per process): "
				     "abb_close() it first");
		else
			rc = abb_simlib_err(rc, "open");
	}
	if (rc) {
		free(c);
		return rc;
	}
	bar0 = size_bar0();
	dev->bar0_size = bar0 >= 0x1000 && bar0 <= (1u << 30) ? bar0 : SIM_BAR0_FALLBACK;
	dev->bar1_size = c->v.p.mem_bytes;
	dev->watchdog_s = c->v.p.watchdog_s;
	dev->sim = &abb_sim_ops_lockstep;
	if (c->v.hosttime)
		abb_sim_hosttime_start(dev);
	free(c);
	return 0;
}

static void sim_close(abb_dev *dev)
{
	if (!abb_simlib_in_child())
		abb_simlib.close();
}

static int sim_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	uint8_t b[4] = {0xff, 0xff, 0xff, 0xff};
	int rc = abb_simlib.mmio_read(0, off, b, 4);

	/* a failed read gives what the root complex returns: all ones */
	*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return rc ? abb_simlib_err(rc, "register read") : 0;
}

static int sim_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	uint8_t b[4] = {(uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16),
			(uint8_t)(val >> 24)};
	int rc = abb_simlib.mmio_write(0, off, b, 4);

	return rc ? abb_simlib_err(rc, "register write") : 0;
}

static int sim_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	int rc = abb_simlib.mmio_read(1, off, buf, len);

	return rc ? abb_simlib_err(rc, "BAR1 read") : 0;
}

static int sim_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	int rc = abb_simlib.mmio_write(1, off, buf, len);

	return rc ? abb_simlib_err(rc, "BAR1 write") : 0;
}

static int sim_pio_store(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			 unsigned store_bytes)
{
	int rc = abb_simlib.pio_store(off, buf, len, store_bytes);

	return rc ? abb_simlib_err(rc, "BAR1 stores") : 0;
}

static int sim_pio_flush(abb_dev *dev)
{
	int rc = abb_simlib.pio_fence();

	return rc ? abb_simlib_err(rc, "BAR1 store fence") : 0;
}

static int sim_pio_mapping(abb_dev *dev, char *why, size_t n)
{
	static const char *const cpu[] = {"x86-today", "x86-2011"};
	const char *c = sim_pio_cpu < sizeof cpu / sizeof cpu[0] ? cpu[sim_pio_cpu] : "?";

	if (sim_pio_wc)
		snprintf(why, n, "write-combined (simulated: pio=wc, BAR1 prefetchable, CPU %s)", c);
	else
		snprintf(why, n, "uncached (simulated: pio=uc, CPU %s)", c);
	return sim_pio_wc ? ABB_PIO_WC : ABB_PIO_UC;
}

static int sim_pio_stats(abb_dev *dev, struct abb_sim_pio_stats *out, int clear)
{
	struct abbsim_pio_stats s;
	int rc = abb_simlib.pio_stats(&s, clear);

	if (rc)
		return abb_simlib_err(rc, "store model statistics");
	*out = (struct abb_sim_pio_stats){s.wc, s.wc_buffers, s.stores, s.store_bytes, s.tlps,
					  s.arrived_tlps, s.arrived_bytes, s.first_store_ps,
					  s.last_arrival_ps};
	return 0;
}

static int sim_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	size_t max = abb_simlib.iommu_max_segs(ptr, len);
	struct abbsim_seg *s = calloc(max ? max : 1, sizeof *s);
	struct abb_seg *out;
	int n;

	if (!s)
		return abb_err(-ENOMEM, "out of memory");
	n = abb_simlib.iommu_map(ptr, len, s, max);
	if (n <= 0) {
		free(s);
		return abb_simlib_err(n ? n : -EIO, "IOMMU map");
	}
	out = calloc((size_t)n, sizeof *out);
	if (!out) {
		abb_simlib.iommu_unmap(ptr);
		free(s);
		return abb_err(-ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		out[i].iova = s[i].iova;
		out[i].len = s[i].len;
	}
	free(s);
	*segs = out;
	*nsegs = (size_t)n;
	return 0;
}

static int sim_unmap(abb_dev *dev, void *ptr, size_t len)
{
	int rc = abb_simlib.iommu_unmap(ptr);

	return rc ? abb_simlib_err(rc, "IOMMU unmap") : 0;
}

static int sim_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	int rc = abb_simlib.wait_irq(seen, timeout_ns);

	/* the host sees the interrupt only after its delivery and the driver's
	 * wake-up: device time runs on meanwhile */
	if (!rc && sim_irq_host_ns > 0)
		rc = abb_simlib.advance(sim_irq_host_ns);

	if (rc == -ETIMEDOUT)
		return abb_err(rc, "no interrupt within %lld ns (device time)",
			       (long long)timeout_ns);
	return rc ? abb_simlib_err(rc, "waiting for an interrupt") : 0;
}

static uint64_t sim_irq_count(abb_dev *dev)
{
	return abb_simlib.irq_count();
}

static int sim_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = abb_simlib.now_ps() / 1000u;
	return 0;
}

static int sim_cycles(abb_dev *dev, uint64_t *cycles)
{
	*cycles = abb_simlib.cycles();
	return 0;
}

/* TLPs moved on the link in both directions: libabb's wall-clock
 * watchdog stops a wait only when this stands still. */
static int sim_link_tlps(abb_dev *dev, uint64_t *n)
{
	struct abbsim_link_stats down, up;
	int rc = abb_simlib.link_stats(0, &down);

	if (!rc)
		rc = abb_simlib.link_stats(1, &up);
	if (rc)
		return abb_simlib_err(rc, "link statistics");
	*n = down.tlps + up.tlps;
	return 0;
}

static int sim_advance(abb_dev *dev, int64_t ns)
{
	int rc = abb_simlib.advance(ns);

	return rc ? abb_simlib_err(rc, "advance") : 0;
}

static int sim_poll_reg(abb_dev *dev, const struct abb_poll *q, uint32_t *val, uint64_t *reads)
{
	struct abbsim_poll p = {
		.bar = 0, .off = q->off, .mask = q->mask, .busy = q->busy, .first_ns = q->first_ns,
		.deadline_ns = q->stop_ns, .spin = q->spin, .nap_div = q->nap_div,
		.nap_min_ns = q->nap_min_ns, .nap_max_ns = q->nap_max_ns,
	};
	int rc = abb_simlib.poll_reg(&p, val, reads);

	if (rc == -ETIMEDOUT)
		return abb_err(rc, "register 0x%x did not change by %llu ns (device time)", q->off,
			       (unsigned long long)q->stop_ns);
	return rc ? abb_simlib_err(rc, "polled register read") : 0;
}

static int sim_trace(abb_dev *dev, const char *path, uint64_t from, uint64_t to)
{
	int rc = abb_simlib.trace_fst(path, from, to);

	return rc ? abb_simlib_err(rc, "FST trace") : 0;
}

static int sim_tlp_log(abb_dev *dev, const char *path)
{
	int rc = abb_simlib.tlp_log(path);

	return rc ? abb_simlib_err(rc, "TLP log") : 0;
}

static int sim_faults(abb_dev *dev, struct abb_sim_fault *out, size_t max)
{
	struct abbsim_fault *f = NULL;
	int n;

	if (max) {
		f = calloc(max, sizeof *f);
		if (!f)
			return abb_err(-ENOMEM, "out of memory");
	}
	n = abb_simlib.faults(f, max);
	if (n < 0) {
		free(f);
		return abb_simlib_err(n, "IOMMU faults");
	}
	for (size_t i = 0; i < max && i < (size_t)n; i++) {
		out[i].iova = f[i].iova;
		out[i].len = f[i].len;
		out[i].is_write = f[i].is_write;
		out[i].cycle = f[i].cycle;
	}
	free(f);
	return n;
}

static int sim_cfg_dump(abb_dev *dev, const char *path)
{
	int rc = abb_simlib.cfg_dump(path);

	return rc ? abb_simlib_err(rc, "config-space dump") : 0;
}

static int sim_cfg_read(abb_dev *dev, unsigned off, unsigned size, uint32_t *val)
{
	int rc = abb_simlib.cfg_read(off, size, val);

	return rc ? abb_simlib_err(rc, "config read") : 0;
}

static int sim_cfg_write(abb_dev *dev, unsigned off, unsigned size, uint32_t val)
{
	int rc = abb_simlib.cfg_write(off, size, val);

	return rc ? abb_simlib_err(rc, "config write") : 0;
}

static void sim_credits_out(struct abb_sim_credits *o, const struct abbsim_credits *c)
{
	o->ph = c->ph;
	o->pd = c->pd;
	o->nph = c->nph;
	o->npd = c->npd;
	o->cplh = c->cplh;
	o->cpld = c->cpld;
}

static int sim_link_params(abb_dev *dev, struct abb_sim_link *out)
{
	struct abbsim_params p;
	int rc = abb_simlib.get_params(&p);

	if (rc)
		return abb_simlib_err(rc, "link parameters");
	memset(out, 0, sizeof *out);
	out->gen = p.gen;
	out->lanes = p.lanes;
	out->mps = p.mps;
	out->mrrs = p.mrrs;
	out->rcb = p.rcb;
	out->clk_mhz = p.clk_mhz;
	out->cpl_rcb = p.cpl_rcb;
	out->link_ns = p.link_latency_ns;
	out->mem_ns = p.mem_latency_ns;
	out->reorder = p.reorder;
	out->seed = p.seed;
	out->mem_size = p.mem_bytes;
	out->iova_scatter = p.iova_scatter;
	sim_credits_out(&out->up, &p.credits_up);
	sim_credits_out(&out->down, &p.credits_down);
	return 0;
}

static int sim_protocol_errors(abb_dev *dev, char *buf, size_t len)
{
	int rc = abb_simlib.protocol_errors(buf, len);

	return rc < 0 ? abb_simlib_err(rc, "protocol errors") : rc;
}

/* The rule is the simulator's own type (abbsim_inject.h): no translation. */
static int sim_inject(abb_dev *dev, const struct abb_sim_inject_spec *spec)
{
	int rc = abb_simlib.inject_add(spec);

	return rc < 0 ? abb_simlib_err(rc, "link injection") : rc;
}

static int sim_inject_clear(abb_dev *dev)
{
	int rc = abb_simlib.inject_clear();

	return rc < 0 ? abb_simlib_err(rc, "link injection") : rc;
}

static int sim_inject_hits(abb_dev *dev, int id)
{
	int rc = abb_simlib.inject_hits(id);

	return rc < 0 ? abb_simlib_err(rc, "link injection") : rc;
}

/* The operations as the tables use them: refused at once in a forked
 * child (see sim_atfork_child). */
#define GUARD_OP(name, what, params, args)                                         \
	static int g_##name params                                                 \
	{                                                                          \
		return abb_simlib_in_child() ? abb_simlib_forked(what) : sim_##name args;              \
	}
GUARD_OP(reg_read, "register read", (abb_dev *dev, uint32_t off, uint32_t *val), (dev, off, val))
GUARD_OP(reg_write, "register write", (abb_dev *dev, uint32_t off, uint32_t val), (dev, off, val))
GUARD_OP(mem_read, "BAR1 read", (abb_dev *dev, uint32_t off, void *buf, size_t len),
	 (dev, off, buf, len))
GUARD_OP(mem_write, "BAR1 write", (abb_dev *dev, uint32_t off, const void *buf, size_t len),
	 (dev, off, buf, len))
GUARD_OP(pio_store, "BAR1 stores",
	 (abb_dev *dev, uint32_t off, const void *buf, size_t len, unsigned store_bytes),
	 (dev, off, buf, len, store_bytes))
GUARD_OP(pio_flush, "BAR1 store fence", (abb_dev *dev), (dev))
GUARD_OP(pio_stats, "store model statistics",
	 (abb_dev *dev, struct abb_sim_pio_stats *out, int clear), (dev, out, clear))
GUARD_OP(map, "IOMMU map",
	 (abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs),
	 (dev, ptr, len, segs, nsegs))
GUARD_OP(unmap, "IOMMU unmap", (abb_dev *dev, void *ptr, size_t len), (dev, ptr, len))
GUARD_OP(irq_wait, "waiting for an interrupt", (abb_dev *dev, uint64_t *seen, int64_t timeout_ns),
	 (dev, seen, timeout_ns))
GUARD_OP(now_ns, "device time", (abb_dev *dev, uint64_t *ns), (dev, ns))
GUARD_OP(cycles, "cycles", (abb_dev *dev, uint64_t *cycles), (dev, cycles))
GUARD_OP(advance, "advance", (abb_dev *dev, int64_t ns), (dev, ns))
GUARD_OP(poll_reg, "polled register read",
	 (abb_dev *dev, const struct abb_poll *q, uint32_t *val, uint64_t *reads), (dev, q, val, reads))
GUARD_OP(link_tlps, "link statistics", (abb_dev *dev, uint64_t *n), (dev, n))
GUARD_OP(trace, "FST trace", (abb_dev *dev, const char *path, uint64_t from, uint64_t to),
	 (dev, path, from, to))
GUARD_OP(tlp_log, "TLP log", (abb_dev *dev, const char *path), (dev, path))
GUARD_OP(faults, "IOMMU faults", (abb_dev *dev, struct abb_sim_fault *out, size_t max),
	 (dev, out, max))
GUARD_OP(cfg_dump, "config-space dump", (abb_dev *dev, const char *path), (dev, path))
GUARD_OP(cfg_read, "config read", (abb_dev *dev, unsigned off, unsigned size, uint32_t *val),
	 (dev, off, size, val))
GUARD_OP(cfg_write, "config write", (abb_dev *dev, unsigned off, unsigned size, uint32_t val),
	 (dev, off, size, val))
GUARD_OP(link_params, "link parameters", (abb_dev *dev, struct abb_sim_link *out), (dev, out))
GUARD_OP(protocol_errors, "protocol errors", (abb_dev *dev, char *buf, size_t len), (dev, buf, len))
GUARD_OP(inject, "link injection", (abb_dev *dev, const struct abb_sim_inject_spec *spec),
	 (dev, spec))
GUARD_OP(inject_clear, "link injection", (abb_dev *dev), (dev))
GUARD_OP(inject_hits, "link injection", (abb_dev *dev, int id), (dev, id))
#undef GUARD_OP

static uint64_t g_irq_count(abb_dev *dev)
{
	return abb_simlib_in_child() ? 0 : sim_irq_count(dev);
}

static void sim_note(abb_dev *dev, unsigned kind, unsigned channel, const char *text)
{
	(void)dev;
	if (!abb_simlib_in_child())
		abb_simlib.trace_note(kind, channel, text);
}

/* For abb_sim_note(NULL, ...): the simulator of this process, if loaded. */
ABB_HIDDEN void abb_sim_note_any(unsigned kind, const char *text);
void abb_sim_note_any(unsigned kind, const char *text)
{
	if (abb_simlib.handle && !abb_simlib_in_child())
		abb_simlib.trace_note(kind, ABB_SIM_NOTE_NO_CHANNEL, text);
}

const struct abb_backend abb_backend_sim = {
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	.reg_read = g_reg_read,
	.reg_write = g_reg_write,
	.mem_read = g_mem_read,
	.mem_write = g_mem_write,
	.pio_store = g_pio_store,
	.pio_flush = g_pio_flush,
	.pio_mapping = sim_pio_mapping,
	.map = g_map,
	.unmap = g_unmap,
	.irq_wait = g_irq_wait,
	.irq_count = g_irq_count,
	.now_ns = g_now_ns,
	.delay_ns = g_advance,
	.poll_reg = g_poll_reg,
};

/* What only the simulator can do (sim_ops.h): sim_open registers it on
 * the device. */
const struct abb_sim_ops abb_sim_ops_lockstep = {
	.cycles = g_cycles,
	.link_tlps = g_link_tlps,
	.advance = g_advance,
	.trace = g_trace,
	.tlp_log = g_tlp_log,
	.faults = g_faults,
	.cfg_dump = g_cfg_dump,
	.cfg_read = g_cfg_read,
	.cfg_write = g_cfg_write,
	.link_params = g_link_params,
	.protocol_errors = g_protocol_errors,
	.inject = g_inject,
	.inject_clear = g_inject_clear,
	.inject_hits = g_inject_hits,
	.pio_stats = g_pio_stats,
	.note = sim_note,
};

