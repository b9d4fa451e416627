/*
 * test_runner.c - suite "runner": the runner (tb_main.c) run as a program,
 * this same build/abb_tests on the reference model, with a selection of
 * three tests: one that needs the simulator (faults/test_faults_ur), one
 * that finds out while running that BAR1 is too small
 * (dma_integrity/test_dma_integrity_4m: the model's BAR1 is 1 MiB) and one
 * that runs (regs/test_regs_version). The first must be inactive, never
 * counted as run or passed, and its need printed; the second listed as
 * skipped with its reason; both <skipped> in the JUnit XML with their
 * reasons; the third passed. Runs on every backend (the child is always
 * the model).
 */
#define _GNU_SOURCE
#include "tb.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_MAX 65536

static char runner_out[OUT_MAX];

/* Runs this program with args on the model (ABB_VFIO_EMU unset); its
 * output (stdout and stderr) into runner_out. Returns its exit status,
 * or -1. */
static int run_self(const char *args)
{
	char exe[512], cmd[2048];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t len = 0;
	FILE *p;
	int st;

	if (n <= 0)
		return -1;
	exe[n] = 0;
	snprintf(cmd, sizeof cmd, "env -u ABB_VFIO_EMU -u ABB_TRACE_TEST ABB_DEVICE=model '%s' %s 2>&1",
		 exe, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len + 1 < OUT_MAX) {
		size_t got = fread(runner_out + len, 1, OUT_MAX - 1 - len, p);

		if (!got)
			break;
		len += got;
	}
	runner_out[len] = 0;
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The Run Summary's "tests" row: Total Ran Passed Failed Inactive. */
static int summary_tests(unsigned v[5])
{
	const char *l = strstr(runner_out, "Run Summary:");

	l = l ? strstr(l, "tests") : NULL;
	return l && sscanf(l, "tests %u %u %u %u %u", &v[0], &v[1], &v[2], &v[3], &v[4]) == 5;
}

/* The <testcase> element of test name in the XML text x (up to its end). */
static char *junit_case(const char *x, const char *name, char *buf, size_t n)
{
	char key[160];
	const char *a, *b;

	snprintf(key, sizeof key, "name=\"%s\"", name);
	a = strstr(x, key);
	b = a ? strstr(a, "</testcase>") : NULL;
	if (!b)
		return NULL;
	snprintf(buf, n, "%.*s", (int)(b - a), a);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = f ? calloc(1, OUT_MAX) : NULL;

	if (s && fread(s, 1, OUT_MAX - 1, f) == 0)
		s[0] = 0;
	if (f)
		fclose(f);
	return s;
}

static void test_runner_inactive_and_skipped(void)
{
	char xml[] = "/tmp/abb-tb-runner-XXXXXX", args[256], one[1024], *x;
	unsigned t[5] = {0};
	int fd, rc;

	fd = mkstemp(xml);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	snprintf(args, sizeof args, "--junit %s faults/test_faults_ur "
		 "dma_integrity/test_dma_integrity_4m regs/test_regs_version", xml);
	rc = run_self(args);
	if (rc != 0 || !summary_tests(t) || t[1] != 2)
		printf("\n    abb_tests %s: exit %d\n%s\n", args, rc, runner_out);
	CU_ASSERT_EQUAL(rc, 0);
	/* the simulator's test did not run and did not pass: Ran and Passed
	 * hold the other two, Inactive it (and the deselected ones) */
	CU_ASSERT_FATAL(summary_tests(t));
	CU_ASSERT_EQUAL(t[1], 2);
	CU_ASSERT_EQUAL(t[2], 2);
	CU_ASSERT_EQUAL(t[3], 0);
	CU_ASSERT(t[4] >= 1 && t[1] + t[4] <= t[0]);
	CU_ASSERT_PTR_NULL(strstr(runner_out, "Test: test_faults_ur"));
	/* why, before the run and with the Run Summary */
	CU_ASSERT_PTR_NOT_NULL(strstr(runner_out, "abb_tests: inactive on backend model: 1 test "
						 "needs the simulator (the sim backend):\n"
						 "    faults: test_faults_ur\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(runner_out, "abb_tests: inactive on backend model: 1 test "
						 "needs the simulator (the sim backend)\n"));
	/* the test that found out while running */
	CU_ASSERT_PTR_NOT_NULL(strstr(runner_out, "abb_tests: 1 test skipped while running "
						 "(counted as passed by CUnit): "
						 "dma_integrity/test_dma_integrity_4m (BAR1 is "));
	/* JUnit: both skipped, with their reasons; the third passed */
	x = slurp(xml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_PTR_NOT_NULL(junit_case(x, "test_faults_ur", one, sizeof one));
	CU_ASSERT_PTR_NOT_NULL(strstr(one, "<skipped message=\"needs the simulator (the sim "
					   "backend); the backend is model\"/>"));
	CU_ASSERT_PTR_NOT_NULL(junit_case(x, "test_dma_integrity_4m", one, sizeof one));
	CU_ASSERT_PTR_NOT_NULL(strstr(one, "<skipped message=\"BAR1 is "));
	CU_ASSERT_PTR_NOT_NULL(junit_case(x, "test_regs_version", one, sizeof one));
	CU_ASSERT_PTR_NULL(strstr(one, "<skipped"));
	CU_ASSERT_PTR_NULL(strstr(one, "<failure"));
	free(x);
	unlink(xml);
}

/* A name is selected as the table's function name, without the need tag;
 * a tag never shows in a name. */
static void test_runner_names_without_tags(void)
{
	int rc = run_self("--help");

	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NULL(strstr(runner_out, "[sim]"));
	rc = run_self("faults/test_faults_ur");
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NULL(strstr(runner_out, "[sim]"));
	CU_ASSERT_EQUAL(run_self("'faults/[sim]test_faults_ur'"), 2); /* no such test */
}

static CU_TestInfo runner_tests[] = {
	TB_TEST(test_runner_inactive_and_skipped),
	TB_TEST(test_runner_names_without_tags),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo runner_suite[] = {
	{ "runner", NULL, NULL, NULL, NULL, runner_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_runner(void)
{
	return CU_register_suites(runner_suite);
}
