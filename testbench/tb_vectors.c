/*
 * tb_vectors.c - the canonical transfers of the golden TLP vectors and
 * their runner (see tb_vectors.h).
 */
#define _GNU_SOURCE
#include "tb_vectors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_sim.h>

#define PAGE 4096u

/* The defaults of doc/options.md, pinned; hosttime=0 so that no host CPU time
 * enters device time; lenient register side effects and legacy INTx, so
 * that ABB_SIM_STRICT / ABB_SIM_MSI do not change a vector. */
const char tb_vector_base_opts[] =
	"gen=1,lanes=4,mps=128,mrrs=512,rcb=64,clk_mhz=125,link_ns=200,mem_ns=300,"
	"reorder=0,seed=1,mem_size=1M,iova=contig,cpl=rcb,hosttime=0,credits=default,"
	"strict=0,msi=0";

const struct tb_vector tb_vectors[] = {
	{ "c2h_4k_aligned", "", 0, 0x000, 0x0000, 4096,
	  "DMA read, aligned, one page: 32 writes of MPS 128" },
	{ "c2h_unaligned", "", 0, 0x024, 0x1004, 1000,
	  "DMA read, host and board addresses not 128-byte aligned" },
	{ "c2h_cross_4k", "", 0, 0xf04, 0x2000, 1024,
	  "DMA read across a 4 KiB host page boundary" },
	{ "c2h_mps256", "mps=256", 0, 0x000, 0x0000, 4096,
	  "DMA read with MPS 256: 16 writes of 256 bytes" },
	{ "c2h_scatter_chain", "iova=scatter", 0, 0x100, 0x8000, 3 * 4096,
	  "DMA read into scattered pages: four chained descriptors fetched from host memory" },
	{ "h2c_4k_aligned", "", 1, 0x000, 0x0000, 4096,
	  "DMA write, aligned: MRRS 512 reads, 64-byte completions (RCB 64)" },
	{ "h2c_unaligned", "", 1, 0x044, 0x3008, 1500,
	  "DMA write, host and board addresses unaligned: first completion up to an RCB boundary" },
	{ "h2c_cross_4k", "", 1, 0xf80, 0x4000, 512,
	  "DMA write from a range across a 4 KiB host page boundary" },
	{ "h2c_mrrs128", "mrrs=128", 1, 0x000, 0x0000, 4096,
	  "DMA write with MRRS 128: 32 reads of 128 bytes" },
	{ "h2c_rcb128", "rcb=128", 1, 0x040, 0x5000, 2048,
	  "DMA write with RCB 128: 128-byte completions, the first up to the boundary" },
	{ "h2c_mps256_cpl_mps", "mps=256,cpl=mps", 1, 0x000, 0x0000, 4096,
	  "DMA write, completions coalesced up to MPS 256 (cpl=mps)" },
	{ "h2c_reorder", "reorder=1,seed=7,mrrs=128", 1, 0x000, 0x6000, 8192,
	  "DMA write, completions of different tags interleaved (seed 7)" },
	{ "h2c_round_robin", "reorder=2,mrrs=128", 1, 0x000, 0x6000, 8192,
	  "DMA write, the root complex serves its ready reads in turn, a completion each" },
	{ "h2c_scatter_chain", "iova=scatter,mrrs=256", 1, 0x200, 0x9000, 2 * 4096,
	  "DMA write from scattered pages: three chained descriptors" },
	{ "c2h_irq_intx", "", 0, 0x000, 0xa000, 8192,
	  "DMA read completed by legacy INTx, as the board signals it: Assert_INTA after the "
	  "last data write (posted, in order), Deassert_INTA when the library's acknowledge "
	  "(IER bit cleared) lands" },
	{ "c2h_irq_msi", "msi=1", 0, 0x000, 0xa000, 8192,
	  "The same DMA read with the simulator's MSI capability enabled (msi=1): one MSI write "
	  "after the last data write, no INTx message" },
};

const size_t tb_nvectors = sizeof(tb_vectors) / sizeof(tb_vectors[0]);

static int verr(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Deterministic bytes for the vector's data (xorshift32). */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u ^ 0x9E3779B9u;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)(x >> 11);
	}
}

static void credits_str(char *s, size_t n, const struct abb_sim_credits *c)
{
	snprintf(s, n, "ph=%u:pd=%u:nph=%u:npd=%u:cplh=%u:cpld=%u", c->ph, c->pd, c->nph, c->npd,
		 c->cplh, c->cpld);
}

/* Copies the TLP log at log_path to out as "cycle dir TLP" lines with the
 * cycle relative to c0. */
static int copy_trace(const char *log_path, FILE *out, uint64_t c0, char *err, size_t errlen)
{
	FILE *f = fopen(log_path, "r");
	char line[512];

	if (!f)
		return verr(err, errlen, "cannot read the TLP log %s: %s", log_path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long cyc, ns, frac;
		char dir[8];
		int pos = 0;

		if (line[0] == '#') {
			if (strncmp(line, "# violation", 11) == 0)
				fputs(line, out);
			continue;
		}
		if (sscanf(line, "%llu %llu.%llu %7s %n", &cyc, &ns, &frac, dir, &pos) != 4 || !pos) {
			fclose(f);
			return verr(err, errlen, "unexpected TLP log line: %s", line);
		}
		fprintf(out, "%7llu %-4s %s", cyc - (unsigned long long)c0, dir, line + pos);
	}
	fclose(f);
	return 0;
}

int tb_vector_run(const struct tb_vector *v, const char *out_path, uint64_t *cycles,
		  char *err, size_t errlen)
{
	return tb_vector_run_on(v, "sim", out_path, cycles, err, errlen);
}

/* The simulator's PCIe rule violations since the last call; the timed
 * model has no such checks (0). */
static int rule_errors(abb_dev *dev, char *buf, size_t len)
{
	int n = abb_sim_protocol_errors(dev, buf, len);

	return n == -ENOTSUP && strcmp(abb_backend(dev), "model") == 0 ? 0 : n;
}

int tb_vector_run_on(const struct tb_vector *v, const char *be, const char *out_path,
		     uint64_t *cycles, char *err, size_t errlen)
{
	char uri[512], log_path[] = "/tmp/abb-vector-tlp-XXXXXX", up[96], down[96], perr[1024];
	size_t span = (v->host_off + v->len + PAGE - 1) / PAGE * PAGE;
	uint8_t *host = NULL, *data = malloc(v->len), *back = malloc(v->len);
	abb_dev *dev = NULL;
	abb_dmabuf *buf = NULL;
	struct abb_sim_link l;
	uint64_t c0 = 0, c1 = 0;
	uint32_t id;
	FILE *out = NULL;
	int rc = -1, n, fd = -1;

	*cycles = 0;
	if (!data || !back || posix_memalign((void **)&host, PAGE, span)) {
		verr(err, errlen, "out of memory");
		goto done;
	}
	memset(host, 0, span);
	fd = mkstemp(log_path);
	if (fd < 0) {
		verr(err, errlen, "mkstemp: %s", strerror(errno));
		goto done;
	}
	close(fd);
	snprintf(uri, sizeof(uri), "%s:%s%s%s%s", be, strcmp(be, "sim") ? "timed=1," : "",
		 tb_vector_base_opts, *v->opts ? "," : "", v->opts);
	if (abb_open(&dev, uri)) {
		verr(err, errlen, "abb_open(%s): %s", uri, abb_last_error());
		dev = NULL;
		goto done;
	}
	if (abb_sim_link_params(dev, &l) || abb_dmabuf_map(dev, host, span, &buf)) {
		verr(err, errlen, "%s", abb_last_error());
		buf = NULL;
		goto done;
	}
	/* The data: on the board for a DMA read, in host memory for a write;
	 * a register read then makes sure the posted PIO writes are done. */
	fill(data, v->len, (uint32_t)(v->board + v->len));
	if (v->write) {
		memcpy(host + v->host_off, data, v->len);
		memset(back, 0, v->len);
	}
	/* the board's range: cleared for a write, the data for a read */
	if (abb_mem_write(dev, v->board, v->write ? back : data, v->len)) {
		verr(err, errlen, "PIO: %s", abb_last_error());
		goto done;
	}
	if (abb_reg_read(dev, 0, &id) || rule_errors(dev, NULL, 0) != 0 ||
	    abb_sim_tlp_log(dev, log_path) || abb_sim_cycles(dev, &c0)) {
		verr(err, errlen, "setup: %s", abb_last_error());
		goto done;
	}
	/* The transfer: completion by interrupt, so the trace holds no status
	 * polling, only the data, the interrupt messages (INTx; MSI with
	 * msi=1) and the library's register accesses. */
	if (v->write)
		n = abb_dma_write(dev, buf, v->host_off, v->board, v->len, ABB_DMA_IRQ);
	else
		n = abb_dma_read(dev, buf, v->host_off, v->board, v->len, ABB_DMA_IRQ);
	if (n) {
		verr(err, errlen, "the transfer failed: %s", abb_last_error());
		goto done;
	}
	/* The cycle count ends at the return; the trace goes on for 2 us of
	 * device time, so that the library's last posted writes (the interrupt
	 * acknowledge: IER cleared) land and it shows the Deassert_INTA they
	 * cause. */
	if (abb_sim_cycles(dev, &c1) || abb_sim_advance(dev, 2000) ||
	    abb_sim_tlp_log(dev, "/dev/null")) {
		verr(err, errlen, "%s", abb_last_error());
		goto done;
	}
	*cycles = c1 - c0;
	if (!v->write)
		memcpy(back, host + v->host_off, v->len);
	else if (abb_mem_read(dev, v->board, back, v->len)) {
		verr(err, errlen, "PIO read back: %s", abb_last_error());
		goto done;
	}
	if (memcmp(back, data, v->len)) {
		verr(err, errlen, "the data moved by the %s differ from the source",
		     v->write ? "DMA write" : "DMA read");
		goto done;
	}
	n = rule_errors(dev, perr, sizeof(perr));
	if (n) {
		verr(err, errlen, "%d protocol errors: %s", n, perr);
		goto done;
	}

	out = fopen(out_path, "w");
	if (!out) {
		verr(err, errlen, "cannot create %s: %s", out_path, strerror(errno));
		goto done;
	}
	credits_str(up, sizeof(up), &l.up);
	credits_str(down, sizeof(down), &l.down);
	fprintf(out, "# %s: %s %zu bytes, host offset 0x%zx, board 0x%x, ABB_DMA_IRQ; "
		"gen=%u lanes=%u mps=%u mrrs=%u rcb=%u cpl=%s clk_mhz=%u link_ns=%u mem_ns=%u "
		"reorder=%u seed=%llu iova=%s credits=up.%s,down.%s; cycles=%llu\n",
		v->name, v->write ? "DMA write (host to board)" : "DMA read (board to host)", v->len,
		v->host_off, v->board, l.gen, l.lanes, l.mps, l.mrrs, l.rcb,
		l.cpl_rcb ? "rcb" : "mps", l.clk_mhz, l.link_ns, l.mem_ns, l.reorder,
		(unsigned long long)l.seed, l.iova_scatter ? "scatter" : "contig", up, down,
		(unsigned long long)*cycles);
	fprintf(out, "# %s\n# cycle (from the start of the call) dir TLP\n", v->about);
	rc = copy_trace(log_path, out, c0, err, errlen);
	if (fclose(out) && !rc)
		rc = verr(err, errlen, "write error on %s", out_path);
done:
	if (buf && abb_dmabuf_unmap(buf) && !rc)
		rc = verr(err, errlen, "unmap: %s", abb_last_error());
	if (dev)
		abb_close(dev);
	if (fd >= 0)
		unlink(log_path);
	free(host);
	free(data);
	free(back);
	return rc;
}
