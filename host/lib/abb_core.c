/*
 * abb_core.c - opening a board, choosing the backend, register and PIO
 * access, interrupts and device time.
 *
 * Every public function checks its arguments completely before the first
 * backend call, so a rejected call has touched no hardware.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abb_priv.h"

/* Backends by URI scheme; the first is the default. */
static const struct abb_backend *const abb_backends[] = {
	&abb_backend_sim,
	&abb_backend_vfio,
	&abb_backend_model,
};

#define ABB_URI_FORMS "\"sim\", \"sim:key=val,...\", \"vfio\", \"vfio:DDDD:BB:DD.F\", " \
		      "\"model\" or \"model:mem_size=N\""

static int find_backend(const char *uri, const struct abb_backend **be, const char **args)
{
	size_t n = strcspn(uri, ":");

	for (size_t i = 0; i < sizeof abb_backends / sizeof abb_backends[0]; i++) {
		const char *name = abb_backends[i]->name;

		if (strlen(name) == n && strncmp(uri, name, n) == 0) {
			*be = abb_backends[i];
			*args = uri[n] == ':' ? uri + n + 1 : NULL;
			return 0;
		}
	}
	return abb_err(-EINVAL, "abb_open: unknown device URI \"%s\"; use " ABB_URI_FORMS
		       " (or set ABB_DEVICE to one of them)", uri);
}

int abb_rd(abb_dev *dev, uint32_t off, uint32_t *val)
{
	return dev->be->reg_read(dev, off, val);
}

int abb_wr(abb_dev *dev, uint32_t off, uint32_t val)
{
	return dev->be->reg_write(dev, off, val);
}

int abb_open(abb_dev **devp, const char *uri)
{
	const struct abb_backend *be = NULL;
	const char *args = NULL;
	abb_dev *dev;
	uint32_t version;
	int rc;

	if (!devp)
		return abb_err(-EINVAL, "abb_open: dev is NULL; pass the address of an abb_dev pointer");
	*devp = NULL;
	if (!uri) {
		uri = getenv("ABB_DEVICE");
		if (!uri || !*uri)
			uri = "sim";
	}
	rc = find_backend(uri, &be, &args);
	if (rc)
		return rc;

	dev = calloc(1, sizeof *dev);
	if (!dev)
		return abb_err(-ENOMEM, "abb_open: out of memory");
	dev->be = be;
	pthread_mutex_init(&dev->irq_lock, NULL);
	abb_dma_init(dev);

	rc = be->open(dev, args);
	if (rc) {
		abb_err_prefix(rc, "abb_open");
		goto fail_free;
	}
	if (dev->bar0_size < ABB_REG_IGEN_DEASSERT + 4 || dev->bar1_size == 0) {
		rc = abb_err(-ENXIO, "abb_open(%s): BAR0 (%zu bytes) or BAR1 (%zu bytes) too small "
			     "for an ABB", uri, dev->bar0_size, dev->bar1_size);
		goto fail_close;
	}
	rc = abb_rd(dev, ABB_REG_VERSION, &version);
	if (rc) {
		abb_err_prefix(rc, "abb_open: reading VERSION");
		goto fail_close;
	}
	if (version != ABB_VERSION_ID) {
		rc = abb_err(-ENXIO, "abb_open(%s): VERSION reads 0x%08x, expected 0x%08x: not an "
			     "ABB or an incompatible firmware", uri, version, ABB_VERSION_ID);
		goto fail_close;
	}
	rc = abb_dma_reset_all(dev);
	if (rc) {
		abb_err_prefix(rc, "abb_open: resetting the DMA channels");
		goto fail_close;
	}
	*devp = dev;
	return 0;

fail_close:
	abb_dma_fini(dev);
	be->close(dev);
	goto fail_destroy;
fail_free:
	abb_dma_fini(dev);
fail_destroy:
	pthread_mutex_destroy(&dev->irq_lock);
	free(dev);
	return rc;
}

void abb_close(abb_dev *dev)
{
	if (!dev)
		return;
	abb_dma_fini(dev);
	if (dev->be->quiesce) /* no DMA, no interrupt before buffers go away */
		dev->be->quiesce(dev);
	abb_dmabuf_close_all(dev);
	dev->be->close(dev);
	pthread_mutex_destroy(&dev->irq_lock);
	free(dev);
}

const char *abb_backend(const abb_dev *dev)
{
	return dev ? dev->be->name : "none";
}

int abb_reg_read(abb_dev *dev, uint32_t off, uint32_t *val)
{
	if (!dev || !val)
		return abb_err(-EINVAL, "abb_reg_read: %s is NULL", dev ? "val" : "dev");
	if (off % 4)
		return abb_err(-EINVAL, "abb_reg_read: offset 0x%x is not a multiple of 4; "
			       "registers are 32-bit words", off);
	if ((size_t)off + 4 > dev->bar0_size)
		return abb_err(-EINVAL, "abb_reg_read: offset 0x%x is past BAR0 (%zu bytes)", off,
			       dev->bar0_size);
	return abb_rd(dev, off, val);
}

int abb_reg_write(abb_dev *dev, uint32_t off, uint32_t val)
{
	if (!dev)
		return abb_err(-EINVAL, "abb_reg_write: dev is NULL");
	if (off % 4)
		return abb_err(-EINVAL, "abb_reg_write: offset 0x%x is not a multiple of 4; "
			       "registers are 32-bit words", off);
	if ((size_t)off + 4 > dev->bar0_size)
		return abb_err(-EINVAL, "abb_reg_write: offset 0x%x is past BAR0 (%zu bytes)", off,
			       dev->bar0_size);
	return abb_wr(dev, off, val);
}

static int check_pio(const char *fn, abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	if (!dev || !buf)
		return abb_err(-EINVAL, "%s: %s is NULL", fn, dev ? "buf" : "dev");
	if (len == 0)
		return abb_err(-EINVAL, "%s: len is 0", fn);
	if (off >= dev->bar1_size || len > dev->bar1_size - off)
		return abb_err(-EINVAL, "%s: range 0x%x + %zu is past the end of BAR1 (%zu bytes)",
			       fn, off, len, dev->bar1_size);
	return 0;
}

int abb_mem_read(abb_dev *dev, uint32_t off, void *buf, size_t len)
{
	int rc = check_pio("abb_mem_read", dev, off, buf, len);

	return rc ? rc : dev->be->mem_read(dev, off, buf, len);
}

int abb_mem_write(abb_dev *dev, uint32_t off, const void *buf, size_t len)
{
	int rc = check_pio("abb_mem_write", dev, off, buf, len);

	return rc ? rc : dev->be->mem_write(dev, off, buf, len);
}

int abb_mem_size(abb_dev *dev, size_t *size)
{
	if (!dev || !size)
		return abb_err(-EINVAL, "abb_mem_size: %s is NULL", dev ? "size" : "dev");
	*size = dev->bar1_size;
	return 0;
}

int abb_time_ns(abb_dev *dev, uint64_t *ns)
{
	if (!dev || !ns)
		return abb_err(-EINVAL, "abb_time_ns: %s is NULL", dev ? "ns" : "dev");
	return dev->be->now_ns(dev, ns);
}

/* IER read-modify-write of the given bits only; *was gets the old value. */
static int ier_update(abb_dev *dev, uint32_t set, uint32_t clear, uint32_t *was)
{
	uint32_t ier;
	int rc;

	pthread_mutex_lock(&dev->irq_lock);
	rc = abb_rd(dev, ABB_REG_IER, &ier);
	if (!rc) {
		if (was)
			*was = ier;
		rc = abb_wr(dev, ABB_REG_IER, (ier | set) & ~clear);
	}
	pthread_mutex_unlock(&dev->irq_lock);
	return rc;
}

int abb_ier_set(abb_dev *dev, uint32_t bits, uint32_t *was)
{
	return ier_update(dev, bits, 0, was);
}

int abb_ier_clear(abb_dev *dev, uint32_t bits)
{
	return ier_update(dev, 0, bits, NULL);
}

int abb_irq_wait(abb_dev *dev, unsigned source, int64_t timeout_ns)
{
	const uint32_t all = ABB_ISR_C2H | ABB_ISR_H2C | ABB_ISR_IGEN;
	uint64_t seen, start, now;
	uint32_t was, isr, fired;
	int rc;

	if (!dev)
		return abb_err(-EINVAL, "abb_irq_wait: dev is NULL");
	if (source == 0 || (source & ~all))
		return abb_err(-EINVAL, "abb_irq_wait: source 0x%x is not a non-empty set of "
			       "ABB_IRQ_DMA_READ|ABB_IRQ_DMA_WRITE|ABB_IRQ_GEN", source);
	if (dev->be->irq_check && (rc = dev->be->irq_check(dev)) != 0)
		return abb_err_prefix(rc, "abb_irq_wait");

	/* Count first, then enable: an MSI for the enabled bits after this
	 * point always ends the wait below. */
	seen = dev->be->irq_count(dev);
	rc = dev->be->now_ns(dev, &start);
	if (rc)
		return rc;
	rc = abb_ier_set(dev, source, &was);
	if (rc)
		return rc;
	for (;;) {
		int64_t left = -1;

		rc = abb_rd(dev, ABB_REG_ISR, &isr);
		if (rc)
			break;
		fired = isr & source;
		if (fired) {
			rc = abb_wr(dev, ABB_REG_ISR, fired);
			if (!rc)
				rc = abb_ier_clear(dev, fired);
			return rc ? rc : (int)fired;
		}
		if (timeout_ns >= 0) {
			rc = dev->be->now_ns(dev, &now);
			if (rc)
				break;
			left = timeout_ns - (int64_t)(now - start);
			if (left <= 0) {
				rc = abb_err(-ETIMEDOUT, "abb_irq_wait: no interrupt from source 0x%x "
					     "within %lld ns (device time)", source,
					     (long long)timeout_ns);
				break;
			}
		}
		rc = dev->be->irq_wait(dev, &seen, left);
		if (rc && rc != -ETIMEDOUT)
			break;
	}
	/* Give back the enable bits this call set. */
	abb_ier_clear(dev, source & ~was);
	return rc;
}
