/*
 * vfio_emu_board.c - the emulated VFIO kernel's device: the simulator
 * (libabbsim.so, loaded by the simulator's one loader, sim/abbsim_loader.c), its
 * reset, its IOMMU and its interrupts as vfio-pci delivers them (MSI: every
 * interrupt signals the eventfd; INTx: signalled once, then masked until
 * the unmask, which signals again while the line is asserted).
 */
#define _GNU_SOURCE
#include "vfio_emu_priv.h"

#include <abb/abb_sim.h>

#include <errno.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct abbsim_api emu_simlib;

/* The simulator the sim backend would load in the build tree, or the
 * option sim_lib (ABB_SIM_LIB). */
int emu_load_sim(void)
{
	abb_sim_config *c = NULL;
	char msg[1024];
	int rc;

	if (emu_sim.handle)
		return 0;
	rc = abb_sim_config_new(&c, NULL);
	if (rc) {
		fprintf(stderr, "vfio_emu: %s\n", abb_last_error());
		return rc;
	}
	rc = abbsim_api_load(*abb_sim_config_lib(c) ? abb_sim_config_lib(c) :
			     TB_BUILD_DIR "/sim/libabbsim.so", RTLD_NOW | RTLD_LOCAL, &emu_sim, msg,
			     sizeof msg);
	abb_sim_config_free(c);
	if (rc)
		fprintf(stderr, "vfio_emu: %s\n", msg);
	return rc;
}

int emu_sim_map(const struct emap *m)
{
	unsigned f = (m->flags & VFIO_DMA_MAP_FLAG_READ ? ABBSIM_DMA_READ : 0) |
		     (m->flags & VFIO_DMA_MAP_FLAG_WRITE ? ABBSIM_DMA_WRITE : 0);

	if (!emu.sim_open)
		return 0;
	return emu_sim.iommu_map_at((void *)(uintptr_t)m->vaddr, m->size, m->iova, f);
}

void emu_sim_unmap(const struct emap *m)
{
	if (!emu.sim_open)
		return;
	emu_sim.iommu_unmap_iova(m->iova, m->size);
}

static uint64_t bar_size(unsigned bar)
{
	uint32_t cmd, orig, probe;

	if (bar == 1) {
		union {
			struct abbsim_params p;
			char room[sizeof(struct abbsim_params) + 256];
		} u;

		return emu_sim.get_params(&u.p) ? 0 : u.p.mem_bytes;
	}
	if (emu_sim.cfg_read(ABBSIM_CFG_COMMAND, 2, &cmd) || emu_sim.cfg_read(ABBSIM_CFG_BAR0, 4, &orig))
		return 0;
	emu_sim.cfg_write(ABBSIM_CFG_COMMAND, 2, cmd & ~ABBSIM_CMD_MEM);
	emu_sim.cfg_write(ABBSIM_CFG_BAR0, 4, 0xffffffffu);
	if (emu_sim.cfg_read(ABBSIM_CFG_BAR0, 4, &probe))
		probe = 0;
	emu_sim.cfg_write(ABBSIM_CFG_BAR0, 4, orig);
	emu_sim.cfg_write(ABBSIM_CFG_COMMAND, 2, cmd);
	probe &= ~ABBSIM_BAR_FLAGS;
	return probe ? (uint64_t)(uint32_t)(~probe + 1u) : 0;
}

/* Opens (or hot-resets) the simulated board and maps the container's
 * mappings into its IOMMU again. Lock held. */
int emu_board_open(void)
{
	/* room for the fields a newer simulator appends to its parameters */
	union {
		struct abbsim_params p;
		char room[sizeof(struct abbsim_params) + 256];
	} u;
	struct abbsim_params *pp = &u.p;
	abb_sim_config *c = NULL;
	int rc;

	if (emu.sim_open) {
		emu_sim.close();
		emu.sim_open = 0;
	}
	memset(&u, 0, sizeof u);
	/* the options of the sim backend (ABB_SIM_*, ABB_TRACE*), its parser */
	rc = abb_sim_config_new(&c, NULL);
	if (rc) {
		fprintf(stderr, "vfio_emu: %s\n", abb_last_error());
		return rc;
	}
	*pp = *abb_sim_config_params(c);
	rc = emu_sim.open(pp, abb_sim_config_record(c));
	abb_sim_config_free(c);
	if (rc) {
		fprintf(stderr, "vfio_emu: abbsim_open: %s\n", emu_sim.last_error());
		return rc;
	}
	emu.sim_open = 1;
	emu.bar_size[0] = bar_size(0);
	emu.bar_size[1] = bar_size(1);
	emu.irq_seen = emu_sim.irq_count();
	emu.masked = 0;
	for (int i = 0; i < MAX_MAPS; i++)
		if (emu.maps[i].used && (rc = emu_sim_map(&emu.maps[i])) != 0)
			return rc;
	return 0;
}

void emu_board_close(void)
{
	if (emu.sim_open)
		emu_sim.close();
	emu.sim_open = 0;
}

static int has_msi_cap(void)
{
	uint32_t status, ptr, id;

	if (!emu.sim_open || emu_sim.cfg_read(ABBSIM_CFG_STATUS, 2, &status) || !(status & ABBSIM_STATUS_CAP_LIST))
		return 0;
	if (emu_sim.cfg_read(ABBSIM_CFG_CAP_PTR, 1, &ptr))
		return 0;
	for (int hops = 0; ptr >= 0x40 && hops < 48; hops++) {
		if (emu_sim.cfg_read(ptr, 1, &id))
			return 0;
		if (id == ABBSIM_CAP_ID_MSI)
			return 1;
		if (emu_sim.cfg_read(ptr + ABBSIM_CAP_NEXT, 1, &ptr))
			return 0;
		ptr &= 0xfc;
	}
	return 0;
}

int emu_irq_count_of(unsigned index)
{
	uint32_t pin = 0;

	if (index == VFIO_PCI_MSI_IRQ_INDEX)
		return !emu.o.no_msi && has_msi_cap();
	if (index == VFIO_PCI_INTX_IRQ_INDEX)
		return !emu.o.no_intx && emu.sim_open && emu_sim.cfg_read(ABBSIM_CFG_INT_PIN, 1, &pin) == 0 && pin;
	return 0;
}

static void signal_efd(void)
{
	uint64_t one = 1;

	if (write(emu.irq_efd, &one, sizeof one) != sizeof one)
		emu.st.rule_errors++;
}

/* The kernel's interrupt handler: delivers the simulator's new interrupts
 * to the eventfd (INTx: once, then masked). Lock held. */
void emu_service(void)
{
	uint64_t now;

	if (!emu.sim_open)
		return;
	now = emu_sim.irq_count();
	if (now <= emu.irq_seen)
		return;
	emu.irq_seen = now;
	if (emu.irq_index == VFIO_PCI_MSI_IRQ_INDEX) {
		signal_efd();
		emu.st.msi_signals++;
	} else if (emu.irq_index == VFIO_PCI_INTX_IRQ_INDEX) {
		if (emu.masked)
			return; /* the unmask looks at the line */
		signal_efd();
		emu.masked = 1;
		emu.st.intx_signals++;
		emu.st.intx_masked++;
	}
}

/* Command.Interrupt Disable (bit 10) of the board: cleared while INTx has
 * an eventfd (as vfio-pci enables the line), set otherwise. The kernel's
 * automask is modelled as masking at the interrupt controller (the board
 * keeps asserting; the unmask looks at the line). Lock held. */
void emu_intx_enable(int on)
{
	uint32_t cmd;

	if (!emu.sim_open || emu_sim.cfg_read(ABBSIM_CFG_COMMAND, 2, &cmd))
		return;
	cmd = on ? cmd & ~ABBSIM_CMD_INTX_DISABLE : cmd | ABBSIM_CMD_INTX_DISABLE;
	emu_sim.cfg_write(ABBSIM_CFG_COMMAND, 2, cmd);
}

void emu_irq_off(void)
{
	if (emu.irq_index == VFIO_PCI_INTX_IRQ_INDEX)
		emu_intx_enable(0);
	emu.irq_index = -1;
	emu.irq_efd = -1;
}

/* INTx: the kernel's unmask; the line fires again at once if the board
 * still asserts it. Lock held. */
void emu_intx_unmask(void)
{
	emu.st.unmasks++;
	emu_service(); /* what came before the unmask */
	emu.masked = 0;
	if (emu.irq_index == VFIO_PCI_INTX_IRQ_INDEX && emu_sim.intx_asserted()) {
		signal_efd();
		emu.masked = 1;
		emu.st.intx_signals++;
		emu.st.intx_masked++;
	}
}

