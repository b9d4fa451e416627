/*
 * test_daq.h - helpers of the DAQ suites (test_daq_*.c): the checker of the
 * front-end event stream, a readout buffer, sleeping.
 */
#ifndef TEST_DAQ_H
#define TEST_DAQ_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb_daq.h>

/* Follows the event stream of the model's event source (abb_evsrc.sv) DW by
 * DW across buffer boundaries: every DW must be the one expected next, so a
 * lost, repeated or reordered piece is found at its first DW. */
struct evcheck {
	uint32_t src, total; /* source id, DWs per event */
	uint32_t cnt, pos;   /* next expected: event counter, DW in the event */
	uint64_t dws;        /* DWs checked */
	uint64_t errors;
	char first[200];     /* the first mismatch */
};
void evcheck_init(struct evcheck *c, uint32_t src, uint32_t payload_dws);
/* Checks n DWs; returns the number of mismatches among them. */
uint64_t evcheck_feed(struct evcheck *c, const void *data, size_t n);

/* Checks one readout buffer: header counter == *next_seq (then ++), unique
 * id, and the payload through ev (NULL: payload not checked). Returns 1 if
 * fine, else prints why and returns 0. */
int daq_check_buffer(const abb_daq_buf *b, uint64_t *next_seq, unsigned board,
		     struct evcheck *ev);

/* Sleeps us microseconds of wall time (a slow consumer, a stop mid-run). */
void daq_sleep_us(unsigned us);

/* Buffers for the long runs: $ABB_DAQ_TEST_BUFFERS if set (e.g. smaller under
 * valgrind), else def. */
uint64_t daq_test_buffers(uint64_t def);

CU_ErrorCode tb_register_daq_units(void);
CU_ErrorCode tb_register_daq_readout(void);
CU_ErrorCode tb_register_daq_writer(void);

#endif
