/*
 * abb_options.h - the one table of the simulator's and the reference model's options
 * (abb_options.c), and the one parser of their values.
 *
 * Every option has a name (the URI key: "sim:mem_size=4M"), an environment
 * variable (ABB_SIM_MEM_SIZE=4M), a type, a range, its unit suffixes, the
 * backends that take it, a default and a help text. The environment and
 * the URI go through the same parser: numbers are decimal (leading zeros
 * too: 010 is 10, never octal) or 0x hex, no sign, no blanks, overflow-checked (also after a K or M suffix, where the
 * option takes one); booleans are 0/1, yes/no, true/false, on/off (any
 * case), nothing else; words are from the option's list. The URI overrides
 * the environment; an empty variable counts as unset.
 *
 * Part of libabb only (hidden): the backends parse their options here and
 * hand the simulator its parameters (struct abbsim_params) and what a run
 * records (struct abbsim_record) at abbsim_open; the simulator reads no
 * environment variable. The defaults of the simulator's parameters are
 * the simulator's own (abbsim_params_defaults_fill, abbsim.h): the table
 * shows them and starts from them.
 *
 * `abb_tool options` prints the table; `make options` writes it into
 * doc/options.md between the markers, `make options-check` fails when
 * doc/options.md is stale.
 */
#ifndef ABB_OPTIONS_H
#define ABB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abbsim.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ABB_OPT_HIDDEN __attribute__((visibility("hidden")))
#else
#define ABB_OPT_HIDDEN
#endif

/* Backends (bit mask). ABB_OPT_TIMED: the reference model with device
 * time (model:timed=1), which takes the simulator's link and platform
 * parameters besides the model's own options. */
#define ABB_OPT_SIM   0x1u
#define ABB_OPT_MODEL 0x2u
#define ABB_OPT_VFIO  0x4u
#define ABB_OPT_TIMED 0x8u
#define ABB_OPT_ANY   0xfu

/* Groups: who applies an option (bit mask) */
#define ABB_OPTG_PARAMS 0x1u /* struct abbsim_params, handed to abbsim_open */
#define ABB_OPTG_TRACE  0x2u /* what a run records: struct abbsim_record at abbsim_open */
#define ABB_OPTG_LIBABB 0x4u /* libabb's own, per backend (host-time coupling, the
			      * model's engine, where libabbsim is, the VFIO IOMMU path) */
#define ABB_OPTG_CORE   0x8u /* libabb's, every backend: read by abb_open (wait limit) */
#define ABB_OPTG_ALL    0xfu

/* Every option's value. */
struct abb_optvals {
	struct abbsim_params p;  /* the simulator's parameters (the reference model's mem_size,
				  * strict; with timed=1 all the link and platform ones) */
	unsigned hosttime;       /* libabb: host-time coupling */
	unsigned profile;        /* sim, timed model: board profile, ABB_PROFILE_* (default 0) */
	unsigned irq_ns;         /* sim, timed model: interrupt delivery per interrupt wait, device ns */
	unsigned driver_ns;      /* sim, timed model: kernel-driver latency per interrupt wait, device ns */
	unsigned shared_engine;  /* model: GCR.SHARED_ENGINE after reset */
	unsigned timed;          /* model: device time (the timing model, ref_timing.h) */
	char trace[256];         /* FST file ("" none) */
	uint64_t trace_from, trace_to;
	uint64_t trace_dma[2];   /* "N-M": the N-th to M-th DMA of the run (0 0: none) */
	char trace_test[256];    /* "suite/test": only that test ("" none) */
	uint64_t trace_on_error; /* flight recorder: cycles kept (0 off) */
	char tlp_log[256];       /* TLP log file ("" none) */
	char stim[256];          /* RTL port record for the Icarus replay ("" none) */
	char coverage[256];      /* coverage build: where the RTL's counters go ("" none) */
	char sim_lib[256];       /* libabbsim.so to load ("" search) */
	unsigned iommu;          /* vfio: ABB_OPT_IOMMU_* */
	uint64_t wait_limit_ms;  /* device-time limit of one wait (0 none); see set_rows */
	unsigned set;            /* groups an option was set in (ABB_OPTG_*) */
	uint64_t set_rows;       /* bit per table row: given (environment or URI) */
};

/* board profiles (option profile) */
#define ABB_PROFILE_DEFAULT 0u
#define ABB_PROFILE_ABB2008 1u

/* vfio's IOMMU interface (option iommu) */
#define ABB_OPT_IOMMU_AUTO    0u
#define ABB_OPT_IOMMU_GROUP   1u
#define ABB_OPT_IOMMU_IOMMUFD 2u

/* The defaults of every option (the table's default column; the
 * simulator's parameters from abbsim_params_defaults_fill). */
ABB_OPT_HIDDEN void abb_opt_defaults(struct abb_optvals *v);
/* Applies the environment variables of the options of backend (ABB_OPT_*)
 * in groups (ABB_OPTG_*). All or nothing: on an error v is unchanged and
 * msg says which variable and what is accepted. -EINVAL. */
ABB_OPT_HIDDEN int abb_opt_from_env(struct abb_optvals *v, unsigned backend, unsigned groups,
				    char *msg, size_t n);
/* Sets one option by its URI name. what: how the message names the source
 * ("sim option" gives "sim option mps=..."; NULL: the name alone). -EINVAL
 * with msg (v unchanged): unknown name (the message lists the known ones),
 * an option of another backend, a bad value. */
ABB_OPT_HIDDEN int abb_opt_set(struct abb_optvals *v, unsigned backend, const char *what,
			       const char *name, const char *value, char *msg, size_t n);
/* 1 if key is an item of the credit list given as an option of its own
 * after credits= ("ph", "up.pd", ...): the URI parsers collect them. */
ABB_OPT_HIDDEN int abb_opt_credit_item(const char *key);
/* One row of the table, for tests and the fuzzer (every option without
 * a list of its own): its URI name, its environment variable, the
 * backends (ABB_OPT_*) and group (ABB_OPTG_*), env_only 1 if it is only a
 * variable (no URI option: abb_open reads it for every backend). */
struct abb_opt_row {
	const char *name, *env;
	unsigned backends, group;
	int env_only;
};
/* Number of rows; abb_opt_row fills row i (< that number): 0, else -EINVAL. */
ABB_OPT_HIDDEN size_t abb_opt_rows(void);
ABB_OPT_HIDDEN int abb_opt_row(size_t i, struct abb_opt_row *out);
/* The table as text: markdown 0 a plain list for a terminal, 1 the
 * Markdown table of doc/options.md. */
ABB_OPT_HIDDEN void abb_opt_print(FILE *f, int markdown);
/* Whether the option named name was given (environment or URI) in v. */
ABB_OPT_HIDDEN int abb_opt_given(const struct abb_optvals *v, const char *name);
/* Board profile (option profile): sets the options the profile gives that
 * were not given explicitly and that backend takes (the table's ranges
 * apply: -EINVAL with msg). The simulator and the timed model apply it the
 * same way at open. */
ABB_OPT_HIDDEN int abb_opt_apply_profile(struct abb_optvals *v, unsigned backend, char *msg,
					 size_t n);
/* Device time a host interrupt wait takes after the interrupt arrived
 * (interrupt delivery and driver: irq_ns + driver_ns, after the profile). */
ABB_OPT_HIDDEN int64_t abb_opt_irq_host_ns(const struct abb_optvals *v);
/* The credit list parser ("ph=8,pd=64,up.nph=4,default"); what names
 * the source in msg. */
ABB_OPT_HIDDEN int abb_opt_credits(struct abbsim_params *p, const char *what, const char *value,
				   char *msg, size_t n);

#ifdef __cplusplus
}
#endif
#endif
