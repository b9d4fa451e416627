// tb_top.sv - parameter bench of abb_top as a whole: the parameters that
// reach no single module's bench (ClkNs, SharedEngine) and the others seen
// from the link (NumTags, TxPostedMinAv, MemBitsMax with the run-time size).
// The bench is the root complex: PIO writes and reads through the RX stream
// (reads answered by CplD on TX), a host memory answering the RTL's reads
// with CplDs split at RCB 64 (slowly, so that the reads queue up), and a
// sink for its memory writes, with random back-pressure on TX.
// Checks:
//  - GCR reads SHARED_ENGINE = SharedEngine after reset; DIAG_PARAM reads
//    TAGS = NumTags and MEM_BITS = the run-time size (MemBits, clamped to
//    16..MemBitsMax as TLP-STREAM.md says);
//  - ClkNs: the interrupt generator (IGEN_LAT in 4 ns units) raises irq_o
//    after ceil(LAT / (ClkNs / 4)) cycles plus a fixed delay, at two
//    latencies (the difference is exact);
//  - memory size: BAR1 wraps at the run-time size (a write at offset size
//    lands on offset 0), the last word is addressable;
//  - TxPostedMinAv: with tx_buf_av below it, DMA read (board to host) sends
//    no memory write (the channel stays busy) until the buffer frees up;
//    with TxPostedMinAv = 0 it runs at tx_buf_av 0; every payload DW equals
//    board memory;
//  - NumTags: a DMA write (host to board) of 16 KiB with MRRS 128 keeps
//    exactly min(NumTags, MRD_CR limit) reads outstanding at its peak (limit
//    0 and NumTags/2), tags below the limit, board memory right afterwards;
//  - SharedEngine: both channels started back to back: with 1 their engines
//    are never active in one cycle, with 0 they overlap; both end DONE.
// Sweep: -P tb_top.ClkNs, -P tb_top.SharedEngine, -P tb_top.NumTags,
// -P tb_top.TxPostedMinAv, -P tb_top.MemBitsMax, -P tb_top.MemBits, -P tb_top.Seed.
`timescale 1ns / 1ps
module tb_top;
  parameter int MemBitsMax = 24;
  parameter int MemBits = 20;         // cfg_mem_bits_i (0: the default 20)
  parameter int NumTags = 16;
  parameter int ClkNs = 8;
  parameter int SharedEngine = 0;
  parameter int TxPostedMinAv = 12;
  parameter int Seed = 1;

  // the run-time size: 0 is the default 20, and every value is clamped to
  // 16..MemBitsMax (TLP-STREAM.md: "16 .. MemBitsMax")
  localparam int Req = (MemBits == 0) ? 20 : MemBits;
  localparam int EffBits = (Req > MemBitsMax) ? MemBitsMax : (Req < 16) ? 16 : Req;
  localparam logic [31:0] MemBytes = 32'h1 << EffBits;
  localparam logic [15:0] ReqId = 16'h0100, RcId = 16'h0000;

  logic clk = 0, rst_ni = 0;
  logic rv = 0, rs = 0, re = 0, rbar = 0;
  logic [63:0] rd = 0;
  logic rdy, tv, tr = 0, ts, te, irq, idle;
  logic [63:0] td;
  logic [5:0] av = 6'd63;

  abb_top #(.MemBitsMax(MemBitsMax), .NumTags(NumTags), .ClkNs(ClkNs), .SharedEngine(SharedEngine != 0),
            .TxPostedMinAv(TxPostedMinAv)) dut (
    .clk_i(clk), .rst_ni, .cfg_bus_master_en_i(1'b1), .cfg_max_payload_i(3'd0),
    .cfg_max_read_req_i(3'd0), .cfg_req_id_i(ReqId), .cfg_msi_en_i(1'b0),
    .cfg_mem_bits_i(5'(MemBits)), .strict_i(1'b0),
    .rx_valid_i(rv), .rx_ready_o(rdy), .rx_sop_i(rs), .rx_eop_i(re), .rx_data_i(rd), .rx_bar_i(rbar),
    .tx_valid_o(tv), .tx_ready_i(tr), .tx_buf_av_i(av), .tx_sop_o(ts), .tx_eop_o(te), .tx_data_o(td),
    .irq_o(irq), .idle_o(idle), .skip_cycles_i(32'h0), .board_cfg_i(64'h0));  // the default board

  always #2 clk = ~clk;

  localparam logic [31:0] RandSalt = 32'h1f83d9ab;
  `include "tb_rand.svh"

  int errors = 0, cyc = 0;
  task automatic chk(input bit ok, input string what);
    if (!ok) begin
      errors++;
      if (errors <= 10) $display("ERROR: cycle %0d: %s", cyc, what);
    end
  endtask

  // host memory content and the board pattern the bench writes
  function automatic logic [31:0] hm(input logic [31:0] a);
    return a * 32'd2246822519 ^ 32'h27d4eb2f;
  endfunction
  function automatic logic [31:0] bp(input logic [31:0] w);
    return w * 32'd2654435761 ^ 32'h00c0ffee;
  endfunction

  // ---- RX: a queue of beats; tag_fin marks the last beat of a read's last completion
  localparam int QN = 1 << 16;
  logic [63:0] q_data [0:QN-1];
  logic q_sop [0:QN-1], q_eop [0:QN-1], q_bar [0:QN-1];
  int q_fin [0:QN-1];
  int q_head = 0, q_tail = 0;
  int outstanding = 0, max_out = 0;

  task automatic push(input bit sop, input bit eop, input logic [63:0] d, input bit bar, input int fin);
    q_data[q_tail % QN] = d; q_sop[q_tail % QN] = sop; q_eop[q_tail % QN] = eop;
    q_bar[q_tail % QN] = bar; q_fin[q_tail % QN] = fin;
    q_tail++;
  endtask

  always @(posedge clk) if (rst_ni) begin
    cyc++;
    if (rv && rdy) begin
      if (q_fin[q_head % QN] > 0) outstanding--;
      q_head++;
    end
    if ((rv && !rdy) || (q_head != q_tail && rn(8) != 0)) begin
      rv <= q_head != q_tail;
      rd <= q_data[q_head % QN]; rs <= q_sop[q_head % QN]; re <= q_eop[q_head % QN];
      rbar <= q_bar[q_head % QN];
    end else rv <= 0;
  end

  // PIO write of one DW (BAR0 register or BAR1 word)
  task automatic pio_wr(input bit bar, input logic [31:0] a, input logic [31:0] v);
    push(1, 0, {ReqId ^ 16'h5555, 8'h00, 4'h0, 4'hf, 32'h4000_0001}, bar, 0);
    push(0, 0, {32'h0, a}, bar, 0);
    push(0, 1, {32'h0, v}, bar, 0);
  endtask

  // PIO read of one DW: the CplD comes back on TX with the tag
  logic [31:0] pio_data [0:255];
  bit pio_got [0:255];
  int pio_tag = 0;
  task pio_rd(input bit bar, input logic [31:0] a, output logic [31:0] v);
    int t, n;
    t = pio_tag; pio_tag = (pio_tag + 1) % 256;
    pio_got[t] = 0;
    push(1, 0, {RcId, 8'(t), 4'h0, 4'hf, 32'h0000_0001}, bar, 0);
    push(0, 1, {32'h0, a}, bar, 0);
    n = 0;
    while (!pio_got[t] && n < 20000) begin @(posedge clk); n++; end
    chk(pio_got[t], $sformatf("PIO read of %h never completed", a));
    v = pio_data[t];
  endtask

  localparam logic [31:0] C2H = abb_reg_pkg::BLK_C2H, H2C = abb_reg_pkg::BLK_H2C;
  task automatic start_dma(input logic [31:0] blk, input logic [31:0] pa, input logic [31:0] ha,
                           input logic [31:0] len);
    pio_wr(0, blk + abb_reg_pkg::CH_PAH, 0);
    pio_wr(0, blk + abb_reg_pkg::CH_PAL, pa);
    pio_wr(0, blk + abb_reg_pkg::CH_HAH, 0);
    pio_wr(0, blk + abb_reg_pkg::CH_HAL, ha);
    pio_wr(0, blk + abb_reg_pkg::CH_LENG, len);
    pio_wr(0, blk + abb_reg_pkg::CH_CTRL, abb_reg_pkg::CTRL_V | abb_reg_pkg::CTRL_BAR |
           abb_reg_pkg::CTRL_INC | abb_reg_pkg::CTRL_UPA | abb_reg_pkg::CTRL_LAST);
    while (q_head != q_tail) @(posedge clk);   // the start has reached the RTL
    repeat (2) @(posedge clk);
  endtask

  // ---- TX: PIO completions, the RTL's reads (answered below), its writes
  logic [31:0] t_dw [0:3];
  int t_beat = 0, t_len, n_mwr = 0;
  logic [31:0] t_addr;
  logic [31:0] c2h_pa, c2h_ha;        // the running DMA read: board/host base
  logic [31:0] r_addr [0:255];        // pending reads: next host address, DWs left
  int r_left [0:255];
  int lim_exp = NumTags;
  bit av_low_q = 0;

  always @(posedge clk) if (rst_ni) begin
    if (tv && tr) begin
      if (ts) begin
        t_beat = 0; t_dw[0] = td[31:0]; t_dw[1] = td[63:32];
        t_len = (td[9:0] == 0) ? 1024 : td[9:0];
        if (td[31:24] == 8'h40) begin
          n_mwr++;
          chk(!av_low_q || TxPostedMinAv == 0, "a memory write started while tx_buf_av < TxPostedMinAv");
        end
      end else if (t_beat == 1) begin
        t_dw[2] = td[31:0];
        t_addr = td[31:0];
        if (t_dw[0][31:24] == 8'h00 && te) begin             // MRd of the DMA write
          int tag;
          tag = t_dw[1][15:8];
          chk(tag < lim_exp, $sformatf("read tag %0d, limit %0d", tag, lim_exp));
          chk(r_left[tag] == 0, $sformatf("tag %0d reused", tag));
          r_addr[tag] = td[31:0]; r_left[tag] = t_len;
          outstanding++;
          if (outstanding > max_out) max_out = outstanding;
        end
      end else begin
        if (t_dw[0][31:24] == 8'h4a) begin                    // CplD of a PIO read
          pio_data[t_dw[2][15:8]] = td[31:0];
          pio_got[t_dw[2][15:8]] = 1;
        end else if (t_dw[0][31:24] == 8'h40) begin           // DMA read data
          for (int l = 0; l < 2; l++) if ((t_beat - 2) * 2 + l < t_len) begin
            logic [31:0] a;
            a = t_addr + 32'(4 * ((t_beat - 2) * 2 + l));
            chk(td[32*l +: 32] == bp((c2h_pa + (a - c2h_ha)) >> 2),
                $sformatf("DMA read data at host %h", a));
          end
        end
      end
      t_beat++;
    end
    tr <= rn(5) != 0;
    av_low_q <= av < 6'(TxPostedMinAv);
  end

  // the host answers one read at a time, slowly, split at 64 bytes
  always @(posedge clk) if (rst_ni && rn(24) == 0) begin
    int t0;
    bit sent;
    t0 = rn(256);
    sent = 0;
    for (int k = 0; k < 256; k++) begin
      int t, n, la;
      t = (t0 + k) % 256;
      if (r_left[t] > 0 && !sent) begin
        la = r_addr[t][6:0];
        n = (64 - (la % 64)) / 4;
        if (n > r_left[t]) n = r_left[t];
        push(1, 0, {RcId, 3'b000, 1'b0, 12'(4 * r_left[t]), 32'h4a00_0000 | 32'(n)}, 0, 0);
        push(0, 0, {32'h0, ReqId, 8'(t), 1'b0, 7'(la)}, 0, 0);
        for (int i = 0; i < n; i += 2)
          push(0, i + 2 >= n, {i + 1 < n ? hm(r_addr[t] + 4 * (i + 1)) : 32'h0, hm(r_addr[t] + 4 * i)}, 0,
               (i + 2 >= n && n == r_left[t]) ? 1 : 0);
        r_addr[t] += 4 * n; r_left[t] -= n;
        sent = 1;
      end
    end
  end

  // ---- shared engine: both channels' engines active in one cycle
  int overlap = 0, overlaps [0:1];
  always @(posedge clk) if (rst_ni && dut.c2h_active && dut.h2c_active) overlap++;

  task wait_idle(input string what);
    int n;
    n = 0;
    while ((dut.c2h_busy || dut.h2c_busy) && n < 400000) begin @(posedge clk); n++; end
    chk(!dut.c2h_busy && !dut.h2c_busy, {what, ": never done"});
  endtask

  task expect_sta(input logic [31:0] blk, input logic [31:0] v, input string what);
    logic [31:0] s;
    pio_rd(0, blk + abb_reg_pkg::CH_STA, s);
    chk(s == v, $sformatf("%s: STA %h, expected %h", what, s, v));
  endtask

  // interrupt generator: cycles from the ARM write's last beat to irq_o
  task igen(input int lat, output int cycles);
    int c0;
    pio_wr(0, abb_reg_pkg::REG_IGEN_LAT, lat);
    pio_wr(0, abb_reg_pkg::REG_IGEN_CTRL, abb_reg_pkg::IGEN_ARM);
    while (q_head != q_tail) @(posedge clk);
    c0 = cyc;
    while (!irq && cyc - c0 < 100000) @(posedge clk);
    cycles = cyc - c0;
    pio_wr(0, abb_reg_pkg::REG_IGEN_CTRL, abb_reg_pkg::IGEN_ACK);
    while (irq) @(posedge clk);
  endtask

  initial begin
    logic [31:0] v;
    int c1, c2, s;
    for (int t = 0; t < 256; t++) begin r_left[t] = 0; pio_got[t] = 0; end
    repeat (4) @(posedge clk);
    #1 rst_ni = 1;

    // build parameters as the registers report them
    pio_rd(0, abb_reg_pkg::REG_GCR, v);
    chk(((v & abb_reg_pkg::GCR_SHARED_ENGINE) != 0) == (SharedEngine != 0), $sformatf("GCR %h", v));
    pio_rd(0, abb_reg_pkg::REG_DIAG_PARAM, v);
    chk(v[15:8] == NumTags && v[7:0] == EffBits, $sformatf("DIAG_PARAM %h (NumTags %0d, memory bits %0d)",
        v, NumTags, EffBits));

    // ClkNs: the generator counts 4 ns units, ClkNs/4 per cycle
    pio_wr(0, abb_reg_pkg::REG_IER, abb_reg_pkg::IER_IGEN);
    igen(40, c1);
    igen(1000, c2);
    s = ClkNs / 4;
    chk(c2 - c1 == (1000 + s - 1) / s - (40 + s - 1) / s,
        $sformatf("interrupt generator: %0d and %0d cycles for 40 and 1000 units at ClkNs %0d", c1, c2, ClkNs));
    chk(c2 * ClkNs >= 4000 && c2 * ClkNs <= 4000 + 8 * ClkNs,
        $sformatf("interrupt generator: 4000 ns took %0d cycles of %0d ns", c2, ClkNs));
    pio_wr(0, abb_reg_pkg::REG_IER, 0);

    // memory size: BAR1 offset MemBytes aliases offset 0; the last word exists
    pio_wr(1, 0, 32'h1111_1111);
    pio_wr(1, MemBytes, 32'h2222_2222);
    pio_wr(1, MemBytes - 4, 32'h3333_3333);
    pio_rd(1, 0, v);
    chk(v == 32'h2222_2222, $sformatf("BAR1 offset %h does not wrap to 0 (reads %h)", MemBytes, v));
    pio_rd(1, MemBytes - 4, v);
    chk(v == 32'h3333_3333, "the last board word");

    // TxPostedMinAv: 4 KiB board to host with the TX buffer low, then free
    c2h_pa = (MemBytes / 2) & ~32'hfff; c2h_ha = 32'h1000_0000;
    for (int i = 0; i < 1024; i += 32) begin
      push(1, 0, {ReqId, 8'h00, 4'hf, 4'hf, 32'h4000_0020}, 1, 0);
      push(0, 0, {32'h0, c2h_pa + 32'(4 * i)}, 1, 0);
      for (int j = 0; j < 32; j += 2)
        push(0, j == 30, {bp((c2h_pa >> 2) + 32'(i + j + 1)), bp((c2h_pa >> 2) + 32'(i + j))}, 1, 0);
    end
    av = (TxPostedMinAv > 0) ? 6'(TxPostedMinAv - 1) : 6'd0;
    n_mwr = 0;
    start_dma(C2H, c2h_pa, c2h_ha, 4096);
    if (TxPostedMinAv > 0) begin
      repeat (3000) @(posedge clk);
      chk(n_mwr == 0 && dut.c2h_busy, $sformatf("%0d memory writes with tx_buf_av %0d < TxPostedMinAv %0d",
          n_mwr, av, TxPostedMinAv));
      av = 6'd63;
    end
    wait_idle("DMA read");
    chk(n_mwr == 32, $sformatf("DMA read of 4 KiB at MPS 128: %0d memory writes", n_mwr));
    expect_sta(C2H, abb_reg_pkg::STA_DONE, "DMA read");
    av = 6'd63;

    // NumTags: 16 KiB host to board at MRRS 128, limit 0 (all) and NumTags/2
    for (int run = 0; run < 2; run++) begin
      logic [31:0] pa, ha;
      int lim;
      lim = run == 0 ? 0 : NumTags / 2;
      lim_exp = (lim == 0) ? NumTags : lim;
      pio_wr(0, abb_reg_pkg::REG_MRD_CR, lim);
      pa = 32'h4000 * run; ha = 32'h2000_0000 + 32'h10000 * run + 32'h40;
      max_out = 0;
      start_dma(H2C, pa, ha, 16384);
      wait_idle("DMA write");
      chk(max_out == lim_exp, $sformatf("DMA write, MRD_CR %0d: at most %0d reads outstanding, expected %0d",
          lim, max_out, lim_exp));
      expect_sta(H2C, abb_reg_pkg::STA_DONE, "DMA write");
      for (int k = 0; k < 6; k++) begin
        int i;
        i = (k == 0) ? 0 : (k == 5) ? 4095 : rn(4096);
        pio_rd(1, pa + 4 * i, v);
        chk(v == hm(ha + 4 * i), $sformatf("board word %0d after the DMA write: %h, expected %h", i, v, hm(ha + 4 * i)));
      end
    end
    lim_exp = NumTags;
    pio_wr(0, abb_reg_pkg::REG_MRD_CR, 0);

    // SharedEngine: both channels at once, either one started first
    for (int order = 0; order < 2; order++) begin
      overlap = 0;
      if (order == 0) start_dma(C2H, c2h_pa, c2h_ha, 4096);
      start_dma(H2C, c2h_pa + 32'h2000, 32'h3000_0000, 8192);
      if (order == 1) start_dma(C2H, c2h_pa, c2h_ha, 4096);
      wait_idle("both channels");
      if (SharedEngine != 0)
        chk(overlap == 0, $sformatf("shared engine: both channels active for %0d cycles (order %0d)", overlap, order));
      else chk(overlap > 0, $sformatf("separate engines: the channels never ran at the same time (order %0d)", order));
      expect_sta(C2H, abb_reg_pkg::STA_DONE, "both channels, DMA read");
      expect_sta(H2C, abb_reg_pkg::STA_DONE, "both channels, DMA write");
      overlaps[order] = overlap;
    end
    pio_rd(0, abb_reg_pkg::REG_GER, v);
    chk(v == 0, $sformatf("GER %h at the end", v));

    if (errors)
      $fatal(1, "tb_top MemBitsMax=%0d MemBits=%0d NumTags=%0d ClkNs=%0d SharedEngine=%0d TxPostedMinAv=%0d seed=%0d: %0d errors",
             MemBitsMax, MemBits, NumTags, ClkNs, SharedEngine, TxPostedMinAv, Seed, errors);
    $display("tb_top MemBitsMax=%0d MemBits=%0d NumTags=%0d ClkNs=%0d SharedEngine=%0d TxPostedMinAv=%0d seed=%0d: ok, interrupt generator %0d/%0d cycles, channels overlapping %0d/%0d cycles, %0d cycles",
             MemBitsMax, MemBits, NumTags, ClkNs, SharedEngine, TxPostedMinAv, Seed, c1, c2, overlaps[0], overlaps[1], cyc);
    $finish;
  end
endmodule
