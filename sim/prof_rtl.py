#!/usr/bin/env python3
"""prof_rtl.py - where the verilated model spends its instructions, by RTL
module and by RTL signal/line (make sim-prof, sim/sim.mk).

    prof_rtl.py CALLGRIND_OUT MODEL_DIR CFUNCS_DIR RTL_DIR CYCLES [TOP]

CALLGRIND_OUT: callgrind of the bare loop (sim/bare_bench.cpp) on the speed
build compiled with -g (MODEL_DIR: its verilated C++). CFUNCS_DIR: the same
RTL verilated again with --prof-cfuncs (not compiled): there every function
holds one RTL statement and is named after its module and line, which maps
each model variable to the RTL line that assigns it.

Why not profile the --prof-cfuncs build itself: one function per statement
keeps Verilator and the compiler from combining statements; that build runs
about 1.8 times the instructions per cycle of the real one, and its shares
say more about the split than about the RTL. Here the real (speed) build is
measured, line by line of its C++: each C++ statement of the model's
evaluation functions (nba_comb, nba_sequent: the RTL's logic) is charged to
the RTL variable it assigns; a branch (its test, the jumps) to the
assignment that follows it; a variable is
charged to its module and to the RTL line that assigns it (the lowest, when
several do). Function-call temporaries (__Vfunc_<name>__<n>) are charged to
the function. Figures are instructions per simulated cycle.
"""
import collections
import glob
import os
import re
import subprocess
import sys

PFX = 'abb_sim_top__DOT__'
TOP = PFX + 'u_abb__DOT__'


def annotate(cg_out, model_dir):
    """(cost, text) per source line of the model's C++ (callgrind_annotate)."""
    files = sorted(glob.glob(os.path.join(model_dir, '*.cpp')))
    ann = subprocess.run(['callgrind_annotate', '--threshold=100', '--auto=no', cg_out] + files,
                         capture_output=True, text=True, check=True).stdout
    return ann.split('\n')


def line_map(cfuncs_dir):
    """model variable -> (module, RTL line) from the --prof-cfuncs C++."""
    m = {}
    fn = re.compile(r'^(?:VL_INLINE_OPT )?void \w+__PROF__(\w+?)__l(\d+)\(')
    cur, stmt = None, ''
    for path in glob.glob(os.path.join(cfuncs_dir, '*.cpp')):
        for text in open(path):
            f = fn.match(text)
            if f:
                cur, stmt = (f.group(1), int(f.group(2))), ''
                continue
            if text.startswith('}'):
                cur = None
            if not cur:
                continue
            stmt += ' ' + text.strip()
            if not stmt.rstrip().endswith((';', '{', '}')):
                continue
            v = lhs(stmt)
            stmt = ''
            if v and (v not in m or cur[1] < m[v][1]):
                m[v] = cur
    return m


def lhs(stmt):
    """the variable a C++ statement assigns, or None"""
    a = re.match(r'^\s*(?:vlSelf->)?(\w+)(?:\[[^\]]*\])*\s*=[^=]', stmt)
    return a.group(1) if a else None


def owner(var):
    """(module instance, signal) of a model variable name."""
    v = var.replace('__Vdlyvset__', '').replace('__Vdlyvval__', '').replace('__Vdlyvdim0__', '')
    v = v.replace('__Vdlyvlsb__', '')
    v = re.sub(r'__v\d+$', '', v)
    if v.startswith(TOP):
        rest = v[len(TOP):]
        mm = re.match(r'(u_\w+?)__DOT__(\w+)', rest)
        if mm:
            return mm.group(1), mm.group(2)
        rest = re.sub(r'^__Vcellout__(u_\w+?)__', r'\1.', rest)
        rest = re.sub(r'^__Vcellinp__(u_\w+?)__', r'\1.', rest)
        if '.' in rest:
            return tuple(rest.split('.', 1))
        return 'abb_top', rest
    if v.startswith(PFX):
        return 'abb_sim_top', v[len(PFX):]
    mm = re.match(r'__Vfunc_(?:\w+__DOT__)?(\w+?)__\d+__', v)
    if mm:
        return 'function', mm.group(1)
    if not v.startswith('__V'):
        return 'abb_top', v       # a port of the top
    return 'other', v


def instances(rtl_dir):
    """instance name -> module name (abb_top.sv's instantiations)"""
    inst = {'abb_top': 'abb_top'}
    text = open(os.path.join(rtl_dir, 'abb_top.sv')).read()
    for mm in re.finditer(r'^\s*(abb_\w+)\s*(?:#\s*\((?:[^;]|\n)*?\)\s*)?(u_\w+)\s*\(', text, re.M):
        inst[mm.group(2)] = mm.group(1)
    return inst


def rtl_line(rtl_dir, module, sig):
    """first line of module's source that assigns sig (declarations skipped)"""
    try:
        src = open(os.path.join(rtl_dir, module + '.sv')).read().split('\n')
    except OSError:
        return None
    pat = re.compile(r'(?:^|[^\w.])' + re.escape(sig) + r'(?:\[[^\]]*\])*\s*(?:<=|=)(?!=)')
    for i, text in enumerate(src):
        code = text.split('//')[0]
        if pat.search(code) and not re.match(r'\s*(?:input|output|logic|parameter|localparam)\b', code):
            return i + 1
    return None


def statements(ann):
    """(function, cost, text) per C++ statement of the evaluation functions."""
    line = re.compile(r'^\s*([0-9,]+|\.)\s+(?:\([ 0-9.]+%\)\s+)?(.*)$')
    fdef = re.compile(r'void (Vabb_top\w*___024root___\w+)\(')
    fn, text, cost = None, [], 0
    for raw in ann:
        mm = line.match(raw)
        if not mm or mm.group(2).startswith('=>'):
            continue
        c = 0 if mm.group(1) == '.' else int(mm.group(1).replace(',', ''))
        t = mm.group(2)
        f = fdef.search(t)
        if f:
            if text and fn:
                yield fn, cost, ' '.join(text)
            fn, text, cost = f.group(1), [], 0
        text.append(t.strip())
        cost += c
        if t.rstrip().endswith((';', '{', '}')):
            if fn:
                yield fn, cost, ' '.join(text)
            text, cost = [], 0


def main():
    cg_out, model_dir, cfuncs_dir, rtl_dir, cycles = sys.argv[1:6]
    top = int(sys.argv[6]) if len(sys.argv) > 6 else 10
    inst_mod = instances(rtl_dir)
    cycles = int(cycles)
    ann = annotate(cg_out, model_dir)
    total = 0
    for t in ann:
        mm = re.match(r'^\s*([0-9,]+) .*PROGRAM TOTALS', t)
        if mm:
            total = int(mm.group(1).replace(',', ''))
    lmap = line_map(cfuncs_dir)
    by_fn = collections.Counter()
    by_mod = collections.Counter()
    by_sig = collections.Counter()
    stmts = list(statements(ann))
    # a function call's temporaries belong to whoever takes its result
    call_owner = {}
    for fn, cost, text in stmts:
        v = lhs(text)
        for mm in re.finditer(r'\b(__Vfunc_\w+?__\d+)__Vfuncout\b', text):
            if v and not v.startswith('__Vfunc_'):
                call_owner.setdefault(mm.group(1), v)
    carry = 0  # branches and block ends: charged to the next assignment
    for fn, cost, text in stmts:
        kind = fn.split('___')[-1]
        by_fn[kind] += cost
        if not kind.startswith(('nba_comb', 'nba_sequent')):
            continue
        v = lhs(text)
        if v is None or v.startswith('__Vtemp') or v.startswith('__Vtrig'):
            carry += cost
            continue
        call = re.match(r'(__Vfunc_\w+?__\d+)__', v)
        if call and call.group(1) in call_owner:
            v = call_owner[call.group(1)]
        inst, sig = owner(v)
        if inst == 'abb_top' and v in lmap and lmap[v][0] != 'abb_top':
            inst = lmap[v][0] + ':out'   # a wire of abb_top: the output of a module
        by_mod[inst] += cost + carry
        by_sig[(inst, sig, v)] += cost + carry
        carry = 0
    if carry:
        by_mod['other'] += carry
        by_sig[('other', '(branches)', '')] += carry
    rtl = sum(by_mod.values())

    def ipc(c):
        return c / cycles

    print('sim-prof: %d cycles, %.0f instructions per cycle (whole process), of them RTL logic %.0f '
          '(nba_comb %.0f, nba_sequent %.0f)' % (cycles, ipc(total), ipc(rtl),
                                               ipc(sum(c for k, c in by_fn.items() if k.startswith('nba_comb'))),
                                               ipc(sum(c for k, c in by_fn.items() if k.startswith('nba_sequent')))))
    print('sim-prof: by module instance (instructions per cycle, share of the RTL logic)')
    for inst, c in by_mod.most_common():
        print('  %-20s %7.1f %5.1f %%' % (inst, ipc(c), 100.0 * c / rtl))
    print('sim-prof: top %d RTL signals (instructions per cycle, share of the RTL logic, RTL line)' % top)
    for (inst, sig, v), c in by_sig.most_common(top):
        where = lmap.get(v) or lmap.get(re.sub(r'__v\d+$', '', v))
        if not where and inst.endswith(':out'):
            n = rtl_line(rtl_dir, inst[:-4], sig)
            where = (inst[:-4], n) if n else None
        if not where and inst in inst_mod:
            n = rtl_line(rtl_dir, inst_mod[inst], sig)
            where = (inst_mod[inst], n) if n else None
        loc = '%s.sv:%d' % where if where else '-'
        print('  %7.1f %5.1f %%  %-34s %s' % (ipc(c), 100.0 * c / rtl, inst + '.' + sig, loc))


if __name__ == '__main__':
    main()
