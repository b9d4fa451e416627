// abb_top.sv - the ABB DMA engine: BAR0 registers, BAR1 board memory, the
// upstream (board to host, channel 1, "DMA read") and downstream (host to
// board, channel 0, "DMA write") descriptor engines, TLP parsing and
// generation. The PCIe hard block is outside: see TLP-STREAM.md.

module abb_top #(
  parameter int MemBitsMax = 24,  // log2 of the largest BAR1 (board memory) in bytes
  parameter int NumTags    = 16,  // outstanding DMA-write read requests
  parameter int ClkNs      = 8,   // user-clock period (interrupt-generator timing)
  parameter bit SharedEngine = 1'b0, // reset value of GCR.SHARED_ENGINE: 1 = the two
                                     // channels share one engine (see abb_regs.def)
  parameter int TxPostedMinAv = 12,  // DMA-read data starts a TLP only with this many
                                     // free 128-byte units of hard-block TX buffer
                                     // (tx_buf_av_i); 0: no limit. See abb_tx_arb.sv
  parameter int CplTimeoutCycles = 1 << 22 // completion timeout of the DMA engine's reads
                                     // (data and descriptor fetch): cycles without a
                                     // completion while reads are outstanding (2^22:
                                     // 33.6 ms at 125 MHz, inside PCIe's default range
                                     // 50 us..50 ms); GER.CPL_TIMEOUT
) (
  input  logic        clk_i,
  input  logic        rst_ni
  // the other ports: abb_top_ports.svh (one list, shared with sim/abb_sim_top.sv)
`define ABB_TOP_IN(t, n)  , input  t n
`define ABB_TOP_OUT(t, n) , output t n
`include "abb_top_ports.svh"
`undef ABB_TOP_IN
`undef ABB_TOP_OUT
);

  localparam int AddrBits = MemBitsMax - 2;  // board-memory word-index width

  // elaboration-time parameter checks
  if (MemBitsMax < 16 || MemBitsMax > 28) begin : g_bad_mem
    initial $fatal(1, "MemBitsMax must be 16..28");
  end
  if (NumTags < 2 || NumTags > 32 || (NumTags & (NumTags - 1)) != 0) begin : g_bad_tags
    initial $fatal(1, "NumTags must be a power of two, 2..32");
  end
  if (CplTimeoutCycles < 16) begin : g_bad_tmo
    initial $fatal(1, "CplTimeoutCycles must be at least 16");
  end
  if (ClkNs < 4 || ClkNs % 4 != 0) begin : g_bad_clk
    initial $fatal(1, "ClkNs must be a multiple of 4");
  end

  // ---- configuration -------------------------------------------------------
  logic [4:0]          mem_bits;
  logic [AddrBits-1:0] mem_mask;
  logic [32:0]         mem_bytes;
  logic [10:0]         mps_dw, mrrs_dw;
  // 0 selects the default 1 MiB, clamped like any other size to MemBitsMax
  assign mem_bits  = (cfg_mem_bits_i == 5'd0) ? ((MemBitsMax < 20) ? 5'(MemBitsMax) : 5'd20) :
                     (cfg_mem_bits_i > 5'(MemBitsMax)) ? 5'(MemBitsMax) :
                     (cfg_mem_bits_i < 5'd16) ? 5'd16 : cfg_mem_bits_i;
  assign mem_bytes = 33'd1 << mem_bits;
  assign mem_mask  = AddrBits'((mem_bytes >> 2) - 33'd1);
  assign mps_dw    = 11'd32 << ((cfg_max_payload_i > 3'd5) ? 3'd5 : cfg_max_payload_i);
  assign mrrs_dw   = 11'd32 << ((cfg_max_read_req_i > 3'd5) ? 3'd5 : cfg_max_read_req_i);

  // ---- RX ------------------------------------------------------------------
  logic                reg_we;
  logic [15:0]         reg_waddr;
  logic [31:0]         reg_wdata;
  logic [1:0]          rx_mem_we;
  logic [AddrBits-1:0] rx_mem_a0, rx_mem_a1;
  logic [63:0]         rx_mem_d;
  logic [7:0]          rx_mem_be;
  logic                rd_valid, rd_ready, rd_bar;
  logic [31:0]         rd_addr;
  logic [10:0]         rd_len;
  logic [3:0]          rd_fbe, rd_lbe;
  logic [15:0]         rd_req_id;
  logic [7:0]          rd_tag;
  logic                cpl_valid, cpl_last;
  logic [7:0]          cpl_tag;
  logic [2:0]          cpl_status;
  logic [1:0]          cpl_dw;
  logic [63:0]         cpl_data;
  logic                bad_tlp, cpl_seen, rx_busy, cpl_poison, cpl_first;
  logic [6:0]          cpl_la;

  abb_rx #(.AddrBits(AddrBits)) u_rx (
    .clk_i, .rst_ni,
    .rx_valid_i, .rx_ready_o, .rx_sop_i, .rx_eop_i, .rx_data_i, .rx_bar_i,
    .mem_mask_i   (mem_mask),
    .reg_we_o     (reg_we),    .reg_waddr_o (reg_waddr), .reg_wdata_o (reg_wdata),
    .mem_we_o     (rx_mem_we), .mem_waddr0_o(rx_mem_a0), .mem_waddr1_o(rx_mem_a1),
    .mem_wdata_o  (rx_mem_d),  .mem_wbe_o   (rx_mem_be),
    .rd_valid_o   (rd_valid),  .rd_ready_i  (rd_ready),  .rd_bar_o    (rd_bar),
    .rd_addr_o    (rd_addr),   .rd_len_o    (rd_len),    .rd_first_be_o(rd_fbe),
    .rd_last_be_o (rd_lbe),    .rd_req_id_o (rd_req_id), .rd_tag_o    (rd_tag),
    .cpl_valid_o  (cpl_valid), .cpl_tag_o   (cpl_tag),   .cpl_status_o(cpl_status),
    .cpl_dw_o     (cpl_dw),    .cpl_data_o  (cpl_data),  .cpl_last_o  (cpl_last),
    .cpl_poison_o (cpl_poison), .cpl_first_o (cpl_first), .cpl_la_o    (cpl_la),
    .bad_tlp_o    (bad_tlp),   .cpl_seen_o  (cpl_seen),  .busy_o      (rx_busy)
  );

  // completion routing by tag (TLP-STREAM.md)
  localparam logic [7:0] C2hFetchTag = 8'h80, H2cFetchTag = 8'h81;
  logic cpl_c2h_ctl, cpl_h2c_ctl, cpl_h2c_mv, cpl_unknown;
  assign cpl_c2h_ctl = cpl_valid && cpl_tag == C2hFetchTag;
  assign cpl_h2c_ctl = cpl_valid && cpl_tag == H2cFetchTag;
  assign cpl_h2c_mv  = cpl_valid && cpl_tag < 8'(NumTags);
  assign cpl_unknown = cpl_valid && !cpl_c2h_ctl && !cpl_h2c_ctl && !cpl_h2c_mv;

  // ---- board memory ----------------------------------------------------------
  logic [1:0]          h2c_mem_we;
  logic [AddrBits-1:0] h2c_mem_a0, h2c_mem_a1;
  logic [63:0]         h2c_mem_d;
  logic [AddrBits-1:0] c2h_mem_a0, c2h_mem_a1, pio_mem_a0, pio_mem_a1;
  logic [63:0]         c2h_mem_d, pio_mem_d;
  logic                rx_mem_sel;
  assign rx_mem_sel = (rx_mem_we != 2'b00);  // PIO write and completion data never coincide

  abb_mem #(.AddrBits(AddrBits)) u_mem (
    .clk_i,
    .we_i     (rx_mem_we | h2c_mem_we),
    .waddr0_i (rx_mem_sel ? rx_mem_a0 : h2c_mem_a0),
    .waddr1_i (rx_mem_sel ? rx_mem_a1 : h2c_mem_a1),
    .wdata_i  (rx_mem_sel ? rx_mem_d  : h2c_mem_d),
    .wbe_i    (rx_mem_sel ? rx_mem_be : 8'hff),
    .a_addr0_i(c2h_mem_a0), .a_addr1_i(c2h_mem_a1), .a_data_o(c2h_mem_d),
    .b_addr0_i(pio_mem_a0), .b_addr1_i(pio_mem_a1), .b_data_o(pio_mem_d)
  );

  // ---- TX sources: 0 PIO completions, 1/2 descriptor fetch, 3/4 movers ------
  localparam int NSrc = 5;
  logic [NSrc-1:0]    s_valid, s_sop, s_eop, s_ready;
  logic [NSrc-1:0]    s_sel;     // the source the arbiter shows: the others drive data 0
  logic [NSrc*64-1:0] s_data;

  // ---- PIO read completions --------------------------------------------------
  logic        reg_re, reg_rsample, pio_ur, pio_busy;
  logic [15:0] reg_raddr;
  logic [31:0] reg_rdata;

  abb_pio_cpl #(.AddrBits(AddrBits)) u_pio (
    .clk_i, .rst_ni, .cfg_req_id_i, .mps_dw_i(mps_dw), .mem_mask_i(mem_mask),
    .rd_valid_i(rd_valid), .rd_ready_o(rd_ready), .rd_bar_i(rd_bar), .rd_addr_i(rd_addr),
    .rd_len_i(rd_len), .rd_first_be_i(rd_fbe), .rd_last_be_i(rd_lbe),
    .rd_req_id_i(rd_req_id), .rd_tag_i(rd_tag),
    .reg_re_o(reg_re), .reg_rsample_o(reg_rsample), .reg_raddr_o(reg_raddr), .reg_rdata_i(reg_rdata),
    .mem_addr0_o(pio_mem_a0), .mem_addr1_o(pio_mem_a1), .mem_data_i(pio_mem_d),
    .tx_valid_o(s_valid[0]), .tx_ready_i(s_ready[0]), .tx_sop_o(s_sop[0]),
    .tx_eop_o(s_eop[0]), .tx_data_o(s_data[0 +: 64]), .tx_sel_i(s_sel[0]),
    .ur_o(pio_ur), .busy_o(pio_busy)
  );

  // ---- registers -------------------------------------------------------------
  logic        c2h_we, h2c_we, soft_reset, ig_busy;
  logic [abb_reg_pkg::CH_ADDR_WIDTH-1:0] ch_waddr, c2h_raddr, h2c_raddr;
  logic [31:0] c2h_rdata, h2c_rdata;
  logic        c2h_rsample, h2c_rsample;
  logic        c2h_busy, h2c_busy, c2h_start, h2c_start, c2h_irq, h2c_irq;
  logic        c2h_reset, h2c_reset;
  logic        c2h_desc_err, h2c_desc_err, c2h_cpl_err, h2c_cpl_err;
  logic        c2h_bm_err, h2c_bm_err, c2h_tag_err, h2c_tag_err, mv_tag_err;
  logic        c2h_fetch, h2c_fetch, c2h_tlp, h2c_req;
  logic [abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH-1:0] tag_limit;
  logic        c2h_tmo, h2c_tmo, mv_tmo, c2h_poison, h2c_poison, mv_poison;
  logic [abb_reg_pkg::REG_GER_WIDTH-1:0] ger_set;   // GER causes, at their GER bits
  always_comb begin
    ger_set = '0;
    ger_set[abb_reg_pkg::GER_POISONED_SHIFT]    = c2h_poison | h2c_poison | mv_poison;
    ger_set[abb_reg_pkg::GER_CPL_TIMEOUT_SHIFT] = c2h_tmo | h2c_tmo | mv_tmo;
    ger_set[abb_reg_pkg::GER_CPL_TAG_SHIFT]     = c2h_tag_err | h2c_tag_err | mv_tag_err | cpl_unknown;
    ger_set[abb_reg_pkg::GER_BAD_TLP_SHIFT]     = bad_tlp | pio_ur;
    ger_set[abb_reg_pkg::GER_BUS_MASTER_SHIFT]  = c2h_bm_err | h2c_bm_err;
    ger_set[abb_reg_pkg::GER_DESC_ERR_SHIFT]    = c2h_desc_err | h2c_desc_err;
    ger_set[abb_reg_pkg::GER_CPL_ERR_SHIFT]     = c2h_cpl_err | h2c_cpl_err;
  end

  // ---- front-end event source -------------------------------------------------
  logic        evs_enable, evs_clear, evs_busy, shared_engine;
  logic [abb_reg_pkg::EVS_SRC_ID_WIDTH-1:0]     evs_src;
  logic [abb_reg_pkg::EVS_GAP_CYCLES_WIDTH-1:0] evs_gap;
  logic [abb_reg_pkg::EVS_SIZE_DWS_WIDTH-1:0]   evs_size;
  logic [31:0] evs_addr, evs_events, evs_level, evs_stalls;
  logic [63:0] evs_data;
  logic [1:0]  evs_rd_dw;

  abb_evsrc u_evsrc (
    .clk_i, .rst_ni, .enable_i(evs_enable), .clear_i(evs_clear), .src_id_i(evs_src),
    .size_i(evs_size), .gap_i(evs_gap), .skip_i(skip_cycles_i), .rd_dw_i(evs_rd_dw),
    .rd_data_o(evs_data),
    .level_o(evs_level), .events_o(evs_events), .stalls_o(evs_stalls), .busy_o(evs_busy)
  );

  abb_regs #(.ClkNs(ClkNs), .NumTags(NumTags), .SharedEngine(SharedEngine)) u_regs (
    .clk_i, .rst_ni, .cfg_bus_master_en_i, .cfg_msi_en_i, .strict_i, .cfg_max_payload_i,
    .cfg_max_read_req_i, .mem_bits_i(mem_bits), .skip_cycles_i,
    .we_i(reg_we), .waddr_i(reg_waddr), .wdata_i(reg_wdata),
    .re_i(reg_re), .rsample_i(reg_rsample), .raddr_i(reg_raddr), .rdata_o(reg_rdata),
    .c2h_we_o(c2h_we), .h2c_we_o(h2c_we), .ch_waddr_o(ch_waddr),
    .c2h_raddr_o(c2h_raddr), .h2c_raddr_o(h2c_raddr),
    .c2h_rdata_i(c2h_rdata), .h2c_rdata_i(h2c_rdata),
    .c2h_rsample_o(c2h_rsample), .h2c_rsample_o(h2c_rsample),
    .c2h_busy_i(c2h_busy), .h2c_busy_i(h2c_busy),
    .c2h_start_i(c2h_start), .h2c_start_i(h2c_start),
    .c2h_irq_i(c2h_irq), .h2c_irq_i(h2c_irq),
    .c2h_reset_i(c2h_reset), .h2c_reset_i(h2c_reset), .err_i(ger_set),
    .cnt_c2h_tlp_i(c2h_tlp), .cnt_h2c_req_i(h2c_req), .cnt_cpl_i(cpl_seen),
    .cnt_desc_i(c2h_fetch | h2c_fetch),
    .evs_enable_o(evs_enable), .evs_clear_o(evs_clear), .evs_src_o(evs_src),
    .evs_size_o(evs_size), .evs_gap_o(evs_gap), .evs_addr_o(evs_addr),
    .evs_events_i(evs_events), .evs_level_i(evs_level), .evs_stalls_i(evs_stalls),
    .shared_engine_o(shared_engine),
    .irq_o, .soft_reset_o(soft_reset), .tag_limit_o(tag_limit), .busy_o(ig_busy)
  );

  // shared engine: a channel past its start check holds the other one back;
  // when both would start in the same cycle the upstream channel goes first
  logic c2h_active, h2c_active, c2h_hold, h2c_hold;
  assign c2h_hold = shared_engine && h2c_active;
  assign h2c_hold = shared_engine && (c2h_active || (c2h_busy && !c2h_hold));

  // ---- upstream channel 1: board to host ("DMA read") ------------------------
  logic        c2h_mv_start, c2h_mv_inc, c2h_mv_abort, c2h_mv_busy, c2h_mv_done;
  logic [31:0] c2h_mv_pa, c2h_mv_len;
  logic [63:0] c2h_mv_ha;

  abb_dma_ctl #(.FetchTag(C2hFetchTag), .CplTimeoutCycles(CplTimeoutCycles)) u_c2h_ctl (
    .clk_i, .rst_ni, .soft_reset_i(soft_reset), .strict_i, .cfg_bus_master_en_i, .cfg_req_id_i,
    .mem_bytes_i(mem_bytes), .hold_i(c2h_hold),
    .we_i(c2h_we), .waddr_i(ch_waddr), .wdata_i(reg_wdata),
    .raddr_i(c2h_raddr), .rsample_i(c2h_rsample), .rdata_o(c2h_rdata),
    .tx_valid_o(s_valid[1]), .tx_ready_i(s_ready[1]), .tx_sop_o(s_sop[1]),
    .tx_eop_o(s_eop[1]), .tx_data_o(s_data[64 +: 64]), .tx_sel_i(s_sel[1]),
    .cpl_valid_i(cpl_c2h_ctl), .cpl_status_i(cpl_status), .cpl_dw_i(cpl_dw),
    .cpl_data_i(cpl_data), .cpl_last_i(cpl_last),
    .mv_start_o(c2h_mv_start), .mv_pa_o(c2h_mv_pa), .mv_ha_o(c2h_mv_ha),
    .mv_len_o(c2h_mv_len), .mv_inc_o(c2h_mv_inc), .mv_more_o(), .mv_abort_o(c2h_mv_abort),
    .mv_busy_i(c2h_mv_busy), .mv_done_i(c2h_mv_done), .mv_err_i(1'b0),
    .busy_o(c2h_busy), .active_o(c2h_active), .start_o(c2h_start), .reset_o(c2h_reset),
    .irq_o(c2h_irq),
    .desc_err_o(c2h_desc_err), .cpl_err_o(c2h_cpl_err), .bm_err_o(c2h_bm_err),
    .cpl_tag_err_o(c2h_tag_err), .fetch_o(c2h_fetch),
    .cpl_poison_i(cpl_poison), .poison_o(c2h_poison), .timeout_o(c2h_tmo)
  );

  // board profile (board_cfg_i, 0 by default): the DDR2 buffer's timing holds
  // a TLP of the upstream mover at its start until the data is read ahead
  logic ddr_wait, ddr_busy, c2h_tx_valid, c2h_tx_sop, c2h_gate;
  assign c2h_gate    = ddr_wait && c2h_tx_sop;
  assign s_valid[3]  = c2h_tx_valid && !c2h_gate;
  assign s_sop[3]    = c2h_tx_sop;

  abb_ddr2_arb u_ddr2 (
    .clk_i, .rst_ni, .cfg_i(board_cfg_i),
    .rd_active_i(c2h_mv_busy), .take_dw_i(mps_dw), .rd_take_i(c2h_tlp), .rd_wait_o(ddr_wait),
    .wr_dw_i({1'b0, h2c_mem_we[0]} + {1'b0, h2c_mem_we[1]}), .link_en_i(evs_enable),
    .busy_o(ddr_busy)
  );

  abb_c2h_mover #(.AddrBits(AddrBits)) u_c2h_mv (
    .clk_i, .rst_ni, .cfg_req_id_i, .mps_dw_i(mps_dw), .mem_mask_i(mem_mask),
    .start_i(c2h_mv_start), .pa_i(c2h_mv_pa), .ha_i(c2h_mv_ha), .len_i(c2h_mv_len),
    .inc_i(c2h_mv_inc), .abort_i(c2h_mv_abort), .busy_o(c2h_mv_busy), .done_o(c2h_mv_done),
    .mem_addr0_o(c2h_mem_a0), .mem_addr1_o(c2h_mem_a1), .mem_data_i(c2h_mem_d),
    .evs_addr_i(evs_addr), .fifo_data_i(evs_data), .fifo_level_i(evs_level),
    .fifo_rd_dw_o(evs_rd_dw),
    .tx_valid_o(c2h_tx_valid), .tx_ready_i(s_ready[3] && !c2h_gate), .tx_sop_o(c2h_tx_sop),
    .tx_eop_o(s_eop[3]), .tx_data_o(s_data[192 +: 64]), .tx_sel_i(s_sel[3]),
    .tlp_o(c2h_tlp)
  );

  // ---- downstream channel 0: host to board ("DMA write") ---------------------
  logic        h2c_mv_start, h2c_mv_inc, h2c_mv_more, h2c_mv_abort, h2c_mv_busy, h2c_mv_done;
  logic        h2c_mv_err;
  logic [31:0] h2c_mv_pa, h2c_mv_len;
  logic [63:0] h2c_mv_ha;

  abb_dma_ctl #(.FetchTag(H2cFetchTag), .CplTimeoutCycles(CplTimeoutCycles)) u_h2c_ctl (
    .clk_i, .rst_ni, .soft_reset_i(soft_reset), .strict_i, .cfg_bus_master_en_i, .cfg_req_id_i,
    .mem_bytes_i(mem_bytes), .hold_i(h2c_hold),
    .we_i(h2c_we), .waddr_i(ch_waddr), .wdata_i(reg_wdata),
    .raddr_i(h2c_raddr), .rsample_i(h2c_rsample), .rdata_o(h2c_rdata),
    .tx_valid_o(s_valid[2]), .tx_ready_i(s_ready[2]), .tx_sop_o(s_sop[2]),
    .tx_eop_o(s_eop[2]), .tx_data_o(s_data[128 +: 64]), .tx_sel_i(s_sel[2]),
    .cpl_valid_i(cpl_h2c_ctl), .cpl_status_i(cpl_status), .cpl_dw_i(cpl_dw),
    .cpl_data_i(cpl_data), .cpl_last_i(cpl_last),
    .mv_start_o(h2c_mv_start), .mv_pa_o(h2c_mv_pa), .mv_ha_o(h2c_mv_ha),
    .mv_len_o(h2c_mv_len), .mv_inc_o(h2c_mv_inc), .mv_more_o(h2c_mv_more),
    .mv_abort_o(h2c_mv_abort),
    .mv_busy_i(h2c_mv_busy), .mv_done_i(h2c_mv_done), .mv_err_i(h2c_mv_err),
    .busy_o(h2c_busy), .active_o(h2c_active), .start_o(h2c_start), .reset_o(h2c_reset),
    .irq_o(h2c_irq),
    .desc_err_o(h2c_desc_err), .cpl_err_o(h2c_cpl_err), .bm_err_o(h2c_bm_err),
    .cpl_tag_err_o(h2c_tag_err), .fetch_o(h2c_fetch),
    .cpl_poison_i(cpl_poison), .poison_o(h2c_poison), .timeout_o(h2c_tmo)
  );

  // board profile: the endpoint's limits on outstanding reads (board_cfg_i
  // [55:48] reads, [63:56] receive buffer for completions in 256-byte units)
  // lower the tag limit; 0 = no limit
  localparam int TlW = abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH;
  logic [8:0]     ep_rx_reads;
  logic [TlW-1:0] ep_lim, tag_lim_eff;
  // (both limits 0, the default board: nothing to evaluate but the last line)
  always_comb begin
    ep_rx_reads = '0;
    ep_lim = '0;
    if (board_cfg_i[63:48] != 16'd0) begin
      ep_rx_reads = {board_cfg_i[63:56], 1'b0} >> cfg_max_read_req_i;
      if (board_cfg_i[63:56] != 8'd0 && ep_rx_reads == 9'd0) ep_rx_reads = 9'd1;
      if (board_cfg_i[55:48] != 8'd0)
        ep_lim = (board_cfg_i[55:48] >= 8'(NumTags)) ? TlW'(NumTags) : TlW'(board_cfg_i[55:48]);
      if (board_cfg_i[63:56] != 8'd0 && ep_rx_reads < 9'(NumTags) &&
          (ep_lim == '0 || TlW'(ep_rx_reads) < ep_lim))
        ep_lim = TlW'(ep_rx_reads);
    end
    tag_lim_eff = (ep_lim != '0 && (tag_limit == '0 || tag_limit > ep_lim)) ? ep_lim : tag_limit;
  end

  abb_h2c_mover #(.AddrBits(AddrBits), .NumTags(NumTags), .CplTimeoutCycles(CplTimeoutCycles))
  u_h2c_mv (
    .clk_i, .rst_ni, .cfg_req_id_i, .mrrs_dw_i(mrrs_dw), .tag_limit_i(tag_lim_eff),
    .mem_mask_i(mem_mask),
    .start_i(h2c_mv_start), .pa_i(h2c_mv_pa), .ha_i(h2c_mv_ha), .len_i(h2c_mv_len),
    .inc_i(h2c_mv_inc), .more_i(h2c_mv_more), .abort_i(h2c_mv_abort), .busy_o(h2c_mv_busy),
    .done_o(h2c_mv_done), .err_o(h2c_mv_err),
    .cpl_valid_i(cpl_h2c_mv), .cpl_tag_i(cpl_tag), .cpl_status_i(cpl_status),
    .cpl_dw_i(cpl_dw), .cpl_data_i(cpl_data), .cpl_tag_err_o(mv_tag_err),
    .cpl_poison_i(cpl_poison), .poison_o(mv_poison), .timeout_o(mv_tmo),
    .cpl_first_i(cpl_first), .cpl_last_i(cpl_last), .cpl_la_i(cpl_la),
    .mem_we_o(h2c_mem_we), .mem_waddr0_o(h2c_mem_a0), .mem_waddr1_o(h2c_mem_a1),
    .mem_wdata_o(h2c_mem_d),
    .tx_valid_o(s_valid[4]), .tx_ready_i(s_ready[4]), .tx_sop_o(s_sop[4]),
    .tx_eop_o(s_eop[4]), .tx_data_o(s_data[256 +: 64]), .tx_sel_i(s_sel[4]),
    .req_o(h2c_req)
  );

  // ---- TX arbitration ----------------------------------------------------------
  // source 3, the upstream mover, is the only one sending posted TLPs
  abb_tx_arb #(.N(NSrc), .PostedSrc(32'b01000), .PostedMinAv(TxPostedMinAv)) u_tx_arb (
    .clk_i, .rst_ni, .tx_buf_av_i,
    .src_valid_i(s_valid), .src_sop_i(s_sop), .src_eop_i(s_eop), .src_data_i(s_data),
    .src_ready_o(s_ready), .src_sel_o(s_sel),
    .tx_valid_o, .tx_ready_i, .tx_sop_o, .tx_eop_o, .tx_data_o
  );

  // ---- idle: nothing in progress for two cycles (the interrupt level's edge
  // counter has settled), so the platform may skip cycles --------------------------------
  logic quiet, quiet_q;
  assign quiet = !(c2h_busy || h2c_busy || c2h_mv_busy || h2c_mv_busy || pio_busy ||
                   rx_busy || ig_busy || evs_busy || ddr_busy || tx_valid_o || rx_valid_i);
  assign idle_o = quiet && quiet_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) quiet_q <= 1'b0;
    else         quiet_q <= quiet;
  end

  // ---- protocol assertions on the TX stream (test builds: ABB_ASSERT) ----------
`ifdef ABB_ASSERT
  abb_tlp_chk u_tlp_chk (
    .clk_i, .rst_ni, .mps_dw_i(mps_dw), .mrrs_dw_i(mrrs_dw),
    .tx_valid_i(tx_valid_o), .tx_ready_i, .tx_sop_i(tx_sop_o), .tx_eop_i(tx_eop_o),
    .tx_data_i(tx_data_o)
  );
`endif

endmodule
