/*
 * tb_tlplog.h - the simulator's TLP log of tb_dev in a file of this
 * process, to count what the board sent and received between two points
 * of a test (abb_sim_tlp_log; one decoded TLP per line, "up" = board to
 * host, "down" = host to board, e.g. " up   MRd ... tag=03 addr=0x...").
 *
 * tb_tlplog_start begins the log (a new file, the one before ends);
 * tb_tlplog_stop ends it, so the file is complete; the counting functions
 * read the last log until the next start. tb_tlplog_remove deletes the
 * file (a suite's cleanup). Simulation only; the start and stop fail the
 * test (not fatally) if the simulator refuses.
 */
#ifndef TB_TLPLOG_H
#define TB_TLPLOG_H

void tb_tlplog_start(void);
void tb_tlplog_stop(void);
/* Lines of the log holding w1 and (w2 NULL: any) w2; *first and *last
 * (either may be NULL) the line numbers of the first and the last of them
 * (0: none). -1 if the log cannot be read. */
int tb_tlplog_lines(const char *w1, const char *w2, int *first, int *last);
/* The same count without line numbers. */
int tb_tlplog_count(const char *w1, const char *w2);
void tb_tlplog_remove(void);

#endif
