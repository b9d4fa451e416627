/*
 * mprace/cxx98.h - what the layer's public headers need to compile as
 * C++98 (the board's programs and DABC's 2009 abb plugin were written for
 * it) and as C++11 or later (the layer itself is C++17).
 *
 * MPRACE_OVERRIDE   `override` from C++11 on, nothing before.
 * MPRACE_NOTHROW    the "throws nothing" specification: `noexcept` from
 *                   C++11 on, `throw()` before (C++98's; removed in C++20).
 *                   Either leaves the symbol and the vtable slot unchanged:
 *                   a member function's exception specification is not
 *                   part of its mangled name, so a program built as C++98
 *                   and the library built as C++17 agree.
 *
 * Copying is forbidden the C++98 way (a private copy constructor and
 * assignment, declared and never defined) instead of `= delete`: the
 * same for every caller, no symbol either way.
 */
#ifndef MPRACE_CXX98_H_
#define MPRACE_CXX98_H_

#if __cplusplus >= 201103L
#define MPRACE_OVERRIDE override
#define MPRACE_NOTHROW noexcept
#else
#define MPRACE_OVERRIDE
#define MPRACE_NOTHROW throw()
#endif

#endif
