// abb_sim_top.sv - the simulator's Verilator top: abb_top with the same
// ports, plus trace-only inputs the platform drives while a waveform is
// written (sim/trace.cpp) and decoded views of the TLP header beats. Not
// part of the design: nothing here feeds abb_top.
//
//   cycle_i        the platform's cycle counter (continuous across skipped
//                  idle cycles; counts from the last hot reset, as the TLP log)
//   lane_*_i       text lanes, ASCII, first character in the top byte
//                  (GTKWave: Data Format > ASCII): the libabb call being
//                  served, TLPs as the TLP log writes them (one lane per
//                  direction), descriptor fetches, interrupts, IOMMU faults
//                  and protocol errors
//   tx_hdr, rx_hdr the 64-bit header beat at start of packet (else 0) as
//                  fields (fmt/type by name, length, tag, byte enables);
//   tx_cpl, rx_cpl the same beat read as a completion header
//   up_free, down_free  free flow-control credits per class and direction
//
// Every build of the simulator's model has this top (sim/sim.mk): ClkNs is
// passed to abb_top (the 250 MHz build sets it to 4). Coverage is off in
// here (make coverage counts the RTL only) and back on at the end of the
// file (the RTL sources follow on Verilator's command line).

// verilator coverage_off
module abb_sim_top #(
  parameter int ClkNs = 8,           // abb_top's user-clock period (sim/rtl_model.h)
  parameter int LaneBits = 8 * 96
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        cfg_bus_master_en_i,
  input  logic [2:0]  cfg_max_payload_i,
  input  logic [2:0]  cfg_max_read_req_i,
  input  logic [15:0] cfg_req_id_i,
  input  logic        cfg_msi_en_i,
  input  logic [4:0]  cfg_mem_bits_i,
  input  logic        strict_i,
  input  logic        rx_valid_i,
  output logic        rx_ready_o,
  input  logic        rx_sop_i,
  input  logic        rx_eop_i,
  input  logic [63:0] rx_data_i,
  input  logic        rx_bar_i,
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  input  logic [5:0]  tx_buf_av_i,
  output logic        tx_sop_o,
  output logic        tx_eop_o,
  output logic [63:0] tx_data_o,
  output logic        irq_o,
  output logic        idle_o,
  input  logic [31:0] skip_cycles_i,
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

  abb_top #(.ClkNs(ClkNs)) u_abb (.*);

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
    if (tx_valid_o && tx_ready_i && tx_sop_o) tx_hdr_q <= req_hdr_t'(tx_data_o);
    if (rx_valid_i && rx_ready_o && rx_sop_i) rx_hdr_q <= req_hdr_t'(rx_data_i);
  end
  assign tx_hdr = !tx_valid_o ? req_hdr_t'(NoHdr) : tx_sop_o ? req_hdr_t'(tx_data_o) : tx_hdr_q;
  assign rx_hdr = !rx_valid_i ? req_hdr_t'(NoHdr) : rx_sop_i ? req_hdr_t'(rx_data_i) : rx_hdr_q;
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
  logic unused;
  assign unused = ^{cycle_i, lane_api_i, lane_tlp_down_i, lane_tlp_up_i, lane_desc_i,
                    lane_irq_i, lane_err_i, tx_cpl, rx_cpl, up_free, down_free};
endmodule
// verilator coverage_on
