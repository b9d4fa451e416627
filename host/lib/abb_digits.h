/*
 * abb_digits.h - the digits of a number as the project writes numbers
 * (decimal, or hex after the caller has taken "0x"): one reader for the
 * option table (abb_options.c), the DAQ parameters (host/daq/daq_params.c)
 * and the tools (host/tools/tool_args.c), which differ only in what they
 * accept around the digits (suffixes, a sign, a leading zero).
 */
#ifndef ABB_DIGITS_H
#define ABB_DIGITS_H

#include <errno.h>

/* Reads the digits at *s in base 10 or 16 and moves *s past them: 0,
 * -EINVAL when there is no digit (empty, a blank, a sign), -ERANGE past
 * the range of unsigned long long. */
static inline int abb_digits(const char **s, unsigned base, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long x = 0;

	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (__builtin_mul_overflow(x, base, &x) || __builtin_add_overflow(x, d, &x))
			return -ERANGE;
	}
	if (p == *s)
		return -EINVAL;
	*s = p;
	*v = x;
	return 0;
}

#endif
