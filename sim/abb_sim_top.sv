// abb_sim_top.sv - the simulator's Verilator top (every build of the RTL model,
// sim/sim.mk): abb_top (instance u_abb) with the same ports, its data and
// configuration inputs held in registers that the cycle loop loads only when
// one changed (smp_i: speed), plus trace-only inputs the platform drives
// while a waveform is written (sim/trace.cpp) and decoded views of the TLP
// header beats. Nothing but the sampled inputs feeds abb_top. abb_top's
// ports (but clk_i, rst_ni) come from its one list,
// rtl-model/abb_top_ports.svh: this top's ports of the same name, the
// sampled copy smp_<name> of each input and the connections are expanded
// from it, so a port added to abb_top needs no line here.
//
// Sampled inputs (sim/model_inputs.h). Why: Verilator evaluates all logic
// that depends combinationally on a top input in its "input combinational"
// region on EVERY eval(), and the cycle loop (sim/hard_ip.cpp,
// sim/bare_bench.cpp) calls eval() twice per cycle (clock low, clock high).
// With abb_top's inputs driven straight from ports nearly the whole design
// is such logic: it ran three times per cycle (both evals plus after the
// rising edge). Driven from these registers it runs once per cycle (after
// the rising edge), plus once in a cycle whose inputs changed.
// Why identical: the loop sets a cycle's inputs before its clock-low eval(),
// raises smp_i for that eval() when any differs from the values last loaded
// and holds them through the clock-high eval(); so from the clock-low
// eval() to the rising clock edge, the only time any of abb_top's logic
// samples or observes them, abb_top sees exactly the values the loop set.
// rst_ni stays direct (synchronous reset, no combinational fan-out). The
// golden vectors (make vectors, abb_tests vectors) check it.
//
// Trace only:
//   cycle_i        the platform's cycle counter (continuous across skipped
//                  idle cycles; counts from the last hot reset, as the TLP log)
//   lane_*_i       text lanes, ASCII, first character in the top byte
//                  (GTKWave: Data Format > ASCII): the libabb call being
//                  served, TLPs as the TLP log writes them (one lane per
//                  direction), descriptor fetches, interrupts, IOMMU faults
//                  and protocol errors
//   tx_hdr, rx_hdr the 64-bit header beat at start of packet (else 0) as
//                  fields (fmt/type by name, length, tag, byte enables);
//                  rx_hdr from the sampled inputs (what abb_top sees)
//   tx_cpl, rx_cpl the same beat read as a completion header
//   up_free, down_free  free flow-control credits per class and direction
//
// The parameters repeat abb_top's (same defaults, passed down) so that -G
// works on this top as on abb_top (the 250 MHz build sets ClkNs to 4).
// Coverage is off in here (make coverage counts the RTL only) and back on at
// the end of the file (the RTL sources follow on Verilator's command line).

// verilator coverage_off
module abb_sim_top #(
  parameter int MemBitsMax = 24,
  parameter int NumTags    = 16,
  parameter int ClkNs      = 8,      // abb_top's user-clock period (sim/rtl_model.h)
  parameter bit SharedEngine = 1'b0,
  parameter int TxPostedMinAv = 12,
  parameter int CplTimeoutCycles = 1 << 22,
  parameter int LaneBits = 8 * 96
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // abb_top's other ports, the same names and types (rtl-model/abb_top_ports.svh)
`define ABB_TOP_IN(t, n)  input  t n,
`define ABB_TOP_OUT(t, n) output t n,
`include "abb_top_ports.svh"
`undef ABB_TOP_IN
`undef ABB_TOP_OUT
  input  logic        smp_i,         // rising: load the inputs (sim/model_inputs.h)
  // the deferred combinational pass (sim/defer_comb.py, sim/hard_ip.cpp): 1
  // while the loop's clock-high eval may leave it out (read by no logic: the
  // generated C++ tests it), and abb_top's quiet (its idle_o before the
  // second of the two cycles), which tells whether idle_o may rise after it
  input  logic        defer_i,
  output logic        quiet_o,
  // trace only
  input  logic [63:0]         cycle_i,
  input  logic [LaneBits-1:0] lane_api_i,
  input  logic [LaneBits-1:0] lane_tlp_down_i,
  input  logic [LaneBits-1:0] lane_tlp_up_i,
  input  logic [LaneBits-1:0] lane_desc_i,
  input  logic [LaneBits-1:0] lane_irq_i,
  input  logic [LaneBits-1:0] lane_err_i,
  input  logic [95:0]         up_credits_i,    // free flow-control credits, board to host
  input  logic [95:0]         down_credits_i   // host to board (16 bits each, ffff: no limit)
);

  // the sampled inputs: smp_<name> holds abb_top's input <name>, loaded at
  // the rising edge of smp_i; abb_top's outputs are this top's outputs
`define ABB_TOP_IN(t, n)  t smp_``n; always_ff @(posedge smp_i) smp_``n <= n;
`define ABB_TOP_OUT(t, n)
`include "abb_top_ports.svh"
`undef ABB_TOP_IN
`undef ABB_TOP_OUT

  abb_top #(
    .MemBitsMax(MemBitsMax), .NumTags(NumTags), .ClkNs(ClkNs),
    .SharedEngine(SharedEngine), .TxPostedMinAv(TxPostedMinAv),
    .CplTimeoutCycles(CplTimeoutCycles)
  ) u_abb (
    .clk_i, .rst_ni
`define ABB_TOP_IN(t, n)  , .n(smp_``n)
`define ABB_TOP_OUT(t, n) , .n
`include "abb_top_ports.svh"
`undef ABB_TOP_IN
`undef ABB_TOP_OUT
  );

  // DW0[31:24]: reserved bit, Fmt, Type
  typedef enum logic [7:0] {
    MRd32 = 8'h00, MRd64 = 8'h20, MWr32 = 8'h40, MWr64 = 8'h60,
    Cpl = 8'h0a, CplD = 8'h4a, Msg = 8'h34, MsgD = 8'h74,
    NoTlp = 8'hff   // trace only: no TLP on the stream
  } fmt_type_e;

  typedef enum logic [2:0] {
    SC = 3'd0, UR = 3'd1, CRS = 3'd2, CA = 3'd4
  } cpl_status_e;

  // header beat 0 of a request: DW1 (requester, tag, byte enables), DW0
  typedef struct packed {
    logic [15:0] req_id;
    logic [7:0]  tag;
    logic [3:0]  last_be;
    logic [3:0]  first_be;
    fmt_type_e   fmt_type;
    logic [7:0]  tc_attr;
    logic [5:0]  td_ep_at;
    logic [9:0]  length_dw;
  } req_hdr_t;

  // header beat 0 of a completion: DW1 (completer, status, BCM, byte count), DW0
  typedef struct packed {
    logic [15:0] cpl_id;
    cpl_status_e status;
    logic        bcm;
    logic [11:0] byte_count;
    fmt_type_e   fmt_type;
    logic [7:0]  tc_attr;
    logic [5:0]  td_ep_at;
    logic [9:0]  length_dw;
  } cpl_hdr_t;

  req_hdr_t tx_hdr, rx_hdr, tx_hdr_q, rx_hdr_q;
  cpl_hdr_t tx_cpl, rx_cpl;
  localparam logic [63:0] NoHdr = 64'h0000_0000_ff00_0000;
  // the header beat of the TLP on the stream: live at start of packet,
  // held for its other beats, NoTlp between TLPs
  always_ff @(posedge clk_i) begin
    if (tx_valid_o && smp_tx_ready_i && tx_sop_o) tx_hdr_q <= req_hdr_t'(tx_data_o);
    if (smp_rx_valid_i && rx_ready_o && smp_rx_sop_i) rx_hdr_q <= req_hdr_t'(smp_rx_data_i);
  end
  assign tx_hdr = !tx_valid_o ? req_hdr_t'(NoHdr) : tx_sop_o ? req_hdr_t'(tx_data_o) : tx_hdr_q;
  assign rx_hdr = !smp_rx_valid_i ? req_hdr_t'(NoHdr) : smp_rx_sop_i ? req_hdr_t'(smp_rx_data_i) : rx_hdr_q;
  assign tx_cpl = cpl_hdr_t'(tx_hdr);
  assign rx_cpl = cpl_hdr_t'(rx_hdr);

  // flow-control credits the transmitter may still use (fields as the
  // link's limits: header credits count TLPs, data credits 16 bytes)
  typedef struct packed {
    logic [15:0] p_hdr, p_data, np_hdr, np_data, cpl_hdr, cpl_data;
  } credits_t;
  credits_t up_free, down_free;
  assign up_free = credits_t'(up_credits_i);
  assign down_free = credits_t'(down_credits_i);

  // unused in the design (only the waveform shows them): read here so that
  // lint stays quiet
  assign quiet_o = u_abb.quiet;

  logic unused;
  assign unused = ^{defer_i, cycle_i, lane_api_i, lane_tlp_down_i, lane_tlp_up_i, lane_desc_i,
                    lane_irq_i, lane_err_i, tx_cpl, rx_cpl, up_free, down_free};
endmodule
// verilator coverage_on
