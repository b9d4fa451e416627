/*
 * speed_program.c - the simulator's speed as a libabb program sees it (make
 * sim-speed, sim/sim_speed_programs.sh): one workload, timed in wall-clock
 * seconds, CPU seconds of the process (every thread: the program's and the
 * simulator's), device time and user-clock cycles; one "key=value" line.
 *
 *   speed_program read-poll|read-irq|write-poll|write-irq SIZE TOTAL
 *       TOTAL/SIZE blocking DMAs of SIZE bytes from (read: board to host) or
 *       to (write: host to board) board address 0, completion polled or by
 *       interrupt (ABB_DMA_IRQ), one mapped buffer
 *   speed_program readout SIZE TOTAL
 *       a standalone DAQ readout module (<abb/abb_daq.h>, one thread, the
 *       module parameters of abb_bench_daq: bench_module.c) moving
 *       TOTAL/SIZE buffers of SIZE bytes
 *
 * SIZE and TOTAL in bytes, decimal or 0x hex, suffix K or M (tool_args.c). The device is $ABB_DEVICE (the
 * simulator when unset). Only the public API: the same source is built
 * against the libabb of another revision to compare the two (make
 * sim-speed BASELINE=<rev>); cycles come from abb_sim_cycles (0 on a board).
 *
 * Before the timed loop one DMA write of the workload's size (and completion)
 * warms the path up and puts a known pattern on the board: a read checks
 * that it read it, a write reads its data back afterwards and compares. A
 * run that moved wrong data fails (exit 1) rather than report a speed. The
 * readout module moves one buffer before its timed run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb.h>
#include <abb/abb_daq.h>
#include <abb/abb_sim.h>

#include "bench_module.h"
#include "tool_args.h"

#define SIZE_MAX_OPT (1ull << 20) /* the default BAR1: 1 MiB */
#define TOTAL_MAX_OPT (1ull << 34)

struct sample {
	double wall, cpu;   /* s */
	uint64_t dev_ns, cycles;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int take(abb_dev *dev, struct sample *s)
{
	s->wall = clock_s(CLOCK_MONOTONIC);
	s->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (abb_sim_cycles(dev, &s->cycles))
		s->cycles = 0; /* not the simulator */
	return abb_time_ns(dev, &s->dev_ns);
}

/* SIZE or TOTAL: a multiple of 4 in [4, hi] (the tools' one number reader,
 * tool_args.c: decimal or 0x hex, suffix K or M). */
static int parse_bytes(const char *what, const char *s, unsigned long long hi,
		       unsigned long long *out)
{
	if (tool_num(what, s, 4, hi, TOOL_NUM_SIZE, out))
		return -1;
	if (*out % 4)
		return tool_error("%s %s: not a multiple of 4 bytes", what, s);
	return 0;
}

static void pattern(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + (i >> 12) + seed);
}

static int dma(abb_dev *dev, abb_dmabuf *db, int write, size_t size, unsigned flags)
{
	return write ? abb_dma_write(dev, db, 0, 0, size, flags)
		     : abb_dma_read(dev, db, 0, 0, size, flags);
}

/* n DMAs of size bytes between one buffer and board address 0, timed in
 * *t0 .. *t1; the data checked as the header comment says. */
static int dma_loop(abb_dev *dev, int write, unsigned flags, size_t size, uint64_t n,
		    struct sample *t0, struct sample *t1)
{
	uint8_t *mem = NULL, *ref = malloc(size);
	abb_dmabuf *db = NULL;
	int rc;

	if (!ref || posix_memalign((void **)&mem, 4096, size)) {
		free(ref);
		return -ENOMEM;
	}
	pattern(ref, size, write ? 0x5a : 0xa5);
	memcpy(mem, ref, size);
	rc = abb_dmabuf_map(dev, mem, size, &db);
	/* warm-up, and the pattern a read finds on the board */
	if (!rc)
		rc = dma(dev, db, 1, size, flags);
	if (!rc && !write)
		memset(mem, 0, size);
	if (!rc)
		rc = take(dev, t0);
	for (uint64_t i = 0; i < n && !rc; i++)
		rc = dma(dev, db, write, size, flags);
	if (!rc)
		rc = take(dev, t1);
	if (!rc && write) {
		memset(mem, 0, size);
		rc = dma(dev, db, 0, size, flags);
	}
	if (!rc && memcmp(mem, ref, size)) {
		fprintf(stderr, "speed_program: the data %s differs from what was written\n",
			write ? "read back from the board" : "read from the board");
		rc = -EIO;
	}
	if (db)
		(void)abb_dmabuf_unmap(db);
	free(mem);
	free(ref);
	return rc;
}

/* A standalone readout module moving n buffers of size bytes. */
static int readout(abb_dev *dev, size_t size, uint64_t n, struct sample *t0, struct sample *t1)
{
	struct abb_daq_params p;
	abb_daq_device *d;
	double ns_per;
	int rc;

	if (n > UINT32_MAX)
		return -EINVAL;
	rc = abb_daq_device_attach(&d, dev, 0);
	if (rc)
		return rc;
	bench_module_params(&p, 0, size, 1, 1, 0);
	rc = bench_module_run(d, 0, &p, &ns_per); /* warm-up */
	bench_module_params(&p, 0, size, (unsigned)n, 1, 0);
	if (!rc)
		rc = take(dev, t0);
	if (!rc)
		rc = bench_module_run(d, 0, &p, &ns_per);
	if (!rc)
		rc = take(dev, t1);
	abb_daq_device_close(d);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = {"read-poll", "read-irq", "write-poll", "write-irq",
					    "readout"};
	unsigned long long size, total;
	struct sample t0, t1;
	abb_dev *dev;
	int kind = -1, rc;

	tool_begin(argv[0]);
	for (int i = 0; argc == 4 && i < 5; i++)
		if (!strcmp(argv[1], kinds[i]))
			kind = i;
	if (kind < 0) {
		fprintf(stderr, "usage: speed_program read-poll|read-irq|write-poll|write-irq|readout "
			"SIZE TOTAL\n");
		return 2;
	}
	if (parse_bytes("SIZE", argv[2], SIZE_MAX_OPT, &size) ||
	    parse_bytes("TOTAL", argv[3], TOTAL_MAX_OPT, &total))
		return 2;
	if (total < size) {
		fprintf(stderr, "speed_program: TOTAL %llu is less than SIZE %llu\n", total, size);
		return 2;
	}
	rc = abb_open(&dev, NULL);
	if (rc) {
		fprintf(stderr, "speed_program: open: %s\n", abb_last_error());
		return 1;
	}
	if (kind == 4)
		rc = readout(dev, size, total / size, &t0, &t1);
	else
		rc = dma_loop(dev, kind >= 2, kind & 1 ? ABB_DMA_IRQ : 0, size, total / size, &t0,
			      &t1);
	if (rc) {
		fprintf(stderr, "speed_program %s: %s: %s\n", argv[1], abb_strerror(rc),
			abb_last_error());
		abb_close(dev);
		return 1;
	}
	abb_close(dev);

	double wall = t1.wall - t0.wall, cpu = t1.cpu - t0.cpu;
	double dev_s = (double)(t1.dev_ns - t0.dev_ns) * 1e-9;
	uint64_t cyc = t1.cycles - t0.cycles, bytes = total / size * size;

	printf("%s: size=%llu bytes=%" PRIu64 " wall_s=%.4f cpu_s=%.4f device_s=%.6f cycles=%" PRIu64
	       " sim_MB_per_s=%.3f rtf=%.2f cycles_per_s=%.0f cycles_per_cpu_s=%.0f "
	       "device_MB_per_s=%.1f\n",
	       argv[1], size, bytes, wall, cpu, dev_s, cyc, bytes / wall / 1e6,
	       dev_s > 0 ? wall / dev_s : 0.0, cyc / wall, cpu > 0 ? cyc / cpu : 0.0,
	       dev_s > 0 ? bytes / dev_s / 1e6 : 0.0);
	return 0;
}
