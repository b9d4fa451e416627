/*
 * tb_simlib.c - the simulator libabb has loaded (tb_simlib.h).
 */
#include "tb_simlib.h"
#include "tb.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct abbsim_api api;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const struct abbsim_api *tb_simlib(char *why, size_t n)
{
	const struct abbsim_api *r = NULL;

	pthread_mutex_lock(&lock);
	if (api.handle || abbsim_api_load("libabbsim.so", RTLD_NOW | RTLD_NOLOAD, &api, why, n) == 0)
		r = &api;
	pthread_mutex_unlock(&lock);
	return r;
}

const struct abbsim_api *tb_sim(void)
{
	char why[512];
	const struct abbsim_api *api = tb_simlib(why, sizeof why);

	if (!api)
		tb_skip("libabbsim.so is not loaded under that name (%s)", why);
	return api;
}
