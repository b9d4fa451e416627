/*
 * vfio_emu_priv.h - state shared by the units of the emulated VFIO kernel:
 * vfio_emu.c (the seam: fds, dispatch, device time, install), vfio_emu_board.c
 * (the simulated board: loading, reset, interrupt delivery),
 * vfio_emu_iommu.c (the container and its type-1 IOMMU), vfio_emu_device.c
 * (the group and the device fd). Not for the tests (vfio_emu.h is).
 */
#ifndef VFIO_EMU_PRIV_H
#define VFIO_EMU_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/vfio.h>

#include "vfio_seam.h" /* host/lib: the seam the emulator fills */
#include "vfio_iommufd_abi.h"
#include "abbsim.h"
#include "abbsim_cfg.h"
#include "abbsim_loader.h"
#include "vfio_emu.h"

#ifndef TB_BUILD_DIR
#define TB_BUILD_DIR "build"
#endif

#define MAX_FD 4096
#define MAX_MAPS 4096
#define REGION_SHIFT 40 /* as vfio-pci: region index in the offset's top bits */
#define NOIOMMU_TYPE 8  /* VFIO_NOIOMMU_IOMMU */

/* The simulator's C interface, from its one loader (sim/abbsim_loader.h). */
#define emu_sim emu_simlib
extern struct abbsim_api emu_simlib;

enum kind { K_NONE, K_CONTAINER, K_GROUP, K_DEVICE, K_EVENTFD, K_IOMMUFD, K_RESWC };

struct emap {
	uint64_t vaddr, iova, size;
	unsigned flags;
	int used;
};

struct emu_state {
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
	/* the iommufd/cdev path */
	int iommufd_fd;    /* -1 */
	uint32_t ioas_id;  /* 0: none */
	int dev_cdev;      /* the device fd is the cdev */
	int cdev_bound, cdev_attached;
	/* the device */
	int sim_open;
	uint64_t bar_size[2];
	int irq_index;     /* with an eventfd, or -1 */
	int irq_efd;
	int masked;        /* INTx masked (fired, not unmasked yet) */
	uint64_t irq_seen; /* the simulator's count already delivered */
	void *ram_bar[2];  /* bar_mmap == 2 */
	void *ram_wc;      /* res_wc == 3: the RAM given for resource1_wc */
	struct vfio_emu_stats st;
};
/* Everything, under emu.lock (never held across a blocking simulator call). */
extern struct emu_state emu;

/* vfio_emu.c */
/* Refuses a call: errno err, counted, described. Returns -1. */
int emu_rule(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum kind emu_kind_of(int fd);
/* 1 (errno set) if this call is to fail (vfio_emu_fail). No lock. */
int emu_inject(const char *call, unsigned long request);
/* A new fd (of /dev/null) of kind k, or -1. */
int emu_new_fd(enum kind k);

/* vfio_emu_board.c (lock held unless said) */
int emu_load_sim(void);                 /* no lock */
int emu_sim_map(const struct emap *m);
void emu_sim_unmap(const struct emap *m);
/* Opens or hot-resets the board; maps the container's mappings again. */
int emu_board_open(void);
void emu_board_close(void);
/* Interrupts the index offers: MSI if the board has the capability. */
int emu_irq_count_of(unsigned index);
/* The kernel's interrupt handler: delivers new interrupts of the board. */
void emu_service(void);
/* INTx: the kernel's unmask (signals again if the line is asserted). */
void emu_intx_unmask(void);
void emu_intx_enable(int on);
void emu_irq_off(void);

/* vfio_emu_iommu.c (lock held) */
int emu_container_ioctl(unsigned long req, void *arg);
int emu_iommufd_ioctl(unsigned long req, void *arg);
/* The cdev rules for a device access (bind, attach): 0 or emu_rule. */
int emu_cdev_ready(const char *what);
void emu_drop_maps(void);

/* vfio_emu_device.c */
int emu_group_ioctl(unsigned long req, void *arg);   /* lock held */
int emu_device_ioctl(unsigned long req, void *arg);  /* lock held */
ssize_t emu_dev_rw(int fd, void *buf, size_t n, off_t off, int write); /* no lock */
void *emu_dev_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off); /* no lock */

#endif
