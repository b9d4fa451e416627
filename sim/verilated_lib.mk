# sim/verilated_lib.mk - read after the generated Vabb_top.mk (make -f
# Vabb_top.mk -f verilated_lib.mk): archives the Verilator runtime objects
# that the model needs (VK_GLOBAL_OBJS: verilated, FST writer, threads),
# compiled with the model's flags (-fPIC, VL_USER_*), as libverilated_pic.a.

libverilated_pic.a: $(VK_GLOBAL_OBJS)
	$(AR) rcs $@ $^
