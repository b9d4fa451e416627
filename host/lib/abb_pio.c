/*
 * abb_pio.c - PIO as a CPU issues it (<abb/abb.h>, doc/pio.md): block
 * stores of a chosen width into BAR1, the flush, the mapping query. The
 * argument checks are here (rule 1 of abb.h: a rejected call stores
 * nothing); the backends' pio_store, pio_flush and pio_mapping do the rest.
 */
#include <errno.h>
#include <stdio.h>

#include "abb_priv.h"

/* 1, 2, 4, 8, 16, 32 or 64. */
static int width_ok(unsigned w)
{
	return w >= 1 && w <= 64 && (w & (w - 1)) == 0;
}

int abb_pio_write_block(abb_dev *dev, uint32_t off, const void *buf, size_t len,
			unsigned store_bytes)
{
	static const char fn[] = "abb_pio_write_block";
	int rc = abb_dev_check(fn, dev);

	if (rc)
		return rc;
	if (!width_ok(store_bytes))
		return abb_err(-EINVAL, "%s: store width %u bytes: accepted 1, 2, 4, 8, 16, 32 or 64",
			       fn, store_bytes);
	if (!buf)
		return abb_err(-EINVAL, "%s: buf is NULL", fn);
	if (len == 0)
		return abb_err(-EINVAL, "%s: len is 0", fn);
	if (off % store_bytes)
		return abb_err(-EINVAL, "%s: offset 0x%x is not aligned to the %u-byte stores "
			       "(a CPU's store of that width is naturally aligned)", fn, off,
			       store_bytes);
	if (len % store_bytes)
		return abb_err(-EINVAL, "%s: len %zu is not a whole number of %u-byte stores", fn,
			       len, store_bytes);
	/* off < size first: off + len cannot wrap then */
	if (off >= dev->bar1_size || len > dev->bar1_size - off)
		return abb_err(-EINVAL, "%s: range 0x%x + %zu is past the end of BAR1 (%zu bytes)",
			       fn, off, len, dev->bar1_size);
	if ((rc = abb_pio_enter(fn, dev)) != 0)
		return rc;
	rc = dev->be->pio_store(dev, off, buf, len, store_bytes);
	abb_pio_leave(dev);
	return rc;
}

int abb_pio_flush(abb_dev *dev)
{
	int rc = abb_dev_check("abb_pio_flush", dev);

	if (rc || (rc = abb_pio_enter("abb_pio_flush", dev)) != 0)
		return rc;
	rc = dev->be->pio_flush(dev);
	abb_pio_leave(dev);
	return rc;
}

int abb_pio_mapping(abb_dev *dev, char *why, size_t n)
{
	char line[256];
	int rc = abb_dev_check("abb_pio_mapping", dev);

	if (rc)
		return rc;
	if (why && n == 0)
		return abb_err(-EINVAL, "abb_pio_mapping: why given with size 0");
	if ((rc = abb_pio_enter("abb_pio_mapping", dev)) != 0)
		return rc;
	line[0] = 0;
	rc = dev->be->pio_mapping(dev, line, sizeof line);
	abb_pio_leave(dev);
	if (rc >= 0 && why)
		snprintf(why, n, "%s", line);
	return rc;
}
