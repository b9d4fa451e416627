/*
 * mprace/Exception.h - the error type of the mprace compatibility layer.
 *
 * Thrown by every class of the layer where the original library threw. The
 * type says which kind of operation failed; getParameter() is the positive
 * errno libabb returned (0 if none); what() carries libabb's message
 * (abb_last_error()) after the type's description.
 */
#ifndef MPRACE_EXCEPTION_H_
#define MPRACE_EXCEPTION_H_

#include <cstring> /* strerror(getParameter()), as programs of the original used it */
#include <exception>
#include <string>

#include "cxx98.h"

namespace mprace {

class Exception : public std::exception {
public:
	enum Types {
		UNKNOWN,
		KERNEL_ALLOC_FAILED,
		USER_MMAP_FAILED,
		INTERRUPT_FAILED,
		NOT_OPEN,
		FILE_NOT_FOUND,
		UNKNOWN_FILE_FORMAT,
		DMA_NOT_SUPPORTED,
		INVALID_FPGA_NUMBER,
		ADDRESS_OUT_OF_RANGE,
		HUGEPAGES_OPEN_FAILED,
		HUGEPAGES_MMAP_FAILED
	};

	/* One line per type, indexed by Types. */
	static const char *const descriptions[];

	explicit Exception(Types t);
	Exception(Types t, int p);
	/* p: a positive errno (0: none); detail: libabb's message. */
	Exception(Types t, int p, const std::string &detail);
	virtual ~Exception() MPRACE_NOTHROW;

	Types getType() const { return type; }
	int getParameter() const { return param; }
	/* "mprace::Exception: <description>[: <libabb's message>]" */
	const char *what() const MPRACE_NOTHROW MPRACE_OVERRIDE { return text.c_str(); }

private:
	void describe(const std::string &detail);

	Types type;
	int param;
	std::string text;
};

} /* namespace mprace */

#endif
