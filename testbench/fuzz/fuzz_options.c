/*
 * fuzz_options.c - libFuzzer target: the simulator and model options.
 *
 * The first byte chooses the entry point, the rest is the text:
 *   0  abb_open("model:TEXT"): the URI splitter (abb_opt_each), the number
 *      parser (abb_opt_number) and the model's keys; closed again if it
 *      opened
 *   1  the sim URI: abb_opt_each("sim", TEXT, 512) with every value through
 *      abb_opt_number, and credits=/cpl= values through abbsim_params_set
 *      (sim/params.cpp, linked in), then abbsim_params_check
 *   2  the simulator's environment: TEXT is lines "i VALUE"; byte i picks
 *      one of the ABB_SIM_* variables, which is set to VALUE; then
 *      abbsim_params_from_env (every variable unset again afterwards)
 * Checks: no crash or undefined behaviour (ASan+UBSan), every call returns
 * 0 or a negative errno, a failed abbsim_params_from_env leaves the params
 * unchanged.
 */
#include <abb/abb.h>
#include <abb/abb_sim.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abb_priv.h"
#include "abbsim.h"

#define CHECK_RC(rc)                                                                   \
	do {                                                                           \
		if ((rc) > 0 || (rc) < -4095) {                                        \
			fprintf(stderr, "%s:%d: return value %d is neither 0 nor a "   \
				"negative errno\n", __FILE__, __LINE__, (int)(rc));    \
			abort();                                                       \
		}                                                                      \
	} while (0)

static const char *const env_names[] = {
	"ABB_SIM_GEN",      "ABB_SIM_LANES",  "ABB_SIM_MPS",     "ABB_SIM_MRRS",
	"ABB_SIM_RCB",      "ABB_SIM_CLK_MHZ", "ABB_SIM_LINK_NS", "ABB_SIM_MEM_NS",
	"ABB_SIM_REORDER",  "ABB_SIM_SEED",   "ABB_SIM_MEM_SIZE", "ABB_SIM_WATCHDOG_S",
	"ABB_SIM_CREDITS",  "ABB_SIM_CPL",    "ABB_SIM_IOVA",
};
#define NENV (sizeof env_names / sizeof env_names[0])

static int sim_opt(void *ctx, const char *key, const char *val)
{
	struct abbsim_params *p = ctx;
	unsigned long long v;
	int rc;

	if (!strcmp(key, "credits") || !strcmp(key, "cpl")) {
		rc = abbsim_params_set(p, key, val);
		CHECK_RC(rc);
		return rc;
	}
	rc = abb_opt_number("sim", key, val, &v);
	CHECK_RC(rc);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	if (size < 1)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;

	switch (data[0] % 3) {
	case 0: {
		char uri[600];
		abb_dev *d = NULL;

		if (strlen(text) > 500)
			break;
		snprintf(uri, sizeof uri, "model:%s", text);
		rc = abb_open(&d, uri);
		CHECK_RC(rc);
		if (rc == 0)
			abb_close(d);
		else if (d)
			abort(); /* a failed open hands out no device */
		break;
	}
	case 1: {
		struct abbsim_params p;

		abbsim_params_default(&p);
		rc = abb_opt_each("sim", text, 512, sim_opt, &p);
		CHECK_RC(rc);
		if (rc == 0)
			CHECK_RC(abbsim_params_check(&p));
		break;
	}
	case 2: {
		struct abbsim_params p, before;
		char *save = NULL;
		int set[NENV] = {0};

		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned i = (unsigned char)line[0] % NENV;

			setenv(env_names[i], line[1] ? line + 1 : line + 1, 1);
			set[i] = 1;
		}
		abbsim_params_default(&p);
		before = p;
		rc = abbsim_params_from_env(&p);
		CHECK_RC(rc);
		if (rc && memcmp(&p, &before, sizeof p) != 0) {
			fprintf(stderr, "abbsim_params_from_env failed (%d) but changed the params\n",
				rc);
			abort();
		}
		for (unsigned i = 0; i < NENV; i++)
			if (set[i])
				unsetenv(env_names[i]);
		break;
	}
	}
	free(text);
	return 0;
}
