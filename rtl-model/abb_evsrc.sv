// abb_evsrc.sv - front-end event source: emulated optical-link data written
// into a FIFO that a fixed-address DMA read (board to host) drains.
//
// Model-defined (the real board receives this data from its optical links).
// While EVS_CTRL.ENABLE is set the source writes events of 4 + EVS_SIZE DWs
// into the FIFO, one 64-bit word per cycle, then waits EVS_GAP cycles. When
// the FIFO is full the source waits (link back-pressure): nothing is lost.
// Event format (DWs, little-endian):
//   0: EVS_MAGIC | total DWs      1: event counter (from 0)
//   2: source id (EVS_SRC)        3: ~event counter
//   4+i: (counter << 16 | i) ^ (source id << 8)   for payload DW i
// (field positions: abb_reg_pkg EVS_HDR_* and EVS_DATA_*, from abb_regs.def)
// The FIFO is read in DWs (a TLP may start or end in the middle of a 64-bit
// word): rd_dw_i DWs are taken per accepted beat.

module abb_evsrc #(
  parameter int DepthBits = 11  // log2 of the FIFO depth in 64-bit words
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        enable_i,
  input  logic        clear_i,      // pulse: empty the FIFO, restart the counter
  input  logic [abb_reg_pkg::EVS_SRC_ID_WIDTH-1:0]     src_id_i,
  input  logic [abb_reg_pkg::EVS_SIZE_DWS_WIDTH-1:0]   size_i,  // payload DWs (rounded up to even)
  input  logic [abb_reg_pkg::EVS_GAP_CYCLES_WIDTH-1:0] gap_i,   // idle cycles between events
  input  logic [31:0] skip_i,       // cycles the platform skipped before this edge (the
                                    // state, a stall too, held through them)
  // reader (the upstream mover)
  input  logic [1:0]  rd_dw_i,      // DWs taken this cycle (0, 1, 2)
  output logic [63:0] rd_data_o,    // the next two DWs (lane 0 first)
  output logic [31:0] level_o,      // DWs available
  // status
  output logic [31:0] events_o,     // events written so far
  output logic [31:0] stalls_o,     // cycles the source waited for room
  output logic        busy_o        // the source has work (enabled, FIFO not full)
);

  localparam int Depth = 2 ** DepthBits;

  logic [63:0]        fifo_q [Depth];
  logic [DepthBits:0] wr_q, wr_d, rd_q, rd_d;
  logic [DepthBits:0] used;
  logic               half_q, half_d;     // upper DW of the head word is the next DW
  logic [31:0]        cnt_q, cnt_d;       // event counter
  logic [12:0]        pos_q, pos_d;       // DW position inside the current event (up to
                                          // 4098: 13 bits, as total has)
  logic [abb_reg_pkg::EVS_GAP_CYCLES_WIDTH-1:0] gap_q, gap_d;  // idle cycles left
  logic [31:0]        stall_q, stall_d;

  assign used = wr_q - rd_q;
  logic full, push;
  assign full = (used == (DepthBits + 1)'(Depth));

  // event being written: total DWs = 4 + payload rounded up to even
  // (a function: evaluated with a push only)
  function automatic logic [12:0] ev_total(input logic [abb_reg_pkg::EVS_SIZE_DWS_WIDTH-1:0] size);
    ev_total = 13'd4 + {1'b0, size} + {12'h0, size[0]};
  endfunction

  function automatic logic [31:0] ev_dw(input logic [31:0] cnt,
                                        input logic [abb_reg_pkg::EVS_SRC_ID_WIDTH-1:0] src,
                                        input logic [12:0] tot, input logic [12:0] pos);
    if (pos == 13'd0)      ev_dw = abb_reg_pkg::EVS_MAGIC |
                                   ((32'(tot) << abb_reg_pkg::EVS_HDR_DWS_SHIFT) & abb_reg_pkg::EVS_HDR_DWS);
    else if (pos == 13'd1) ev_dw = cnt;
    else if (pos == 13'd2) ev_dw = 32'(src);
    else if (pos == 13'd3) ev_dw = ~cnt;
    else                   ev_dw = (((cnt << abb_reg_pkg::EVS_DATA_CNT_SHIFT) & abb_reg_pkg::EVS_DATA_CNT) |
                                    (((32'(pos) - 32'd4) << abb_reg_pkg::EVS_DATA_IDX_SHIFT) &
                                     abb_reg_pkg::EVS_DATA_IDX)) ^
                                   ((32'(src) << abb_reg_pkg::EVS_DATA_SRC_SHIFT) & abb_reg_pkg::EVS_DATA_SRC);
  endfunction

  // anything to do this cycle (enabled, a clear, a read): without, no flop
  // changes and the next-state logic is skipped
  logic act;
  assign act  = enable_i || clear_i || rd_dw_i != 2'd0;

  always_comb begin
    wr_d = wr_q;  rd_d = rd_q;  half_d = half_q;
    cnt_d = cnt_q;  pos_d = pos_q;  gap_d = gap_q;  stall_d = stall_q;
    push = 1'b0;
    if (act) begin
    push = enable_i && !full && gap_q == '0 && !clear_i;
    if (enable_i && gap_q != '0) gap_d = gap_q - 1'b1;
    if (enable_i && full) stall_d = stall_q + 32'd1 + skip_i;
    if (push) begin
      wr_d = wr_q + 1'b1;
      if (pos_q + 13'd2 >= ev_total(size_i)) begin
        pos_d = 13'd0;
        cnt_d = cnt_q + 32'd1;
        gap_d = gap_i;
      end else begin
        pos_d = pos_q + 13'd2;
      end
    end
    // reader: DWs leave from the head word; a word is freed when both are gone
    if (rd_dw_i == 2'd2 || (rd_dw_i == 2'd1 && half_q)) rd_d = rd_q + 1'b1;
    if (rd_dw_i == 2'd1) half_d = !half_q;
    if (clear_i) begin
      wr_d = '0;  rd_d = '0;  half_d = 1'b0;
      cnt_d = '0;  pos_d = '0;  gap_d = '0;  stall_d = '0;
    end
    end
  end

  // the next two DWs, starting at the upper half of the head word if half_q
  logic [63:0] head;
  logic [31:0] next_lo;
  assign head    = fifo_q[rd_q[DepthBits-1:0]];
  assign next_lo = fifo_q[rd_q[DepthBits-1:0] + 1'b1][31:0];
  assign rd_data_o = half_q ? {next_lo, head[63:32]} : head;
  assign level_o   = {{(30 - DepthBits){1'b0}}, used, 1'b0} - {31'h0, half_q};
  assign events_o  = cnt_q;
  assign stalls_o  = stall_q;
  assign busy_o    = enable_i && !full;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wr_q <= '0;  rd_q <= '0;  half_q <= 1'b0;
      cnt_q <= '0;  pos_q <= '0;  gap_q <= '0;  stall_q <= '0;
    end else if (act) begin
      wr_q <= wr_d;  rd_q <= rd_d;  half_q <= half_d;
      cnt_q <= cnt_d;  pos_q <= pos_d;  gap_q <= gap_d;  stall_q <= stall_d;
    end
  end

  always_ff @(posedge clk_i) begin
    // the event's two DWs built with a push only
    if (push) fifo_q[wr_q[DepthBits-1:0]] <= {ev_dw(cnt_q, src_id_i, ev_total(size_i), pos_q + 13'd1),
                                              ev_dw(cnt_q, src_id_i, ev_total(size_i), pos_q)};
  end

endmodule
