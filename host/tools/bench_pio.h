/*
 * bench_pio.h - `abb_bench --pio` (bench_pio.c): PIO into BAR1 as a CPU
 * issues it, uc and wc, every store width, fill and memcpy shapes.
 */
#ifndef ABB_BENCH_PIO_H
#define ABB_BENCH_PIO_H

/* Opens uri (NULL: $ABB_DEVICE, else sim) with pio=uc, then pio=wc, and
 * prints the rows (csv: the CSV with the header
 * mode,store_bytes,bytes,device_MB_per_s,tlps); png: a gnuplot plot of
 * MB/s against the store width. The exit status: 0, or 1 on a failure
 * (printed). */
int bench_pio(const char *uri, int csv, const char *png);

#endif
