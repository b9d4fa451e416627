/*
 * wave_demo.c - the runs behind `make wave-shots` and doc/waveforms.md's
 * walk-through: DMAs of a given size through libabb on $ABB_DEVICE.
 *
 *   wave_demo [LEN [COUNT [drop]]]  COUNT times: a DMA write of LEN bytes
 *                             to the board, then a DMA read of them back
 *                             (interrupt-driven), data compared; "drop":
 *                             the 3rd completion to the board is lost
 *                             (abb_sim_inject): the DMA write fails
 * Exit status 0 when every DMA succeeded and the data matched, else 1
 * (with the library's message).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb.h>
#include <abb/abb_sim.h>

#define BOARD_ADDR 0x8000

static int fail(const char *what)
{
	fprintf(stderr, "wave_demo: %s: %s\n", what, abb_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoul(argv[1], NULL, 0) : 4096;
	unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1;
	abb_dev *dev;
	abb_dmabuf *sb, *db;
	unsigned char *src = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	unsigned char *dst = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (!src || !dst || len == 0 || len % 4)
		return 1;
	if (abb_open(&dev, NULL))
		return fail("open");
	if (abb_dmabuf_map(dev, src, len, &sb) || abb_dmabuf_map(dev, dst, len, &db))
		return fail("map");
	if (argc > 3 && strcmp(argv[3], "drop") == 0) {
		struct abb_sim_inject_spec s = {
			.kind = ABB_SIM_INJ_DROP, .dir = ABB_SIM_DIR_DOWN, .tlp = ABB_SIM_TLP_CPL,
			.tag = -1, .nth = 3,
		};
		if (abb_sim_inject(dev, &s) < 0)
			return fail("abb_sim_inject");
	}
	for (unsigned n = 0; n < count; n++) {
		for (size_t i = 0; i < len; i++)
			src[i] = (unsigned char)(i * 31 + 17 + n);
		memset(dst, 0, len);
		if (abb_dma_write(dev, sb, 0, BOARD_ADDR, len, ABB_DMA_IRQ))
			return fail("DMA write");
		if (abb_dma_read(dev, db, 0, BOARD_ADDR, len, ABB_DMA_IRQ))
			return fail("DMA read");
		if (memcmp(src, dst, len)) {
			fprintf(stderr, "wave_demo: data differs\n");
			return 1;
		}
	}
	printf("wave_demo: %u x %zu bytes written and read back\n", count, len);
	abb_close(dev);
	return 0;
}
