/*
 * vfio_emu.c - the emulated VFIO kernel (see vfio_emu.h): the system-call
 * seam of libabb's vfio backend implemented on a fake sysfs/dev tree
 * (vfio_emu_tree.c) and the simulator.
 *
 * Rules of the kernel it enforces (errno as the kernel gives it; each is
 * tested in test_vfio.c):
 *   - order: a group is added to a container (VFIO_GROUP_SET_CONTAINER)
 *     before VFIO_SET_IOMMU (EINVAL without a group); VFIO_SET_IOMMU before
 *     VFIO_IOMMU_GET_INFO / MAP_DMA / UNMAP_DMA and before
 *     VFIO_GROUP_GET_DEVICE_FD (EINVAL); a second SET_CONTAINER (EINVAL);
 *     a second SET_IOMMU (EBUSY); an IOMMU type not offered (EINVAL);
 *   - group viability: SET_CONTAINER of a group that is not viable (a
 *     device of the group bound to a host driver): EPERM; a group open
 *     twice: EBUSY; a device fd taken twice: EBUSY; an unknown device
 *     name: ENODEV;
 *   - no interrupt remapping: VFIO_SET_IOMMU EPERM (option no_irq_remap);
 *   - a noiommu group (/dev/vfio/noiommu-N) accepts only the no-IOMMU
 *     type: SET_IOMMU with a type-1 IOMMU EINVAL;
 *   - MAP_DMA: flags READ and/or WRITE (EINVAL otherwise), vaddr, iova and
 *     size multiples of the smallest IOMMU page and size > 0 (EINVAL),
 *     [iova, iova+size) inside one reported IOVA range (EINVAL),
 *     overlapping an existing mapping (EEXIST), pinned bytes beyond
 *     RLIMIT_MEMLOCK (ENOMEM), WRITE on memory that is not writable or
 *     vaddr not mapped (EFAULT);
 *   - UNMAP_DMA: iova and size aligned (EINVAL); a range that cuts a
 *     mapping in two (type-1 v2: EINVAL); reports the bytes unmapped;
 *   - regions: pread/pwrite inside the region (EINVAL), mmap only of a
 *     region with VFIO_REGION_INFO_FLAG_MMAP (EINVAL);
 *   - interrupts: one index at a time (EINVAL when another has an
 *     eventfd); INTx is automasked when it fires (its eventfd is signalled
 *     once, the line stays masked until VFIO_IRQ_SET_ACTION_UNMASK, which
 *     signals again if the line is still asserted); MSI eventfds are
 *     signalled on every interrupt; an index with count 0 refuses
 *     eventfds (EINVAL);
 *   - VFIO_DEVICE_RESET only with VFIO_DEVICE_FLAGS_RESET (EINVAL else):
 *     the board is hot reset (its registers back to reset values), the
 *     IOMMU mappings of the container stay;
 *   - closing the container removes its mappings; UNMAP_DMA while the
 *     device's bus master bit is on is counted (unmap_with_master).
 *
 * Device time: clock_gettime(CLOCK_MONOTONIC) is the simulator's time,
 * nanosleep advances it, poll() on the interrupt eventfd waits for the
 * simulator's interrupts (abbsim_wait_irq) up to its timeout in device
 * time.
 *
 * Fds of the container, group and device are real fds (of /dev/null), so
 * their numbers never collide with other fds of the process; eventfds are
 * real eventfds.
 */
#define _GNU_SOURCE
#include "vfio_emu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "abb_vfio.h"
#include "abbsim.h"
#include "vfio_emu_tree.h"

#ifndef TB_BUILD_DIR
#define TB_BUILD_DIR "build"
#endif

/* contract 6 of the integrator's brief (added by the simintx stream) */
#ifndef ABBSIM_DMA_READ
#define ABBSIM_DMA_READ 0x1u
#define ABBSIM_DMA_WRITE 0x2u
#endif

#define MAX_FD 4096
#define MAX_MAPS 4096
#define REGION_SHIFT 40 /* as vfio-pci: region index in the offset's top bits */
#define NOIOMMU_TYPE 8  /* VFIO_NOIOMMU_IOMMU */

/* The simulator's C interface, from dlopen. */
static struct {
	void *h;
	__typeof__(abbsim_params_default) *params_default;
	__typeof__(abbsim_params_from_env) *params_from_env;
	__typeof__(abbsim_open) *open;
	__typeof__(abbsim_close) *close;
	__typeof__(abbsim_get_params) *get_params;
	__typeof__(abbsim_cfg_read) *cfg_read;
	__typeof__(abbsim_cfg_write) *cfg_write;
	__typeof__(abbsim_mmio_read) *mmio_read;
	__typeof__(abbsim_mmio_write) *mmio_write;
	__typeof__(abbsim_iommu_map) *iommu_map;
	__typeof__(abbsim_iommu_unmap) *iommu_unmap;
	__typeof__(abbsim_wait_irq) *wait_irq;
	__typeof__(abbsim_irq_count) *irq_count;
	__typeof__(abbsim_advance) *advance;
	__typeof__(abbsim_now_ps) *now_ps;
	__typeof__(abbsim_last_error) *last_error;
	/* optional (contract 6 and 2): NULL on an older simulator */
	int (*iommu_map_at)(void *ptr, size_t len, uint64_t iova, unsigned flags);
	int (*iommu_unmap_iova)(uint64_t iova, uint64_t len);
	int (*intx_asserted)(void);
} sim;

enum kind { K_NONE, K_CONTAINER, K_GROUP, K_DEVICE, K_EVENTFD };

struct emap {
	uint64_t vaddr, iova, size;
	unsigned flags;
	int used;
};

static struct {
	pthread_mutex_t lock;
	int installed;
	struct vfio_emu_opts o;
	char root[256], sysfs[300], dev[300];
	struct abb_vfio_sys sys;
	enum kind fds[MAX_FD];
	/* the container (one at a time is enough for libabb) */
	int container_fd, group_fd, device_fd;
	int group_in_container, iommu_type;
	struct emap maps[MAX_MAPS];
	/* the device */
	int sim_open;
	uint64_t bar_size[2];
	int irq_index;     /* with an eventfd, or -1 */
	int irq_efd;
	int masked;        /* INTx masked (fired, not unmasked yet) */
	int pending;       /* an interrupt came while masked (no intx_asserted) */
	uint64_t irq_seen; /* the simulator's count already delivered */
	void *ram_bar[2];  /* bar_mmap == 2 */
	struct vfio_emu_stats st;
} E = {.lock = PTHREAD_MUTEX_INITIALIZER, .container_fd = -1, .group_fd = -1,
       .device_fd = -1, .irq_index = -1, .irq_efd = -1};

/* Fault injection (vfio_emu_fail). */
static struct {
	char call[16];
	unsigned long request;
	int err;
	unsigned skip;
} F;

void vfio_emu_fail(const char *call, unsigned long request, int err, unsigned skip)
{
	pthread_mutex_lock(&E.lock);
	snprintf(F.call, sizeof F.call, "%s", call ? call : "");
	F.request = request;
	F.err = err;
	F.skip = skip;
	pthread_mutex_unlock(&E.lock);
}

/* 1 (errno set, the injection used up) if this call is to fail. */
static int inject(const char *call, unsigned long request)
{
	int hit = 0;

	pthread_mutex_lock(&E.lock);
	if (F.call[0] && !strcmp(F.call, call) && (!F.request || F.request == request)) {
		if (F.skip)
			F.skip--;
		else {
			F.call[0] = 0;
			errno = F.err;
			hit = 1;
		}
	}
	pthread_mutex_unlock(&E.lock);
	return hit;
}

/* Refuses a call: errno err, counted, described. Returns -1. */
static int rule(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(E.st.last_rule, sizeof E.st.last_rule, fmt, ap);
	va_end(ap);
	E.st.rule_errors++;
	errno = err;
	return -1;
}

static int load_sim(void)
{
	const char *env = getenv("ABB_SIM_LIB");
	void *h;

	if (sim.h)
		return 0;
	h = dlopen(env && *env ? env : TB_BUILD_DIR "/sim/libabbsim.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "vfio_emu: %s\n", dlerror());
		return -ENODEV;
	}
#define SYM(f)                                                                \
	do {                                                                  \
		*(void **)&sim.f = dlsym(h, "abbsim_" #f);                    \
		if (!sim.f) {                                                 \
			fprintf(stderr, "vfio_emu: no abbsim_" #f "\n");      \
			return -ELIBBAD;                                      \
		}                                                             \
	} while (0)
	SYM(params_default);
	SYM(params_from_env);
	SYM(open);
	SYM(close);
	SYM(get_params);
	SYM(cfg_read);
	SYM(cfg_write);
	SYM(mmio_read);
	SYM(mmio_write);
	SYM(iommu_map);
	SYM(iommu_unmap);
	SYM(wait_irq);
	SYM(irq_count);
	SYM(advance);
	SYM(now_ps);
	SYM(last_error);
#undef SYM
	*(void **)&sim.iommu_map_at = dlsym(h, "abbsim_iommu_map_at");
	*(void **)&sim.iommu_unmap_iova = dlsym(h, "abbsim_iommu_unmap_iova");
	*(void **)&sim.intx_asserted = dlsym(h, "abbsim_intx_asserted");
	if (!sim.iommu_map_at || !sim.iommu_unmap_iova)
		sim.iommu_map_at = NULL, sim.iommu_unmap_iova = NULL;
	sim.h = h;
	return 0;
}

int vfio_emu_has_map_at(void)
{
	return load_sim() == 0 && sim.iommu_map_at != NULL;
}

static enum kind kind_of(int fd)
{
	return fd >= 0 && fd < MAX_FD ? E.fds[fd] : K_NONE;
}

static int new_fd(enum kind k)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fd >= MAX_FD) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	E.fds[fd] = k;
	return fd;
}

/* ---- device: simulator ---------------------------------------------- */

static uint64_t min_page(void)
{
	uint64_t p = E.o.pgsizes ? E.o.pgsizes : 0x40201000ull;

	return p & -p;
}

static int sim_map(const struct emap *m)
{
	unsigned f = (m->flags & VFIO_DMA_MAP_FLAG_READ ? ABBSIM_DMA_READ : 0) |
		     (m->flags & VFIO_DMA_MAP_FLAG_WRITE ? ABBSIM_DMA_WRITE : 0);

	if (!E.sim_open)
		return 0;
	if (sim.iommu_map_at)
		return sim.iommu_map_at((void *)(uintptr_t)m->vaddr, m->size, m->iova, f);
	/* Fallback until the simulator has abbsim_iommu_map_at: its own
	 * next-fit allocator hands out the same IOVAs as the backend's when
	 * both start at 0x10000000 and see the same maps and unmaps. */
	struct abbsim_seg seg;
	int rc = sim.iommu_map((void *)(uintptr_t)m->vaddr, m->size, &seg, 1);

	if (rc == 1 && seg.iova != m->iova) {
		sim.iommu_unmap((void *)(uintptr_t)m->vaddr);
		fprintf(stderr, "vfio_emu: fallback IOMMU: simulator IOVA 0x%llx != 0x%llx\n",
			(unsigned long long)seg.iova, (unsigned long long)m->iova);
		return -EIO;
	}
	return rc == 1 ? 0 : rc < 0 ? rc : -EIO;
}

static void sim_unmap(const struct emap *m)
{
	if (!E.sim_open)
		return;
	if (sim.iommu_unmap_iova)
		sim.iommu_unmap_iova(m->iova, m->size);
	else
		sim.iommu_unmap((void *)(uintptr_t)m->vaddr);
}

static uint64_t bar_size(unsigned bar)
{
	uint32_t cmd, orig, probe;

	if (bar == 1) {
		union {
			struct abbsim_params p;
			char room[sizeof(struct abbsim_params) + 256];
		} u;

		return sim.get_params(&u.p) ? 0 : u.p.mem_bytes;
	}
	if (sim.cfg_read(0x04, 2, &cmd) || sim.cfg_read(0x10, 4, &orig))
		return 0;
	sim.cfg_write(0x04, 2, cmd & ~0x2u);
	sim.cfg_write(0x10, 4, 0xffffffffu);
	if (sim.cfg_read(0x10, 4, &probe))
		probe = 0;
	sim.cfg_write(0x10, 4, orig);
	sim.cfg_write(0x04, 2, cmd);
	probe &= ~0xfu;
	return probe ? (uint64_t)(uint32_t)(~probe + 1u) : 0;
}

/* Opens (or hot-resets) the simulated board and maps the container's
 * mappings into its IOMMU again. Lock held. */
static int board_open(void)
{
	/* room for the fields a newer simulator appends to its parameters */
	union {
		struct abbsim_params p;
		char room[sizeof(struct abbsim_params) + 256];
	} u;
	struct abbsim_params *pp = &u.p;
	int rc;

	if (E.sim_open) {
		sim.close();
		E.sim_open = 0;
	}
	memset(&u, 0, sizeof u);
	sim.params_default(pp);
	rc = sim.params_from_env(pp);
	if (rc)
		return rc;
	if (!sim.iommu_map_at)
		pp->iova_scatter = 0; /* the fallback needs the simulator's next fit */
	rc = sim.open(pp);
	if (rc) {
		fprintf(stderr, "vfio_emu: abbsim_open: %s\n", sim.last_error());
		return rc;
	}
	E.sim_open = 1;
	E.bar_size[0] = bar_size(0);
	E.bar_size[1] = bar_size(1);
	E.irq_seen = sim.irq_count();
	E.masked = E.pending = 0;
	for (int i = 0; i < MAX_MAPS; i++)
		if (E.maps[i].used && (rc = sim_map(&E.maps[i])) != 0)
			return rc;
	return 0;
}

static void board_close(void)
{
	if (E.sim_open)
		sim.close();
	E.sim_open = 0;
}

static int has_msi_cap(void)
{
	uint32_t status, ptr, id;

	if (!E.sim_open || sim.cfg_read(0x06, 2, &status) || !(status & 0x10))
		return 0;
	if (sim.cfg_read(0x34, 1, &ptr))
		return 0;
	for (int hops = 0; ptr >= 0x40 && hops < 48; hops++) {
		if (sim.cfg_read(ptr, 1, &id))
			return 0;
		if (id == 0x05)
			return 1;
		if (sim.cfg_read(ptr + 1, 1, &ptr))
			return 0;
		ptr &= 0xfc;
	}
	return 0;
}

static int irq_count_of(unsigned index)
{
	uint32_t pin = 0;

	if (index == VFIO_PCI_MSI_IRQ_INDEX)
		return !E.o.no_msi && has_msi_cap();
	if (index == VFIO_PCI_INTX_IRQ_INDEX)
		return !E.o.no_intx && E.sim_open && sim.cfg_read(0x3d, 1, &pin) == 0 && pin;
	return 0;
}

static void signal_efd(void)
{
	uint64_t one = 1;

	if (write(E.irq_efd, &one, sizeof one) != sizeof one)
		E.st.rule_errors++;
}

static int line_asserted(void)
{
	return sim.intx_asserted ? sim.intx_asserted() : E.pending;
}

/* The kernel's interrupt handler: delivers the simulator's new interrupts
 * to the eventfd (INTx: once, then masked). Lock held. */
static void service(void)
{
	uint64_t now;

	if (!E.sim_open)
		return;
	now = sim.irq_count();
	if (now <= E.irq_seen)
		return;
	E.irq_seen = now;
	if (E.irq_index == VFIO_PCI_MSI_IRQ_INDEX) {
		signal_efd();
		E.st.msi_signals++;
	} else if (E.irq_index == VFIO_PCI_INTX_IRQ_INDEX) {
		if (E.masked) {
			E.pending = 1;
			return;
		}
		signal_efd();
		E.masked = 1;
		E.st.intx_signals++;
		E.st.intx_masked++;
	}
}

/* ---- ioctls ---------------------------------------------------------- */

static struct emap *map_find(uint64_t iova, uint64_t size)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (E.maps[i].used && iova < E.maps[i].iova + E.maps[i].size &&
		    E.maps[i].iova < iova + size)
			return &E.maps[i];
	return NULL;
}

static void range_of(unsigned i, uint64_t *start, uint64_t *end)
{
	if (E.o.nranges) {
		*start = E.o.ranges[i].start;
		*end = E.o.ranges[i].end;
	} else {
		*start = i ? 0xfef00000ull : 0;
		*end = i ? (1ull << 48) - 1 : 0xfedfffffull;
	}
}

static unsigned nranges(void)
{
	return E.o.no_ranges ? 0 : E.o.nranges ? E.o.nranges : 2;
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

static int container_ioctl(unsigned long req, void *arg)
{
	uint64_t pg = min_page();

	switch (req) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION: {
		long t = (long)arg;

		if (t == VFIO_TYPE1v2_IOMMU)
			return !E.o.no_type1v2 && !E.o.no_type1;
		if (t == VFIO_TYPE1_IOMMU)
			return !E.o.no_type1;
		if (t == NOIOMMU_TYPE)
			return E.o.noiommu;
		return 0;
	}
	case VFIO_SET_IOMMU: {
		long t = (long)arg;

		if (!E.group_in_container)
			return rule(EINVAL, "VFIO_SET_IOMMU before a group was added to the container");
		if (E.iommu_type)
			return rule(EBUSY, "VFIO_SET_IOMMU twice");
		if (E.o.noiommu && t != NOIOMMU_TYPE)
			return rule(EINVAL, "a noiommu group takes only VFIO_NOIOMMU_IOMMU");
		if ((t == VFIO_TYPE1v2_IOMMU && (E.o.no_type1v2 || E.o.no_type1)) ||
		    (t == VFIO_TYPE1_IOMMU && E.o.no_type1) ||
		    (t != VFIO_TYPE1v2_IOMMU && t != VFIO_TYPE1_IOMMU && t != NOIOMMU_TYPE))
			return rule(EINVAL, "IOMMU type %ld not offered", t);
		if (E.o.no_irq_remap && t != NOIOMMU_TYPE)
			return rule(EPERM, "no interrupt remapping and allow_unsafe_interrupts off");
		E.iommu_type = (int)t;
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

		if (!E.iommu_type)
			return rule(EINVAL, "VFIO_IOMMU_GET_INFO before VFIO_SET_IOMMU");
		given = info->argsz;
		if (given < offsetof(struct vfio_iommu_type1_info, iova_pgsizes) + 8)
			return rule(EINVAL, "VFIO_IOMMU_GET_INFO: argsz %u too small", given);
		if (nr)
			need = capoff + capsz;
		info->flags = VFIO_IOMMU_INFO_PGSIZES;
		info->iova_pgsizes = E.o.pgsizes ? E.o.pgsizes : 0x40201000ull;
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

		E.st.map_calls++;
		if (!E.iommu_type || E.iommu_type == NOIOMMU_TYPE)
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA without a type-1 IOMMU set");
		if (dm->argsz < sizeof *dm)
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA: argsz");
		if (!(dm->flags & (VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) ||
		    (dm->flags & ~(uint32_t)(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)))
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA: flags 0x%x", dm->flags);
		if (!dm->size || dm->size % pg || dm->iova % pg || dm->vaddr % pg)
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA: vaddr 0x%llx iova 0x%llx size 0x%llx "
				    "not aligned to the IOMMU page 0x%llx",
				    (unsigned long long)dm->vaddr, (unsigned long long)dm->iova,
				    (unsigned long long)dm->size, (unsigned long long)pg);
		end = dm->iova + dm->size - 1;
		if (end < dm->iova)
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA: iova + size wraps");
		for (unsigned i = 0; i < nr; i++) {
			uint64_t s, e;

			range_of(i, &s, &e);
			in |= dm->iova >= s && end <= e;
		}
		if (!in)
			return rule(EINVAL, "VFIO_IOMMU_MAP_DMA: [0x%llx, 0x%llx] outside the IOVA ranges",
				    (unsigned long long)dm->iova, (unsigned long long)end);
		if (map_find(dm->iova, dm->size))
			return rule(EEXIST, "VFIO_IOMMU_MAP_DMA: iova 0x%llx overlaps a mapping",
				    (unsigned long long)dm->iova);
		if (E.o.memlock && E.st.pinned + dm->size > E.o.memlock)
			return rule(ENOMEM, "VFIO_IOMMU_MAP_DMA: %llu + %llu bytes pinned > "
				    "RLIMIT_MEMLOCK %llu", (unsigned long long)E.st.pinned,
				    (unsigned long long)dm->size, (unsigned long long)E.o.memlock);
		acc = vm_access(dm->vaddr, dm->size);
		if (!acc || ((dm->flags & VFIO_DMA_MAP_FLAG_WRITE) && acc < 2))
			return rule(EFAULT, "VFIO_IOMMU_MAP_DMA: vaddr 0x%llx %s",
				    (unsigned long long)dm->vaddr,
				    acc ? "is read-only memory (mapping with WRITE)" : "is not mapped");
		for (int i = 0; i < MAX_MAPS && slot < 0; i++)
			if (!E.maps[i].used)
				slot = i;
		if (slot < 0)
			return rule(ENOSPC, "VFIO_IOMMU_MAP_DMA: too many mappings");
		E.maps[slot] = (struct emap){dm->vaddr, dm->iova, dm->size, dm->flags, 1};
		rc = sim_map(&E.maps[slot]);
		if (rc) {
			E.maps[slot].used = 0;
			return rule(-rc, "VFIO_IOMMU_MAP_DMA: the simulator's IOMMU refused (%d)", rc);
		}
		E.st.maps++;
		E.st.pinned += dm->size;
		if (!(dm->flags & VFIO_DMA_MAP_FLAG_WRITE))
			E.st.ro_maps++;
		return 0;
	}
	case VFIO_IOMMU_UNMAP_DMA: {
		struct vfio_iommu_type1_dma_unmap *um = arg;
		uint64_t done = 0;
		uint32_t cmd = 0;

		E.st.unmap_calls++;
		if (!E.iommu_type || E.iommu_type == NOIOMMU_TYPE)
			return rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA without a type-1 IOMMU set");
		if (um->size % pg || um->iova % pg)
			return rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA: not aligned to the IOMMU page");
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &E.maps[i];

			if (!m->used || m->iova + m->size <= um->iova || m->iova >= um->iova + um->size)
				continue;
			if (E.iommu_type == VFIO_TYPE1v2_IOMMU &&
			    (m->iova < um->iova || m->iova + m->size > um->iova + um->size))
				return rule(EINVAL, "VFIO_IOMMU_UNMAP_DMA: cuts the mapping at 0x%llx",
					    (unsigned long long)m->iova);
		}
		if (E.sim_open && sim.cfg_read(0x04, 2, &cmd) == 0 && (cmd & 0x4))
			E.st.unmap_with_master++;
		for (int i = 0; i < MAX_MAPS; i++) {
			struct emap *m = &E.maps[i];

			if (!m->used || m->iova < um->iova || m->iova + m->size > um->iova + um->size)
				continue;
			sim_unmap(m);
			m->used = 0;
			done += m->size;
			E.st.maps--;
			E.st.pinned -= m->size;
		}
		um->size = done;
		return 0;
	}
	default:
		return rule(ENOTTY, "container ioctl 0x%lx", req);
	}
}

static int group_ioctl(unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_GROUP_GET_STATUS: {
		struct vfio_group_status *gs = arg;

		gs->flags = (E.o.not_viable ? 0 : VFIO_GROUP_FLAGS_VIABLE) |
			    (E.group_in_container ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
		return 0;
	}
	case VFIO_GROUP_SET_CONTAINER: {
		int cfd = *(int *)arg;

		if (kind_of(cfd) != K_CONTAINER)
			return rule(EBADF, "VFIO_GROUP_SET_CONTAINER: %d is no container", cfd);
		if (E.group_in_container)
			return rule(EINVAL, "VFIO_GROUP_SET_CONTAINER twice");
		if (E.o.not_viable)
			return rule(EPERM, "VFIO_GROUP_SET_CONTAINER: the group is not viable");
		E.group_in_container = 1;
		return 0;
	}
	case VFIO_GROUP_GET_DEVICE_FD: {
		const char *name = arg;
		int fd, rc;

		if (!E.group_in_container || !E.iommu_type)
			return rule(EINVAL, "VFIO_GROUP_GET_DEVICE_FD before the container's IOMMU "
				    "is set");
		if (strcmp(name, VFIO_EMU_BDF))
			return rule(ENODEV, "VFIO_GROUP_GET_DEVICE_FD: no device %s in the group", name);
		if (E.device_fd >= 0)
			return rule(EBUSY, "VFIO_GROUP_GET_DEVICE_FD: the device is open");
		rc = board_open();
		if (rc) {
			errno = -rc;
			return -1;
		}
		fd = new_fd(K_DEVICE);
		if (fd < 0) {
			board_close();
			return -1;
		}
		E.device_fd = fd;
		E.st.devices++;
		return fd;
	}
	default:
		return rule(ENOTTY, "group ioctl 0x%lx", req);
	}
}

/* Command.Interrupt Disable (bit 10) of the board: cleared while INTx has
 * an eventfd (as vfio-pci enables the line), set otherwise. The kernel's
 * automask is modelled as masking at the interrupt controller (the board
 * keeps asserting; the unmask looks at the line). Lock held. */
static void intx_enable(int on)
{
	uint32_t cmd;

	if (!E.sim_open || sim.cfg_read(0x04, 2, &cmd))
		return;
	cmd = on ? cmd & ~0x400u : cmd | 0x400u;
	sim.cfg_write(0x04, 2, cmd);
}

static void irq_off(void)
{
	if (E.irq_index == VFIO_PCI_INTX_IRQ_INDEX)
		intx_enable(0);
	E.irq_index = -1;
	E.irq_efd = -1;
}

static int set_irqs(struct vfio_irq_set *s)
{
	unsigned action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	unsigned data = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	int count = irq_count_of(s->index);

	if (s->argsz < sizeof *s || (s->index != VFIO_PCI_INTX_IRQ_INDEX &&
				      s->index != VFIO_PCI_MSI_IRQ_INDEX))
		return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %u", s->index);
	if (action == VFIO_IRQ_SET_ACTION_TRIGGER && data == VFIO_IRQ_SET_DATA_NONE &&
	    s->count == 0) {
		if (E.irq_index == (int)s->index)
			irq_off();
		return 0;
	}
	if (!count || s->start + s->count > (unsigned)count)
		return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %u has %d interrupts", s->index,
			    count);
	if (action == VFIO_IRQ_SET_ACTION_TRIGGER && data == VFIO_IRQ_SET_DATA_EVENTFD) {
		int32_t fd;

		if (s->argsz < sizeof *s + sizeof fd)
			return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: no eventfd in the data");
		if (E.irq_index >= 0 && E.irq_index != (int)s->index)
			return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %d is in use", E.irq_index);
		memcpy(&fd, s->data, sizeof fd);
		if (fd < 0) {
			irq_off();
			return 0;
		}
		if (kind_of(fd) != K_EVENTFD)
			return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: %d is not an eventfd", fd);
		E.irq_index = (int)s->index;
		E.irq_efd = fd;
		E.masked = E.pending = 0;
		E.irq_seen = E.sim_open ? sim.irq_count() : 0;
		if (s->index == VFIO_PCI_INTX_IRQ_INDEX)
			intx_enable(1);
		return 0;
	}
	if (s->index == VFIO_PCI_INTX_IRQ_INDEX && data == VFIO_IRQ_SET_DATA_NONE &&
	    (action == VFIO_IRQ_SET_ACTION_UNMASK || action == VFIO_IRQ_SET_ACTION_MASK)) {
		if (action == VFIO_IRQ_SET_ACTION_MASK) {
			E.masked = 1;
			return 0;
		}
		E.st.unmasks++;
		service(); /* what came before the unmask */
		E.masked = 0;
		if (E.irq_index == VFIO_PCI_INTX_IRQ_INDEX && line_asserted()) {
			signal_efd();
			E.masked = 1;
			E.st.intx_signals++;
			E.st.intx_masked++;
		}
		E.pending = 0;
		return 0;
	}
	return rule(EINVAL, "VFIO_DEVICE_SET_IRQS: flags 0x%x on index %u", s->flags, s->index);
}

static int device_ioctl(unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info *di = arg;

		di->flags = VFIO_DEVICE_FLAGS_PCI | (E.o.no_reset ? 0 : VFIO_DEVICE_FLAGS_RESET);
		di->num_regions = VFIO_PCI_NUM_REGIONS;
		di->num_irqs = VFIO_PCI_NUM_IRQS;
		return 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO: {
		struct vfio_region_info *ri = arg;
		unsigned i = ri->index;

		if (i >= VFIO_PCI_NUM_REGIONS)
			return rule(EINVAL, "VFIO_DEVICE_GET_REGION_INFO: index %u", i);
		ri->offset = (uint64_t)i << REGION_SHIFT;
		ri->cap_offset = 0;
		ri->flags = 0;
		ri->size = 0;
		if (i <= VFIO_PCI_BAR1_REGION_INDEX) {
			ri->size = i == 1 && E.o.no_bar1 ? 0 : E.bar_size[i];
			ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
				    (E.o.bar_mmap ? VFIO_REGION_INFO_FLAG_MMAP : 0);
		} else if (i == VFIO_PCI_CONFIG_REGION_INDEX) {
			ri->size = 4096;
			ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
		}
		return 0;
	}
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info *ii = arg;

		if (ii->index >= VFIO_PCI_NUM_IRQS)
			return rule(EINVAL, "VFIO_DEVICE_GET_IRQ_INFO: index %u", ii->index);
		ii->count = (uint32_t)irq_count_of(ii->index);
		ii->flags = VFIO_IRQ_INFO_EVENTFD;
		if (ii->index == VFIO_PCI_INTX_IRQ_INDEX)
			ii->flags |= VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED;
		else
			ii->flags |= VFIO_IRQ_INFO_NORESIZE;
		return 0;
	}
	case VFIO_DEVICE_SET_IRQS:
		return set_irqs(arg);
	case VFIO_DEVICE_RESET: {
		int rc;

		if (E.o.no_reset)
			return rule(EINVAL, "VFIO_DEVICE_RESET: the device has no reset");
		E.st.resets++;
		rc = board_open();
		if (rc) {
			errno = -rc;
			return -1;
		}
		return 0;
	}
	default:
		return rule(ENOTTY, "device ioctl 0x%lx", req);
	}
}

/* ---- the seam -------------------------------------------------------- */

static int emu_open(const char *path, int flags)
{
	char p[512];
	int fd;

	if (inject("open", 0))
		return -1;
	pthread_mutex_lock(&E.lock);
	snprintf(p, sizeof p, "%s/vfio/vfio", E.dev);
	if (strcmp(path, p) == 0 && E.o.container_eacces)
		fd = rule(EACCES, "open %s: permission denied", path);
	else if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		fd = new_fd(K_CONTAINER);
		if (fd >= 0) {
			E.container_fd = fd;
			E.st.containers++;
		}
	} else {
		fd = -2;
	}
	if (fd != -2) {
		pthread_mutex_unlock(&E.lock);
		return fd;
	}
	snprintf(p, sizeof p, "%s/vfio/%s" VFIO_EMU_GROUP, E.dev, E.o.noiommu ? "noiommu-" : "");
	if (strcmp(path, p) == 0 && access(path, F_OK) == 0) {
		if (E.o.group_eacces)
			fd = rule(EACCES, "open %s: permission denied", path);
		else if (E.o.group_busy || E.group_fd >= 0)
			fd = rule(EBUSY, "open %s: the group is open", path);
		else if ((fd = new_fd(K_GROUP)) >= 0) {
			E.group_fd = fd;
			E.st.groups++;
		}
		pthread_mutex_unlock(&E.lock);
		return fd;
	}
	pthread_mutex_unlock(&E.lock);
	if (strncmp(path, E.dev, strlen(E.dev)) == 0) {
		errno = ENOENT; /* other device nodes of the fake /dev */
		return -1;
	}
	return open(path, flags);
}

static void drop_maps(void)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (E.maps[i].used) {
			sim_unmap(&E.maps[i]);
			E.maps[i].used = 0;
		}
	E.st.maps = 0;
	E.st.pinned = 0;
}

static int emu_close(int fd)
{
	pthread_mutex_lock(&E.lock);
	switch (kind_of(fd)) {
	case K_CONTAINER:
		drop_maps();
		E.container_fd = -1;
		E.iommu_type = 0;
		E.group_in_container = 0;
		E.st.containers--;
		break;
	case K_GROUP:
		E.group_fd = -1;
		E.st.groups--;
		break;
	case K_DEVICE:
		irq_off();
		board_close();
		E.device_fd = -1;
		E.st.devices--;
		break;
	case K_EVENTFD:
		if (E.irq_efd == fd)
			irq_off();
		break;
	default:
		break;
	}
	if (fd >= 0 && fd < MAX_FD)
		E.fds[fd] = K_NONE;
	pthread_mutex_unlock(&E.lock);
	return close(fd);
}

static int emu_ioctl(int fd, unsigned long req, void *arg)
{
	int rc;

	if (inject("ioctl", req))
		return -1;
	pthread_mutex_lock(&E.lock);
	service();
	switch (kind_of(fd)) {
	case K_CONTAINER:
		rc = container_ioctl(req, arg);
		break;
	case K_GROUP:
		rc = group_ioctl(req, arg);
		break;
	case K_DEVICE:
		rc = device_ioctl(req, arg);
		break;
	default:
		rc = rule(EBADF, "ioctl on fd %d", fd);
		break;
	}
	pthread_mutex_unlock(&E.lock);
	return rc;
}

/* A region access of the device fd: which region, where. -1 and errno. */
static int region_at(off_t off, size_t n, unsigned *index, uint64_t *at)
{
	uint64_t size;

	*index = (unsigned)((uint64_t)off >> REGION_SHIFT);
	*at = (uint64_t)off & ((1ull << REGION_SHIFT) - 1);
	if (*index <= VFIO_PCI_BAR1_REGION_INDEX)
		size = E.bar_size[*index];
	else if (*index == VFIO_PCI_CONFIG_REGION_INDEX)
		size = 4096;
	else
		size = 0;
	if (*at >= size || n > size - *at)
		return rule(EINVAL, "region %u: [0x%llx, +%zu) outside its %llu bytes", *index,
			    (unsigned long long)*at, n, (unsigned long long)size);
	return 0;
}

static ssize_t dev_rw(int fd, void *buf, size_t n, off_t off, int write)
{
	unsigned index;
	uint64_t at;
	int rc;

	pthread_mutex_lock(&E.lock);
	service();
	rc = region_at(off, n, &index, &at);
	if (!rc && index == VFIO_PCI_CONFIG_REGION_INDEX)
		E.st.cfg_accesses++;
	else if (!rc)
		write ? E.st.mmio_pwrites++ : E.st.mmio_preads++;
	pthread_mutex_unlock(&E.lock);
	if (rc)
		return -1;
	if (index == VFIO_PCI_CONFIG_REGION_INDEX) {
		uint8_t *b = buf;

		for (size_t i = 0; i < n;) {
			unsigned sz = (at + i) % 4 == 0 && n - i >= 4 ? 4 : (at + i) % 2 == 0 && n - i >= 2 ? 2 : 1;
			uint32_t v = 0;

			if (write) {
				memcpy(&v, b + i, sz);
				rc = sim.cfg_write((unsigned)(at + i), sz, v);
			} else {
				rc = sim.cfg_read((unsigned)(at + i), sz, &v);
				memcpy(b + i, &v, sz);
			}
			if (rc) {
				errno = EIO;
				return -1;
			}
			i += sz;
		}
		return (ssize_t)n;
	}
	rc = write ? sim.mmio_write(index, at, buf, n) : sim.mmio_read(index, at, buf, n);
	pthread_mutex_lock(&E.lock);
	service();
	pthread_mutex_unlock(&E.lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return (ssize_t)n;
}

static ssize_t emu_pread(int fd, void *buf, size_t n, off_t off)
{
	if (inject("pread", 0))
		return -1;
	if (kind_of(fd) != K_DEVICE)
		return pread(fd, buf, n, off);
	return dev_rw(fd, buf, n, off, 0);
}

static ssize_t emu_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (inject("pwrite", 0))
		return -1;
	if (kind_of(fd) != K_DEVICE)
		return pwrite(fd, buf, n, off);
	return dev_rw(fd, (void *)buf, n, off, 1);
}

static void *emu_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	unsigned index;
	uint64_t at;
	void *p;

	if (inject("mmap", 0))
		return MAP_FAILED;
	if (kind_of(fd) != K_DEVICE)
		return mmap(addr, len, prot, flags, fd, off);
	pthread_mutex_lock(&E.lock);
	if (region_at(off, len, &index, &at)) {
		pthread_mutex_unlock(&E.lock);
		return MAP_FAILED;
	}
	if (index > VFIO_PCI_BAR1_REGION_INDEX || !E.o.bar_mmap) {
		rule(EINVAL, "mmap of region %u, which has no VFIO_REGION_INFO_FLAG_MMAP", index);
		pthread_mutex_unlock(&E.lock);
		return MAP_FAILED;
	}
	if (E.o.bar_mmap == 1) {
		pthread_mutex_unlock(&E.lock);
		errno = ENODEV;
		return MAP_FAILED;
	}
	pthread_mutex_unlock(&E.lock);
	p = mmap(addr, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (uint64_t o = 0; p != MAP_FAILED && index == 0 && o < len && o < 4096; o += 4)
		sim.mmio_read(0, o, (char *)p + o, 4); /* a snapshot of the registers */
	if (p != MAP_FAILED)
		E.ram_bar[index] = p;
	return p;
}

static ssize_t emu_read(int fd, void *buf, size_t n)
{
	if (inject("read", 0))
		return -1;
	if (kind_of(fd) == K_EVENTFD) {
		pthread_mutex_lock(&E.lock);
		service();
		pthread_mutex_unlock(&E.lock);
	}
	return read(fd, buf, n);
}

static int emu_eventfd(unsigned int initval, int flags)
{
	int fd;

	if (inject("eventfd", 0))
		return -1;
	fd = eventfd(initval, flags);
	if (fd >= 0 && fd < MAX_FD) {
		pthread_mutex_lock(&E.lock);
		E.fds[fd] = K_EVENTFD;
		pthread_mutex_unlock(&E.lock);
	}
	return fd;
}

/* poll on the interrupt eventfd waits in device time. */
static int emu_poll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout)
{
	uint64_t end_ps = 0;

	if (nfds != 1 || kind_of(fds[0].fd) != K_EVENTFD || !E.sim_open)
		return ppoll(fds, nfds, timeout, NULL);
	if (timeout)
		end_ps = sim.now_ps() + ((uint64_t)timeout->tv_sec * 1000000000u +
					 (uint64_t)timeout->tv_nsec) * 1000u;
	for (;;) {
		struct timespec zero = {0, 0};
		uint64_t seen;
		int rc;

		pthread_mutex_lock(&E.lock);
		service();
		seen = E.irq_seen;
		pthread_mutex_unlock(&E.lock);
		rc = ppoll(fds, 1, &zero, NULL);
		if (rc != 0)
			return rc;
		if (timeout) {
			uint64_t now = sim.now_ps();

			if (now >= end_ps)
				return 0;
			rc = sim.wait_irq(&seen, (int64_t)((end_ps - now + 999) / 1000));
		} else {
			rc = sim.wait_irq(&seen, -1);
		}
		if (rc && rc != -ETIMEDOUT) {
			errno = -rc;
			return -1;
		}
	}
}

static int emu_getrlimit(int res, struct rlimit *rl)
{
	if (res != RLIMIT_MEMLOCK)
		return getrlimit((__rlimit_resource_t)res, rl);
	rl->rlim_cur = rl->rlim_max = E.o.memlock ? E.o.memlock : RLIM_INFINITY;
	return 0;
}

static int emu_clock_gettime(clockid_t clk, struct timespec *ts)
{
	uint64_t ns;

	if (clk != CLOCK_MONOTONIC || !E.sim_open)
		return clock_gettime(clk, ts);
	ns = sim.now_ps() / 1000;
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}

static int emu_nanosleep(const struct timespec *req, struct timespec *rem)
{
	int64_t ns;
	int rc;

	if (!E.sim_open)
		return nanosleep(req, rem);
	ns = (int64_t)req->tv_sec * 1000000000 + req->tv_nsec;
	rc = sim.advance(ns);
	pthread_mutex_lock(&E.lock);
	service();
	pthread_mutex_unlock(&E.lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

static int emu_munmap(void *addr, size_t len)
{
	pthread_mutex_lock(&E.lock);
	for (int i = 0; i < 2; i++)
		if (E.ram_bar[i] == addr)
			E.ram_bar[i] = NULL;
	pthread_mutex_unlock(&E.lock);
	return munmap(addr, len);
}

static int emu_ioctl_entry(int fd, unsigned long req, void *arg)
{
	return emu_ioctl(fd, req, arg);
}

int vfio_emu_install(const struct vfio_emu_opts *opts)
{
	uint8_t cfg[64] = {0xdc, 0x10, 0x53, 0x01, 0x06, 0x00, 0x10, 0x00, 0, 0, 0x00, 0xff};
	int rc;

	vfio_emu_remove();
	rc = load_sim();
	if (rc)
		return rc;
	pthread_mutex_lock(&E.lock);
	memset(&E.o, 0, sizeof E.o);
	if (opts)
		E.o = *opts;
	memset(&E.st, 0, sizeof E.st);
	memset(&F, 0, sizeof F);
	rc = vfio_emu_tree_make(E.root, sizeof E.root, &E.o, cfg, sizeof cfg);
	if (rc) {
		pthread_mutex_unlock(&E.lock);
		fprintf(stderr, "vfio_emu: cannot make the sysfs tree: %s\n", strerror(-rc));
		return rc;
	}
	snprintf(E.sysfs, sizeof E.sysfs, "%s/sys", E.root);
	snprintf(E.dev, sizeof E.dev, "%s/dev", E.root);
	E.sys = (struct abb_vfio_sys){
		.open = emu_open,
		.close = emu_close,
		.ioctl = emu_ioctl_entry,
		.mmap = emu_mmap,
		.munmap = emu_munmap,
		.pread = emu_pread,
		.pwrite = emu_pwrite,
		.read = emu_read,
		.write = write,
		.eventfd = emu_eventfd,
		.poll = emu_poll,
		.readlink = readlink,
		.access = access,
		.getrlimit = emu_getrlimit,
		.clock_gettime = emu_clock_gettime,
		.nanosleep = emu_nanosleep,
		.sysfs_root = E.sysfs,
		.dev_root = E.dev,
	};
	E.installed = 1;
	pthread_mutex_unlock(&E.lock);
	abb_vfio_set_sys(&E.sys);
	return 0;
}

void vfio_emu_remove(void)
{
	if (!E.installed)
		return;
	abb_vfio_set_sys(NULL);
	pthread_mutex_lock(&E.lock);
	vfio_emu_tree_remove(E.root);
	E.root[0] = 0;
	E.installed = 0;
	pthread_mutex_unlock(&E.lock);
}

int vfio_emu_installed(void)
{
	return E.installed;
}

const struct vfio_emu_opts *vfio_emu_opts(void)
{
	return &E.o;
}

void vfio_emu_stats(struct vfio_emu_stats *out)
{
	pthread_mutex_lock(&E.lock);
	service();
	*out = E.st;
	out->irq_index = E.irq_index;
	pthread_mutex_unlock(&E.lock);
}

void vfio_emu_stats_reset(void)
{
	pthread_mutex_lock(&E.lock);
	{
		unsigned c = E.st.containers, g = E.st.groups, d = E.st.devices, m = E.st.maps;
		uint64_t p = E.st.pinned;

		memset(&E.st, 0, sizeof E.st);
		E.st.containers = c, E.st.groups = g, E.st.devices = d, E.st.maps = m;
		E.st.pinned = p;
	}
	pthread_mutex_unlock(&E.lock);
}

const char *vfio_emu_sysfs_root(void)
{
	return E.sysfs;
}
