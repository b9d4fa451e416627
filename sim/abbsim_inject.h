/*
 * abbsim_inject.h - link link injection: the one definition of its kinds,
 * directions, TLP classes and rule.
 *
 * Part of the simulator's C interface (abbsim.h includes it:
 * abbsim_inject_add takes this rule), and the same definitions are libabb's
 * public ones (<abb/abb_sim.h> includes it: abb_sim_inject passes the rule
 * through unchanged). The names are libabb's, which programs use; the
 * simulator has no second set. Installed next to abbsim.h.
 *
 * A rule watches the TLPs one transmitter submits in one direction
 * (ABB_SIM_DIR_DOWN: host/root complex to board, ABB_SIM_DIR_UP: board to
 * host) and fires at the nth TLP that matches (nth > 0), or at each
 * matching TLP with probability prob (a splitmix64 stream from seed; nth
 * = 0), at most `times` times (0: once with nth, no limit with prob; with
 * nth it fires at the nth, nth+1, ... matches). A TLP matches when it is
 * of class tlp (ABB_SIM_TLP_ANY: every class), has tag `tag` (-1: any; a
 * request's tag, or the tag a completion answers) and, when addr_hi >
 * addr_lo, touches [addr_lo, addr_hi) (a request's address range, or for
 * the host's completions the host bus address of their data; the board's
 * completions have no address and never match then). A kind matches only
 * TLPs it can act on (UR, CA, UNEXPECTED: completions; POISON: TLPs with
 * data; MALFORMED, TRUNCATED: with at least 3 DWs of data). Rules are
 * checked in the order they were added, the first that fires acts. Every
 * firing is a line with "FAULT" in the TLP log. What the board and libabb
 * make of each: sim/README.md, "Link injection", and doc/injection.md.
 *
 * Plain C89/C++98 (no trailing enum commas): <abb/abb_sim.h> brings it
 * into C and C++ programs of any standard.
 */
#ifndef ABBSIM_INJECT_H
#define ABBSIM_INJECT_H

#include <stdint.h>

enum abb_sim_inject_kind {
	ABB_SIM_INJ_UR = 1,     /* completion status UR, no data; the completer sends
				 * nothing more for that read */
	ABB_SIM_INJ_CA,         /* the same with status CA (completer abort) */
	ABB_SIM_INJ_POISON,     /* EP set: poisoned data */
	ABB_SIM_INJ_DROP,       /* the TLP is lost (a read then times out) */
	ABB_SIM_INJ_DELAY,      /* held back ns, then sent (later TLPs pass it) */
	ABB_SIM_INJ_DUP,        /* sent twice */
	ABB_SIM_INJ_UNEXPECTED, /* the completion is followed by a 1-DW completion for a
				 * tag the receiver has no request outstanding for */
	ABB_SIM_INJ_MALFORMED,  /* Length field 2 DWs (one 64-bit beat) short of the payload */
	ABB_SIM_INJ_STARVE,     /* the direction's transmitter gets no flow-control
				 * credits for ns from this TLP on: it stalls */
	ABB_SIM_INJ_LINK_DOWN,  /* surprise down for ns: the TLP and everything on the link
				 * is lost (PIO reads fail with -ENOLINK, writes are
				 * lost), the board is held in reset (hot reset), then
				 * the link is up again with the config space restored */
	ABB_SIM_INJ_TRUNCATED   /* its last 2 payload DWs (one 64-bit beat) are not sent:
				 * the TLP ends 2 DWs short of its Length field */
};
/* The first and the last kind: the simulator accepts the kinds between. */
#define ABB_SIM_INJ_FIRST ABB_SIM_INJ_UR
#define ABB_SIM_INJ_LAST ABB_SIM_INJ_TRUNCATED

#define ABB_SIM_DIR_DOWN 0u
#define ABB_SIM_DIR_UP   1u
enum { ABB_SIM_TLP_ANY = 0, ABB_SIM_TLP_CPL, ABB_SIM_TLP_MRD, ABB_SIM_TLP_MWR, ABB_SIM_TLP_MSG };

struct abb_sim_inject_spec {
	unsigned kind;            /* enum abb_sim_inject_kind */
	unsigned dir;             /* ABB_SIM_DIR_DOWN or ABB_SIM_DIR_UP */
	unsigned tlp;             /* ABB_SIM_TLP_*: which TLPs match (ANY: every one) */
	int tag;                  /* -1: any; else the request's or the completion's tag */
	uint64_t addr_lo, addr_hi;/* addr_hi > addr_lo: only TLPs touching [addr_lo, addr_hi) */
	unsigned nth;             /* > 0: fire at the nth matching TLP (1 = the first) */
	unsigned times;           /* fire at most this often (0: once with nth, no limit with
				   * prob); with nth: at the nth, nth+1, ... matching TLPs */
	double prob;              /* nth == 0: fire at each matching TLP with this
				   * probability (0..1] */
	uint64_t seed;            /* the probability stream's seed */
	uint64_t ns;              /* DELAY: delay; STARVE, LINK_DOWN: duration; 1..10^9 */
};

#endif
