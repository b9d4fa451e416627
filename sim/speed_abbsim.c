/*
 * speed_abbsim.c - simulation speed of the full platform (make sim-speed):
 * one DMA read (board to host) of BYTES (default 4 MiB) into a mapped
 * buffer, timed in wall-clock seconds; prints one "key=value" line in the
 * format of bare_bench (the bare Verilator loop) so the two compare.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abbsim.h"
#include <abb/abb_regs.h>

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int wr(uint32_t off, uint32_t v) { return abbsim_mmio_write(0, off, &v, 4); }

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 4u << 20;
	int traceable = argc > 2 && strcmp(argv[2], "traceable") == 0;
	if (bytes == 0 || bytes % 4 || bytes > (16u << 20) || argc > 3 || (argc > 2 && !traceable)) {
		fprintf(stderr, "usage: speed_abbsim [BYTES [traceable]]  (BYTES a multiple of 4, at "
			"most 16 MiB; traceable: the RTL model with tracing compiled in)\n");
		return 2;
	}
	struct abbsim_params p;
	abbsim_params_default(&p);
	p.mem_bytes = 16u << 20;
	p.traceable = (unsigned)traceable;
	if (abbsim_open(&p, NULL)) {
		fprintf(stderr, "speed_abbsim: open: %s\n", abbsim_last_error());
		return 1;
	}
	uint8_t *buf = malloc(bytes);
	memset(buf, 0, bytes);
	struct abbsim_seg seg;
	if (abbsim_iommu_map(buf, bytes, &seg, 1) != 1) {
		fprintf(stderr, "speed_abbsim: map: %s\n", abbsim_last_error());
		return 1;
	}
	/* one descriptor in the C2H registers, interrupt on done */
	wr(ABB_REG_IER, ABB_IER_C2H);
	wr(ABB_BLK_C2H + ABB_CH_PAL, 0);
	wr(ABB_BLK_C2H + ABB_CH_HAL, (uint32_t)seg.iova);
	wr(ABB_BLK_C2H + ABB_CH_LENG, (uint32_t)bytes);
	double t0 = wall();
	uint64_t c0 = abbsim_cycles(), seen = abbsim_irq_count();
	wr(ABB_BLK_C2H + ABB_CH_CTRL, ABB_CTRL_INC | ABB_CTRL_BAR | ABB_CTRL_UPA | ABB_CTRL_LAST |
					      ABB_CTRL_V | ABB_CTRL_EDI);
	int rc = abbsim_wait_irq(&seen, -1);
	double t1 = wall();
	if (rc) {
		fprintf(stderr, "speed_abbsim: %s\n", abbsim_last_error());
		return 1;
	}
	uint64_t cyc = abbsim_cycles() - c0;
	printf("platform: bytes=%zu cycles=%" PRIu64 " wall_s=%.4f cycles_per_s=%.0f sim_MB_per_s=%.2f "
	       "device_MB_per_s=%.1f\n",
	       bytes, cyc, t1 - t0, cyc / (t1 - t0), bytes / (t1 - t0) / 1e6,
	       cyc ? (double)bytes * abbsim_clk_mhz(&p) / (double)cyc : 0.0);
	abbsim_iommu_unmap(buf);
	abbsim_close();
	free(buf);
	return 0;
}
