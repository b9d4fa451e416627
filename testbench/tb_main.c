/*
 * tb_main.c - runner of the ABB test bench: registers every suite and runs
 * them with CUnit's basic interface (verbose).
 *
 *   build/abb_tests              all suites
 *   build/abb_tests SUITE...     only the named suites (e.g. "regs"); a
 *                                name SUITE/TEST selects one test of a suite
 *                                (e.g. "blocking/read_64k"; make wave TEST=...)
 *   build/abb_tests --shard k/n  only the suites of shard k of n (k from 1):
 *                                suite i (0-based, in the order below) of
 *                                the selected ones runs in shard i % n + 1,
 *                                so n shards together run each suite once
 *   build/abb_tests --junit FILE also write the results as JUnit XML
 *                                (a testsuite per suite, a testcase per test)
 *   build/abb_tests --vfio-emu[=OPTS] [SUITE...]
 *                                the same on the emulated VFIO kernel
 *                                (vfio_emu.c): ABB_DEVICE becomes the
 *                                emulated board; OPTS: comma-separated
 *                                no_msi, no_intx, bar_mmap=N, no_type1v2,
 *                                no_ranges, pgsizes=N, memlock=N, res_wc=N
 *                                (ABB_VFIO_EMU=OPTS or =1 does the same)
 *
 * The backend is $ABB_DEVICE (unset: the simulator). Tests whose table
 * entry states a need (TB_SIM_TEST and the others of tb.h) that this
 * backend cannot meet are made inactive before the run (tb_needs.c): CUnit
 * counts them in the Run Summary's "Inactive" column (not as failures),
 * and the runner prints which and why before the run and with the Run
 * Summary. Tests that found out while running that they could not check
 * (tb_skip, tb_skip_part) are listed with the Run Summary; JUnit marks
 * both kinds skipped.
 *
 * Exit status: 0 when every test that ran passed, 1 when a test or a suite
 * init/cleanup failed, 2 on a CUnit registry error or a name that is no
 * suite (--help lists them).
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_needs.h"
#include "test_daq.h"
#include "vfio_emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/TestRun.h>
#include <abb/abb_sim.h>

/* Every test's boundaries go to the simulator's waveform (a note: nothing
 * when nothing is traced): ABB_TRACE_TEST=suite/test opens and closes its
 * window, a failed test triggers the flight recorder (ABB_TRACE_ON_ERROR).
 * Through the suites' per-test set-up and tear-down (CUnit runs the
 * tear-down also after a fatal assertion), chained to their own. */
#define TB_MAX_SUITES 64
static struct {
	CU_pSuite s;
	CU_SetUpFunc up;
	CU_TearDownFunc down;
} tb_wrap[TB_MAX_SUITES];
static unsigned tb_nwrap, tb_fail_before;

static void test_name(char *buf, size_t n)
{
	CU_pSuite s = CU_get_current_suite();
	CU_pTest t = CU_get_current_test();

	snprintf(buf, n, "%s/%s", s ? s->pName : "?", t ? t->pName : "?");
}

static void tb_setup(void)
{
	CU_pSuite s = CU_get_current_suite();
	char name[256];

	test_name(name, sizeof name);
	tb_fail_before = CU_get_number_of_failures();
	abb_sim_note(NULL, ABB_SIM_NOTE_TEST_BEGIN, name);
	for (unsigned i = 0; i < tb_nwrap; i++)
		if (tb_wrap[i].s == s && tb_wrap[i].up)
			tb_wrap[i].up();
}

static void tb_teardown(void)
{
	CU_pSuite s = CU_get_current_suite();
	char name[256];

	for (unsigned i = 0; i < tb_nwrap; i++)
		if (tb_wrap[i].s == s && tb_wrap[i].down)
			tb_wrap[i].down();
	test_name(name, sizeof name);
	abb_sim_note(NULL, CU_get_number_of_failures() > tb_fail_before ? ABB_SIM_NOTE_TEST_FAIL :
		     ABB_SIM_NOTE_TEST_PASS, name);
}

static void wrap_suites(void)
{
	for (CU_pSuite s = CU_get_registry()->pSuite; s && tb_nwrap < TB_MAX_SUITES; s = s->pNext) {
		tb_wrap[tb_nwrap].s = s;
		tb_wrap[tb_nwrap].up = s->pSetUpFunc;
		tb_wrap[tb_nwrap].down = s->pTearDownFunc;
		tb_nwrap++;
		s->pSetUpFunc = tb_setup;
		s->pTearDownFunc = tb_teardown;
	}
}

/* name is SUITE or SUITE/TEST: does it select suite s (and which test)? */
static int name_suite(const char *name, CU_pSuite s, const char **test)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : strlen(name);

	*test = slash ? slash + 1 : NULL;
	return strlen(s->pName) == n && strncmp(name, s->pName, n) == 0;
}

static int suite_has_test(CU_pSuite s, const char *test)
{
	for (CU_pTest t = s->pTest; t; t = t->pNext)
		if (strcmp(t->pName, test) == 0)
			return 1;
	return 0;
}

static CU_ErrorCode (*const tb_suites[])(void) = {
	tb_register_regs,
	tb_register_dma_integrity,
	tb_register_blocking,
	tb_register_protocol,
	tb_register_bad_input,
	tb_register_determinism,
	tb_register_rtlclk,
	tb_register_freerun,
	tb_register_discovery,
	tb_register_tlp_rules,
	tb_register_cfgspace,
	tb_register_link,
	tb_register_vectors,
	tb_register_intx,
	tb_register_daq_units,
	tb_register_daq_readout,
	tb_register_daq_writer,
	tb_register_robust,
	tb_register_scoreboard,
	tb_register_vfio,
	tb_register_faults,
	tb_register_rx,
	tb_register_dma_ctl,
	tb_register_runner,
	tb_register_stress,
	tb_register_pio,
};

static void xml_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

/* The results of the run as JUnit XML (what GitLab, GitHub and Jenkins
 * show): a testsuite per suite, a testcase per test; failed assertions
 * as <failure>; tests not run as <skipped/>: deselected ones ("not in this
 * run"), those this backend cannot run (the need, the backend) and those
 * that skipped themselves while running (tb_skip: the reason); a failed
 * suite init as an <error>. CUnit keeps no per-test times; the
 * run's elapsed time is on <testsuites>. */
static int write_junit(const char *path, const char *shard)
{
	FILE *f = fopen(path, "w");
	CU_pSuite s;
	CU_pTest t;
	CU_pFailureRecord fr;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"abb_tests%s%s\" tests=\"%u\" failures=\"%u\" time=\"%.3f\">\n",
		shard ? " shard " : "", shard ? shard : "", CU_get_number_of_tests_run(),
		CU_get_number_of_tests_failed(), CU_get_elapsed_time());
	for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
		unsigned ntests = 0, nfail = 0, nskip = 0;
		int suite_err = 0;

		for (fr = CU_get_failure_list(); fr; fr = fr->pNext)
			if (fr->pSuite == s && !fr->pTest)
				suite_err = 1;
		for (t = s->pTest; t; t = t->pNext) {
			int failed = 0, part = 0;

			ntests++;
			for (fr = CU_get_failure_list(); fr; fr = fr->pNext)
				failed |= fr->pTest == t;
			nfail += failed;
			nskip += !s->fActive || !t->fActive || suite_err ||
				 (tb_skip_reason(t, &part) && !part);
		}
		fprintf(f, "  <testsuite name=\"");
		xml_esc(f, s->pName);
		fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%d\" skipped=\"%u\">\n",
			ntests, nfail, suite_err, nskip);
		for (t = s->pTest; t; t = t->pNext) {
			char why[256];
			int part = 0;
			const char *skip = tb_skip_reason(t, &part);

			fprintf(f, "    <testcase classname=\"abb_tests.");
			xml_esc(f, s->pName);
			fprintf(f, "\" name=\"");
			xml_esc(f, t->pName);
			fprintf(f, "\">");
			if (s->fActive && tb_needs_why(t, why, sizeof why)) {
				fprintf(f, "<skipped message=\"");
				xml_esc(f, why);
				fprintf(f, "\"/>");
			} else if (!s->fActive || !t->fActive) {
				fprintf(f, "<skipped message=\"not in this run\"/>");
			} else if (skip && !part) {
				fprintf(f, "<skipped message=\"");
				xml_esc(f, skip);
				fprintf(f, "\"/>");
			} else if (suite_err)
				fprintf(f, "<skipped message=\"the suite's init or cleanup failed\"/>");
			if (skip && part) {
				fprintf(f, "<system-out>skipped in part: ");
				xml_esc(f, skip);
				fprintf(f, "</system-out>");
			}
			for (fr = CU_get_failure_list(); fr; fr = fr->pNext) {
				if (fr->pTest != t)
					continue;
				fprintf(f, "<failure message=\"");
				xml_esc(f, fr->strCondition);
				fprintf(f, "\">");
				xml_esc(f, fr->strFileName);
				fprintf(f, ":%u: ", fr->uiLineNumber);
				xml_esc(f, fr->strCondition);
				fprintf(f, "</failure>");
			}
			fprintf(f, "</testcase>\n");
		}
		if (suite_err) {
			fprintf(f, "    <testcase classname=\"abb_tests.");
			xml_esc(f, s->pName);
			fprintf(f, "\" name=\"(suite init/cleanup)\"><error message=\"suite init or "
				   "cleanup failed\"/></testcase>\n");
		}
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	return fclose(f) ? -1 : 0;
}

int tb_vfio_emu;
static struct vfio_emu_opts tb_emu_opts;

/* Parses the emulator options of --vfio-emu=OPTS; 0 or -1 (printed). */
static int emu_options(const char *text)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof buf, "%s", text);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned long long v = eq ? strtoull(eq + 1, NULL, 0) : 1;

		if (eq)
			*eq = 0;
		if (!strcmp(t, "1") || !*t)
			continue;
		else if (!strcmp(t, "no_msi"))
			tb_emu_opts.no_msi = (unsigned)v;
		else if (!strcmp(t, "no_intx"))
			tb_emu_opts.no_intx = (unsigned)v;
		else if (!strcmp(t, "bar_mmap"))
			tb_emu_opts.bar_mmap = (unsigned)v;
		else if (!strcmp(t, "res_wc"))
			tb_emu_opts.res_wc = (unsigned)v;
		else if (!strcmp(t, "no_type1v2"))
			tb_emu_opts.no_type1v2 = (unsigned)v;
		else if (!strcmp(t, "no_ranges"))
			tb_emu_opts.no_ranges = (unsigned)v;
		else if (!strcmp(t, "pgsizes"))
			tb_emu_opts.pgsizes = v;
		else if (!strcmp(t, "memlock"))
			tb_emu_opts.memlock = v;
		else if (!strcmp(t, "cdev"))
			tb_emu_opts.cdev = (unsigned)v;
		else if (!strcmp(t, "iommufd_only"))
			tb_emu_opts.iommufd_only = (unsigned)v;
		else {
			fprintf(stderr, "abb_tests: unknown emulator option \"%s\"\n", t);
			return -1;
		}
	}
	return 0;
}

int tb_vfio_emu_restore(void)
{
	if (!tb_vfio_emu) {
		vfio_emu_remove();
		return 0;
	}
	return vfio_emu_install(&tb_emu_opts);
}

int main(int argc, char **argv)
{
	unsigned failures, tests_failed, suites_failed;
	const char *shard = NULL, *junit = NULL;
	unsigned long shard_k = 1, shard_n = 1;
	char **names = argv + 1; /* the suite names, gathered in place */
	int nnames = 0, names_bad = 0;
	size_t i;
	int a;

	/* Unbuffered, so that messages from the library and the tests interleave
	 * with CUnit's lines in order. */
	setvbuf(stdout, NULL, _IONBF, 0);

	/* --vfio-emu[=OPTS] (or ABB_VFIO_EMU): the emulated VFIO kernel */
	{
		const char *env = getenv("ABB_VFIO_EMU");
		int out = 1;

		if (env && *env && strcmp(env, "0")) {
			tb_vfio_emu = 1;
			if (emu_options(env))
				return 2;
		}
		for (a = 1; a < argc; a++) {
			if (!strncmp(argv[a], "--vfio-emu", 10) &&
			    (argv[a][10] == 0 || argv[a][10] == '=')) {
				tb_vfio_emu = 1;
				if (argv[a][10] == '=' && emu_options(argv[a] + 11))
					return 2;
			} else {
				argv[out++] = argv[a];
			}
		}
		argc = out;
		if (tb_vfio_emu) {
			if (vfio_emu_install(&tb_emu_opts)) {
				fprintf(stderr, "abb_tests: cannot install the VFIO emulator\n");
				return 2;
			}
			setenv("ABB_DEVICE", VFIO_EMU_URI, 1);
			printf("abb_tests: on the emulated VFIO kernel, ABB_DEVICE=%s (sysfs %s)\n",
			       VFIO_EMU_URI, vfio_emu_sysfs_root());
		}
	}

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "abb_tests: CU_initialize_registry: %s\n", CU_get_error_msg());
		return 2;
	}
	for (i = 0; i < sizeof(tb_suites) / sizeof(tb_suites[0]); i++) {
		if (tb_suites[i]() != CUE_SUCCESS) {
			fprintf(stderr, "abb_tests: registering suite %zu: %s\n", i,
				CU_get_error_msg());
			CU_cleanup_registry();
			return 2;
		}
	}
	if (tb_needs_strip()) {
		CU_cleanup_registry();
		return 2;
	}
	/* Options (--shard k/n, --junit FILE), then an optional selection of
	 * suites by name: deactivate the others. A name that matches no suite
	 * is an error: a typo must not pass as "all tests passed" with nothing
	 * run. */
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--shard") && a + 1 < argc) {
			char *end = NULL;

			shard = argv[++a];
			shard_k = strtoul(shard, &end, 10);
			if (*end == '/')
				shard_n = strtoul(end + 1, &end, 10);
			if (*end || shard_n == 0 || shard_k == 0 || shard_k > shard_n) {
				fprintf(stderr, "abb_tests: --shard %s: want k/n with 1 <= k <= n\n",
					shard);
				CU_cleanup_registry();
				return 2;
			}
		} else if (!strcmp(argv[a], "--junit") && a + 1 < argc) {
			junit = argv[++a];
		} else if (argv[a][0] == '-' && strcmp(argv[a], "-h") && strcmp(argv[a], "--help")) {
			fprintf(stderr, "abb_tests: unknown option %s\n", argv[a]);
			names_bad = 1;
		} else {
			names[nnames++] = argv[a];
		}
	}
	if (nnames > 0 || names_bad) {
		CU_pSuite s;
		int bad = names_bad;

		for (a = 0; a < nnames; a++) {
			int found = 0;

			for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
				const char *test;

				if (name_suite(names[a], s, &test))
					found |= !test || suite_has_test(s, test);
			}
			if (!found) {
				bad = 1;
				if (strcmp(names[a], "-h") && strcmp(names[a], "--help"))
					fprintf(stderr, "abb_tests: no suite is called \"%s\"\n",
						names[a]);
			}
		}
		if (bad) {
			fprintf(stderr, "usage: abb_tests [--shard k/n] [--junit FILE] [SUITE...]; "
					"the suites:");
			for (s = CU_get_registry()->pSuite; s; s = s->pNext)
				fprintf(stderr, " %s", s->pName);
			fprintf(stderr, "\n(SUITE/TEST selects one test)\n");
			CU_cleanup_registry();
			return 2;
		}
	}
	/* deselected, and not run on this backend, is not failed */
	CU_set_fail_on_inactive(CU_FALSE);
	if (nnames > 0 || shard) {
		CU_pSuite s;
		unsigned long i = 0;

		for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
			int keep = nnames == 0, whole = nnames == 0;

			for (a = 0; a < nnames; a++) {
				const char *test;

				if (name_suite(names[a], s, &test)) {
					keep = 1;
					whole |= !test;
				}
			}
			/* SUITE/TEST: only the named tests of the suite */
			for (CU_pTest t = s->pTest; keep && !whole && t; t = t->pNext) {
				int on = 0;

				for (a = 0; a < nnames; a++) {
					const char *test;

					if (name_suite(names[a], s, &test) && test &&
					    strcmp(test, t->pName) == 0)
						on = 1;
				}
				CU_set_test_active(t, on ? CU_TRUE : CU_FALSE);
			}
			if (keep && shard)
				keep = i++ % shard_n == shard_k - 1;
			CU_set_suite_active(s, keep);
		}
		if (shard) {
			printf("abb_tests: shard %s:", shard);
			for (s = CU_get_registry()->pSuite; s; s = s->pNext)
				if (s->fActive)
					printf(" %s", s->pName);
			printf("\n");
		}
	}

	/* the tests this backend cannot run: inactive, and said why */
	if (tb_needs_apply())
		tb_needs_print(1);

	wrap_suites();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "abb_tests: CU_basic_run_tests: %s\n", CU_get_error_msg());
		if (junit && write_junit(junit, shard) == 0)
			printf("abb_tests: JUnit XML in %s\n", junit);
		CU_cleanup_registry();
		return 2;
	}
	/* CU_basic_run_tests printed the Run Summary: what its Inactive and
	 * Passed columns hold besides tests that ran and passed */
	tb_needs_print(0);
	tb_skips_print();
	/* read the counts before the registry (and the run results with it)
	 * is cleaned up */
	if (junit && write_junit(junit, shard)) {
		fprintf(stderr, "abb_tests: cannot write %s\n", junit);
		CU_cleanup_registry();
		return 2;
	}
	if (junit)
		printf("abb_tests: JUnit XML in %s\n", junit);
	failures = CU_get_number_of_failures();
	tests_failed = CU_get_number_of_tests_failed();
	suites_failed = CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	vfio_emu_remove();

	if (failures > 0 || tests_failed > 0 || suites_failed > 0) {
		printf("abb_tests: FAILED (%u assertion failures, %u tests, %u suites failed)\n",
		       failures, tests_failed, suites_failed);
		return 1;
	}
	printf("abb_tests: all tests passed\n");
	return 0;
}
