/*
 * backend_sim.h - the parts of libabb's sim backend, between its files:
 *   sim_config.c         options -> struct abbsim_params + abbsim_record
 *   backend_sim_load.c   finding and loading libabbsim.so (the one loader,
 *                        sim/abbsim_loader.c), the fork guard
 *   backend_sim.c        the backend and simulation-only operations
 *   backend_sim_hosttime.c  host-time coupling (opt-in)
 */
#ifndef ABB_BACKEND_SIM_H
#define ABB_BACKEND_SIM_H

#include "abb_options.h"
#include "abb_priv.h"
#include "abbsim_loader.h"

/* Every option of a simulated board, parsed once (sim_config.c); rec's
 * strings point into v. */
struct abb_sim_config {
	struct abb_optvals v;
	struct abbsim_record rec;
};

/* Defaults, the environment, then the URI options args (NULL: none);
 * -EINVAL with libabb's message. */
ABB_HIDDEN int abb_sim_config_parse(struct abb_sim_config *c, const char *args);

/* The loaded simulator (abb_simlib.handle NULL until abb_simlib_load). */
extern ABB_HIDDEN struct abbsim_api abb_simlib;
/* Loads libabbsim.so once per process: path (the option sim_lib) when not
 * empty, else the search order of backend_sim_load.c. 0 or -ENODEV /
 * -ELIBBAD with a message. */
ABB_HIDDEN int abb_simlib_load(const char *path);
/* The simulator's message for its last error, as libabb's: rc. */
ABB_HIDDEN int abb_simlib_err(int rc, const char *what);
/* 1 in a child forked after the simulator was loaded (the board belongs
 * to the parent); abb_simlib_forked gives the error then. */
ABB_HIDDEN int abb_simlib_in_child(void);
ABB_HIDDEN int abb_simlib_forked(const char *what);

/* backend_sim.c: the lockstep tables (abb_backend_sim: backend.h) */
extern ABB_HIDDEN const struct abb_sim_ops abb_sim_ops_lockstep;
/* backend_sim_hosttime.c: switches dev to the coupled tables and
 * calibrates the coupling. */
ABB_HIDDEN void abb_sim_hosttime_start(abb_dev *dev);

#endif
