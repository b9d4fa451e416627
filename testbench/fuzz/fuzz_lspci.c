/*
 * fuzz_lspci.c - libFuzzer target: PCI discovery from an `lspci -x` dump
 * (host/lib/vfio_find.c: abb_vfio_find and abb_vfio_find_all with a dump
 * file, i.e. libpci's dump method, the scan for 10dc:0153, the sort and the
 * address formatting).
 *
 * The input is written to a memfd and handed over as /proc/self/fd/N (no
 * file system traffic). The first byte sets the size of the bdf buffer
 * (0..31). Checks: no crash or undefined behaviour; abb_vfio_find returns
 * the number of ABBs, -ENODEV, -EIO or -EINVAL (-EINVAL only for a buffer
 * below 13 bytes or one too short for the address found: at most 17 bytes
 * are ever needed); with a count the bdf is a whole, terminated
 * "DDDD:BB:DD.F" within the buffer and nothing after the buffer is
 * written; abb_vfio_find_all agrees on the count and its first address
 * (run when abb_vfio_find found something or refused the buffer).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <abb/abb_vfio.h>

#define GUARD 0x5a

static int fd = -1;

static void fail(const char *what, int rc, size_t n, const char *bdf)
{
	fprintf(stderr, "fuzz_lspci: %s (rc %d, n %zu, bdf \"%.*s\")\n", what, rc, n,
		(int)(n < 32 ? n : 32), bdf);
	abort();
}

/* 1 if s is a whole PCI address "D+:BB:DD.F" (hex domain of 4 to 8 digits). */
static int whole_bdf(const char *s)
{
	unsigned dom, bus, dev, fn;
	int used = -1;

	if (sscanf(s, "%8x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &used) != 4 || used < 0)
		return 0;
	return s[used] == 0 && strchr(s, ':') - s >= 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], bdf[48], all[4][ABB_BDF_LEN];
	size_t n;
	int rc, rc_all;

	if (size < 1)
		return 0;
	if (fd < 0) {
		fd = memfd_create("fuzz_lspci", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
	}
	if (ftruncate(fd, 0) || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1)) {
		perror("memfd write");
		abort();
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	n = data[0] % 32;
	memset(bdf, GUARD, sizeof bdf);
	rc = abb_vfio_find(NULL, path, bdf, n);
	for (size_t i = n; i < sizeof bdf; i++)
		if ((unsigned char)bdf[i] != GUARD)
			fail("wrote past the bdf buffer", rc, n, bdf);
	if (rc == -EINVAL) {
		if (n >= 18)
			fail("-EINVAL with a buffer long enough for any address", rc, n, bdf);
	} else if (rc != -ENODEV && rc != -EIO && rc <= 0) {
		fail("unexpected return value", rc, n, bdf);
	} else if (rc > 0 && (!memchr(bdf, 0, n) || !whole_bdf(bdf))) {
		fail("a count but no whole address", rc, n, bdf);
	}

	/* the same scan again through abb_vfio_find_all, when there is an
	 * address to compare (a failed scan fails the same way) */
	if (rc <= 0 && rc != -EINVAL)
		return 0;
	rc_all = abb_vfio_find_all(NULL, path, all, 4);
	if (rc > 0 && (rc_all != rc || strcmp(all[0], bdf) != 0))
		fail("abb_vfio_find_all disagrees", rc_all, n, all[0]);
	if (rc_all > 0)
		for (int i = 0; i < rc_all && i < 4; i++)
			if (!memchr(all[i], 0, ABB_BDF_LEN))
				fail("abb_vfio_find_all: address not terminated", rc_all, n, all[i]);
	return 0;
}
