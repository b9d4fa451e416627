/*
 * tb_tlplog.c - a TLP log of tb_dev to count lines in (tb_tlplog.h).
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_tlplog.h"

#include <string.h>
#include <unistd.h>

#include <abb/abb_sim.h>

static char tlplog_path[64];

static const char *path(void)
{
	if (!tlplog_path[0])
		snprintf(tlplog_path, sizeof tlplog_path, "/tmp/abb-tb-tlplog-%d.log", (int)getpid());
	return tlplog_path;
}

void tb_tlplog_start(void)
{
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path()), 0);
}

/* The simulator writes one log at a time: starting another one (removed
 * at once) closes ours. */
void tb_tlplog_stop(void)
{
	char other[80];

	snprintf(other, sizeof other, "%s.2", path());
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, other), 0);
	unlink(other);
}

int tb_tlplog_lines(const char *w1, const char *w2, int *first, int *last)
{
	FILE *f = fopen(path(), "r");
	char line[512];
	int n = 0, no = 0;

	if (first)
		*first = 0;
	if (last)
		*last = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		no++;
		if (strstr(line, w1) && (!w2 || strstr(line, w2))) {
			if (first && !n)
				*first = no;
			if (last)
				*last = no;
			n++;
		}
	}
	fclose(f);
	return n;
}

int tb_tlplog_count(const char *w1, const char *w2)
{
	return tb_tlplog_lines(w1, w2, NULL, NULL);
}

void tb_tlplog_remove(void)
{
	unlink(path());
}
