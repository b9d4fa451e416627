/*
 * tb_simlib.h - the simulator libabb has loaded, for tests that reach its
 * C interface directly (mappings at chosen IOVAs, raw PIO): through the
 * simulator's one loader (sim/abbsim_loader.h), never by dlsym here.
 */
#ifndef TB_SIMLIB_H
#define TB_SIMLIB_H

#include "abbsim_loader.h"

/* The C interface of the libabbsim.so this process loaded (the sim
 * backend's), or NULL with why (n bytes) when none is loaded under that
 * name or it does not match this bench. */
const struct abbsim_api *tb_simlib(char *why, size_t n);
/* The same for a test: NULL when none is loaded, and the test is skipped
 * (tb_skip) with the reason; the caller returns then. */
const struct abbsim_api *tb_sim(void);

#endif
