/*
 * bench_module.h - a standalone DAQ module as the benchmarks run it: the
 * parameters (one place, so abb_bench_daq and abb_bench_mprace measure the
 * same module) and one timed run. Part of the tools, not of libabb.
 */
#ifndef ABB_BENCH_MODULE_H
#define ABB_BENCH_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb_daq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffers a module's pool holds (the NumBuffers default); the plain loops
 * of the benchmarks cycle through as many, so both touch the same memory. */
#define BENCH_MODULE_NBUF 8

/* The parameters of a standalone module moving n buffers of size bytes
 * from (write: to) board address addr with a pool of BENCH_MODULE_NBUF
 * buffers and `threads` threads (1: transport and module in one). */
void bench_module_params(struct abb_daq_params *p, int write, size_t size, unsigned n,
			 int threads, uint32_t addr);

/* Creates the module p describes (a writer when write), runs it to its
 * max_buffers and stores the device time per buffer in *ns_per. 0 or a
 * negative errno (-EIO when it moved fewer buffers than asked). */
int bench_module_run(abb_daq_device *d, int write, const struct abb_daq_params *p,
		     double *ns_per);

#ifdef __cplusplus
}
#endif

#endif
