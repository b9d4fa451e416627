// abb_h2c_mover.sv - data mover of the downstream channel (host to board,
// "DMA write"): reads host memory with memory-read requests and writes the
// completion data into board memory.
//
// Each request asks for min(remaining, Max_Read_Request_Size, bytes to the
// next 4 KiB boundary); up to NumTags requests (or MRD_CR's limit) are
// outstanding at once, each with its own tag. Completions of one tag arrive
// in order (PCIe), so a tag only needs its next board address and the DWs
// it still expects; completions of different tags may interleave freely.
// An error completion (UR/CA) stops new requests; the mover still collects
// every outstanding tag before it reports done, so no late completion can
// land in a later transfer. When another descriptor of the chain follows
// (more_i), done_o comes as soon as the last request is sent and the next
// command may start while the reads are still outstanding (each tag keeps
// its own board address and increment), so a chain of page-sized pieces
// streams without draining between them; the last command of a chain
// reports done only when every read of the chain has landed, and an error
// anywhere in the chain is reported there. With inc_i clear all data goes to one address
// (a FIFO port) in stream order, one request at a time: the last DW stays.
//
// Errors (model): the data of every successful completion of an
// outstanding tag is written, also while a RESET or an error elsewhere in
// the chain drains the mover (abort_i); after an error of the mover's own
// reads (UR/CA status, poisoned data, timeout, a completion for a tag that
// is not outstanding while the chain runs) nothing more of the chain is
// written. A poisoned completion (EP) is counted but its data is never
// written. Each tag also keeps the Lower Address its next completion must
// carry: a completion that does not continue its read where the last one
// ended (duplicated, or passed by a later one of the same tag) is dropped
// whole as an unexpected completion (cpl_tag_err_o). Completion timeout: when reads are outstanding and no completion
// for this mover arrived for CplTimeoutCycles cycles, every outstanding tag
// is given up (error, timeout_o); a completion that arrives later for a
// tag that is not outstanding is an unexpected completion (cpl_tag_err_o).

`include "abb_assert.svh"

module abb_h2c_mover #(
  parameter int AddrBits = 22,  // board-memory word-index width
  parameter int NumTags  = 16,  // read tags (0 .. NumTags-1), at most 32
  parameter int CplTimeoutCycles = 1 << 22  // completion timeout: cycles without any
                                            // completion while reads are outstanding
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [15:0]         cfg_req_id_i,
  input  logic [10:0]         mrrs_dw_i,    // max read request in DWs
  input  logic [abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH-1:0] tag_limit_i,  // MRD_CR: 0 = NumTags
  input  logic [AddrBits-1:0] mem_mask_i,
  // command from abb_dma_ctl
  input  logic                start_i,
  input  logic [31:0]         pa_i,
  input  logic [63:0]         ha_i,
  input  logic [31:0]         len_i,
  input  logic                inc_i,
  input  logic                more_i,       // with start_i: another descriptor follows
  input  logic                abort_i,
  output logic                busy_o,       // a command runs or reads are outstanding
  output logic                done_o,       // the command is done (see more_i)
  output logic                err_o,        // with done_o: a completion had an error status
  // completion beats for tags below NumTags
  input  logic                cpl_valid_i,
  input  logic [7:0]          cpl_tag_i,
  input  logic [2:0]          cpl_status_i,
  input  logic [1:0]          cpl_dw_i,
  input  logic [63:0]         cpl_data_i,
  input  logic                cpl_poison_i,  // the completion is poisoned (EP)
  input  logic                cpl_first_i,   // first beat of a completion TLP
  input  logic                cpl_last_i,    // last beat of a completion TLP
  input  logic [6:0]          cpl_la_i,      // its Lower Address
  output logic                cpl_tag_err_o, // completion for a tag not outstanding
  output logic                poison_o,      // pulse: a poisoned completion was dropped
  output logic                timeout_o,     // pulse: completion timeout, reads given up
  // board memory write port
  output logic [1:0]          mem_we_o,
  output logic [AddrBits-1:0] mem_waddr0_o,
  output logic [AddrBits-1:0] mem_waddr1_o,
  output logic [63:0]         mem_wdata_o,
  // TX source (memory-read requests)
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic                tx_sop_o,
  output logic                tx_eop_o,
  output logic [63:0]         tx_data_o,
  input  logic                tx_sel_i,     // the arbiter shows this source's data (abb_tx_arb's
                                            // src_sel_o): tx_data_o is 0 otherwise
  output logic                req_o         // pulse per request sent (counter)
);

  localparam int TagW = $clog2(NumTags);

  typedef enum logic [1:0] {
    StIdle,
    StIssue,   // requests go out while tags and data remain
    StReq1,    // second header beat of a request
    StWait     // all requested: collect the outstanding completions
  } state_e;

  state_e              state_q, state_d;
  // The command registers change at a start and per request sent, the
  // request's tag and size when it is accepted: flops with an enable
  // (cmd_we, req_sent, req_go), loaded only then (simulation speed: as
  // x_q <= x_d with x_d = x_q by default, the simulator copies them in every
  // cycle).
  logic [63:0]         ha_q;
  logic [29:0]         rem_q;
  logic [AddrBits-1:0] pa_q;
  logic                inc_q;
  logic                more_q;           // the current command is not the chain's last
  logic                open_q, open_d;   // a chain is under way (err_q belongs to it)
  logic                err_q, err_d;
  logic [TagW-1:0]     tag_q;            // tag of the request being sent
  logic [10:0]         len_q;            // its DWs
  logic                cmd_we, req_go, req_sent;

  logic [NumTags-1:0]  out_q, out_d;     // tag outstanding
  logic [NumTags-1:0]  tinc_q, tinc_d;   // the tag's request increments the board address
  logic [AddrBits-1:0] ptr_q [NumTags];  // next board word index per tag
  logic [10:0]         cnt_q [NumTags];  // DWs still expected per tag
  logic [6:0]          la_q  [NumTags];  // Lower Address of the tag's next completion
  // per-tag updates: a request being sent (tag_q) and a completion (ctag)
  // never touch the same tag in one cycle
  logic                new_we, cpl_we;
  logic [AddrBits-1:0] cpl_ptr;
  logic [10:0]         cpl_cnt;

  // Tag limit: a fixed-address (FIFO) transfer keeps one request
  // outstanding (its data must reach the port in stream order, and
  // completions of different tags may arrive in any order), else MRD_CR's
  // limit (0: NumTags).
  function automatic logic [5:0] tag_cap(input logic inc,
                                         input logic [abb_reg_pkg::MRD_CR_TAG_LIMIT_WIDTH-1:0] lim);
    tag_cap = !inc ? 6'd1 : (lim == '0 || 6'(lim) > 6'(NumTags)) ? 6'(NumTags) : 6'(lim);
  endfunction
  // the free tags below the limit (limit <= NumTags)
  function automatic logic [NumTags-1:0] free_tags(input logic [NumTags-1:0] out,
                                                   input logic [5:0] lim);
    free_tags = ~out & NumTags'((64'd1 << lim) - 64'd1);
  endfunction
  // the lowest set bit of v alone
  function automatic logic [NumTags-1:0] lowest_set(input logic [NumTags-1:0] v);
    lowest_set = v & (~v + NumTags'(1));
  endfunction
  // at [NumTags*b +: NumTags]: the tags whose index has bit b set (a
  // constant: elaboration only, no coverage point)
  /* verilator coverage_off */ function automatic logic [TagW*NumTags-1:0] tags_with_bit();
    for (int b = 0; b < TagW; b++)
      for (int t = 0; t < NumTags; t++) tags_with_bit[NumTags*b + t] = ((t >> b) & 1) != 0;
  endfunction /* verilator coverage_on */
  localparam logic [TagW*NumTags-1:0] WithBit = tags_with_bit();

  logic hdr4;
  assign hdr4 = (ha_q[63:32] != 32'h0);
  // a request is offered in StIssue only (the test first: the simulator
  // evaluates the rest only there)
  logic want_req, free_any;   // free_any: a free tag below the limit (in StIssue)
  logic [NumTags-1:0] free;   // the free tags below the limit (in StIssue)
  always_comb begin
    want_req = 1'b0;
    free_any = 1'b0;
    free     = '0;
    if (state_q == StIssue) begin
      free     = free_tags(out_q, tag_cap(inc_q, tag_limit_i));
      free_any = free != '0;
      want_req = free_any && rem_q != 30'd0 && !abort_i && !err_q;
    end
  end

  // The next request's tag (the lowest free one) and size: what a request
  // takes (req_go, with want_req) and what its first header beat shows,
  // evaluated with a request offered only (not while the mover waits in
  // StIssue for a free tag: the arbiter may show this source's data then,
  // but without valid it is no beat).
  // Bit operations rather than a loop over the tags (simulation speed: the
  // simulator unrolls such a loop into NumTags compares): free_lsb keeps the
  // lowest set bit of the free tags, free_tag encodes its index (0 if none).
  logic [10:0]        chunk;
  logic [TagW-1:0]    free_tag;
  logic [NumTags-1:0] free_lsb;
  always_comb begin
    chunk    = '0;
    free_tag = '0;
    free_lsb = '0;
    if (want_req) begin
      chunk    = abb_tlp_pkg::chunk_dw(mrrs_dw_i, ha_q[11:2], rem_q);
      free_lsb = lowest_set(free);
      for (int b = 0; b < TagW; b++) free_tag[b] = |(free_lsb & WithBit[NumTags*b +: NumTags]);
    end
  end

  assign busy_o     = (state_q != StIdle) || (out_q != '0);
  assign tx_valid_o = want_req || (state_q == StReq1);
  assign tx_sop_o   = (state_q == StIssue);
  assign tx_eop_o   = (state_q == StReq1);
  // (a default first, then the cases: so the simulator evaluates a header
  // function only in its case, not both ahead of a select; data only with
  // valid)
  always_comb begin
    tx_data_o = 64'h0;
    if (tx_sel_i) begin
      if (state_q == StReq1) tx_data_o = abb_tlp_pkg::req_hdr1({ha_q[63:2], 2'b00});
      else if (want_req) tx_data_o = abb_tlp_pkg::req_hdr0(cfg_req_id_i, 8'(free_tag), 1'b0, hdr4, chunk);
    end
  end

  // Completion data into board memory. Everything a completion beat
  // decides is evaluated with one only (cpl_valid_i); without one the
  // outputs are 0, the memory port's address lanes too (they matter only
  // with mem_we_o).
  logic [TagW-1:0] ctag;
  logic            cpl_mine, cpl_ok, cpl_skip;
  assign ctag = cpl_tag_i[TagW-1:0];
  always_comb begin
    cpl_skip      = 1'b0;
    cpl_mine      = 1'b0;
    cpl_ok        = 1'b0;
    cpl_tag_err_o = 1'b0;
    poison_o      = 1'b0;
    cpl_ptr       = '0;
    cpl_cnt       = '0;
    mem_we_o      = 2'b00;
    mem_waddr0_o  = '0;
    mem_waddr1_o  = '0;
    if (cpl_valid_i) begin
      // a completion that does not continue its tag's read is dropped whole
      cpl_skip = out_q[ctag] &&
                 (cpl_first_i ? (cpl_status_i == 3'b000 && cpl_dw_i != 2'd0 && cpl_la_i != la_q[ctag])
                              : drop_q);
      cpl_mine = out_q[ctag] && !cpl_skip;
      cpl_ok   = cpl_mine && cpl_status_i == 3'b000 && cpl_dw_i != 2'd0 && !cpl_poison_i && !err_q;
      cpl_tag_err_o = !out_q[ctag] || (cpl_skip && cpl_first_i);
      poison_o = cpl_mine && cpl_poison_i;
      cpl_ptr  = tinc_q[ctag] ? ptr_q[ctag] + AddrBits'(cpl_dw_i) : ptr_q[ctag];
      cpl_cnt  = cnt_q[ctag] - 11'(cpl_dw_i);
      mem_waddr0_o = ptr_q[ctag] & mem_mask_i;
      mem_waddr1_o = (tinc_q[ctag] ? ptr_q[ctag] + AddrBits'(1) : ptr_q[ctag]) & mem_mask_i;
      if (cpl_ok) begin
        if (cpl_dw_i == 2'd1)  mem_we_o = 2'b01;
        else if (tinc_q[ctag]) mem_we_o = 2'b11;
        else                   mem_we_o = 2'b10;  // fixed address: the later DW stays
      end
    end
  end
  assign mem_wdata_o = cpl_data_i;

  // completion timeout: cycles since the last completion while reads are out
  localparam int TmoW = $clog2(CplTimeoutCycles + 1);
  logic [TmoW-1:0] tmo_q, tmo_d;
  logic drop_q, drop_d;

  // Idle: no command, no read outstanding (the timeout counter at 0), no
  // completion (run clear), and no start or abort: nothing changes, every
  // pulse is 0. The state machine is evaluated only with run, a start or an
  // abort in StIdle after it, the flops are loaded only while active. (The
  // pulses come from the part under run alone, which does not read start_i:
  // done_o goes to abb_dma_ctl, whose mv_start_o comes back as start_i.)
  logic run, active;
  assign run    = state_q != StIdle || out_q != '0 || tmo_q != '0 || cpl_valid_i;
  assign active = run || start_i || abort_i;

  always_comb begin
    state_d = state_q;
    err_d   = err_q;
    out_d   = out_q;
    new_we  = 1'b0;
    cpl_we  = 1'b0;
    tinc_d  = tinc_q;
    open_d  = open_q;
    cmd_we  = 1'b0;
    req_go  = 1'b0;
    req_sent = 1'b0;
    done_o  = 1'b0;
    err_o   = 1'b0;
    req_o   = 1'b0;
    timeout_o = 1'b0;
    tmo_d   = tmo_q;
    drop_d  = drop_q;
    if (run) begin
    if (cpl_valid_i) begin
      if (cpl_first_i)     drop_d = cpl_skip && !cpl_last_i;
      else if (cpl_last_i) drop_d = 1'b0;

      // completion accounting (any state: late completions of an abort too)
      if (cpl_mine) begin
        if (cpl_status_i != 3'b000 || cpl_dw_i == 2'd0) begin
          err_d = 1'b1;
          out_d[ctag] = 1'b0;        // an error completion ends the request
        end else begin
          cpl_we = 1'b1;             // poisoned: counted, not written
          if (cpl_poison_i) err_d = 1'b1;
          if (cnt_q[ctag] <= 11'(cpl_dw_i)) out_d[ctag] = 1'b0;
        end
      end
      // a completion for no outstanding tag while the chain runs: an error
      if (cpl_tag_err_o && (open_q || state_q != StIdle)) err_d = 1'b1;
    end

    // completion timeout (requests sent below in this cycle start a new wait)
    if (out_q == '0 || cpl_valid_i) begin
      tmo_d = '0;
    end else if (tmo_q == TmoW'(CplTimeoutCycles - 1)) begin
      tmo_d     = '0;
      timeout_o = 1'b1;
      err_d     = 1'b1;
      out_d     = '0;                // every outstanding read is given up
    end else begin
      tmo_d = tmo_q + TmoW'(1);
    end

    unique case (state_q)
      StIdle: ;                            // below
      StIssue: begin
        if (want_req && tx_ready_i) begin
          req_go  = 1'b1;
          req_o   = 1'b1;
          state_d = StReq1;
        end else if (rem_q == 30'd0 && more_q && !abort_i && !err_q) begin
          done_o  = 1'b1;                  // all requested: the next piece may start
          state_d = StIdle;
        end else if (rem_q == 30'd0 || abort_i || err_q) begin
          state_d = StWait;
        end
      end
      StReq1: begin
        if (tx_ready_i) begin
          out_d[tag_q]  = 1'b1;
          tinc_d[tag_q] = inc_q;
          new_we        = 1'b1;
          req_sent      = 1'b1;
          state_d = StIssue;
        end
      end
      StWait: begin
        if (out_q == '0) begin
          done_o  = 1'b1;
          err_o   = err_q;
          open_d  = 1'b0;
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
    end

    // StIdle: after the completions and the timeout above
    if (state_q == StIdle) begin
      if (abort_i) begin
        open_d = 1'b0;                     // a reset ends the chain
        if (out_q == '0) err_d = 1'b0;
      end else if (start_i) begin
        cmd_we  = 1'b1;
        if (!open_q) err_d = 1'b0;         // a new chain starts clean
        open_d  = 1'b1;
        state_d = StIssue;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      open_q  <= 1'b0;
      err_q   <= 1'b0;
      out_q   <= '0;
      tinc_q  <= '0;
      tmo_q   <= '0;
      drop_q  <= 1'b0;
    end else if (active) begin
      state_q <= state_d;
      open_q  <= open_d;
      err_q   <= err_d;
      tinc_q  <= tinc_d;
      out_q   <= out_d;
      tmo_q   <= tmo_d;
      drop_q  <= drop_d;
    end
  end

  // the command (a start) and its progress (a request sent: the next one
  // continues after it), the request's tag and size (when it is accepted)
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ha_q   <= '0;
      rem_q  <= '0;
      pa_q   <= '0;
      inc_q  <= 1'b0;
      more_q <= 1'b0;
      tag_q  <= '0;
      len_q  <= '0;
    end else begin
      if (cmd_we) begin
        ha_q   <= ha_i;
        rem_q  <= len_i[31:2];
        pa_q   <= pa_i[AddrBits+1:2];
        inc_q  <= inc_i;
        more_q <= more_i;
      end else if (req_sent) begin
        if (inc_q) pa_q <= pa_q + AddrBits'(len_q);
        ha_q  <= ha_q + {51'h0, len_q, 2'b00};
        rem_q <= rem_q - 30'(len_q);
      end
      if (req_go) begin
        tag_q <= free_tag;
        len_q <= chunk;
      end
    end
  end

  // per-tag entries need no reset: a tag's entry is written when it is sent
  always_ff @(posedge clk_i) begin
    if (new_we) begin
      ptr_q[tag_q] <= pa_q;
      cnt_q[tag_q] <= len_q;
      la_q[tag_q]  <= {ha_q[6:2], 2'b00};
    end
    if (cpl_we) begin
      ptr_q[ctag] <= cpl_ptr;
      cnt_q[ctag] <= cpl_cnt;
      la_q[ctag]  <= la_q[ctag] + {3'b000, cpl_dw_i, 2'b00};
    end
  end

  // ---- protocol assertions (test builds: ABB_ASSERT, see abb_assert.svh) ----
`ifdef ABB_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (want_req && tx_ready_i) begin
        `ABB_CHECK(!out_q[free_tag], "abb_h2c_mover: read tag reused while outstanding")
        `ABB_CHECK(6'(free_tag) < tag_cap(inc_q, tag_limit_i), "abb_h2c_mover: read tag beyond the tag limit (MRD_CR / NumTags)")
        `ABB_CHECK(chunk != 11'd0, "abb_h2c_mover: read request of 0 DWs")
        `ABB_CHECK(chunk <= mrrs_dw_i, "abb_h2c_mover: read request larger than Max_Read_Request_Size")
        `ABB_CHECK({1'b0, ha_q[11:2]} + chunk <= 11'd1024,
                   "abb_h2c_mover: read request crosses a 4 KiB boundary")
        `ABB_CHECK(30'(chunk) <= rem_q, "abb_h2c_mover: read request past the end of the transfer")
      end
      if (state_q == StReq1)
        `ABB_CHECK(!out_q[tag_q], "abb_h2c_mover: read tag reused while outstanding")
      `ABB_CHECK(!cpl_we || out_q[ctag], "abb_h2c_mover: completion data for a tag not outstanding")
      `ABB_CHECK(mem_we_o == 2'b00 || cpl_ok, "abb_h2c_mover: board memory written without a good completion")
      `ABB_CHECK(!(new_we && cpl_we && tag_q == ctag), "abb_h2c_mover: request and completion update one tag")
      if (done_o && !(state_q == StIssue && more_q))
        `ABB_CHECK(out_d == '0, "abb_h2c_mover: done while reads are outstanding")
      `ABB_CHECK(!start_i || state_q == StIdle, "abb_h2c_mover: started while a command runs")
    end
  end
`endif

endmodule
