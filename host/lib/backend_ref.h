/*
 * backend_ref.h - what the "model" backend's files share: the untimed
 * glue (backend_ref_model.c) parses the options and hands a timed=1 open
 * over to the timed glue (backend_ref_timed.c).
 */
#ifndef ABB_BACKEND_REF_H
#define ABB_BACKEND_REF_H

#include "abb_options.h"
#include "abb_priv.h"

/* Opens the timed reference model with the options o (parsed, timed set):
 * fills dev as backend.h's open does and installs the timed model's
 * operation tables (dev->be, dev->sim). */
ABB_HIDDEN int abb_reftimed_open(abb_dev *dev, const struct abb_optvals *o);

#endif
