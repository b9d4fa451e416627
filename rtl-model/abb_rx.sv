// abb_rx.sv - RX TLP parser: splits the stream from the link into PIO
// register writes (BAR0), PIO memory writes (BAR1), PIO read requests and
// completion beats for the DMA engine. Beat format: TLP-STREAM.md.
//
// Supported: MWr/MRd with 3- or 4-DW headers, Cpl/CplD. BAR0 writes must be
// one DW (a longer one is dropped: GER BAD_TLP); anything else (messages,
// I/O, locked or atomic requests) is dropped the same way.

`include "abb_assert.svh"

module abb_rx #(
  parameter int AddrBits = 22  // board-memory word-index width
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // stream from the link
  input  logic                rx_valid_i,
  output logic                rx_ready_o,
  input  logic                rx_sop_i,
  input  logic                rx_eop_i,
  input  logic [63:0]         rx_data_i,
  input  logic                rx_bar_i,
  input  logic [AddrBits-1:0] mem_mask_i,   // word-index mask of the BAR1 size
  // PIO register write (BAR0)
  output logic                reg_we_o,
  output logic [15:0]         reg_waddr_o,  // byte offset
  output logic [31:0]         reg_wdata_o,
  // PIO memory write (BAR1)
  output logic [1:0]          mem_we_o,
  output logic [AddrBits-1:0] mem_waddr0_o,
  output logic [AddrBits-1:0] mem_waddr1_o,
  output logic [63:0]         mem_wdata_o,
  output logic [7:0]          mem_wbe_o,
  // PIO read request
  output logic                rd_valid_o,
  input  logic                rd_ready_i,
  output logic                rd_bar_o,
  output logic [31:0]         rd_addr_o,    // byte offset inside the BAR, DW aligned
  output logic [10:0]         rd_len_o,     // DWs, 1..1024
  output logic [3:0]          rd_first_be_o,
  output logic [3:0]          rd_last_be_o,
  output logic [15:0]         rd_req_id_o,
  output logic [7:0]          rd_tag_o,
  // completion beats (CplD payload, or one beat with cpl_dw_o = 0 for a Cpl)
  output logic                cpl_valid_o,
  output logic [7:0]          cpl_tag_o,
  output logic [2:0]          cpl_status_o,
  output logic [1:0]          cpl_dw_o,     // valid DWs in cpl_data_o: 0, 1 or 2
  output logic [63:0]         cpl_data_o,
  output logic                cpl_last_o,   // last beat of this completion TLP
  output logic                cpl_poison_o, // the completion's EP bit (poisoned data)
  output logic                cpl_first_o,  // first beat of this completion TLP
  output logic [6:0]          cpl_la_o,     // its Lower Address field
  // events
  output logic                bad_tlp_o,    // a TLP was dropped
  output logic                cpl_seen_o,   // first beat of a completion (counter)
  output logic                busy_o        // inside a TLP
);

  typedef enum logic [2:0] {
    StHdr0,
    StHdr1,
    StData,
    StRdReq,
    StDrop
  } state_e;

  typedef enum logic [1:0] {
    KPioWr,
    KCpl,
    KOther
  } kind_e;

  state_e      state_q, state_d;
  logic [31:0] dw0_q, dw0_d;
  logic [31:0] dw1_q, dw1_d;
  logic        bar_q, bar_d;
  kind_e       kind_q, kind_d;
  logic [31:0] addr_q, addr_d;   // byte address (PIO) of the next payload DW
  logic [10:0] left_q, left_d;   // payload DWs still to come
  logic        first_q, first_d; // next payload beat is the first

  logic beat;
  assign beat = rx_valid_i && rx_ready_o;
  assign rx_ready_o = (state_q != StRdReq);
  assign busy_o = (state_q != StHdr0);

  // Header fields of the TLP being parsed (DW0, DW1 latched; DW2/DW3 on beat 1).
  logic [2:0]  fmt;
  logic [4:0]  typ;
  logic [10:0] len_dw;
  assign fmt    = dw0_q[31:29];
  assign typ    = dw0_q[28:24];
  assign len_dw = (dw0_q[9:0] == 10'd0) ? 11'd1024 : {1'b0, dw0_q[9:0]};

  logic is_mrd, is_mwr, is_cpl, is_cpld, hdr4;
  assign hdr4    = fmt[0];
  assign is_mrd  = (fmt[2:1] == 2'b00) && (typ == 5'b00000);
  assign is_mwr  = (fmt[2:1] == 2'b01) && (typ == 5'b00000);
  assign is_cpl  = (fmt == 3'b000) && (typ == 5'b01010);
  assign is_cpld = (fmt == 3'b010) && (typ == 5'b01010);

  // address of a memory request: DW2 (3-DW) or DW3 (4-DW; upper half ignored,
  // the BAR offset is what counts)
  logic [31:0] req_addr;
  assign req_addr = hdr4 ? rx_data_i[63:32] : rx_data_i[31:0];

  // PIO write lanes of the current payload beat
  logic [1:0]  pay_dw;        // DWs in this beat
  logic        lane1_last;
  assign pay_dw = (left_q >= 11'd2) ? 2'd2 : 2'd1;

  always_comb begin
    state_d = state_q;
    dw0_d   = dw0_q;
    dw1_d   = dw1_q;
    bar_d   = bar_q;
    kind_d  = kind_q;
    addr_d  = addr_q;
    left_d  = left_q;
    first_d = first_q;

    reg_we_o    = 1'b0;
    reg_waddr_o = addr_q[15:0];
    reg_wdata_o = rx_data_i[31:0];
    mem_we_o    = 2'b00;
    mem_waddr0_o = '0;  // set with mem_we_o only (abb_mem reads them with a write only)
    mem_waddr1_o = '0;
    mem_wdata_o = rx_data_i;
    mem_wbe_o   = 8'hff;
    lane1_last  = 1'b0;

    cpl_valid_o  = 1'b0;
    cpl_tag_o    = 8'h00;
    cpl_status_o = dw1_q[15:13];
    cpl_dw_o     = 2'd0;
    cpl_data_o   = rx_data_i;
    cpl_last_o   = 1'b0;
    bad_tlp_o    = 1'b0;
    cpl_seen_o   = 1'b0;
    cpl_first_o  = first_q;
    cpl_la_o     = addr_q[14:8];

    // Without a beat offered nothing happens in the header and data states:
    // the case is skipped (cost per idle cycle), StRdReq, StDrop and the
    // unused encodings are evaluated as before.
    if (rx_valid_i || state_q >= StRdReq) unique case (state_q)
      StHdr0: begin
        if (beat && rx_sop_i) begin
          dw0_d   = rx_data_i[31:0];
          dw1_d   = rx_data_i[63:32];
          bar_d   = rx_bar_i;
          if (rx_eop_i) bad_tlp_o = 1'b1;  // a header needs two beats
          else          state_d   = StHdr1;
        end
      end
      StHdr1: begin
        if (beat) begin
          first_d = 1'b1;
          left_d  = len_dw;
          addr_d  = {req_addr[31:2], 2'b00};
          if (is_mwr && !rx_eop_i && (bar_q || len_dw == 11'd1)) begin
            kind_d  = KPioWr;
            state_d = StData;
          end else if (is_mrd && rx_eop_i) begin
            state_d = StRdReq;
          end else if (is_cpld && !rx_eop_i) begin
            kind_d  = KCpl;
            state_d = StData;
            cpl_seen_o = 1'b1;
          end else if (is_cpl && rx_eop_i) begin
            // completion without data (an error status): one event beat
            cpl_valid_o = 1'b1;
            cpl_tag_o   = rx_data_i[15:8];
            cpl_first_o = 1'b1;
            cpl_la_o    = rx_data_i[6:0];
            cpl_last_o  = 1'b1;
            cpl_seen_o  = 1'b1;
            state_d     = StHdr0;
          end else begin
            bad_tlp_o = 1'b1;
            if (rx_eop_i) state_d = StHdr0;
            else          state_d = StDrop;
          end
          // keep DW2 of a completion (requester id, tag) in dw1's place is not
          // needed: the tag is latched into addr_q[7:0] for completions
          if (is_cpld) addr_d = {17'h0, rx_data_i[6:0], rx_data_i[15:8]};
        end
      end
      StData: begin
        if (beat) begin
          first_d = 1'b0;
          left_d  = left_q - 11'(pay_dw);
          if (kind_q == KPioWr) begin
            addr_d = addr_q + 32'd8;
            if (bar_q) begin
              mem_we_o   = (pay_dw == 2'd2) ? 2'b11 : 2'b01;
              mem_waddr0_o = addr_q[AddrBits+1:2] & mem_mask_i;
              mem_waddr1_o = (addr_q[AddrBits+1:2] + AddrBits'(1)) & mem_mask_i;
              lane1_last = (left_q == 11'd2);
              // byte enables: first DW of the TLP gets First BE, the last
              // gets Last BE (a 1-DW TLP uses First BE only)
              mem_wbe_o[3:0] = first_q ? dw1_q[3:0] :
                               (left_q == 11'd1) ? dw1_q[7:4] : 4'hf;
              mem_wbe_o[7:4] = lane1_last ? dw1_q[7:4] : 4'hf;
            end else if (first_q && dw1_q[3:0] != 4'h0) begin
              reg_we_o = 1'b1;
            end
          end else begin
            cpl_valid_o = 1'b1;
            cpl_tag_o   = addr_q[7:0];
            cpl_dw_o    = pay_dw;
            cpl_last_o  = (left_q <= 11'd2);
          end
          if (rx_eop_i) begin
            state_d = StHdr0;
            if (left_q > 11'd2) bad_tlp_o = 1'b1;  // shorter than its Length
          end else if (left_q <= 11'd2) begin
            state_d = StDrop;                        // longer than its Length
            bad_tlp_o = 1'b1;
          end
        end
      end
      StRdReq: begin
        if (rd_ready_i) state_d = StHdr0;
      end
      StDrop: begin
        if (beat && rx_eop_i) state_d = StHdr0;
      end
      default: state_d = StHdr0;
    endcase
  end

  // EP (DW0 bit 14) of the completion being passed on (model: its data is
  // poisoned: the DMA engine must not write it to board memory)
  assign cpl_poison_o = dw0_q[14];

  // The read request waits in StRdReq with its fields in the header flops.
  assign rd_valid_o    = (state_q == StRdReq);
  assign rd_bar_o      = bar_q;
  assign rd_addr_o     = addr_q;
  assign rd_len_o      = len_dw;
  assign rd_first_be_o = dw1_q[3:0];
  assign rd_last_be_o  = dw1_q[7:4];
  assign rd_req_id_o   = dw1_q[31:16];
  assign rd_tag_o      = dw1_q[15:8];

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= StHdr0;
      dw0_q   <= '0;
      dw1_q   <= '0;
      bar_q   <= 1'b0;
      kind_q  <= KOther;
      addr_q  <= '0;
      left_q  <= '0;
      first_q <= 1'b0;
    end else begin
      state_q <= state_d;
      dw0_q   <= dw0_d;
      dw1_q   <= dw1_d;
      bar_q   <= bar_d;
      kind_q  <= kind_d;
      addr_q  <= addr_d;
      left_q  <= left_d;
      first_q <= first_d;
    end
  end

  // ---- protocol assertions (test builds: ABB_ASSERT, see abb_assert.svh) ----
`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // the hard IP frames every TLP (sop on its first beat only)
      if (beat)
        `ABB_CHECK(rx_sop_i == (state_q == StHdr0), "abb_rx: RX beat without sop, or sop inside a TLP")
      `ABB_CHECK(!(cpl_valid_o && mem_we_o != 2'b00), "abb_rx: PIO write and completion data in one cycle")
      `ABB_CHECK(!(reg_we_o && mem_we_o != 2'b00), "abb_rx: register and memory write in one cycle")
      `ABB_CHECK(mem_we_o == 2'b00 || (bar_q && kind_q == KPioWr && state_q == StData),
                 "abb_rx: board memory written outside a BAR1 write")
      `ABB_CHECK(mem_we_o != 2'b10, "abb_rx: upper lane written without the lower one")
      `ABB_CHECK(!reg_we_o || (!bar_q && kind_q == KPioWr), "abb_rx: register write outside a BAR0 write")
      `ABB_CHECK(cpl_dw_o == 2'd0 || cpl_valid_o, "abb_rx: completion data without valid")
      `ABB_CHECK(cpl_dw_o != 2'd3, "abb_rx: completion beat of 3 DWs")
      `ABB_CHECK(!rd_valid_o || (rd_len_o != 11'd0 && rd_len_o <= 11'd1024), "abb_rx: read request length")
    end
  end
`endif

endmodule
