/*
 * ref_iova.c - the timed reference model's IOMMU (ref_iova.h), the
 * allocation of sim/iommu.cpp (Iommu::alloc, Iommu::map) in C.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ref_iova.h"

#define PAGE 4096u
/* sim/iommu.h Iommu::IovaLo, IovaHi */
#define IOVA_LO 0x10000000ull
#define IOVA_HI 0xf0000000ull

struct iova_map {
	uint64_t first, npages; /* IOVA pages allocated (scatter: twice the buffer's) */
	uint8_t *page0;         /* process address of the buffer's first page */
	uint32_t off0;          /* the buffer's offset in it */
	size_t len;
	void *ptr;
	uint32_t *slot;         /* scatter: relative IOVA page -> buffer page + 1 (0 none) */
	uint32_t *pfn;          /* buffer page -> relative IOVA page */
	size_t bpages;
};

struct abb_refiova {
	struct iova_map *v;     /* sorted by first */
	size_t n, cap;
	uint64_t cursor;        /* next-fit cursor, a page number */
	bool scatter;
	uint64_t rng;
	/* the last mapping found (accesses come in runs to one buffer) */
	size_t hint;
};

struct abb_refiova *abb_refiova_create(bool scatter, uint64_t seed)
{
	struct abb_refiova *m = calloc(1, sizeof *m);

	if (!m)
		return NULL;
	m->cursor = IOVA_LO / PAGE;
	m->scatter = scatter;
	m->rng = seed;
	return m;
}

void abb_refiova_destroy(struct abb_refiova *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].slot);
		free(m->v[i].pfn);
	}
	free(m->v);
	free(m);
}

size_t abb_refiova_max_segs(const void *ptr, size_t len)
{
	uintptr_t a = (uintptr_t)ptr;

	if (!len)
		return 0;
	return (size_t)(((a + len + PAGE - 1) / PAGE) - a / PAGE);
}

/* sim/rng.h splitmix */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Index of the first mapping with first > pfn. */
static size_t upper(const struct abb_refiova *m, uint64_t pfn)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->v[mid].first <= pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Iommu::alloc: next fit, from the cursor to the top, then from the bottom. */
static uint64_t alloc(struct abb_refiova *m, uint64_t npages)
{
	const uint64_t lo = IOVA_LO / PAGE, hi = IOVA_HI / PAGE;

	for (int pass = 0; pass < 2; pass++) {
		uint64_t cand = pass ? lo : m->cursor;
		size_t it = upper(m, cand);

		if (it > 0 && m->v[it - 1].first + m->v[it - 1].npages > cand)
			cand = m->v[it - 1].first + m->v[it - 1].npages;
		while (cand + npages <= hi) {
			if (it == m->n || cand + npages <= m->v[it].first) {
				m->cursor = cand + npages;
				return cand;
			}
			if (m->v[it].first + m->v[it].npages > cand)
				cand = m->v[it].first + m->v[it].npages;
			it++;
		}
	}
	return 0;
}

int abb_refiova_map(struct abb_refiova *m, void *ptr, size_t len, struct abb_refiova_seg **segs,
		    size_t *nsegs)
{
	uintptr_t a = (uintptr_t)ptr;
	size_t npages = abb_refiova_max_segs(ptr, len), ns = m->scatter ? npages : 1, pos;
	struct iova_map mp = {0};
	struct abb_refiova_seg *s;
	uint64_t first;

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].ptr == ptr)
			return -EEXIST;
	if (!npages)
		return -EINVAL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct iova_map *v = realloc(m->v, cap * sizeof *v);

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	s = calloc(ns, sizeof *s);
	mp.pfn = calloc(npages, sizeof *mp.pfn);
	if (m->scatter)
		mp.slot = calloc(2 * npages, sizeof *mp.slot);
	first = (s && mp.pfn && (!m->scatter || mp.slot)) ? alloc(m, m->scatter ? 2 * npages : npages)
							   : 0;
	if (!first) {
		free(s);
		free(mp.pfn);
		free(mp.slot);
		return -ENOMEM;
	}
	mp.first = first;
	mp.npages = m->scatter ? 2 * npages : npages;
	mp.page0 = (uint8_t *)(a & ~(uintptr_t)(PAGE - 1));
	mp.off0 = (uint32_t)(a & (PAGE - 1));
	mp.len = len;
	mp.ptr = ptr;
	mp.bpages = npages;
	if (!m->scatter) {
		for (size_t i = 0; i < npages; i++)
			mp.pfn[i] = (uint32_t)i;
		s[0].iova = first * PAGE + mp.off0;
		s[0].len = len;
	} else {
		/* Iommu::map: pages at even slots, shuffled, not ascending */
		bool sorted = true;
		size_t done = 0;

		for (size_t i = 0; i < npages; i++)
			mp.pfn[i] = (uint32_t)i;
		for (size_t i = npages; i > 1; i--) {
			size_t j = (size_t)(splitmix(&m->rng) % i);
			uint32_t t = mp.pfn[i - 1];

			mp.pfn[i - 1] = mp.pfn[j];
			mp.pfn[j] = t;
		}
		for (size_t i = 1; i < npages; i++)
			sorted &= mp.pfn[i - 1] <= mp.pfn[i];
		if (npages > 1 && sorted)
			for (size_t i = 0; i < npages / 2; i++) {
				uint32_t t = mp.pfn[i];

				mp.pfn[i] = mp.pfn[npages - 1 - i];
				mp.pfn[npages - 1 - i] = t;
			}
		for (size_t i = 0; i < npages; i++) {
			unsigned lo = i == 0 ? mp.off0 : 0;
			size_t n = PAGE - lo < len - done ? PAGE - lo : len - done;

			mp.pfn[i] *= 2;
			mp.slot[mp.pfn[i]] = (uint32_t)i + 1;
			s[i].iova = (first + mp.pfn[i]) * PAGE + lo;
			s[i].len = n;
			done += n;
		}
	}
	pos = upper(m, first);
	memmove(&m->v[pos + 1], &m->v[pos], (m->n - pos) * sizeof m->v[0]);
	m->v[pos] = mp;
	m->n++;
	m->hint = pos;
	*segs = s;
	*nsegs = ns;
	return 0;
}

int abb_refiova_unmap(struct abb_refiova *m, void *ptr)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].ptr != ptr)
			continue;
		free(m->v[i].slot);
		free(m->v[i].pfn);
		memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof m->v[0]);
		m->n--;
		m->hint = 0;
		return 0;
	}
	return -ENOENT;
}

static const struct iova_map *find(struct abb_refiova *m, uint64_t pfn)
{
	size_t i;

	if (m->hint < m->n && m->v[m->hint].first <= pfn &&
	    pfn < m->v[m->hint].first + m->v[m->hint].npages)
		return &m->v[m->hint];
	i = upper(m, pfn);
	if (i == 0 || pfn >= m->v[i - 1].first + m->v[i - 1].npages)
		return NULL;
	m->hint = i - 1;
	return &m->v[i - 1];
}

/* The process address of the n bytes at iova inside one page, NULL if
 * any is not reachable. */
static uint8_t *xlate(struct abb_refiova *m, uint64_t iova, size_t n)
{
	const struct iova_map *mp = find(m, iova / PAGE);
	uint64_t rel, bp, off;

	if (!mp)
		return NULL;
	rel = iova / PAGE - mp->first;
	if (mp->slot) {
		if (!mp->slot[rel])
			return NULL;
		bp = mp->slot[rel] - 1;
	} else {
		bp = rel;
	}
	off = bp * PAGE + iova % PAGE; /* from page0 */
	if (off < mp->off0 || off + n > mp->off0 + mp->len)
		return NULL;
	return mp->page0 + off;
}

bool abb_refiova_mapped(struct abb_refiova *m, uint64_t iova, size_t len)
{
	while (len) {
		size_t n = PAGE - iova % PAGE < len ? PAGE - iova % PAGE : len;

		if (!xlate(m, iova, n))
			return false;
		iova += n;
		len -= n;
	}
	return true;
}

int abb_refiova_dma(struct abb_refiova *m, int to_host, uint64_t iova, void *buf, size_t len)
{
	uint8_t *b = buf;

	if (len && PAGE - iova % PAGE >= len) {
		/* inside one page (a TLP's payload, mostly): one translation */
		uint8_t *p = xlate(m, iova, len);

		if (!p)
			return -EFAULT;
		if (to_host)
			memcpy(p, b, len);
		else
			memcpy(b, p, len);
		return 0;
	}
	if (!abb_refiova_mapped(m, iova, len))
		return -EFAULT;
	while (len) {
		size_t n = PAGE - iova % PAGE < len ? PAGE - iova % PAGE : len;
		uint8_t *p = xlate(m, iova, n);

		if (to_host)
			memcpy(p, b, n);
		else
			memcpy(b, p, n);
		iova += n;
		b += n;
		len -= n;
	}
	return 0;
}
