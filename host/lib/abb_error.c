/*
 * abb_error.c - error codes and messages of libabb.
 *
 * Every failing call stores a message in a thread-local buffer (what was
 * wrong and what to do); abb_last_error() returns it. abb_strerror() gives
 * the generic meaning of a negative errno in the words of this library.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abb_priv.h"

#define ABB_MSG_MAX 1024

static _Thread_local char abb_msg[ABB_MSG_MAX];
static _Thread_local char abb_unknown[96];

int abb_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(abb_msg, sizeof abb_msg, fmt, ap);
	va_end(ap);
	return err;
}

int abb_err_prefix(int err, const char *what)
{
	size_t w = strlen(what) + 2, m = strlen(abb_msg);

	if (w >= sizeof abb_msg)
		return err;
	/* once: a message that starts with the prefix already keeps it (the
	 * watchdog's read "abb_dma_read_wait: abb_dma_read_wait: ...") */
	if (strncmp(abb_msg, what, w - 2) == 0 && abb_msg[w - 2] == ':')
		return err;
	if (w + m >= sizeof abb_msg)
		m = sizeof abb_msg - 1 - w;
	memmove(abb_msg + w, abb_msg, m);
	abb_msg[w + m] = 0;
	memcpy(abb_msg, what, w - 2);
	abb_msg[w - 2] = ':';
	abb_msg[w - 1] = ' ';
	return err;
}

const char *abb_last_error(void)
{
	return abb_msg;
}

const char *abb_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument (bad handle, offset, length, alignment or range)";
	case -ENODEV:
		return "no such board (or the backend cannot be loaded)";
	case -ENXIO:
		return "not an ABB (VERSION register does not match)";
	case -EBUSY:
		return "busy (DMA in flight on that channel or buffer, or device already open)";
	case -EEXIST:
		return "overlaps a buffer that is mapped already";
	case -ETIMEDOUT:
		return "timed out (device time); the operation may still complete";
	case -ETIME:
		return "simulation watchdog expired (wall clock)";
	case -EIO:
		return "I/O error (the board reported an error, or a backend call failed)";
	case -ENOMEM:
		return "out of memory";
	case -ENOSPC:
		return "out of space (IOVA or descriptor space)";
	case -ENOTSUP:
		return "not supported by this backend";
	case -ENOENT:
		return "not found";
	case -EACCES:
		return "permission denied";
	case -EPERM:
		return "operation not permitted";
	case -ERANGE:
		return "out of range";
	case -EFAULT:
		return "bad address";
	case -EOVERFLOW:
		return "value too large";
	case -EINTR:
		return "interrupted";
	case -ENOSYS:
		return "function not implemented";
	case -ELIBBAD:
		return "incompatible simulator library";
	case -EPIPE:
		return "closed (end of stream: the queue was closed)";
	case -ECANCELED:
		return "cancelled (abb_close was called while waiting, or the DAQ module was stopped)";
	case -EAGAIN:
		return "nothing available now (try again)";
	case -EMSGSIZE:
		return "buffer too small for the transfer";
	case -ENAMETOOLONG:
		return "name or path too long";
	case -EALREADY:
		return "already running";
	case -E2BIG:
		return "argument list too long";
	case -ECHILD:
		return "the device belongs to another process (opened before fork())";
	case -ESRCH:
		return "no such process";
	}
	/* any other errno (a system call's, passed on by the vfio backend):
	 * the C library's name for it */
	if (err < 0 && err > -4096) {
		const char *s = strerrorname_np(-err);

		if (s) {
			snprintf(abb_unknown, sizeof abb_unknown, "%s (%s)", strerror(-err), s);
			return abb_unknown;
		}
	}
	snprintf(abb_unknown, sizeof abb_unknown, "unknown error %d", err);
	return abb_unknown;
}

int abb_opt_each(const char *backend, const char *args, size_t maxlen,
		 int (*fn)(void *ctx, const char *key, const char *val), void *ctx)
{
	char buf[512], *save = NULL;

	if (!args || !*args)
		return 0;
	if (maxlen > sizeof buf)
		maxlen = sizeof buf;
	if (strlen(args) >= maxlen)
		return abb_err(-EINVAL, "%s options too long: \"%s\"", backend, args);
	strcpy(buf, args);
	for (char *opt = strtok_r(buf, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(opt, '=');
		int rc;

		if (!eq)
			return abb_err(-EINVAL, "%s option \"%s\" has no value; use key=value",
				       backend, opt);
		*eq++ = 0;
		rc = fn(ctx, opt, eq);
		if (rc)
			return rc;
	}
	return 0;
}
