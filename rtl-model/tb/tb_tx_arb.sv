// tb_tx_arb.sv - bench of abb_tx_arb: N sources offer TLPs of random length
// (beat data = source, TLP number, beat number) with random pauses, the sink
// takes beats with random back-pressure and a random tx_buf_av. Checks:
// every TLP arrives whole and unmixed, in order per source; none is lost;
// the posted source never starts a TLP while the buffer (a cycle earlier)
// was below PostedMinAv; round robin: a source that keeps a TLP waiting is
// served before any other source is served twice (the posted source may be
// held back by the buffer limit: liveness only); src_sel_o one-hot in
// every cycle, tx_data_o that source's data, the grant (src_ready_o) only
// to it. Sweep: -P tb_tx_arb.N,
// -P tb_tx_arb.PostedMinAv, -P tb_tx_arb.Seed.
`timescale 1ns / 1ps
module tb_tx_arb;
  parameter int N = 5;
  parameter int PostedMinAv = 12;
  parameter int Seed = 1;
  parameter int Tlps = 300;              // TLPs per source
  localparam logic [31:0] PostedSrc = 32'b01000;

  logic clk = 0, rst_ni = 0;
  logic [5:0] av = 6'd63;
  logic [N-1:0] v, sop, eop, rdy, sel;
  logic [N*64-1:0] data;
  logic tv, tr = 0, ts, te;
  logic [63:0] td;

  abb_tx_arb #(.N(N), .PostedSrc(PostedSrc), .PostedMinAv(PostedMinAv)) dut (
    .clk_i(clk), .rst_ni, .tx_buf_av_i(av), .src_valid_i(v), .src_sop_i(sop), .src_eop_i(eop),
    .src_data_i(data), .src_ready_o(rdy), .src_sel_o(sel), .tx_valid_o(tv), .tx_ready_i(tr), .tx_sop_o(ts),
    .tx_eop_o(te), .tx_data_o(td));

  // sources: TLP k of source s has 2 + (k*7+s)%9 beats
  int sent_tlp [N];   // TLPs done per source
  int beat_no  [N];
  int got_tlp  [N];
  int served_since [N];   // grants to others while s waited with a TLP
  int seed = Seed;
  int errors = 0;
  int total = 0;
  logic [N-1:0] held = '0;    // an offered TLP stays offered until taken
  logic [N-1:0] pause = '0;   // some TLPs wait a few cycles before they are offered
  logic av_low_q = 0;

  function automatic int nbeats(int s, int k); return 2 + (k * 7 + s) % 9; endfunction

  // the sources' outputs, from their state after each edge
  task automatic offer();
    for (int s = 0; s < N; s++) begin
      v[s]   = sent_tlp[s] < Tlps && (beat_no[s] > 0 || ((sent_tlp[s] + s) % 3 != 0) || pause[s] || held[s]);
      sop[s] = beat_no[s] == 0;
      eop[s] = beat_no[s] == nbeats(s, sent_tlp[s]) - 1;
      data[64*s +: 64] = {8'(s), 24'(sent_tlp[s]), 32'(beat_no[s])};
    end
  endtask

  int cur_src = -1, cur_tlp, cur_beat;
  always @(posedge clk) if (rst_ni) begin
    // the source the arbiter shows (the sources of abb_top drive data only then)
    if (!$onehot(sel)) begin $display("ERROR: src_sel_o %b not one-hot", sel); errors++; end
    for (int s = 0; s < N; s++)
      if (sel[s] && td != data[64*s +: 64]) begin $display("ERROR: tx_data_o is not source %0d's data", s); errors++; end
    if (rdy != ((tv && tr) ? sel : '0)) begin $display("ERROR: grant %b, src_sel_o %b", rdy, sel); errors++; end
    // sink side checks on the beat that moves now
    if (tv && tr) begin
      int s, k, b;
      s = td[63:56];  k = td[55:32];  b = td[31:0];
      if (ts) begin
        if (cur_src != -1) begin $display("ERROR: sop inside a TLP"); errors++; end
        if (k != got_tlp[s]) begin $display("ERROR: source %0d TLP %0d out of order (want %0d)", s, k, got_tlp[s]); errors++; end
        if (PostedSrc[s] && av_low_q) begin $display("ERROR: posted TLP started with tx_buf_av low"); errors++; end
        for (int o = 0; o < N; o++)
          if (o != s && v[o] && sop[o] && !PostedSrc[o]) begin  // the posted one may be held back
            served_since[o]++;
            if (served_since[o] > N - 1) begin $display("ERROR: source %0d starved", o); errors++; end
          end
        served_since[s] = 0;
        cur_src = s; cur_tlp = k; cur_beat = 0;
      end
      if (s != cur_src || k != cur_tlp || b != cur_beat) begin
        $display("ERROR: beat %0d.%0d.%0d inside TLP %0d.%0d beat %0d", s, k, b, cur_src, cur_tlp, cur_beat);
        errors++;
      end
      cur_beat++;
      if (te) begin
        if (cur_beat != nbeats(s, k)) begin $display("ERROR: TLP %0d.%0d has %0d beats", s, k, cur_beat); errors++; end
        got_tlp[s]++;
        total++;
        cur_src = -1;
      end
    end
    // source side: advance on ready
    held = v & ~rdy;
    for (int s = 0; s < N; s++) if (rdy[s]) begin
      if (eop[s]) begin sent_tlp[s]++; beat_no[s] = 0; end
      else beat_no[s]++;
    end
    av_low_q <= int'(av) < PostedMinAv;
    tr <= ($urandom(seed) % 4) != 0;  seed++;
    av <= 6'($urandom(seed) % 64);    seed++;
    pause = N'($urandom(seed));       seed++;
    #0.5 offer();
  end

  always #2 clk = ~clk;
  initial begin
    for (int s = 0; s < N; s++) begin sent_tlp[s] = 0; beat_no[s] = 0; got_tlp[s] = 0; served_since[s] = 0; end
    offer();
    repeat (3) @(posedge clk);
    rst_ni = 1;
    fork
      begin
        wait (total == N * Tlps);
      end
      begin
        repeat (200000) @(posedge clk);
        $display("ERROR: timeout: %0d of %0d TLPs", total, N * Tlps); errors++;
      end
    join_any
    for (int s = 0; s < N; s++) if (got_tlp[s] != Tlps) begin $display("ERROR: source %0d: %0d TLPs", s, got_tlp[s]); errors++; end
    if (errors) $fatal(1, "tb_tx_arb N=%0d PostedMinAv=%0d seed=%0d: %0d errors", N, PostedMinAv, Seed, errors);
    $display("tb_tx_arb N=%0d PostedMinAv=%0d seed=%0d: ok, %0d TLPs", N, PostedMinAv, Seed, N * Tlps);
    $finish;
  end
endmodule
