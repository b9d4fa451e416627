/*
 * pin_placement.c - libmprace-pin.so, an LD_PRELOAD library that gives an
 * original program's USER DMA buffers the same place in their pages on
 * every backend, so that two runs of it (the simulator and the timed
 * model) move the same scatter-gather shapes.
 *
 * Why: the layer allocates a USER DMABuffer with malloc, as the original
 * did (src/DMABuffer.cpp), so its offset in its first page is whatever the
 * heap gives. The heap differs between backends (the simulator's platform
 * allocates in the same process), and the offset decides how many pages,
 * and so descriptors and TLP splits, a small buffer spans: testABB's polled
 * 4 KiB user-memory read measures 535-567 MiB/s depending on it, on either
 * backend. With this library both runs see the same placement.
 *
 * What it does: every malloc of a multiple of 4 KiB (the buffers of the
 * board's programs are 4 KiB and more, in 4 KiB steps) gets a mapping of
 * its own and starts MPRACE_PIN_OFFSET bytes (default 0x10, where glibc
 * places its own mmap()ed chunks; below 4096) into it; free and realloc
 * know these blocks. Everything else goes to glibc's allocator. At most
 * PIN_SLOTS such blocks live at once; more are left to glibc. Not for
 * production: calloc, posix_memalign and malloc_usable_size are not
 * followed (the layer does not use them for buffers).
 *
 *   LD_PRELOAD=build/libmprace-pin.so MPRACE_PIN_OFFSET=0x470 ./testABB
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PIN_SLOTS 256
#define PAGE 4096u

/* glibc's own allocator, under the names glibc exports for this purpose */
extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern void *__libc_realloc(void *p, size_t n);

static struct {
	char *map, *p;
	size_t len;
} slot[PIN_SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t pin_offset = (size_t)-1;

static size_t offset(void)
{
	if (pin_offset == (size_t)-1) {
		const char *s = getenv("MPRACE_PIN_OFFSET");
		char *end = NULL;
		unsigned long v = s ? strtoul(s, &end, 0) : 0x10;

		if (s && (end == s || *end || v >= PAGE || v % 4)) {
			fprintf(stderr, "libmprace-pin: MPRACE_PIN_OFFSET=%s is not a multiple of 4 "
				"below 4096; using 0x10\n", s);
			v = 0x10;
		}
		pin_offset = v;
	}
	return pin_offset;
}

/* the slot of a pinned block, -1 for a pointer of glibc's (lock held) */
static int find(const void *p)
{
	for (int i = 0; i < PIN_SLOTS; i++)
		if (slot[i].p && slot[i].p == p)
			return i;
	return -1;
}

void *malloc(size_t n)
{
	void *p = NULL;
	size_t off;

	if (n < PAGE || n % PAGE || n > SIZE_MAX - 2 * PAGE)
		return __libc_malloc(n);
	off = offset(); /* before the lock: its warning may allocate */
	pthread_mutex_lock(&slot_lock);
	for (int i = 0; i < PIN_SLOTS; i++) {
		if (slot[i].p)
			continue;
		size_t len = n + 2 * PAGE;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED) {
			slot[i].map = m;
			slot[i].len = len;
			slot[i].p = p = m + off;
		}
		break;
	}
	pthread_mutex_unlock(&slot_lock);
	return p ? p : __libc_malloc(n);
}

void free(void *p)
{
	int i;

	if (!p)
		return;
	pthread_mutex_lock(&slot_lock);
	i = find(p);
	if (i >= 0) {
		munmap(slot[i].map, slot[i].len);
		slot[i].p = NULL;
	}
	pthread_mutex_unlock(&slot_lock);
	if (i < 0)
		__libc_free(p);
}

void *realloc(void *p, size_t n)
{
	size_t have = 0;
	void *q;
	int i;

	if (!p)
		return malloc(n);
	pthread_mutex_lock(&slot_lock);
	i = find(p);
	if (i >= 0)
		have = slot[i].len - (size_t)(slot[i].p - slot[i].map);
	pthread_mutex_unlock(&slot_lock);
	if (i < 0)
		return __libc_realloc(p, n);
	q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, n < have ? n : have);
	free(p);
	return q;
}
