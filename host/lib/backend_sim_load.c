/*
 * backend_sim_load.c - finds and loads libabbsim.so for the sim backend.
 *
 * libabb does not link the simulator (nor SystemC): the first open of a
 * "sim" device loads libabbsim.so and keeps it for the process (SystemC
 * cannot be restarted). Search order:
 *   1. the option sim_lib (ABB_SIM_LIB), a path to the library (if set,
 *      only this one);
 *   2. the directory libabb itself was loaded from (found with dladdr;
 *      for the static library: the program's directory), and its sim/;
 *   3. the build directory this copy of libabb was built in (ABB_BUILD_DIR);
 *   4. the default loader path ("libabbsim.so").
 * The symbols are resolved by the simulator's one loader
 * (sim/abbsim_loader.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_sim.h"

#ifndef ABB_BUILD_DIR
#define ABB_BUILD_DIR "build"
#endif

#define SIM_LIB "libabbsim.so"

struct abbsim_api abb_simlib;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

int abb_simlib_err(int rc, const char *what)
{
	const char *m = abb_simlib.last_error ? abb_simlib.last_error() : NULL;

	return abb_err(rc, "simulator: %s: %s", what, m && *m ? m : abb_strerror(rc));
}

/* fork(): the simulated board (the SystemC kernel, its thread, the
 * simulator's locks) lives in the process that loaded it; a child has a
 * copy of the memory but no simulation thread, and every call blocked for
 * the whole watchdog before. In a child every call fails at once. */
static volatile int in_child;

static void atfork_child(void)
{
	in_child = 1;
}

int abb_simlib_in_child(void)
{
	return in_child;
}

int abb_simlib_forked(const char *what)
{
	return abb_err(-ECHILD, "simulator: %s: the simulated board belongs to the parent "
		       "process (this process was forked after libabbsim was loaded): open "
		       "the board in the process that uses it", what);
}

/* One candidate: 0 loaded, -ENODEV not there (the reason appended to
 * tried), else the loader's error (a library that is there but unusable
 * is reported as it is, not passed over). */
static int try_load(const char *path, char *tried, size_t n)
{
	char msg[1024];
	size_t used = strlen(tried);
	int rc = abbsim_api_load(path, RTLD_NOW | RTLD_LOCAL, &abb_simlib, msg, sizeof msg);

	if (rc == -ENODEV)
		snprintf(tried + used, n - used, "\n  %s", msg);
	else if (rc)
		abb_err(rc, "sim backend: %s", msg);
	return rc;
}

int abb_simlib_load(const char *path)
{
	char tried[4096] = "", dir[PATH_MAX], cand[PATH_MAX + 32], last[PATH_MAX + 32] = "";
	const char *list[4];
	size_t nlist = 0;
	Dl_info info;
	int rc = -ENODEV;

	pthread_mutex_lock(&load_lock);
	if (abb_simlib.handle) {
		pthread_mutex_unlock(&load_lock);
		return 0;
	}
	if (path && *path) {
		list[nlist++] = path;
	} else {
		static char beside[PATH_MAX + 32], below[PATH_MAX + 32];

		if (dladdr((void *)&abb_open, &info) && info.dli_fname) {
			char *slash;

			if (!realpath(info.dli_fname, dir))
				snprintf(dir, sizeof dir, "%s", info.dli_fname);
			slash = strrchr(dir, '/');
			if (slash) {
				*slash = 0;
				snprintf(beside, sizeof beside, "%s/" SIM_LIB, dir);
				snprintf(below, sizeof below, "%s/sim/" SIM_LIB, dir);
				list[nlist++] = beside;
				list[nlist++] = below;
			}
		}
		list[nlist++] = ABB_BUILD_DIR "/sim/" SIM_LIB;
		list[nlist++] = SIM_LIB;
	}
	for (size_t i = 0; i < nlist && rc == -ENODEV; i++) {
		snprintf(cand, sizeof cand, "%s", list[i]);
		if (!strcmp(cand, last))
			continue; /* the same candidate twice in a row */
		snprintf(last, sizeof last, "%s", cand);
		rc = try_load(cand, tried, sizeof tried);
	}
	if (rc == -ENODEV)
		abb_err(rc, "sim backend: cannot load " SIM_LIB "; tried:%s\nbuild it with `make "
			"all`, or give its path (ABB_SIM_LIB=path, or the URI option sim_lib=path)",
			tried);
	if (!rc)
		pthread_atfork(NULL, NULL, atfork_child);
	pthread_mutex_unlock(&load_lock);
	return rc;
}
