/*
 * abb_demo.c - DMA write and read of every power-of-two size from 4 KiB to
 * 1 MiB (within BAR1), with data check and bandwidth in device time.
 *
 *   abb_demo [-i] [URI]  URI as for abb_open(); default $ABB_DEVICE, else "sim"
 *                        -i: complete by interrupt (ABB_DMA_IRQ) instead of polling
 *
 * "DMA write" = host to board, "DMA read" = board to host. MB/s = 10^6
 * bytes per second of device time (simulated time on the simulator).
 * Exit status 0 if every transfer succeeded and every byte matched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>

#include "tool_args.h"

#define MIN_SIZE (4u << 10)
#define MAX_SIZE (1u << 20)

static int fail(const char *what, int rc)
{
	fprintf(stderr, "abb_demo: %s: %s\n  %s\n", what, abb_strerror(rc), abb_last_error());
	return 1;
}

/* A pattern that differs per size and per word, so stale data shows. */
static void fill(uint32_t *p, size_t words, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
}

static double mbps(size_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

int main(int argc, char **argv)
{
	const char *uri = NULL;
	unsigned flags = 0;
	abb_dmabuf *src_map = NULL, *dst_map = NULL;
	uint32_t *src = NULL, *dst = NULL, version;
	size_t mem, max;
	abb_dev *dev;
	int rc, bad = 0;

	tool_begin(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-i")) {
			flags |= ABB_DMA_IRQ;
		} else if (argv[i][0] != '-' && !uri) {
			uri = argv[i];
		} else {
			fprintf(stderr, "usage: %s [-i] [URI]   (-i: interrupts; URI: sim, "
				"sim:key=val,..., vfio, vfio:DDDD:BB:DD.F; default $ABB_DEVICE "
				"or sim)\n", argv[0]);
			return 2;
		}
	}
	rc = abb_open(&dev, uri);
	if (rc)
		return fail("open", rc);
	rc = abb_reg_read(dev, ABB_REG_VERSION, &version);
	if (!rc)
		rc = abb_mem_size(dev, &mem);
	if (rc) {
		bad = fail("reading VERSION / BAR1 size", rc);
		goto out;
	}
	printf("backend %s, VERSION 0x%08x, BAR1 %zu KiB, completion by %s\n", abb_backend(dev),
	       version, mem >> 10, flags & ABB_DMA_IRQ ? "interrupt" : "polling");
	max = mem < MAX_SIZE ? mem : MAX_SIZE;
	if (max < MIN_SIZE) {
		fprintf(stderr, "abb_demo: BAR1 is smaller than %u bytes\n", MIN_SIZE);
		bad = 1;
		goto out;
	}

	src = aligned_alloc(4096, max);
	dst = aligned_alloc(4096, max);
	if (!src || !dst) {
		fprintf(stderr, "abb_demo: out of memory\n");
		bad = 1;
		goto out;
	}
	memset(dst, 0, max);
	rc = abb_dmabuf_map(dev, src, max, &src_map);
	if (!rc)
		rc = abb_dmabuf_map(dev, dst, max, &dst_map);
	if (rc) {
		bad = fail("mapping buffers", rc);
		goto out;
	}

	printf("%10s %14s %14s  %s\n", "size", "DMA read MB/s", "DMA write MB/s", "data");
	for (size_t size = MIN_SIZE; size <= max; size *= 2) {
		uint64_t t0, t1, t2;
		size_t diff = 0;
		int same;

		fill(src, size / 4, (uint32_t)size);
		memset(dst, 0xa5, size);
		rc = abb_time_ns(dev, &t0);
		if (!rc)
			rc = abb_dma_write(dev, src_map, 0, 0, size, flags);
		if (rc) {
			bad = fail("DMA write (host to board)", rc);
			break;
		}
		rc = abb_time_ns(dev, &t1);
		if (!rc)
			rc = abb_dma_read(dev, dst_map, 0, 0, size, flags);
		if (rc) {
			bad = fail("DMA read (board to host)", rc);
			break;
		}
		rc = abb_time_ns(dev, &t2);
		if (rc) {
			bad = fail("device time", rc);
			break;
		}
		same = memcmp(src, dst, size) == 0;
		if (!same) {
			while (diff + 1 < size / 4 && src[diff] == dst[diff])
				diff++;
			bad = 1;
		}
		printf("%7zu KiB %14.1f %14.1f  ", size >> 10, mbps(size, t2 - t1),
		       mbps(size, t1 - t0));
		if (!same)
			printf("MISMATCH at byte %zu: wrote 0x%08x, read 0x%08x\n", diff * 4,
			       src[diff], dst[diff]);
		else
			printf("data ok\n");
	}

out:
	if (src_map)
		abb_dmabuf_unmap(src_map);
	if (dst_map)
		abb_dmabuf_unmap(dst_map);
	abb_close(dev);
	free(src);
	free(dst);
	return bad;
}
