/*
 * backend_sim.c - the simulated board: libabbsim.so, loaded on demand.
 *
 * libabb does not link the simulator (nor SystemC): this backend dlopen()s
 * libabbsim.so the first time a "sim" device is opened and keeps it loaded
 * for the process (SystemC cannot be restarted). Search order:
 *   1. $ABB_SIM_LIB, a path to the library (if set, only this one);
 *   2. the directory libabb itself was loaded from (found with dladdr;
 *      for the static library: the program's directory), and its sim/;
 *   3. the build directory this copy of libabb was built in (ABB_BUILD_DIR);
 *   4. the default loader path ("libabbsim.so").
 *
 * URI options ("sim:mem_size=4M,mps=256") override ABB_SIM_* variables;
 * both are the option table of abb_options.c (`abb_tool options` lists it)
 * with one parser. credits=LIST (flow-control credit limits; LIST as
 * ABB_SIM_CREDITS, its items separated by ':' or '/', or by ',' as further
 * options: "sim:credits=ph=1,pd=8,cpl=mps" and "sim:credits=ph=1:pd=8" are
 * the same). trace=, trace_from=, trace_to=, tlp_log= start tracing after
 * the open (ABB_TRACE* and ABB_TLP_LOG at it).
 *
 * Host-time coupling (opt-in: ABB_SIM_HOSTTIME=1 or hosttime=1): at the
 * entry of every backend operation the simulator advances by the CPU time
 * (CLOCK_THREAD_CPUTIME_ID) the calling thread spent since its previous
 * device call returned, minus the overhead of the measurement itself
 * (ht_setup). Device time then
 * includes the host software's own cost, as on the board. Threads run in
 * parallel: a thread advances device time only up to (device time when its
 * last call returned + its CPU time since), so time another thread already
 * let pass counts for both. The coupled
 * operations are second tables (sim_backend_hosttime, sim_ops_hosttime)
 * that sim_open installs only when asked: the default lockstep path is
 * unchanged.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abb_priv.h"
#include "abb_options.h"
#include "abbsim.h"
#include <abb/abb_sim.h>

#ifndef ABB_BUILD_DIR
#define ABB_BUILD_DIR "build"
#endif

#define SIM_LIB "libabbsim.so"
/* BAR0 size if config-space sizing gives no plausible answer: the 64 KiB
 * the simulator's config space advertises (and the model uses). */
#define SIM_BAR0_FALLBACK 0x10000u

/* The simulator's C interface, resolved with dlsym. */
static struct {
	__typeof__(abbsim_params_default) *params_default;
	__typeof__(abbsim_params_from_env) *params_from_env;
	__typeof__(abbsim_params_check) *params_check;
	__typeof__(abbsim_params_set) *params_set;
	__typeof__(abbsim_get_params) *get_params;
	__typeof__(abbsim_protocol_errors) *protocol_errors;
	__typeof__(abbsim_open) *open;
	__typeof__(abbsim_close) *close;
	__typeof__(abbsim_cfg_read) *cfg_read;
	__typeof__(abbsim_cfg_write) *cfg_write;
	__typeof__(abbsim_cfg_dump) *cfg_dump;
	__typeof__(abbsim_mmio_read) *mmio_read;
	__typeof__(abbsim_mmio_write) *mmio_write;
	__typeof__(abbsim_iommu_max_segs) *iommu_max_segs;
	__typeof__(abbsim_iommu_map) *iommu_map;
	__typeof__(abbsim_iommu_unmap) *iommu_unmap;
	__typeof__(abbsim_faults) *faults;
	__typeof__(abbsim_wait_irq) *wait_irq;
	__typeof__(abbsim_irq_count) *irq_count;
	__typeof__(abbsim_advance) *advance;
	__typeof__(abbsim_now_ps) *now_ps;
	__typeof__(abbsim_cycles) *cycles;
	__typeof__(abbsim_link_stats) *link_stats;
	__typeof__(abbsim_trace_fst) *trace_fst;
	__typeof__(abbsim_tlp_log) *tlp_log;
	__typeof__(abbsim_last_error) *last_error;
	__typeof__(abbsim_abi_version) *abi_version;
	__typeof__(abbsim_trace_note) *trace_note; /* optional */
	__typeof__(abbsim_fault_add) *fault_add;
	__typeof__(abbsim_fault_clear) *fault_clear;
	__typeof__(abbsim_fault_hits) *fault_hits;
} sim;

static pthread_mutex_t sim_load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *sim_handle;
static char sim_path[PATH_MAX];

/* The simulator's message for its last error, as ours. */
static int sim_err(int rc, const char *what)
{
	const char *m = sim.last_error ? sim.last_error() : NULL;

	return abb_err(rc, "simulator: %s: %s", what, m && *m ? m : abb_strerror(rc));
}

/* fork(): the simulated board (the SystemC kernel, its thread, the
 * simulator's locks) lives in the process that loaded it; a child has a
 * copy of the memory but no simulation thread, and every call blocked for
 * the whole watchdog before. In a child every call fails at once. */
static volatile int sim_in_child;

static void sim_atfork_child(void)
{
	sim_in_child = 1;
}

static int forked(const char *what)
{
	return abb_err(-ECHILD, "simulator: %s: the simulated board belongs to the parent "
		       "process (this process was forked after libabbsim was loaded): open "
		       "the board in the process that uses it", what);
}

static int resolve(void *h)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(f) {"abbsim_" #f, offsetof(__typeof__(sim), f)}
		SYM(params_default), SYM(params_from_env), SYM(params_check), SYM(open),
		SYM(close), SYM(cfg_read), SYM(cfg_write), SYM(cfg_dump), SYM(mmio_read),
		SYM(mmio_write), SYM(iommu_max_segs), SYM(iommu_map), SYM(iommu_unmap),
		SYM(faults), SYM(wait_irq), SYM(irq_count), SYM(advance), SYM(now_ps),
		SYM(cycles), SYM(trace_fst), SYM(tlp_log), SYM(last_error), SYM(abi_version),
		SYM(params_set), SYM(get_params), SYM(protocol_errors),
		SYM(fault_add), SYM(fault_clear), SYM(fault_hits), SYM(link_stats),
#undef SYM
	};

	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f)
			return abb_err(-ELIBBAD, "%s has no symbol %s: rebuild it (make all)",
				       sim_path, syms[i].name);
		memcpy((char *)&sim + syms[i].off, &f, sizeof f);
	}
	sim.trace_note = (__typeof__(sim.trace_note))dlsym(h, "abbsim_trace_note");
	if (sim.abi_version() != ABBSIM_ABI_VERSION)
		return abb_err(-ELIBBAD, "%s has ABI version %u, libabb needs %u: rebuild both",
			       sim_path, sim.abi_version(), ABBSIM_ABI_VERSION);
	return 0;
}

static void *try_load(const char *path, char *tried, size_t n)
{
	static _Thread_local char last[PATH_MAX + 32];
	size_t used = strlen(tried);
	void *h;

	if (used && strcmp(last, path) == 0)
		return NULL; /* the same candidate twice in a row */
	snprintf(last, sizeof last, "%s", path);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h)
		snprintf(sim_path, sizeof sim_path, "%s", path);
	else
		snprintf(tried + used, n - used, "\n  %s", dlerror());
	return h;
}

static int load_sim(void)
{
	char tried[2048] = "", dir[PATH_MAX], path[PATH_MAX + 32];
	const char *env = getenv("ABB_SIM_LIB");
	Dl_info info;
	void *h = NULL;
	int rc;

	pthread_mutex_lock(&sim_load_lock);
	if (sim_handle) {
		pthread_mutex_unlock(&sim_load_lock);
		return 0;
	}
	if (env && *env) {
		h = try_load(env, tried, sizeof tried);
	} else {
		if (dladdr((void *)&abb_open, &info) && info.dli_fname) {
			char *slash;

			if (!realpath(info.dli_fname, dir))
				snprintf(dir, sizeof dir, "%s", info.dli_fname);
			slash = strrchr(dir, '/');
			if (slash) {
				*slash = 0;
				snprintf(path, sizeof path, "%s/" SIM_LIB, dir);
				h = try_load(path, tried, sizeof tried);
				if (!h) {
					snprintf(path, sizeof path, "%s/sim/" SIM_LIB, dir);
					h = try_load(path, tried, sizeof tried);
				}
			}
		}
		if (!h)
			h = try_load(ABB_BUILD_DIR "/sim/" SIM_LIB, tried, sizeof tried);
		if (!h)
			h = try_load(SIM_LIB, tried, sizeof tried);
	}
	if (!h) {
		pthread_mutex_unlock(&sim_load_lock);
		return abb_err(-ENODEV, "sim backend: cannot load " SIM_LIB "; tried:%s\nbuild it "
			       "with `make all`, or set ABB_SIM_LIB to its path", tried);
	}
	rc = resolve(h);
	if (rc) {
		dlclose(h);
		memset(&sim, 0, sizeof sim);
	} else {
		sim_handle = h;
		pthread_atfork(NULL, NULL, sim_atfork_child);
	}
	pthread_mutex_unlock(&sim_load_lock);
	return rc;
}

/* A flow-control credit item ("ph", "up.pd", ...) given as an option of
 * its own after credits=. */
static bool credit_key(const char *k)
{
	static const char *const names[] = {"ph", "pd", "nph", "npd", "cplh", "cpld"};

	if (strncmp(k, "up.", 3) == 0)
		k += 3;
	else if (strncmp(k, "down.", 5) == 0)
		k += 5;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(k, names[i]) == 0)
			return true;
	return false;
}

struct sim_opts {
	struct abb_optvals *v;
	char credits[512]; /* the credit items, handed to the parser as one list */
};

/* One URI option of the simulator: the option table's parser (the same as
 * for the ABB_SIM_* variables, abb_options.c). */
static int sim_opt(void *ctx, const char *opt, const char *eq)
{
	struct sim_opts *o = ctx;
	char msg[1024];
	int rc;

	if (strcmp(opt, "credits") == 0 || credit_key(opt)) {
		size_t used = strlen(o->credits);

		snprintf(o->credits + used, sizeof o->credits - used, "%s%s%s%s", used ? "," : "",
			 strcmp(opt, "credits") ? opt : "", strcmp(opt, "credits") ? "=" : "", eq);
		return 0;
	}
	rc = abb_opt_set(o->v, ABB_OPT_SIM, "sim option", opt, eq, msg, sizeof msg);
	return rc ? abb_err(rc, "%s", msg) : 0;
}

/* Applies "key=val,key=val" to v. */
static int parse_options(const char *args, struct abb_optvals *v)
{
	struct sim_opts o = {.v = v};
	char msg[1024];
	int rc = abb_opt_each("sim", args, 512, sim_opt, &o);

	if (!rc && *o.credits) {
		rc = abb_opt_set(v, ABB_OPT_SIM, "sim option", "credits", o.credits, msg, sizeof msg);
		if (rc)
			return abb_err(rc, "%s", msg);
	}
	return rc;
}

static size_t size_bar0(void)
{
	uint32_t cmd, orig, probe;
	size_t size;

	if (sim.cfg_read(0x04, 2, &cmd) || sim.cfg_read(0x10, 4, &orig))
		return 0;
	sim.cfg_write(0x04, 2, cmd & ~0x2u); /* memory decode off while sizing */
	sim.cfg_write(0x10, 4, 0xffffffffu);
	if (sim.cfg_read(0x10, 4, &probe))
		probe = 0;
	sim.cfg_write(0x10, 4, orig);
	sim.cfg_write(0x04, 2, cmd);
	probe &= ~0xfu;
	if (!probe)
		return 0;
	size = (size_t)(~probe + 1u);
	return size & (size - 1) ? 0 : size;
}

static struct abb_backend sim_backend_hosttime;
static struct abb_sim_ops sim_ops_hosttime;
static const struct abb_sim_ops sim_ops;
static pthread_once_t ht_table_once;
static void ht_table_fill(void);
static void ht_setup(abb_dev *dev);

static int sim_open(abb_dev *dev, const char *args)
{
	struct abb_optvals v;
	struct abbsim_params p;
	char msg[1024];
	int hosttime;
	size_t bar0;
	int rc = sim_in_child ? forked("open") : load_sim();

	if (rc)
		return rc;
	/* the parameters: defaults and ABB_SIM_* by the simulator (the same
	 * table and parser as here), libabb's own variables, then the URI */
	abb_opt_defaults(&v);
	sim.params_default(&v.p);
	rc = sim.params_from_env(&v.p);
	if (rc)
		return sim_err(rc, "ABB_SIM_* environment");
	rc = abb_opt_from_env(&v, ABB_OPT_SIM, ABB_OPTG_LIBABB, msg, sizeof msg);
	if (rc)
		return abb_err(rc, "%s", msg);
	rc = parse_options(args, &v);
	if (rc)
		return rc;
	p = v.p;
	if (v.trace[0])
		p.traceable = 1; /* the waveform of trace= below needs the traced model */
	hosttime = (int)v.hosttime;
	rc = sim.params_check(&p);
	if (rc)
		return sim_err(rc, "parameters");
	rc = sim.open(&p);
	if (rc == -EBUSY)
		return abb_err(rc, "the simulated board is open already (one per process): "
			       "abb_close() it first");
	if (rc)
		return sim_err(rc, "open");
	/* tracing given in the URI (the variables are read by abbsim_open) */
	if (v.trace[0] && (rc = sim.trace_fst(v.trace, v.trace_from, v.trace_to)))
		rc = sim_err(rc, "sim option trace");
	if (!rc && v.tlp_log[0] && (rc = sim.tlp_log(v.tlp_log)))
		rc = sim_err(rc, "sim option tlp_log");
	if (rc) {
		sim.close();
		return rc;
	}
	bar0 = size_bar0();
	dev->bar0_size = bar0 >= 0x1000 && bar0 <= (1u << 30) ? bar0 : SIM_BAR0_FALLBACK;
	dev->bar1_size = p.mem_bytes;
	dev->watchdog_s = p.watchdog_s;
	dev->sim = &sim_ops;
	if (hosttime) {
		pthread_once(&ht_table_once, ht_table_fill);
		dev->be = &sim_backend_hosttime;
		dev->sim = &sim_ops_hosttime;
		ht_setup(dev);
	}
	return 0;
}

static void sim_close(abb_dev *dev)
{
	if (!sim_in_child)
		sim.close();
}

static int sim_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	uint8_t b[4] = {0xff, 0xff, 0xff, 0xff};
	int rc = sim.mmio_read(0, off, b, 4);

	/* a failed read gives what the root complex returns: all ones */
	*val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return rc ? sim_err(rc, "register read") : 0;
}

static int sim_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	uint8_t b[4] = {(uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16),
			(uint8_t)(val >> 24)};
	int rc = sim.mmio_write(0, off, b, 4);

	return rc ? sim_err(rc, "register write") : 0;
}

static int sim_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	int rc = sim.mmio_read(1, off, buf, len);

	return rc ? sim_err(rc, "BAR1 read") : 0;
}

static int sim_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	int rc = sim.mmio_write(1, off, buf, len);

	return rc ? sim_err(rc, "BAR1 write") : 0;
}

static int sim_map(abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs)
{
	size_t max = sim.iommu_max_segs(ptr, len);
	struct abbsim_seg *s = calloc(max ? max : 1, sizeof *s);
	struct abb_seg *out;
	int n;

	if (!s)
		return abb_err(-ENOMEM, "out of memory");
	n = sim.iommu_map(ptr, len, s, max);
	if (n <= 0) {
		free(s);
		return sim_err(n ? n : -EIO, "IOMMU map");
	}
	out = calloc((size_t)n, sizeof *out);
	if (!out) {
		sim.iommu_unmap(ptr);
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
	int rc = sim.iommu_unmap(ptr);

	return rc ? sim_err(rc, "IOMMU unmap") : 0;
}

static int sim_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	int rc = sim.wait_irq(seen, timeout_ns);

	if (rc == -ETIMEDOUT)
		return abb_err(rc, "no interrupt within %lld ns (device time)",
			       (long long)timeout_ns);
	return rc ? sim_err(rc, "waiting for an interrupt") : 0;
}

static uint64_t sim_irq_count(abb_dev *dev)
{
	return sim.irq_count();
}

static int sim_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = sim.now_ps() / 1000u;
	return 0;
}

static int sim_cycles(abb_dev *dev, uint64_t *cycles)
{
	*cycles = sim.cycles();
	return 0;
}

/* TLPs moved on the link in both directions: libabb's wall-clock
 * watchdog stops a wait only when this stands still. */
static int sim_link_tlps(abb_dev *dev, uint64_t *n)
{
	struct abbsim_link_stats down, up;
	int rc = sim.link_stats(0, &down);

	if (!rc)
		rc = sim.link_stats(1, &up);
	if (rc)
		return sim_err(rc, "link statistics");
	*n = down.tlps + up.tlps;
	return 0;
}

static int sim_advance(abb_dev *dev, int64_t ns)
{
	int rc = sim.advance(ns);

	return rc ? sim_err(rc, "advance") : 0;
}

static int sim_trace(abb_dev *dev, const char *path, uint64_t from, uint64_t to)
{
	int rc = sim.trace_fst(path, from, to);

	return rc ? sim_err(rc, "FST trace") : 0;
}

static int sim_tlp_log(abb_dev *dev, const char *path)
{
	int rc = sim.tlp_log(path);

	return rc ? sim_err(rc, "TLP log") : 0;
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
	n = sim.faults(f, max);
	if (n < 0) {
		free(f);
		return sim_err(n, "IOMMU faults");
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
	int rc = sim.cfg_dump(path);

	return rc ? sim_err(rc, "config-space dump") : 0;
}

static int sim_cfg_read(abb_dev *dev, unsigned off, unsigned size, uint32_t *val)
{
	int rc = sim.cfg_read(off, size, val);

	return rc ? sim_err(rc, "config read") : 0;
}

static int sim_cfg_write(abb_dev *dev, unsigned off, unsigned size, uint32_t val)
{
	int rc = sim.cfg_write(off, size, val);

	return rc ? sim_err(rc, "config write") : 0;
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
	int rc = sim.get_params(&p);

	if (rc)
		return sim_err(rc, "link parameters");
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
	int rc = sim.protocol_errors(buf, len);

	return rc < 0 ? sim_err(rc, "protocol errors") : rc;
}

/* The rule is the simulator's own type (abbsim_inject.h): no translation. */
static int sim_inject(abb_dev *dev, const struct abb_sim_inject_spec *spec)
{
	int rc = sim.fault_add(spec);

	return rc < 0 ? sim_err(rc, "fault injection") : rc;
}

static int sim_inject_clear(abb_dev *dev)
{
	int rc = sim.fault_clear();

	return rc < 0 ? sim_err(rc, "fault injection") : rc;
}

static int sim_inject_hits(abb_dev *dev, int id)
{
	int rc = sim.fault_hits(id);

	return rc < 0 ? sim_err(rc, "fault injection") : rc;
}

/* The operations as the tables use them: refused at once in a forked
 * child (see sim_atfork_child). */
#define GUARD_OP(name, what, params, args)                                         \
	static int g_##name params                                                 \
	{                                                                          \
		return sim_in_child ? forked(what) : sim_##name args;              \
	}
GUARD_OP(reg_read, "register read", (abb_dev *dev, uint32_t off, uint32_t *val), (dev, off, val))
GUARD_OP(reg_write, "register write", (abb_dev *dev, uint32_t off, uint32_t val), (dev, off, val))
GUARD_OP(mem_read, "BAR1 read", (abb_dev *dev, uint32_t off, void *buf, size_t len),
	 (dev, off, buf, len))
GUARD_OP(mem_write, "BAR1 write", (abb_dev *dev, uint32_t off, const void *buf, size_t len),
	 (dev, off, buf, len))
GUARD_OP(map, "IOMMU map",
	 (abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs),
	 (dev, ptr, len, segs, nsegs))
GUARD_OP(unmap, "IOMMU unmap", (abb_dev *dev, void *ptr, size_t len), (dev, ptr, len))
GUARD_OP(irq_wait, "waiting for an interrupt", (abb_dev *dev, uint64_t *seen, int64_t timeout_ns),
	 (dev, seen, timeout_ns))
GUARD_OP(now_ns, "device time", (abb_dev *dev, uint64_t *ns), (dev, ns))
GUARD_OP(cycles, "cycles", (abb_dev *dev, uint64_t *cycles), (dev, cycles))
GUARD_OP(advance, "advance", (abb_dev *dev, int64_t ns), (dev, ns))
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
GUARD_OP(inject, "fault injection", (abb_dev *dev, const struct abb_sim_inject_spec *spec),
	 (dev, spec))
GUARD_OP(inject_clear, "fault injection", (abb_dev *dev), (dev))
GUARD_OP(inject_hits, "fault injection", (abb_dev *dev, int id), (dev, id))
#undef GUARD_OP

static uint64_t g_irq_count(abb_dev *dev)
{
	return sim_in_child ? 0 : sim_irq_count(dev);
}

static void sim_note(abb_dev *dev, unsigned kind, const char *text)
{
	(void)dev;
	if (sim.trace_note)
		sim.trace_note(kind, text);
}

/* For abb_sim_note(NULL, ...): the simulator of this process, if loaded. */
ABB_HIDDEN void abb_sim_note_any(unsigned kind, const char *text);
void abb_sim_note_any(unsigned kind, const char *text)
{
	if (sim_handle && sim.trace_note && !sim_in_child)
		sim.trace_note(kind, text);
}

const struct abb_backend abb_backend_sim = {
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	.reg_read = g_reg_read,
	.reg_write = g_reg_write,
	.mem_read = g_mem_read,
	.mem_write = g_mem_write,
	.map = g_map,
	.unmap = g_unmap,
	.irq_wait = g_irq_wait,
	.irq_count = g_irq_count,
	.now_ns = g_now_ns,
	.delay_ns = g_advance,
};

/* What only the simulator can do (sim_ops.h): sim_open registers it on
 * the device. */
static const struct abb_sim_ops sim_ops = {
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
	.note = sim_note,
};

/* ---- host-time coupling (opt-in, see the top of the file) ---- */

static unsigned ht_epoch;              /* +1 per open: stale thread marks are ignored */
static uint64_t ht_cost;               /* ns of overhead in every interval (ht_setup) */
static _Thread_local uint64_t ht_last; /* thread CPU ns when its last device call returned */
static _Thread_local uint64_t ht_dev;  /* device ps then */
static _Thread_local unsigned ht_mark; /* ht_epoch of ht_last */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The coupling must charge the host software's own CPU time, not what
 * taking part in the simulation costs the thread between two calls: the
 * reads of the thread's CPU clock (system calls of about 0.3 us here) and
 * the return from a call that blocked while the simulator ran. ht_cost is
 * that overhead, measured at every open as the median gap between
 * consecutive device calls with no host code between them (register reads,
 * which block as a driver's calls do). The minimum of two back-to-back
 * clock reads, used before, left about 0.9 us per register read charged. */
#define HT_CAL_CALLS 33
static int ht_calibrating;              /* set while ht_setup measures */
static uint64_t ht_cal_gap[HT_CAL_CALLS];
static unsigned ht_cal_n;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int ht_reg_read(abb_dev *dev, uint32_t off, uint32_t *val);

static void ht_setup(abb_dev *dev)
{
	uint32_t v;

	__atomic_add_fetch(&ht_epoch, 1, __ATOMIC_RELAXED);
	ht_cost = 0;
	ht_cal_n = 0;
	ht_calibrating = 1;
	for (int i = 0; i < HT_CAL_CALLS + 1; i++) /* the first has no gap before it */
		(void)ht_reg_read(dev, ABB_REG_VERSION, &v);
	ht_calibrating = 0;
	qsort(ht_cal_gap, ht_cal_n, sizeof ht_cal_gap[0], cmp_u64);
	ht_cost = ht_cal_n ? ht_cal_gap[ht_cal_n / 2] : 0;
}

static void ht_enter(void)
{
	uint64_t now = thread_cpu_ns(), target, dev;

	if (ht_mark != __atomic_load_n(&ht_epoch, __ATOMIC_RELAXED) || sim_in_child)
		return;
	if (ht_calibrating) {
		if (ht_cal_n < HT_CAL_CALLS)
			ht_cal_gap[ht_cal_n++] = now - ht_last;
		return;
	}
	if (now <= ht_last + ht_cost)
		return;
	target = ht_dev + (now - ht_last - ht_cost) * 1000u;
	dev = sim.now_ps();
	if (target > dev + 999u)
		sim.advance((int64_t)((target - dev) / 1000u));
}

static void ht_leave(void)
{
	ht_dev = sim.now_ps();
	ht_last = thread_cpu_ns();
	ht_mark = __atomic_load_n(&ht_epoch, __ATOMIC_RELAXED);
}

#define HT_OP(name, type, params, args)                                            \
	static type ht_##name params                                               \
	{                                                                          \
		type rc;                                                           \
                                                                                   \
		ht_enter();                                                        \
		rc = g_##name args;                                                \
		ht_leave();                                                        \
		return rc;                                                         \
	}
HT_OP(reg_read, int, (abb_dev *dev, uint32_t off, uint32_t *val), (dev, off, val))
HT_OP(reg_write, int, (abb_dev *dev, uint32_t off, uint32_t val), (dev, off, val))
HT_OP(mem_read, int, (abb_dev *dev, uint32_t off, void *buf, size_t len), (dev, off, buf, len))
HT_OP(mem_write, int, (abb_dev *dev, uint32_t off, const void *buf, size_t len),
      (dev, off, buf, len))
HT_OP(map, int, (abb_dev *dev, void *ptr, size_t len, struct abb_seg **segs, size_t *nsegs),
      (dev, ptr, len, segs, nsegs))
HT_OP(unmap, int, (abb_dev *dev, void *ptr, size_t len), (dev, ptr, len))
HT_OP(irq_wait, int, (abb_dev *dev, uint64_t *seen, int64_t timeout_ns), (dev, seen, timeout_ns))
HT_OP(irq_count, uint64_t, (abb_dev *dev), (dev))
HT_OP(now_ns, int, (abb_dev *dev, uint64_t *ns), (dev, ns))
HT_OP(advance, int, (abb_dev *dev, int64_t ns), (dev, ns))
#undef HT_OP

/* The coupled tables: the lockstep ones with every operation that lets
 * device time pass (or reads it) wrapped, so an operation added to a
 * lockstep table is in its coupled one too. Filled once, before the first
 * coupled open. */
static pthread_once_t ht_table_once = PTHREAD_ONCE_INIT;

static void ht_table_fill(void)
{
	struct abb_backend *t = &sim_backend_hosttime;
	struct abb_sim_ops *o = &sim_ops_hosttime;

	*t = abb_backend_sim;
	t->reg_read = ht_reg_read;
	t->reg_write = ht_reg_write;
	t->mem_read = ht_mem_read;
	t->mem_write = ht_mem_write;
	t->map = ht_map;
	t->unmap = ht_unmap;
	t->irq_wait = ht_irq_wait;
	t->irq_count = ht_irq_count;
	t->now_ns = ht_now_ns;
	t->delay_ns = ht_advance;

	*o = sim_ops;
	o->hosttime = 1;
	o->advance = ht_advance;
}
