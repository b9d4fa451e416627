/*
 * iommu.cpp - IOVA allocation (next-fit, so a freed IOVA is not reused at
 * once and stale device addresses fault), translation, fault record.
 */
#include "iommu.h"
#include "error.h"
#include "rng.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace abbsim {


void Iommu::reset(bool scatter, uint64_t seed)
{
	std::lock_guard<std::mutex> g(mu_);
	ptes_.clear();
	used_.clear();
	maps_.clear();
	at_maps_.clear();
	faults_.clear();
	fault_count_ = 0;
	cursor_ = IovaLo / PageBytes;
	scatter_ = scatter;
	rng_ = seed;
}

size_t Iommu::max_segs(const void *ptr, size_t len)
{
	if (!len)
		return 0;
	uintptr_t a = (uintptr_t)ptr;
	return (size_t)(((a + len + PageBytes - 1) / PageBytes) - a / PageBytes);
}

uint64_t Iommu::alloc(uint64_t npages)
{
	const uint64_t lo = IovaLo / PageBytes, hi = IovaHi / PageBytes;
	/* Two passes: from the cursor to the top, then from the bottom. */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t cand = pass ? lo : cursor_;
		auto it = used_.upper_bound(cand);
		if (it != used_.begin()) {
			auto prev = std::prev(it);
			if (prev->first + prev->second > cand)
				cand = prev->first + prev->second;
		}
		while (cand + npages <= hi) {
			if (it == used_.end() || cand + npages <= it->first) {
				used_[cand] = npages;
				cursor_ = cand + npages;
				return cand;
			}
			cand = std::max(cand, it->first + it->second);
			++it;
		}
	}
	return 0;
}

int Iommu::map(void *ptr, size_t len, abbsim_seg *segs, size_t maxsegs)
{
	if (!ptr || !len)
		return fail(-EINVAL, "iommu_map: %s", ptr ? "length is 0" : "pointer is NULL");
	size_t npages = max_segs(ptr, len);
	std::lock_guard<std::mutex> g(mu_);
	if (maps_.count(ptr))
		return fail(-EEXIST, "iommu_map: %p is already mapped (unmap it first)", ptr);
	uintptr_t a = (uintptr_t)ptr;
	uint8_t *page0 = (uint8_t *)(a & ~(uintptr_t)(PageBytes - 1));
	unsigned off0 = (unsigned)(a & (PageBytes - 1));
	size_t nsegs = scatter_ ? npages : 1;
	if (nsegs > maxsegs)
		return fail(-ENOSPC, "iommu_map: %zu segments needed, room for %zu", nsegs, maxsegs);

	Mapping m;
	m.pfns.resize(npages);
	if (!scatter_) {
		uint64_t first = alloc(npages);
		if (!first)
			return fail(-ENOMEM, "iommu_map: IOVA space exhausted (%zu pages)", npages);
		m.ranges.push_back({first, npages});
		for (size_t i = 0; i < npages; i++)
			m.pfns[i] = first + i;
	} else {
		/* Every page its own IOVA: a region of 2 pages per buffer page,
		 * pages placed at even slots in a shuffled, not ascending order. */
		uint64_t first = alloc(2 * npages);
		if (!first)
			return fail(-ENOMEM, "iommu_map: IOVA space exhausted (%zu pages)", 2 * npages);
		m.ranges.push_back({first, 2 * npages});
		std::vector<uint64_t> slot(npages);
		for (size_t i = 0; i < npages; i++)
			slot[i] = i;
		for (size_t i = npages; i > 1; i--)
			std::swap(slot[i - 1], slot[splitmix(rng_) % i]);
		if (npages > 1 && std::is_sorted(slot.begin(), slot.end()))
			std::reverse(slot.begin(), slot.end());
		for (size_t i = 0; i < npages; i++)
			m.pfns[i] = first + 2 * slot[i];
	}
	size_t done = 0;
	for (size_t i = 0; i < npages; i++) {
		unsigned lo = i == 0 ? off0 : 0;
		size_t n = std::min<size_t>(PageBytes - lo, len - done);
		ptes_[m.pfns[i]] = Pte{page0 + i * PageBytes, (uint16_t)lo, (uint16_t)(lo + n - 1),
				       (uint8_t)(ABBSIM_DMA_READ | ABBSIM_DMA_WRITE)};
		if (scatter_) {
			segs[i].iova = m.pfns[i] * PageBytes + lo;
			segs[i].len = n;
		}
		done += n;
	}
	if (!scatter_) {
		segs[0].iova = m.pfns[0] * PageBytes + off0;
		segs[0].len = len;
	}
	maps_.emplace(ptr, std::move(m));
	return (int)nsegs;
}

int Iommu::unmap(void *ptr)
{
	std::lock_guard<std::mutex> g(mu_);
	auto it = maps_.find(ptr);
	if (it == maps_.end())
		return fail(-ENOENT, "iommu_unmap: %p is not mapped", ptr);
	for (uint64_t pfn : it->second.pfns)
		ptes_.erase(pfn);
	for (auto &r : it->second.ranges)
		used_.erase(r.first);
	maps_.erase(it);
	return 0;
}

int Iommu::map_at(void *ptr, size_t len, uint64_t iova, unsigned flags)
{
	/* The root complex takes device writes to this window as MSIs. */
	const uint64_t msi_lo = 0xfee00000, msi_hi = 0xfef00000;
	const unsigned all = ABBSIM_DMA_READ | ABBSIM_DMA_WRITE;
	uintptr_t a = (uintptr_t)ptr;
	if (!ptr || !len || a % PageBytes || len % PageBytes || iova % PageBytes)
		return fail(-EINVAL, "iommu_map_at: ptr %p, len %zu, iova 0x%llx: accepted a non-NULL "
			    "ptr and len > 0 and iova, all multiples of %llu", ptr, len,
			    (unsigned long long)iova, (unsigned long long)PageBytes);
	if (!flags || (flags & ~all))
		return fail(-EINVAL, "iommu_map_at: flags 0x%x: accepted a non-empty set of "
			    "ABBSIM_DMA_READ (0x1) and ABBSIM_DMA_WRITE (0x2)", flags);
	if (iova + len < iova || (iova < msi_hi && iova + len > msi_lo))
		return fail(-EINVAL, "iommu_map_at: [0x%llx, +%zu) %s", (unsigned long long)iova, len,
			    iova + len < iova ? "wraps around" : "overlaps the MSI window 0xfee00000..0xfeefffff");
	uint64_t first = iova / PageBytes, npages = len / PageBytes;
	std::lock_guard<std::mutex> g(mu_);
	/* Overlap with any allocated IOVA range (both kinds are in used_). */
	auto it = used_.upper_bound(first + npages - 1);
	if (it != used_.begin()) {
		auto prev = std::prev(it);
		if (prev->first + prev->second > first)
			return fail(-EEXIST, "iommu_map_at: [0x%llx, +%zu) overlaps the mapping at IOVA "
				    "0x%llx", (unsigned long long)iova, len,
				    (unsigned long long)(prev->first * PageBytes));
	}
	used_[first] = npages;
	at_maps_[first] = npages;
	for (uint64_t i = 0; i < npages; i++)
		ptes_[first + i] = Pte{(uint8_t *)ptr + i * PageBytes, 0, (uint16_t)(PageBytes - 1),
				       (uint8_t)flags};
	return 0;
}

int Iommu::unmap_iova(uint64_t iova, uint64_t len)
{
	std::lock_guard<std::mutex> g(mu_);
	auto it = iova % PageBytes ? at_maps_.end() : at_maps_.find(iova / PageBytes);
	if (it == at_maps_.end() || len != it->second * PageBytes)
		return fail(-ENOENT, "iommu_unmap_iova: [0x%llx, +%llu) is not a range mapped by "
			    "abbsim_iommu_map_at", (unsigned long long)iova, (unsigned long long)len);
	for (uint64_t i = 0; i < it->second; i++)
		ptes_.erase(it->first + i);
	used_.erase(it->first);
	at_maps_.erase(it);
	return 0;
}

bool Iommu::translate(uint64_t iova, size_t n, unsigned perm,
		      std::vector<std::pair<uint8_t *, size_t>> &out)
{
	out.clear();
	while (n) {
		uint64_t pfn = iova / PageBytes;
		unsigned off = (unsigned)(iova % PageBytes);
		size_t chunk = std::min<size_t>(n, PageBytes - off);
		auto it = ptes_.find(pfn);
		if (it == ptes_.end() || off < it->second.lo || off + chunk - 1 > it->second.hi1 ||
		    (it->second.perm & perm) != perm)
			return false;
		out.push_back({it->second.page + off, chunk});
		iova += chunk;
		n -= chunk;
	}
	return true;
}

void Iommu::record(uint64_t iova, size_t n, bool is_write, uint64_t cycle)
{
	fault_count_++;
	if (faults_.size() < 4096)
		faults_.push_back(abbsim_fault{iova, (uint32_t)n, is_write ? 1u : 0u, cycle});
	if (on_fault)
		on_fault(abbsim_fault{iova, (uint32_t)n, is_write ? 1u : 0u, cycle});
}

bool Iommu::dev_write(uint64_t iova, const uint8_t *src, size_t n, uint64_t cycle)
{
	std::lock_guard<std::mutex> g(mu_);
	if (!translate(iova, n, ABBSIM_DMA_WRITE, scratch_)) {
		record(iova, n, true, cycle);
		return false;
	}
	for (auto &p : scratch_) {
		memcpy(p.first, src, p.second);
		src += p.second;
	}
	return true;
}

bool Iommu::dev_read(uint64_t iova, uint8_t *dst, size_t n, uint64_t cycle)
{
	std::lock_guard<std::mutex> g(mu_);
	if (!translate(iova, n, ABBSIM_DMA_READ, scratch_)) {
		record(iova, n, false, cycle);
		return false;
	}
	for (auto &p : scratch_) {
		memcpy(dst, p.first, p.second);
		dst += p.second;
	}
	return true;
}

int Iommu::take_faults(abbsim_fault *out, size_t max)
{
	std::lock_guard<std::mutex> g(mu_);
	size_t n = std::min(max, faults_.size());
	if (out)
		std::copy(faults_.begin(), faults_.begin() + n, out);
	int count = (int)std::min<uint64_t>(fault_count_, INT32_MAX);
	faults_.clear();
	fault_count_ = 0;
	return count;
}

} // namespace abbsim
