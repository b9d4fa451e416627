# host/daq/daq.mk - the DAQ layer (readout and writer modules), built into
# libabb itself: its objects are extra prerequisites of libabb.so / libabb.a
# (host/host.mk links them with $^), so programs, tools and the test bench
# need nothing but -labb. Public header: <abb/abb_daq.h>.
#
# Included by the top Makefile right after host/host.mk.

# daq_net_out.c (the farm's network output, ZeroMQ) is not part of libabb:
# libabb needs no libzmq; the farm's tools link its object and -lzmq.
DAQ_NET_OBJ := $(B)/host/daq/daq_net_out.o
DAQ_SRCS := $(filter-out host/daq/daq_net_out.c,$(wildcard host/daq/*.c))
DAQ_OBJS := $(DAQ_SRCS:host/daq/%.c=$(B)/host/daq/%.o)

$(B)/host/daq/%.o: host/daq/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CPPFLAGS) -Ihost/daq $(HOST_CFLAGS) -c $< -o $@

$(HOST_SO): $(DAQ_OBJS)
$(HOST_A): $(DAQ_OBJS)

-include $(DAQ_OBJS:.o=.d) $(DAQ_NET_OBJ:.o=.d)
