/*
 * vectors_run.c - writes the golden TLP vectors (make vectors):
 *
 *   build/vectors_run [DIR]    every vector into DIR (default: the
 *                              repository's vectors/tlp)
 *
 * Each canonical transfer of tb_vectors.c runs on a freshly reset
 * simulator; its file holds the parameters, the cycle count and the
 * decoded TLP trace; next to it NAME.stim, the RTL's port activity from the
 * hot reset on (ABB_SIM_STIM, sim/stim_rec.h), which the Icarus replay
 * (testbench/icarus/) feeds to the same RTL. Vectors change only on purpose: regenerate them in the
 * commit that moves cycle counts, and say why there. Exit status 0 when
 * every vector was written.
 */
#define _GNU_SOURCE
#include "tb_vectors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TB_VECTORS_DIR
#define TB_VECTORS_DIR "vectors"
#endif

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : TB_VECTORS_DIR "/tlp";
	char path[4096], err[1024];
	int failed = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [DIR]\n", argv[0]);
		return 2;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "vectors_run: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < tb_nvectors; i++) {
		uint64_t cycles;

		snprintf(path, sizeof(path), "%s/%s.stim", dir, tb_vectors[i].name);
		setenv("ABB_SIM_STIM", path, 1);
		snprintf(path, sizeof(path), "%s/%s.txt", dir, tb_vectors[i].name);
		int r = tb_vector_run(&tb_vectors[i], path, &cycles, err, sizeof(err));
		unsetenv("ABB_SIM_STIM");
		if (r) {
			fprintf(stderr, "vectors_run: %s: %s\n", tb_vectors[i].name, err);
			failed = 1;
			continue;
		}
		printf("%-22s %8llu cycles  %s\n", tb_vectors[i].name, (unsigned long long)cycles,
		       path);
	}
	return failed;
}
