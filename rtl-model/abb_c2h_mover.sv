// abb_c2h_mover.sv - data mover of the upstream channel (board to host,
// "DMA read"): reads board memory and sends it as posted memory writes.
//
// Each TLP carries min(remaining, Max_Payload_Size, bytes to the next 4 KiB
// boundary of the host address): no write crosses a 4 KiB boundary. TLPs
// follow each other without idle beats. With inc_i clear every DW comes
// from the same board address (a FIFO port). done_o is pulsed after the
// last beat was accepted by TX, so any later MSI or completion is ordered
// behind the data. A fixed-address transfer from the event-source address
// (EVS_ADDR) drains the front-end FIFO instead of memory; each TLP then waits
// until the FIFO holds its whole payload.

`include "abb_assert.svh"

module abb_c2h_mover #(
  parameter int AddrBits = 22  // board-memory word-index width
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [15:0]         cfg_req_id_i,
  input  logic [10:0]         mps_dw_i,     // max payload in DWs
  input  logic [AddrBits-1:0] mem_mask_i,
  // command from abb_dma_ctl
  input  logic                start_i,
  input  logic [31:0]         pa_i,         // board byte address
  input  logic [63:0]         ha_i,         // host byte address
  input  logic [31:0]         len_i,        // bytes, multiple of 4
  input  logic                inc_i,
  input  logic                abort_i,
  output logic                busy_o,
  output logic                done_o,
  // board memory read port
  output logic [AddrBits-1:0] mem_addr0_o,
  output logic [AddrBits-1:0] mem_addr1_o,
  input  logic [63:0]         mem_data_i,
  // front-end event FIFO (abb_evsrc)
  input  logic [31:0]         evs_addr_i,
  input  logic [63:0]         fifo_data_i,
  input  logic [31:0]         fifo_level_i,
  output logic [1:0]          fifo_rd_dw_o,
  // TX source
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic                tx_sop_o,
  output logic                tx_eop_o,
  output logic [63:0]         tx_data_o,
  input  logic                tx_sel_i,     // the arbiter shows this source's data (abb_tx_arb's
                                            // src_sel_o): tx_data_o is 0 otherwise
  output logic                tlp_o         // pulse per TLP sent (counter)
);

  typedef enum logic [1:0] {
    StIdle,
    StHdr0,
    StHdr1,
    StData
  } state_e;

  state_e              state_q, state_d;
  logic [63:0]         ha_q, ha_d;
  logic [29:0]         rem_q, rem_d;     // DWs not yet put into a TLP
  logic [AddrBits-1:0] pa_q, pa_d;       // word index of the next DW
  logic [10:0]         left_q, left_d;   // DWs of the current TLP still to send
  logic                inc_q, inc_d;
  logic                fifo_q, fifo_d;   // this transfer drains the event FIFO

  // payload of the next TLP: read in StHdr0 only (its header, the FIFO
  // test, the data count), so evaluated there only (0 elsewhere)
  logic [10:0] chunk;
  always_comb begin
    chunk = '0;
    if (state_q == StHdr0) chunk = abb_tlp_pkg::chunk_dw(mps_dw_i, ha_q[11:2], rem_q);
  end

  logic hdr4;
  assign hdr4 = (ha_q[63:32] != 32'h0);

  assign busy_o      = (state_q != StIdle);
  assign mem_addr0_o = pa_q & mem_mask_i;
  assign mem_addr1_o = (inc_q ? pa_q + AddrBits'(1) : pa_q) & mem_mask_i;
  // no header is offered in the cycle the mover decides to stop
  logic stop, fifo_wait;
  logic [1:0] beat_dw;   // DWs of the current data beat
  assign stop        = abort_i || rem_q == 30'd0;
  assign fifo_wait   = fifo_q && (fifo_level_i < {21'h0, chunk});
  assign beat_dw     = (left_q >= 11'd2) ? 2'd2 : 2'd1;
  assign tx_valid_o  = (state_q != StIdle) && !(state_q == StHdr0 && (stop || fifo_wait));
  assign fifo_rd_dw_o = (fifo_q && state_q == StData && tx_ready_i) ? beat_dw : 2'd0;
  assign tx_sop_o    = (state_q == StHdr0);
  assign tx_eop_o    = (state_q == StData) && (left_q <= 11'd2);

  // (a default first, then the cases: so the simulator evaluates a header
  // function only in its case, not both ahead of a select)
  always_comb begin
    tx_data_o = 64'h0;
    if (tx_sel_i) begin
      unique case (state_q)
        StHdr0: tx_data_o = abb_tlp_pkg::req_hdr0(cfg_req_id_i, 8'h00, 1'b1, hdr4, chunk);
        StHdr1: tx_data_o = abb_tlp_pkg::req_hdr1({ha_q[63:2], 2'b00});
        StData: begin
          tx_data_o = fifo_q ? fifo_data_i : mem_data_i;
          if (left_q == 11'd1) tx_data_o[63:32] = 32'h0;
        end
        default: ;
      endcase
    end
  end

  always_comb begin
    state_d = state_q;
    ha_d    = ha_q;
    rem_d   = rem_q;
    pa_d    = pa_q;
    left_d  = left_q;
    inc_d   = inc_q;
    fifo_d  = fifo_q;
    done_o  = 1'b0;
    tlp_o   = 1'b0;

    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          ha_d    = ha_i;
          rem_d   = len_i[31:2];
          pa_d    = pa_i[AddrBits+1:2];
          inc_d   = inc_i;
          fifo_d  = !inc_i && pa_i == evs_addr_i;
          state_d = StHdr0;
        end
      end
      StHdr0: begin
        if (stop) begin
          done_o  = 1'b1;
          state_d = StIdle;
        end else if (tx_ready_i && !fifo_wait) begin
          left_d  = chunk;
          tlp_o   = 1'b1;
          state_d = StHdr1;
        end
      end
      StHdr1: begin
        if (tx_ready_i) begin
          ha_d    = ha_q + {51'h0, left_q, 2'b00};
          rem_d   = rem_q - 30'(left_q);
          state_d = StData;
        end
      end
      StData: begin
        if (tx_ready_i) begin
          if (inc_q) pa_d = pa_q + AddrBits'(beat_dw);
          left_d = (left_q >= 11'd2) ? left_q - 11'd2 : 11'd0;
          if (left_q <= 11'd2) begin
            if (rem_q == 30'd0 || abort_i) begin
              done_o  = 1'b1;
              state_d = StIdle;
            end else begin
              state_d = StHdr0;
            end
          end
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      ha_q    <= '0;
      rem_q   <= '0;
      pa_q    <= '0;
      left_q  <= '0;
      inc_q   <= 1'b0;
      fifo_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      ha_q    <= ha_d;
      rem_q   <= rem_d;
      pa_q    <= pa_d;
      left_q  <= left_d;
      inc_q   <= inc_d;
      fifo_q  <= fifo_d;
    end
  end

  // ---- protocol assertions (test builds: ABB_ASSERT, see abb_assert.svh) ----
`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (state_q == StHdr0 && tx_valid_o && tx_ready_i) begin
        `ABB_CHECK(chunk != 11'd0, "abb_c2h_mover: memory write without payload")
        `ABB_CHECK(chunk <= mps_dw_i, "abb_c2h_mover: memory write larger than Max_Payload_Size")
        `ABB_CHECK({1'b0, ha_q[11:2]} + chunk <= 11'd1024,
                   "abb_c2h_mover: memory write crosses a 4 KiB boundary")
        `ABB_CHECK(30'(chunk) <= rem_q, "abb_c2h_mover: memory write past the end of the transfer")
        `ABB_CHECK(ha_q[1:0] == 2'b00, "abb_c2h_mover: host address not DW aligned")
      end
      if (state_q == StData)
        `ABB_CHECK(left_q != 11'd0 && tx_valid_o, "abb_c2h_mover: data beat with nothing left to send")
      `ABB_CHECK(32'(fifo_rd_dw_o) <= fifo_level_i, "abb_c2h_mover: event FIFO read past its level")
      `ABB_CHECK(!done_o || busy_o, "abb_c2h_mover: done without a command")
      `ABB_CHECK(!start_i || state_q == StIdle, "abb_c2h_mover: started while busy")
    end
  end
`endif

endmodule
