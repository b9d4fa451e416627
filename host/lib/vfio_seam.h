/*
 * vfio_seam.h - the system-call seam of the vfio backend (not installed).
 *
 * Every call the backend makes to the kernel goes through one of these
 * (the default table, vfio_seam.c, calls libc). The test bench's emulated
 * VFIO kernel (testbench/vfio_emu*.c) installs its own table here; besides
 * libabb, only the test bench includes this header: it is libabb's one
 * test seam. Discovery and diagnosis are public: <abb/abb_vfio.h>.
 *
 * They behave as the libc functions of the same name: -1 (MAP_FAILED for
 * mmap) and errno on failure. ioctl's third argument is the pointer or the
 * integer (cast to a pointer) the request takes. poll is ppoll() without
 * a signal mask (timeout NULL: no limit), so that a device-time timeout
 * below a millisecond is kept. Every path the backend builds starts with
 * sysfs_root ("/sys") or dev_root ("/dev").
 *
 * Device time of the vfio backend is clock_gettime(CLOCK_MONOTONIC) of the
 * seam; its waits are poll() on the interrupt eventfd and nanosleep().
 */
#ifndef ABB_VFIO_SEAM_H
#define ABB_VFIO_SEAM_H

#include <poll.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

struct abb_vfio_sys {
	int (*open)(const char *path, int flags);
	int (*close)(int fd);
	int (*ioctl)(int fd, unsigned long request, void *arg);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t n, off_t off);
	ssize_t (*read)(int fd, void *buf, size_t n);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	int (*eventfd)(unsigned int initval, int flags);
	int (*poll)(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout);
	ssize_t (*readlink)(const char *path, char *buf, size_t n);
	int (*access)(const char *path, int mode);
	int (*getrlimit)(int resource, struct rlimit *rl);
	int (*clock_gettime)(clockid_t clk, struct timespec *ts);
	int (*nanosleep)(const struct timespec *req, struct timespec *rem);
	const char *sysfs_root; /* "/sys" */
	const char *dev_root;   /* "/dev" */
};

/* Installs sys for devices opened from now on (NULL: the real system).
 * The table is copied; the strings must outlive those devices. Not to be
 * called while a vfio device is open. */
void abb_vfio_set_sys(const struct abb_vfio_sys *sys);
/* The table in use (the real one unless abb_vfio_set_sys installed one). */
const struct abb_vfio_sys *abb_vfio_get_sys(void);

#ifdef __cplusplus
}
#endif
#endif
