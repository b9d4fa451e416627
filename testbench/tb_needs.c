/*
 * tb_needs.c - the runner's bookkeeping of what the tests need of the
 * backend and of the tests that skipped while running (tb_needs.h).
 *
 * A table entry TB_SIM_TEST(fn) (tb.h) registers the name "[sim]fn";
 * tb_needs_strip() takes the tag off every registered name (CUnit keeps
 * its own copy of each name, so the name is the function's again before
 * any selection) and records the need. tb_needs_apply() makes inactive
 * the tests whose need the backend cannot meet; the backend is known from
 * $ABB_DEVICE (its scheme, as abb_open() reads it) and --vfio-emu before
 * any device opens, so no device is opened for it.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_needs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum tb_need { TB_NEED_ANY, TB_NEED_SIM, TB_NEED_TIMED, TB_NEED_EVSRC, TB_NEED_NOVFIO,
	       TB_NEED_NOSIM, TB_NEEDS };

/* The tag of each need in a table entry's name, and why a test with it
 * cannot run elsewhere (printed as "N tests <verb> <what>"; one test:
 * the verb + "s"). */
static const struct {
	const char *tag;
	const char *verb;
	const char *what;
} tb_need_text[TB_NEEDS] = {
	[TB_NEED_ANY] = {"", "", ""},
	[TB_NEED_SIM] = {"[sim]", "need", "the simulator (the sim backend)"},
	[TB_NEED_TIMED] = {"[timed]", "need", "device time (not the untimed model; the timed one, "
					      "model:timed=1, has it)"},
	[TB_NEED_EVSRC] = {"[evsrc]", "need", "the model-defined event source and registers "
					      "(sim, model, emulated VFIO kernel)"},
	[TB_NEED_NOVFIO] = {"[novfio]", "need", "the simulator's or the model's own board "
						"opened directly (not through vfio)"},
	[TB_NEED_NOSIM] = {"[nosim]", "check", "what a backend other than the simulator answers"},
};

/* The backend the suites will open, from $ABB_DEVICE as abb_open() reads it
 * (the URI's scheme; unset or empty: sim; the model with timed=1 among its
 * options or ABB_MODEL_TIMED=1, the URI winning: the timed model), known
 * before any device opens. */
enum tb_backend { TB_BE_SIM, TB_BE_MODEL, TB_BE_MODEL_TIMED, TB_BE_VFIO_EMU, TB_BE_VFIO,
		  TB_BE_OTHER };

/* timed=1 (or yes/true/on) among the options of a model URI, else
 * $ABB_MODEL_TIMED */
static int tb_model_timed(const char *opts)
{
	const char *env = getenv("ABB_MODEL_TIMED");
	int timed = env && (!strcmp(env, "1") || !strcasecmp(env, "yes") || !strcasecmp(env, "true") ||
			    !strcasecmp(env, "on"));

	while (opts && *opts) {
		size_t n = strcspn(opts, ",");

		if (n > 6 && !strncmp(opts, "timed=", 6)) {
			const char *v = opts + 6;
			size_t k = n - 6;

			timed = (k == 1 && *v == '1') || (k == 3 && !strncasecmp(v, "yes", 3)) ||
				(k == 4 && !strncasecmp(v, "true", 4)) || (k == 2 && !strncasecmp(v, "on", 2));
		}
		opts += n;
		if (*opts)
			opts++;
	}
	return timed;
}

static enum tb_backend tb_backend_of_env(void)
{
	const char *e = getenv("ABB_DEVICE");
	size_t n;

	if (!e || !*e)
		return TB_BE_SIM;
	n = strcspn(e, ":");
	if (n == 3 && !strncmp(e, "sim", 3))
		return TB_BE_SIM;
	if (n == 5 && !strncmp(e, "model", 5))
		return tb_model_timed(e[5] == ':' ? e + 6 : NULL) ? TB_BE_MODEL_TIMED : TB_BE_MODEL;
	if (n == 4 && !strncmp(e, "vfio", 4))
		return tb_vfio_emu ? TB_BE_VFIO_EMU : TB_BE_VFIO;
	return TB_BE_OTHER;
}

static const char *tb_backend_name(enum tb_backend b)
{
	static const char *const names[] = {"sim", "model", "model (timed)",
					    "vfio (emulated VFIO kernel)", "vfio (the board)", "unknown"};

	return names[b];
}

/* Does backend b meet need n? An unknown backend meets every need: its
 * suites fail at their open, which is reported. */
static int tb_need_met(enum tb_need n, enum tb_backend b)
{
	switch (n) {
	case TB_NEED_SIM:
		return b == TB_BE_SIM || b == TB_BE_OTHER;
	case TB_NEED_TIMED:
		return b != TB_BE_MODEL;
	case TB_NEED_EVSRC:
		return b != TB_BE_VFIO;
	case TB_NEED_NOVFIO:
		return b != TB_BE_VFIO_EMU && b != TB_BE_VFIO;
	case TB_NEED_NOSIM:
		return b != TB_BE_SIM;
	default:
		return 1;
	}
}

/* Every test with a need: recorded when its tag is stripped, and whether
 * the backend made it inactive. */
static struct tb_needed {
	CU_pSuite s;
	CU_pTest t;
	enum tb_need need;
	int off;
} *tb_needed;
static size_t tb_nneeded;

/* Strips the need tags from the registered tests' names (CUnit keeps its
 * own copy of each name) and records the needs. 0 or -1 (out of memory, an
 * unknown tag: printed). */
int tb_needs_strip(void)
{
	for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
		for (CU_pTest t = s->pTest; t; t = t->pNext) {
			enum tb_need n = TB_NEED_ANY;
			struct tb_needed *grown;

			if (t->pName[0] != '[')
				continue;
			for (int k = 1; k < TB_NEEDS; k++) {
				size_t len = strlen(tb_need_text[k].tag);

				if (!strncmp(t->pName, tb_need_text[k].tag, len)) {
					n = (enum tb_need)k;
					memmove(t->pName, t->pName + len, strlen(t->pName + len) + 1);
					break;
				}
			}
			if (n == TB_NEED_ANY) {
				fprintf(stderr, "abb_tests: %s/%s: unknown need tag (tb.h: TB_*_TEST)\n",
					s->pName, t->pName);
				return -1;
			}
			grown = realloc(tb_needed, (tb_nneeded + 1) * sizeof *tb_needed);
			if (!grown)
				return -1;
			tb_needed = grown;
			tb_needed[tb_nneeded++] = (struct tb_needed){s, t, n, 0};
		}
	}
	return 0;
}

const char *tb_needs_why(CU_pTest t, char *buf, size_t n)
{
	for (size_t i = 0; i < tb_nneeded; i++) {
		const struct tb_needed *r = &tb_needed[i];

		if (r->t == t && r->off) {
			snprintf(buf, n, "%ss %s; the backend is %s", tb_need_text[r->need].verb,
				 tb_need_text[r->need].what, tb_backend_name(tb_backend_of_env()));
			return buf;
		}
	}
	return NULL;
}

/* Makes inactive the tests (of the suites that run) whose need backend b
 * does not meet; only deactivates, after the selection by name. Returns
 * how many. */
unsigned tb_needs_apply(void)
{
	enum tb_backend b = tb_backend_of_env();
	unsigned n = 0;

	for (size_t i = 0; i < tb_nneeded; i++) {
		struct tb_needed *r = &tb_needed[i];

		if (!r->s->fActive || !r->t->fActive || tb_need_met(r->need, b))
			continue;
		CU_set_test_active(r->t, CU_FALSE);
		r->off = 1;
		n++;
	}
	return n;
}

/* One line per need with the count; with names, then the tests by suite. */
void tb_needs_print(int names)
{
	enum tb_backend b = tb_backend_of_env();
	for (int k = 1; k < TB_NEEDS; k++) {
		unsigned cnt = 0;

		for (size_t i = 0; i < tb_nneeded; i++)
			cnt += tb_needed[i].off && tb_needed[i].need == (enum tb_need)k;
		if (!cnt)
			continue;
		printf("abb_tests: inactive on backend %s: %u test%s %s%s %s%s\n", tb_backend_name(b),
		       cnt, cnt == 1 ? "" : "s", tb_need_text[k].verb, cnt == 1 ? "s" : "",
		       tb_need_text[k].what, names ? ":" : "");
		for (CU_pSuite s = CU_get_registry()->pSuite; names && s; s = s->pNext) {
			int first = 1;

			for (size_t i = 0; i < tb_nneeded; i++) {
				if (tb_needed[i].s != s || !tb_needed[i].off ||
				    tb_needed[i].need != (enum tb_need)k)
					continue;
				if (first)
					printf("    %s:", s->pName);
				printf(" %s", tb_needed[i].t->pName);
				first = 0;
			}
			if (!first)
				printf("\n");
		}
	}
}

/* ---- tests skipped while they ran (tb_skip, tb_skip_part) ---- */

static void test_name(char *buf, size_t n)
{
	CU_pSuite s = CU_get_current_suite();
	CU_pTest t = CU_get_current_test();

	snprintf(buf, n, "%s/%s", s ? s->pName : "?", t ? t->pName : "?");
}

static struct tb_skipped {
	CU_pTest t;
	char name[160];
	char why[240];
	int part;
} *tb_skips;
static size_t tb_nskips;

static void tb_skip_v(int part, const char *fmt, va_list ap)
{
	CU_pTest t = CU_get_current_test();
	struct tb_skipped *r = NULL, *grown;
	char why[240];

	vsnprintf(why, sizeof why, fmt, ap);
	printf("\n    skipped%s: %s\n", part ? " (in part)" : "", why);
	for (size_t i = 0; i < tb_nskips; i++)
		if (tb_skips[i].t == t)
			r = &tb_skips[i];
	if (r) { /* once per test: a whole skip wins over a part */
		r->part &= part;
		return;
	}
	grown = realloc(tb_skips, (tb_nskips + 1) * sizeof *tb_skips);
	if (!grown)
		return;
	tb_skips = grown;
	r = &tb_skips[tb_nskips++];
	r->t = t;
	test_name(r->name, sizeof r->name);
	snprintf(r->why, sizeof r->why, "%s", why);
	r->part = part;
}

void tb_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tb_skip_v(0, fmt, ap);
	va_end(ap);
}

void tb_skip_part(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tb_skip_v(1, fmt, ap);
	va_end(ap);
}

const char *tb_skip_reason(CU_pTest t, int *part)
{
	for (size_t i = 0; i < tb_nskips; i++) {
		if (tb_skips[i].t == t) {
			*part = tb_skips[i].part;
			return tb_skips[i].why;
		}
	}
	return NULL;
}

void tb_skips_print(void)
{
	for (int part = 0; part < 2; part++) {
		unsigned cnt = 0;

		for (size_t i = 0; i < tb_nskips; i++)
			cnt += tb_skips[i].part == part;
		if (!cnt)
			continue;
		printf("abb_tests: %u test%s %s while running (counted as passed by CUnit):", cnt,
		       cnt == 1 ? "" : "s", part ? "skipped in part" : "skipped");
		for (size_t i = 0, first = 1; i < tb_nskips; i++) {
			if (tb_skips[i].part != part)
				continue;
			printf("%s %s (%s)", first ? "" : ";", tb_skips[i].name, tb_skips[i].why);
			first = 0;
		}
		printf("\n");
	}
}
