/*
 * fuzz_daq_params.c - libFuzzer target: the DAQ parameter parser
 * (host/daq/daq_params.c).
 *
 * The first byte chooses: even: abb_daq_params_parse(TEXT) on the
 * defaults; odd: abb_daq_params_set(NAME, VALUE) with TEXT split at the
 * first '='. Checks: no crash or undefined behaviour (ASan+UBSan), every
 * call returns 0 or a negative errno, the string parameters stay
 * terminated.
 */
#include <abb/abb_daq.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct abb_daq_params p;
	char *text;
	int rc;

	if (size < 1)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	abb_daq_params_default(&p);
	if (data[0] & 1) {
		char *eq = strchr(text, '=');

		if (eq)
			*eq++ = 0;
		rc = abb_daq_params_set(&p, text, eq ? eq : "");
	} else {
		rc = abb_daq_params_parse(&p, text);
	}
	if (rc > 0 || rc < -4095) {
		fprintf(stderr, "daq params: return value %d is neither 0 nor a negative errno\n", rc);
		abort();
	}
	if (!memchr(p.device, 0, sizeof p.device) || !memchr(p.pool, 0, sizeof p.pool)) {
		fprintf(stderr, "daq params: a string parameter lost its terminator\n");
		abort();
	}
	free(text);
	return 0;
}
