/*
 * abb_vfio.h - internal entry points of the VFIO backend, for the test
 * bench (not installed; the functions are exported by libabb).
 */
#ifndef ABB_VFIO_H
#define ABB_VFIO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Finds the first ABB (10dc:0153) on the PCI bus with libpci and writes
 * its address "DDDD:BB:DD.F" to bdf (n bytes). dump_file: NULL scans the
 * real bus; else a text dump in `lspci -x` format read through libpci's
 * "dump" access method (a fake bus for tests).
 * Returns the number of ABBs found (>= 1), -ENODEV if none (the message
 * says how to check the board), -EIO if libpci failed (its message),
 * -EINVAL for bad arguments.
 */
int abb_vfio_find(const char *dump_file, char *bdf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
