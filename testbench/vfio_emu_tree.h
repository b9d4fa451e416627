/*
 * vfio_emu_tree.h - the fake sysfs tree and /dev of the emulated VFIO
 * kernel (vfio_emu_tree.c).
 */
#ifndef VFIO_EMU_TREE_H
#define VFIO_EMU_TREE_H

#include <stddef.h>
#include <stdint.h>

struct vfio_emu_opts;

/* Creates a temporary directory (its path in root, n bytes) holding sys/
 * and dev/ for the options; cfg (cfglen bytes) is the device's config
 * file. 0 or a negative errno (nothing left behind). */
int vfio_emu_tree_make(char *root, size_t n, const struct vfio_emu_opts *o, const uint8_t *cfg,
		       size_t cfglen);
/* Deletes the tree. */
void vfio_emu_tree_remove(const char *root);

#endif
