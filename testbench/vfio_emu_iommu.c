/*
 * vfio_emu_iommu.c - the emulated VFIO container and its type-1 IOMMU:
 * VFIO_GET_API_VERSION, VFIO_CHECK_EXTENSION, VFIO_SET_IOMMU,
 * VFIO_IOMMU_GET_INFO (page sizes, IOVA ranges), VFIO_IOMMU_MAP_DMA and
 * UNMAP_DMA with the kernel's rules (listed in vfio_emu.c).
 */
#define _GNU_SOURCE
#include "vfio_emu_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The IOMMU's smallest page. */
static uint64_t min_page(void)
{
	uint64_t p = emu.o.pgsizes ? emu.o.pgsizes : 0x40201000ull;

	return p & -p;
}

static struct emap *map_find(uint64_t iova, uint64_t size)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (emu.maps[i].used && iova < emu.maps[i].iova + emu.maps[i].size &&
		    emu.maps[i].iova < iova + size)
			return &emu.maps[i];
	return NULL;
}

static void range_of(unsigned i, uint64_t *start, uint64_t *end)
{
	if (emu.o.nranges) {
		*start = emu.o.ranges[i].start;
		*end = emu.o.ranges[i].end;
	} else {
		*start = i ? 0xfef00000ull : 0;
		*end = i ? (1ull << 48) - 1 : 0xfedfffffull;
	}
}

static unsigned nranges(void)
{
	return emu.o.no_ranges ? 0 : emu.o.nranges ? emu.o.nranges : 2;
}

/* Is [p, p+n) mapped in this process, and writable? From /proc/self/maps
 * (the kernel's view). 0 not mapped, 1 read-only, 2 writable. */
static int vm_access(uint64_t p, uint64_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t at = p;
	int acc = 2;

	if (!f)
		return 2;
	while (at < p + n && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		char perm[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3 || hi <= at || lo > at)
			continue;
		if (perm[0] != 'r')
			acc = 0;
		else if (perm[1] != 'w' && acc > 1)
			acc = 1;
		at = hi;
		rewind(f); /* the maps are sorted, but start over for safety */
	}
	fclose(f);
	return at >= p + n ? acc : 0;
}

int emu_container_ioctl(unsigned long req, void *arg)
{
	uint64_t pg = min_page();

	switch (req) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION: {
		long t = (long)arg;

		if (t == VFIO_TYPE1v2_IOMMU)
			return !emu.o.no_type1v2 && !emu.o.no_type1;
		if (t == VFIO_TYPE1_IOMMU)
			return !emu.o.no_type1;
		if (t == NOIOMMU_TYPE)
			return emu.o.noiommu;
		return 0;
	}
	case VFIO_SET_IOMMU: {
		long t = (long)arg;

		if (!emu.group_in_container)
			return emu_rule(EINVAL, "VFIO_SET_IOMMU before a group was added to the container");
		if (emu.iommu_type)
			return emu_rule(EBUSY, "VFIO_SET_IOMMU twice");
		if (emu.o.noiommu && t != NOIOMMU_TYPE)
			return emu_rule(EINVAL, "a noiommu group takes only VFIO_NOIOMMU_IOMMU");
		if ((t == VFIO_TYPE1v2_IOMMU && (emu.o.no_type1v2 || emu.o.no_type1)) ||
		    (t == VFIO_TYPE1_IOMMU && emu.o.no_type1) ||
		    (t != VFIO_TYPE1v2_IOMMU && t != VFIO_TYPE1_IOMMU && t != NOIOMMU_TYPE))
			return emu_rule(EINVAL, "IOMMU type %ld not offered", t);
		if (emu.o.no_irq_remap && t != NOIOMMU_TYPE)
			return emu_rule(EPERM, "no interrupt remapping and allow_unsafe_interrupts off");
		emu.iommu_type = (int)t;
		return 0;
	}
	case VFIO_IOMMU_GET_INFO: {
		struct vfio_iommu_type1_info *info = arg;
		unsigned nr = nranges();
		size_t need = sizeof *info, capoff = (sizeof *info + 7) & ~(size_t)7;
		size_t capsz = nr ? sizeof(struct vfio_iommu_type1_info_cap_iova_range) +
					    nr * sizeof(struct vfio_iova_range)
				  : 0;
		uint32_t given;

		if (!emu.iommu_type)
			return emu_rule(EINVAL, "VFIO_IOMMU_GET_INFO before VFIO_SET_IOMMU");
		given = info->argsz;
		if (given < offsetof(struct vfio_iommu_type1_info, iova_pgsizes) + 8)
			return emu_rule(EINVAL, "VFIO_IOMMU_GET_INFO: argsz %u too small", given);
		if (nr)
			need = capoff + capsz;
		info->flags = VFIO_IOMMU_INFO_PGSIZES;
		info->iova_pgsizes = emu.o.pgsizes ? emu.o.pgsizes : 0x40201000ull;
		if (given >= sizeof *info)
			info->cap_offset = 0;
		if (nr && given >= sizeof *info) {
			info->flags |= VFIO_IOMMU_INFO_CAPS;
			if (given >= need) {
				struct vfio_iommu_type1_info_cap_iova_range *r =
					(void *)((char *)info + capoff);

				memset(r, 0, capsz);
				r->header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
				r->header.version = 1;
				r->header.next = 0;
				r->nr_iovas = nr;
				for (unsigned i = 0; i < nr; i++) {
					uint64_t s, e;

					range_of(i, &s, &e);
					r->iova_ranges[i].start = s;
					r->iova_ranges[i].end = e;
				}
				info->cap_offset = (uint32_t)capoff;
			}
			info->argsz = (uint32_t)need;
		}
		return 0;
	}
	case VFIO_IOMMU_MAP_DMA: {
		struct vfio_iommu_type1_dma_map *dm = arg;
		uint64_t end;
		unsigned nr = nranges();
		int in = !nr, acc, slot = -1, rc;

		emu.st.map_calls++;
		if (!emu.iommu_type || emu.iommu_type == NOIOMMU_TYPE)
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA without a type-1 IOMMU set");
		if (dm->argsz < sizeof *dm)
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA: argsz");
		if (!(dm->flags & (VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) ||
		    (dm->flags & ~(uint32_t)(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)))
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA: flags 0x%x", dm->flags);
		if (!dm->size || dm->size % pg || dm->iova % pg || dm->vaddr % pg)
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA: vaddr 0x%llx iova 0x%llx size 0x%llx "
				    "not aligned to the IOMMU page 0x%llx",
				    (unsigned long long)dm->vaddr, (unsigned long long)dm->iova,
				    (unsigned long long)dm->size, (unsigned long long)pg);
		end = dm->iova + dm->size - 1;
		if (end < dm->iova)
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA: iova + size wraps");
		for (unsigned i = 0; i < nr; i++) {
			uint64_t s, e;

			range_of(i, &s, &e);
			in |= dm->iova >= s && end <= e;
		}
		if (!in)
			return emu_rule(EINVAL, "VFIO_IOMMU_MAP_DMA: [0x%llx, 0x%llx] outside the IOVA ranges",
				    (unsigned long long)dm->iova, (unsigned long long)end);
		if (map_find(dm->iova, dm->size))
			return emu_rule(EEXIST, "VFIO_IOMMU_MAP_DMA: iova 0x%llx overlaps a mapping",
				    (unsigned long long)dm->iova);
		if (emu.o.memlock && emu.st.pinned + dm->size > emu.o.memlock)
			return emu_rule(ENOMEM, "VFIO_IOMMU_MAP_DMA: %llu + %llu bytes pinned > "
				    "RLIMIT_MEMLOCK %llu", (unsigned long long)emu.st.pinned,
				    (unsigned long long)dm->size, (unsigned long long)emu.o.memlock);
		acc = vm_access(dm->vaddr, dm->size);
		if (!acc || ((dm->flags & VFIO_DMA_MAP_FLAG_WRITE) && acc < 2))
			return emu_rule(EFAULT, "VFIO_IOMMU_MAP_DMA: vaddr 0x%llx %s",
				    (unsigned long long)dm->vaddr,
				    acc ? "is read-only memory (mapping with WRITE)" : "is not mapped");
		for (int i = 0; i < MAX_MAPS && slot < 0; i++)
			if (!emu.maps[i].used)
				slot = i;
		if (slot < 0)
			return emu_rule(ENOSPC, "VFIO_IOMMU_MAP_DMA: too many mappings");
		emu.maps[slot] = (struct emap){dm->vaddr, dm->iova, dm->size, dm->flags, 1};
		rc = emu_sim_map(&emu.maps[slot]);
		if (rc) {
			emu.maps[slot].used = 0;
			return emu_rule(-rc, "VFIO_IOMMU_MAP_DMA: the simulator's IOMMU refused (%d)", rc);
		}
		emu.st.maps++;
		emu.st.pinned += dm->size;
		if (!(dm->flags & VFIO_DMA_MAP_FLAG_WRITE))
			emu.st.ro_maps++;
		return 0;
	}
	case VFIO_IOMMU_UNMAP_DMA: {
		struct vfio_iommu_type1_dma_unmap *um = arg;
		uint64_t done = 0;
		uint32_t cmd = 0;

		emu.st.unmap_calls++;
		if (!emu.iommu_type || emu.iommu_type == NOIOMMU_TYPE)
			return emu_rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA without a type-1 IOMMU set");
		if (um->size % pg || um->iova % pg)
			return emu_rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA: not aligned to the IOMMU page");
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &emu.maps[i];

			if (!m->used || m->iova + m->size <= um->iova || m->iova >= um->iova + um->size)
				continue;
			if (emu.iommu_type == VFIO_TYPE1v2_IOMMU &&
			    (m->iova < um->iova || m->iova + m->size > um->iova + um->size))
				return emu_rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA: cuts the mapping at 0x%llx",
					    (unsigned long long)m->iova);
		}
		if (emu.sim_open && emu_sim.cfg_read(ABBSIM_CFG_COMMAND, 2, &cmd) == 0 && (cmd & ABBSIM_CMD_MASTER))
			emu.st.unmap_with_master++;
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &emu.maps[i];

			if (!m->used || m->iova < um->iova || m->iova + m->size > um->iova + um->size)
				continue;
			emu_sim_unmap(m);
			m->used = 0;
			done += m->size;
			emu.st.maps--;
			emu.st.pinned -= m->size;
		}
		um->size = done;
		return 0;
	}
	default:
		return emu_rule(ENOTTY, "container ioctl 0x%lx", req);
	}
}

void emu_drop_maps(void)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (emu.maps[i].used) {
			emu_sim_unmap(&emu.maps[i]);
			emu.maps[i].used = 0;
		}
	emu.st.maps = 0;
	emu.st.pinned = 0;
}


/* ---- the iommufd path: /dev/iommu and its one IOAS ------------------- */

#define EMU_IOAS_ID 2 /* as the kernel numbers objects: any non-zero id */

/* Room the user gave in IOMMU_IOAS_IOVA_RANGES: the ranges, inclusive. */
static unsigned ioas_ranges(struct iommu_iova_range *out, unsigned room)
{
	unsigned nr = nranges() ? nranges() : 1;

	for (unsigned i = 0; i < nr && i < room; i++) {
		uint64_t s = 0, e = UINT64_MAX;

		if (nranges())
			range_of(i, &s, &e);
		out[i].start = s;
		out[i].last = e;
	}
	return nr;
}

static int ioas_check(uint32_t id, const char *what)
{
	if (!emu.ioas_id || id != emu.ioas_id)
		return emu_rule(ENOENT, "%s: no IOAS %u", what, id);
	return 0;
}

int emu_iommufd_ioctl(unsigned long req, void *arg)
{
	uint64_t pg = min_page();

	switch (req) {
	case IOMMU_IOAS_ALLOC: {
		struct iommu_ioas_alloc *ia = arg;

		if (ia->size < sizeof *ia || ia->flags)
			return emu_rule(EOPNOTSUPP, "IOMMU_IOAS_ALLOC: size %u flags 0x%x", ia->size,
					ia->flags);
		if (emu.ioas_id)
			return emu_rule(ENOSPC, "IOMMU_IOAS_ALLOC: the emulator has one IOAS");
		emu.ioas_id = EMU_IOAS_ID;
		emu.st.ioas++;
		ia->out_ioas_id = emu.ioas_id;
		return 0;
	}
	case IOMMU_IOAS_IOVA_RANGES: {
		struct iommu_ioas_iova_ranges *q = arg;
		struct iommu_iova_range tmp[8];
		unsigned nr;

		if (ioas_check(q->ioas_id, "IOMMU_IOAS_IOVA_RANGES"))
			return -1;
		nr = ioas_ranges(tmp, 8);
		if (q->num_iovas && q->allowed_iovas)
			memcpy((void *)(uintptr_t)q->allowed_iovas, tmp,
			       (q->num_iovas < nr ? q->num_iovas : nr) * sizeof tmp[0]);
		q->out_iova_alignment = pg;
		if (q->num_iovas < nr) {
			q->num_iovas = nr;
			errno = EMSGSIZE; /* the documented answer, not a broken rule */
			return -1;
		}
		q->num_iovas = nr;
		return 0;
	}
	case IOMMU_IOAS_MAP: {
		struct iommu_ioas_map *im = arg;
		const uint32_t known = IOMMU_IOAS_MAP_FIXED_IOVA | IOMMU_IOAS_MAP_READABLE |
				       IOMMU_IOAS_MAP_WRITEABLE;
		struct iommu_iova_range r[8];
		unsigned nr;
		uint64_t end;
		int in = 0, acc, slot = -1, rc;

		emu.st.map_calls++;
		if (ioas_check(im->ioas_id, "IOMMU_IOAS_MAP"))
			return -1;
		if (im->flags & ~known)
			return emu_rule(EOPNOTSUPP, "IOMMU_IOAS_MAP: flags 0x%x", im->flags);
		if (!(im->flags & (IOMMU_IOAS_MAP_READABLE | IOMMU_IOAS_MAP_WRITEABLE)))
			return emu_rule(EINVAL, "IOMMU_IOAS_MAP: neither READABLE nor WRITEABLE");
		if (!(im->flags & IOMMU_IOAS_MAP_FIXED_IOVA))
			return emu_rule(EOPNOTSUPP, "IOMMU_IOAS_MAP without FIXED_IOVA (not emulated)");
		if (!im->length || im->length % pg || im->iova % pg || im->user_va % pg)
			return emu_rule(EINVAL, "IOMMU_IOAS_MAP: user_va 0x%llx iova 0x%llx length "
				    "0x%llx not aligned to the IOVA alignment 0x%llx",
				    (unsigned long long)im->user_va, (unsigned long long)im->iova,
				    (unsigned long long)im->length, (unsigned long long)pg);
		end = im->iova + im->length - 1;
		if (end < im->iova)
			return emu_rule(EOVERFLOW, "IOMMU_IOAS_MAP: iova + length wraps");
		nr = ioas_ranges(r, 8);
		for (unsigned i = 0; i < nr && i < 8; i++)
			in |= im->iova >= r[i].start && end <= r[i].last;
		if (!in)
			return emu_rule(EINVAL, "IOMMU_IOAS_MAP: [0x%llx, 0x%llx] outside the IOVA ranges",
				    (unsigned long long)im->iova, (unsigned long long)end);
		if (map_find(im->iova, im->length))
			return emu_rule(EEXIST, "IOMMU_IOAS_MAP: iova 0x%llx overlaps an area",
				    (unsigned long long)im->iova);
		if (emu.o.memlock && emu.st.pinned + im->length > emu.o.memlock)
			return emu_rule(ENOMEM, "IOMMU_IOAS_MAP: %llu + %llu bytes pinned > "
				    "RLIMIT_MEMLOCK %llu", (unsigned long long)emu.st.pinned,
				    (unsigned long long)im->length, (unsigned long long)emu.o.memlock);
		acc = vm_access(im->user_va, im->length);
		if (!acc || ((im->flags & IOMMU_IOAS_MAP_WRITEABLE) && acc < 2))
			return emu_rule(EFAULT, "IOMMU_IOAS_MAP: user_va 0x%llx %s",
				    (unsigned long long)im->user_va,
				    acc ? "is read-only memory (mapping WRITEABLE)" : "is not mapped");
		for (int i = 0; i < MAX_MAPS && slot < 0; i++)
			if (!emu.maps[i].used)
				slot = i;
		if (slot < 0)
			return emu_rule(ENOSPC, "IOMMU_IOAS_MAP: too many areas");
		emu.maps[slot] = (struct emap){
			im->user_va, im->iova, im->length,
			((im->flags & IOMMU_IOAS_MAP_READABLE) ? VFIO_DMA_MAP_FLAG_READ : 0) |
				((im->flags & IOMMU_IOAS_MAP_WRITEABLE) ? VFIO_DMA_MAP_FLAG_WRITE : 0),
			1};
		rc = emu_sim_map(&emu.maps[slot]);
		if (rc) {
			emu.maps[slot].used = 0;
			return emu_rule(-rc, "IOMMU_IOAS_MAP: the simulator's IOMMU refused (%d)", rc);
		}
		emu.st.maps++;
		emu.st.pinned += im->length;
		if (!(im->flags & IOMMU_IOAS_MAP_WRITEABLE))
			emu.st.ro_maps++;
		return 0;
	}
	case IOMMU_IOAS_UNMAP: {
		struct iommu_ioas_unmap *iu = arg;
		uint64_t done = 0;
		uint32_t cmd = 0;
		int any = 0;

		emu.st.unmap_calls++;
		if (ioas_check(iu->ioas_id, "IOMMU_IOAS_UNMAP"))
			return -1;
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &emu.maps[i];

			if (!m->used || m->iova + m->size <= iu->iova || m->iova >= iu->iova + iu->length)
				continue;
			if (m->iova < iu->iova || m->iova + m->size > iu->iova + iu->length)
				return emu_rule(ENOENT, "IOMMU_IOAS_UNMAP: cuts the area at 0x%llx",
					    (unsigned long long)m->iova);
			any = 1;
		}
		if (!any)
			return emu_rule(ENOENT, "IOMMU_IOAS_UNMAP: no area in [0x%llx, +0x%llx)",
				    (unsigned long long)iu->iova, (unsigned long long)iu->length);
		if (emu.sim_open && emu_sim.cfg_read(ABBSIM_CFG_COMMAND, 2, &cmd) == 0 && (cmd & ABBSIM_CMD_MASTER))
			emu.st.unmap_with_master++;
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &emu.maps[i];

			if (!m->used || m->iova < iu->iova || m->iova + m->size > iu->iova + iu->length)
				continue;
			emu_sim_unmap(m);
			m->used = 0;
			done += m->size;
			emu.st.maps--;
			emu.st.pinned -= m->size;
		}
		iu->length = done;
		return 0;
	}
	case IOMMU_DESTROY: {
		struct iommu_destroy *d = arg;

		if (ioas_check(d->id, "IOMMU_DESTROY"))
			return -1;
		if (emu.cdev_attached)
			return emu_rule(EBUSY, "IOMMU_DESTROY: a device is attached to IOAS %u", d->id);
		emu_drop_maps();
		emu.ioas_id = 0;
		emu.st.ioas--;
		return 0;
	}
	default:
		return emu_rule(ENOTTY, "iommufd ioctl 0x%lx", req);
	}
}
