// tb_c2h_mover.sv - bench of abb_c2h_mover: random transfers (host address
// below and above 4 GiB, any DW offset, 4 B .. 16 KiB, board address
// anywhere in memory, incrementing or fixed) under each Max_Payload_Size
// with random TX back-pressure. Checks every memory write: MWr, Length <=
// MPS, no 4 KiB crossing, header address = the running host address, 3/4-DW
// header by address, byte enables, payload = board memory (word index
// masked by the memory size), the total, one done pulse per command.
// Sweep: -P tb_c2h_mover.AddrBits (largest memory), -P tb_c2h_mover.MemBits
// (run-time size: board word addresses wrap at it), -P tb_c2h_mover.Seed.
`timescale 1ns / 1ps
module tb_c2h_mover;
  parameter int AddrBits = 18;
  parameter int MemBits = AddrBits + 2;   // run-time board memory size (log2 bytes): mem_mask_i
  parameter int Seed = 1;
  parameter int Cmds = 60;

  logic clk = 0, rst_ni = 0;
  logic [10:0] mps_dw = 11'd32;
  logic start = 0, inc = 1, abort = 0, busy, done;
  logic [31:0] pa = 0, len = 0;
  logic [63:0] ha = 0;
  logic [AddrBits-1:0] a0, a1, mask;
  logic [63:0] mdata;
  logic tv, tr = 0, ts, te, tlp;
  logic [63:0] td;
  logic [1:0] fifo_rd;

  assign mask = AddrBits'((64'd1 << (MemBits - 2)) - 1);
  function automatic logic [31:0] f(input logic [AddrBits-1:0] a);
    f = 32'(a) * 32'd2654435761 ^ 32'h5a5a1234;
  endfunction
  assign mdata = {f(a1), f(a0)};

  abb_c2h_mover #(.AddrBits(AddrBits)) dut (
    .clk_i(clk), .rst_ni, .cfg_req_id_i(16'h0100), .mps_dw_i(mps_dw), .mem_mask_i(mask),
    .start_i(start), .pa_i(pa), .ha_i(ha), .len_i(len), .inc_i(inc), .abort_i(abort),
    .busy_o(busy), .done_o(done), .mem_addr0_o(a0), .mem_addr1_o(a1), .mem_data_i(mdata),
    .evs_addr_i(32'hffff_fff0), .fifo_data_i(64'h0), .fifo_level_i(32'h0), .fifo_rd_dw_o(fifo_rd),
    .tx_valid_o(tv), .tx_ready_i(tr), .tx_sop_o(ts), .tx_eop_o(te), .tx_data_o(td), .tx_sel_i(1'b1), .tlp_o(tlp));

  int seed = Seed, errors = 0, dones = 0, tlps = 0;
  // expectation of the running command
  logic [63:0] exp_ha;
  logic [AddrBits-1:0] exp_w;   // next board word
  int exp_left;                 // DWs not yet seen
  int beat, dw_in_tlp, tlp_len;
  logic [31:0] h0, h1;

  task automatic chk(input bit ok, input string what);
    if (!ok) begin errors++; if (errors < 10) $display("ERROR: %s", what); end
  endtask

  always @(posedge clk) if (rst_ni) begin
    if (done) dones++;
    if (tv && tr) begin
      if (ts) begin
        beat = 0; h0 = td[31:0]; h1 = td[63:32];
        tlp_len = (td[9:0] == 0) ? 1024 : td[9:0];
        chk(td[31:24] == (exp_ha[63:32] != 0 ? 8'h60 : 8'h40), "not an MWr with the right header size");
        chk(tlp_len <= mps_dw, "payload larger than MPS");
        chk(tlp_len <= exp_left, "payload past the end");
        chk(td[35:32] == 4'hf && td[39:36] == (tlp_len == 1 ? 4'h0 : 4'hf), "byte enables");
        chk(int'(exp_ha[11:2]) + tlp_len <= 1024, "crosses 4 KiB");
        if (tlp_len < mps_dw && tlp_len < exp_left)
          chk(int'(exp_ha[11:2]) + tlp_len == 1024, "short TLP not at a 4 KiB boundary");
        tlps++;
      end else if (beat == 1) begin
        chk((exp_ha[63:32] != 0 ? {td[31:0], td[63:32]} : {32'h0, td[31:0]}) == exp_ha, "address");
        dw_in_tlp = 0;
      end else begin
        for (int l = 0; l < 2; l++) if (dw_in_tlp < tlp_len) begin
          chk(td[32*l +: 32] == f(exp_w & mask), $sformatf("data DW %0d of the TLP", dw_in_tlp));
          if (inc) exp_w = exp_w + 1'b1;
          exp_ha = exp_ha + 4; exp_left--; dw_in_tlp++;
        end
      end
      chk(te == (beat >= 1 && dw_in_tlp == tlp_len), "eop position");
      beat++;
    end
    tr <= ($urandom(seed) % 5) != 0; seed++;
  end

  always #2 clk = ~clk;
  initial begin
    repeat (3) @(posedge clk);
    rst_ni <= 1;
    for (int c = 0; c < Cmds; c++) begin
      int d0;
      @(posedge clk);
      mps_dw <= 11'd32 << ($urandom(seed) % 6); seed++;
      ha  <= {($urandom(seed) % 3 == 0) ? 32'h1 : 32'h0, $urandom(seed) & ~32'h3}; seed += 2;
      len <= (($urandom(seed) % 4096) + 1) * 4; seed++;
      pa  <= $urandom(seed) & ((32'h1 << (AddrBits + 2)) - 1) & ~32'h3; seed++;
      inc <= ($urandom(seed) % 4) != 0; seed++;
      @(posedge clk);
      exp_ha = ha; exp_w = pa[AddrBits+1:2]; exp_left = len / 4;
      d0 = dones;
      start <= 1; @(posedge clk); start <= 0;
      fork
        wait (dones == d0 + 1);
        begin repeat (100000) @(posedge clk); errors++; $display("ERROR: command %0d never done", c); end
      join_any
      disable fork;
      repeat (2) @(posedge clk);
      chk(exp_left == 0, $sformatf("command %0d: %0d DWs not sent", c, exp_left));
      chk(!busy && dones == d0 + 1, "done pulses");
    end
    if (errors) $fatal(1, "tb_c2h_mover AddrBits=%0d MemBits=%0d seed=%0d: %0d errors", AddrBits, MemBits, Seed, errors);
    $display("tb_c2h_mover AddrBits=%0d MemBits=%0d seed=%0d: ok, %0d commands, %0d TLPs", AddrBits, MemBits, Seed, Cmds, tlps);
    $finish;
  end
endmodule
