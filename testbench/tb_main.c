/*
 * tb_main.c - runner of the ABB test bench: registers every suite and runs
 * them with CUnit's basic interface (verbose).
 *
 *   build/abb_tests              all suites
 *   build/abb_tests SUITE...     only the named suites (e.g. "regs")
 *
 * The backend is $ABB_DEVICE (unset: the simulator). Exit status: 0 when
 * every test passed, 1 when a test or a suite init/cleanup failed, 2 on a
 * CUnit registry error or a name that is no suite (--help lists them).
 */
#include "tb.h"
#include "test_daq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

static CU_ErrorCode (*const tb_suites[])(void) = {
	tb_register_regs,
	tb_register_dma_integrity,
	tb_register_blocking,
	tb_register_protocol,
	tb_register_bad_input,
	tb_register_determinism,
	tb_register_rtlclk,
	tb_register_discovery,
	tb_register_tlp_rules,
	tb_register_cfgspace,
	tb_register_link,
	tb_register_vectors,
	tb_register_daq_units,
	tb_register_daq_readout,
	tb_register_daq_writer,
	tb_register_robust,
};

int main(int argc, char **argv)
{
	unsigned failures, tests_failed, suites_failed;
	size_t i;
	int a;

	/* Unbuffered, so that messages from the library and the tests interleave
	 * with CUnit's lines in order. */
	setvbuf(stdout, NULL, _IONBF, 0);

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
	/* Optional selection of suites by name: deactivate the others. A name
	 * that matches no suite is an error: a typo must not pass as "all
	 * tests passed" with nothing run. */
	if (argc > 1) {
		CU_pSuite s;
		int bad = 0;

		for (a = 1; a < argc; a++) {
			int found = 0;

			for (s = CU_get_registry()->pSuite; s; s = s->pNext)
				found |= strcmp(argv[a], s->pName) == 0;
			if (!found) {
				bad = 1;
				if (strcmp(argv[a], "-h") && strcmp(argv[a], "--help"))
					fprintf(stderr, "abb_tests: no suite is called \"%s\"\n",
						argv[a]);
			}
		}
		if (bad) {
			fprintf(stderr, "usage: abb_tests [SUITE...]; the suites:");
			for (s = CU_get_registry()->pSuite; s; s = s->pNext)
				fprintf(stderr, " %s", s->pName);
			fprintf(stderr, "\n");
			CU_cleanup_registry();
			return 2;
		}
		CU_set_fail_on_inactive(CU_FALSE); /* deselected is not failed */
		for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
			int keep = 0;

			for (a = 1; a < argc; a++)
				if (strcmp(argv[a], s->pName) == 0)
					keep = 1;
			CU_set_suite_active(s, keep);
		}
	}

	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "abb_tests: CU_basic_run_tests: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	/* CU_basic_run_tests printed the Run Summary; read the counts before
	 * the registry (and the run results with it) is cleaned up. */
	failures = CU_get_number_of_failures();
	tests_failed = CU_get_number_of_tests_failed();
	suites_failed = CU_get_number_of_suites_failed();
	CU_cleanup_registry();

	if (failures > 0 || tests_failed > 0 || suites_failed > 0) {
		printf("abb_tests: FAILED (%u assertion failures, %u tests, %u suites failed)\n",
		       failures, tests_failed, suites_failed);
		return 1;
	}
	printf("abb_tests: all tests passed\n");
	return 0;
}
