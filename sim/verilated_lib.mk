# sim/verilated_lib.mk - read after the generated Vabb_top.mk (make -f
# Vabb_top.mk -f verilated_lib.mk): archives the Verilator runtime objects
# that the RTL model needs (VK_GLOBAL_OBJS: verilated, FST writer, threads),
# compiled with the RTL model's flags (-fPIC, VL_USER_*), as libverilated_pic.a.

libverilated_pic.a: $(VK_GLOBAL_OBJS)
	$(AR) rcs $@ $^

# make sanitize: extra flags for the Verilator runtime only (third-party:
# its bundled FST writer shifts negative values and stores misaligned on
# purpose; UBSan is off for it, ASan stays; see testbench/sanitize/README.md).
$(VK_GLOBAL_OBJS): CPPFLAGS += $(SIM_VRT_CPPFLAGS)
