/*
 * vfio_irq.c - interrupts of the vfio backend.
 *
 * MSI when the device has it (VFIO_PCI_MSI_IRQ_INDEX count > 0), else
 * legacy INTx (VFIO_PCI_INTX_IRQ_INDEX), each through an eventfd; neither:
 * polling only (ABB_DMA_IRQ and abb_irq_wait are refused). The kernel
 * masks INTx when it fires; irq_unmask (called by the core after it
 * cleared the source) unmasks it, and a waiter unmasks a line it saw fire
 * before it sleeps again. A waiter sleeps in slices, as another waiter may
 * drain the shared eventfd first.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include <linux/vfio.h>

#include "vfio_priv.h"

#define VFIO_IRQ_SLICE_NS 5000000ll /* re-check period of a waiter sharing the eventfd */

static int irq_count_of(struct vfio *v, unsigned index)
{
	struct vfio_irq_info ii = {.argsz = sizeof ii, .index = index};

	if (v->sys.ioctl(v->device, VFIO_DEVICE_GET_IRQ_INFO, &ii))
		return 0;
	return (int)ii.count;
}

static int irq_trigger(struct vfio *v, unsigned index, int32_t fd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (struct vfio_irq_set *)buf;

	set->argsz = sizeof buf;
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = index;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &fd, sizeof fd);
	return v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, set);
}

/* MSI when the device has the capability, else INTx; neither: polling. */
int vfio_irq_setup(struct vfio *v)
{
	static const struct {
		unsigned index;
		int mode;
	} try[] = {{VFIO_PCI_MSI_IRQ_INDEX, IRQ_MODE_MSI}, {VFIO_PCI_INTX_IRQ_INDEX, IRQ_MODE_INTX}};

	v->irq_fd = v->sys.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->irq_fd < 0)
		return abb_err(-errno, "vfio: eventfd: %s", strerror(errno));
	for (size_t i = 0; i < sizeof try / sizeof try[0]; i++) {
		if (irq_count_of(v, try[i].index) <= 0)
			continue;
		if (irq_trigger(v, try[i].index, v->irq_fd) == 0) {
			v->irq_mode = try[i].mode;
			return 0;
		}
	}
	/* Polling still works; ABB_DMA_IRQ and abb_irq_wait will not. */
	v->sys.close(v->irq_fd);
	v->irq_fd = -1;
	return 0;
}

void vfio_irq_disable(struct vfio *v)
{
	struct vfio_irq_set set = {
		.argsz = sizeof set,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
		.index = v->irq_mode == IRQ_MODE_MSI ? VFIO_PCI_MSI_IRQ_INDEX
						     : VFIO_PCI_INTX_IRQ_INDEX,
		.count = 0,
	};

	if (v->irq_mode == IRQ_MODE_NONE)
		return;
	v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, &set);
	v->irq_mode = IRQ_MODE_NONE;
}

void vfio_irq_release(struct vfio *v)
{
	if (v->irq_fd >= 0)
		v->sys.close(v->irq_fd);
}

/* Moves pending eventfd counts into v->irqs; an INTx that fired is masked
 * by the kernel now. With v->lock held. */
static void drain(struct vfio *v)
{
	uint64_t n;

	if (v->sys.read(v->irq_fd, &n, sizeof n) == (ssize_t)sizeof n && n) {
		v->irqs += n;
		if (v->irq_mode == IRQ_MODE_INTX)
			v->masked = 1;
	}
}

/* INTx: lets the line fire again (the source was cleared). With v->lock. */
static int unmask_locked(struct vfio *v)
{
	struct vfio_irq_set set = {
		.argsz = sizeof set,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK,
		.index = VFIO_PCI_INTX_IRQ_INDEX,
		.start = 0,
		.count = 1,
	};

	v->masked = 0;
	if (v->sys.ioctl(v->device, VFIO_DEVICE_SET_IRQS, &set))
		return abb_err(-errno, "vfio: unmasking INTx of %s: %s", v->bdf, strerror(errno));
	return 0;
}

int vfio_irq_unmask(abb_dev *dev)
{
	struct vfio *v = V(dev);
	int rc = 0;

	if (v->irq_mode != IRQ_MODE_INTX)
		return 0;
	pthread_mutex_lock(&v->lock);
	drain(v);
	rc = unmask_locked(v);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

uint64_t vfio_irq_count(abb_dev *dev)
{
	struct vfio *v = V(dev);
	uint64_t n;

	pthread_mutex_lock(&v->lock);
	if (v->irq_fd >= 0)
		drain(v);
	n = v->irqs;
	pthread_mutex_unlock(&v->lock);
	return n;
}

int vfio_irq_check(abb_dev *dev)
{
	struct vfio *v = V(dev);

	if (v->irq_fd < 0)
		return abb_err(-ENOTSUP, "vfio: neither MSI nor INTx could be set up for %s; use "
			       "polling (no ABB_DMA_IRQ)", v->bdf);
	return 0;
}

int vfio_irq_wait(abb_dev *dev, uint64_t *seen, int64_t timeout_ns)
{
	struct vfio *v = V(dev);
	uint64_t start = vfio_mono_ns(v);

	if (v->irq_fd < 0)
		return vfio_irq_check(dev);
	for (;;) {
		struct pollfd pfd = {.fd = v->irq_fd, .events = POLLIN};
		int64_t slice = VFIO_IRQ_SLICE_NS;
		struct timespec ts;
		uint64_t n;

		pthread_mutex_lock(&v->lock);
		drain(v);
		n = v->irqs;
		/* A line that fired stays masked until its source is cleared;
		 * a waiter that saw nothing new sleeps with it unmasked, so an
		 * interrupt for it can come (a spurious one is rechecked). */
		if (n <= *seen && v->masked)
			unmask_locked(v);
		pthread_mutex_unlock(&v->lock);
		if (n > *seen) {
			*seen = n;
			return 0;
		}
		if (timeout_ns >= 0) {
			int64_t left = timeout_ns - (int64_t)(vfio_mono_ns(v) - start);

			if (left <= 0)
				return abb_err(-ETIMEDOUT, "no interrupt within %lld ns",
					       (long long)timeout_ns);
			if (left < slice)
				slice = left;
		}
		/* Another waiter may drain the eventfd first: hence the slice. */
		ts.tv_sec = (time_t)(slice / 1000000000);
		ts.tv_nsec = (long)(slice % 1000000000);
		v->sys.poll(&pfd, 1, &ts);
	}
}

const char *abb_vfio_irq_mode(const abb_dev *dev)
{
	if (!dev || dev->be != &abb_backend_vfio || !dev->be_priv)
		return NULL;
	switch (V(dev)->irq_mode) {
	case IRQ_MODE_MSI:
		return "MSI";
	case IRQ_MODE_INTX:
		return "INTx";
	default:
		return "none";
	}
}
