/*
 * abbsim_loader.h - the one loader of libabbsim.so: every function of the
 * simulator's C interface (abbsim.h) resolved into a table, the ABI
 * version checked.
 *
 * Programs that must not link the simulator (libabb's sim backend, the
 * emulated VFIO kernel of the test bench) load it with dlopen; this is the
 * only place that lists its symbols. abbsim_loader.c is compiled into each
 * of them; libabbsim itself does not contain it.
 */
#ifndef ABBSIM_LOADER_H
#define ABBSIM_LOADER_H

#include <stddef.h>

#include "abbsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name): abbsim_<name>, every function of abbsim.h (the static inline
 * helpers excepted). */
#define ABBSIM_API_FUNCS(X)                                                        \
	X(params_default) X(clk_mhz) X(params_check) X(open) X(close) X(get_params) \
	X(cfg_read) X(cfg_write) X(cfg_dump) X(mmio_read) X(mmio_write)             \
	X(iommu_max_segs) X(iommu_map) X(iommu_unmap) X(iommu_map_at)               \
	X(iommu_unmap_iova) X(faults) X(wait_irq) X(irq_count) X(intx_asserted)     \
	X(advance) X(now_ps) X(cycles) X(wait_idle) X(poll_reg) X(trace_fst) X(trace_note)      \
	X(pio_store) X(pio_fence) X(pio_stats) X(tlp_log) X(link_stats) X(protocol_errors) X(inject_add) X(inject_clear)     \
	X(inject_hits) X(last_error) X(abi_version)

struct abbsim_api {
	void *handle; /* of dlopen; NULL: not loaded */
#define ABBSIM_API_MEMBER(f) __typeof__(abbsim_##f) *f;
	ABBSIM_API_FUNCS(ABBSIM_API_MEMBER)
#undef ABBSIM_API_MEMBER
};

/* Loads path with dlopen (flags as dlopen's, e.g. RTLD_NOW | RTLD_LOCAL;
 * with RTLD_NOLOAD: the copy this process has loaded already) and fills
 * api. 0, or -ENODEV (dlopen failed), -ELIBBAD (a symbol missing, another
 * ABI version): api zeroed, the library closed again, msg (n bytes) says
 * what and what to do. */
int abbsim_api_load(const char *path, int flags, struct abbsim_api *api, char *msg, size_t n);
/* Closes what abbsim_api_load opened and zeroes api. */
void abbsim_api_unload(struct abbsim_api *api);

#ifdef __cplusplus
}
#endif
#endif
