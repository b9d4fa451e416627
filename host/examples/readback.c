/*
 * readback.c - the smallest complete libabb program, written only against
 * <abb/abb.h> and built the way README.md tells users to build theirs:
 * checks VERSION, writes a pattern into board memory by DMA write, reads it
 * back by DMA read into a different, page-unaligned buffer, compares.
 * Runs on any backend ($ABB_DEVICE; default the simulator). Exit 0 = ok.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb.h>

#define LEN (64 * 1024)
#define BOARD_ADDR 0x8000

static int fail(const char *what)
{
	fprintf(stderr, "readback: %s: %s\n", what, abb_last_error());
	return 1;
}

int main(void)
{
	abb_dev *dev;
	abb_dmabuf *src_buf, *dst_buf;
	uint32_t version;
	/* the destination starts 4 bytes into a page-aligned block: unaligned */
	unsigned char *src = aligned_alloc(4096, LEN);
	unsigned char *block = aligned_alloc(4096, LEN + 8192);
	unsigned char *dst = block + 4;

	if (!src || !block)
		return 1;
	for (size_t i = 0; i < LEN; i++)
		src[i] = (unsigned char)(i * 31 + 17);
	memset(dst, 0, LEN);

	if (abb_open(&dev, NULL))
		return fail("open");
	if (abb_reg_read(dev, 0x0, &version))
		return fail("VERSION read");
	printf("backend %s, VERSION 0x%08x\n", abb_backend(dev), version);
	if (version != 0x00020003) {
		fprintf(stderr, "readback: VERSION is not 0x00020003\n");
		return 1;
	}
	if (abb_dmabuf_map(dev, src, LEN, &src_buf) || abb_dmabuf_map(dev, dst, LEN, &dst_buf))
		return fail("map");
	if (abb_dma_write(dev, src_buf, 0, BOARD_ADDR, LEN, 0))
		return fail("DMA write");
	if (abb_dma_read(dev, dst_buf, 0, BOARD_ADDR, LEN, 0))
		return fail("DMA read");
	if (memcmp(src, dst, LEN)) {
		fprintf(stderr, "readback: data differs\n");
		return 1;
	}
	printf("readback: %d bytes written and read back, identical\n", LEN);
	abb_dmabuf_unmap(src_buf);
	abb_dmabuf_unmap(dst_buf);
	abb_close(dev);
	free(src);
	free(block);
	return 0;
}
