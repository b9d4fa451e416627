/*
 * rtl_hooks.cpp - Verilator's $finish/$stop/fatal hooks. The verilated
 * runtime is built with VL_USER_FINISH/STOP/FATAL so that an RTL error
 * stops the simulation with a message instead of exiting the host process.
 */
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "verilated.h"

namespace abbsim {

std::atomic<bool> g_rtl_fatal{false};
static std::mutex g_msg_mu;
static std::string g_msg;

std::string rtl_fatal_message()
{
	std::lock_guard<std::mutex> g(g_msg_mu);
	return g_msg;
}

static void record(const char *what, const char *file, int line, const char *msg)
{
	{
		std::lock_guard<std::mutex> g(g_msg_mu);
		if (g_msg.empty()) {
			char buf[400];
			snprintf(buf, sizeof buf, "%s at %s:%d%s%s", what, file ? file : "?", line,
				 msg ? ": " : "", msg ? msg : "");
			g_msg = buf;
		}
	}
	g_rtl_fatal.store(true);
}

} // namespace abbsim

void vl_finish(const char *filename, int linenum, const char *hier) VL_MT_UNSAFE
{
	(void)hier;
	abbsim::record("$finish", filename, linenum, nullptr);
}

void vl_stop(const char *filename, int linenum, const char *hier) VL_MT_UNSAFE
{
	(void)hier;
	abbsim::record("$stop", filename, linenum, nullptr);
}

void vl_fatal(const char *filename, int linenum, const char *hier, const char *msg) VL_MT_UNSAFE
{
	(void)hier;
	fprintf(stderr, "abbsim: RTL fatal: %s:%d: %s\n", filename ? filename : "?", linenum,
		msg ? msg : "");
	abbsim::record("fatal error", filename, linenum, msg);
}
