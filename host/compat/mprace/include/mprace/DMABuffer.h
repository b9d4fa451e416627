/*
 * mprace/DMABuffer.h - host memory for DMA in the mprace compatibility layer.
 *
 * KERNEL         one page-aligned, pinned-at-allocation piece allocated by
 *                the layer and mapped for the device with abb_dmabuf_map
 *                (one contiguous device-address range on the simulator
 *                and through VFIO: one descriptor).
 * KERNEL_PIECES  the same memory, transferred in kernel_pieces pieces of
 *                size/kernel_pieces bytes (the last takes the rest): the
 *                layer starts one libabb DMA per piece, in order.
 * USER           memory from the heap (not page aligned), mapped the way
 *                libabb maps user memory (a descriptor per contiguous piece).
 * USER_HUGEPAGES anonymous huge pages (MAP_HUGETLB), mapped like USER.
 *
 * Sizes are bytes; operator[] indexes 32-bit words.
 */
#ifndef MPRACE_DMABUFFER_H_
#define MPRACE_DMABUFFER_H_

#include <cstddef>

struct abb_dmabuf;

namespace mprace {

class Board;

class DMABuffer {
public:
	enum MemType { KERNEL, KERNEL_PIECES, USER, USER_HUGEPAGES };

	/* Allocates size bytes of memory of type and maps it for DMA.
	 * Throws KERNEL_ALLOC_FAILED / USER_MMAP_FAILED / HUGEPAGES_MMAP_FAILED
	 * (size 0, kernel_pieces 0 or more pieces than words, no memory, or
	 * libabb refused the mapping). */
	DMABuffer(Board &board, const unsigned int size, MemType type,
		  unsigned int kernel_pieces = 1);
	/* size bytes of user memory, page aligned or not. */
	DMABuffer(Board &board, const unsigned int size, const bool aligned = true);
	/* The caller's memory (not freed by the buffer); USER. */
	DMABuffer(Board &board, const unsigned int size, unsigned int *ptr);
	/* Waits for a DMA still using the buffer, unmaps it, frees owned memory. */
	~DMABuffer();

	unsigned int *getPointer() { return buf; }
	unsigned int size() const { return _size; }
	unsigned int &operator[](const unsigned int index) { return buf[index]; }
	const unsigned int &operator[](const unsigned int index) const { return buf[index]; }
	MemType getType() const { return type; }
	Board &getBoard() { return board; }

	/* Extensions of the layer. */
	abb_dmabuf *handle() const { return dmabuf; }
	unsigned int pieces() const { return kernel_pieces; }
	/* Byte offset where piece i begins (i == pieces(): size()). */
	std::size_t pieceStart(unsigned int i) const;

private:
	enum Alloc { HEAP, ALIGNED, MMAP, CALLER };

	Board &board;
	MemType type;
	unsigned int _size;
	unsigned int *buf;
	unsigned int kernel_pieces;
	Alloc alloc;
	std::size_t alloc_len;
	abb_dmabuf *dmabuf;

	void allocate(MemType t);
	void map(MemType t);
	void release();

	DMABuffer(const DMABuffer &); /* not copyable: never defined */
	DMABuffer &operator=(const DMABuffer &);
};

} /* namespace mprace */

#endif
