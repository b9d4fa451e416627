/*
 * bench_hosttime.c - build/abb_bench_hosttime, `make hosttime-cost`: what
 * host-time coupling (sim:hosttime=1, ABB_SIM_HOSTTIME=1) costs a device
 * call on this machine. A figure of the host, not a test: it moves with
 * the machine and its load, so the bench (test_determinism.c) asserts only
 * the bounds that hold everywhere and this program prints the figures.
 *
 *   build/abb_bench_hosttime [ROUNDS [model]]     (default 5; model: the timed
 *                                                  reference model, model:timed=1)
 *
 * Per round, on the simulator opened in lockstep and then with the
 * coupling: the median device time of 64 back-to-back register reads (the
 * difference is host time the coupling's calibration at open does not
 * catch and charges to every call: 0 would be exact), and the device time
 * that 2 ms of the thread's CPU between two reads let pass. Then the
 * median and the range over the rounds. Exit status 0, or 1 when the
 * simulator cannot be opened or a read fails.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define READS 64
#define MAX_ROUNDS 100

static uint64_t dev_ns(abb_dev *d)
{
	uint64_t t = 0;

	return abb_time_ns(d, &t) ? 0 : t;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp_u64);
	return n ? v[n / 2] : 0;
}

/* Median device ns of READS back-to-back register reads; 0 on an error. */
static uint64_t median_read_ns(abb_dev *d)
{
	uint64_t step[READS], t0, t1;
	uint32_t v;

	t0 = dev_ns(d);
	for (unsigned i = 0; i < READS; i++) {
		if (abb_reg_read(d, ABB_REG_VERSION, &v))
			return 0;
		t1 = dev_ns(d);
		step[i] = t1 - t0;
		t0 = dev_ns(d);
	}
	return median(step, READS);
}

/* Device ns between two reads with 2 ms of thread CPU between them. */
static uint64_t spin_ns(abb_dev *d)
{
	volatile unsigned long spin = 0;
	uint64_t t0, c0;
	uint32_t v;

	if (abb_reg_read(d, ABB_REG_VERSION, &v))
		return 0;
	t0 = dev_ns(d);
	c0 = thread_cpu_ns();
	while (thread_cpu_ns() - c0 < 2000000)
		for (int i = 0; i < 1000; i++)
			spin += (unsigned long)i;
	if (abb_reg_read(d, ABB_REG_VERSION, &v))
		return 0;
	return dev_ns(d) - t0;
}

/* One measurement on a device opened with uri. */
static int measure(const char *uri, uint64_t *read_ns, uint64_t *spin)
{
	abb_dev *d = NULL;
	int rc = abb_open(&d, uri);

	if (rc) {
		fprintf(stderr, "abb_bench_hosttime: abb_open(%s): %s\n", uri, abb_last_error());
		return -1;
	}
	*read_ns = median_read_ns(d);
	*spin = spin_ns(d);
	abb_close(d);
	if (!*read_ns || !*spin) {
		fprintf(stderr, "abb_bench_hosttime: %s: a register read failed: %s\n", uri,
			abb_last_error());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t lock[MAX_ROUNDS], ht[MAX_ROUNDS], over[MAX_ROUNDS], spin[MAX_ROUNDS];
	unsigned rounds = 5;
	uint64_t lock_spin, m_lock, m_ht, m_over, m_spin;
	int model = argc == 3 && !strcmp(argv[2], "model");
	const char *u0 = model ? "model:timed=1,hosttime=0" : "sim:hosttime=0";
	const char *u1 = model ? "model:timed=1,hosttime=1" : "sim:hosttime=1";

	if (argc > 3 || (argc == 3 && !model) ||
	    (argc >= 2 && (sscanf(argv[1], "%u", &rounds) != 1 || rounds == 0 ||
			   rounds > MAX_ROUNDS))) {
		fprintf(stderr, "usage: abb_bench_hosttime [ROUNDS [model]]   (1..%d, default 5; "
			"model: the timed reference model)\n", MAX_ROUNDS);
		return 2;
	}
	printf("backend: %s\n", model ? "the timed reference model (model:timed=1)" : "sim");
	printf("host-time coupling: device time of a register read (median of %d) and of 2 ms "
	       "of host CPU between two reads\n", READS);
	printf("%5s %12s %12s %14s %18s\n", "round", "lockstep ns", "coupled ns", "charged +ns",
	       "2 ms CPU -> dev us");
	for (unsigned r = 0; r < rounds; r++) {
		if (measure(u0, &lock[r], &lock_spin) || measure(u1, &ht[r], &spin[r]))
			return 1;
		over[r] = ht[r] > lock[r] ? ht[r] - lock[r] : 0;
		printf("%5u %12llu %12llu %14llu %18.1f\n", r + 1, (unsigned long long)lock[r],
		       (unsigned long long)ht[r], (unsigned long long)over[r], spin[r] / 1e3);
	}
	/* sorted by median(): [0] and [rounds - 1] are the range */
	m_lock = median(lock, rounds);
	m_ht = median(ht, rounds);
	m_over = median(over, rounds);
	m_spin = median(spin, rounds);
	printf("median over %u rounds: a read %llu ns in lockstep, %llu ns coupled: +%llu ns "
	       "charged per call (range %llu..%llu); 2 ms of host CPU -> %.1f us of device "
	       "time (range %.1f..%.1f)\n",
	       rounds, (unsigned long long)m_lock, (unsigned long long)m_ht,
	       (unsigned long long)m_over, (unsigned long long)over[0],
	       (unsigned long long)over[rounds - 1], m_spin / 1e3, spin[0] / 1e3,
	       spin[rounds - 1] / 1e3);
	return 0;
}
