/*
 * fuzz_lspci.c - libFuzzer target: PCI discovery from an `lspci -x` dump
 * (abb_vfio_find with a dump file: libpci's dump method, then the scan
 * for 10dc:0153 and the address formatting).
 *
 * The input is written to a memfd and handed over as /proc/self/fd/N (no
 * file system traffic). The first byte sets the size of the bdf buffer
 * (0..31: the short ones must be refused with -EINVAL). Checks: no crash or
 * undefined behaviour, the return value is the number of ABBs found,
 * -ENODEV, -EIO or -EINVAL; with a result > 0 the bdf is a terminated
 * "DDDD:BB:DD.F" within the buffer.
 *
 * abb_vfio_find's signature: (dump_file, bdf, n) today; BRIEF contract 8
 * makes it (sysfs_root, dump_file, bdf, n). FIND calls whichever is
 * declared.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abb_vfio.h"

typedef int (*find3_fn)(const char *, char *, size_t);
typedef int (*find4_fn)(const char *, const char *, char *, size_t);
#define FIND(dump, bdf, n)                                                              \
	_Generic(&abb_vfio_find,                                                       \
		find3_fn: ((find3_fn)(void (*)(void))abb_vfio_find)(dump, bdf, n),     \
		default: ((find4_fn)(void (*)(void))abb_vfio_find)(NULL, dump, bdf, n))

static int fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], bdf[48];
	size_t n;
	int rc;

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
	memset(bdf, 0x5a, sizeof bdf);
	rc = FIND(path, bdf, n);
	if (rc == -EINVAL) {
		if (n >= 13) {
			fprintf(stderr, "abb_vfio_find: -EINVAL with a %zu-byte buffer\n", n);
			abort();
		}
	} else if (rc != -ENODEV && rc != -EIO && rc <= 0) {
		fprintf(stderr, "abb_vfio_find: unexpected return value %d\n", rc);
		abort();
	}
	for (size_t i = n; i < sizeof bdf; i++)
		if (bdf[i] != 0x5a) {
			fprintf(stderr, "abb_vfio_find wrote bdf[%zu] of a %zu-byte buffer\n", i, n);
			abort();
		}
	if (rc > 0) {
		unsigned dom, bus, dev, fn;
		char tail;

		if (!memchr(bdf, 0, n) ||
		    sscanf(bdf, "%4x:%2x:%2x.%1u%c", &dom, &bus, &dev, &fn, &tail) != 4) {
			fprintf(stderr, "abb_vfio_find: %d found but bdf \"%.*s\"\n", rc, (int)n, bdf);
			abort();
		}
	}
	return 0;
}
