/*
 * abbsim_cfg.h - the simulated endpoint's PCI configuration space as it
 * presents itself: the header's registers, where each capability is, the
 * registers inside each capability and the bits of them that the
 * platform and its users read or write, the class code and the BAR0 size.
 *
 * The one description of the layout: sim/cfg_space.cpp builds the space
 * from it, sim/enumerate.cpp walks it with these names (it finds the
 * capabilities through the list, as Linux does, not at these offsets),
 * and the test bench reads and writes it by name (abb_sim_cfg_read /
 * abb_sim_cfg_write of <abb/abb_sim.h>) and builds its generated sysfs
 * config files with the same layout (testbench/tb_sysfs.c). The vendor
 * and device IDs are the register description's (ABB_VENDOR_ID,
 * ABB_DEVICE_ID of <abb/abb_regs.h>), used as subsystem IDs too.
 *
 * Part of the simulator's C interface, installed next to abbsim.h. Plain
 * C89/C++98, macros only (offsets are byte offsets in config space;
 * register offsets inside a capability are from its start).
 */
#ifndef ABBSIM_CFG_H
#define ABBSIM_CFG_H

/* Size of the config space (PCI Express: extended config space) */
#define ABBSIM_CFG_SIZE 4096u

/* ---- type 0 header ---- */
#define ABBSIM_CFG_VENDOR      0x00u /* 16 bits */
#define ABBSIM_CFG_DEVICE      0x02u /* 16 bits */
#define ABBSIM_CFG_COMMAND     0x04u /* 16 bits */
#define ABBSIM_CFG_STATUS      0x06u /* 16 bits */
#define ABBSIM_CFG_REVISION    0x08u /* 8 bits */
#define ABBSIM_CFG_CLASS       0x09u /* 24 bits: prog-if, subclass, class */
#define ABBSIM_CFG_CACHE_LINE  0x0cu
#define ABBSIM_CFG_HEADER_TYPE 0x0eu /* 8 bits: the layout, and bit 7 multi-function */
#define ABBSIM_CFG_BAR0        0x10u /* 32 bits each, 6 of them */
#define ABBSIM_CFG_BAR(i)      (ABBSIM_CFG_BAR0 + 4u * (i))
#define ABBSIM_CFG_SUBSYS_VENDOR 0x2cu
#define ABBSIM_CFG_SUBSYS      0x2eu
#define ABBSIM_CFG_CAP_PTR     0x34u /* 8 bits: the first capability */
#define ABBSIM_CFG_INT_LINE    0x3cu
#define ABBSIM_CFG_INT_PIN     0x3du /* 0 none, 1 INTA .. 4 INTD */

#define ABBSIM_HEADER_LAYOUT 0x7fu /* 0: type 0 (an endpoint) */

/* Command */
#define ABBSIM_CMD_IO           0x0001u
#define ABBSIM_CMD_MEM          0x0002u /* memory space decode */
#define ABBSIM_CMD_MASTER       0x0004u /* bus master enable */
#define ABBSIM_CMD_PARITY       0x0040u
#define ABBSIM_CMD_SERR         0x0100u
#define ABBSIM_CMD_INTX_DISABLE 0x0400u
/* Status */
#define ABBSIM_STATUS_INT      0x0008u /* Interrupt Status: the INTx level */
#define ABBSIM_STATUS_CAP_LIST 0x0010u
#define ABBSIM_STATUS_ERRORS   0xf900u /* the error bits, write 1 to clear */
/* BARs: the low 4 bits are flags (0: 32-bit memory, not prefetchable) */
#define ABBSIM_BAR_FLAGS 0xfu
#define ABBSIM_BAR_PREFETCH 0x8u /* BAR bit 3: prefetchable */
#define ABBSIM_BAR_IO    0x1u
#define ABBSIM_BAR_TYPE  0x6u /* memory BAR: 0 32-bit, ABBSIM_BAR_TYPE_64 */
#define ABBSIM_BAR_TYPE_64 0x4u

/* ---- capabilities: IDs, and where this endpoint has them ---- */
#define ABBSIM_CAP_ID_PM  0x01u
#define ABBSIM_CAP_ID_MSI 0x05u
#define ABBSIM_CAP_ID_EXP 0x10u
#define ABBSIM_CFG_PM  0x40u /* power management */
#define ABBSIM_CFG_MSI 0x50u /* MSI: only with the simulator's msi=1 */
#define ABBSIM_CFG_EXP 0x70u /* PCI Express */

/* In every capability */
#define ABBSIM_CAP_ID   0u /* 8 bits: the capability ID */
#define ABBSIM_CAP_NEXT 1u /* 8 bits: the next one (0: last) */

/* Power management */
#define ABBSIM_PM_PMC 2u /* capabilities, 16 bits */
#define ABBSIM_PM_CSR 4u /* control/status, 16 bits */
#define ABBSIM_PM_CSR_STATE         0x0003u /* D0..D3hot */
#define ABBSIM_PM_CSR_NO_SOFT_RESET 0x0008u

/* MSI (this endpoint's: 64-bit address, one vector) */
#define ABBSIM_MSI_CTRL    2u  /* message control, 16 bits */
#define ABBSIM_MSI_ADDR_LO 4u
#define ABBSIM_MSI_ADDR_HI 8u  /* with ABBSIM_MSI_CTRL_64BIT */
#define ABBSIM_MSI_DATA_32 8u  /* message data without ABBSIM_MSI_CTRL_64BIT */
#define ABBSIM_MSI_DATA_64 12u /* with it */
#define ABBSIM_MSI_CTRL_ENABLE 0x0001u
#define ABBSIM_MSI_CTRL_MME    0x0070u /* multiple message enable */
#define ABBSIM_MSI_CTRL_64BIT  0x0080u

/* PCI Express capability (version 2, endpoint) */
#define ABBSIM_EXP_FLAGS   2u  /* 16 bits */
#define ABBSIM_EXP_DEVCAP  4u  /* 32 bits */
#define ABBSIM_EXP_DEVCTL  8u  /* 16 bits */
#define ABBSIM_EXP_DEVSTA  10u /* 16 bits */
#define ABBSIM_EXP_LNKCAP  12u /* 32 bits */
#define ABBSIM_EXP_LNKCTL  16u /* 16 bits */
#define ABBSIM_EXP_LNKSTA  18u /* 16 bits */
#define ABBSIM_EXP_DEVCAP2 36u
#define ABBSIM_EXP_DEVCTL2 40u
#define ABBSIM_EXP_LNKCAP2 44u
#define ABBSIM_EXP_LNKCTL2 48u
/* Device Capabilities */
#define ABBSIM_EXP_DEVCAP_MPSS    0x00000007u /* max payload supported (size code) */
#define ABBSIM_EXP_DEVCAP_EXT_TAG 0x00000020u
/* Device Control: payload and read request sizes as codes 0 (128 B) .. 5
 * (4096 B); 6 and 7 are reserved */
#define ABBSIM_EXP_DEVCTL_MPS        0x00e0u
#define ABBSIM_EXP_DEVCTL_MPS_SHIFT  5
#define ABBSIM_EXP_DEVCTL_EXT_TAG    0x0100u
#define ABBSIM_EXP_DEVCTL_MRRS       0x7000u
#define ABBSIM_EXP_DEVCTL_MRRS_SHIFT 12
/* Device Status */
#define ABBSIM_EXP_DEVSTA_URD 0x0008u /* Unsupported Request Detected, write 1 to clear */
/* Link Capabilities and Link Status: speed (generation) and width */
#define ABBSIM_EXP_LNK_SPEED       0x000fu
#define ABBSIM_EXP_LNK_WIDTH       0x03f0u
#define ABBSIM_EXP_LNK_WIDTH_SHIFT 4
#define ABBSIM_EXP_LNKSTA_SLOT_CLK 0x1000u
/* Link Control */
#define ABBSIM_EXP_LNKCTL_RCB 0x0008u /* read completion boundary 128 bytes */

/* ---- what this endpoint presents ---- */
#define ABBSIM_CFG_REVISION_ID 0x01u
#define ABBSIM_CFG_CLASS_CODE  0x118000u /* data acquisition / other */
#define ABBSIM_CFG_BAR0_BYTES  0x10000u  /* BAR0, the registers: 64 KiB; BAR1 is the
					  * board memory (abb_sim_link_params' mem_size) */
#define ABBSIM_CFG_MPS_MAX     4096u     /* max payload in Device Capabilities: the
					  * RTL takes any MPS up to it */

#endif
