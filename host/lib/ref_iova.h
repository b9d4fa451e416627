/*
 * ref_iova.h - the timed reference model's IOMMU: the device addresses
 * the simulator's IOMMU hands out (sim/iommu.cpp), so that a program gets
 * the same IOVAs, hence the same descriptor chains and TLP headers, on
 * `sim` and on `model:timed=1`.
 *
 * 4 KiB pages from 0x10000000 up to 0xf0000000 (below the BARs and the MSI
 * window: 3-DW headers), next fit from a cursor; with scatter every buffer
 * page its own IOVA page, at the even slots of a region of twice the
 * pages, shuffled with splitmix64 of the seed (never ascending). Only the
 * bytes of [ptr, ptr+len) of a mapping are reachable. No locks: the
 * backend serialises every call.
 */
#ifndef ABB_REF_IOVA_H
#define ABB_REF_IOVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

struct abb_refiova;

struct abb_refiova_seg {
	uint64_t iova, len;
};

struct abb_refiova *abb_refiova_create(bool scatter, uint64_t seed);
void abb_refiova_destroy(struct abb_refiova *m);

/* Pieces of [ptr, ptr+len) in buffer order: how many map() returns. */
size_t abb_refiova_max_segs(const void *ptr, size_t len);
/* Maps; *segs (malloc()ed, the caller frees it) gets *nsegs pieces.
 * 0, -EEXIST (ptr mapped already), -ENOMEM (IOVA space or memory). */
int abb_refiova_map(struct abb_refiova *m, void *ptr, size_t len, struct abb_refiova_seg **segs,
		    size_t *nsegs);
/* 0, or -ENOENT if ptr is not a mapping's pointer. */
int abb_refiova_unmap(struct abb_refiova *m, void *ptr);
/* A device access: all or nothing, 0 or -EFAULT (a byte not reachable). */
int abb_refiova_dma(struct abb_refiova *m, int to_host, uint64_t iova, void *buf, size_t len);
bool abb_refiova_mapped(struct abb_refiova *m, uint64_t iova, size_t len);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
