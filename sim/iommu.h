/*
 * iommu.h - the IOMMU between the device and host memory: page-granular
 * (4 KiB) translation of IOVAs below 4 GiB to process memory, reaching only
 * the bytes [ptr, ptr+len) of each mapping, with a fault record. Mappings at
 * an IOVA the caller chooses (map_at, as VFIO does) may lie anywhere outside
 * the MSI window. Every page carries the device's permissions (read: the
 * device may read it, write: may write it); an access against them faults
 * like one to an unmapped page. Thread-safe (host threads map while the
 * simulation thread translates).
 */
#ifndef ABBSIM_IOMMU_H
#define ABBSIM_IOMMU_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "abbsim.h"

namespace abbsim {

class Iommu {
public:
	static constexpr uint64_t PageBytes = 4096;
	/* IOVA window handed out: above the first 256 MiB, below the BAR window
	 * (0xf0000000) and the MSI window (0xfee00000). */
	static constexpr uint64_t IovaLo = 0x10000000, IovaHi = 0xf0000000;

	/* Drops every mapping and fault (hot reset); scatter and seed for the
	 * mappings that follow. */
	void reset(bool scatter, uint64_t seed);

	static size_t max_segs(const void *ptr, size_t len);
	/* Returns the segment count or a negative errno (message set). */
	int map(void *ptr, size_t len, abbsim_seg *segs, size_t maxsegs);
	int unmap(void *ptr);
	/* abbsim_iommu_map_at / abbsim_iommu_unmap_iova (abbsim.h). */
	int map_at(void *ptr, size_t len, uint64_t iova, unsigned flags);
	int unmap_iova(uint64_t iova, uint64_t len);

	/* Device accesses; false (and a recorded fault) if any byte of
	 * [iova, iova+n) is not mapped. A failed write writes nothing. */
	bool dev_write(uint64_t iova, const uint8_t *src, size_t n, uint64_t cycle);
	bool dev_read(uint64_t iova, uint8_t *dst, size_t n, uint64_t cycle);

	int take_faults(abbsim_fault *out, size_t max);
	/* Called with each fault as it is recorded (the trace's error lane). */
	std::function<void(const abbsim_fault &)> on_fault;

private:
	struct Pte {
		uint8_t *page;  /* process address of the page base */
		uint16_t lo;    /* reachable bytes [lo, hi) of the page */
		uint16_t hi1;   /* hi - 1, so 4096 fits */
		uint8_t perm;   /* ABBSIM_DMA_READ | ABBSIM_DMA_WRITE */
	};
	struct Mapping {
		std::vector<uint64_t> pfns; /* IOVA page of each buffer page */
		std::vector<std::pair<uint64_t, uint64_t>> ranges; /* allocated IOVA page ranges */
	};
	bool translate(uint64_t iova, size_t n, unsigned perm,
		       std::vector<std::pair<uint8_t *, size_t>> &out);
	uint64_t alloc(uint64_t npages); /* first page, 0 if full */
	void record(uint64_t iova, size_t n, bool is_write, uint64_t cycle);

	std::mutex mu_;
	std::unordered_map<uint64_t, Pte> ptes_;           /* IOVA pfn -> page */
	std::map<uint64_t, uint64_t> used_;                /* allocated ranges: first pfn -> count */
	std::unordered_map<const void *, Mapping> maps_;   /* by user pointer */
	std::map<uint64_t, uint64_t> at_maps_;             /* map_at: first pfn -> pages */
	std::vector<abbsim_fault> faults_;
	uint64_t fault_count_ = 0;
	uint64_t cursor_ = IovaLo / PageBytes;
	bool scatter_ = false;
	uint64_t rng_ = 1;
	std::vector<std::pair<uint8_t *, size_t>> scratch_;
};

} // namespace abbsim
#endif
