/*
 * smoke_abbsim.c - smoke test of libabbsim: open the simulated board, read
 * the VERSION register over PIO, print it with the cycle count and time.
 * Exit status 0 when VERSION reads ABB_VERSION_ID (0x00020003).
 */
#include <inttypes.h>
#include <stdio.h>

#include "abbsim.h"
#include <abb/abb_regs.h>

int main(void)
{
	struct abbsim_params p;
	abbsim_params_default(&p);
	int rc = abbsim_open(&p, NULL);
	if (rc) {
		fprintf(stderr, "smoke_abbsim: open: %s\n", abbsim_last_error());
		return 1;
	}
	uint32_t version = 0;
	rc = abbsim_mmio_read(0, ABB_REG_VERSION, &version, sizeof version);
	if (rc) {
		fprintf(stderr, "smoke_abbsim: VERSION read: %s\n", abbsim_last_error());
		abbsim_close();
		return 1;
	}
	printf("VERSION 0x%08" PRIx32 " after %" PRIu64 " cycles (%" PRIu64 " ps)\n", version,
	       abbsim_cycles(), abbsim_now_ps());
	abbsim_close();
	return version == ABB_VERSION_ID ? 0 : 1;
}
