// abb_cover.sv - functional coverage points of the RTL (coverage build only).
//
// `make coverage` verilates this file with the RTL (--coverage); the RTL
// itself is unchanged: each checker module below is bound into the module it
// observes (bind ... (.*): its ports are that module's signals of the same
// name) and counts its points as `cover property`, reported by
// testbench/covreport.py as the functional points (v_user). Every point must
// be hit by the bench; the report lists those that are not.
//
// Encodings follow the observed module's enums (state_e, fstate_e), listed
// next to each point. Points per module:
//   dma_ctl   every state and prefetch state, each error path, reset while
//             running, drain keeping / dropping STA, shared-engine hold,
//             strict start over DONE, a prefetch above 4 GiB
//   c2h       every state, TLPs of exactly MPS for each MPS (128..4096), cut
//             at a 4 KiB boundary, the short last one, 4-DW headers, FIFO
//             drain and its wait, abort mid-transfer, a TLP's first beat held
//             (link buffer or credits, or another source sending)
//   h2c       every state, requests of exactly MRRS for each MRRS, cut at
//             4 KiB, tag exhaustion (all tags out; waiting for a free tag;
//             the MRD_CR limit), completions of different tags interleaved,
//             error completions, abort with reads outstanding, a chain's
//             early done, FIFO one-request mode
//   rx        every state, each TLP kind (MWr to BAR0 / BAR1, MRd, CplD, Cpl
//             without data), a completion cut at the RCB (64 / 128 B), a
//             malformed TLP (shorter or longer than its Length, unsupported)
//   pio_cpl   every state, UR, BAR1 reads of several beats and of MPS,
//             register reads
//
// Points left out because no input of the platform can reach them (the RTL
// handles them all the same; doc/coverage-and-mutation.md, "What is not covered"):
//   c2h: tx_ready low inside a TLP (the hard IP holds tx_ready high from a
//        TLP's first beat to its last; the RTL only waits at the first);
//   rx:  4-DW MRd/MWr headers (both BARs are 32-bit BARs, assigned below
//        4 GiB, and PCIe forbids 4-DW headers for addresses below 4 GiB);
//        a TLP of one beat (every header has 3 or 4 DWs: two beats; the
//        TRUNCATED fault only cuts payload);
//   pio_cpl: a zero-length read (the root complex model never sends one).
//   tx_arb    contention, posted hold (too few buffer credits), credit stall
//             (tx_ready low with a beat waiting)
//   regs      interrupt generator arm / fire / ack / reset, soft reset,
//             ISR/GER writes in strict and lenient mode, FIFO full and empty
//   evsrc     FIFO full (stall), clear, odd DW reads
//   top       both channels at once (controls and movers), each GER bit (with
//             the completion timeout and poisoned data),
//             each TLP kind sent (MRd 3/4-DW, MWr 3/4-DW, CplD, Cpl, none other)

/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDSIGNAL */  // a bound port takes the observed signal whole; a point looks at some of its bits

module abb_dma_ctl_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [2:0]  state_q,   // StIdle 0, StCheck 1, StRun 2, StNext 3, StDrain 4
  input logic [2:0]  fst_q,     // FIdle 0, FHdr0 1, FHdr1 2, FWait 3, FDone 4, FErr 5
  input logic        keep_q,
  input logic        hold_i,
  input logic        strict_i,
  input logic [1:0]  sta_q,
  input logic        start_o,
  input logic        reset_o,
  input logic        soft_reset_i,
  input logic        desc_err_o,
  input logic        cpl_err_o,
  input logic        bm_err_o,
  input logic        cpl_tag_err_o,
  input logic        fetch_o,
  input logic        hdr4,
  input logic        tx_valid_o,
  input logic        tx_ready_i
);
  st_idle:   cover property (@(posedge clk_i) rst_ni && state_q == 3'd0);
  st_check:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd1);
  st_run:    cover property (@(posedge clk_i) rst_ni && state_q == 3'd2);
  st_next:   cover property (@(posedge clk_i) rst_ni && state_q == 3'd3);
  st_drain:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd4);
  fst_idle:  cover property (@(posedge clk_i) rst_ni && fst_q == 3'd0);
  fst_hdr0:  cover property (@(posedge clk_i) rst_ni && fst_q == 3'd1);
  fst_hdr1:  cover property (@(posedge clk_i) rst_ni && fst_q == 3'd2);
  fst_wait:  cover property (@(posedge clk_i) rst_ni && fst_q == 3'd3);
  fst_done:  cover property (@(posedge clk_i) rst_ni && fst_q == 3'd4);
  fst_err:   cover property (@(posedge clk_i) rst_ni && fst_q == 3'd5);
  err_desc:  cover property (@(posedge clk_i) rst_ni && desc_err_o);
  err_cpl:   cover property (@(posedge clk_i) rst_ni && cpl_err_o);
  err_bm:    cover property (@(posedge clk_i) rst_ni && bm_err_o);
  err_tag:   cover property (@(posedge clk_i) rst_ni && cpl_tag_err_o);
  fetched:   cover property (@(posedge clk_i) rst_ni && fetch_o);
  reset_run: cover property (@(posedge clk_i) rst_ni && reset_o && state_q != 3'd0);
  soft_run:  cover property (@(posedge clk_i) rst_ni && soft_reset_i && state_q != 3'd0);
  drain_keep: cover property (@(posedge clk_i) rst_ni && state_q == 3'd4 && keep_q);
  drain_idle: cover property (@(posedge clk_i) rst_ni && state_q == 3'd4 && !keep_q);
  drain_fetch: cover property (@(posedge clk_i) rst_ni && state_q == 3'd4 && fst_q == 3'd3);
  hold:      cover property (@(posedge clk_i) rst_ni && state_q == 3'd1 && hold_i);
  strict_done: cover property (@(posedge clk_i) rst_ni && start_o && strict_i && sta_q == 2'b01);
  fetch_hdr4: cover property (@(posedge clk_i) rst_ni && tx_valid_o && tx_ready_i && fst_q == 3'd1 && hdr4);
endmodule

module abb_c2h_mover_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [1:0]  state_q,   // StIdle 0, StHdr0 1, StHdr1 2, StData 3
  input logic [10:0] chunk,
  input logic [10:0] mps_dw_i,
  input logic [63:0] ha_q,
  input logic [29:0] rem_q,
  input logic        tlp_o,
  input logic        hdr4,
  input logic        fifo_q,
  input logic        fifo_wait,
  input logic        stop,
  input logic        abort_i,
  input logic        tx_valid_o,
  input logic        tx_ready_i
);
  logic [10:0] to4k;
  assign to4k = 11'(12'd1024 - {2'b00, ha_q[11:2]});
  st_idle:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd0);
  st_hdr0:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd1);
  st_hdr1:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd2);
  st_data:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd3);
  mps128:   cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd32 && chunk == mps_dw_i);
  mps256:   cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd64 && chunk == mps_dw_i);
  mps512:   cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd128 && chunk == mps_dw_i);
  mps1024:  cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd256 && chunk == mps_dw_i);
  mps2048:  cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd512 && chunk == mps_dw_i);
  mps4096:  cover property (@(posedge clk_i) rst_ni && tlp_o && mps_dw_i == 11'd1024 && chunk == mps_dw_i);
  cut_4k:   cover property (@(posedge clk_i) rst_ni && tlp_o && chunk == to4k && to4k < mps_dw_i &&
                            30'(to4k) < rem_q);
  short_last: cover property (@(posedge clk_i) rst_ni && tlp_o && 30'(chunk) == rem_q && chunk < mps_dw_i);
  one_dw:   cover property (@(posedge clk_i) rst_ni && tlp_o && chunk == 11'd1);
  hdr_4dw:  cover property (@(posedge clk_i) rst_ni && tlp_o && hdr4);
  fifo:     cover property (@(posedge clk_i) rst_ni && tlp_o && fifo_q);
  fifo_waits: cover property (@(posedge clk_i) rst_ni && state_q == 2'd1 && fifo_wait && !stop);
  abort_mid: cover property (@(posedge clk_i) rst_ni && abort_i && state_q != 2'd0 && rem_q != 30'd0);
  hdr_held: cover property (@(posedge clk_i) rst_ni && state_q == 2'd1 && tx_valid_o && !tx_ready_i);
endmodule

module abb_h2c_mover_cov #(
  parameter int NumTags = 16
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic [1:0]         state_q,   // StIdle 0, StIssue 1, StReq1 2, StWait 3
  input logic [10:0]        chunk,
  input logic [10:0]        mrrs_dw_i,
  input logic [abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH-1:0] tag_limit_i,
  input logic [63:0]        ha_q,
  input logic [29:0]        rem_q,
  input logic               req_o,
  input logic               hdr4,
  input logic               inc_q,
  input logic               more_q,
  input logic               err_q,
  input logic               abort_i,
  input logic               free_any,
  input logic [NumTags-1:0] out_q,
  input logic               cpl_mine,
  input logic               cpl_ok,
  input logic [7:0]         cpl_tag_i,
  input logic [2:0]         cpl_status_i,
  input logic               done_o,
  input logic               err_o
);
  logic [10:0] to4k;
  logic [7:0]  last_tag_q;
  logic        last_open_q;
  assign to4k = 11'(12'd1024 - {2'b00, ha_q[11:2]});
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      last_tag_q  <= 8'h0;
      last_open_q <= 1'b0;
    end else if (cpl_ok) begin
      last_tag_q  <= cpl_tag_i;
      last_open_q <= out_q[cpl_tag_i[$clog2(NumTags)-1:0]];
    end
  end
  st_idle:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd0);
  st_issue: cover property (@(posedge clk_i) rst_ni && state_q == 2'd1);
  st_req1:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd2);
  st_wait:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd3);
  mrrs128:  cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd32 && chunk == mrrs_dw_i);
  mrrs256:  cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd64 && chunk == mrrs_dw_i);
  mrrs512:  cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd128 && chunk == mrrs_dw_i);
  mrrs1024: cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd256 && chunk == mrrs_dw_i);
  mrrs2048: cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd512 && chunk == mrrs_dw_i);
  mrrs4096: cover property (@(posedge clk_i) rst_ni && req_o && mrrs_dw_i == 11'd1024 && chunk == mrrs_dw_i);
  cut_4k:   cover property (@(posedge clk_i) rst_ni && req_o && chunk == to4k && to4k < mrrs_dw_i &&
                            30'(to4k) < rem_q);
  hdr_4dw:  cover property (@(posedge clk_i) rst_ni && req_o && hdr4);
  fifo_req: cover property (@(posedge clk_i) rst_ni && req_o && !inc_q);
  tags_all_out: cover property (@(posedge clk_i) rst_ni && &out_q);
  tag_wait: cover property (@(posedge clk_i) rst_ni && state_q == 2'd1 && !free_any && rem_q != 30'd0 &&
                            !abort_i && !err_q);
  tag_limit: cover property (@(posedge clk_i) rst_ni && state_q == 2'd1 && !free_any && inc_q &&
                             tag_limit_i != '0 && 6'(tag_limit_i) < 6'(NumTags));
  interleave: cover property (@(posedge clk_i) rst_ni && cpl_ok && last_open_q && cpl_tag_i != last_tag_q);
  cpl_error: cover property (@(posedge clk_i) rst_ni && cpl_mine && cpl_status_i != 3'b000);
  abort_out: cover property (@(posedge clk_i) rst_ni && abort_i && out_q != '0);
  chain_early_done: cover property (@(posedge clk_i) rst_ni && done_o && state_q == 2'd1 && more_q);
  done_err: cover property (@(posedge clk_i) rst_ni && done_o && err_o);
endmodule

module abb_rx_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [2:0]  state_q,   // StHdr0 0, StHdr1 1, StData 2, StRdReq 3, StDrop 4
  input logic        beat,
  input logic        rx_eop_i,
  input logic [63:0] rx_data_i,
  input logic [31:0] dw1_q,
  input logic [10:0] len_dw,
  input logic        bar_q,
  input logic        hdr4,
  input logic        is_mrd,
  input logic        is_mwr,
  input logic        is_cpl,
  input logic        is_cpld,
  input logic        bad_tlp_o,
  input logic        rd_ready_i
);
  logic        hdr1;
  logic [12:0] bytes, bcount, cpl_end;
  assign hdr1    = rst_ni && state_q == 3'd1 && beat;
  assign bytes   = {len_dw, 2'b00};
  assign bcount  = (dw1_q[11:0] == 12'd0) ? 13'd4096 : {1'b0, dw1_q[11:0]};
  assign cpl_end = {6'd0, rx_data_i[6:0]} + bytes;   // lower address + payload bytes
  st_hdr0:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd0);
  st_hdr1:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd1);
  st_data:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd2);
  st_rdreq: cover property (@(posedge clk_i) rst_ni && state_q == 3'd3);
  st_drop:  cover property (@(posedge clk_i) rst_ni && state_q == 3'd4);
  mwr_bar0: cover property (@(posedge clk_i) hdr1 && is_mwr && !bar_q && !rx_eop_i);
  mwr_bar1: cover property (@(posedge clk_i) hdr1 && is_mwr && bar_q && !rx_eop_i);
  mrd_3dw:  cover property (@(posedge clk_i) hdr1 && is_mrd && !hdr4);
  cpld:     cover property (@(posedge clk_i) hdr1 && is_cpld);
  cpl_nodata: cover property (@(posedge clk_i) hdr1 && is_cpl && rx_eop_i);
  cpl_partial: cover property (@(posedge clk_i) hdr1 && is_cpld && bcount > bytes);
  cpl_rcb64: cover property (@(posedge clk_i) hdr1 && is_cpld && bcount > bytes && cpl_end[5:0] == 6'd0 &&
                             cpl_end[6] == 1'b1);
  cpl_rcb128: cover property (@(posedge clk_i) hdr1 && is_cpld && bcount > bytes && cpl_end[6:0] == 7'd0);
  bad_kind: cover property (@(posedge clk_i) hdr1 && bad_tlp_o);
  bad_short: cover property (@(posedge clk_i) rst_ni && state_q == 3'd2 && beat && rx_eop_i && bad_tlp_o);
  bad_long: cover property (@(posedge clk_i) rst_ni && state_q == 3'd2 && beat && !rx_eop_i && bad_tlp_o);
  rd_stall: cover property (@(posedge clk_i) rst_ni && state_q == 3'd3 && !rd_ready_i);
endmodule

module abb_pio_cpl_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [1:0]  state_q,   // StIdle 0, StHdr0 1, StHdr1 2, StData 3
  input logic        rd_valid_i,
  input logic        rd_bar_i,
  input logic [10:0] rd_len_i,
  input logic [10:0] mps_dw_i,
  input logic        ur_o,
  input logic        tx_valid_o,
  input logic        tx_ready_i
);
  logic take;
  assign take = rst_ni && state_q == 2'd0 && rd_valid_i;
  st_idle:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd0);
  st_hdr0:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd1);
  st_hdr1:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd2);
  st_data:  cover property (@(posedge clk_i) rst_ni && state_q == 2'd3);
  ur:       cover property (@(posedge clk_i) rst_ni && ur_o);
  reg_read: cover property (@(posedge clk_i) take && !rd_bar_i && !ur_o);
  mem_1dw:  cover property (@(posedge clk_i) take && rd_bar_i && rd_len_i == 11'd1);
  mem_multi: cover property (@(posedge clk_i) take && rd_bar_i && rd_len_i > 11'd2 && !ur_o);
  mem_mps:  cover property (@(posedge clk_i) take && rd_bar_i && rd_len_i == mps_dw_i);
  backpressure: cover property (@(posedge clk_i) rst_ni && tx_valid_o && !tx_ready_i);
endmodule

module abb_tx_arb_cov #(
  parameter int N = 5
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic [N-1:0] src_valid_i,
  input logic [N-1:0] elig,
  input logic         locked_q,
  input logic         hold_posted_q,
  input logic         tx_valid_o,
  input logic         tx_ready_i
);
  contention:  cover property (@(posedge clk_i) rst_ni && !locked_q && $countones(elig) > 1);
  waits_lock:  cover property (@(posedge clk_i) rst_ni && locked_q && $countones(src_valid_i) > 1);
  posted_hold: cover property (@(posedge clk_i) rst_ni && hold_posted_q && (src_valid_i & ~elig) != '0);
  credit_stall: cover property (@(posedge clk_i) rst_ni && tx_valid_o && !tx_ready_i);
endmodule

module abb_regs_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        strict_i,
  input logic        we_i,
  input logic [15:0] waddr_i,
  input logic        ig_armed_q,
  input logic [abb_reg_pkg::REG_ISR_WIDTH-1:0] isr_q,
  input logic [abb_reg_pkg::REG_ISR_WIDTH-1:0] isr_d,
  input logic        soft_reset_o,
  input logic        txf_push,
  input logic        irq_o,
  input logic [31:0] ig_word
);
  ig_armed: cover property (@(posedge clk_i) rst_ni && ig_armed_q);
  ig_fire:  cover property (@(posedge clk_i) rst_ni && !isr_q[abb_reg_pkg::ISR_IGEN_SHIFT] &&
                            isr_d[abb_reg_pkg::ISR_IGEN_SHIFT] && ig_armed_q);
  ig_ack:   cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_IGEN_CTRL &&
                            ig_word == abb_reg_pkg::IGEN_ACK);
  ig_reset: cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_IGEN_CTRL &&
                            ig_word == abb_reg_pkg::IGEN_RESET);
  ig_rearm: cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_IGEN_CTRL &&
                            ig_word == abb_reg_pkg::IGEN_ARM && ig_armed_q);
  soft_reset: cover property (@(posedge clk_i) rst_ni && soft_reset_o);
  isr_w1c:  cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_ISR && !strict_i);
  isr_strict: cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_ISR && strict_i);
  ger_w1c:  cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_GER && !strict_i);
  ger_strict: cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_GER && strict_i);
  txf_full: cover property (@(posedge clk_i) rst_ni && we_i && waddr_i == abb_reg_pkg::REG_TXF_DATA && !txf_push);
  irq_level: cover property (@(posedge clk_i) rst_ni && irq_o);
endmodule

module abb_evsrc_cov (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       enable_i,
  input logic       clear_i,
  input logic       full,
  input logic [1:0] rd_dw_i,
  input logic       half_q
);
  full_stall: cover property (@(posedge clk_i) rst_ni && enable_i && full);
  cleared:    cover property (@(posedge clk_i) rst_ni && clear_i);
  odd_read:   cover property (@(posedge clk_i) rst_ni && rd_dw_i == 2'd1);
  half_head:  cover property (@(posedge clk_i) rst_ni && half_q && rd_dw_i == 2'd2);
endmodule

module abb_top_cov (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        c2h_busy,
  input logic        h2c_busy,
  input logic        c2h_mv_busy,
  input logic        h2c_mv_busy,
  input logic        c2h_hold,
  input logic        h2c_hold,
  input logic        cpl_unknown,
  input logic [abb_reg_pkg::REG_GER_WIDTH-1:0] ger_set,
  input logic        tx_valid_o,
  input logic        tx_ready_i,
  input logic        tx_sop_o,
  input logic [63:0] tx_data_o,
  input logic        idle_o
);
  logic       sent;
  logic [2:0] fmt;
  logic [4:0] typ;
  assign sent = rst_ni && tx_valid_o && tx_ready_i && tx_sop_o;
  assign fmt  = tx_data_o[31:29];
  assign typ  = tx_data_o[28:24];
  both_channels: cover property (@(posedge clk_i) rst_ni && c2h_busy && h2c_busy);
  both_movers:   cover property (@(posedge clk_i) rst_ni && c2h_mv_busy && h2c_mv_busy);
  c2h_held:      cover property (@(posedge clk_i) rst_ni && c2h_hold && c2h_busy);
  h2c_held:      cover property (@(posedge clk_i) rst_ni && h2c_hold && h2c_busy);
  cpl_unknown_tag: cover property (@(posedge clk_i) rst_ni && cpl_unknown);
  ger_cpl:   cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_CPL_ERR_SHIFT]);
  ger_desc:  cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_DESC_ERR_SHIFT]);
  ger_bm:    cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_BUS_MASTER_SHIFT]);
  ger_tlp:   cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_BAD_TLP_SHIFT]);
  ger_tag:   cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_CPL_TAG_SHIFT]);
  ger_timeout: cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_CPL_TIMEOUT_SHIFT]);
  ger_poison:  cover property (@(posedge clk_i) rst_ni && ger_set[abb_reg_pkg::GER_POISONED_SHIFT]);
  tx_mrd3:   cover property (@(posedge clk_i) sent && fmt == 3'b000 && typ == 5'b00000);
  tx_mrd4:   cover property (@(posedge clk_i) sent && fmt == 3'b001 && typ == 5'b00000);
  tx_mwr3:   cover property (@(posedge clk_i) sent && fmt == 3'b010 && typ == 5'b00000);
  tx_mwr4:   cover property (@(posedge clk_i) sent && fmt == 3'b011 && typ == 5'b00000);
  tx_cpld:   cover property (@(posedge clk_i) sent && fmt == 3'b010 && typ == 5'b01010);
  tx_cpl:    cover property (@(posedge clk_i) sent && fmt == 3'b000 && typ == 5'b01010);
  idle:      cover property (@(posedge clk_i) rst_ni && idle_o);
endmodule

bind abb_dma_ctl   abb_dma_ctl_cov   u_cov (.*);
bind abb_c2h_mover abb_c2h_mover_cov u_cov (.*);
bind abb_h2c_mover abb_h2c_mover_cov #(.NumTags(NumTags)) u_cov (.*);
bind abb_rx        abb_rx_cov        u_cov (.*);
bind abb_pio_cpl   abb_pio_cpl_cov   u_cov (.*);
bind abb_tx_arb    abb_tx_arb_cov    #(.N(N)) u_cov (.*);
bind abb_regs      abb_regs_cov      u_cov (.*);
bind abb_evsrc     abb_evsrc_cov     u_cov (.*);
bind abb_top       abb_top_cov       u_cov (.*);
