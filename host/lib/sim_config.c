/*
 * sim_config.c - a simulated board's options: the defaults, the
 * environment, the URI, through the one option table (abb_options.c),
 * into the two structures the simulator takes at abbsim_open. Also the
 * public form of it (abb_sim_config_*, <abb/abb_sim.h>).
 */
#include "backend_sim.h"

#include <abb/abb_sim.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct uri_ctx {
	struct abb_optvals *v;
	char credits[512]; /* the credit items, handed to the parser as one list */
};

/* One URI option; credit items given as options of their own after
 * credits= are collected ("sim:credits=ph=1,pd=8" is "credits=ph=1:pd=8"). */
static int uri_opt(void *ctx, const char *opt, const char *eq)
{
	struct uri_ctx *o = ctx;
	char msg[1024];
	int rc;

	if (strcmp(opt, "credits") == 0 || abb_opt_credit_item(opt)) {
		size_t used = strlen(o->credits);

		snprintf(o->credits + used, sizeof o->credits - used, "%s%s%s%s", used ? "," : "",
			 strcmp(opt, "credits") ? opt : "", strcmp(opt, "credits") ? "=" : "", eq);
		return 0;
	}
	rc = abb_opt_set(o->v, ABB_OPT_SIM, "sim option", opt, eq, msg, sizeof msg);
	return rc ? abb_err(rc, "%s", msg) : 0;
}

static const char *text_or_null(const char *s)
{
	return s[0] ? s : NULL;
}

int abb_sim_config_parse(struct abb_sim_config *c, const char *args)
{
	struct uri_ctx o;
	char msg[1024];
	int rc;

	memset(c, 0, sizeof *c);
	abb_opt_defaults(&c->v);
	rc = abb_opt_from_env(&c->v, ABB_OPT_SIM, ABB_OPTG_PARAMS | ABB_OPTG_TRACE | ABB_OPTG_LIBABB,
			      msg, sizeof msg);
	if (rc)
		return abb_err(rc, "%s", msg);
	memset(&o, 0, sizeof o);
	o.v = &c->v;
	rc = abb_opt_each("sim", args, 512, uri_opt, &o);
	if (rc)
		return rc;
	if (*o.credits) {
		rc = abb_opt_set(&c->v, ABB_OPT_SIM, "sim option", "credits", o.credits, msg, sizeof msg);
		if (rc)
			return abb_err(rc, "%s", msg);
	}
	c->rec.fst = text_or_null(c->v.trace);
	c->rec.fst_from = c->v.trace_from;
	c->rec.fst_to = c->v.trace_to;
	c->rec.dma_from = c->v.trace_dma[0];
	c->rec.dma_to = c->v.trace_dma[1];
	c->rec.test = text_or_null(c->v.trace_test);
	c->rec.on_error = c->v.trace_on_error;
	c->rec.tlp_log = text_or_null(c->v.tlp_log);
	c->rec.stim = text_or_null(c->v.stim);
	c->rec.coverage = text_or_null(c->v.coverage);
	return 0;
}

int abb_sim_config_new(abb_sim_config **cfg, const char *options)
{
	struct abb_sim_config *c;
	int rc;

	if (!cfg)
		return abb_err(-EINVAL, "abb_sim_config_new: cfg is NULL");
	*cfg = NULL;
	c = malloc(sizeof *c);
	if (!c)
		return abb_err(-ENOMEM, "abb_sim_config_new: out of memory");
	rc = abb_sim_config_parse(c, options);
	if (rc) {
		free(c);
		return abb_err_prefix(rc, "abb_sim_config_new");
	}
	*cfg = c;
	return 0;
}

const struct abbsim_params *abb_sim_config_params(const abb_sim_config *cfg)
{
	return cfg ? &cfg->v.p : NULL;
}

const struct abbsim_record *abb_sim_config_record(const abb_sim_config *cfg)
{
	return cfg ? &cfg->rec : NULL;
}

const char *abb_sim_config_lib(const abb_sim_config *cfg)
{
	return cfg ? cfg->v.sim_lib : "";
}

void abb_sim_config_free(abb_sim_config *cfg)
{
	free(cfg);
}
