// abb_assert.svh - `ABB_CHECK(cond, "message"): an immediate assertion of a
// protocol invariant, used inside the `ifdef ABB_ASSERT blocks at the end of
// the modules (clocked, out of reset). Test builds define ABB_ASSERT
// (Verilator with --assert: a failure prints the message and stops the
// simulation through vl_stop, which the simulator turns into a fatal error,
// sim/rtl_hooks.cpp; Icarus: $fatal, exit status 1); the speed build does
// not. Yosys 0.23 takes no action block: there the check is a bare assert.
`ifndef ABB_ASSERT_SVH
`define ABB_ASSERT_SVH
`ifdef SYNTHESIS
`define ABB_CHECK(cond, msg) begin assert (cond); end
`else
`define ABB_CHECK(cond, msg) begin assert (cond) else $fatal(1, msg); end
`endif
`endif
