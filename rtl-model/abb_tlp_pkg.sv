// abb_tlp_pkg.sv - TLP building blocks shared by the request senders
// (abb_c2h_mover, abb_h2c_mover, abb_dma_ctl). Use as abb_tlp_pkg::f().

package abb_tlp_pkg;

  // DWs of the next request: min(max_dw, DWs to the next 4 KiB boundary, rem_dw)
  function automatic logic [10:0] chunk_dw(input logic [10:0] max_dw,
                                           input logic [9:0]  page_dw,   // addr[11:2]
                                           input logic [29:0] rem_dw);
    logic [10:0] to4k;
    to4k = 11'(12'd1024 - {2'b00, page_dw});
    chunk_dw = max_dw;
    if (to4k < chunk_dw) chunk_dw = to4k;
    if (rem_dw < 30'(chunk_dw)) chunk_dw = rem_dw[10:0];
  endfunction

  // beat 0 of a memory request (MWr if wr, else MRd): DW0, DW1
  function automatic logic [63:0] req_hdr0(input logic [15:0] req_id, input logic [7:0] tag,
                                           input logic wr, input logic hdr4,
                                           input logic [10:0] len_dw);
    req_hdr0 = {req_id, tag, (len_dw == 11'd1) ? 4'h0 : 4'hf, 4'hf,
                {1'b0, wr, hdr4}, 5'b00000, 14'h0, len_dw[9:0]};
  endfunction

  // beat 1: the address (DW2, or DW2 DW3 of a 4-DW header above 4 GiB);
  // callers pass DW-aligned addresses
  function automatic logic [63:0] req_hdr1(input logic [63:0] addr);
    req_hdr1 = (addr[63:32] != 32'h0) ? {addr[31:0], addr[63:32]} : {32'h0, addr[31:0]};
  endfunction

endpackage
