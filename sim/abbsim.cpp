/*
 * abbsim.cpp - the C interface of libabbsim (abbsim.h): argument checks,
 * the hand-over to the simulation thread, and the C boundary (no C++
 * exception leaves this file).
 */
#include "abbsim.h"

#include "error.h"
#include "platform.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace abbsim;

namespace {

template <typename F> int guard(const char *fn, F f)
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		return fail(-ENOMEM, "%s: out of memory", fn);
	} catch (const std::exception &e) {
		return fail(-EIO, "%s: internal error: %s", fn, e.what());
	} catch (...) {
		return fail(-EIO, "%s: internal error", fn);
	}
}

/* The platform, locked and open; 0 or -errno (message set). */
int open_platform(const char *fn, Platform **pp, std::unique_lock<std::mutex> &lk)
{
	Platform *p;
	int rc = platform_get(&p);
	if (rc)
		return rc;
	lk = std::unique_lock<std::mutex>(p->mu);
	if (p->broken)
		return fail(-EIO, "%s: simulator stopped: %s", fn, p->broken_why.c_str());
	if (!p->is_open)
		return fail(-ENODEV, "%s: the simulated board is not open (call abbsim_open)", fn);
	*pp = p;
	return 0;
}

int check_bar(const char *fn, Platform *p, unsigned bar, uint64_t off, size_t len, const void *buf)
{
	if (bar > 1)
		return fail(-EINVAL, "%s: bar %u: accepted 0 or 1", fn, bar);
	if (!buf || !len)
		return fail(-EINVAL, "%s: %s", fn, buf ? "length is 0" : "buffer is NULL");
	uint64_t size = p->cfg.bar_size(bar);
	if (off >= size || len > size - off)
		return fail(-EINVAL, "%s: [0x%llx, +%zu) is outside BAR%u (%llu bytes)", fn,
			    (unsigned long long)off, len, bar, (unsigned long long)size);
	return 0;
}

/* Where the host's PIO to BAR bar goes: its mapping of the BAR, made at
 * open from the address enumeration assigned (as the kernel's resource and
 * the program's mmap). A program that moves the BAR in config space later
 * does not move that mapping: the board decodes by the BARs as programmed
 * (hard IP), so the old address then reaches nothing. */
uint64_t host_addr(Platform *p, unsigned bar, uint64_t off)
{
	return (uint64_t)p->bars.bar_addr[bar] + off;
}

/* A PIO read that failed with -EIO because no BAR decodes the host's
 * address (moved, or memory decode off): the message says so; other
 * failures keep theirs. Returns -EIO. */
int explain_ur(Platform *p, unsigned bar, uint64_t off, uint64_t addr, size_t len)
{
	const char *msg = last_error();
	if (!strstr(msg, "st=UR"))
		return -EIO;
	uint32_t now = p->cfg.bar_addr(bar);
	uint64_t size = p->cfg.bar_size(bar);
	bool decoded = p->cfg.mem_enabled() && addr >= now && addr + len <= now + size;
	if (decoded)
		return -EIO;
	char why[200];
	if (!p->cfg.mem_enabled())
		snprintf(why, sizeof why, "memory decode is off (Command.MEM clear in config space)");
	else
		snprintf(why, sizeof why, "BAR%u is at 0x%08x in config space now (moved: set it back to "
			 "0x%08x, or reopen)", bar, now, (unsigned)p->bars.bar_addr[bar]);
	return fail(-EIO, "abbsim_mmio_read: BAR%u [0x%llx, +%zu): the host's mapping at 0x%llx "
		    "(assigned at open) is decoded by no BAR: Unsupported Request, the read returns "
		    "all ones; %s", bar, (unsigned long long)off, len, (unsigned long long)addr, why);
}

} // namespace

extern "C" {

int abbsim_open(const struct abbsim_params *prm, const struct abbsim_record *rec)
{
	return guard(__func__, [&] {
		if (!prm)
			return fail(-EINVAL, "abbsim_open: params is NULL");
		int rc = abbsim_params_check(prm);
		if (rc)
			return rc;
		OpenArgs a;
		a.p = *prm;
		if (rec) {
			auto text = [](const char *s) { return std::string(s ? s : ""); };
			a.trace_path = text(rec->fst);
			a.log_path = text(rec->tlp_log);
			a.trace_from = rec->fst_from;
			a.trace_to = rec->fst_to;
			a.dma_from = rec->dma_from;
			a.dma_to = rec->dma_to;
			a.test = text(rec->test);
			a.on_error = rec->on_error;
			a.stim_path = text(rec->stim);
			a.coverage_base = text(rec->coverage);
		}
		if ((a.dma_from || a.dma_to) && (!a.dma_from || a.dma_to < a.dma_from))
			return fail(-EINVAL, "abbsim_open: DMA window %llu-%llu: accepted N-M with "
				    "1 <= N <= M", (unsigned long long)a.dma_from,
				    (unsigned long long)a.dma_to);
		if ((a.dma_from || !a.test.empty() || a.on_error) && a.trace_path.empty())
			return fail(-EINVAL, "trace_dma, trace_test and trace_on_error need a waveform "
				    "file (trace=file.fst, ABB_TRACE)");
		if ((a.traced_model() || a.on_error) && !abbsim::rtl_traced_available())
			return fail(-ENOTSUP, "%s: this libabbsim has no traced RTL model (built with "
				    "SIM_TRACE=0): no waveforms; use a build with tracing (make sim)",
				    a.p.traceable ? "traceable=1" : "trace=");
		Platform *p;
		if ((rc = platform_get(&p)))
			return rc;
		std::unique_lock<std::mutex> lk(p->mu);
		/* "opening" is claimed under the same lock as the check: of opens
		 * at the same moment exactly one proceeds (is_open is set only
		 * later, by do_open on the simulation thread) */
		if (p->is_open || p->opening)
			return fail(-EBUSY, "abbsim_open: %s (call abbsim_close first)",
				    p->opening ? "another thread is opening the board" : "already open");
		p->opening = true;
		struct Unclaim {
			Platform *p;
			~Unclaim() { p->opening = false; } /* lk still holds mu */
		} unclaim{p};
		auto w = std::make_shared<Waiter>(Waiter::Open);
		Waiter *wp = w.get();
		return p->wait_for(lk, w, [p, a, wp] { p->do_open(a, *wp); });
	});
}

void abbsim_close(void)
{
	guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_close", &p, lk);
		if (rc)
			return rc;
		/* the link drains first: every posted write already issued (a
		 * last acknowledge, a channel stop) reaches the board and what
		 * it answers reaches the root complex, within a device-time cap
		 * (Platform::close_drained) */
		auto w = std::make_shared<Waiter>(Waiter::Close);
		w->timeout_ns = p->close_drain_ns();
		/* the WC buffers leave first (the store model) */
		return p->wait_for(lk, w, [p] { p->rc.pio_fence(p->abs_now()); });
	});
}

int abbsim_get_params(struct abbsim_params *out)
{
	return guard(__func__, [&] {
		if (!out)
			return fail(-EINVAL, "abbsim_get_params: out is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_get_params", &p, lk);
		if (rc)
			return rc;
		*out = p->params;
		out->mps = code_size(p->cfg.mps_code());
		out->mrrs = code_size(p->cfg.mrrs_code());
		return 0;
	});
}

int abbsim_cfg_read(unsigned off, unsigned size, uint32_t *val)
{
	return guard(__func__, [&] {
		if (!val)
			return fail(-EINVAL, "abbsim_cfg_read: val is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_cfg_read", &p, lk);
		if (rc)
			return rc;
		if (!p->cfg.read(off, size, val))
			return fail(-EINVAL, "abbsim_cfg_read: offset 0x%x size %u: accepted size 1, 2 or 4, "
				    "naturally aligned, below 4096", off, size);
		return 0;
	});
}

int abbsim_cfg_write(unsigned off, unsigned size, uint32_t val)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_cfg_write", &p, lk);
		if (rc)
			return rc;
		if (!p->cfg.write(off, size, val))
			return fail(-EINVAL, "abbsim_cfg_write: offset 0x%x size %u: accepted size 1, 2 or 4, "
				    "naturally aligned, below 4096", off, size);
		p->post([p] { p->cfg_changed(); });
		return 0;
	});
}

int abbsim_cfg_dump(const char *path)
{
	return guard(__func__, [&] {
		if (!path)
			return fail(-EINVAL, "abbsim_cfg_dump: path is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_cfg_dump", &p, lk);
		if (rc)
			return rc;
		std::string text = p->cfg.dump();
		lk.unlock();
		FILE *f = fopen(path, "w");
		if (!f)
			return fail(-errno, "abbsim_cfg_dump: cannot create %s: %s", path, strerror(errno));
		bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
		ok = (fclose(f) == 0) && ok;
		if (!ok)
			return fail(-EIO, "abbsim_cfg_dump: write error on %s", path);
		return 0;
	});
}

int abbsim_mmio_read(unsigned bar, uint64_t off, void *buf, size_t len)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_mmio_read", &p, lk);
		if (rc || (rc = check_bar("abbsim_mmio_read", p, bar, off, len, buf)))
			return rc;
		uint64_t addr = host_addr(p, bar, off);
		auto w = std::make_shared<Waiter>(Waiter::PioRead);
		w->pio = std::make_shared<PioRead>();
		auto pio = w->pio;
		rc = p->wait_for(lk, w, [p, pio, addr, len] { p->rc.pio_read(addr, len, pio, p->abs_now()); });
		if (w->done && pio->data.size() == len)
			memcpy(buf, pio->data.data(), len);
		else
			memset(buf, 0xff, len);
		if (rc == -EIO && w->done)
			rc = explain_ur(p, bar, off, addr, len);
		return rc;
	});
}

int abbsim_mmio_write(unsigned bar, uint64_t off, const void *buf, size_t len)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_mmio_write", &p, lk);
		if (rc || (rc = check_bar("abbsim_mmio_write", p, bar, off, len, buf)))
			return rc;
		uint64_t addr = host_addr(p, bar, off);
		std::vector<uint8_t> data((const uint8_t *)buf, (const uint8_t *)buf + len);
		p->post([p, addr, data] { p->rc.pio_write(addr, data.data(), data.size(), p->abs_now()); });
		return 0;
	});
}

/* A program cannot run ahead of its store path without bound: a CPU stalls
 * once its store and WC buffers are full. Stores are posted (device time
 * does not advance) until PioBacklog writes are scheduled and not issued;
 * then the call lets device time run, as the stalled CPU's would, until
 * half of them have left. This bounds the memory a loop of stores takes. */
constexpr uint64_t PioBacklog = 1u << 16;
constexpr size_t PioChunk = 64u << 10; /* stores posted per closure (a multiple of 64) */

static int pio_stall(Platform *p, std::unique_lock<std::mutex> &lk)
{
	p->pio_stores_unchecked = 0;
	for (;;) {
		auto due = std::make_shared<std::array<uint64_t, 2>>();
		auto w = std::make_shared<Waiter>(Waiter::Call);
		int rc = p->wait_for(lk, w, [p, due] {
			(*due)[0] = p->rc.pio_due();
			uint64_t now = p->abs_now(), idle = p->rc.cpu.idle_at();
			(*due)[1] = idle > now ? idle - now : 0;
		});
		if (rc || (*due)[0] <= PioBacklog / 2)
			return rc;
		/* half of the store path's lead, at least 1 ns */
		auto a = std::make_shared<Waiter>(Waiter::Advance);
		a->timeout_ns = (int64_t)((*due)[1] / 2000 + 1);
		if ((rc = p->wait_for(lk, a, nullptr)))
			return rc;
	}
}

int abbsim_pio_store(uint64_t off, const void *buf, size_t len, unsigned store_bytes)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_pio_store", &p, lk);
		if (rc || (rc = check_bar("abbsim_pio_store", p, 1, off, len, buf)))
			return rc;
		unsigned w = store_bytes;
		if (w == 0 || w > 64 || (w & (w - 1)))
			return fail(-EINVAL, "abbsim_pio_store: store width %u bytes: accepted 1, 2, 4, 8, "
				    "16, 32 or 64", w);
		if (off % w || len % w)
			return fail(-EINVAL, "abbsim_pio_store: [0x%llx, +%zu) is not a whole number of "
				    "aligned %u-byte stores", (unsigned long long)off, len, w);
		uint64_t addr = host_addr(p, 1, off);
		const uint8_t *src = (const uint8_t *)buf;
		for (size_t o = 0, n; o < len; o += n) {
			n = std::min(len - o, PioChunk);
			std::vector<uint8_t> data(src + o, src + o + n);
			p->post([p, a = addr + o, data = std::move(data), w] {
				p->rc.pio_store(a, data.data(), data.size(), w, p->abs_now());
			});
			p->pio_stores_unchecked += n / w;
			if (p->pio_stores_unchecked >= PioBacklog && (rc = pio_stall(p, lk)))
				return rc;
		}
		return 0;
	});
}

int abbsim_pio_fence(void)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_pio_fence", &p, lk);
		if (rc)
			return rc;
		p->post([p] { p->rc.pio_fence(p->abs_now()); });
		return 0;
	});
}

int abbsim_pio_stats(struct abbsim_pio_stats *out, int clear)
{
	return guard(__func__, [&] {
		if (!out)
			return fail(-EINVAL, "abbsim_pio_stats: out is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_pio_stats", &p, lk);
		if (rc)
			return rc;
		/* on the simulation thread, behind the accesses posted before */
		auto st = std::make_shared<struct abbsim_pio_stats>();
		auto w = std::make_shared<Waiter>(Waiter::Call);
		rc = p->wait_for(lk, w, [p, st, clear] { p->rc.cpu.stats(st.get(), clear != 0); });
		if (!rc)
			*out = *st;
		return rc;
	});
}

size_t abbsim_iommu_max_segs(const void *ptr, size_t len) { return Iommu::max_segs(ptr, len); }

int abbsim_iommu_map(void *ptr, size_t len, struct abbsim_seg *segs, size_t maxsegs)
{
	return guard(__func__, [&] {
		if (!segs)
			return fail(-EINVAL, "abbsim_iommu_map: segs is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_iommu_map", &p, lk);
		if (rc)
			return rc;
		lk.unlock();
		return p->mmu.map(ptr, len, segs, maxsegs);
	});
}

int abbsim_iommu_unmap(void *ptr)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_iommu_unmap", &p, lk);
		if (rc)
			return rc;
		lk.unlock();
		return p->mmu.unmap(ptr);
	});
}

int abbsim_iommu_map_at(void *ptr, size_t len, uint64_t iova, unsigned flags)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_iommu_map_at", &p, lk);
		if (rc)
			return rc;
		lk.unlock();
		return p->mmu.map_at(ptr, len, iova, flags);
	});
}

int abbsim_iommu_unmap_iova(uint64_t iova, uint64_t len)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_iommu_unmap_iova", &p, lk);
		if (rc)
			return rc;
		lk.unlock();
		return p->mmu.unmap_iova(iova, len);
	});
}

int abbsim_faults(struct abbsim_fault *out, size_t max)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_faults", &p, lk);
		if (rc)
			return rc;
		lk.unlock();
		return p->mmu.take_faults(out, max);
	});
}

int abbsim_wait_irq(uint64_t *seen, int64_t timeout_ns)
{
	return guard(__func__, [&] {
		if (!seen)
			return fail(-EINVAL, "abbsim_wait_irq: seen is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_wait_irq", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Irq);
		w->irq_seen = *seen;
		w->timeout_ns = timeout_ns;
		rc = p->wait_for(lk, w, nullptr);
		*seen = w->done ? w->irq_seen : p->irq_pub.load();
		return rc;
	});
}

uint64_t abbsim_irq_count(void)
{
	Platform *p;
	if (platform_get(&p))
		return 0;
	return p->irq_pub.load();
}

int abbsim_intx_asserted(void)
{
	Platform *p;
	if (platform_get(&p))
		return 0;
	return p->intx_pub.load() ? 1 : 0;
}

int abbsim_advance(int64_t ns)
{
	return guard(__func__, [&] {
		if (ns < 0)
			return fail(-EINVAL, "abbsim_advance: ns %lld is negative", (long long)ns);
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_advance", &p, lk);
		if (rc || ns == 0)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Advance);
		w->timeout_ns = ns;
		return p->wait_for(lk, w, nullptr);
	});
}

int abbsim_wait_idle(int64_t timeout_ns)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_wait_idle", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Idle);
		w->timeout_ns = timeout_ns;
		return p->wait_for(lk, w, nullptr);
	});
}

int abbsim_poll_reg(const struct abbsim_poll *poll, uint32_t *value, uint64_t *reads)
{
	return guard(__func__, [&] {
		if (value)
			*value = 0xffffffffu;
		if (reads)
			*reads = 0;
		if (!poll)
			return fail(-EINVAL, "abbsim_poll_reg: poll is NULL");
		if (poll->off % 4)
			return fail(-EINVAL, "abbsim_poll_reg: offset 0x%llx is not a multiple of 4",
				    (unsigned long long)poll->off);
		if (poll->nap_max_ns < poll->nap_min_ns)
			return fail(-EINVAL, "abbsim_poll_reg: nap_max_ns %llu is below nap_min_ns %llu",
				    (unsigned long long)poll->nap_max_ns,
				    (unsigned long long)poll->nap_min_ns);
		/* pauses in picoseconds must not run past the 64-bit clock */
		const uint64_t lim = UINT64_MAX / 4000;
		if (poll->first_ns > lim || poll->nap_max_ns > lim)
			return fail(-EINVAL, "abbsim_poll_reg: first_ns %llu or nap_max_ns %llu above %llu ns",
				    (unsigned long long)poll->first_ns,
				    (unsigned long long)poll->nap_max_ns, (unsigned long long)lim);
		Platform *p;
		std::unique_lock<std::mutex> lk;
		uint32_t probe = 0;
		int rc = open_platform("abbsim_poll_reg", &p, lk);
		if (rc || (rc = check_bar("abbsim_poll_reg", p, poll->bar, poll->off, 4, &probe)))
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Poll);
		w->poll = std::make_shared<PollState>();
		PollState &s = *w->poll;
		s.addr = host_addr(p, poll->bar, poll->off);
		s.mask = poll->mask;
		s.busy = poll->busy;
		s.deadline_ns = poll->deadline_ns;
		s.spin = poll->spin;
		s.nap_div = poll->nap_div;
		s.nap = poll->nap_min_ns;
		s.nap_max = poll->nap_max_ns;
		s.first_ns = poll->first_ns;
		w->foreign_tlps = (int64_t)(p->stats_pub[0].tlps + p->stats_pub[1].tlps);
		rc = p->wait_for(lk, w, nullptr);
		if (value)
			*value = s.value;
		if (reads)
			*reads = s.reads;
		return rc;
	});
}

uint64_t abbsim_now_ps(void)
{
	Platform *p;
	if (platform_get(&p))
		return 0;
	return p->now_pub.load();
}

uint64_t abbsim_cycles(void)
{
	Platform *p;
	if (platform_get(&p))
		return 0;
	return p->cycles_pub.load();
}

int abbsim_trace_fst(const char *path, uint64_t from_cycle, uint64_t to_cycle)
{
	return guard(__func__, [&] {
		if (!path || !*path)
			return fail(-EINVAL, "abbsim_trace_fst: path is empty");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_trace_fst", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Call);
		Waiter *wp = w.get();
		std::string s = path;
		return p->wait_for(lk, w, [p, wp, s, from_cycle, to_cycle] {
			wp->result = p->do_trace(s, from_cycle, to_cycle, wp->error);
		});
	});
}

int abbsim_trace_note(unsigned kind, unsigned channel, const char *text)
{
	return guard(__func__, [&] {
		Platform *p;
		if (platform_get(&p))
			return 0;
		if (!p->notes_wanted_pub.load(std::memory_order_relaxed))
			return 0;
		std::lock_guard<std::mutex> lk(p->mu);
		if (!p->is_open)
			return 0;
		std::string s = text ? text : "";
		p->post([p, kind, channel, s] { p->do_note(kind, channel, s); });
		return 0;
	});
}

int abbsim_tlp_log(const char *path)
{
	return guard(__func__, [&] {
		if (!path || !*path)
			return fail(-EINVAL, "abbsim_tlp_log: path is empty");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_tlp_log", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Call);
		Waiter *wp = w.get();
		std::string s = path;
		return p->wait_for(lk, w, [p, wp, s] { wp->result = p->do_tlp_log(s, wp->error); });
	});
}

int abbsim_link_stats(unsigned dir, struct abbsim_link_stats *st)
{
	return guard(__func__, [&] {
		if (dir > 1 || !st)
			return fail(-EINVAL, "abbsim_link_stats: %s", st ? "dir: accepted 0 (down) or 1 (up)"
									  : "st is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_link_stats", &p, lk);
		if (rc)
			return rc;
		*st = p->stats_pub[dir];
		return 0;
	});
}

int abbsim_protocol_errors(char *buf, size_t len)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_protocol_errors", &p, lk);
		if (rc)
			return rc;
		std::string all;
		for (auto &s : p->violations_pub) {
			all += s;
			all += '\n';
		}
		if (buf && len) {
			size_t n = std::min(len - 1, all.size());
			memcpy(buf, all.data(), n);
			buf[n] = 0;
		}
		uint64_t count = p->violation_count_pub;
		p->violations_pub.clear();
		p->violation_count_pub = 0;
		return (int)std::min<uint64_t>(count, INT32_MAX);
	});
}

int abbsim_inject_add(const struct abb_sim_inject_spec *spec)
{
	return guard(__func__, [&] {
		if (!spec)
			return fail(-EINVAL, "abbsim_inject_add: spec is NULL");
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_inject_add", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Call);
		Waiter *wp = w.get();
		abb_sim_inject_spec s = *spec;
		rc = p->wait_for(lk, w, [p, wp, s] { wp->result = p->inject_add(s, wp->error); });
		if (rc < 0 && !w->error.empty())
			return fail(rc, "abbsim_inject_add: %s", w->error.c_str());
		return rc;
	});
}

int abbsim_inject_clear(void)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_inject_clear", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Call);
		return p->wait_for(lk, w, [p] { p->inject_clear(); });
	});
}

int abbsim_inject_hits(int id)
{
	return guard(__func__, [&] {
		Platform *p;
		std::unique_lock<std::mutex> lk;
		int rc = open_platform("abbsim_inject_hits", &p, lk);
		if (rc)
			return rc;
		auto w = std::make_shared<Waiter>(Waiter::Call);
		Waiter *wp = w.get();
		rc = p->wait_for(lk, w, [p, wp, id] {
			int64_t h = p->inject_hits(id);
			wp->result = h < 0 ? (int)h : (int)std::min<int64_t>(h, INT32_MAX);
			if (h < 0)
				wp->error = "no fault rule " + std::to_string(id);
		});
		if (rc == -ENOENT)
			return fail(rc, "abbsim_inject_hits: no fault rule %d", id);
		return rc;
	});
}

const char *abbsim_last_error(void) { return last_error(); }

unsigned abbsim_abi_version(void) { return ABBSIM_ABI_VERSION; }

} /* extern "C" */
