// abb_tx_arb.sv - TLP-granular round-robin arbiter of the TX stream.
//
// Each source offers whole TLPs (valid/sop/eop/data). While no TLP is in
// progress the arbiter offers the first valid source after the last winner;
// once a TLP's first beat is accepted the grant stays with that source until
// its eop beat. The outputs depend on flops only (sources drive from flops),
// never on tx_ready_i, as TLP-STREAM.md requires.
//
// Posted backlog limit: a source in PostedSrc (posted writes: the upstream
// DMA data) may start a TLP only while the hard block reports at least
// PostedMinAv free 128-byte units of transmit buffer (tx_buf_av_i, taken a
// cycle late). Posted writes alone would otherwise fill that buffer, and
// a read request or a completion queued behind them waits for all of it
// (PCIe ordering forbids it to pass them), which stalls the other channel
// and the host's status reads. Other sources start whenever tx_ready_i
// allows.
//
// src_sel_o has the bit of the source whose data tx_data_o shows (the pick,
// or the source of the TLP in progress), in every cycle, also without a
// valid beat. A source may drive its data only while its bit is set (0
// otherwise): the simulator then skips the logic of the data no one looks
// at (abb_top's sources all do).

`include "abb_assert.svh"

module abb_tx_arb #(
  parameter int N = 4,                   // number of sources
  parameter logic [31:0] PostedSrc = 0, // bit k set: source k sends posted TLPs
  parameter int PostedMinAv = 0          // 0: no limit
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [5:0]      tx_buf_av_i,
  input  logic [N-1:0]    src_valid_i,
  input  logic [N-1:0]    src_sop_i,
  input  logic [N-1:0]    src_eop_i,
  input  logic [N*64-1:0] src_data_i,
  output logic [N-1:0]    src_ready_o,
  output logic [N-1:0]    src_sel_o,     // one-hot: the source tx_data_o shows
  output logic            tx_valid_o,
  input  logic            tx_ready_i,
  output logic            tx_sop_o,
  output logic            tx_eop_o,
  output logic [63:0]     tx_data_o
);

  localparam int IdxW = (N > 1) ? $clog2(N) : 1;

  logic            locked_q, locked_d;
  logic [IdxW-1:0] last_q, last_d;     // last winner, for round robin; while
                                       // locked_q also the source of the TLP in progress
  logic [IdxW-1:0] pick;
  logic            pick_any;
  logic            hold_posted_q;       // too little buffer for a posted TLP
  logic [N-1:0]    elig;                // sources that may start a TLP

  // (one vector expression: a loop over the bits costs the simulator a
  // masked insert per source and cycle)
  assign elig = src_valid_i & ~(PostedSrc[N-1:0] & {N{hold_posted_q}});

  // Round robin: the first eligible source after last_q (last_q < N). elig
  // twice in a row, shifted right by last_q + 1, has source
  // (last_q + 1 + j) mod N at bit j; its lowest set bit, at index off, wins:
  // pick = (last_q + 1 + off) mod N; none eligible: pick = last_q.
  // Bit operations rather than a loop over the sources, for simulation
  // speed: the simulator unrolls such a loop into N compares every cycle.
  logic [N-1:0]  rot, rot_lsb;
  logic [IdxW-1:0] off;
  logic [IdxW:0]   nxt;
  assign rot      = N'({elig, elig} >> ({1'b0, last_q} + (IdxW + 1)'(1)));
  assign rot_lsb  = rot & (~rot + N'(1));
  assign pick_any = |rot;
  // bit b of the positions whose index has bit b set (a constant: elaboration only, no coverage point)
  /* verilator coverage_off */ function automatic logic [N-1:0] pos_with_bit(int b);
    for (int j = 0; j < N; j++) pos_with_bit[j] = ((j >> b) & 1) != 0;
  endfunction /* verilator coverage_on */
  for (genvar b = 0; b < IdxW; b++) begin : g_off
    localparam logic [N-1:0] WithBit = pos_with_bit(b);
    assign off[b] = |(rot_lsb & WithBit);
  end
  assign nxt  = {1'b0, last_q} + (IdxW + 1)'(1) + {1'b0, off};
  assign pick = !pick_any ? last_q : (nxt >= (IdxW + 1)'(N)) ? IdxW'(nxt - (IdxW + 1)'(N)) : IdxW'(nxt);

  logic [IdxW-1:0] sel;
  assign sel = locked_q ? last_q : pick;

  // sel as one-hot (0 for sel >= N, a state never reached: last_q < N)
  assign src_sel_o = N'(1) << sel;

  always_comb begin
    tx_valid_o = locked_q ? src_valid_i[last_q] : pick_any;
    tx_sop_o   = src_sop_i[sel];
    tx_eop_o   = src_eop_i[sel];
    src_ready_o = (tx_ready_i && tx_valid_o) ? src_sel_o : '0;
  end

  // the data of the selected source, by its one-hot bit (a part-select at
  // 64 * sel makes the simulator assemble all N*64 bits first)
  always_comb begin
    tx_data_o = '0;
    for (int k = 0; k < N; k++)
      if (src_sel_o[k]) tx_data_o = src_data_i[64*k +: 64];
  end

  always_comb begin
    locked_d = locked_q;
    last_d   = last_q;
    if (tx_valid_o && tx_ready_i) begin
      locked_d = !tx_eop_o;
      if (!locked_q) last_d = sel;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      locked_q <= 1'b0;
      last_q   <= '0;
      hold_posted_q <= 1'b0;
    end else begin
      locked_q <= locked_d;
      last_q   <= last_d;
      hold_posted_q <= {26'd0, tx_buf_av_i} < PostedMinAv;
    end
  end

  // ---- protocol assertions (test builds: ABB_ASSERT, see abb_assert.svh) ----
`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      `ABB_CHECK($onehot0(src_ready_o), "abb_tx_arb: grant (src_ready_o) not one-hot")
      `ABB_CHECK((src_ready_o & ~src_valid_i) == '0, "abb_tx_arb: grant to a source that is not valid")
      `ABB_CHECK(!locked_q || src_valid_i[last_q], "abb_tx_arb: a source dropped valid inside its TLP")
      `ABB_CHECK(!locked_q || !src_sop_i[last_q], "abb_tx_arb: start of packet inside the granted TLP")
      if (tx_valid_o && !locked_q)
        `ABB_CHECK(tx_sop_o, "abb_tx_arb: a TLP starts without start of packet")
      // the only credit the RTL tracks: the hard block's transmit buffer
      if (tx_valid_o && tx_ready_i && !locked_q && PostedSrc[5'(sel)])
        `ABB_CHECK(!hold_posted_q, "abb_tx_arb: posted TLP started with too little TX buffer")
    end
  end
`endif

endmodule
