#!/usr/bin/env python3
"""defer_comb.py DIR PREFIX: lets the C++ loop skip the combinational pass after
the clock edge of an untraced model (sim/hard_ip.cpp, "Deferred
combinational pass" in sim/README.md).

Verilator (5.0) evaluates all of the model's combinational logic in one
function, after the rising edge of smp_i (the sampled inputs, sim/
abb_sim_top.sv) and after the rising edge of clk_i alike. In a cycle whose
inputs changed the loop then pays for it twice: after the clock edge (for
state n+1 with the inputs of cycle n) and again after loading the inputs
of cycle n+1. This edits the generated _eval_nba so that the pass after the
clock edge is left out while the wrapper's input defer_i is 1; the loop
sets it for the clock-high eval only and then evaluates the logic at the
next sample (or at once, by a strobe of smp_i, when it needs an output of
the new state with the old inputs). A model this script could not edit
runs the pass as before and the loop does not defer it (a warning says
so); an edited one has PREFIX_DEFER_COMB defined as 1 in its PREFIX.h
(sim/rtl_model.cpp).
"""
import glob
import os
import re
import sys


def main(d, prefix):
    files = [f for f in glob.glob(os.path.join(d, "*___024root__DepSet_*.cpp")) if "__Slow" not in f]
    clk = None
    for f in files:
        m = re.search(r"__VactTriggered\.at\((\d+)U\) = \(\(IData\)\(vlSelf->clk_i\)", open(f).read())
        if m:
            clk = m.group(1)
    if clk is None:
        print("defer_comb.py: %s: no clk_i trigger found; the model is left as it is" % d)
        return 0
    pat = re.compile(r"(if \(\()(\(?vlSelf->__VnbaTriggered\.at\(\d+U\)[^{]*)\)\) \{\n(\s*)(\w+___nba_comb__TOP__0\(vlSelf\);)")
    done = 0
    for f in files:
        s = open(f).read()
        i = s.find("___eval_nba(")
        m = pat.search(s, i) if i >= 0 and "void " in s[max(0, i - 80):i] else None
        if not m:
            continue
        cond = m.group(2).replace("vlSelf->__VnbaTriggered.at(%sU)" % clk,
                                  "(vlSelf->__VnbaTriggered.at(%sU) & !vlSelf->defer_i)" % clk)
        if cond == m.group(2):
            continue
        s = s[:m.start()] + m.group(1) + cond + ")) {\n" + m.group(3) + m.group(4) + s[m.end():]
        open(f, "w").write(s)
        done += 1
    if done != 1:
        print("defer_comb.py: %s: the combinational pass of the clock edge not found (%d); "
              "the model runs it after every edge" % (d, done))
        return 0
    h = os.path.join(d, prefix + ".h")
    s = open(h).read()
    i = s.rindex("#endif")
    s = s[:i] + "// sim/defer_comb.py: the clock edge's combinational pass may be left out\n" \
        "#define %s_DEFER_COMB 1\n\n" % prefix + s[i:]
    open(h, "w").write(s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
