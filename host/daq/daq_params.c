/*
 * daq_params.c - configuration of devices, transports and modules by the
 * named parameters of ABB-INTERFACE.md (device name, board number, BAR,
 * address, length, buffer size, queue length, standalone flag, pool name)
 * plus the few this implementation adds (see <abb/abb_daq.h>).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <abb/abb_daq.h>

#include "abb_digits.h" /* host/lib */
#include "daq_priv.h"

void abb_daq_params_default(struct abb_daq_params *p)
{
	memset(p, 0, sizeof *p);
	p->bar = 1;
	p->buffer_size = 65536;
	p->num_buffers = 8;
	p->queue_length = 4;
	p->standalone = 1;
	snprintf(p->pool, sizeof p->pool, "abb");
	p->threads = 1;
	p->header = 1;
	p->timeout_ns = 1000000;
	p->spin_ns = 20000;
}

enum kind { K_STR, K_UINT, K_U32, K_SIZE, K_INT, K_U64, K_I64 };

/* A parameter; lo..hi narrows its field's range where the field holds
 * values that mean nothing (both 0: the field's range). */
static const struct {
	const char *name;
	enum kind kind;
	size_t off, len;
	long long lo;
	unsigned long long hi;
} params[] = {
#define P(n, k, f) {n, k, offsetof(struct abb_daq_params, f), sizeof(((struct abb_daq_params *)0)->f), 0, 0}
#define R(n, k, f, l, h) {n, k, offsetof(struct abb_daq_params, f), sizeof(((struct abb_daq_params *)0)->f), l, h}
	P("DeviceName", K_STR, device),
	/* 16 bits: the unique id is BoardNumber << 48 | counter (48 bits);
	 * 65536 gave board 0's ids */
	R("BoardNumber", K_UINT, board, 0, 0xffff),
	P("BAR", K_UINT, bar),              P("Address", K_U32, address),
	P("Length", K_U32, length),         P("Region", K_U32, region),
	/* a DMA length is 32 bits; header + Length must fit the buffer */
	R("BufferSize", K_SIZE, buffer_size, 0, UINT32_MAX),
	P("NumBuffers", K_UINT, num_buffers),
	P("QueueLength", K_UINT, queue_length), P("Standalone", K_INT, standalone),
	P("PoolName", K_STR, pool),         P("Fifo", K_INT, fifo),
	P("Threads", K_INT, threads),       P("EventHeader", K_INT, header),
	P("Interrupt", K_INT, irq),         P("MaxBuffers", K_U64, max_buffers),
	/* -1: no limit (module_stop still ends a wait within 1 ms) */
	R("Timeout", K_I64, timeout_ns, -1, INT64_MAX),
	R("SpinNs", K_I64, spin_ns, 0, INT64_MAX),
#undef P
#undef R
};

/* A number: decimal or 0x hex, optional suffix K or M (x1024, x1048576),
 * nothing else (no blanks, no second sign; a leading zero is decimal,
 * not C's octal); a leading '-' only where lo is
 * negative. Every step overflow-checked: a value out of lo..hi is -ERANGE
 * (Threads=4294967298 was taken as 2, BufferSize=9007199254740993K
 * overflowed a long long). */
static int parse_num(const char *v, long long lo, unsigned long long hi,
		     unsigned long long *mag, int *neg)
{
	unsigned long long x, mul = 1;
	const char *d = v, *end;
	int rc;

	*neg = 0;
	if (*d == '-') {
		*neg = 1;
		d++;
	}
	if (*d < '0' || *d > '9')
		return -EINVAL; /* empty, blank, '+', a second sign */
	/* base 10 unless 0x: a leading zero is decimal (base 0 read 010 as 8) */
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
		end = d + 2;
		rc = abb_digits(&end, 16, &x); /* "0x", "0x-5", "0x 5": no digit */
	} else {
		end = d;
		rc = abb_digits(&end, 10, &x);
	}
	if (rc)
		return rc;
	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1024 * 1024, end++;
	if (*end)
		return -EINVAL;
	if (x > ULLONG_MAX / mul)
		return -ERANGE;
	x *= mul;
	if (*neg && x == 0)
		*neg = 0; /* -0 is 0 */
	if (*neg ? lo >= 0 || x > (unsigned long long)-(lo + 1) + 1 : x > hi)
		return -ERANGE;
	*mag = x;
	return 0;
}

int abb_daq_params_set(struct abb_daq_params *p, const char *name, const char *value)
{
	if (!p || !name || !value)
		return abb_err(-EINVAL, "abb_daq_params_set: %s is NULL",
			       !p ? "params" : !name ? "name" : "value");
	for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
		char *f = (char *)p + params[i].off;
		unsigned long long x = 0;
		int neg = 0, rc;
		long long lo = 0;
		unsigned long long hi;

		if (strcasecmp(name, params[i].name) != 0)
			continue;
		if (params[i].kind == K_STR) {
			if (strlen(value) >= params[i].len)
				return abb_err(-EINVAL, "DAQ parameter %s: \"%.40s...\" is longer than %zu "
					       "characters", params[i].name, value, params[i].len - 1);
			snprintf(f, params[i].len, "%s", value);
			return 0;
		}
		switch (params[i].kind) {
		case K_UINT: hi = UINT_MAX; break;
		case K_U32: hi = UINT32_MAX; break;
		case K_SIZE: hi = SIZE_MAX; break;
		case K_INT: lo = INT_MIN; hi = INT_MAX; break;
		case K_U64: hi = UINT64_MAX; break;
		case K_I64: lo = INT64_MIN; hi = INT64_MAX; break;
		default: return -EINVAL;
		}
		if (params[i].lo || params[i].hi) {
			lo = params[i].lo;
			hi = params[i].hi;
		}
		rc = parse_num(value, lo, hi, &x, &neg);
		if (rc == -ERANGE)
			return abb_err(-EINVAL, "DAQ parameter %s=%.40s: out of range %lld..%llu",
				       params[i].name, value, lo, hi);
		if (rc)
			return abb_err(-EINVAL, "DAQ parameter %s=%.40s: not a number (decimal or "
				       "0x hex, K and M suffixes)", params[i].name, value);
		switch (params[i].kind) {
		case K_UINT:
			*(unsigned *)f = (unsigned)x;
			break;
		case K_U32:
			*(uint32_t *)f = (uint32_t)x;
			break;
		case K_SIZE:
			*(size_t *)f = (size_t)x;
			break;
		case K_INT:
			*(int *)f = neg ? (int)-(long long)(x - 1) - 1 : (int)x;
			break;
		case K_U64:
			*(uint64_t *)f = (uint64_t)x;
			break;
		case K_I64:
			*(int64_t *)f = neg ? -(int64_t)(x - 1) - 1 : (int64_t)x;
			break;
		default:
			return -EINVAL;
		}
		return 0;
	}
	return abb_err(-EINVAL, "unknown DAQ parameter \"%.40s\" (the names of "
		       "host/daq/README.md, as DABC spells them)", name);
}

int abb_daq_params_parse(struct abb_daq_params *p, const char *text)
{
	char buf[1024], *save = NULL;
	struct abb_daq_params q;

	if (!p || !text)
		return abb_err(-EINVAL, "abb_daq_params_parse: %s is NULL", !p ? "params" : "text");
	if (strlen(text) >= sizeof buf)
		return abb_err(-E2BIG, "abb_daq_params_parse: text of %zu characters; at most %zu",
			       strlen(text), sizeof buf - 1);
	strcpy(buf, text);
	/* all or nothing: the items go to a copy, which replaces *p only when
	 * every item was good (the items before a bad one were applied) */
	q = *p;
	for (char *t = strtok_r(buf, ", \t\n", &save); t; t = strtok_r(NULL, ", \t\n", &save)) {
		char *eq = strchr(t, '=');
		int rc;

		if (!eq)
			return abb_err(-EINVAL, "abb_daq_params_parse: \"%.40s\" is not Name=value", t);
		*eq = 0;
		rc = abb_daq_params_set(&q, t, eq + 1);
		if (rc)
			return rc;
	}
	*p = q;
	return 0;
}
