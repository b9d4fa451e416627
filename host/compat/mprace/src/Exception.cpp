/*
 * Exception.cpp - descriptions and the message of mprace::Exception.
 */
#include "mprace/Exception.h"

#include "mprace_priv.h"

namespace mprace {

const char *const Exception::descriptions[] = {
	"Unknown exception",
	"Kernel memory allocation failed",
	"User memory mapping failed",
	"Interrupt failed",
	"Device not open",
	"File not found",
	"Unknown file format",
	"DMA not supported",
	"Invalid FPGA number",
	"Address out of range",
	"Huge pages open failed",
	"Huge pages mmap failed",
};

Exception::Exception(Types t) : type(t), param(0)
{
	describe(std::string());
}

Exception::Exception(Types t, int p) : type(t), param(p)
{
	describe(std::string());
}

Exception::Exception(Types t, int p, const std::string &detail) : type(t), param(p)
{
	describe(detail);
}

/* Out of line: the key function, so the vtable and the type's identity
 * for catch live in the library (programs built as C++98 and the layer
 * as C++17 use the same ones). */
Exception::~Exception() MPRACE_NOTHROW
{
}

void Exception::describe(const std::string &detail)
{
	unsigned i = static_cast<unsigned>(type);

	text = "mprace::Exception: ";
	text += i < sizeof descriptions / sizeof descriptions[0] ? descriptions[i] : descriptions[0];
	if (!detail.empty())
		text += ": " + detail;
}

namespace priv {

void fail(Exception::Types t, int rc, const char *what)
{
	const char *msg = abb_last_error();

	throw Exception(t, rc < 0 ? -rc : rc, msg && *msg ? msg : what);
}

} /* namespace priv */
} /* namespace mprace */
