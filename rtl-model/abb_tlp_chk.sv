// abb_tlp_chk.sv - assertion checker of the TX stream of abb_top (only
// instantiated with ABB_ASSERT): the TLPs the RTL sends, checked at the
// RTL / hard-IP boundary (TLP-STREAM.md).
//
//  - framing: a beat moves only inside a TLP or as its start; sop never
//    inside a TLP; eop exactly on the beat the header's Length calls for
//  - kinds: only MRd, MWr (3 or 4 DW header: 4 DW only above 4 GiB), Cpl, CplD
//  - MWr payload <= Max_Payload_Size, MRd request <= Max_Read_Request_Size,
//    CplD payload <= Max_Payload_Size
//  - no memory request crosses a 4 KiB boundary
//  - byte enables: First BE non-zero; a 1-DW request has Last BE 0, a longer
//    one a non-zero Last BE; both contiguous (the RTL moves whole DWs)
//  - padding: the unused upper half of a 3-DW header's second beat and of
//    an odd payload's last beat is 0; a memory request's address bits [1:0]
//    (reserved) are 0

`include "abb_assert.svh"

module abb_tlp_chk (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [10:0] mps_dw_i,
  input logic [10:0] mrrs_dw_i,
  input logic        tx_valid_i,
  input logic        tx_ready_i,
  input logic        tx_sop_i,
  input logic        tx_eop_i,
  input logic [63:0] tx_data_i
);

  logic        in_q;        // inside a TLP (its first beat moved)
  logic [10:0] beat_q;      // beats of the TLP moved so far
  logic [31:0] dw0_q, dw1_q;

  logic        beat;
  logic [2:0]  fmt;
  logic [4:0]  typ;
  logic [10:0] len;
  logic        is_mrd, is_mwr, is_cpl, is_cpld, has_data;
  logic [11:0] beats;       // beats the header calls for
  logic [31:0] d0, d1;
  logic [63:0] addr;

  assign beat    = tx_valid_i && tx_ready_i;
  assign d0      = (in_q ? dw0_q : tx_data_i[31:0]);
  assign d1      = (in_q ? dw1_q : tx_data_i[63:32]);
  assign fmt     = d0[31:29];
  assign typ     = d0[28:24];
  assign len     = (d0[9:0] == 10'd0) ? 11'd1024 : {1'b0, d0[9:0]};
  assign is_mrd  = fmt[2:1] == 2'b00 && typ == 5'b00000;
  assign is_mwr  = fmt[2:1] == 2'b01 && typ == 5'b00000;
  assign is_cpl  = fmt == 3'b000 && typ == 5'b01010;
  assign is_cpld = fmt == 3'b010 && typ == 5'b01010;
  assign has_data = fmt[1];
  assign beats   = 12'd2 + (has_data ? 12'((len + 11'd1) >> 1) : 12'd0);
  // beat 1 of a request: DW2 (3 DW) or DW2 = addr[63:32], DW3 = addr[31:0]
  assign addr    = fmt[0] ? {tx_data_i[31:0], tx_data_i[63:32]} : {32'h0, tx_data_i[31:0]};

  function automatic logic be_ok(input logic [3:0] be);
    // contiguous and non-zero: 0001 0011 0111 1111 0010 0110 1110 0100 1100 1000
    be_ok = be != 4'h0 && be != 4'b0101 && be != 4'b1001 && be != 4'b1010 && be != 4'b1011 &&
            be != 4'b1101;
  endfunction

`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni && beat) begin
      if (!in_q) begin
        `ABB_CHECK(tx_sop_i, "abb_tlp_chk: TX beat without start of packet")
        `ABB_CHECK(is_mrd || is_mwr || is_cpl || is_cpld, "abb_tlp_chk: TX TLP of an unsupported kind")
        `ABB_CHECK(!tx_eop_i, "abb_tlp_chk: TX TLP shorter than its two header beats")
        if (is_mwr || is_cpld)
          `ABB_CHECK(len <= mps_dw_i, "abb_tlp_chk: TX payload larger than Max_Payload_Size")
        if (is_mrd)
          `ABB_CHECK(len <= mrrs_dw_i, "abb_tlp_chk: read request larger than Max_Read_Request_Size")
        if (is_mrd || is_mwr) begin
          `ABB_CHECK(be_ok(d1[3:0]), "abb_tlp_chk: request with an illegal First BE")
          `ABB_CHECK(len == 11'd1 ? d1[7:4] == 4'h0 : be_ok(d1[7:4]),
                     "abb_tlp_chk: request with an illegal Last BE")
        end
      end else begin
        `ABB_CHECK(!tx_sop_i, "abb_tlp_chk: start of packet inside a TLP")
        `ABB_CHECK(tx_eop_i == (12'(beat_q) + 12'd1 == beats),
                   "abb_tlp_chk: TX end of packet not on the beat the Length calls for")
        if (beat_q == 11'd1 && (is_mrd || is_mwr)) begin
          `ABB_CHECK(fmt[0] == (addr[63:32] != 32'h0),
                     "abb_tlp_chk: 4-DW header below 4 GiB or 3-DW header above")
          `ABB_CHECK(fmt[0] || tx_data_i[63:32] == 32'h0, "abb_tlp_chk: 3-DW header padding not 0")
          `ABB_CHECK(addr[1:0] == 2'b00, "abb_tlp_chk: memory request address bits [1:0] (reserved) not 0")
          `ABB_CHECK({1'b0, addr[11:2]} + len <= 11'd1024,
                     "abb_tlp_chk: memory request crosses a 4 KiB boundary")
        end
        if (tx_eop_i && has_data && len[0])
          `ABB_CHECK(tx_data_i[63:32] == 32'h0, "abb_tlp_chk: odd payload's last beat padding not 0")
      end
    end
  end
`endif

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_q   <= 1'b0;
      beat_q <= '0;
      dw0_q  <= '0;
      dw1_q  <= '0;
    end else if (beat) begin
      in_q   <= !tx_eop_i;
      beat_q <= tx_eop_i ? 11'd0 : beat_q + 11'd1;
      if (!in_q) begin
        dw0_q <= tx_data_i[31:0];
        dw1_q <= tx_data_i[63:32];
      end
    end
  end

endmodule
