/*
 * daq_params.c - configuration of devices, transports and modules by the
 * named parameters of ABB-INTERFACE.md (device name, board number, BAR,
 * address, length, buffer size, queue length, standalone flag, pool name)
 * plus the few this implementation adds (see <abb/abb_daq.h>).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <abb/abb_daq.h>

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

static const struct {
	const char *name;
	enum kind kind;
	size_t off, len;
} params[] = {
#define P(n, k, f) {n, k, offsetof(struct abb_daq_params, f), sizeof(((struct abb_daq_params *)0)->f)}
	P("DeviceName", K_STR, device),     P("BoardNumber", K_UINT, board),
	P("BAR", K_UINT, bar),              P("Address", K_U32, address),
	P("Length", K_U32, length),         P("Region", K_U32, region),
	P("BufferSize", K_SIZE, buffer_size), P("NumBuffers", K_UINT, num_buffers),
	P("QueueLength", K_UINT, queue_length), P("Standalone", K_INT, standalone),
	P("PoolName", K_STR, pool),         P("Fifo", K_INT, fifo),
	P("Threads", K_INT, threads),       P("EventHeader", K_INT, header),
	P("Interrupt", K_INT, irq),         P("MaxBuffers", K_U64, max_buffers),
	P("Timeout", K_I64, timeout_ns),    P("SpinNs", K_I64, spin_ns),
#undef P
};

static int parse_num(const char *v, long long *out)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 0);
	if (errno || end == v)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		x *= 1024, end++;
	else if (*end == 'm' || *end == 'M')
		x *= 1024 * 1024, end++;
	if (*end)
		return -EINVAL;
	*out = x;
	return 0;
}

int abb_daq_params_set(struct abb_daq_params *p, const char *name, const char *value)
{
	if (!p || !name || !value)
		return -EINVAL;
	for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
		char *f = (char *)p + params[i].off;
		long long x = 0;

		if (strcasecmp(name, params[i].name) != 0)
			continue;
		if (params[i].kind == K_STR) {
			if (strlen(value) >= params[i].len)
				return -EINVAL;
			snprintf(f, params[i].len, "%s", value);
			return 0;
		}
		if (parse_num(value, &x))
			return -EINVAL;
		switch (params[i].kind) {
		case K_UINT:
			if (x < 0 || x > 0xffffffffll)
				return -EINVAL;
			*(unsigned *)f = (unsigned)x;
			break;
		case K_U32:
			if (x < 0 || x > 0xffffffffll)
				return -EINVAL;
			*(uint32_t *)f = (uint32_t)x;
			break;
		case K_SIZE:
			if (x < 0)
				return -EINVAL;
			*(size_t *)f = (size_t)x;
			break;
		case K_INT:
			*(int *)f = (int)x;
			break;
		case K_U64:
			if (x < 0)
				return -EINVAL;
			*(uint64_t *)f = (uint64_t)x;
			break;
		case K_I64:
			*(int64_t *)f = (int64_t)x;
			break;
		default:
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int abb_daq_params_parse(struct abb_daq_params *p, const char *text)
{
	char buf[1024], *save = NULL;

	if (!p || !text)
		return -EINVAL;
	if (strlen(text) >= sizeof buf)
		return -E2BIG;
	strcpy(buf, text);
	for (char *t = strtok_r(buf, ", \t\n", &save); t; t = strtok_r(NULL, ", \t\n", &save)) {
		char *eq = strchr(t, '=');
		int rc;

		if (!eq)
			return -EINVAL;
		*eq = 0;
		rc = abb_daq_params_set(p, t, eq + 1);
		if (rc)
			return rc;
	}
	return 0;
}
