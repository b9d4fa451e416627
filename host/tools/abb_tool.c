/*
 * abb_tool.c - look at and poke an ABB from the shell.
 *
 *   abb_tool [-d URI] info           backend, VERSION, BAR sizes, global and channel registers
 *   abb_tool [-d URI] reg OFF [VAL]  read (or write) the BAR0 register at byte offset OFF
 *   abb_tool [-d URI] mem OFF LEN    hex dump of LEN bytes of BAR1 at OFF (PIO)
 *   abb_tool find [DUMP | --root DIR] find ABBs on the PCI bus with libpci (what the vfio
 *                                    backend does), in PCI address order (board 0 first),
 *                                    in an `lspci -x` dump file, or under DIR/sys
 *   abb_tool doctor [URI] [--root DIR] [--buffer SIZE]
 *                                    check this machine for the board through VFIO
 *                                    and print the command that fixes each problem
 *                                    (doctor.c)
 *   abb_tool options [--markdown]    the simulator's and the model's options (variables,
 *                                    URI names, ranges, defaults)
 * URI as for abb_open(); default $ABB_DEVICE, else "sim". Numbers in C syntax.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "abb_vfio.h"
#include "doctor.h"

static int usage(void)
{
	fprintf(stderr, "usage: abb_tool [-d URI] info | reg OFF [VAL] | mem OFF LEN\n"
			"       abb_tool find [LSPCI_X_DUMP | --root DIR]\n"
			"       abb_tool doctor [URI] [--root DIR] [--buffer SIZE]\n"
			"       abb_tool options [--markdown]\n");
	return 2;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "abb_tool: %s: %s\n  %s\n", what, abb_strerror(rc), abb_last_error());
	return 1;
}

static int num(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *s && !*end ? 0 : -1;
}

/* How the board's interrupts reach the host: the vfio backend says what it
 * set up; on the simulator the config space tells (MSI Enable in the MSI
 * capability, else the INTx pin); the reference model has no link. */
static const char *irq_kind(abb_dev *dev)
{
	const char *mode = abb_vfio_irq_mode(dev);
	uint32_t v, cap;

	if (mode)
		return mode;
	if (abb_sim_cfg_read(dev, 0x34, 1, &cap) != 0)
		return "not a PCIe link (model)";
	for (int hops = 0; cap >= 0x40 && cap < 0x100 && hops < 48; hops++) {
		if (abb_sim_cfg_read(dev, cap, 4, &v) != 0)
			break;
		if ((v & 0xff) == 0x05) /* MSI capability: Message Control bit 0 */
			return (v >> 16) & 1 ? "MSI" : "INTx (MSI capability present, not enabled)";
		cap = (v >> 8) & 0xfc;
	}
	return abb_sim_cfg_read(dev, 0x3d, 1, &v) == 0 && v ? "INTx (legacy, pin A)" : "none";
}

static int info(abb_dev *dev)
{
	static const struct {
		const char *name;
		uint32_t off;
	} regs[] = {
		{"VERSION", ABB_REG_VERSION}, {"ISR", ABB_REG_ISR}, {"IER", ABB_REG_IER},
		{"GER", ABB_REG_GER}, {"GSR", ABB_REG_GSR}, {"GCR", ABB_REG_GCR},
		{"C2H STA (DMA read)", ABB_BLK_C2H + ABB_CH_STA},
		{"H2C STA (DMA write)", ABB_BLK_H2C + ABB_CH_STA},
	};
	size_t mem;
	int rc = abb_mem_size(dev, &mem);

	if (rc)
		return fail("BAR1 size", rc);
	printf("backend    %s\nBAR1       %zu bytes\ninterrupts %s\n", abb_backend(dev), mem,
	       irq_kind(dev));
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		uint32_t v;

		rc = abb_reg_read(dev, regs[i].off, &v);
		if (rc)
			return fail(regs[i].name, rc);
		printf("0x%04x %-20s 0x%08x\n", regs[i].off, regs[i].name, v);
	}
	return 0;
}

static int mem_dump(abb_dev *dev, unsigned long off, unsigned long len)
{
	unsigned char *b = malloc(len ? len : 1);
	int rc;

	if (!b)
		return fail("mem", -ENOMEM);
	rc = abb_mem_read(dev, (uint32_t)off, b, len);
	if (rc) {
		free(b);
		return fail("mem", rc);
	}
	for (unsigned long i = 0; i < len; i++)
		printf("%02x%s", b[i], i % 16 == 15 || i + 1 == len ? "\n" : " ");
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	const char *uri = NULL;
	unsigned long a, b;
	abb_dev *dev;
	int i = 1, rc, ret = 0;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		uri = argv[2];
		i = 3;
	}
	if (i >= argc)
		return usage();
	if (!strcmp(argv[i], "find")) {
		char bdfs[16][ABB_BDF_LEN], sys[4096];
		const char *dump = NULL, *root = NULL;

		if (argc == i + 3 && !strcmp(argv[i + 1], "--root")) {
			snprintf(sys, sizeof sys, "%s/sys", argv[i + 2]);
			root = sys;
		} else if (argc == i + 2) {
			dump = argv[i + 1];
		} else if (argc != i + 1) {
			return usage();
		}
		rc = abb_vfio_find_all(root, dump, bdfs, 16);
		if (rc < 0)
			return fail("find", rc);
		for (int k = 0; k < rc && k < 16; k++)
			printf("board %d: %s\n", k, bdfs[k]);
		printf("(%d ABB%s found)\n", rc, rc == 1 ? "" : "s");
		return 0;
	}
	if (!strcmp(argv[i], "doctor"))
		return abb_doctor(argc - i - 1, argv + i + 1, uri);

	if (!strcmp(argv[i], "options")) {
		int md = i + 1 < argc && !strcmp(argv[i + 1], "--markdown");

		if (argc > i + 1 + md)
			return usage();
		return abb_sim_options(stdout, md) ? 1 : 0;
	}

	rc = abb_open(&dev, uri);
	if (rc)
		return fail("open", rc);
	if (!strcmp(argv[i], "info") && argc == i + 1) {
		ret = info(dev);
	} else if (!strcmp(argv[i], "reg") && (argc == i + 2 || argc == i + 3) &&
		   !num(argv[i + 1], &a)) {
		uint32_t v;

		if (argc == i + 3) {
			if (num(argv[i + 2], &b))
				ret = usage();
			else if ((rc = abb_reg_write(dev, (uint32_t)a, (uint32_t)b)))
				ret = fail("reg write", rc);
		} else if ((rc = abb_reg_read(dev, (uint32_t)a, &v))) {
			ret = fail("reg read", rc);
		} else {
			printf("0x%08" PRIx32 "\n", v);
		}
	} else if (!strcmp(argv[i], "mem") && argc == i + 3 && !num(argv[i + 1], &a) &&
		   !num(argv[i + 2], &b)) {
		ret = mem_dump(dev, a, b);
	} else {
		ret = usage();
	}
	abb_close(dev);
	return ret;
}
