/*
 * fuzz_options.c - libFuzzer target: the one option table of the simulator
 * and the model (host/lib/abb_options.c) and the URI splitter.
 *
 * The first byte chooses the entry point, the second the size of the
 * message buffer (1..256; the bytes after it must stay untouched), the
 * rest is the text:
 *   0  abb_open("model:TEXT"): abb_opt_each, abb_opt_set for the model,
 *      the model's open; closed again if it opened
 *   1  a URI of either backend: abb_opt_each splits TEXT, every key=value
 *      goes to abb_opt_set (ABB_OPT_SIM or ABB_OPT_MODEL by bit 7 of the
 *      first byte); a rejected option must leave the values unchanged (all
 *      or nothing per call); then abbsim_params_check on the result
 *   2  the environment: TEXT is lines "iVALUE"; byte i picks one of the
 *      table's variables (ABB_SIM_*, ABB_TRACE*, ABB_TLP_LOG,
 *      ABB_MODEL_SHARED_ENGINE), set to VALUE; then abb_opt_from_env for
 *      both backends and every group (unchanged on an error) and
 *      abb_sim_config_new (the sim backend's whole parse, <abb/abb_sim.h>);
 *      every variable is unset again afterwards
 *   3  the URI and the environment agree (issue 17): byte 0 of TEXT picks
 *      a row of the table, the rest is VALUE, bit 7 of the first byte the
 *      backend. The same name and value through abb_opt_set (a URI option)
 *      and through its variable (abb_opt_from_env) are both accepted with
 *      equal parsed values, or both refused; a variable without a URI
 *      option is refused in the URI. For the simulator's options also
 *      abb_sim_config_new("NAME=VALUE") against abb_sim_config_new(NULL)
 *      with the variable (parameters and record equal, then
 *      abbsim_params_check on both); for the model also abb_open("model:NAME=
 *      VALUE") against abb_open("model") with the variable (both open with
 *      the same board memory size, or both fail). An empty VALUE is
 *      skipped (an empty variable counts as unset), and values the URI
 *      cannot carry (',' separates options) skip the abb_open comparison.
 * Checks: no crash or undefined behaviour (ASan+UBSan), every call returns
 * 0 or a negative errno, rejected calls change nothing, messages stay in
 * their buffer and are terminated; in 3, the same answer from both.
 */
#include <abb/abb.h>
#include <abb/abb_sim.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abb_options.h"
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
	"ABB_SIM_GEN",     "ABB_SIM_LANES",     "ABB_SIM_MPS",        "ABB_SIM_MRRS",
	"ABB_SIM_RCB",     "ABB_SIM_CLK_MHZ",   "ABB_SIM_LINK_NS",    "ABB_SIM_MEM_NS",
	"ABB_SIM_REORDER", "ABB_SIM_SEED",      "ABB_SIM_MEM_SIZE",   "ABB_SIM_WATCHDOG_S",
	"ABB_SIM_CREDITS", "ABB_SIM_CPL",       "ABB_SIM_IOVA",       "ABB_SIM_HOSTTIME",
	"ABB_SIM_STRICT",  "ABB_SIM_MSI",       "ABB_TRACE",          "ABB_TRACE_FROM",
	"ABB_TRACE_TO",    "ABB_TLP_LOG",       "ABB_MODEL_SHARED_ENGINE", "ABB_SIM_TRACEABLE",
	"ABB_TRACE_DMA",   "ABB_TRACE_TEST",    "ABB_TRACE_ON_ERROR",
};
#define NENV (sizeof env_names / sizeof env_names[0])
#define GUARD 0xA5

static size_t msg_n; /* the message buffer's size of this input */

/* msg[0..n) must hold a terminated string, msg[n..] be untouched. */
static void check_msg(const char *msg, size_t cap, const char *what)
{
	if (!memchr(msg, 0, msg_n)) {
		fprintf(stderr, "%s: message not terminated within %zu bytes\n", what, msg_n);
		abort();
	}
	for (size_t i = msg_n; i < cap; i++)
		if ((unsigned char)msg[i] != GUARD) {
			fprintf(stderr, "%s: wrote msg[%zu] of a %zu-byte buffer\n", what, i, msg_n);
			abort();
		}
}

struct uri_ctx {
	struct abb_optvals v;
	unsigned backend;
};

static int uri_opt(void *ctx, const char *key, const char *val)
{
	struct uri_ctx *c = ctx;
	struct abb_optvals before = c->v;
	char msg[512];
	int rc;

	memset(msg, GUARD, sizeof msg);
	rc = abb_opt_set(&c->v, c->backend, c->backend == ABB_OPT_SIM ? "sim option" : "model option",
			 key, val, msg, msg_n);
	CHECK_RC(rc);
	if (rc) {
		check_msg(msg, sizeof msg, "abb_opt_set");
		if (memcmp(&before, &c->v, sizeof before) != 0) {
			fprintf(stderr, "abb_opt_set(%s=%s) failed (%d) but changed the values\n",
				key, val, rc);
			abort();
		}
	}
	return rc;
}

/* Every variable of the table is in env_names (checked once: a new option
 * is fuzzed too). */
static void check_env_names(void)
{
	static int done;
	struct abb_opt_row r;

	if (done++)
		return;
	for (size_t i = 0; abb_opt_row(i, &r) == 0; i++) {
		size_t j = 0;

		while (j < NENV && strcmp(env_names[j], r.env))
			j++;
		if (j == NENV) {
			fprintf(stderr, "fuzz_options: %s is not in env_names\n", r.env);
			abort();
		}
	}
}

static void differ(const char *what, const char *name, const char *env, const char *value,
		   int rc_uri, int rc_env, const char *msg_uri, const char *msg_env)
{
	fprintf(stderr, "%s: %s=\"%s\" (URI) and %s=\"%s\" (environment) differ: URI %d (%s), "
		"environment %d (%s)\n", what, name, value, env, value, rc_uri, msg_uri, rc_env,
		msg_env);
	abort();
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_record(const struct abbsim_record *a, const struct abbsim_record *b)
{
	return same_text(a->fst, b->fst) && a->fst_from == b->fst_from && a->fst_to == b->fst_to &&
	       a->dma_from == b->dma_from && a->dma_to == b->dma_to && same_text(a->test, b->test) &&
	       a->on_error == b->on_error && same_text(a->tlp_log, b->tlp_log) &&
	       same_text(a->stim, b->stim) && same_text(a->coverage, b->coverage);
}

/* Mode 3: one name and value through the URI and through the environment. */
static void uri_env_agree(unsigned backend, const char *text)
{
	struct abb_optvals vu, ve;
	struct abb_opt_row r;
	char mu[512] = "", me[512] = "";
	const char *value = text + 1;
	int ru, re;

	if (!text[0] || abb_opt_row((unsigned char)text[0] % abb_opt_rows(), &r) ||
	    !(r.backends & backend) || !*value)
		return;
	abb_opt_defaults(&vu);
	ru = abb_opt_set(&vu, backend, "option", r.name, value, mu, sizeof mu);
	CHECK_RC(ru);
	abb_opt_defaults(&ve);
	setenv(r.env, value, 1);
	re = abb_opt_from_env(&ve, backend, ABB_OPTG_ALL, me, sizeof me);
	CHECK_RC(re);
	if (r.env_only) {
		/* refused in the URI, naming the variable */
		if (!ru || !strstr(mu, r.env))
			differ("an environment-only option", r.name, r.env, value, ru, re, mu, me);
	} else if (!ru != !re || (!ru && memcmp(&vu, &ve, sizeof vu))) {
		differ("abb_opt_set / abb_opt_from_env", r.name, r.env, value, ru, re, mu, me);
	}
	if (!r.env_only && backend == ABB_OPT_SIM && !strpbrk(value, ",") &&
	    strlen(r.name) + strlen(value) < 200) {
		char opt[300];
		abb_sim_config *cu = NULL, *ce = NULL;

		re = abb_sim_config_new(&ce, NULL);
		if (!re)
			re = abbsim_params_check(abb_sim_config_params(ce));
		unsetenv(r.env);
		snprintf(opt, sizeof opt, "%s=%s", r.name, value);
		ru = abb_sim_config_new(&cu, opt);
		if (!ru)
			ru = abbsim_params_check(abb_sim_config_params(cu));
		CHECK_RC(ru);
		CHECK_RC(re);
		if (!ru != !re ||
		    (!ru && (memcmp(abb_sim_config_params(cu), abb_sim_config_params(ce),
				    sizeof(struct abbsim_params)) ||
			     !same_record(abb_sim_config_record(cu), abb_sim_config_record(ce)))))
			differ("abb_sim_config_new: option / variable", r.name, r.env, value, ru, re,
			       "", "");
		abb_sim_config_free(cu);
		abb_sim_config_free(ce);
		setenv(r.env, value, 1);
	}
	if (!r.env_only && backend == ABB_OPT_MODEL && !strpbrk(value, ",") &&
	    strlen(r.name) + strlen(value) < 200) {
		char uri[300];
		abb_dev *du = NULL, *de = NULL;
		size_t su = 0, se = 0;

		re = abb_open(&de, "model");
		snprintf(me, sizeof me, "%s", abb_last_error());
		unsetenv(r.env);
		snprintf(uri, sizeof uri, "model:%s=%s", r.name, value);
		ru = abb_open(&du, uri);
		snprintf(mu, sizeof mu, "%s", abb_last_error());
		CHECK_RC(ru);
		CHECK_RC(re);
		if (du && abb_mem_size(du, &su))
			abort();
		if (de && abb_mem_size(de, &se))
			abort();
		abb_close(du);
		abb_close(de);
		if (!ru != !re || su != se)
			differ("abb_open(model)", r.name, r.env, value, ru, re, mu, me);
	}
	unsetenv(r.env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	if (size < 2)
		return 0;
	msg_n = 1 + data[1] % 256;
	text = malloc(size - 1);
	memcpy(text, data + 2, size - 2);
	text[size - 2] = 0;
	check_env_names();

	switch (data[0] % 4) {
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
		struct uri_ctx c;

		abb_opt_defaults(&c.v);
		c.backend = data[0] & 0x80 ? ABB_OPT_MODEL : ABB_OPT_SIM;
		rc = abb_opt_each(c.backend == ABB_OPT_SIM ? "sim" : "model", text, 512, uri_opt, &c);
		CHECK_RC(rc);
		if (rc == 0)
			CHECK_RC(abbsim_params_check(&c.v.p));
		break;
	}
	case 2: {
		struct abb_optvals v, vbefore;
		static char poison; /* a non-NULL value abb_sim_config_new must overwrite */
		char *save = NULL, msg[512];
		int set[NENV] = {0};

		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned i = (unsigned char)line[0] % NENV;

			setenv(env_names[i], line + 1, 1);
			set[i] = 1;
		}
		for (unsigned b = ABB_OPT_SIM; b <= ABB_OPT_MODEL; b <<= 1) {
			abb_opt_defaults(&v);
			vbefore = v;
			memset(msg, GUARD, sizeof msg);
			rc = abb_opt_from_env(&v, b, ABB_OPTG_ALL, msg, msg_n);
			CHECK_RC(rc);
			if (rc) {
				check_msg(msg, sizeof msg, "abb_opt_from_env");
				if (memcmp(&v, &vbefore, sizeof v) != 0) {
					fprintf(stderr, "abb_opt_from_env failed (%d) but changed the "
						"values\n", rc);
					abort();
				}
			}
		}
		{
			abb_sim_config *c = (abb_sim_config *)(void *)&poison;

			rc = abb_sim_config_new(&c, NULL);
			CHECK_RC(rc);
			if (rc ? c != NULL : !c) {
				fprintf(stderr, "abb_sim_config_new returned %d with%s a config\n", rc,
					c ? "" : "out");
				abort();
			}
			abb_sim_config_free(c);
		}
		for (unsigned i = 0; i < NENV; i++)
			if (set[i])
				unsetenv(env_names[i]);
		break;
	}
	case 3:
		uri_env_agree(data[0] & 0x80 ? ABB_OPT_MODEL : ABB_OPT_SIM, text);
		break;
	}
	free(text);
	return 0;
}
