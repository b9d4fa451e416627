/*
 * abb_sim_api.c - the simulation-only extras of <abb/abb_sim.h>.
 *
 * Each one dispatches to the simulation-only operations the sim backend
 * (and the timed reference model, for the ones it serves) registers on the
 * device (dev->sim, sim_ops.h); other backends (the real board, the
 * untimed reference model) have none and answer -ENOTSUP, so programs may
 * call these unconditionally.
 */
#include <stdarg.h>
#include <errno.h>

#include "abb_options.h"
#include "abb_priv.h"
#include <abb/abb_sim.h>

/* The backend's op, counted as a PIO call (abb_pio_enter): abb_close waits
 * for it, and refuses it once the close began. */
#define SIM_CALL(dev, call)                                 \
	do {                                                \
		int rc_ = abb_pio_enter(__func__, dev);     \
		if (rc_)                                    \
			return rc_;                         \
		rc_ = (call);                               \
		abb_pio_leave(dev);                         \
		return rc_;                                 \
	} while (0)

/* dev is an open handle (a closed one is refused, as every call of
 * <abb/abb.h> does: it must not reach the simulator another handle may
 * have opened since) whose backend registered the simulation-only
 * operations (dev->sim, sim_ops.h: the sim backend, the timed reference
 * model; the board and the untimed model have none). */
static int check(const char *fn, abb_dev *dev)
{
	int rc = abb_dev_check(fn, dev);

	if (rc)
		return rc;
	if (!dev->sim)
		return abb_err(-ENOTSUP, "%s: only the simulator has this (some also the timed "
			       "model, model:timed=1); the %s backend does not", fn, dev->be->name);
	return 0;
}

int abb_sim_cycles(abb_dev *dev, uint64_t *cycles)
{
	int rc = check("abb_sim_cycles", dev);

	if (rc)
		return rc;
	if (!cycles)
		return abb_err(-EINVAL, "abb_sim_cycles: cycles is NULL");
	SIM_CALL(dev, dev->sim->cycles(dev, cycles));
}

int abb_sim_advance(abb_dev *dev, int64_t ns)
{
	int rc = check("abb_sim_advance", dev);

	if (rc)
		return rc;
	if (ns < 0)
		return abb_err(-EINVAL, "abb_sim_advance: ns %lld is negative", (long long)ns);
	SIM_CALL(dev, dev->sim->advance(dev, ns));
}

int abb_sim_trace(abb_dev *dev, const char *path, uint64_t from_cycle, uint64_t to_cycle)
{
	int rc = check("abb_sim_trace", dev);

	if (rc)
		return rc;
	if (!path || !*path)
		return abb_err(-EINVAL, "abb_sim_trace: path is NULL or empty");
	if (to_cycle && to_cycle <= from_cycle)
		return abb_err(-EINVAL, "abb_sim_trace: window [%llu, %llu) is empty; to_cycle 0 "
			       "means until close", (unsigned long long)from_cycle,
			       (unsigned long long)to_cycle);
	SIM_CALL(dev, dev->sim->trace(dev, path, from_cycle, to_cycle));
}

int abb_sim_tlp_log(abb_dev *dev, const char *path)
{
	int rc = check("abb_sim_tlp_log", dev);

	if (rc)
		return rc;
	if (!path || !*path)
		return abb_err(-EINVAL, "abb_sim_tlp_log: path is NULL or empty");
	SIM_CALL(dev, dev->sim->tlp_log(dev, path));
}

int abb_sim_faults(abb_dev *dev, struct abb_sim_fault *out, size_t max)
{
	int rc = check("abb_sim_faults", dev);

	if (rc)
		return rc;
	if (!out && max)
		return abb_err(-EINVAL, "abb_sim_faults: out is NULL but max is %zu", max);
	SIM_CALL(dev, dev->sim->faults(dev, out, max));
}

int abb_sim_cfg_dump(abb_dev *dev, const char *path)
{
	int rc = check("abb_sim_cfg_dump", dev);

	if (rc)
		return rc;
	if (!path || !*path)
		return abb_err(-EINVAL, "abb_sim_cfg_dump: path is NULL or empty");
	SIM_CALL(dev, dev->sim->cfg_dump(dev, path));
}

int abb_sim_cfg_read(abb_dev *dev, unsigned off, unsigned size, uint32_t *val)
{
	int rc = check("abb_sim_cfg_read", dev);

	if (rc)
		return rc;
	if (!val)
		return abb_err(-EINVAL, "abb_sim_cfg_read: val is NULL");
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= 4096 || size > 4096 - off)
		return abb_err(-EINVAL, "abb_sim_cfg_read: offset 0x%x size %u: accepted size 1, 2 "
			       "or 4, naturally aligned, below 4096", off, size);
	SIM_CALL(dev, dev->sim->cfg_read(dev, off, size, val));
}

int abb_sim_cfg_write(abb_dev *dev, unsigned off, unsigned size, uint32_t val)
{
	int rc = check("abb_sim_cfg_write", dev);

	if (rc)
		return rc;
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= 4096 || size > 4096 - off)
		return abb_err(-EINVAL, "abb_sim_cfg_write: offset 0x%x size %u: accepted size 1, 2 "
			       "or 4, naturally aligned, below 4096", off, size);
	SIM_CALL(dev, dev->sim->cfg_write(dev, off, size, val));
}

int abb_sim_link_params(abb_dev *dev, struct abb_sim_link *out)
{
	int rc = check("abb_sim_link_params", dev);

	if (rc)
		return rc;
	if (!out)
		return abb_err(-EINVAL, "abb_sim_link_params: out is NULL");
	SIM_CALL(dev, dev->sim->link_params(dev, out));
}

int abb_sim_hosttime(abb_dev *dev)
{
	int rc = check("abb_sim_hosttime", dev);

	return rc ? rc : (int)dev->sim->hosttime;
}

int abb_sim_protocol_errors(abb_dev *dev, char *buf, size_t len)
{
	int rc = check("abb_sim_protocol_errors", dev);

	if (rc)
		return rc;
	SIM_CALL(dev, dev->sim->protocol_errors(dev, buf, len));
}

void abb_sim_note_any(unsigned kind, const char *text); /* backend_sim.c */

void abb_sim_note(abb_dev *dev, unsigned kind, const char *text)
{
	if (!dev)
		abb_sim_note_any(kind, text);
	else if (abb_dev_check("abb_sim_note", dev) == 0 && dev->sim && dev->sim->note &&
		 abb_pio_enter("abb_sim_note", dev) == 0) {
		dev->sim->note(dev, kind, ABB_SIM_NOTE_NO_CHANNEL, text);
		abb_pio_leave(dev);
	}
}

void abb_note(abb_dev *dev, unsigned kind, unsigned channel, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!dev->sim || !dev->sim->note)
		return; /* nothing takes notes: not even formatted */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	dev->sim->note(dev, kind, channel, buf);
}

int abb_sim_inject(abb_dev *dev, const struct abb_sim_inject_spec *spec)
{
	int rc = check("abb_sim_inject", dev);

	if (rc)
		return rc;
	if (!spec)
		return abb_err(-EINVAL, "abb_sim_inject: spec is NULL");
	SIM_CALL(dev, dev->sim->inject(dev, spec));
}

int abb_sim_inject_clear(abb_dev *dev)
{
	int rc = check("abb_sim_inject_clear", dev);

	if (rc)
		return rc;
	SIM_CALL(dev, dev->sim->inject_clear(dev));
}

int abb_sim_inject_hits(abb_dev *dev, int id)
{
	int rc = check("abb_sim_inject_hits", dev);

	if (rc)
		return rc;
	SIM_CALL(dev, dev->sim->inject_hits(dev, id));
}

int abb_sim_pio_stats(abb_dev *dev, struct abb_sim_pio_stats *out, int clear)
{
	int rc = check("abb_sim_pio_stats", dev);

	if (rc)
		return rc;
	if (!out)
		return abb_err(-EINVAL, "abb_sim_pio_stats: out is NULL");
	SIM_CALL(dev, dev->sim->pio_stats(dev, out, clear));
}

int abb_sim_options(FILE *f, int markdown)
{
	if (!f)
		return abb_err(-EINVAL, "abb_sim_options: f is NULL");
	abb_opt_print(f, markdown);
	return 0;
}
