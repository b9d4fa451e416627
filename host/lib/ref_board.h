/*
 * ref_board.h - the timed reference model's board side beyond the engine
 * (board profile abb2008, doc/board-profile.md): the on-board DDR2 buffer's
 * timing behind BAR1 and its arbiter (rtl-model/abb_ddr2_arb.sv, ported
 * cycle by cycle: read-ahead bursts, one read outstanding, the read
 * latency, row changes, write turnaround, writes of the downstream DMA and
 * the link-input stream in the read latency's gaps) and the endpoint's
 * limits on outstanding DMA-write reads (abb_top.sv ep_lim). The root
 * complex's rc_reads is the platform's (ref_timing.c rc_dma_read).
 *
 * The engine (ref_engine.c) tells the arbiter its inputs as the RTL's
 * abb_top wires them: rd_active_i (the upstream mover busy), rd_take_i (a
 * TLP of the mover started), wr_dw_i (completion data the downstream mover
 * writes, beat by beat), link_en_i (EVS_CTRL.ENABLE), and asks rd_wait_o
 * (a TLP of the upstream mover starts only once a Max_Payload_Size is read
 * ahead). Every input is given before the edges it applies to: a change
 * made at edge n applies from edge n+1 (a flop's output), a take at edge n
 * at n (combinational, as rd_take_i); rt_board_edge(n) at the start of
 * the engine's edge n runs the arbiter through edge n-1.
 *
 * Off (ddr=0: board_cfg_i[0] = 0) every call returns at once and nothing
 * waits, as the RTL's arbiter does nothing then.
 */
#ifndef ABB_REF_BOARD_H
#define ABB_REF_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abbsim.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

struct rt_board;

/* The simulator's checks of the board parameters that depend on the clock
 * (sim/params.cpp abbsim_params_check): 0 or -EINVAL with msg. */
int rt_board_check(const struct abbsim_params *p, unsigned mhz, char *msg, size_t n);

/* p checked; mhz the user clock. NULL if out of memory. */
struct rt_board *rt_board_create(const struct abbsim_params *p, unsigned mhz);
void rt_board_destroy(struct rt_board *b);

/* abb_top.sv: the tag limit the downstream mover sees (MRD_CR's lim, 0:
 * none) lowered by the endpoint's ep_reads and ep_rx / MRRS. */
unsigned rt_board_tag_limit(const struct rt_board *b, unsigned lim);

/* The engine's edge n begins: the arbiter runs through edge n-1. */
void rt_board_edge(struct rt_board *b, uint64_t n);
/* the arbiter is on (ddr != 0): off, every call returns at once */
bool rt_board_on(const struct rt_board *b);
/* rd_active_i from edge n+1 on (the mover started or finished at edge n) */
void rt_board_rd_active(struct rt_board *b, uint64_t n, bool on);
/* link_en_i from edge n+1 on (EVS_CTRL written at edge n) */
void rt_board_link(struct rt_board *b, uint64_t n, bool on);
/* rd_take_i at edge n (a TLP of the upstream mover started) */
void rt_board_take(struct rt_board *b, uint64_t n);
/* wr_dw_i: a completion's payload of ndw DWs at RX's beats from edge
 * first on (two DWs a beat; inc 0: one DW a beat stays, abb_h2c_mover.sv
 * mem_we_o 2'b10). Given in time order. */
void rt_board_write(struct rt_board *b, uint64_t first, unsigned ndw, bool inc);
/* The first edge from x on at which rd_wait_o is low (as far as the
 * inputs given so far say; RT_NEVER if the mover is not busy by then). */
uint64_t rt_board_rd_ready(struct rt_board *b, uint64_t x);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
