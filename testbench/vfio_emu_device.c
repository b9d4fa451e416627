/*
 * vfio_emu_device.c - the emulated VFIO group and device fd: group status,
 * container, device fd; region and interrupt information, VFIO_DEVICE_SET_IRQS,
 * reset; region access by pread/pwrite (the board's BARs and config space)
 * and mmap (by option).
 */
#define _GNU_SOURCE
#include "vfio_emu_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int emu_group_ioctl(unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_GROUP_GET_STATUS: {
		struct vfio_group_status *gs = arg;

		gs->flags = (emu.o.not_viable ? 0 : VFIO_GROUP_FLAGS_VIABLE) |
			    (emu.group_in_container ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
		return 0;
	}
	case VFIO_GROUP_SET_CONTAINER: {
		if (emu.dev_cdev)
			return emu_rule(EBUSY, "VFIO_GROUP_SET_CONTAINER: the device is open by its cdev");
		int cfd = *(int *)arg;

		if (emu_kind_of(cfd) != K_CONTAINER)
			return emu_rule(EBADF, "VFIO_GROUP_SET_CONTAINER: %d is no container", cfd);
		if (emu.group_in_container)
			return emu_rule(EINVAL, "VFIO_GROUP_SET_CONTAINER twice");
		if (emu.o.not_viable)
			return emu_rule(EPERM, "VFIO_GROUP_SET_CONTAINER: the group is not viable");
		emu.group_in_container = 1;
		return 0;
	}
	case VFIO_GROUP_GET_DEVICE_FD: {
		const char *name = arg;
		int fd, rc;

		if (!emu.group_in_container || !emu.iommu_type)
			return emu_rule(EINVAL, "VFIO_GROUP_GET_DEVICE_FD before the container's IOMMU "
				    "is set");
		if (strcmp(name, VFIO_EMU_BDF))
			return emu_rule(ENODEV, "VFIO_GROUP_GET_DEVICE_FD: no device %s in the group", name);
		if (emu.device_fd >= 0)
			return emu_rule(EBUSY, "VFIO_GROUP_GET_DEVICE_FD: the device is open");
		rc = emu_board_open();
		if (rc) {
			errno = -rc;
			return -1;
		}
		fd = emu_new_fd(K_DEVICE);
		if (fd < 0) {
			emu_board_close();
			return -1;
		}
		emu.device_fd = fd;
		emu.st.devices++;
		return fd;
	}
	default:
		return emu_rule(ENOTTY, "group ioctl 0x%lx", req);
	}
}

static int set_irqs(struct vfio_irq_set *s)
{
	unsigned action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	unsigned data = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	int count = emu_irq_count_of(s->index);

	if (s->argsz < sizeof *s || (s->index != VFIO_PCI_INTX_IRQ_INDEX &&
				      s->index != VFIO_PCI_MSI_IRQ_INDEX))
		return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %u", s->index);
	if (action == VFIO_IRQ_SET_ACTION_TRIGGER && data == VFIO_IRQ_SET_DATA_NONE &&
	    s->count == 0) {
		if (emu.irq_index == (int)s->index)
			emu_irq_off();
		return 0;
	}
	if (!count || s->start + s->count > (unsigned)count)
		return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %u has %d interrupts", s->index,
			    count);
	if (action == VFIO_IRQ_SET_ACTION_TRIGGER && data == VFIO_IRQ_SET_DATA_EVENTFD) {
		int32_t fd;

		if (s->argsz < sizeof *s + sizeof fd)
			return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: no eventfd in the data");
		if (emu.irq_index >= 0 && emu.irq_index != (int)s->index)
			return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: index %d is in use", emu.irq_index);
		memcpy(&fd, s->data, sizeof fd);
		if (fd < 0) {
			emu_irq_off();
			return 0;
		}
		if (emu_kind_of(fd) != K_EVENTFD)
			return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: %d is not an eventfd", fd);
		emu.irq_index = (int)s->index;
		emu.irq_efd = fd;
		emu.masked = 0;
		emu.irq_seen = emu.sim_open ? emu_sim.irq_count() : 0;
		if (s->index == VFIO_PCI_INTX_IRQ_INDEX)
			emu_intx_enable(1);
		return 0;
	}
	if (s->index == VFIO_PCI_INTX_IRQ_INDEX && data == VFIO_IRQ_SET_DATA_NONE &&
	    (action == VFIO_IRQ_SET_ACTION_UNMASK || action == VFIO_IRQ_SET_ACTION_MASK)) {
		if (action == VFIO_IRQ_SET_ACTION_MASK) {
			emu.masked = 1;
			return 0;
		}
		emu_intx_unmask();
		return 0;
	}
	return emu_rule(EINVAL, "VFIO_DEVICE_SET_IRQS: flags 0x%x on index %u", s->flags, s->index);
}

int emu_cdev_ready(const char *what)
{
	if (!emu.dev_cdev)
		return 0;
	if (!emu.cdev_bound)
		return emu_rule(EINVAL, "%s on the device cdev before VFIO_DEVICE_BIND_IOMMUFD", what);
	if (!emu.cdev_attached)
		return emu_rule(EINVAL, "%s on the device cdev before VFIO_DEVICE_ATTACH_IOMMUFD_PT",
				what);
	return 0;
}

static int cdev_ioctl(unsigned long req, void *arg)
{
	if (req == VFIO_DEVICE_BIND_IOMMUFD) {
		struct vfio_device_bind_iommufd *b = arg;
		int rc;

		if (emu.cdev_bound)
			return emu_rule(EINVAL, "VFIO_DEVICE_BIND_IOMMUFD twice");
		if (b->argsz < sizeof *b || b->flags)
			return emu_rule(EINVAL, "VFIO_DEVICE_BIND_IOMMUFD: argsz %u flags 0x%x",
					b->argsz, b->flags);
		if (emu_kind_of(b->iommufd) != K_IOMMUFD)
			return emu_rule(EBADF, "VFIO_DEVICE_BIND_IOMMUFD: %d is not /dev/iommu",
					b->iommufd);
		if (emu.group_fd >= 0)
			return emu_rule(EBUSY, "VFIO_DEVICE_BIND_IOMMUFD: the group is open");
		rc = emu_board_open();
		if (rc) {
			errno = -rc;
			return -1;
		}
		emu.cdev_bound = 1;
		emu.st.binds++;
		b->out_devid = 1;
		return 0;
	}
	if (req == VFIO_DEVICE_ATTACH_IOMMUFD_PT) {
		struct vfio_device_attach_iommufd_pt *a = arg;

		if (!emu.cdev_bound)
			return emu_rule(EINVAL, "VFIO_DEVICE_ATTACH_IOMMUFD_PT before "
					"VFIO_DEVICE_BIND_IOMMUFD");
		if (a->argsz < sizeof *a || a->flags)
			return emu_rule(EINVAL, "VFIO_DEVICE_ATTACH_IOMMUFD_PT: argsz %u flags 0x%x",
					a->argsz, a->flags);
		if (!emu.ioas_id || a->pt_id != emu.ioas_id)
			return emu_rule(ENOENT, "VFIO_DEVICE_ATTACH_IOMMUFD_PT: no IOAS %u", a->pt_id);
		if (emu.o.no_irq_remap)
			return emu_rule(EPERM, "VFIO_DEVICE_ATTACH_IOMMUFD_PT: no interrupt remapping");
		emu.cdev_attached = 1;
		emu.st.attaches++;
		return 0;
	}
	return emu_rule(ENOTTY, "cdev ioctl 0x%lx", req);
}

int emu_device_ioctl(unsigned long req, void *arg)
{
	if (req == VFIO_DEVICE_BIND_IOMMUFD || req == VFIO_DEVICE_ATTACH_IOMMUFD_PT) {
		if (!emu.dev_cdev)
			return emu_rule(ENOTTY, "cdev ioctl 0x%lx on a device fd from a group", req);
		return cdev_ioctl(req, arg);
	}
	if (emu_cdev_ready("device ioctl"))
		return -1;
	switch (req) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info *di = arg;

		di->flags = VFIO_DEVICE_FLAGS_PCI | (emu.o.no_reset ? 0 : VFIO_DEVICE_FLAGS_RESET);
		di->num_regions = VFIO_PCI_NUM_REGIONS;
		di->num_irqs = VFIO_PCI_NUM_IRQS;
		return 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO: {
		struct vfio_region_info *ri = arg;
		unsigned i = ri->index;

		if (i >= VFIO_PCI_NUM_REGIONS)
			return emu_rule(EINVAL, "VFIO_DEVICE_GET_REGION_INFO: index %u", i);
		ri->offset = (uint64_t)i << REGION_SHIFT;
		ri->cap_offset = 0;
		ri->flags = 0;
		ri->size = 0;
		if (i <= VFIO_PCI_BAR1_REGION_INDEX) {
			ri->size = i == 1 && emu.o.no_bar1 ? 0 : emu.bar_size[i];
			ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
				    (emu.o.bar_mmap ? VFIO_REGION_INFO_FLAG_MMAP : 0);
		} else if (i == VFIO_PCI_CONFIG_REGION_INDEX) {
			ri->size = 4096;
			ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
		}
		return 0;
	}
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info *ii = arg;

		if (ii->index >= VFIO_PCI_NUM_IRQS)
			return emu_rule(EINVAL, "VFIO_DEVICE_GET_IRQ_INFO: index %u", ii->index);
		ii->count = (uint32_t)emu_irq_count_of(ii->index);
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

		if (emu.o.no_reset)
			return emu_rule(EINVAL, "VFIO_DEVICE_RESET: the device has no reset");
		emu.st.resets++;
		rc = emu_board_open();
		if (rc) {
			errno = -rc;
			return -1;
		}
		return 0;
	}
	default:
		return emu_rule(ENOTTY, "device ioctl 0x%lx", req);
	}
}

/* A region access of the device fd: which region, where. -1 and errno. */
static int region_at(off_t off, size_t n, unsigned *index, uint64_t *at)
{
	uint64_t size;

	*index = (unsigned)((uint64_t)off >> REGION_SHIFT);
	*at = (uint64_t)off & ((1ull << REGION_SHIFT) - 1);
	if (*index <= VFIO_PCI_BAR1_REGION_INDEX)
		size = emu.bar_size[*index];
	else if (*index == VFIO_PCI_CONFIG_REGION_INDEX)
		size = 4096;
	else
		size = 0;
	if (*at >= size || n > size - *at)
		return emu_rule(EINVAL, "region %u: [0x%llx, +%zu) outside its %llu bytes", *index,
			    (unsigned long long)*at, n, (unsigned long long)size);
	return 0;
}

ssize_t emu_dev_rw(int fd, void *buf, size_t n, off_t off, int write)
{
	unsigned index;
	uint64_t at;
	int rc;

	pthread_mutex_lock(&emu.lock);
	emu_service();
	rc = emu_cdev_ready(write ? "pwrite" : "pread");
	if (!rc)
		rc = region_at(off, n, &index, &at);
	if (!rc && index == VFIO_PCI_CONFIG_REGION_INDEX)
		emu.st.cfg_accesses++;
	else if (!rc)
		write ? emu.st.mmio_pwrites++ : emu.st.mmio_preads++;
	pthread_mutex_unlock(&emu.lock);
	if (rc)
		return -1;
	if (index == VFIO_PCI_CONFIG_REGION_INDEX) {
		uint8_t *b = buf;

		for (size_t i = 0; i < n;) {
			unsigned sz = (at + i) % 4 == 0 && n - i >= 4 ? 4 : (at + i) % 2 == 0 && n - i >= 2 ? 2 : 1;
			uint32_t v = 0;

			if (write) {
				memcpy(&v, b + i, sz);
				rc = emu_sim.cfg_write((unsigned)(at + i), sz, v);
			} else {
				rc = emu_sim.cfg_read((unsigned)(at + i), sz, &v);
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
	rc = write ? emu_sim.mmio_write(index, at, buf, n) : emu_sim.mmio_read(index, at, buf, n);
	pthread_mutex_lock(&emu.lock);
	emu_service();
	pthread_mutex_unlock(&emu.lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return (ssize_t)n;
}

void *emu_dev_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	unsigned index;
	uint64_t at;
	void *p;

	if (emu_inject("mmap", 0))
		return MAP_FAILED;
	if (emu_kind_of(fd) == K_RESWC) {
		if (emu.o.res_wc != 3) {
			pthread_mutex_lock(&emu.lock);
			emu_rule(EINVAL, "mmap of resource1_wc: the emulator has no write-combined "
				 "mapping of the board");
			pthread_mutex_unlock(&emu.lock);
			return MAP_FAILED;
		}
		if (off != 0 || len > emu.bar_size[1]) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		p = mmap(addr, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			emu.ram_wc = p;
		return p;
	}
	if (emu_kind_of(fd) != K_DEVICE)
		return mmap(addr, len, prot, flags, fd, off);
	pthread_mutex_lock(&emu.lock);
	if (emu_cdev_ready("mmap") || region_at(off, len, &index, &at)) {
		pthread_mutex_unlock(&emu.lock);
		return MAP_FAILED;
	}
	if (index > VFIO_PCI_BAR1_REGION_INDEX || !emu.o.bar_mmap) {
		emu_rule(EINVAL, "mmap of region %u, which has no VFIO_REGION_INFO_FLAG_MMAP", index);
		pthread_mutex_unlock(&emu.lock);
		return MAP_FAILED;
	}
	if (emu.o.bar_mmap == 1) {
		pthread_mutex_unlock(&emu.lock);
		errno = ENODEV;
		return MAP_FAILED;
	}
	pthread_mutex_unlock(&emu.lock);
	p = mmap(addr, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (uint64_t o = 0; p != MAP_FAILED && index == 0 && o < len && o < 4096; o += 4)
		emu_sim.mmio_read(0, o, (char *)p + o, 4); /* a snapshot of the registers */
	if (p != MAP_FAILED)
		emu.ram_bar[index] = p;
	return p;
}

