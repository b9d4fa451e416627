/*
 * test_pin_placement.c - libmprace-pin.so (bench/pin_placement.c) under
 * LD_PRELOAD: page-multiple blocks start MPRACE_PIN_OFFSET into a page,
 * keep their data through realloc, and other sizes stay glibc's. Run by
 * make mprace-test as
 *   LD_PRELOAD=build/libmprace-pin.so MPRACE_PIN_OFFSET=0x470 build/mprace_pin_test 0x470
 * and without the library (expect "none": a heap block of 4 KiB is not at
 * a fixed offset, so the test only checks that it ran unpinned).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "mprace_pin_test: FAIL: %s\n", what);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "none";
	uintptr_t off = strcmp(want, "none") ? strtoul(want, NULL, 0) : 0;
	size_t sizes[] = {4096, 8192, 65536, 1u << 20};
	unsigned char *p[4];

	for (int i = 0; i < 4; i++) {
		p[i] = malloc(sizes[i]);
		check(p[i] != NULL, "malloc of a page multiple");
		if (!p[i])
			return 1;
		memset(p[i], 0x5a ^ i, sizes[i]);
		if (strcmp(want, "none"))
			check(((uintptr_t)p[i] & 4095) == off, "a page-multiple block at the offset");
	}
	/* grow a pinned block: the data stays, the new block is pinned too */
	p[0] = realloc(p[0], 16384);
	check(p[0] != NULL, "realloc");
	if (!p[0])
		return 1;
	for (size_t i = 0; i < 4096; i++)
		if (p[0][i] != 0x5a) {
			check(0, "realloc keeps the data");
			break;
		}
	if (strcmp(want, "none"))
		check(((uintptr_t)p[0] & 4095) == off, "the grown block at the offset");
	/* shrink to a size that is not a page multiple: a glibc block */
	p[0] = realloc(p[0], 100);
	check(p[0] != NULL && p[0][99] == 0x5a, "realloc to a small block keeps the data");
	for (int i = 0; i < 4; i++)
		free(p[i]);
	/* small and odd sizes are glibc's: 16-byte aligned, freed normally */
	for (int i = 0; i < 1000; i++) {
		void *q = malloc(4096 + 8);

		check(q && ((uintptr_t)q & 15) == 0, "an odd size is glibc's");
		free(q);
	}
	/* more live blocks than the library has slots: the rest are glibc's */
	{
		enum { N = 300 };
		void *v[N];

		for (int i = 0; i < N; i++) {
			v[i] = malloc(4096);
			check(v[i] != NULL, "malloc beyond the slots");
		}
		for (int i = 0; i < N; i++)
			free(v[i]);
	}
	if (!failed)
		printf("mprace_pin_test: pinned at %s: ok\n", want);
	return failed;
}
