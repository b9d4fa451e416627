/*
 * vfio_seam.c - the system-call seam of the vfio backend (vfio_seam.h):
 * the table of the real libc calls, and the one a test installs in its
 * place (testbench/vfio_emu.c). A device copies the table at open.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "vfio_seam.h"

static int sys_open(const char *path, int flags)
{
	return open(path, flags);
}

static int sys_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

static int sys_getrlimit(int resource, struct rlimit *rl)
{
	return getrlimit((__rlimit_resource_t)resource, rl);
}

static int sys_poll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout)
{
	return ppoll(fds, nfds, timeout, NULL);
}

static int sys_eventfd(unsigned int initval, int flags)
{
	return eventfd(initval, flags);
}

static const struct abb_vfio_sys sys_real = {
	.open = sys_open,
	.close = close,
	.ioctl = sys_ioctl,
	.mmap = mmap,
	.munmap = munmap,
	.pread = pread,
	.pwrite = pwrite,
	.read = read,
	.write = write,
	.eventfd = sys_eventfd,
	.poll = sys_poll,
	.readlink = readlink,
	.access = access,
	.getrlimit = sys_getrlimit,
	.clock_gettime = clock_gettime,
	.nanosleep = nanosleep,
	.sysfs_root = "/sys",
	.dev_root = "/dev",
};

/* the table in use: sys_real unless a test replaced it (a pointer: C does
 * not allow one static struct as the initialiser of another, gcc does) */
static struct abb_vfio_sys sys_test;
static const struct abb_vfio_sys *sys_now = &sys_real;

void abb_vfio_set_sys(const struct abb_vfio_sys *sys)
{
	if (sys) {
		sys_test = *sys;
		sys_now = &sys_test;
	} else {
		sys_now = &sys_real;
	}
}

const struct abb_vfio_sys *abb_vfio_get_sys(void)
{
	return sys_now;
}
