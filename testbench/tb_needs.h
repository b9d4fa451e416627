/*
 * tb_needs.h - the runner's bookkeeping (tb_needs.c): what the tests need
 * of the backend (the TB_*_TEST tags of tb.h) and which tests skipped
 * while running (tb_skip, tb_skip_part). Used by tb_main.c only.
 */
#ifndef TB_NEEDS_H
#define TB_NEEDS_H

#include <stddef.h>

#include <CUnit/CUnit.h>

/* After the suites registered: strips the need tags from the tests' names
 * and records the needs. 0, or -1 (out of memory, an unknown tag: printed). */
int tb_needs_strip(void);
/* After the selection by name: makes inactive the selected tests whose
 * need this backend cannot meet (only deactivates). Returns how many. */
unsigned tb_needs_apply(void);
/* One line per need with the count of the tests it made inactive; names:
 * then the tests, a line per suite. */
void tb_needs_print(int names);
/* Why test t is inactive on this backend (into buf), or NULL if the
 * backend did not make it inactive. */
const char *tb_needs_why(CU_pTest t, char *buf, size_t n);

/* The reason test t gave when it skipped while running (*part: 1 if only
 * part of it), or NULL. */
const char *tb_skip_reason(CU_pTest t, int *part);
/* The tests skipped while running, a line for whole and one for partial
 * skips (nothing if none). */
void tb_skips_print(void);

#endif
