// abb_ddr2_arb.sv - timing of the on-board DDR2 buffer behind BAR1 and its
// arbiter (board profile abb2008, doc/board-profile.md): off by default
// (cfg_i[0] = 0), then every output is 0 and no state changes.
//
// Model-defined: the 2008 board kept link data and DMA data in a DDR2
// buffer; its controller's timing is not documented, so this models the
// shape (a burst unit, a read latency, row changes, a write turnaround)
// with parameters fitted to the 2008 figures. Data itself stays in abb_mem:
// only time is modelled here.
//
// Clients of the one DDR2 bus:
//  - upstream DMA (board to host) reads: while the upstream mover is busy,
//    bursts are read ahead into a read FIFO of Depth DWs; one read burst is
//    outstanding at a time (the next one may start rd_lat cycles after a
//    burst's data), the bus is free for writes in between. A TLP of the
//    mover starts only when the FIFO holds take_dw_i DWs (rd_wait_o), and
//    takes them (rd_take_i). An idle mover empties the FIFO (a new
//    transfer starts from an empty FIFO: never kinder than the board).
//    The buffer is read sequentially (a fixed-address transfer reads the
//    board's FIFO, which walks the DDR2 too): a row change every row bytes
//    costs row_cycles.
//  - writes: the downstream DMA's data (wr_dw_i, never held up: the board's
//    write FIFO is taken as deep enough) and the link-input stream: while
//    link_en_i (EVS_CTRL.ENABLE) the optical links write the buffer at
//    link_dw16 DWs per 16 cycles. Writes go in whole bursts, each followed
//    by wr_gap turnaround cycles.
// Reads go first when both may start, and while reads run a write burst
// starts only in a gap of the read latency it ends inside (or when 4096 DWs
// wait): the link's share fits in those gaps, so the paper's "full incoming
// bandwidth and a concurrent DMA towards PCIe of 600 MB/s" holds.
//
// cfg_i fields (sim/hard_ip.cpp packs them from abbsim_params):
//   [0]      enable            [7:4]   burst, log2 bytes (3..12)
//   [11:8]   bus width, log2 bytes per cycle (2..5)
//   [19:12]  rd_lat, cycles    [27:20] row_cycles
//   [31:28]  row, log2 bytes (0: no row model, else 8..15)
//   [39:32]  wr_gap, cycles    [45:40] link_dw16 (0: no link input)
//   [55:48]  ep_reads, [63:56] ep_rx: the endpoint's limits (abb_top)

`include "abb_assert.svh"

module abb_ddr2_arb #(
  parameter int Depth = 2048  // read FIFO, DWs (holds a TLP of 4 KiB MPS)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [63:0] cfg_i,
  input  logic        rd_active_i,  // the upstream mover is busy
  input  logic [10:0] take_dw_i,    // DWs a TLP start takes (Max_Payload_Size)
  input  logic        rd_take_i,    // a TLP started (its header beat accepted)
  output logic        rd_wait_o,    // not enough DWs read ahead for a TLP
  input  logic [1:0]  wr_dw_i,      // downstream DMA DWs written this cycle
  input  logic        link_en_i,    // the link-input stream runs
  output logic        busy_o        // work left on the bus (not idle)
);

  localparam int LvlBits = $clog2(Depth) + 1;

  logic               en;
  logic [3:0]         burst_log2, width_log2, row_log2;
  logic [7:0]         rd_lat, row_cycles, wr_gap;
  logic [5:0]         link_dw16;
  assign en         = cfg_i[0];
  assign burst_log2 = cfg_i[7:4];
  assign width_log2 = cfg_i[11:8];
  assign rd_lat     = cfg_i[19:12];
  assign row_cycles = cfg_i[27:20];
  assign row_log2   = cfg_i[31:28];
  assign wr_gap     = cfg_i[39:32];
  assign link_dw16  = cfg_i[45:40];

  logic [LvlBits-1:0] lvl_q, lvl_d;    // DWs in the read FIFO
  // (bus_q and lat_q hold a burst of 1024 cycles, 4 KiB at 4 bytes a
  // cycle, plus a write turnaround or a row change and the read latency,
  // each up to 255 cycles: at most 1533)
  logic [10:0]        bus_q, bus_d;    // cycles the bus stays busy
  logic [10:0]        lat_q, lat_d;    // cycles until the next read burst may start
  logic [15:0]        wr_q, wr_d;      // DWs waiting to be written (saturating)
  logic [15:0]        row_q, row_d;    // bytes read since the last row change
  logic [3:0]         link_q, link_d;  // link input, sixteenths of a DW
  logic               act_q, act_d;    // rd_active_i last cycle

  logic [10:0] burst_dw;
  logic [10:0] burst_cyc;
  assign burst_dw  = 11'd1 << (burst_log2 - 4'd2);
  assign burst_cyc = 11'd1 << ((burst_log2 > width_log2) ? burst_log2 - width_log2 : 4'd0);

  assign rd_wait_o = en && (lvl_q < LvlBits'(take_dw_i));
  // a running link stream is work too: it adds to the write backlog in
  // cycles the platform would otherwise skip (the input would be lost)
  assign busy_o    = en && (bus_q != 11'd0 || wr_q != 16'd0 || lat_q != 11'd0 || act_q ||
                            (link_en_i && link_dw16 != 6'd0));

  logic [16:0] wsum, rsum;   // (wide sums: saturation, row crossing)
  logic [9:0]  link_sum;

  always_comb begin
    wsum     = '0;
    rsum     = '0;
    link_sum = '0;
    lvl_d  = lvl_q;
    bus_d  = bus_q;
    lat_d  = lat_q;
    wr_d   = wr_q;
    row_d  = row_q;
    link_d = link_q;
    act_d  = act_q;
    // (everything behind en: off, the model costs one test per cycle)
    if (en) begin
      act_d = rd_active_i;
      // link input: link_dw16 sixteenths of a DW per cycle
      link_sum = {4'h0, link_en_i ? link_dw16 : 6'd0} + {6'h0, link_q};
      link_d   = link_sum[3:0];
      wsum     = {1'b0, wr_q} + {15'h0, wr_dw_i} + {11'h0, link_sum[9:4]};
      wr_d     = wsum[16] ? 16'hffff : wsum[15:0];
      if (lat_q != 11'd0) lat_d = lat_q - 11'd1;
      if (rd_active_i && !act_q) lat_d = {3'b0, rd_lat};  // first access latency
      if (!rd_active_i) lvl_d = '0;
      else if (rd_take_i) lvl_d = (lvl_q > LvlBits'(take_dw_i)) ? lvl_q - LvlBits'(take_dw_i) : '0;
      if (bus_q != 11'd0) begin
        bus_d = bus_q - 11'd1;
      end else if (rd_active_i && act_q && lat_q == 11'd0 &&
                   lvl_d + LvlBits'(burst_dw) <= LvlBits'(Depth)) begin
        // a read burst: its data now, the next one after the latency
        lvl_d = lvl_d + LvlBits'(burst_dw);
        bus_d = burst_cyc - 11'd1;
        lat_d = burst_cyc + {3'b0, rd_lat} - 11'd1;
        rsum  = {1'b0, row_q} + (17'd1 << burst_log2);
        row_d = rsum[15:0];
        if (row_log2 != 4'd0 && rsum >= (17'd1 << row_log2)) begin
          row_d = '0;
          bus_d = bus_d + {3'b0, row_cycles};
          lat_d = lat_d + {3'b0, row_cycles};
        end
      end else if ((wr_d >= {5'h0, burst_dw} || (wr_d != 16'd0 && !rd_active_i)) &&
                   (!rd_active_i || !act_q || wr_d >= 16'h1000 ||
                    lat_d >= burst_cyc + {3'b0, wr_gap})) begin
        // a write burst (a partial one when no read waits); while reads run,
        // only one that ends before the next read may start (in the read
        // latency's gap), unless 4096 DWs wait
        wr_d  = (wr_d > {5'h0, burst_dw}) ? wr_d - {5'h0, burst_dw} : 16'd0;
        bus_d = burst_cyc - 11'd1 + {3'b0, wr_gap};
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      lvl_q  <= '0;
      bus_q  <= '0;
      lat_q  <= '0;
      wr_q   <= '0;
      row_q  <= '0;
      link_q <= '0;
      act_q  <= 1'b0;
    end else begin
      lvl_q  <= lvl_d;
      bus_q  <= bus_d;
      lat_q  <= lat_d;
      wr_q   <= wr_d;
      row_q  <= row_d;
      link_q <= link_d;
      act_q  <= act_d;
    end
  end

  // ---- assertion (test builds: ABB_ASSERT, see abb_assert.svh) --------------
  // busy_o = 0 lets abb_top report idle and the platform skip cycles, which
  // this block never steps through: without input (no read running, no write
  // data, no link stream) its state must then hold, or the skipped cycles
  // would lose the work (a read latency, a burst, a write backlog) that they
  // should have done
`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni && en && !busy_o && !rd_active_i && wr_dw_i == 2'd0 && !link_en_i)
      `ABB_CHECK(lvl_d == lvl_q && bus_d == bus_q && lat_d == lat_q && wr_d == wr_q &&
                 row_d == row_q && link_d == link_q && act_d == act_q,
                 "abb_ddr2_arb: not busy, but its state changes without input")
  end
`endif

endmodule
