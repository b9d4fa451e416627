/*
 * tb_vectors.h - golden TLP vectors: canonical DMA transfers on the
 * simulator, each with its decoded TLP trace and exact cycle count, kept as
 * text in vectors/tlp/<name>.txt.
 *
 * Shared by the generator (vectors_run.c, `make vectors`) and the check
 * (test_vectors.c). Needs libabb only (no CUnit). Every run opens the
 * simulator afresh ("sim:" URI with every link parameter pinned, so
 * neither $ABB_DEVICE nor ABB_SIM_* variables change a vector), which
 * hot-resets it: the same vector gives the same text on every run.
 */
#ifndef TB_VECTORS_H
#define TB_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct tb_vector {
	const char *name;   /* file name without .txt */
	const char *opts;   /* sim options on top of the pinned base */
	int write;          /* 0: DMA read (board to host), 1: DMA write (host to board) */
	size_t host_off;    /* byte offset in a page-aligned host buffer */
	uint32_t board;     /* board (BAR1) byte address */
	size_t len;         /* bytes */
	const char *about;  /* what the vector covers */
};

extern const struct tb_vector tb_vectors[];
extern const size_t tb_nvectors;

/* The sim options every vector starts from (the defaults, written out). */
extern const char tb_vector_base_opts[];

/* Runs v on a freshly opened simulator and writes the vector file to
 * out_path: a header line with the parameters and the cycle count, then
 * one line per TLP of the transfer (cycle relative to the start of the
 * blocking call, direction, decoded TLP), up to 2 us after its return (the
 * library's last posted writes and the Deassert_INTA they cause). *cycles: the call's cycle count.
 * Also checks the data that moved and that no protocol error was seen.
 * Returns 0, or -1 with a message in err. Only one device may be open in
 * the process while this runs. */
int tb_vector_run(const struct tb_vector *v, const char *out_path, uint64_t *cycles,
		  char *err, size_t errlen);
/* The same on backend be: "sim", or "model" for the timed reference model
 * (model:timed=1 with the same options), whose file must then equal the
 * simulator's (it has no PCIe rule checks: those are the simulator's). */
int tb_vector_run_on(const struct tb_vector *v, const char *be, const char *out_path,
		     uint64_t *cycles, char *err, size_t errlen);

#endif
