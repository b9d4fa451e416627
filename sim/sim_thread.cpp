/*
 * sim_thread.cpp - the process-wide platform: the simulation pthread that
 * builds it and owns the SystemC kernel (sc_start only there), its start on
 * first use, and the files finished at process exit.
 */
#include "platform.h"

#include "error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

/* libsystemc wants an sc_main; the platform never uses SystemC's main. */
extern "C" int sc_main(int, char **) { return 0; }

namespace abbsim {

static std::mutex g_start_mu;
static std::condition_variable g_start_cv;
static Platform *g_plat = nullptr;
static int g_start_rc = 0;
static std::string g_start_err;
static bool g_starting = false;

static void *sim_thread(void *)
{
	Platform *p = nullptr;
	try {
		setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
		p = new Platform("abb_platform");
	} catch (const std::exception &e) {
		std::lock_guard<std::mutex> g(g_start_mu);
		g_start_rc = -EIO;
		g_start_err = std::string("cannot build the simulated board: ") + e.what();
		g_start_cv.notify_all();
		return nullptr;
	}
	{
		std::lock_guard<std::mutex> g(g_start_mu);
		g_plat = p;
		g_start_cv.notify_all();
	}
	for (;;) {
		{
			std::unique_lock<std::mutex> lk(p->mu);
			p->cv_sim.wait(lk, [p] { return p->want_run; });
		}
		try {
			sc_core::sc_start();
		} catch (const std::exception &e) {
			std::lock_guard<std::mutex> lk(p->mu);
			p->broken = true;
			p->broken_why = std::string("SystemC: ") + e.what();
			p->want_run = false;
		}
		std::lock_guard<std::mutex> lk(p->mu);
		if (p->broken && p->want_run) {
			/* The kernel cannot run again: fail whoever waits. */
			p->want_run = false;
		}
		if (p->broken)
			break;
	}
	/* Broken: answer posted work with errors forever. */
	for (;;) {
		std::unique_lock<std::mutex> lk(p->mu);
		p->cv_sim.wait(lk, [p] { return p->want_run; });
		p->want_run = false;
	}
	return nullptr;
}

/* At process exit, finish the FST and TLP log files of a program that never
 * called abbsim_close, if the simulation thread is parked (it then touches
 * nothing). */
static void close_at_exit()
{
	Platform *p = g_plat;
	if (!p || !p->mu.try_lock())
		return;
	if (!p->want_run && p->is_open)
		p->do_close();
	if (!p->want_run)
		p->finish_traces();
	p->mu.unlock();
}

int platform_get(Platform **out)
{
	std::unique_lock<std::mutex> lk(g_start_mu);
	if (!g_plat && !g_start_rc && !g_starting) {
		g_starting = true;
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_t th;
		int e = pthread_create(&th, &attr, sim_thread, nullptr);
		pthread_attr_destroy(&attr);
		if (!e)
			atexit(close_at_exit);
		if (e) {
			g_start_rc = -e;
			g_start_err = std::string("cannot start the simulation thread: ") + strerror(e);
		}
	}
	g_start_cv.wait(lk, [] { return g_plat || g_start_rc; });
	if (g_start_rc)
		return fail(g_start_rc, "%s", g_start_err.c_str());
	*out = g_plat;
	return 0;
}

} // namespace abbsim
