// abb_regs.sv - BAR0 register file: global registers, interrupt status and
// the interrupt level, the interrupt generator, the looped-back FIFO ports, the
// model-only diagnostic counters, and the address decode of the two channel
// register blocks (which live in abb_dma_ctl). Map: abb_regs.def.

module abb_regs
#(
  parameter int ClkNs    = 8,   // user-clock period in ns (interrupt-generator timing)
  parameter int NumTags  = 16,  // DMA-write read tags (reported in DIAG_PARAM)
  parameter int FifoBits = 4,   // log2 of the loop-back FIFO depth
  parameter bit SharedEngine = 1'b0  // reset value of GCR.SHARED_ENGINE
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // configuration (live, for GSR)
  input  logic        cfg_bus_master_en_i,
  input  logic        cfg_msi_en_i,    // only reported in GSR
  input  logic        strict_i,        // strict mode: no model-defined ISR/GER side effects
  input  logic [2:0]  cfg_max_payload_i,
  input  logic [2:0]  cfg_max_read_req_i,
  input  logic [4:0]  mem_bits_i,
  input  logic [31:0] skip_cycles_i,
  // write port (from abb_rx)
  input  logic        we_i,
  input  logic [15:0] waddr_i,
  input  logic [31:0] wdata_i,
  // read port (from abb_pio_cpl); re_i marks the read that is answered,
  // rsample_i the cycle the completer takes rdata_o (a request accepted:
  // rdata_o is 0 in every other cycle)
  input  logic        re_i,
  input  logic        rsample_i,
  input  logic [15:0] raddr_i,
  output logic [31:0] rdata_o,
  // channel register blocks
  output logic        c2h_we_o,
  output logic        h2c_we_o,
  output logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] ch_waddr_o,
  output logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] c2h_raddr_o,
  output logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] h2c_raddr_o,
  input  logic [31:0] c2h_rdata_i,
  input  logic [31:0] h2c_rdata_i,
  output logic        c2h_rsample_o,  // rsample_i of a read in the block (its rdata: 0 otherwise)
  output logic        h2c_rsample_o,
  // events
  input  logic        c2h_busy_i,
  input  logic        h2c_busy_i,
  input  logic        c2h_start_i,
  input  logic        h2c_start_i,
  input  logic        c2h_irq_i,
  input  logic        h2c_irq_i,
  input  logic        c2h_reset_i,    // pulse: the channel's CTRL got the RESET code
  input  logic        h2c_reset_i,
  input  logic [abb_reg_pkg::REG_GER_WIDTH-1:0] err_i,  // GER causes, bit order of GER
  input  logic        cnt_c2h_tlp_i,
  input  logic        cnt_h2c_req_i,
  input  logic        cnt_cpl_i,
  input  logic        cnt_desc_i,
  // front-end event source (abb_evsrc)
  output logic        evs_enable_o,
  output logic        evs_clear_o,    // pulse
  output logic [abb_reg_pkg::EVS_SRC_ID_WIDTH-1:0]     evs_src_o,
  output logic [abb_reg_pkg::EVS_SIZE_DWS_WIDTH-1:0]   evs_size_o,
  output logic [abb_reg_pkg::EVS_GAP_CYCLES_WIDTH-1:0] evs_gap_o,
  output logic [31:0] evs_addr_o,
  input  logic [31:0] evs_events_i,
  input  logic [31:0] evs_level_i,
  input  logic [31:0] evs_stalls_i,
  // outputs
  output logic        shared_engine_o, // GCR.SHARED_ENGINE
  output logic        irq_o,          // level: |(ISR & IER)
  output logic        soft_reset_o,   // pulse: GCR SOFT_RESET
  output logic [abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH-1:0] tag_limit_o,  // MRD_CR.TAG_LIMIT
  output logic        busy_o          // interrupt generator armed
);

  localparam int FifoDepth = 2 ** FifoBits;
  localparam int ChAw = abb_reg_pkg::CH_ADDR_WIDTH;
  // reset value of GCR (SOFT_RESET is not stored: its bit stays 0)
  localparam logic [31:0] GcrReset = 32'(SharedEngine) << abb_reg_pkg::GCR_SHARED_ENGINE_SHIFT;

  // ISR, IER and GER store their fields only (bits [REG_x_WIDTH-1:0]); the
  // other registers store the whole word written.
  // Simulation speed: host accesses are rare, so the write decode is
  // evaluated with a write only (we_i), the read multiplexer when a read is
  // taken only (rsample_i), and a register that changes only on a write or
  // an event is a flop with an enable, loaded then (as x_q <= x_d with
  // x_d = x_q by default, the simulator copies every register in every
  // cycle).
  logic [abb_reg_pkg::REG_ISR_WIDTH-1:0] isr_q, isr_d;
  logic [abb_reg_pkg::REG_IER_WIDTH-1:0] ier_q;
  logic        lvl_q;                  // irq_o of the last cycle (DIAG_MSI counts rising edges)
  logic [abb_reg_pkg::REG_GER_WIDTH-1:0] ger_q, ger_d;
  logic [31:0] gcr_q;
  logic [31:0] mrd_cr_q, tx_cr_q;
  logic        ig_armed_q, ig_armed_d;
  logic [31:0] ig_lat_q, ig_left_q, ig_left_d;
  logic [31:0] ig_asrt_q, ig_asrt_d, ig_dsrt_q, ig_dsrt_d;
  logic [63:0] cyc_q;
  logic [31:0] cyc_hi_q;
  logic [31:0] n_c2h_q, n_req_q, n_cpl_q, n_desc_q, n_msi_q;
  logic        evs_en_q;
  logic [abb_reg_pkg::EVS_SRC_ID_WIDTH-1:0]     evs_src_q;
  logic [abb_reg_pkg::EVS_GAP_CYCLES_WIDTH-1:0] evs_gap_q;
  logic [abb_reg_pkg::EVS_SIZE_DWS_WIDTH-1:0]   evs_size_q;
  logic [31:0] evs_addr_q;
  logic [31:0]         fifo_q [FifoDepth];
  logic [FifoBits:0]   f_wr_q, f_rd_q, f_rd_d;
  logic [FifoBits:0]   f_used;

  assign f_used = f_wr_q - f_rd_q;

  // write decode (with a write only; the outputs are 0 without one)
  logic txf_push, w_c2h, w_h2c;
  always_comb begin
    txf_push     = 1'b0;
    w_c2h        = 1'b0;
    w_h2c        = 1'b0;
    c2h_we_o     = 1'b0;
    h2c_we_o     = 1'b0;
    ch_waddr_o   = '0;
    soft_reset_o = 1'b0;
    evs_clear_o  = 1'b0;
    if (we_i) begin
      txf_push = waddr_i == abb_reg_pkg::REG_TXF_DATA && f_used != (FifoBits + 1)'(FifoDepth);
      w_c2h = (waddr_i >= abb_reg_pkg::BLK_C2H) && (waddr_i <= abb_reg_pkg::BLK_C2H + 16'(abb_reg_pkg::CH_STA));
      w_h2c = (waddr_i >= abb_reg_pkg::BLK_H2C) && (waddr_i <= abb_reg_pkg::BLK_H2C + 16'(abb_reg_pkg::CH_STA));
      c2h_we_o   = w_c2h;
      h2c_we_o   = w_h2c;
      ch_waddr_o = w_c2h ? ChAw'(waddr_i - abb_reg_pkg::BLK_C2H) : ChAw'(waddr_i - abb_reg_pkg::BLK_H2C);
      soft_reset_o = waddr_i == abb_reg_pkg::REG_GCR && (wdata_i & abb_reg_pkg::GCR_SOFT_RESET) != 0;
      evs_clear_o  = waddr_i == abb_reg_pkg::REG_EVS_CTRL && (wdata_i & abb_reg_pkg::EVS_CTRL_CLEAR) != 0;
    end
  end

  // channel block read addresses (the blocks' read data: with rsample_i)
  assign c2h_raddr_o = ChAw'(raddr_i - abb_reg_pkg::BLK_C2H);
  assign h2c_raddr_o = ChAw'(raddr_i - abb_reg_pkg::BLK_H2C);

  // GSR and DIAG_PARAM, packed by the field positions of the package
  function automatic logic [31:0] gsr(input logic bme, input logic msi, input logic [2:0] mps,
                                      input logic [2:0] mrrs, input logic c2h_busy,
                                      input logic h2c_busy);
    gsr = 32'h0;
    gsr[abb_reg_pkg::GSR_BME_SHIFT]      = bme;
    gsr[abb_reg_pkg::GSR_MSI_SHIFT]      = msi;
    gsr[abb_reg_pkg::GSR_MPS_SHIFT +: abb_reg_pkg::GSR_MPS_WIDTH]   = mps;
    gsr[abb_reg_pkg::GSR_MRRS_SHIFT +: abb_reg_pkg::GSR_MRRS_WIDTH] = mrrs;
    gsr[abb_reg_pkg::GSR_C2H_BUSY_SHIFT] = c2h_busy;
    gsr[abb_reg_pkg::GSR_H2C_BUSY_SHIFT] = h2c_busy;
  endfunction
  function automatic logic [31:0] diag_param(input logic [4:0] mem_bits);
    diag_param =
        ((32'(mem_bits) << abb_reg_pkg::DIAG_PARAM_MEM_BITS_SHIFT) & abb_reg_pkg::DIAG_PARAM_MEM_BITS) |
        ((32'(NumTags) << abb_reg_pkg::DIAG_PARAM_TAGS_SHIFT) & abb_reg_pkg::DIAG_PARAM_TAGS);
  endfunction

  // IGEN_CTRL.WORD of a write
  logic [31:0] ig_word;
  assign ig_word = (wdata_i & abb_reg_pkg::IGEN_CTRL_WORD) >> abb_reg_pkg::IGEN_CTRL_WORD_SHIFT;

  // read decode and the read multiplexer: only when a read is taken
  // (rsample_i), else 0 (the decode in a block of its own: the channel
  // blocks' read data depend on it and the multiplexer on them)
  logic r_c2h, r_h2c;
  always_comb begin
    r_c2h = 1'b0;
    r_h2c = 1'b0;
    if (rsample_i) begin
      r_c2h = (raddr_i >= abb_reg_pkg::BLK_C2H) && (raddr_i <= abb_reg_pkg::BLK_C2H + 16'(abb_reg_pkg::CH_STA));
      r_h2c = (raddr_i >= abb_reg_pkg::BLK_H2C) && (raddr_i <= abb_reg_pkg::BLK_H2C + 16'(abb_reg_pkg::CH_STA));
    end
  end
  always_comb begin
    rdata_o = 32'h0;
    if (rsample_i) begin
      if (r_c2h) begin
        rdata_o = c2h_rdata_i;
      end else if (r_h2c) begin
        rdata_o = h2c_rdata_i;
      end else begin
        unique case (raddr_i)
          abb_reg_pkg::REG_VERSION:       rdata_o = abb_reg_pkg::VERSION_ID;
          abb_reg_pkg::REG_ISR:           rdata_o = 32'(isr_q);
          abb_reg_pkg::REG_IER:           rdata_o = 32'(ier_q);
          abb_reg_pkg::REG_GER:           rdata_o = 32'(ger_q);
          abb_reg_pkg::REG_GSR:           rdata_o = gsr(cfg_bus_master_en_i, cfg_msi_en_i, cfg_max_payload_i,
                                                        cfg_max_read_req_i, c2h_busy_i, h2c_busy_i);
          abb_reg_pkg::REG_GCR:           rdata_o = gcr_q;
          abb_reg_pkg::REG_MRD_CR:        rdata_o = mrd_cr_q;
          abb_reg_pkg::REG_TX_CR:         rdata_o = tx_cr_q;
          abb_reg_pkg::REG_IGEN_CTRL:     rdata_o[abb_reg_pkg::IGEN_CTRL_ARMED_SHIFT] = ig_armed_q;
          abb_reg_pkg::REG_IGEN_LAT:      rdata_o = ig_lat_q;
          abb_reg_pkg::REG_IGEN_ASSERT:   rdata_o = ig_asrt_q;
          abb_reg_pkg::REG_IGEN_DEASSERT: rdata_o = ig_dsrt_q;
          abb_reg_pkg::REG_TXF_CSR:       rdata_o = 32'(FifoDepth) - 32'(f_used);
          abb_reg_pkg::REG_RXF_DATA:      rdata_o = (f_used != '0) ? fifo_q[f_rd_q[FifoBits-1:0]] : 32'h0;
          abb_reg_pkg::REG_RXF_CSR:       rdata_o = 32'(f_used);
          abb_reg_pkg::REG_EVS_CTRL:      rdata_o[abb_reg_pkg::EVS_CTRL_ENABLE_SHIFT] = evs_en_q;
          abb_reg_pkg::REG_EVS_SRC:       rdata_o[abb_reg_pkg::EVS_SRC_ID_SHIFT +: abb_reg_pkg::EVS_SRC_ID_WIDTH] = evs_src_q;
          abb_reg_pkg::REG_EVS_SIZE:      rdata_o[abb_reg_pkg::EVS_SIZE_DWS_SHIFT +: abb_reg_pkg::EVS_SIZE_DWS_WIDTH] = evs_size_q;
          abb_reg_pkg::REG_EVS_GAP:       rdata_o[abb_reg_pkg::EVS_GAP_CYCLES_SHIFT +: abb_reg_pkg::EVS_GAP_CYCLES_WIDTH] = evs_gap_q;
          abb_reg_pkg::REG_EVS_ADDR:      rdata_o = evs_addr_q;
          abb_reg_pkg::REG_EVS_EVENTS:    rdata_o = evs_events_i;
          abb_reg_pkg::REG_EVS_LEVEL:     rdata_o = evs_level_i;
          abb_reg_pkg::REG_EVS_STALLS:    rdata_o = evs_stalls_i;
          abb_reg_pkg::REG_DIAG_ID:       rdata_o = abb_reg_pkg::REG_DIAG_ID_RESET;
          abb_reg_pkg::REG_DIAG_PARAM:    rdata_o = diag_param(mem_bits_i);
          abb_reg_pkg::REG_DIAG_CYC_LO:   rdata_o = cyc_q[31:0];
          abb_reg_pkg::REG_DIAG_CYC_HI:   rdata_o = cyc_hi_q;
          abb_reg_pkg::REG_DIAG_C2H_TLP:  rdata_o = n_c2h_q;
          abb_reg_pkg::REG_DIAG_H2C_RDREQ: rdata_o = n_req_q;
          abb_reg_pkg::REG_DIAG_CPL:      rdata_o = n_cpl_q;
          abb_reg_pkg::REG_DIAG_DESC:     rdata_o = n_desc_q;
          abb_reg_pkg::REG_DIAG_MSI:      rdata_o = n_msi_q;
          default:           rdata_o = 32'h0;
        endcase
      end
    end
  end
  assign c2h_rsample_o = rsample_i && r_c2h;
  assign h2c_rsample_o = rsample_i && r_h2c;

  // the interrupt line: a level, high while any enabled source is pending;
  // the hard IP turns it into INTx messages or MSI writes (TLP-STREAM.md)
  assign irq_o = (isr_q & ier_q) != '0;
  assign tag_limit_o  = mrd_cr_q[abb_reg_pkg::MRD_CR_TAG_LIMIT_SHIFT +: abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH];
  assign busy_o       = ig_armed_q;
  assign shared_engine_o = gcr_q[abb_reg_pkg::GCR_SHARED_ENGINE_SHIFT];
  assign evs_enable_o = evs_en_q;
  assign evs_src_o    = evs_src_q;
  assign evs_size_o   = evs_size_q;
  assign evs_gap_o    = evs_gap_q;
  assign evs_addr_o   = evs_addr_q;

  // ISR, GER and the interrupt generator: they change with an event only
  // (ev: a channel's start, irq or reset, an error cause, a write, the
  // generator armed)
  logic ev;
  assign ev = ig_armed_q || we_i || c2h_start_i || h2c_start_i || c2h_irq_i || h2c_irq_i ||
              c2h_reset_i || h2c_reset_i || err_i != '0;
  always_comb begin
    isr_d = isr_q;  ger_d = ger_q;
    ig_armed_d = ig_armed_q;  ig_left_d = ig_left_q;
    ig_asrt_d = ig_asrt_q;  ig_dsrt_d = ig_dsrt_q;
    if (ev) begin
      // interrupt generator: counts down in 4 ns units
      if (ig_armed_q) begin
        if (ig_left_q <= 32'(ClkNs / 4)) begin
          ig_armed_d = 1'b0;
          isr_d[abb_reg_pkg::ISR_IGEN_SHIFT]   = 1'b1;
          ig_asrt_d  = ig_asrt_q + 32'd1;
        end else begin
          ig_left_d = ig_left_q - 32'(ClkNs / 4);
        end
      end

      // lenient (model): a start clears its channel's ISR bit; strict: only
      // the channel reset does (below)
      if (c2h_start_i && !strict_i) isr_d[abb_reg_pkg::ISR_C2H_SHIFT] = 1'b0;
      if (h2c_start_i && !strict_i) isr_d[abb_reg_pkg::ISR_H2C_SHIFT] = 1'b0;
      if (c2h_irq_i)   isr_d[abb_reg_pkg::ISR_C2H_SHIFT] = 1'b1;
      if (h2c_irq_i)   isr_d[abb_reg_pkg::ISR_H2C_SHIFT] = 1'b1;
      // a channel reset clears the channel's ISR bit in both modes
      if (c2h_reset_i) isr_d[abb_reg_pkg::ISR_C2H_SHIFT] = 1'b0;
      if (h2c_reset_i) isr_d[abb_reg_pkg::ISR_H2C_SHIFT] = 1'b0;
      ger_d = ger_d | err_i;

      if (we_i) begin
        unique case (waddr_i)
          // ISR and GER: write 1 to clear (model); strict: writes ignored
          abb_reg_pkg::REG_ISR:    if (!strict_i) isr_d = isr_d & ~wdata_i[abb_reg_pkg::REG_ISR_WIDTH-1:0];
          abb_reg_pkg::REG_GER:    if (!strict_i) ger_d = ger_d & ~wdata_i[abb_reg_pkg::REG_GER_WIDTH-1:0];
          abb_reg_pkg::REG_IGEN_CTRL: begin
            if (ig_word == abb_reg_pkg::IGEN_RESET) begin
              ig_armed_d = 1'b0;
              ig_asrt_d  = 32'd0;
              ig_dsrt_d  = 32'd0;
              isr_d[abb_reg_pkg::ISR_IGEN_SHIFT]   = 1'b0;
            end else if (ig_word == abb_reg_pkg::IGEN_ACK) begin
              isr_d[abb_reg_pkg::ISR_IGEN_SHIFT]   = 1'b0;
              ig_dsrt_d  = ig_dsrt_q + 32'd1;
            end else if (ig_word == abb_reg_pkg::IGEN_ARM) begin
              ig_armed_d = 1'b1;
              ig_left_d  = ig_lat_q;
            end
          end
          default: ;
        endcase
      end

      if (soft_reset_o) begin
        isr_d = '0;
        ger_d = '0;
        ig_armed_d = 1'b0;
        ig_asrt_d  = 32'd0;
        ig_dsrt_d  = 32'd0;
      end
    end
  end

  // the RX FIFO's read pointer after a pop
  assign f_rd_d = f_rd_q + 1'b1;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      isr_q <= '0;  ger_q <= '0;
      ig_armed_q <= 1'b0;  ig_left_q <= '0;
      ig_asrt_q <= '0;  ig_dsrt_q <= '0;
    end else if (ev) begin
      isr_q <= isr_d;  ger_q <= ger_d;
      ig_armed_q <= ig_armed_d;  ig_left_q <= ig_left_d;
      ig_asrt_q <= ig_asrt_d;  ig_dsrt_q <= ig_dsrt_d;
    end
  end

  // registers the host writes (a write to the register's offset)
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ier_q <= '0;
      gcr_q <= GcrReset;
      evs_en_q <= 1'b0;  evs_src_q <= '0;  evs_gap_q <= '0;
      evs_size_q <= abb_reg_pkg::REG_EVS_SIZE_RESET[abb_reg_pkg::EVS_SIZE_DWS_SHIFT +: abb_reg_pkg::EVS_SIZE_DWS_WIDTH];
      evs_addr_q <= abb_reg_pkg::REG_EVS_ADDR_RESET;
      mrd_cr_q <= '0;  tx_cr_q <= '0;
      ig_lat_q <= '0;
    end else if (we_i) begin
      unique case (waddr_i)
        abb_reg_pkg::REG_IER:    ier_q <= wdata_i[abb_reg_pkg::REG_IER_WIDTH-1:0];
        abb_reg_pkg::REG_GCR:    gcr_q <= wdata_i & ~abb_reg_pkg::GCR_SOFT_RESET;
        abb_reg_pkg::REG_MRD_CR: mrd_cr_q <= wdata_i;
        abb_reg_pkg::REG_TX_CR:  tx_cr_q <= wdata_i;
        abb_reg_pkg::REG_IGEN_LAT: ig_lat_q <= wdata_i;
        abb_reg_pkg::REG_EVS_CTRL: evs_en_q <= wdata_i[abb_reg_pkg::EVS_CTRL_ENABLE_SHIFT];
        abb_reg_pkg::REG_EVS_SRC:  evs_src_q <= wdata_i[abb_reg_pkg::EVS_SRC_ID_SHIFT +: abb_reg_pkg::EVS_SRC_ID_WIDTH];
        abb_reg_pkg::REG_EVS_SIZE: evs_size_q <= wdata_i[abb_reg_pkg::EVS_SIZE_DWS_SHIFT +: abb_reg_pkg::EVS_SIZE_DWS_WIDTH];
        abb_reg_pkg::REG_EVS_GAP:  evs_gap_q <= wdata_i[abb_reg_pkg::EVS_GAP_CYCLES_SHIFT +: abb_reg_pkg::EVS_GAP_CYCLES_WIDTH];
        abb_reg_pkg::REG_EVS_ADDR: evs_addr_q <= wdata_i;
        default: ;
      endcase
    end
  end

  // the cycle counter and the counters of events (each counts its pulse),
  // the FIFO pointers, the cycle counter's upper half at a read of the
  // lower (so the two halves read together)
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      lvl_q <= 1'b0;
      cyc_q <= '0;  cyc_hi_q <= '0;
      n_c2h_q <= '0;  n_req_q <= '0;  n_cpl_q <= '0;  n_desc_q <= '0;  n_msi_q <= '0;
      f_wr_q <= '0;  f_rd_q <= '0;
    end else begin
      lvl_q <= irq_o;
      cyc_q <= cyc_q + 64'd1 + {32'h0, skip_cycles_i};
      if (cnt_c2h_tlp_i) n_c2h_q <= n_c2h_q + 32'd1;
      if (cnt_h2c_req_i) n_req_q <= n_req_q + 32'd1;
      if (cnt_cpl_i)     n_cpl_q <= n_cpl_q + 32'd1;
      if (cnt_desc_i)    n_desc_q <= n_desc_q + 32'd1;
      if (irq_o && !lvl_q) n_msi_q <= n_msi_q + 32'd1;
      if (txf_push) f_wr_q <= f_wr_q + 1'b1;
      if (re_i) begin
        if (raddr_i == abb_reg_pkg::REG_RXF_DATA && f_used != '0) f_rd_q <= f_rd_d;
        if (raddr_i == abb_reg_pkg::REG_DIAG_CYC_LO) cyc_hi_q <= cyc_q[63:32];
      end
    end
  end

  // FIFO storage (no reset needed: the pointers say what is valid)
  always_ff @(posedge clk_i) begin
    if (txf_push) fifo_q[f_wr_q[FifoBits-1:0]] <= wdata_i;
  end

endmodule
