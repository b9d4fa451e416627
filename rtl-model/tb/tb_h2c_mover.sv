// tb_h2c_mover.sv - bench of abb_h2c_mover: random transfers (host address
// below/above 4 GiB, any DW offset, 4 B .. 16 KiB, incrementing or fixed
// board address) under each Max_Read_Request_Size and a random MRD_CR tag
// limit, against a completer that answers every read in pieces of up to
// 16 DWs (RCB 64), interleaving the reads of different tags at random and
// keeping each tag's pieces in order. Checks every read request (MRd,
// Length <= MRRS, no 4 KiB crossing, running address, tag not outstanding,
// outstanding <= min(NumTags, limit), one at a time for a fixed address),
// board memory after each command (the data of the host addresses), one
// done pulse, nothing outstanding after done.
// Sweep: -P tb_h2c_mover.NumTags, -P tb_h2c_mover.AddrBits (largest memory),
// -P tb_h2c_mover.MemBits (run-time size: board word addresses wrap at it),
// -P tb_h2c_mover.Seed.
`timescale 1ns / 1ps
module tb_h2c_mover;
  parameter int NumTags = 16;
  parameter int AddrBits = 18;
  parameter int MemBits = AddrBits + 2;   // run-time board memory size (log2 bytes): mem_mask_i
  parameter int Seed = 1;
  parameter int Cmds = 40;

  logic clk = 0, rst_ni = 0;
  logic [10:0] mrrs_dw = 11'd128;
  logic [4:0] tag_limit = 0;
  logic start = 0, inc = 1, abort = 0, busy, done, err;
  logic [31:0] pa = 0, len = 0;
  logic [63:0] ha = 0;
  logic cv = 0;
  logic [7:0] ctag = 0;
  logic [1:0] cdw = 0;
  logic [63:0] cdata = 0;
  logic cfirst = 0, clast = 0;
  logic [6:0] cla = 0;
  logic poison, timeout;
  int c_first = 0;
  logic tag_err;
  logic [1:0] we;
  logic [AddrBits-1:0] wa0, wa1, mask;
  logic [63:0] wd;
  logic tv, tr = 0, ts, te, req;
  logic [63:0] td;
  assign mask = AddrBits'((64'd1 << (MemBits - 2)) - 1);

  abb_h2c_mover #(.AddrBits(AddrBits), .NumTags(NumTags)) dut (
    .clk_i(clk), .rst_ni, .cfg_req_id_i(16'h0100), .mrrs_dw_i(mrrs_dw), .tag_limit_i(tag_limit),
    .mem_mask_i(mask), .start_i(start), .pa_i(pa), .ha_i(ha), .len_i(len), .inc_i(inc),
    .more_i(1'b0), .abort_i(abort), .busy_o(busy), .done_o(done), .err_o(err),
    .cpl_valid_i(cv), .cpl_tag_i(ctag), .cpl_status_i(3'b000), .cpl_dw_i(cdw), .cpl_data_i(cdata),
    .cpl_poison_i(1'b0), .cpl_first_i(cfirst), .cpl_last_i(clast), .cpl_la_i(cla),
    .cpl_tag_err_o(tag_err), .poison_o(poison), .timeout_o(timeout), .mem_we_o(we), .mem_waddr0_o(wa0), .mem_waddr1_o(wa1),
    .mem_wdata_o(wd), .tx_valid_o(tv), .tx_ready_i(tr), .tx_sop_o(ts), .tx_eop_o(te),
    .tx_data_o(td), .tx_sel_i(1'b1), .req_o(req));

  function automatic logic [31:0] g(input logic [63:0] a);   // host memory DW at byte address a
    g = a[31:0] * 32'd2246822519 ^ a[63:32] ^ 32'h1b873593;
  endfunction

  int seed = Seed, errors = 0, dones = 0, reqs = 0, outstanding = 0, max_out = 0;
  logic [31:0] mem [0:(1 << AddrBits) - 1];
  int stray = 0;   // writes outside the command's words
  // the completer: per tag the next host address and the DWs still to send
  logic [63:0] t_addr [32];
  int t_left [32];
  logic [63:0] exp_ha;
  int lim, p_tag, p_len;
  logic [31:0] h0;

  function automatic bit in_cmd(input logic [AddrBits-1:0] w);
    logic [AddrBits-1:0] off;
    off = (w - pa[AddrBits+1:2]) & mask;
    in_cmd = inc ? 32'(off) < len / 4 : off == 0;
  endfunction

  task automatic chk(input bit ok, input string what);
    if (!ok) begin errors++; if (errors < 10) $display("ERROR: %s", what); end
  endtask

  // completion beats in flight: tag, DWs left in this completion
  int c_tag = -1, c_left = 0;

  always @(posedge clk) if (rst_ni) begin
    if (done) dones++;
    // board memory writes
    if (we[0]) begin mem[wa0] = wd[31:0];  if (!in_cmd(wa0)) stray++; end
    if (we[1]) begin mem[wa1] = wd[63:32]; if (!in_cmd(wa1)) stray++; end
    chk(!tag_err, "completion for a tag not outstanding");
    chk(!poison && !timeout, "poisoned data or a completion timeout reported");
    // read requests
    if (tv && tr) begin
      if (ts) begin
        int l, t;
        h0 = td[31:0];
        l = (td[9:0] == 0) ? 1024 : td[9:0];
        t = td[47:40];
        chk(td[31:24] == (exp_ha[63:32] != 0 ? 8'h20 : 8'h00), "not an MRd with the right header size");
        chk(l <= mrrs_dw, "request larger than MRRS");
        chk(int'(exp_ha[11:2]) + l <= 1024, "request crosses 4 KiB");
        chk(t < lim, $sformatf("tag %0d beyond the limit %0d", t, lim));
        chk(t_left[t] == 0, $sformatf("tag %0d reused while outstanding", t));
        chk(inc || outstanding == 0, "fixed-address transfer with two reads outstanding");
        p_tag = t; p_len = l;
      end else begin
        // the request is outstanding once its last beat went out
        chk((exp_ha[63:32] != 0 || h0[29]) ? 1'b1 : td[63:32] == 32'h0, "3-DW header padding");
        t_addr[p_tag] = exp_ha;
        t_left[p_tag] = p_len;
        exp_ha = exp_ha + 4 * p_len;
        outstanding++;
        if (outstanding > max_out) max_out = outstanding;
        reqs++;
      end
    end
    tr <= ($urandom(seed) % 4) != 0; seed++;
    // completer: continue the current completion or start one of a random tag
    cv <= 0;
    if (c_tag < 0 && ($urandom(seed) % 3) != 0) begin
      int t0;
      t0 = $urandom(seed) % 32;
      for (int k = 0; k < 32; k++) if (c_tag < 0 && t_left[(t0 + k) % 32] > 0) begin
        c_tag = (t0 + k) % 32;
        c_left = t_left[c_tag] < 16 ? t_left[c_tag] : 16;
        c_first = 1;
      end
    end
    seed++;
    if (c_tag >= 0) begin
      int n;
      n = c_left >= 2 ? 2 : 1;
      cv <= 1; ctag <= 8'(c_tag); cdw <= 2'(n);
      cfirst <= c_first[0]; clast <= (c_left == n); cla <= t_addr[c_tag][6:0];
      c_first = 0;
      cdata <= {n == 2 ? g(t_addr[c_tag] + 4) : 32'h0, g(t_addr[c_tag])};
      t_addr[c_tag] = t_addr[c_tag] + 4 * n;
      t_left[c_tag] -= n;
      c_left -= n;
      if (t_left[c_tag] == 0) outstanding--;
      if (c_left == 0) c_tag = -1;
    end
  end

  always #2 clk = ~clk;
  initial begin
    for (int t = 0; t < 32; t++) t_left[t] = 0;
    repeat (3) @(posedge clk);
    rst_ni <= 1;
    for (int c = 0; c < Cmds; c++) begin
      int d0;
      @(posedge clk);
      mrrs_dw <= 11'd32 << ($urandom(seed) % 6); seed++;
      tag_limit <= 5'($urandom(seed) % (NumTags + 1)); seed++;
      ha  <= {($urandom(seed) % 3 == 0) ? 32'h1 : 32'h0, $urandom(seed) & ~32'h3}; seed += 2;
      len <= (($urandom(seed) % 4096) + 1) * 4; seed++;
      pa  <= $urandom(seed) & ((32'h1 << (AddrBits + 2)) - 1) & ~32'h3; seed++;
      inc <= ($urandom(seed) % 4) != 0; seed++;
      @(posedge clk);
      exp_ha = ha;
      lim = !inc ? 1 : (tag_limit == 0 || tag_limit > NumTags) ? NumTags : tag_limit;
      for (int i = 0; i < len / 4; i++) mem[AddrBits'(pa[AddrBits+1:2] + i) & mask] = 32'hx;
      stray = 0;
      d0 = dones;
      start <= 1; @(posedge clk); start <= 0;
      fork
        wait (dones == d0 + 1);
        begin repeat (200000) @(posedge clk); errors++; $display("ERROR: command %0d never done", c); end
      join_any
      disable fork;
      @(posedge clk);
      chk(outstanding == 0 && !busy, "reads outstanding after done");
      chk(exp_ha == ha + len, "requested bytes");
      chk(stray == 0, $sformatf("command %0d: %0d board words written outside it", c, stray));
      if (inc) begin
        for (int i = 0; i < len / 4; i++)
          chk(mem[AddrBits'(pa[AddrBits+1:2] + i) & mask] === g(ha + 4 * i),
              $sformatf("command %0d: board word %0d", c, i));
      end else begin
        chk(mem[pa[AddrBits+1:2] & mask] == g(ha + len - 4), "fixed address: the last DW stays");
        chk(1'b1, "");
      end
    end
    if (errors) $fatal(1, "tb_h2c_mover NumTags=%0d AddrBits=%0d MemBits=%0d seed=%0d: %0d errors", NumTags, AddrBits, MemBits, Seed, errors);
    $display("tb_h2c_mover NumTags=%0d AddrBits=%0d MemBits=%0d seed=%0d: ok, %0d commands, %0d reads, up to %0d outstanding",
             NumTags, AddrBits, MemBits, Seed, Cmds, reqs, max_out);
    $finish;
  end
endmodule
