/*
 * abb_tool.c - look at and poke an ABB from the shell.
 *
 *   abb_tool [-d URI] info           backend, VERSION, BAR sizes, how BAR1 is mapped for PIO
 *                                    (UC or WC), global and channel registers
 *   abb_tool [-d URI] reg OFF [VAL]  read (or write) the BAR0 register at byte offset OFF
 *   abb_tool [-d URI] mem OFF LEN    hex dump of LEN bytes of BAR1 at OFF (PIO)
 *   abb_tool find [DUMP | --root DIR] find ABBs on the PCI bus with libpci (what the vfio
 *                                    backend does), in PCI address order (board 0 first),
 *                                    in an `lspci -x` dump file, or under DIR/sys
 *   abb_tool doctor [URI] [--root DIR] [--buffer SIZE]
 *                                    check this machine for the board through VFIO
 *                                    and print the command that fixes each problem
 *                                    (doctor.c)
 *   abb_tool options [--markdown]    the simulator's and the reference model's options (variables,
 *                                    URI names, ranges, defaults)
 * URI as for abb_open(); default $ABB_DEVICE, else "sim". Numbers decimal or
 * 0x hex (tool_args.h); OFF and VAL 32 bits, LEN with K/M/G. What the tool
 * cannot do (a bad number, an offset past the BAR) is refused with the
 * usage and exit status 2; a failure of the board exits 1.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abb/abb_vfio.h>

#include "doctor.h"
#include "tool_args.h"

static int usage(void)
{
	fprintf(stderr, "usage: abb_tool [-d URI] info | reg OFF [VAL] | mem OFF LEN\n"
			"       abb_tool find [LSPCI_X_DUMP | --root DIR]\n"
			"       abb_tool doctor [URI] [--root DIR] [--buffer SIZE]\n"
			"       abb_tool options [--markdown]\n");
	return 2;
}

/* A failed libabb call: -EINVAL is the caller's argument (an offset past
 * the BAR, not a multiple of 4): refused with the usage, status 2; any
 * other error is the board's, status 1. */
static int fail(const char *what, int rc)
{
	fprintf(stderr, "abb_tool: %s: %s\n  %s\n", what, abb_strerror(rc), abb_last_error());
	return rc == -EINVAL ? usage() : 1;
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
	char pio[256];
	int map = abb_pio_mapping(dev, pio, sizeof pio);

	printf("backend    %s\nBAR1       %zu bytes\ninterrupts %s\n", abb_backend(dev), mem,
	       irq_kind(dev));
	/* how the CPU's stores reach BAR1 (pio=uc|wc, doc/pio.md) */
	printf("PIO map    %s\n", map >= 0 ? pio : abb_last_error());
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		uint32_t v;

		rc = abb_reg_read(dev, regs[i].off, &v);
		if (rc)
			return fail(regs[i].name, rc);
		printf("0x%04x %-20s 0x%08x\n", regs[i].off, regs[i].name, v);
	}
	return 0;
}

static int mem_dump(abb_dev *dev, uint32_t off, size_t len)
{
	unsigned char *b;
	size_t mem;
	int rc = abb_mem_size(dev, &mem);

	if (rc)
		return fail("BAR1 size", rc);
	/* before the buffer: a length past BAR1 is refused, not allocated */
	if (off > mem || len > mem - off) {
		fprintf(stderr, "abb_tool: mem 0x%" PRIx32 " %zu: past the end of BAR1 (%zu bytes)\n",
			off, len, mem);
		return usage();
	}
	b = malloc(len);
	if (!b)
		return fail("mem", -ENOMEM);
	rc = abb_mem_read(dev, off, b, len);
	if (rc) {
		free(b);
		return fail("mem", rc);
	}
	for (size_t i = 0; i < len; i++)
		printf("%02x%s", b[i], i % 16 == 15 || i + 1 == len ? "\n" : " ");
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	const char *uri = NULL, *cmd;
	unsigned long long a = 0, b = 0;
	abb_dev *dev;
	int i = 1, rc, ret = 0, nargs;

	tool_begin(argv[0]);
	if (argc > 2 && !strcmp(argv[1], "-d")) {
		uri = argv[2];
		i = 3;
	}
	if (i >= argc)
		return usage();
	cmd = argv[i];
	nargs = argc - i - 1;
	if (!strcmp(cmd, "find")) {
		char bdfs[16][ABB_BDF_LEN], sys[4096];
		const char *dump = NULL, *root = NULL;

		if (nargs == 2 && !strcmp(argv[i + 1], "--root")) {
			snprintf(sys, sizeof sys, "%s/sys", argv[i + 2]);
			root = sys;
		} else if (nargs == 1 && argv[i + 1][0] != '-') {
			dump = argv[i + 1];
		} else if (nargs != 0) {
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
	if (!strcmp(cmd, "doctor"))
		return abb_doctor(nargs, argv + i + 1, uri);

	if (!strcmp(cmd, "options")) {
		int md = nargs > 0 && !strcmp(argv[i + 1], "--markdown");

		if (nargs > md)
			return usage();
		return abb_sim_options(stdout, md) ? 1 : 0;
	}

	/* the arguments first: nothing is opened for a command that is refused */
	if (!strcmp(cmd, "info")) {
		if (nargs != 0)
			return usage();
	} else if (!strcmp(cmd, "reg")) {
		if (nargs < 1 || nargs > 2 || tool_num("reg OFF", argv[i + 1], 0, UINT32_MAX, 0, &a) ||
		    (nargs == 2 && tool_num("reg VAL", argv[i + 2], 0, UINT32_MAX, 0, &b)))
			return usage();
	} else if (!strcmp(cmd, "mem")) {
		if (nargs != 2 || tool_num("mem OFF", argv[i + 1], 0, UINT32_MAX, 0, &a) ||
		    tool_num("mem LEN", argv[i + 2], 1, UINT32_MAX, TOOL_NUM_SIZE, &b))
			return usage();
	} else {
		fprintf(stderr, "abb_tool: no command \"%s\"\n", cmd);
		return usage();
	}

	rc = abb_open(&dev, uri);
	if (rc) {
		fprintf(stderr, "abb_tool: open: %s\n  %s\n", abb_strerror(rc), abb_last_error());
		return 1;
	}
	if (!strcmp(cmd, "info")) {
		ret = info(dev);
	} else if (!strcmp(cmd, "reg")) {
		uint32_t v;

		if (nargs == 2) {
			if ((rc = abb_reg_write(dev, (uint32_t)a, (uint32_t)b)))
				ret = fail("reg write", rc);
		} else if ((rc = abb_reg_read(dev, (uint32_t)a, &v))) {
			ret = fail("reg read", rc);
		} else {
			printf("0x%08" PRIx32 "\n", v);
		}
	} else {
		ret = mem_dump(dev, (uint32_t)a, (size_t)b);
	}
	abb_close(dev);
	return ret;
}
