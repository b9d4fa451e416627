// tb_pio.sv - bench of abb_top's BAR1 write path with the TLP shapes a CPU's
// stores make (doc/pio.md, issue 22): the root complex sends memory writes
// to BAR1 through the RX stream, reads board memory back with 16-DW MRds
// (CplDs on TX, random back-pressure) and looks into board memory itself.
// Phases, each checked byte for byte (board memory seen directly and through
// the read-back) against a shadow of the window and one guard line each side:
//  - fill: every line of the window and the guards as one 16-DW write,
//    ascending;
//  - WC full lines in descending address order, then in a random order;
//  - WC partial lines: per line a store pattern (DW stores with holes, byte
//    stores, 8-byte stores, one run as a memcpy head or tail, one byte, one
//    32-byte half); each run of written bytes leaves as one write with First
//    and Last BE (a hole splits a line: byte enables exist only for a TLP's
//    first and last DW), the runs of all lines interleaved at random;
//  - PCIe shapes no WC buffer makes but a requester may send: 1-DW writes
//    with every First BE (non-contiguous ones and 0000b, a zero-length
//    write, included), QW-aligned 2-DW writes with non-contiguous First and
//    Last BE, 2..32-DW writes with contiguous enables across line borders.
// Bytes a write does not enable carry data that differs from board memory,
// so writing one shows; every enabled byte carries a new value. Some writes
// use a 4-DW header (BAR1 above 4 GiB). GER reads 0 at the end (no TLP was
// taken as malformed). The RTL assertions are on (ABB_ASSERT, tb.mk).
// Sweep: -P tb_pio.MemBitsMax, -P tb_pio.MemBits, -P tb_pio.ClkNs,
// -P tb_pio.Hdr4Pct, -P tb_pio.GapPct, -P tb_pio.Seed.
`timescale 1ns / 1ps
module tb_pio;
  parameter int MemBitsMax = 24;
  parameter int MemBits = 20;         // cfg_mem_bits_i (0: the default 20)
  parameter int ClkNs = 8;
  parameter int Hdr4Pct = 30;         // % of writes with a 4-DW header
  parameter int GapPct = 12;          // % of cycles without an RX beat offered
  parameter int Seed = 1;

  localparam int Req = (MemBits == 0) ? 20 : MemBits;
  localparam int EffBits = (Req > MemBitsMax) ? MemBitsMax : (Req < 16) ? 16 : Req;
  localparam logic [31:0] MemBytes = 32'h1 << EffBits;
  localparam logic [15:0] ReqId = 16'h0100, RcId = 16'h0000;
  localparam int Lines = 32;                  // the window: 2 KiB
  localparam int SBytes = (Lines + 2) * 64;   // the shadow: window and a guard line each side
  // BAR1 as the host addresses it: below 4 GiB (3-DW headers) and above (4-DW)
  localparam logic [31:0] Bar32 = 32'he000_0000, Bar64Hi = 32'h0000_0004, Bar64Lo = 32'h4000_0000;

  logic clk = 0, rst_ni = 0;
  logic rv = 0, rs = 0, re = 0, rbar = 0;
  logic [63:0] rd = 0;
  logic rdy, tv, tr = 0, ts, te, irq, idle;
  logic [63:0] td;

  abb_top #(.MemBitsMax(MemBitsMax), .ClkNs(ClkNs)) dut (
    .clk_i(clk), .rst_ni, .cfg_bus_master_en_i(1'b1), .cfg_max_payload_i(3'd0),
    .cfg_max_read_req_i(3'd0), .cfg_req_id_i(ReqId), .cfg_msi_en_i(1'b0),
    .cfg_mem_bits_i(5'(MemBits)), .strict_i(1'b0),
    .rx_valid_i(rv), .rx_ready_o(rdy), .rx_sop_i(rs), .rx_eop_i(re), .rx_data_i(rd), .rx_bar_i(rbar),
    .tx_valid_o(tv), .tx_ready_i(tr), .tx_buf_av_i(6'd63), .tx_sop_o(ts), .tx_eop_o(te), .tx_data_o(td),
    .irq_o(irq), .idle_o(idle), .skip_cycles_i(32'h0), .board_cfg_i(64'h0));

  always #2 clk = ~clk;

  localparam logic [31:0] RandSalt = 32'h3c6ef372;
  `include "tb_rand.svh"

  int errors = 0, cyc = 0;
  task automatic chk(input bit ok, input string what);
    if (!ok) begin
      errors++;
      if (errors <= 12) $display("ERROR: cycle %0d: %s", cyc, what);
    end
  endtask

  // ---- RX: a queue of beats, offered with random gaps
  localparam int QN = 1 << 14;
  logic [63:0] q_data [0:QN-1];
  logic q_sop [0:QN-1], q_eop [0:QN-1], q_bar [0:QN-1];
  int q_head = 0, q_tail = 0;

  task automatic push(input bit sop, input bit eop, input logic [63:0] d, input bit bar);
    q_data[q_tail % QN] = d; q_sop[q_tail % QN] = sop; q_eop[q_tail % QN] = eop; q_bar[q_tail % QN] = bar;
    q_tail++;
  endtask

  always @(posedge clk) if (rst_ni) begin
    cyc++;
    if (rv && rdy) q_head++;
    if ((rv && !rdy) || (q_head != q_tail && rn(100) >= GapPct)) begin
      rv <= q_head != q_tail;
      rd <= q_data[q_head % QN]; rs <= q_sop[q_head % QN]; re <= q_eop[q_head % QN];
      rbar <= q_bar[q_head % QN];
    end else begin
      rv <= 0;
      rd <= {rnd(), rnd()};    // junk on the lines while no beat is offered
    end
  end

  // ---- the shadow of board memory and the writes
  int unsigned base;                  // BAR1 offset of shadow byte 0 (the lower guard line)
  logic [7:0] sh [0:SBytes-1];
  int n_wr = 0, n_wr4 = 0, n_full = 0, n_dw1 = 0, n_zero = 0;

  // One MWr to BAR1: n DWs from shadow DW w (DW index into the shadow) with
  // First BE fbe and Last BE lbe (0 for one DW). Enabled bytes get a new
  // value (the shadow follows), the others carry board memory's value
  // inverted in some bits: writing them would show.
  task automatic mwr(input int w, input int n, input logic [3:0] fbe, input logic [3:0] lbe);
    logic [31:0] a, dw [0:1];
    bit h4;
    chk(w >= 0 && n >= 1 && n <= 32 && (w + n) * 4 <= SBytes, $sformatf("bench: write of %0d DWs at DW %0d", n, w));
    a = base + 32'(4 * w);
    h4 = rn(100) < Hdr4Pct;
    push(1, 0, {ReqId, 8'(n_wr), lbe, fbe, (h4 ? 32'h6000_0000 : 32'h4000_0000) | 32'(n)}, 1);
    push(0, 0, h4 ? {Bar64Lo | a, Bar64Hi} : {32'h0, Bar32 | a}, 1);
    for (int i = 0; i < n; i++) begin
      logic [3:0] be;
      be = (i == 0) ? fbe : (i == n - 1) ? lbe : 4'hf;
      for (int b = 0; b < 4; b++) begin
        int k;
        logic [7:0] v;
        k = 4 * (w + i) + b;
        if (be[b]) begin
          v = sh[k] ^ 8'(1 + rn(255));
          sh[k] = v;
        end else v = sh[k] ^ 8'h5a;
        dw[i % 2][8*b +: 8] = v;
      end
      if (i % 2 == 1 || i == n - 1) push(0, i == n - 1, {i % 2 == 1 ? dw[1] : 32'h0, dw[0]}, 1);
    end
    n_wr++;
    if (h4) n_wr4++;
    if (n == 1) n_dw1++;
    if (n == 1 && fbe == 0) n_zero++;
    if (n == 16 && fbe == 4'hf && lbe == 4'hf && (w % 16) == 0) n_full++;
  endtask

  // the write of the bytes [s, e) of the shadow (one run, contiguous)
  task automatic mwr_run(input int s, input int e);
    int d0, d1;
    logic [3:0] fbe, lbe;
    d0 = s / 4; d1 = (e - 1) / 4;
    fbe = 4'hf << (s % 4);
    if (d0 == d1) begin
      fbe &= 4'hf >> (3 - (e - 1) % 4);
      lbe = 4'h0;
    end else lbe = 4'hf >> (3 - (e - 1) % 4);
    mwr(d0, d1 - d0 + 1, fbe, lbe);
  endtask

  // ---- TX: the CplDs of the read-back
  logic [31:0] t_dw0, t_dw1, t_dw2;
  int t_beat = 0;
  logic [31:0] rb [0:255][0:15];
  int rb_n [0:255];
  bit rb_bad [0:255];

  always @(posedge clk) if (rst_ni) begin
    if (tv && tr) begin
      if (ts) begin
        t_beat = 0; t_dw0 = td[31:0]; t_dw1 = td[63:32];
      end else if (t_beat == 1) begin
        t_dw2 = td[31:0];
      end else if (t_dw0[31:24] == 8'h4a) begin
        int t;
        t = t_dw2[15:8];
        for (int l = 0; l < 2; l++) if ((t_beat - 2) * 2 + l < t_dw0[9:0]) begin
          if (rb_n[t] < 16) rb[t][rb_n[t]] = td[32*l +: 32];
          rb_n[t]++;
        end
        if (t_dw1[15:13] != 3'b000) rb_bad[t] = 1;
      end else chk(0, $sformatf("TX: a TLP other than a CplD (DW0 %h)", t_dw0));
      t_beat++;
    end
    tr <= rn(5) != 0;
  end

  // ---- checks
  task automatic drain();
    while (q_head != q_tail) @(posedge clk);
    repeat (4) @(posedge clk);
  endtask

  // board memory itself against the shadow
  task automatic check_mem(input string phase);
    int bad;
    bad = 0;
    for (int k = 0; k < SBytes; k++) begin
      logic [7:0] m;
      m = dut.u_mem.mem_q[((base + k) % MemBytes) / 4][8 * (k % 4) +: 8];
      if (m !== sh[k]) begin
        bad++;
        if (bad <= 4) chk(0, $sformatf("%s: board byte at BAR1 %h (line %0d byte %0d): %h, expected %h",
                                        phase, base + k, k / 64 - 1, k % 64, m, sh[k]));
      end
    end
    chk(bad == 0, $sformatf("%s: %0d bytes of board memory differ", phase, bad));
  endtask

  // the same through 16-DW memory reads (one per line)
  int rtag = 0;
  task automatic check_readback(input string phase);
    int bad;
    bad = 0;
    for (int l = 0; l < Lines + 2; l++) begin
      int t, n;
      t = rtag; rtag = (rtag + 1) % 256;
      rb_n[t] = 0; rb_bad[t] = 0;
      push(1, 0, {RcId, 8'(t), 4'hf, 4'hf, 32'h0000_0010}, 1);
      push(0, 1, {32'h0, Bar32 | (base + 32'(64 * l))}, 1);
      n = 0;
      while (rb_n[t] < 16 && n < 20000) begin @(posedge clk); n++; end
      chk(rb_n[t] == 16 && !rb_bad[t], $sformatf("%s: read of line %0d: %0d DWs, status %0d", phase, l - 1,
          rb_n[t], rb_bad[t]));
      for (int i = 0; i < 16; i++) for (int b = 0; b < 4; b++)
        if (rb[t][i][8*b +: 8] !== sh[64 * l + 4 * i + b]) begin
          bad++;
          if (bad <= 4) chk(0, $sformatf("%s: read-back of line %0d byte %0d: %h, expected %h", phase, l - 1,
                                          4 * i + b, rb[t][i][8*b +: 8], sh[64 * l + 4 * i + b]));
        end
    end
    chk(bad == 0, $sformatf("%s: %0d bytes read back differ", phase, bad));
  endtask

  task automatic check(input string phase);
    drain();
    check_mem(phase);
    check_readback(phase);
  endtask

  // ---- the runs of the partial lines, interleaved
  int run_s [0:2047], run_e [0:2047];
  int n_runs = 0;

  // a WC line's store pattern, as bytes written (1) or not
  bit m [0:63];
  task automatic line_mask(input int kind);
    int s, e;
    for (int i = 0; i < 64; i++) m[i] = 0;
    case (kind)
      0: for (int d = 0; d < 16; d++) begin                                             // DW stores, holes
        bit on;
        on = rn(4) != 0;
        for (int b = 0; b < 4; b++) m[4*d+b] = on;
      end
      1: for (int i = 0; i < 64; i++) m[i] = rn(3) == 0;                                  // byte stores
      2: for (int q = 0; q < 8; q++) begin                                              // 8-byte stores
        bit on;
        on = rn(2) != 0;
        for (int b = 0; b < 8; b++) m[8*q+b] = on;
      end
      3: begin s = rn(64); e = s + 1 + rn(64 - s); for (int i = s; i < e; i++) m[i] = 1; end  // one run
      4: m[rn(64)] = 1;                                                                   // one byte
      default: begin s = 32 * rn(2); for (int i = s; i < s + 32; i++) m[i] = 1; end      // 32-byte store
    endcase
  endtask

  initial begin
    int perm [0:Lines-1];
    int lines_desc, lines_rand, pcie_wr, wc_runs = 0;
    for (int t = 0; t < 256; t++) begin rb_n[t] = 0; rb_bad[t] = 0; end
    // the window: line-aligned, anywhere in BAR1 with room for the guards
    base = 64 * rn(MemBytes / 64 - (Lines + 2));
    repeat (4) @(posedge clk);
    #1 rst_ni = 1;

    // fill: every line as one 16-DW write, ascending
    for (int k = 0; k < SBytes; k++) sh[k] = 8'(rnd());
    for (int l = 0; l < Lines + 2; l++) mwr(16 * l, 16, 4'hf, 4'hf);
    check("fill");

    // WC full lines, descending, then in a random order
    for (int l = Lines; l >= 1; l--) mwr(16 * l, 16, 4'hf, 4'hf);
    lines_desc = Lines;
    check("full lines, descending");
    for (int l = 0; l < Lines; l++) perm[l] = l + 1;
    for (int l = Lines - 1; l > 0; l--) begin int j, x; j = rn(l + 1); x = perm[l]; perm[l] = perm[j]; perm[j] = x; end
    for (int l = 0; l < Lines; l++) mwr(16 * perm[l], 16, 4'hf, 4'hf);
    lines_rand = Lines;
    check("full lines, random order");

    // WC partial lines: each line's runs of written bytes, all interleaved
    for (int pass = 0; pass < 3; pass++) begin
      n_runs = 0;
      for (int l = 1; l <= Lines; l++) begin
        int i;
        line_mask((l + pass * 7 + rn(3)) % 6);
        i = 0;
        while (i < 64) begin
          if (m[i]) begin
            int j;
            j = i;
            while (j < 64 && m[j]) j++;
            run_s[n_runs] = 64 * l + i; run_e[n_runs] = 64 * l + j; n_runs++;
            i = j;
          end else i++;
        end
      end
      for (int r = n_runs - 1; r > 0; r--) begin
        int j, xs, xe;
        j = rn(r + 1);
        xs = run_s[r]; xe = run_e[r]; run_s[r] = run_s[j]; run_e[r] = run_e[j]; run_s[j] = xs; run_e[j] = xe;
      end
      for (int r = 0; r < n_runs; r++) mwr_run(run_s[r], run_e[r]);
      wc_runs += n_runs;
      check($sformatf("partial lines, pass %0d", pass));
    end

    // PCIe shapes beyond a WC buffer's
    pcie_wr = n_wr;
    for (int k = 0; k < 64; k++) mwr(16 + rn(16 * Lines), 1, 4'(k), 4'h0);    // every First BE, 4 times
    for (int k = 0; k < 32; k++)                                                // QW-aligned 2 DWs, any BE
      mwr(16 + 2 * rn(8 * Lines), 2, 4'(1 + rn(15)), 4'(1 + rn(15)));
    for (int k = 0; k < 48; k++) begin                                          // contiguous, 2..32 DWs
      int n;
      logic [3:0] fb [0:3], lb [0:3];
      fb[0] = 4'hf; fb[1] = 4'he; fb[2] = 4'hc; fb[3] = 4'h8;
      lb[0] = 4'hf; lb[1] = 4'h7; lb[2] = 4'h3; lb[3] = 4'h1;
      n = 2 + rn(31);
      mwr(16 + rn(16 * Lines - n + 1), n, fb[rn(4)], lb[rn(4)]);
    end
    pcie_wr = n_wr - pcie_wr;
    check("PCIe write shapes");

    begin
      logic [31:0] v;
      int t, n;
      // GER: no TLP taken as malformed (a 1-DW BAR0 read)
      t = rtag; rtag = (rtag + 1) % 256; rb_n[t] = 0;
      push(1, 0, {RcId, 8'(t), 4'h0, 4'hf, 32'h0000_0001}, 0);
      push(0, 1, {32'h0, 16'h0, abb_reg_pkg::REG_GER}, 0);
      n = 0;
      while (rb_n[t] < 1 && n < 20000) begin @(posedge clk); n++; end
      v = rb[t][0];
      chk(rb_n[t] == 1 && v == 0, $sformatf("GER %h at the end (%0d DWs)", v, rb_n[t]));
    end

    if (errors)
      $fatal(1, "tb_pio MemBitsMax=%0d MemBits=%0d ClkNs=%0d Hdr4Pct=%0d GapPct=%0d seed=%0d: %0d errors",
             MemBitsMax, MemBits, ClkNs, Hdr4Pct, GapPct, Seed, errors);
    $display("tb_pio MemBitsMax=%0d MemBits=%0d ClkNs=%0d Hdr4Pct=%0d GapPct=%0d seed=%0d: ok, window BAR1 %h, %0d writes (%0d 4-DW headers): %0d full lines (%0d descending, %0d random order), %0d partial-line runs, %0d PCIe shapes (%0d 1-DW, %0d zero-length), %0d bytes checked x %0d phases, %0d cycles",
             MemBitsMax, MemBits, ClkNs, Hdr4Pct, GapPct, Seed, base + 64, n_wr, n_wr4, n_full, lines_desc, lines_rand,
             wc_runs, pcie_wr, n_dw1, n_zero, SBytes, 7, cyc);
    $finish;
  end
endmodule
