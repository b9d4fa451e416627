// abb_top_ports.svh - abb_top's ports after clk_i and rst_ni, one line each,
// in order: the one list that abb_top.sv declares them from and that the
// simulator's Verilator top (sim/abb_sim_top.sv) builds its own ports, its
// sampled copies and the connections to abb_top from. A port added here
// reaches the wrapper without being typed again (sim/ drives it by name).
//
// The includer defines, before the `include (and undefines after it):
//   ABB_TOP_IN(type, name)   an input
//   ABB_TOP_OUT(type, name)  an output
// Each line expands to what the includer needs, e.g. ", input type name"
// (leading commas: clk_i and rst_ni come first).
// The PCIe hard block's side of each port: TLP-STREAM.md.

`ABB_TOP_IN(logic,        cfg_bus_master_en_i)
`ABB_TOP_IN(logic [2:0],  cfg_max_payload_i)
`ABB_TOP_IN(logic [2:0],  cfg_max_read_req_i)
`ABB_TOP_IN(logic [15:0], cfg_req_id_i)
`ABB_TOP_IN(logic,        cfg_msi_en_i)
`ABB_TOP_IN(logic [4:0],  cfg_mem_bits_i)
`ABB_TOP_IN(logic,        strict_i)
`ABB_TOP_IN(logic,        rx_valid_i)
`ABB_TOP_OUT(logic,       rx_ready_o)
`ABB_TOP_IN(logic,        rx_sop_i)
`ABB_TOP_IN(logic,        rx_eop_i)
`ABB_TOP_IN(logic [63:0], rx_data_i)
`ABB_TOP_IN(logic,        rx_bar_i)
`ABB_TOP_OUT(logic,       tx_valid_o)
`ABB_TOP_IN(logic,        tx_ready_i)
`ABB_TOP_IN(logic [5:0],  tx_buf_av_i)
`ABB_TOP_OUT(logic,       tx_sop_o)
`ABB_TOP_OUT(logic,       tx_eop_o)
`ABB_TOP_OUT(logic [63:0], tx_data_o)
`ABB_TOP_OUT(logic,       irq_o)
`ABB_TOP_OUT(logic,       idle_o)
`ABB_TOP_IN(logic [31:0], skip_cycles_i)
`ABB_TOP_IN(logic [63:0], board_cfg_i)   // board profile: DDR2 timing, endpoint limits (abb_ddr2_arb.sv); 0 = off
