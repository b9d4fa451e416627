// abb_pio_cpl.sv - answers PIO memory reads (MRd to BAR0/BAR1) with one
// completion TLP each.
//
// BAR0: one DW per request (a register), captured when the request is
// accepted, so a read side effect (RX FIFO pop) happens exactly once.
// BAR1: up to Max_Payload_Size, read straight from board memory while the
// payload beats are sent. Anything else gets a completion without data and
// status UR (unsupported request).

module abb_pio_cpl #(
  parameter int AddrBits = 22  // board-memory word-index width
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [15:0]         cfg_req_id_i,  // completer id
  input  logic [10:0]         mps_dw_i,      // max payload in DWs
  input  logic [AddrBits-1:0] mem_mask_i,
  // request from abb_rx
  input  logic                rd_valid_i,
  output logic                rd_ready_o,
  input  logic                rd_bar_i,
  input  logic [31:0]         rd_addr_i,
  input  logic [10:0]         rd_len_i,
  input  logic [3:0]          rd_first_be_i,
  input  logic [3:0]          rd_last_be_i,
  input  logic [15:0]         rd_req_id_i,
  input  logic [7:0]          rd_tag_i,
  // register read port (abb_regs)
  output logic                reg_re_o,      // pulse: the register is read now
  output logic                reg_rsample_o, // pulse: reg_rdata_i is taken now (any request taken;
                                             // abb_regs drives it only then)
  output logic [15:0]         reg_raddr_o,
  input  logic [31:0]         reg_rdata_i,
  // board memory read port
  output logic [AddrBits-1:0] mem_addr0_o,
  output logic [AddrBits-1:0] mem_addr1_o,
  input  logic [63:0]         mem_data_i,
  // TX source
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic                tx_sop_o,
  output logic                tx_eop_o,
  output logic [63:0]         tx_data_o,
  input  logic                tx_sel_i,      // the arbiter shows this source's data (abb_tx_arb's
                                             // src_sel_o): tx_data_o is 0 otherwise
  output logic                ur_o,          // an unsupported request was answered
  output logic                busy_o
);

  typedef enum logic [1:0] {
    StIdle,
    StHdr0,
    StHdr1,
    StData
  } state_e;

  state_e      state_q, state_d;
  // The request's fields are taken when it is accepted (take); address and
  // DWs left also move per payload beat (beat): flops with an enable, loaded
  // only then (simulation speed: as x_q <= x_d with x_d = x_q by default,
  // the simulator copies all of them in every cycle).
  logic        bar_q;
  logic        ur_q;
  logic [31:0] addr_q;           // byte address of the next payload DW
  logic [10:0] left_q;           // payload DWs still to send (in StHdr0: the request's DWs)
  logic [31:0] regval_q;
  logic [11:0] bcount_q;
  logic [6:0]  lowaddr_q;
  logic [15:0] req_id_q;
  logic [7:0]  tag_q;
  logic        take, beat;

  // index of the lowest / highest set bit of a byte-enable nibble
  function automatic logic [1:0] first_set(input logic [3:0] be);
    first_set = be[0] ? 2'd0 : be[1] ? 2'd1 : be[2] ? 2'd2 : 2'd3;
  endfunction
  function automatic logic [1:0] last_set(input logic [3:0] be);
    last_set = be[3] ? 2'd3 : be[2] ? 2'd2 : be[1] ? 2'd1 : 2'd0;
  endfunction

  // byte count of the request (PCIe rules for the completion's Byte Count);
  // evaluated only where a request is taken
  function automatic logic [12:0] req_bytes(input logic [10:0] len, input logic [3:0] first_be,
                                            input logic [3:0] last_be);
    if (len == 11'd1) begin
      req_bytes = (first_be == 4'h0) ? 13'd1 : 13'(last_set(first_be)) - 13'(first_set(first_be)) + 13'd1;
    end else begin
      req_bytes = {len, 2'b00} - 13'(first_set(first_be)) - (13'd3 - 13'(last_set(last_be)));
    end
  endfunction

  // the request is supported (tested with a request only)
  logic req_ok;
  always_comb begin
    req_ok = 1'b0;
    if (rd_valid_i) req_ok = rd_bar_i ? (rd_len_i <= mps_dw_i) : (rd_len_i == 11'd1);
  end

  assign rd_ready_o  = (state_q == StIdle);
  assign reg_raddr_o = rd_addr_i[15:0];
  assign reg_re_o    = rd_valid_i && rd_ready_o && !rd_bar_i && req_ok;
  assign busy_o      = (state_q != StIdle);
  assign take        = rd_valid_i && state_q == StIdle;
  assign beat        = tx_ready_i && state_q == StData;
  assign ur_o        = take && !req_ok;
  assign reg_rsample_o = take;

  assign mem_addr0_o = addr_q[AddrBits+1:2] & mem_mask_i;
  assign mem_addr1_o = (addr_q[AddrBits+1:2] + AddrBits'(1)) & mem_mask_i;

  assign tx_valid_o = (state_q != StIdle);
  assign tx_sop_o   = (state_q == StHdr0);
  assign tx_eop_o   = (state_q == StHdr1 && ur_q) || (state_q == StData && left_q <= 11'd2);

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      StIdle:  if (rd_valid_i) state_d = StHdr0;
      StHdr0:  if (tx_ready_i) state_d = StHdr1;
      StHdr1:  if (tx_ready_i) begin
                 if (ur_q) state_d = StIdle;
                 else      state_d = StData;
               end
      StData:  if (tx_ready_i && left_q <= 11'd2) state_d = StIdle;
      default: state_d = StIdle;
    endcase
  end

  always_comb begin
    tx_data_o = 64'h0;
    if (tx_sel_i) begin
      unique case (state_q)
        StHdr0: begin
          // DW0: Fmt/Type CplD (Cpl for UR), Length; DW1: completer, status, byte count
          tx_data_o[31:0]  = {ur_q ? 3'b000 : 3'b010, 5'b01010, 14'h0, ur_q ? 10'd0 : left_q[9:0]};
          tx_data_o[63:32] = {cfg_req_id_i, ur_q ? 3'b001 : 3'b000, 1'b0, bcount_q};
        end
        StHdr1: tx_data_o[31:0] = {req_id_q, tag_q, 1'b0, lowaddr_q};
        StData: begin
          if (bar_q) tx_data_o = mem_data_i;
          else       tx_data_o = {32'h0, regval_q};
          if (left_q == 11'd1) tx_data_o[63:32] = 32'h0;
        end
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) state_q <= StIdle;
    else         state_q <= state_d;
  end

  // the request (at take; the register's value too, so a read side effect
  // happens once), the payload position (per beat)
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      bar_q     <= 1'b0;
      ur_q      <= 1'b0;
      addr_q    <= '0;
      left_q    <= '0;
      regval_q  <= '0;
      bcount_q  <= '0;
      lowaddr_q <= '0;
      req_id_q  <= '0;
      tag_q     <= '0;
    end else if (take) begin
      bar_q     <= rd_bar_i;
      ur_q      <= !req_ok;
      addr_q    <= rd_addr_i;
      left_q    <= rd_len_i;
      regval_q  <= reg_rdata_i;
      bcount_q  <= 12'(req_bytes(rd_len_i, rd_first_be_i, rd_last_be_i));  // 4096 encodes as 0
      lowaddr_q <= {rd_addr_i[6:2], first_set(rd_first_be_i)};
      req_id_q  <= rd_req_id_i;
      tag_q     <= rd_tag_i;
    end else if (beat) begin
      addr_q <= addr_q + 32'd8;
      left_q <= (left_q <= 11'd2) ? 11'd0 : left_q - 11'd2;
    end
  end

endmodule
