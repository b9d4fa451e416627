/*
 * mprace_priv.h - internals shared by the files of the mprace layer.
 */
#ifndef MPRACE_PRIV_H
#define MPRACE_PRIV_H

#include <string>

#include <abb/abb.h>

#include "mprace/Exception.h"

namespace mprace {
namespace priv {

/* Throws Exception(t) for a failed libabb call: rc a negative errno, the
 * message abb_last_error() (or what, if libabb left none). */
[[noreturn]] void fail(Exception::Types t, int rc, const char *what);

/* The device util::Timer reads (the last ABB opened), or NULL. */
void clock_attach(abb_dev *dev);
void clock_detach(abb_dev *dev);

/* The number-th ABB (10dc:0153) under sysfs_root in PCI address order
 * (libabb's discovery): its address ("0000:03:00.0") in bdf if there are
 * that many; returns how many ABBs there are, or a negative errno with
 * libabb's message (-ENODEV: none, -EIO: libpci failed). */
int find_board(const std::string &sysfs_root, unsigned number, std::string &bdf);

} /* namespace priv */
} /* namespace mprace */

#endif
