/*
 * abb_procmap.h - the kernel's PROCMAP_QUERY request (Linux 6.11,
 * include/uapi/linux/fs.h): one VMA of /proc/self/maps by address, by
 * ioctl, without the text. Declared here because the C library's headers
 * may predate it; abb_dmabuf.c uses it, the coverage tests block it.
 */
#ifndef ABB_PROCMAP_H
#define ABB_PROCMAP_H

#include <stdint.h>
#include <sys/ioctl.h>

struct abb_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define ABB_PROCMAP_QUERY _IOWR('f', 17, struct abb_procmap_query)
#define ABB_PROCMAP_READABLE 0x1u
#define ABB_PROCMAP_WRITABLE 0x2u

#endif
