/*
 * error.h - the per-thread error message behind abbsim_last_error().
 */
#ifndef ABBSIM_ERROR_H
#define ABBSIM_ERROR_H

namespace abbsim {

/* Records a printf-style message for the calling thread and returns err
 * (a negative errno), so callers can write `return fail(-EINVAL, ...)`. */
int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *last_error();

} // namespace abbsim
#endif
