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
    direct = add_direct_eval(files, prefix)
    h = os.path.join(d, prefix + ".h")
    s = open(h).read()
    i = s.rindex("#endif")
    add = "// sim/defer_comb.py: the clock edge's combinational pass may be left out\n" \
          "#define %s_DEFER_COMB 1\n" % prefix
    if direct:
        add += "// sim/defer_comb.py: %s___024root___eval_direct(root) evaluates as _eval\n" \
               "#define %s_DIRECT_EVAL 1\n" % (prefix, prefix)
    open(h, "w").write(s[:i] + add + "\n" + s[i:])
    return 0


def function_body(s, name):
    """The statements of `void NAME(...) {` after its "// Body" line, or None."""
    m = re.search(r"\nvoid " + re.escape(name) + r"\([^)]*\) \{\n", s)
    if not m:
        return None
    end = s.find("\n}\n", m.end())
    body = s[m.end():end + 1]
    i = body.find("// Body\n")
    return body[i + len("// Body\n"):] if i >= 0 else ""


def add_direct_eval(files, prefix):
    """Appends PREFIX___024root___eval_direct next to _eval_nba: what _eval
    does, without its trigger vectors and its convergence loops, for a
    model whose every trigger is a rising edge of an input (clk_i, smp_i:
    nothing the evaluation itself can change, so one pass of the NBA
    region is all _eval ever runs) and whose active region is empty.
    Checked on the generated text; anything else (another Verilator, a
    mutant with other triggers) gets no direct eval and the loop calls
    _eval. Returns True when added."""
    root = prefix + "___024root"
    trig = act = nba = None
    nba_file = None
    for f in files:
        s = open(f).read()
        trig = function_body(s, root + "___eval_triggers__act") if trig is None else trig
        act = function_body(s, root + "___eval_act") if act is None else act
        b = function_body(s, root + "___eval_nba")
        if b is not None:
            nba, nba_file = b, f
    if trig is None or act is None or nba is None:
        return False
    trig = re.sub(r"#ifdef VL_DEBUG\n.*?#endif\n", "", trig, flags=re.S)
    # the active region empty (no "// Body": no statement)
    if act.strip():
        return False
    stmts = [x.strip() for x in trig.split(";") if x.strip()]
    sets, prevs = {}, []
    for x in stmts:
        m = re.fullmatch(r"vlSelf->__VactTriggered\.at\((\d+)U\) = \(\(IData\)\(vlSelf->(\w+)\)\s*"
                         r"& \(~ \(IData\)\(vlSelf->__Vtrigrprev__TOP__(\w+)\)\)\)", x, re.S)
        if m and m.group(2) == m.group(3) and m.group(2).endswith("_i"):
            sets[m.group(1)] = m.group(2)
            continue
        m = re.fullmatch(r"vlSelf->__Vtrigrprev__TOP__(\w+) = vlSelf->(\w+)", x)
        if m and m.group(1) == m.group(2):
            prevs.append(m.group(1))
            continue
        return False
    if sorted(sets.values()) != sorted(prevs) or not sets:
        return False
    # the NBA region: only ifs on its triggers calling the region's functions
    used = set(re.findall(r"__VnbaTriggered\.at\((\d+)U\)", nba))
    if not used <= set(sets) or re.search(r"__Vnba(?!Triggered\.at\(\d+U\))", nba):
        return False
    if re.search(r"\b(?!if\b)\w+\((?!vlSelf\))", re.sub(r"__VnbaTriggered\.at\(\d+U\)", "", nba)):
        return False
    body = re.sub(r"vlSelf->__VnbaTriggered\.at\((\d+)U\)", r"__Vt\1", nba)
    out = ["", "// sim/defer_comb.py: _eval for this model (its triggers are rising edges",
           "// of inputs only, its active region empty): the NBA region once",
           "void %s___eval_direct(%s* vlSelf) {" % (root, root)]
    # each input read once, by a load of its own: the caller has just
    # stored each byte by itself, and a load the compiler merges across two
    # of them (for the trigger memory's update) waits for both stores to
    # retire instead of taking their values forwarded (about a tenth of
    # the simulator's time in perf on a 1 MiB read)
    for v in prevs:
        out.append("    const CData __Vin_%s = *(const volatile CData *)&vlSelf->%s;" % (v, v))
    for k in sorted(sets, key=int):
        v = sets[k]
        out.append("    const bool __Vt%s = __Vin_%s && !vlSelf->__Vtrigrprev__TOP__%s;" % (k, v, v))
    for v in prevs:
        out.append("    vlSelf->__Vtrigrprev__TOP__%s = __Vin_%s;" % (v, v))
    out.append(body.rstrip("\n"))
    out.append("}")
    with open(nba_file, "a") as fh:
        fh.write("\n".join(out) + "\n")
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
