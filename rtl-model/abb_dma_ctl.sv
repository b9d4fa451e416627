// abb_dma_ctl.sv - descriptor control of one DMA channel (either direction).
//
// Holds the channel's nine-register block (PAH..STA). A CTRL write with V
// (and not the RESET code) starts the channel with the descriptor in the
// registers; for a descriptor without LAST the engine fetches the next one
// from host memory at next_bda (one 32-byte memory read, tag FetchTag)
// while the current one's data moves (prefetch), so a chain of page-sized
// descriptors runs without a round trip between pieces. Each descriptor is
// checked before its data moves (see GER DESC_ERR in abb_regs.def); the data
// itself is moved by the direction's mover (abb_c2h_mover / abb_h2c_mover).
//
// Model-defined: a CTRL write while the channel is busy is ignored unless it
// is the RESET code; other block registers are read-only while busy and read
// the descriptor being executed. RESET waits for the mover to drain (no TLP
// is cut, every outstanding read is collected, a prefetch in flight too)
// before STA reads idle. An error ends the chain at once (STA error); a
// prefetch still in flight is collected before a new start is accepted.
// Lenient (model): a start clears DONE. Strict (strict_i): a start keeps a
// DONE left from the previous transfer (the channel then reads DONE|BUSY,
// an error, while it runs); only the channel reset clears it.

`include "abb_assert.svh"

module abb_dma_ctl
#(
  parameter logic [7:0] FetchTag = 8'h80, // tag of this channel's descriptor reads
  parameter int CplTimeoutCycles = 1 << 22 // descriptor fetch completion timeout, cycles
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        soft_reset_i,
  input  logic        strict_i,        // strict mode: a start does not clear DONE
  input  logic        cfg_bus_master_en_i,
  input  logic [15:0] cfg_req_id_i,
  input  logic [32:0] mem_bytes_i,     // BAR1 size in bytes
  input  logic        hold_i,          // shared engine: the other channel runs
  // register block access (offset inside the block, bytes)
  input  logic        we_i,
  input  logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] waddr_i,
  input  logic [31:0] wdata_i,
  input  logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] raddr_i,
  input  logic        rsample_i,       // rdata_o is taken now (abb_regs): it is 0 otherwise
  output logic [31:0] rdata_o,
  // descriptor fetch: TX source
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic        tx_sop_o,
  output logic        tx_eop_o,
  output logic [63:0] tx_data_o,
  input  logic        tx_sel_i,        // the arbiter shows this source's data (abb_tx_arb's
                                       // src_sel_o): tx_data_o is 0 otherwise
  // descriptor fetch: completion beats with tag FetchTag
  input  logic        cpl_valid_i,
  input  logic [2:0]  cpl_status_i,
  input  logic [1:0]  cpl_dw_i,
  input  logic [63:0] cpl_data_i,
  input  logic        cpl_last_i,
  input  logic        cpl_poison_i,    // the completion is poisoned (EP)
  // mover
  output logic        mv_start_o,      // pulse: move mv_len_o bytes
  output logic [31:0] mv_pa_o,         // board byte address
  output logic [63:0] mv_ha_o,         // host byte address
  output logic [31:0] mv_len_o,        // bytes
  output logic        mv_inc_o,        // increment the board address
  output logic        mv_more_o,       // another descriptor follows this one
  output logic        mv_abort_o,      // stop at the next safe point
  input  logic        mv_busy_i,
  input  logic        mv_done_i,       // pulse: finished (or aborted)
  input  logic        mv_err_i,        // with mv_done_i: a completion error
  // events
  output logic        busy_o,
  output logic        active_o,        // past the start check: holds a shared engine
  output logic        start_o,         // pulse: channel started
  output logic        reset_o,         // pulse: CTRL written with the RESET code
  output logic        irq_o,           // pulse: set this channel's ISR bit
  output logic        desc_err_o,      // pulse: invalid descriptor
  output logic        cpl_err_o,       // pulse: completion with error status
  output logic        bm_err_o,        // pulse: started without bus mastering
  output logic        cpl_tag_err_o,   // pulse: completion while no fetch waits
  output logic        poison_o,        // pulse: the fetch got a poisoned completion
  output logic        timeout_o,       // pulse: the fetch timed out
  output logic        fetch_o          // pulse: a descriptor was fetched
);

  typedef enum logic [2:0] {
    StIdle,
    StCheck,     // the registers hold a descriptor: check it, start the mover
    StRun,       // the mover runs (and the next descriptor is prefetched)
    StNext,      // the mover is done, the prefetch is not yet
    StDrain      // RESET or error: wait for the mover and the prefetch
  } state_e;

  // descriptor prefetch
  typedef enum logic [2:0] {
    FIdle,
    FHdr0,       // request header beats
    FHdr1,
    FWait,       // collecting the completion(s)
    FDone,       // nxt_q holds the next descriptor
    FErr         // the read failed (UR/CA)
  } fstate_e;

  state_e      state_q, state_d;
  fstate_e     fst_q, fst_d;
  // The block's descriptor registers and the prefetch buffer change only on
  // a host write while idle, when the prefetched descriptor is taken and per
  // fetched completion beat: flops with an enable (blk_we, take_nxt,
  // nxt_we), loaded only then. (Simulation speed: as x_q <= x_d with
  // x_d = x_q by default, the simulator copies all 16 words twice in every
  // cycle.)
  logic [31:0] pah_q, pal_q, hah_q, hal_q, bdah_q, bdal_q, leng_q, ctrl_q;
  logic [255:0] nxt_q;               // prefetched descriptor, DW k in [32*k +: 32]
  logic        blk_we, take_nxt, nxt_we;
  logic [1:0]  sta_q, sta_d;          // {BUSY, DONE}
  logic [31:0] pa_q, pa_d;            // board address the next descriptor continues at
  logic [3:0]  fdw_q, fdw_d;          // descriptor DWs received
  logic        keep_q, keep_d;        // StDrain keeps STA (an error), else idles it
  logic        fpois_q, fpois_d;      // the fetch got poisoned data
  localparam int TmoW = $clog2(CplTimeoutCycles + 1);
  logic [TmoW-1:0] tmo_q, tmo_d;      // cycles the fetch waits for a completion

  localparam logic [1:0] StaIdle = 2'b00, StaDone = 2'b01, StaBusy = 2'b10, StaErr = 2'b11;

  // the board address the descriptor starts at
  logic [31:0] pa_eff;
  assign pa_eff = (ctrl_q & abb_reg_pkg::CTRL_UPA) != 0 ? pal_q : pa_q;

  // its end (exclusive; a fixed-address transfer reads one DW)
  function automatic logic [32:0] desc_end(input logic [31:0] pa, input logic [31:0] ctrl,
                                           input logic [31:0] leng);
    desc_end = {1'b0, pa} + (((ctrl & abb_reg_pkg::CTRL_INC) != 0) ? {1'b0, leng} : 33'd4);
  endfunction

  // descriptor check (the registers hold the descriptor to execute); called
  // in StCheck only, so the simulator evaluates it there, not in every cycle
  function automatic logic desc_valid(input logic [31:0] ctrl, input logic [31:0] leng,
                                      input logic [1:0] hal, input logic [31:0] pah,
                                      input logic [31:0] pa, input logic [32:0] mem_bytes);
    desc_valid = ((ctrl & abb_reg_pkg::CTRL_V) != 0) && ((ctrl & abb_reg_pkg::CTRL_BAR) != 0) &&
                 (leng != 32'd0) && (leng[1:0] == 2'b00) && (hal == 2'b00) &&
                 (pa[1:0] == 2'b00) && (pah == 32'd0) && (desc_end(pa, ctrl, leng) <= mem_bytes);
  endfunction

  logic last, bda_ok;
  assign last   = (ctrl_q & abb_reg_pkg::CTRL_LAST) != 0;
  // next_bda aligned to the descriptor's size: its read never crosses 4 KiB
  assign bda_ok = (bdal_q & (abb_reg_pkg::DESC_BYTES - 32'd1)) == 32'd0;

  logic wr_ctrl, is_reset_code;
  assign wr_ctrl       = we_i && (waddr_i == abb_reg_pkg::CH_CTRL);
  assign is_reset_code = (wdata_i[abb_reg_pkg::CTRL_RESET_SHIFT +: abb_reg_pkg::CTRL_RESET_WIDTH] ==
                          abb_reg_pkg::CTRL_RESET_CODE[abb_reg_pkg::CTRL_RESET_WIDTH-1:0]);

  assign mv_pa_o  = pa_eff;
  assign mv_ha_o  = {hah_q, hal_q};
  assign mv_len_o = leng_q;
  assign mv_inc_o = (ctrl_q & abb_reg_pkg::CTRL_INC) != 0;
  assign mv_more_o = !last && bda_ok;
  assign busy_o   = (state_q != StIdle);
  assign active_o = (state_q != StIdle) && (state_q != StCheck);

  // prefetch request TLP: MRd of 8 DWs at next_bda (4-DW header above 4 GiB);
  // while draining no new request goes out, one half sent is finished
  logic hdr4;
  assign hdr4 = (bdah_q != 32'd0);
  assign tx_valid_o = (fst_q == FHdr0 && state_q != StDrain) || (fst_q == FHdr1);
  assign tx_sop_o   = (fst_q == FHdr0);
  assign tx_eop_o   = (fst_q == FHdr1);
  // (a default first, then the cases: so the simulator evaluates a header
  // function only in its case, not both ahead of a select)
  always_comb begin
    tx_data_o = 64'h0;
    if (tx_sel_i) begin
      if (fst_q == FHdr0) tx_data_o = abb_tlp_pkg::req_hdr0(cfg_req_id_i, FetchTag, 1'b0, hdr4, 11'd8);
      else                tx_data_o = abb_tlp_pkg::req_hdr1({bdah_q, bdal_q});
    end
  end

  // the register block's read data, evaluated only when it is taken
  always_comb begin
    rdata_o = 32'h0;
    if (rsample_i) unique case (raddr_i)
      abb_reg_pkg::CH_PAH:  rdata_o = pah_q;
      abb_reg_pkg::CH_PAL:  rdata_o = pal_q;
      abb_reg_pkg::CH_HAH:  rdata_o = hah_q;
      abb_reg_pkg::CH_HAL:  rdata_o = hal_q;
      abb_reg_pkg::CH_BDAH: rdata_o = bdah_q;
      abb_reg_pkg::CH_BDAL: rdata_o = bdal_q;
      abb_reg_pkg::CH_LENG: rdata_o = leng_q;
      abb_reg_pkg::CH_CTRL: rdata_o = ctrl_q;
      abb_reg_pkg::CH_STA: begin
        rdata_o[abb_reg_pkg::STA_DONE_SHIFT] = sta_q[0];
        rdata_o[abb_reg_pkg::STA_BUSY_SHIFT] = sta_q[1];
      end
      default:      rdata_o = 32'h0;
    endcase
  end

  // the prefetch may start once the current descriptor passed its check
  logic fetch_start;
  logic ch_act;
  assign ch_act = state_q != StIdle || fst_q != FIdle || tmo_q != '0 || we_i || soft_reset_i;

  always_comb begin
    state_d = state_q;
    fst_d   = fst_q;
    sta_d  = sta_q;
    pa_d   = pa_q;
    fdw_d  = fdw_q;
    keep_d = keep_q;
    fetch_start = 1'b0;
    fpois_d = fpois_q;
    tmo_d   = '0;
    poison_o  = 1'b0;
    timeout_o = 1'b0;

    mv_start_o = 1'b0;
    mv_abort_o = (state_q == StDrain);
    start_o    = 1'b0;
    reset_o    = wr_ctrl && is_reset_code;
    irq_o      = 1'b0;
    desc_err_o = 1'b0;
    cpl_err_o  = 1'b0;
    bm_err_o   = 1'b0;
    fetch_o    = 1'b0;
    cpl_tag_err_o = cpl_valid_i && (fst_q != FWait);

    // an idle channel (no state, no fetch, no timeout count) changes only
    // with a register write or a soft reset: otherwise both cases are skipped
    if (ch_act) begin
    unique case (state_q)
      StIdle: begin
        if (wr_ctrl && is_reset_code) begin
          sta_d = StaIdle;
        end else if (wr_ctrl && (wdata_i & abb_reg_pkg::CTRL_V) != 0) begin
          start_o = 1'b1;
          sta_d   = strict_i ? (sta_q | StaBusy) : StaBusy;
          state_d = StCheck;
        end
      end
      StCheck: begin
        if (hold_i) begin
          state_d = StCheck;               // wait for the shared engine
        end else if (!cfg_bus_master_en_i) begin
          bm_err_o = 1'b1;
          sta_d    = StaErr;
          irq_o    = (ctrl_q & abb_reg_pkg::CTRL_EEI) != 0;
          state_d  = StIdle;
        end else if (!desc_valid(ctrl_q, leng_q, hal_q[1:0], pah_q, pa_eff, mem_bytes_i)) begin
          desc_err_o = 1'b1;
          sta_d      = StaErr;
          irq_o      = (ctrl_q & abb_reg_pkg::CTRL_EEI) != 0;
          keep_d     = 1'b1;
          state_d    = StDrain;            // reads of the chain may be outstanding
        end else begin
          mv_start_o  = 1'b1;
          pa_d        = pa_eff;
          fetch_start = mv_more_o;
          state_d     = StRun;
        end
      end
      StRun: begin
        if (mv_done_i) begin
          pa_d = mv_inc_o ? pa_q + leng_q : pa_q;
          if (mv_err_i) begin
            cpl_err_o = 1'b1;
            sta_d     = StaErr;
            irq_o     = (ctrl_q & (abb_reg_pkg::CTRL_EEI | abb_reg_pkg::CTRL_ESEI)) != 0;
            keep_d    = 1'b1;
            state_d   = StDrain;           // collects a prefetch in flight
          end else if (last) begin
            sta_d   = StaDone;
            irq_o   = (ctrl_q & abb_reg_pkg::CTRL_EDI) != 0;
            state_d = StIdle;
          end else if (!bda_ok) begin
            desc_err_o = 1'b1;
            sta_d      = StaErr;
            irq_o      = (ctrl_q & abb_reg_pkg::CTRL_EEI) != 0;
            state_d    = StIdle;
          end else begin
            state_d = StNext;
          end
        end
      end
      StNext: begin
        if (fst_q == FDone) begin
          // the prefetched descriptor becomes the current one (take_nxt)
          fst_d   = FIdle;
          state_d = StCheck;
        end else if (fst_q == FErr) begin
          cpl_err_o = 1'b1;
          sta_d     = StaErr;
          irq_o     = (ctrl_q & (abb_reg_pkg::CTRL_EEI | abb_reg_pkg::CTRL_ESEI)) != 0;
          fst_d     = FIdle;
          keep_d    = 1'b1;
          state_d   = StDrain;             // reads of the chain may be outstanding
        end
      end
      StDrain: begin
        if (!mv_busy_i && (fst_q == FIdle || fst_q == FDone || fst_q == FErr)) begin
          if (!keep_q) sta_d = StaIdle;
          keep_d  = 1'b0;
          fst_d   = FIdle;
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase

    // the prefetch unit
    unique case (fst_q)
      FIdle: begin
        if (fetch_start) fst_d = FHdr0;
      end
      FHdr0: begin
        if (tx_ready_i)                fst_d = FHdr1;
        else if (state_q == StDrain)   fst_d = FIdle;  // never sent: nothing to collect
      end
      FHdr1: begin
        if (tx_ready_i) begin
          fdw_d   = 4'd0;
          fpois_d = 1'b0;
          fst_d   = FWait;
        end
      end
      FWait: begin
        tmo_d = cpl_valid_i ? '0 : tmo_q + TmoW'(1);
        if (!cpl_valid_i && tmo_q == TmoW'(CplTimeoutCycles - 1)) begin
          timeout_o = 1'b1;
          fst_d     = FErr;                // no completion: give the read up
        end
        if (cpl_valid_i) begin
          if (cpl_poison_i && !fpois_q) poison_o = 1'b1;
          if (cpl_poison_i) fpois_d = 1'b1;
          if (cpl_status_i != 3'b000 || cpl_dw_i == 2'd0) begin
            fst_d = FErr;                  // an error completion ends the read
          end else begin
            // the lanes go into the prefetch buffer (nxt_we)
            fdw_d = fdw_q + {2'b00, cpl_dw_i};
            if (cpl_last_i && fdw_q + {2'b00, cpl_dw_i} >= 4'd8) begin
              fetch_o = 1'b1;
              if (fpois_q || cpl_poison_i) fst_d = FErr;
              else                         fst_d = FDone;
            end
          end
        end
      end
      default: ;                           // FDone, FErr: held until used
    endcase

    // RESET (or GCR soft reset) while busy: drain the mover and the prefetch
    if (((wr_ctrl && is_reset_code) || soft_reset_i) && state_q != StIdle) begin
      state_d = StDrain;
      keep_d  = 1'b0;
    end
    if (soft_reset_i) sta_d = StaIdle;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      fst_q   <= FIdle;
      sta_q  <= StaIdle;
      pa_q   <= '0;
      fdw_q  <= '0;
      keep_q <= 1'b0;
      fpois_q <= 1'b0;
      tmo_q  <= '0;
    end else if (ch_act) begin
      state_q <= state_d;
      fst_q   <= fst_d;
      sta_q  <= sta_d;
      pa_q   <= pa_d;
      fdw_q  <= fdw_d;
      keep_q <= keep_d;
      fpois_q <= fpois_d;
      tmo_q  <= tmo_d;
    end
  end

  // the descriptor registers: a host write while idle (only CTRL's RESET
  // code acts while busy), or the prefetched descriptor (StNext with FDone;
  // its words are in the order of the channel block: DW k at offset 4 k)
  assign blk_we   = we_i && state_q == StIdle;
  assign take_nxt = state_q == StNext && fst_q == FDone;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      pah_q <= '0;  pal_q <= '0;  hah_q <= '0;  hal_q <= '0;
      bdah_q <= '0;  bdal_q <= '0;  leng_q <= '0;  ctrl_q <= '0;
    end else if (take_nxt) begin
      pah_q  <= nxt_q[8 * abb_reg_pkg::CH_PAH +: 32];   pal_q  <= nxt_q[8 * abb_reg_pkg::CH_PAL +: 32];
      hah_q  <= nxt_q[8 * abb_reg_pkg::CH_HAH +: 32];   hal_q  <= nxt_q[8 * abb_reg_pkg::CH_HAL +: 32];
      bdah_q <= nxt_q[8 * abb_reg_pkg::CH_BDAH +: 32];  bdal_q <= nxt_q[8 * abb_reg_pkg::CH_BDAL +: 32];
      leng_q <= nxt_q[8 * abb_reg_pkg::CH_LENG +: 32];  ctrl_q <= nxt_q[8 * abb_reg_pkg::CH_CTRL +: 32];
    end else if (blk_we) begin
      unique case (waddr_i)
        abb_reg_pkg::CH_PAH:  pah_q  <= wdata_i;
        abb_reg_pkg::CH_PAL:  pal_q  <= wdata_i;
        abb_reg_pkg::CH_HAH:  hah_q  <= wdata_i;
        abb_reg_pkg::CH_HAL:  hal_q  <= wdata_i;
        abb_reg_pkg::CH_BDAH: bdah_q <= wdata_i;
        abb_reg_pkg::CH_BDAL: bdal_q <= wdata_i;
        abb_reg_pkg::CH_LENG: leng_q <= wdata_i;
        abb_reg_pkg::CH_CTRL: ctrl_q <= wdata_i;
        default: ;
      endcase
    end
  end

  // the prefetch buffer (no reset: FDone says when it is valid): the lanes
  // of a completion beat with data while the fetch waits, at the
  // descriptor DWs fdw_q and fdw_q + 1 (DW k of the descriptor: per_addr_h,
  // per_addr_l, host_addr_h, host_addr_l, next_bda_h, next_bda_l, length,
  // control); DWs past the eighth are dropped
  logic [2:0] widx1;                  // descriptor DW of lane 1 (wraps as fdw_q + 1 does)
  assign nxt_we = fst_q == FWait && cpl_valid_i && cpl_status_i == 3'b000 && cpl_dw_i != 2'd0;
  assign widx1  = fdw_q[2:0] + 3'd1;
  always_ff @(posedge clk_i) begin
    if (nxt_we) begin
      if (fdw_q < 4'd8) nxt_q[32*fdw_q[2:0] +: 32] <= cpl_data_i[31:0];
      if (cpl_dw_i == 2'd2 && fdw_q + 4'd1 < 4'd8) nxt_q[32*widx1 +: 32] <= cpl_data_i[63:32];
    end
  end

  // ---- protocol assertions (test builds: ABB_ASSERT, see abb_assert.svh) ----
`ifdef ABB_ASSERT
  logic [2:0] chk_ev;   // (Icarus 11: $onehot0 of a concatenation is wrong)
  assign chk_ev = {mv_start_o, desc_err_o, bm_err_o};
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (mv_start_o) begin
        `ABB_CHECK(state_q == StCheck && desc_valid(ctrl_q, leng_q, hal_q[1:0], pah_q, pa_eff, mem_bytes_i) &&
                   cfg_bus_master_en_i, "abb_dma_ctl: mover started without a valid descriptor")
        `ABB_CHECK(desc_end(pa_eff, ctrl_q, leng_q) <= mem_bytes_i,
                   "abb_dma_ctl: transfer past the end of board memory")
      end
      `ABB_CHECK($onehot0(chk_ev), "abb_dma_ctl: start and error at once")
      // descriptor fetch: one 32-byte read, 32-byte aligned (never crosses 4 KiB)
      if (tx_valid_o && tx_ready_i && fst_q == FHdr0)
        `ABB_CHECK((bdal_q & (abb_reg_pkg::DESC_BYTES - 32'd1)) == 32'd0,
                   "abb_dma_ctl: descriptor read not 32-byte aligned")
      `ABB_CHECK(!fetch_o || fdw_q + {2'b00, cpl_dw_i} >= 4'd8, "abb_dma_ctl: descriptor taken before 8 DWs")
      `ABB_CHECK(!mv_abort_o || state_q == StDrain, "abb_dma_ctl: mover aborted outside a drain")
      if (state_q == StCheck || state_q == StRun || state_q == StNext)
        `ABB_CHECK(sta_q[1], "abb_dma_ctl: channel runs while STA does not read BUSY")  // strict: DONE|BUSY
    end
  end
`endif

endmodule
