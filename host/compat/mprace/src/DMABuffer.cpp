/*
 * DMABuffer.cpp - memory for DMA: allocated by the layer (kernel-memory
 * types, owned user memory) or the caller's, mapped with abb_dmabuf_map.
 */
#include "mprace/DMABuffer.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include <abb/abb.h>

#include "mprace/Board.h"
#include "mprace/DMAEngineWG.h"
#include "mprace/Exception.h"
#include "mprace_priv.h"

namespace mprace {

static const std::size_t HUGE_PAGE = 2u << 20;

static Exception::Types alloc_error(DMABuffer::MemType t)
{
	switch (t) {
	case DMABuffer::KERNEL:
	case DMABuffer::KERNEL_PIECES: return Exception::KERNEL_ALLOC_FAILED;
	case DMABuffer::USER_HUGEPAGES: return Exception::HUGEPAGES_MMAP_FAILED;
	default: return Exception::USER_MMAP_FAILED;
	}
}

static std::size_t round_up(std::size_t n, std::size_t unit)
{
	return (n + unit - 1) / unit * unit;
}

DMABuffer::DMABuffer(Board &b, const unsigned int size, MemType t, unsigned int pieces)
	: board(b), type(t), _size(size), buf(nullptr), kernel_pieces(1), alloc(HEAP),
	  alloc_len(0), dmabuf(nullptr)
{
	if (t != KERNEL && t != KERNEL_PIECES && t != USER && t != USER_HUGEPAGES)
		throw Exception(Exception::UNKNOWN, EINVAL,
				"DMABuffer: unknown memory type " + std::to_string((int)t));
	if (t == KERNEL_PIECES) {
		if (pieces == 0 || pieces > size / 4)
			throw Exception(Exception::KERNEL_ALLOC_FAILED, EINVAL,
					"DMABuffer: " + std::to_string(pieces) + " pieces of a " +
						std::to_string(size) +
						"-byte buffer; give 1 to size/4 pieces");
		kernel_pieces = pieces;
	}
	allocate(t);
	map(t);
}

DMABuffer::DMABuffer(Board &b, const unsigned int size, const bool aligned)
	: board(b), type(USER), _size(size), buf(nullptr), kernel_pieces(1),
	  alloc(aligned ? ALIGNED : HEAP), alloc_len(0), dmabuf(nullptr)
{
	allocate(USER);
	map(USER);
}

DMABuffer::DMABuffer(Board &b, const unsigned int size, unsigned int *ptr)
	: board(b), type(USER), _size(size), buf(ptr), kernel_pieces(1), alloc(CALLER),
	  alloc_len(0), dmabuf(nullptr)
{
	map(USER);
}

void DMABuffer::allocate(MemType t)
{
	void *p = nullptr;

	if (_size == 0)
		throw Exception(alloc_error(t), EINVAL, "DMABuffer: size is 0 bytes");
	switch (t) {
	case KERNEL:
	case KERNEL_PIECES:
		/* zeroed, page aligned and resident from the start, like the
		 * kernel buffers of the original driver */
		alloc = MMAP;
		alloc_len = round_up(_size, (std::size_t)sysconf(_SC_PAGESIZE));
		p = mmap(nullptr, alloc_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		break;
	case USER_HUGEPAGES:
		alloc = MMAP;
		alloc_len = round_up(_size, HUGE_PAGE);
		p = mmap(nullptr, alloc_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		break;
	default:
		/* whole words, as many as the original allocated */
		alloc_len = round_up(_size, 4);
		if (alloc == ALIGNED) {
			if (posix_memalign(&p, 4096, alloc_len))
				p = nullptr;
		} else {
			p = std::malloc(alloc_len);
		}
		break;
	}
	if (p == MAP_FAILED || !p) {
		int e = errno ? errno : ENOMEM;

		throw Exception(alloc_error(t), e,
				"DMABuffer: no memory for " + std::to_string(_size) + " bytes" +
					(t == USER_HUGEPAGES ? " of huge pages (vm.nr_hugepages?)"
							     : ""));
	}
	buf = static_cast<unsigned int *>(p);
}

void DMABuffer::map(MemType t)
{
	int rc;

	if (!buf)
		throw Exception(alloc_error(t), EINVAL, "DMABuffer: the memory pointer is NULL");
	rc = abb_dmabuf_map(board.device(), buf, _size, &dmabuf);
	if (rc) {
		try {
			priv::fail(alloc_error(t), rc, "abb_dmabuf_map failed");
		} catch (...) {
			release();
			throw;
		}
	}
}

void DMABuffer::release()
{
	switch (alloc) {
	case MMAP: munmap(buf, alloc_len); break;
	case HEAP:
	case ALIGNED: std::free(buf); break;
	case CALLER: break;
	}
	buf = nullptr;
}

DMABuffer::~DMABuffer()
{
	/* a transfer started with lock=false may still use the buffer */
	try {
		if (DMAEngineWG *e = dynamic_cast<DMAEngineWG *>(&board.getDMAEngine()))
			e->collect(*this);
	} catch (...) {
	}
	if (dmabuf)
		(void)abb_dmabuf_unmap(dmabuf);
	release();
}

std::size_t DMABuffer::pieceStart(unsigned int i) const
{
	std::size_t step = (_size / kernel_pieces) & ~(std::size_t)3;

	return i >= kernel_pieces ? _size : i * step;
}

} /* namespace mprace */
