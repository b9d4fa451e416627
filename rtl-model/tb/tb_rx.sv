// tb_rx.sv - bench of abb_rx, the RX TLP parser. A random stream of TLPs
// with random idle cycles between beats (junk on the data lines while
// rx_valid is low): memory writes to BAR1 (3/4-DW headers, 1 .. 1024 DWs,
// any byte enables) and BAR0 (one DW, First BE 0 included), memory reads to
// either BAR (held by a random rd_ready while the next beat is offered),
// completions with data split at RCB 64 (Lower Address advancing, EP set on
// some), completions without data (UR/CA/CRS), and TLPs that must be dropped:
// a single beat, messages, I/O, configuration, atomics, locked reads, an MRd
// with payload, a Cpl with payload, a CplD or MWr without payload, BAR0
// writes of more than one DW, payloads shorter or longer than their Length.
// Every output is compared in every cycle with what the bench computes from
// the TLP it sent (TLP-STREAM.md): board-memory lanes, word addresses (masked
// by the run-time memory size), data and byte enables (First BE on the
// first DW, Last BE on the last); register writes; the read request's fields
// and rx_ready low while it waits; completion beats (tag, status, DWs, data,
// first, last, Lower Address, poison); bad_tlp_o on exactly the beat that
// shows the fault; cpl_seen_o; busy_o.
// Sweep: -P tb_rx.AddrBits (MemBitsMax - 2), -P tb_rx.MemBits (the run-time
// BAR1 size in bytes, log2, <= AddrBits + 2), -P tb_rx.Seed.
`timescale 1ns / 1ps
module tb_rx;
  parameter int AddrBits = 22;
  parameter int MemBits = 20;
  parameter int Seed = 1;
  parameter int Tlps = 800;
  parameter int GapPct = 30;       // % of cycles without a beat offered
  parameter int RdBusyPct = 60;    // % of cycles rd_ready stays low

  logic clk = 0, rst_ni = 0;
  logic rv = 0, rs = 0, re = 0, rbar = 0, rd_ready = 0;
  logic [63:0] rdat = 0;
  logic [AddrBits-1:0] mask;
  assign mask = AddrBits'((64'd1 << (MemBits - 2)) - 1);

  logic rdy, reg_we, rd_valid, rd_bar, cv, clast, cpois, cfirst, bad, seen, busy;
  logic [15:0] reg_a, rd_rid;
  logic [31:0] reg_d, rd_addr;
  logic [1:0] mem_we, cdw;
  logic [AddrBits-1:0] a0, a1;
  logic [63:0] wd, cdata;
  logic [7:0] wbe, rd_tag, ctag;
  logic [10:0] rd_len;
  logic [3:0] rd_fbe, rd_lbe;
  logic [2:0] cst;
  logic [6:0] cla;

  abb_rx #(.AddrBits(AddrBits)) dut (
    .clk_i(clk), .rst_ni, .rx_valid_i(rv), .rx_ready_o(rdy), .rx_sop_i(rs), .rx_eop_i(re),
    .rx_data_i(rdat), .rx_bar_i(rbar), .mem_mask_i(mask),
    .reg_we_o(reg_we), .reg_waddr_o(reg_a), .reg_wdata_o(reg_d),
    .mem_we_o(mem_we), .mem_waddr0_o(a0), .mem_waddr1_o(a1), .mem_wdata_o(wd), .mem_wbe_o(wbe),
    .rd_valid_o(rd_valid), .rd_ready_i(rd_ready), .rd_bar_o(rd_bar), .rd_addr_o(rd_addr),
    .rd_len_o(rd_len), .rd_first_be_o(rd_fbe), .rd_last_be_o(rd_lbe), .rd_req_id_o(rd_rid),
    .rd_tag_o(rd_tag), .cpl_valid_o(cv), .cpl_tag_o(ctag), .cpl_status_o(cst), .cpl_dw_o(cdw),
    .cpl_data_o(cdata), .cpl_last_o(clast), .cpl_poison_o(cpois), .cpl_first_o(cfirst),
    .cpl_la_o(cla), .bad_tlp_o(bad), .cpl_seen_o(seen), .busy_o(busy));

  always #2 clk = ~clk;

  // ---- deterministic random numbers (tb_rand.svh)
  localparam logic [31:0] RandSalt = 32'h6d2b79f5;
  `include "tb_rand.svh"

  int errors = 0, cycles = 0;
  int n_wr = 0, n_reg = 0, n_rd = 0, n_cpld = 0, n_cpl = 0, n_bad = 0, n_beats = 0;
  task automatic chk(input bit ok, input string what);
    if (!ok) begin
      errors++;
      if (errors <= 10) $display("ERROR: cycle %0d: %s", cycles, what);
    end
  endtask

  // ---- expected outputs of the current cycle (e_*), set before tick()
  bit e_ready, e_busy, e_reg_we, e_rdv, e_cv, e_clast, e_cfirst, e_cpois, e_bad, e_seen;
  logic [15:0] e_reg_a;
  logic [31:0] e_reg_d;
  logic [1:0] e_mem_we, e_cdw;
  logic [AddrBits-1:0] e_a0, e_a1;
  logic [63:0] e_wd, e_cdata;
  logic [7:0] e_wbe, e_ctag;
  logic [2:0] e_cst;
  logic [6:0] e_cla;
  // the read request waiting
  logic e_rd_bar;
  logic [31:0] e_rd_addr;
  logic [10:0] e_rd_len;
  logic [3:0] e_rd_fbe, e_rd_lbe;
  logic [15:0] e_rd_rid;
  logic [7:0] e_rd_tag;
  bit in_tlp = 0;   // a TLP's first beat was taken and its last not yet

  task automatic clear_exp;
    e_ready = 1; e_busy = in_tlp; e_reg_we = 0; e_rdv = 0; e_cv = 0; e_bad = 0; e_seen = 0;
    e_mem_we = 2'b00;
  endtask

  // one clock edge: compare every output with the expectation, then let the
  // caller set the next cycle's inputs
  task automatic tick;
    @(posedge clk);
    cycles++;
    chk(rdy === e_ready, $sformatf("rx_ready_o %b, expected %b", rdy, e_ready));
    chk(busy === e_busy, $sformatf("busy_o %b, expected %b", busy, e_busy));
    chk(bad === e_bad, $sformatf("bad_tlp_o %b, expected %b", bad, e_bad));
    chk(seen === e_seen, $sformatf("cpl_seen_o %b, expected %b", seen, e_seen));
    chk(reg_we === e_reg_we, $sformatf("reg_we_o %b, expected %b", reg_we, e_reg_we));
    if (e_reg_we) begin
      chk(reg_a === e_reg_a, $sformatf("reg_waddr_o %h, expected %h", reg_a, e_reg_a));
      chk(reg_d === e_reg_d, $sformatf("reg_wdata_o %h, expected %h", reg_d, e_reg_d));
    end
    chk(mem_we === e_mem_we, $sformatf("mem_we_o %b, expected %b", mem_we, e_mem_we));
    if (e_mem_we[0]) begin
      chk(a0 === e_a0, $sformatf("mem_waddr0_o %h, expected %h", a0, e_a0));
      chk(wd[31:0] === e_wd[31:0], "mem_wdata_o lane 0");
      chk(wbe[3:0] === e_wbe[3:0], $sformatf("mem_wbe_o lane 0 %h, expected %h", wbe[3:0], e_wbe[3:0]));
    end
    if (e_mem_we[1]) begin
      chk(a1 === e_a1, $sformatf("mem_waddr1_o %h, expected %h", a1, e_a1));
      chk(wd[63:32] === e_wd[63:32], "mem_wdata_o lane 1");
      chk(wbe[7:4] === e_wbe[7:4], $sformatf("mem_wbe_o lane 1 %h, expected %h", wbe[7:4], e_wbe[7:4]));
    end
    chk(rd_valid === e_rdv, $sformatf("rd_valid_o %b, expected %b", rd_valid, e_rdv));
    if (e_rdv)
      chk({rd_bar, rd_addr, rd_len, rd_fbe, rd_lbe, rd_rid, rd_tag} ===
          {e_rd_bar, e_rd_addr, e_rd_len, e_rd_fbe, e_rd_lbe, e_rd_rid, e_rd_tag},
          $sformatf("read request bar %b addr %h len %0d be %h/%h id %h tag %h, expected %b %h %0d %h/%h %h %h",
                    rd_bar, rd_addr, rd_len, rd_fbe, rd_lbe, rd_rid, rd_tag, e_rd_bar, e_rd_addr,
                    e_rd_len, e_rd_fbe, e_rd_lbe, e_rd_rid, e_rd_tag));
    chk(cv === e_cv, $sformatf("cpl_valid_o %b, expected %b", cv, e_cv));
    if (e_cv) begin
      chk({ctag, cst, cdw, clast, cfirst, cla, cpois} === {e_ctag, e_cst, e_cdw, e_clast, e_cfirst, e_cla, e_cpois},
          $sformatf("completion beat tag %h status %0d dw %0d last %b first %b la %h ep %b, expected %h %0d %0d %b %b %h %b",
                    ctag, cst, cdw, clast, cfirst, cla, cpois,
                    e_ctag, e_cst, e_cdw, e_clast, e_cfirst, e_cla, e_cpois));
      if (e_cdw >= 1) chk(cdata[31:0] === e_cdata[31:0], "completion data lane 0");
      if (e_cdw == 2) chk(cdata[63:32] === e_cdata[63:32], "completion data lane 1");
    end else begin
      chk(cdw === 2'd0, "completion DWs without cpl_valid_o");
    end
    #1;
  endtask

  // idle cycles: no beat offered, junk on the lines (rx_valid low); rd_ready
  // toggles (nothing waits for it)
  task automatic gap;
    while (rn(100) < GapPct) begin
      rv = 0; rs = rnd() & 1; re = rnd() & 1; rbar = rnd() & 1; rdat = {rnd(), rnd()};
      rd_ready = rnd() & 1;
      clear_exp();
      tick();
    end
  endtask

  // drive one beat (after a random gap), with the expectation the caller set
  // up in e_* (set_beat_exp) taken over for the beat's cycle
  bit b_reg_we = 0, b_cv = 0, b_clast = 0, b_cfirst = 0, b_bad = 0, b_seen = 0;
  logic [1:0] b_mem_we = 2'b00, b_cdw = 2'd0;
  logic [AddrBits-1:0] b_a0, b_a1;
  logic [7:0] b_wbe;
  logic [6:0] b_cla;

  task automatic beat(input bit sop, input bit eop, input logic [63:0] d, input bit bar);
    gap();
    rv = 1; rs = sop; re = eop; rdat = d; rbar = bar; rd_ready = rnd() & 1;
    clear_exp();
    e_bad = b_bad; e_seen = b_seen;
    e_reg_we = b_reg_we; e_reg_d = d[31:0];
    e_mem_we = b_mem_we; e_a0 = b_a0; e_a1 = b_a1; e_wd = d; e_wbe = b_wbe;
    e_cv = b_cv; e_cdw = b_cdw; e_cdata = d; e_clast = b_clast; e_cfirst = b_cfirst; e_cla = b_cla;
    tick();
    n_beats++;
    if (sop) in_tlp = 1;
    if (eop) in_tlp = 0;
    rv = 0;
    {b_reg_we, b_cv, b_clast, b_cfirst, b_bad, b_seen} = '0;
    b_mem_we = 2'b00; b_cdw = 2'd0;
  endtask

  // ---- one TLP. cls says what the parser must make of it:
  localparam int CMemWr = 0, CRegWr = 1, CRead = 2, CCplD = 3, CCpl = 4, CDrop = 5, COneBeat = 6;
  // len: the Length field in DWs (1..1024); pay_beats: payload beats on the
  // wire (normally ceil(len/2); fewer or more for the short/long cases)
  logic [31:0] payload [0:2047];

  task automatic send_tlp(input int cls, input bit bar, input logic [31:0] dw0, input logic [31:0] dw1,
                          input logic [31:0] dw2, input logic [31:0] dw3, input int len, input int pay_beats);
    logic [31:0] addr;
    logic [7:0] tag;
    logic [6:0] la;
    bit hdr4;
    hdr4 = dw0[29];
    addr = (hdr4 ? dw3 : dw2) & ~32'h3;
    tag = dw2[15:8];
    la  = dw2[6:0];
    // beat 0: DW0, DW1
    b_bad = (cls == COneBeat);
    beat(1'b1, cls == COneBeat, {dw1, dw0}, bar);
    if (cls == COneBeat) n_bad++;
    else send_rest(cls, bar, dw0, dw1, dw2, dw3, len, pay_beats, addr, tag, la, hdr4);
  endtask

  // beats 1.. of send_tlp's TLP
  task automatic send_rest(input int cls, input bit bar, input logic [31:0] dw0, input logic [31:0] dw1,
                           input logic [31:0] dw2, input logic [31:0] dw3, input int len, input int pay_beats,
                           input logic [31:0] addr, input logic [7:0] tag, input logic [6:0] la,
                           input bit hdr4);
    // beat 1: DW2, DW3 (0 for a 3-DW header)
    b_bad = (cls == CDrop);
    if (cls == CCpl) begin
      b_cv = 1; b_cdw = 0; b_clast = 1; b_cfirst = 1; b_cla = la;
      e_ctag = tag;
    end
    b_seen = (cls == CCpl || cls == CCplD);
    e_cst = dw1[15:13]; e_cpois = dw0[14]; e_ctag = tag;
    beat(1'b0, pay_beats == 0, {hdr4 ? dw3 : 32'h0, dw2}, bar);
    if (cls == CDrop) n_bad++;
    // payload beats
    for (int k = 0; k < pay_beats; k++) begin
      int i, n;
      bit eop;
      i = 2 * k;                        // index of the beat's first DW
      n = (len - i >= 2) ? 2 : (len - i == 1) ? 1 : 0;   // DWs inside the Length
      eop = (k == pay_beats - 1);
      if (cls != CDrop && n > 0) begin
        if (cls == CMemWr) begin
          b_mem_we = (n == 2) ? 2'b11 : 2'b01;
          b_a0 = AddrBits'(addr[AddrBits+1:2] + AddrBits'(i)) & mask;
          b_a1 = AddrBits'(addr[AddrBits+1:2] + AddrBits'(i + 1)) & mask;
          // byte enables: First BE on DW 0, Last BE on DW len-1 (len > 1)
          b_wbe[3:0] = (i == 0) ? dw1[3:0] : (i == len - 1) ? dw1[7:4] : 4'hf;
          b_wbe[7:4] = (i + 1 == len - 1) ? dw1[7:4] : 4'hf;
        end else if (cls == CRegWr) begin
          b_reg_we = (dw1[3:0] != 4'h0);
          e_reg_a = addr[15:0];
        end else if (cls == CCplD) begin
          b_cv = 1; b_cdw = 2'(n); b_clast = (i + n == len); b_cfirst = (k == 0); b_cla = la;
          e_ctag = tag;
        end
        // the fault shows on the beat where the stream and the Length disagree
        if ((eop && len - i > 2) || (!eop && len - i <= 2)) begin b_bad = 1; n_bad++; end
      end
      beat(1'b0, eop, {n == 2 ? payload[i + 1] : 32'h0, n >= 1 ? payload[i] : 32'h0}, bar);
    end
    if (cls == CMemWr) n_wr++;
    if (cls == CRegWr) n_reg++;
    if (cls == CCplD) n_cpld++;
    if (cls == CCpl) n_cpl++;
    // a read request waits for rd_ready with rx_ready low (the link offers
    // its next beat meanwhile: it must not move)
    if (cls == CRead) begin
      bit taken;
      e_rd_bar = bar; e_rd_addr = addr; e_rd_len = 11'(len);
      e_rd_fbe = dw1[3:0]; e_rd_lbe = dw1[7:4]; e_rd_rid = dw1[31:16]; e_rd_tag = dw1[15:8];
      in_tlp = 1;
      do begin
        rv = rnd() & 1; rs = 1; re = 0; rdat = {rnd(), rnd()}; rbar = rnd() & 1;
        rd_ready = rn(100) >= RdBusyPct;
        taken = rd_ready;
        clear_exp();
        e_ready = 0; e_rdv = 1;
        tick();
      end while (!taken);
      rv = 0; rd_ready = 0; in_tlp = 0;
      n_rd++;
    end
  endtask

  // ---- TLP makers
  function automatic logic [31:0] mk_dw0(input logic [2:0] fmt, input logic [4:0] typ,
                                         input bit ep, input int len);
    return {fmt, typ, 1'b0, 3'(rnd()), 4'h0, 1'b0, ep, 4'h0, 10'(len)};  // len 1024 -> 0
  endfunction

  function automatic int rand_len();
    int r;
    r = rn(100);
    return (r < 60) ? 1 + rn(40) : (r < 90) ? 1 + rn(300) : (r < 95) ? 1024 : 1 + rn(1024);
  endfunction

  task automatic fill_payload(input int n);
    for (int i = 0; i < n + 4; i++) payload[i] = rnd();
  endtask

  // memory request header beat 1 words for an address: 3-DW or 4-DW (the
  // upper half is ignored by the parser, the BAR offset counts)
  task automatic req_addr_words(input bit hdr4, output logic [31:0] dw2, output logic [31:0] dw3);
    logic [31:0] a;
    a = rnd();
    if (rn(4) != 0) a[1:0] = 2'b00;     // reserved bits: the parser clears them
    if (hdr4) begin dw2 = rnd() | 32'h1; dw3 = a; end
    else begin dw2 = a; dw3 = 32'h0; end
  endtask

  function automatic logic [31:0] req_dw1(input int len, input bit fbe0);
    logic [3:0] fbe, lbe;
    fbe = fbe0 ? 4'h0 : 4'(rnd());
    lbe = (len == 1) ? 4'h0 : 4'(rnd());
    return {16'(rnd()), 8'(rnd()), lbe, fbe};
  endfunction

  task automatic mem_write(input bit bar, input int len, input int cls, input int pay_beats);
    bit hdr4;
    logic [31:0] dw2, dw3;
    hdr4 = rnd() & 1;
    req_addr_words(hdr4, dw2, dw3);
    fill_payload(2 * pay_beats);
    send_tlp(cls, bar, mk_dw0({2'b01, hdr4}, 5'b00000, 1'b0, len), req_dw1(len, rn(8) == 0),
             dw2, dw3, len, pay_beats);
  endtask

  task automatic mem_read(input bit with_payload);
    bit hdr4, bar;
    int len;
    logic [31:0] dw2, dw3;
    hdr4 = rnd() & 1; bar = rnd() & 1; len = 1 + rn(1024);
    req_addr_words(hdr4, dw2, dw3);
    fill_payload(2);
    send_tlp(with_payload ? CDrop : CRead, bar, mk_dw0({2'b00, hdr4}, 5'b00000, 1'b0, len),
             req_dw1(len, 1'b0), dw2, dw3, len, with_payload ? 1 : 0);
  endtask

  // a completion with data of n DWs from Lower Address la (tag t), split at
  // 64-byte (RCB) boundaries into several CplD TLPs; EP on all if ep
  task automatic split_completion(input int n, input logic [7:0] t, input bit ep);
    logic [6:0] la;
    int left, cid, rid;
    la = 7'(rnd()) & 7'h7c; left = n; cid = rnd(); rid = rnd();
    while (left > 0) begin
      int piece;
      piece = (64 - int'(la[5:0])) / 4;
      if (piece > left) piece = left;
      fill_payload(piece);
      send_tlp(CCplD, rnd() & 1, mk_dw0(3'b010, 5'b01010, ep, piece),
               {16'(cid), 3'b000, 1'b0, 12'(4 * left)}, {16'(rid), t, 1'b0, la}, 32'h0,
               piece, (piece + 1) / 2);
      la = la + 7'(4 * piece);
      left -= piece;
    end
  endtask

  task automatic cpl_nodata(input bit with_payload);
    logic [2:0] st;
    int r;
    r = rn(3);
    st = (r == 0) ? 3'b001 : (r == 1) ? 3'b100 : 3'b010;   // UR, CA, CRS
    fill_payload(2);
    send_tlp(with_payload ? CDrop : CCpl, 1'b0, mk_dw0(3'b000, 5'b01010, rnd() & 1, 1),
             {16'(rnd()), st, 1'b0, 12'(rnd())}, {16'(rnd()), 8'(rnd()), 1'b0, 7'(rnd())}, 32'h0,
             1, with_payload ? 1 : 0);
  endtask

  // a TLP the parser does not support: message, I/O, configuration, atomic,
  // locked read, with or without payload as its format says
  task automatic unsupported;
    logic [2:0] fmt;
    logic [4:0] typ;
    int r, len;
    r = rn(7);
    case (r)
      0: begin fmt = 3'b001; typ = 5'b10000; end   // Msg (4-DW, no data)
      1: begin fmt = 3'b011; typ = 5'b10011; end   // MsgD
      2: begin fmt = 3'b000; typ = 5'b00010; end   // IORd
      3: begin fmt = 3'b010; typ = 5'b00010; end   // IOWr
      4: begin fmt = 3'b010; typ = 5'b00100; end   // CfgWr0
      5: begin fmt = 3'b010; typ = 5'b01100; end   // FetchAdd
      default: begin fmt = 3'b000; typ = 5'b00001; end   // MRdLk
    endcase
    len = fmt[1] ? 1 + rn(8) : 1;
    fill_payload(len + 1);
    send_tlp(CDrop, rnd() & 1, mk_dw0(fmt, typ, 1'b0, len), rnd(), rnd(), rnd(), len,
             fmt[1] ? (len + 1) / 2 : 0);
  endtask

  initial begin
    repeat (3) @(posedge clk);
    #1 rst_ni = 1;
    for (int t = 0; t < Tlps; t++) begin
      int r, len;
      r = rn(100);
      if (r < 22) begin                        // BAR1 write
        len = rand_len();
        mem_write(1'b1, len, CMemWr, (len + 1) / 2);
      end else if (r < 32) begin               // BAR0 register write (one DW)
        mem_write(1'b0, 1, CRegWr, 1);
      end else if (r < 35) begin               // BAR0 write of more DWs: dropped
        len = 2 + rn(16);
        mem_write(1'b0, len, CDrop, (len + 1) / 2);
      end else if (r < 50) begin               // read request
        mem_read(1'b0);
      end else if (r < 68) begin               // completion(s) with data
        split_completion(1 + rn(64), (rn(2) == 0) ? 8'(rn(32)) : 8'h80 + 8'(rn(2)), rn(6) == 0);
      end else if (r < 75) begin               // completion without data
        cpl_nodata(1'b0);
      end else if (r < 78) begin               // one beat only
        send_tlp(COneBeat, 1'b0, rnd(), rnd(), 0, 0, 1, 0);
      end else if (r < 83) begin
        unsupported();
      end else if (r < 85) begin
        mem_read(1'b1);                        // MRd with payload
      end else if (r < 87) begin
        cpl_nodata(1'b1);                      // Cpl with payload
      end else if (r < 89) begin               // CplD / MWr without payload
        len = 1 + rn(8);
        if (rn(2)) send_tlp(CDrop, 1'b0, mk_dw0(3'b010, 5'b01010, 1'b0, len), rnd(), rnd(), 0, len, 0);
        else       mem_write(1'b1, len, CDrop, 0);
      end else if (r < 95) begin               // payload shorter than its Length
        len = 3 + rn(60);
        if (rn(2)) mem_write(1'b1, len, CMemWr, 1 + rn((len + 1) / 2 - 1));
        else begin
          fill_payload(len);
          send_tlp(CCplD, 1'b0, mk_dw0(3'b010, 5'b01010, 1'b0, len), rnd() & 32'hffff1fff,
                   {16'(rnd()), 8'(rnd()), 1'b0, 7'(rnd())}, 0, len, 1 + rn((len + 1) / 2 - 1));
        end
      end else begin                           // payload longer than its Length
        len = 1 + rn(40);
        if (rn(2)) mem_write(1'b1, len, CMemWr, (len + 1) / 2 + 1 + rn(3));
        else begin
          fill_payload(len + 8);
          send_tlp(CCplD, 1'b0, mk_dw0(3'b010, 5'b01010, 1'b0, len), rnd() & 32'hffff1fff,
                   {16'(rnd()), 8'(rnd()), 1'b0, 7'(rnd())}, 0, len, (len + 1) / 2 + 1 + rn(3));
        end
      end
    end
    clear_exp();
    repeat (3) tick();
    if (errors)
      $fatal(1, "tb_rx AddrBits=%0d MemBits=%0d seed=%0d: %0d errors", AddrBits, MemBits, Seed, errors);
    $display("tb_rx AddrBits=%0d MemBits=%0d seed=%0d: ok, %0d TLPs (%0d BAR1 writes, %0d register writes, %0d reads, %0d CplD, %0d Cpl, %0d faults), %0d beats",
             AddrBits, MemBits, Seed, Tlps, n_wr, n_reg, n_rd, n_cpld, n_cpl, n_bad, n_beats);
    $finish;
  end
endmodule
