/*
 * tool_args.h - what every command-line tool of host/tools shares: one
 * number parser (the tools had one each, and each let something through:
 * offsets cut to 32 bits, suffixes that overflowed, "-1" taken as 2^64-1)
 * and the check that the output really was written.
 *
 * A tool calls tool_begin() first; refuses a bad argument with the
 * message tool_num() printed, its usage line and exit status 2; exits 1
 * when writing standard output failed (a full disk, a closed pipe).
 */
#ifndef ABB_TOOL_ARGS_H
#define ABB_TOOL_ARGS_H

#ifdef __cplusplus
extern "C" { /* abb_bench_mprace (C++) uses it too */
#endif

/* tool_num flags */
#define TOOL_NUM_SIZE 1u /* a size: suffix K, M or G (x 2^10, 2^20, 2^30), then B or iB allowed */

/* The program's name for messages; at exit, flushes standard output and
 * turns a write error into a message and exit status 1. */
void tool_begin(const char *prog);

/* s as a number: decimal or 0x hex, nothing else (no sign, no blanks, no
 * leading 0 before a digit: C would read it as octal), with TOOL_NUM_SIZE
 * its suffix; overflow-checked; lo..hi. Returns 0 with *v set, or -1
 * after "PROG: WHAT VALUE: why (the range)" on stderr. */
int tool_num(const char *what, const char *s, unsigned long long lo, unsigned long long hi,
	     unsigned flags, unsigned long long *v);

/* "PROG: " and the formatted message on stderr; returns -1. */
int tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* After a gnuplot run: its failure on stderr (with the package to
 * install), or "plot: PNG" on stdout unless quiet (CSV output). */
void tool_plot_done(int failed, const char *png, int quiet);

#ifdef __cplusplus
}
#endif

#endif
