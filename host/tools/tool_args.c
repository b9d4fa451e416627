/*
 * tool_args.c - the tools' number parser and output check (tool_args.h).
 */
#include "tool_args.h"

#include "abb_digits.h" /* host/lib */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "abb";

/* At exit (registered first, so it runs after every other handler): a
 * program whose output did not arrive must not say it succeeded. */
static void check_stdout(void)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	err = errno ? errno : EIO;
	fprintf(stderr, "%s: writing the output failed: %s\n", prog, strerror(err));
	_exit(1);
}

void tool_begin(const char *name)
{
	const char *slash = strrchr(name, '/');

	prog = slash ? slash + 1 : name;
	atexit(check_stdout);
}

int tool_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int tool_num(const char *what, const char *s, unsigned long long lo, unsigned long long hi,
	     unsigned flags, unsigned long long *v)
{
	const char *p = s;
	unsigned long long x, mul = 1;
	int rc;

	if (*p == '-')
		return tool_error("%s %s: not negative (%llu..%llu)", what, s, lo, hi);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		rc = abb_digits(&p, 16, &x);
	} else if (p[0] == '0' && p[1] >= '0' && p[1] <= '9') {
		return tool_error("%s %s: a leading 0 (octal in C): write it in decimal or as 0x hex",
				  what, s);
	} else {
		rc = abb_digits(&p, 10, &x);
	}
	if (rc == -ERANGE)
		return tool_error("%s %s: too large (%llu..%llu)", what, s, lo, hi);
	if (rc == 0 && (flags & TOOL_NUM_SIZE) && *p) {
		switch (*p) {
		case 'k': case 'K': mul = 1ull << 10; p++; break;
		case 'm': case 'M': mul = 1ull << 20; p++; break;
		case 'g': case 'G': mul = 1ull << 30; p++; break;
		}
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	}
	if (rc || *p)
		return tool_error("%s %s: not a number (decimal or 0x hex%s)", what, s,
				  flags & TOOL_NUM_SIZE ? ", suffix K, M or G" : "");
	if (__builtin_mul_overflow(x, mul, &x) || x < lo || x > hi)
		return tool_error("%s %s: out of range (%llu..%llu)", what, s, lo, hi);
	*v = x;
	return 0;
}

void tool_plot_done(int failed, const char *png, int quiet)
{
	if (failed)
		tool_error("gnuplot failed (apt-get install gnuplot-nox)");
	else if (!quiet)
		printf("plot: %s\n", png);
}
