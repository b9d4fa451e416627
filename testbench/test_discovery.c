/*
 * test_discovery.c - discovery of the board on the PCI bus (the VFIO
 * backend's abb_vfio_find, private header host/lib/abb_vfio.h), on fake
 * buses: `lspci -x` style dumps read through libpci's dump method, and
 * (simulator) the config space that the simulated endpoint dumps.
 * Needs no device: runs the same on every backend.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_sim.h>

#include "abb_vfio.h"

/* Config-space header lines (first 64 bytes) of some devices. */
#define HOST_BRIDGE                                                          \
	"00:00.0 Host bridge: Intel Corporation 440FX - 82441FX PMC [Natoma] (rev 02)\n" \
	"00: 86 80 37 12 06 00 00 00 02 00 00 06 00 00 00 00\n"             \
	"10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"30: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n\n"
/* the same vendor, another device; another vendor, the ABB's device id */
#define NEAR_MISSES                                                          \
	"02:00.0 Non-VGA unclassified device: CERN/ECP/EDU Device 0154\n"    \
	"00: dc 10 54 01 06 00 10 00 00 00 80 ff 00 00 00 00\n"             \
	"10: 00 00 00 fe 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 dc 10 54 01\n"             \
	"30: 00 00 00 00 40 00 00 00 00 00 00 00 0b 01 00 00\n\n"           \
	"02:01.0 VGA compatible controller: NVIDIA Corporation Device 0153\n" \
	"00: de 10 53 01 07 00 10 00 a1 00 00 03 00 00 00 00\n"             \
	"10: 00 00 00 fd 00 00 00 00 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 de 10 53 01\n"             \
	"30: 00 00 00 00 60 00 00 00 00 00 00 00 0b 01 00 00\n\n"
#define ABB_AT(bdf)                                                          \
	bdf " Non-VGA unclassified device: CERN/ECP/EDU Device 0153\n"       \
	"00: dc 10 53 01 06 00 10 00 00 00 80 ff 00 00 00 00\n"             \
	"10: 00 00 00 f8 00 00 00 f0 00 00 00 00 00 00 00 00\n"             \
	"20: 00 00 00 00 00 00 00 00 00 00 00 00 dc 10 53 01\n"             \
	"30: 00 00 00 00 50 00 00 00 00 00 00 00 0b 01 00 00\n\n"

/* Writes text to a new temporary file; returns its path in a static
 * buffer (one at a time), or NULL. */
static const char *dump_file(const char *text)
{
	static char path[64];
	int fd;
	size_t n = strlen(text);

	snprintf(path, sizeof(path), "/tmp/abb-tb-dump-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* abb_vfio_find on a dump with this text; the result and the bdf. */
static int find_in(const char *text, char *bdf, size_t n)
{
	const char *path = dump_file(text);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	memset(bdf, 0, n);
	rc = abb_vfio_find(NULL, path, bdf, n);
	unlink(path);
	return rc;
}

static void test_discovery_finds_abb(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE NEAR_MISSES ABB_AT("03:00.0"), bdf, sizeof(bdf));

	if (rc != 1)
		printf("\n    abb_vfio_find: %d (%s)\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:03:00.0");
}

static void test_discovery_no_abb(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE NEAR_MISSES, bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, -ENODEV);
	CU_ASSERT(abb_last_error()[0] != '\0');
	CU_ASSERT_STRING_EQUAL(bdf, "");
}

static void test_discovery_domain_and_function(void)
{
	char bdf[32];
	int rc = find_in(HOST_BRIDGE ABB_AT("0001:8a:1f.3"), bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0001:8a:1f.3");
}

static void test_discovery_counts_boards(void)
{
	char bdf[32];
	int rc = find_in(ABB_AT("05:00.0") HOST_BRIDGE ABB_AT("81:00.0"), bdf, sizeof(bdf));

	CU_ASSERT_EQUAL(rc, 2);
	/* the first one found, whichever order libpci lists them in */
	CU_ASSERT(strcmp(bdf, "0000:05:00.0") == 0 || strcmp(bdf, "0000:81:00.0") == 0);
}

static void test_discovery_bad_input(void)
{
	char bdf[32];

	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", bdf, sizeof(bdf)), -EIO);
	CU_ASSERT(abb_last_error()[0] != '\0');
	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", NULL, 32), -EINVAL);
	CU_ASSERT_EQUAL(abb_vfio_find(NULL, "/nonexistent/abb-dump", bdf, 12), -EINVAL);
}

/* The simulated endpoint's config space, dumped as lspci would, is found
 * as an ABB. */
static void test_discovery_sim_config_space(void)
{
	char path[64], bdf[32];
	int fd, rc;

	CU_ASSERT_EQUAL_FATAL(tb_open(NULL), 0);
	if (!tb_is_sim()) {
		printf("\n    skipped %s: simulation-only test, backend is \"%s\"\n", __func__,
		       abb_backend(tb_dev));
		tb_close();
		return;
	}
	snprintf(path, sizeof(path), "/tmp/abb-tb-cfg-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	rc = abb_sim_cfg_dump(tb_dev, path);
	CU_ASSERT_EQUAL(rc, 0);
	tb_close();
	if (rc == 0) {
		rc = abb_vfio_find(NULL, path, bdf, sizeof(bdf));
		if (rc != 1)
			printf("\n    abb_vfio_find(simulator's config dump): %d (%s)\n", rc,
			       abb_last_error());
		CU_ASSERT_EQUAL(rc, 1);
		CU_ASSERT_EQUAL(strlen(bdf), 12);
	}
	unlink(path);
}

static CU_TestInfo discovery_tests[] = {
	{ "test_discovery_finds_abb", test_discovery_finds_abb },
	{ "test_discovery_no_abb", test_discovery_no_abb },
	{ "test_discovery_domain_and_function", test_discovery_domain_and_function },
	{ "test_discovery_counts_boards", test_discovery_counts_boards },
	{ "test_discovery_bad_input", test_discovery_bad_input },
	{ "test_discovery_sim_config_space", test_discovery_sim_config_space },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo discovery_suite[] = {
	{ "discovery", NULL, tb_suite_close, NULL, NULL, discovery_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_discovery(void)
{
	return CU_register_suites(discovery_suite);
}
