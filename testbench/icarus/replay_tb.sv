// replay_tb.sv - Icarus Verilog replay of a golden vector: feeds the RTL's
// recorded port inputs (vectors/tlp/NAME.stim, written by `make vectors`,
// format in sim/stim_rec.h) edge by edge into abb_top and writes what this
// simulator's RTL does:
//   O edge sop eop data   every TX beat that moved (as in the .stim file)
//   Q edge level          every change of irq_o
//   M edge cycle          at each marker of the .stim file: this side's cycle
//                         (the edge's cycle: skipped cycles included)
//   T cycle dir TLP       every TLP, decoded as the simulator's TLP log
//                         (sim/tlp.cpp describe()), "up" = RTL to the link,
//                         "down" = link to RTL, at the edge of its last beat
// testbench/icarus/replay.sh compares them with the .stim file (exact TX
// beats and interrupt edges) and with the golden NAME.txt (TLPs and cycles).
//   vvp replay.vvp +stim=vectors/tlp/NAME.stim +out=OUT
`timescale 1ns / 1ps

module replay_tb;
  logic        clk = 1'b0, rst_ni = 1'b0, bm = 1'b0, msi = 1'b0, strict = 1'b0;
  logic        rxv = 1'b0, sop = 1'b0, eop = 1'b0, bar = 1'b0, txready = 1'b0;
  logic [2:0]  mps = 3'd0, mrrs = 3'd0;
  logic [15:0] reqid = 16'h0;
  logic [4:0]  membits = 5'd0;
  logic [5:0]  bufav = 6'd0;
  logic [63:0] rxdata = 64'h0;
  logic [31:0] skip = 32'h0;
  wire         rx_ready, tx_valid, tx_sop, tx_eop, irq, idle;
  wire [63:0]  tx_data;

  abb_top dut (
    .clk_i(clk), .rst_ni, .cfg_bus_master_en_i(bm), .cfg_max_payload_i(mps),
    .cfg_max_read_req_i(mrrs), .cfg_req_id_i(reqid), .cfg_msi_en_i(msi),
    .cfg_mem_bits_i(membits), .strict_i(strict),
    .rx_valid_i(rxv), .rx_ready_o(rx_ready), .rx_sop_i(sop), .rx_eop_i(eop),
    .rx_data_i(rxdata), .rx_bar_i(bar),
    .tx_valid_o(tx_valid), .tx_ready_i(txready), .tx_buf_av_i(bufav), .tx_sop_o(tx_sop),
    .tx_eop_o(tx_eop), .tx_data_o(tx_data), .irq_o(irq), .idle_o(idle),
    .skip_cycles_i(skip), .board_cfg_i(64'h0)  // the stimulus record is of the default board
  );

  integer fd, fo, r, n, e;
  longint unsigned edge_no = 0, cycle = 0, c, pc;
  reg [8*16-1:0]  word;
  reg [8*256-1:0] line;
  string stim_path, out_path;
  logic irq_last = 1'b0;
  // TLP assembly, per direction
  logic [31:0] up_h [4];
  logic [31:0] dn_h [4];
  integer up_b = 0, dn_b = 0;

  task automatic describe(input string dir, input logic [31:0] h0, h1, h2, h3);
    logic [2:0]  fmt;
    logic [4:0]  typ;
    logic [10:0] len;
    logic [63:0] a;
    logic [11:0] bc;
    string k, st;
    fmt = h0[31:29];
    typ = h0[28:24];
    len = (h0[9:0] == 10'd0) ? 11'd1024 : {1'b0, h0[9:0]};
    if (typ == 5'b00000 && fmt[2] == 1'b0) begin
      k = fmt[1] ? "MWr " : "MRd ";
      a = fmt[0] ? {h2, h3} : {32'h0, h2};
      a[1:0] = 2'b00;
      if (a[63:32] == 32'h0)
        $fwrite(fo, "T %0d %s %s req=%h tag=%h addr=0x%h len=%0d fbe=%h lbe=%h%s\n", cycle, dir, k,
                h1[31:16], h1[15:8], a[31:0], len, h1[3:0], h1[7:4], fmt[0] ? " 4dw" : "");
      else
        $fwrite(fo, "T %0d %s %s req=%h tag=%h addr=0x%0h len=%0d fbe=%h lbe=%h%s\n", cycle, dir, k,
                h1[31:16], h1[15:8], a, len, h1[3:0], h1[7:4], fmt[0] ? " 4dw" : "");
    end else if (typ == 5'b01010 && (fmt == 3'b000 || fmt == 3'b010)) begin
      k = fmt[1] ? "CplD" : "Cpl ";
      case (h1[15:13])
        3'd0: st = "SC";  3'd1: st = "UR";  3'd2: st = "CRS";  3'd4: st = "CA";
        default: st = "rsv";
      endcase
      bc = h1[11:0];
      $fwrite(fo, "T %0d %s %s req=%h tag=%h cpl=%h st=%s bc=%0d la=%h len=%0d\n", cycle, dir, k,
              h2[31:16], h2[15:8], h1[31:16], st, (bc == 12'd0) ? 4096 : bc, {1'b0, h2[6:0]},
              fmt[1] ? len : 11'd0);
    end else begin
      $fwrite(fo, "T %0d %s ?    fmt=%0d type=%h dw0=%h dw1=%h dw2=%h\n", cycle, dir, fmt, typ,
              h0, h1, h2);
    end
  endtask

  // One rising edge with the inputs already applied (as sim/hard_ip.cpp
  // edge(): settle with the clock low, sample, then the edge).
  task automatic one_edge();
    logic txf, rxf, irq_pre, t_sop, t_eop, r_sop, r_eop;
    logic [63:0] t_data, r_data;
    #2;
    txf = tx_valid && txready;
    rxf = rxv && rx_ready;
    irq_pre = irq;
    t_sop = tx_sop;  t_eop = tx_eop;  t_data = tx_data;
    r_sop = sop;     r_eop = eop;     r_data = rxdata;
    clk = 1'b1;
    edge_no = edge_no + 1;
    if (rst_ni) cycle = cycle + 1 + skip;
    #2;
    clk = 1'b0;
    if (txf) begin
      $fwrite(fo, "O %0d %0h %0h %0h\n", edge_no, t_sop, t_eop, t_data);
      if (t_sop) up_b = 0;
      if (up_b == 0) begin up_h[0] = t_data[31:0]; up_h[1] = t_data[63:32]; end
      if (up_b == 1) begin up_h[2] = t_data[31:0]; up_h[3] = t_data[63:32]; end
      up_b = up_b + 1;
      if (t_eop) describe("up  ", up_h[0], up_h[1], up_h[2], up_h[3]);
    end
    if (irq_pre != irq_last) begin
      $fwrite(fo, "Q %0d %0h\n", edge_no, irq_pre);
      irq_last = irq_pre;
    end
    if (rxf) begin
      if (r_sop) dn_b = 0;
      if (dn_b == 0) begin dn_h[0] = r_data[31:0]; dn_h[1] = r_data[63:32]; end
      if (dn_b == 1) begin dn_h[2] = r_data[31:0]; dn_h[3] = r_data[63:32]; end
      dn_b = dn_b + 1;
      if (r_eop) describe("down", dn_h[0], dn_h[1], dn_h[2], dn_h[3]);
    end
  endtask

  logic [31:0] f_rst, f_bm, f_mps, f_mrrs, f_reqid, f_msi, f_mb, f_strict, f_rxv, f_sop, f_eop,
               f_bar, f_txr, f_av, f_skip;
  logic [63:0] f_data;

  initial begin
    if (!$value$plusargs("stim=%s", stim_path) || !$value$plusargs("out=%s", out_path))
      $fatal(1, "usage: vvp replay.vvp +stim=FILE +out=FILE");
    fd = $fopen(stim_path, "r");
    if (fd == 0) $fatal(1, "cannot open %s", stim_path);
    fo = $fopen(out_path, "w");
    if (fo == 0) $fatal(1, "cannot create %s", out_path);
    while (!$feof(fd)) begin
      word = "";
      r = $fscanf(fd, "%s", word);
      if (r != 1) begin
        // end of file
      end else if (word == "I") begin
        r = $fscanf(fd, "%d %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h", n, f_rst, f_bm,
                    f_mps, f_mrrs, f_reqid, f_msi, f_mb, f_strict, f_rxv, f_sop, f_eop, f_bar,
                    f_data, f_txr, f_av, f_skip);
        if (r != 17) $fatal(1, "%s: bad I record after edge %0d", stim_path, edge_no);
        rst_ni = f_rst[0];  bm = f_bm[0];  mps = f_mps[2:0];  mrrs = f_mrrs[2:0];
        reqid = f_reqid[15:0];  msi = f_msi[0];  membits = f_mb[4:0];  strict = f_strict[0];
        rxv = f_rxv[0];  sop = f_sop[0];  eop = f_eop[0];  bar = f_bar[0];  rxdata = f_data;
        txready = f_txr[0];  bufav = f_av[5:0];  skip = f_skip;
        repeat (n) one_edge();
      end else if (word == "M") begin
        r = $fscanf(fd, "%d %d %d", e, c, pc);
        if (e != edge_no) $fatal(1, "%s: marker at edge %0d read after edge %0d", stim_path, e, edge_no);
        $fwrite(fo, "M %0d %0d\n", edge_no, cycle);
      end else begin
        r = $fgets(line, fd);  // O, Q (compared afterwards), comments
      end
    end
    $fclose(fd);
    $fclose(fo);
    $finish;
  end

endmodule
