/*
 * bench_module.c - a standalone DAQ module as the benchmarks run it (see
 * bench_module.h).
 */
#include <errno.h>

#include "bench_module.h"

void bench_module_params(struct abb_daq_params *p, int write, size_t size, unsigned n,
			 int threads, uint32_t addr)
{
	abb_daq_params_default(p);
	p->threads = threads;
	/* a readout's buffer also holds the event header */
	p->buffer_size = size + (write ? 0 : ABB_DAQ_HEADER_BYTES);
	p->length = (uint32_t)size;
	p->address = addr;
	p->num_buffers = BENCH_MODULE_NBUF;
	p->max_buffers = n;
}

int bench_module_run(abb_daq_device *d, int write, const struct abb_daq_params *p,
		     double *ns_per)
{
	struct abb_daq_stats st;
	abb_daq_module *m;
	int rc;

	*ns_per = 0.0;
	rc = write ? abb_daq_writer_create(&m, d, NULL, p) : abb_daq_readout_create(&m, d, NULL, p);
	if (rc)
		return rc;
	rc = abb_daq_module_start(m);
	if (!rc)
		rc = abb_daq_module_wait(m, -1);
	abb_daq_module_stats(m, &st);
	if (!rc)
		rc = abb_daq_module_stop(m);
	abb_daq_module_destroy(m);
	if (!rc && st.buffers != p->max_buffers)
		rc = -EIO;
	if (p->max_buffers)
		*ns_per = (double)(st.t_end - st.t_start) / (double)p->max_buffers;
	return rc;
}
