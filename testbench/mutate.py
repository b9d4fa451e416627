#!/usr/bin/env python3
"""mutate.py - seeded single-operator mutants of the RTL, each run through the bench.

    testbench/mutate.py [--n N] [--seed S] [--only ID,ID..] [--list] [--demo]
                        [--out DIR] ... RTL_FILE...   (run by `make mutate`, `make mutate-demo`)

The RTL is parsed lightly: comments and strings blanked, declarations,
parameters, typedefs, elaboration checks ($fatal), assertions, the generated
register package (abb_reg_pkg.sv) and the protocol checker (abb_tlp_chk.sv)
skipped, and so are the `ifdef ABB_ASSERT blocks (checks, not design).
Every operator occurrence in the remaining statements is a site; N sites
are drawn with SEED (random.Random(SEED), sites in file/offset order), so a run is repeatable and `--only` replays
single mutants of the same run. Operators:

  rel     <  <=  >  >=  (one for another: < -> <=, <= -> <, > -> >=, >= -> >)
  eq      == -> !=, != -> ==
  logic   && -> ||, || -> &&, a leading ! dropped, & -> |, | -> & (bitwise)
  arith   + -> -, - -> + (binary)
  const   a sized literal (N'dV, N'hV, N'bV) or a plain number: V+1 (V-1 at
          the top of its range; 1'b0 <-> 1'b1)
  bit     the top bit of a sized literal flipped; a single-bit select [k] -> [k^1]
  shift   << k -> << k+1 (>> likewise) for a constant k; else << <-> >>
  if      if (c) -> if (!(c)): the then and else branches swapped

Each mutant: the RTL sources copied with the one change, verilated with the
simulator's flags (MUT_VFLAGS from sim/sim.mk: the test build, assertions
on) into OUT/obj, and with tracing compiled in (MUT_VFLAGS_TR) into
OUT/obj_tr (the library holds both, as the normal one: sim/rtl_model.h);
a mutant whose verilated C++ (untraced) equals the unmutated
model's is equivalent by construction and not run. Otherwise compiled and
linked with the platform objects and Verilator runtime of the normal build
(build/sim: the mutant only replaces the model) into OUT/libabbsim.so; the
checks (--suites: suites of build/abb_tests, `regress` for build/abb_regress)
then run on it in order via ABB_SIM_LIB, stopping at the first failed test,
with ABB_WAIT_LIMIT_MS=100 (a transfer that never completes fails after
100 ms of device time; the unmutated bench passes with it). A mutant that
does not verilate or compile is stillborn (not counted). A check that
hangs past its time limit kills the mutant (timeout). A failure whose
output holds an RTL assertion's message is reported with the assertion.

--demo builds the three fixed mutants of DEMOS instead (`make mutate-demo`),
runs the golden vectors and the scoreboard on each and tells which checker
caught it (vectors, scoreboard or an RTL assertion).

Prints one line per mutant, then the kill rate and the surviving mutants
(file:line, operator, original -> mutant); OUT/report.txt holds the same.
Exit status 0 whatever the score (the score is the result); 2 on a setup error.
"""
import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import hashlib

# --- light SystemVerilog parsing -------------------------------------------

# `ifdef blocks of these defines hold checks (assertions), not design: no sites
CHECK_DEFINES = {"ABB_ASSERT"}
SKIP_FILES = {"abb_reg_pkg.sv",  # generated constants (rtl-model/abb_regs.def)
              "abb_tlp_chk.sv"}  # the protocol checker (assertions), not the design
DECL_RE = re.compile(r"^\s*(module|endmodule|parameter|localparam|input|output|inout|logic|"
                     r"typedef|import|package|endpackage|function|endfunction|genvar|"
                     r"wire|reg|bit|int|integer|`|\)\s*;|\(\s*$|#\()")
LVALUE_RE = re.compile(r"^[A-Za-z_][\w\.]*(\s*\[[^\]]*\])*\s*$")
IF_PREFIX_RE = re.compile(r"^\s*(end\s+)?(else\s+)?(begin\s+)?")


def blank_comments(text):
    """Comments and strings replaced by spaces (offsets and newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text[i] == '"':
            j = text.find('"', i + 1)
            j = n if j < 0 else j + 1
            for k in range(i, j):
                out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def match_paren(code, i):
    """Index of the ')' closing the '(' at code[i], or -1."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


LIT_RE = re.compile(r"(?<![\w'$])(\d+)'([dhbDHB])([0-9a-fA-F_]+)")
NUM_RE = re.compile(r"(?<![\w'$.])(\d+)(?![\w'.])")
BITSEL_RE = re.compile(r"(?<=[\w\]])\[(\d+)\]")


def lit_text(width, base, value):
    if base in "dD":
        return "%d'd%d" % (width, value)
    if base in "hH":
        return "%d'h%x" % (width, value)
    return "%d'b%s" % (width, format(value, "0%db" % width))


def sites_of_line(code, line_off):
    """(offset, length, op, original, replacement) of every site in one line."""
    out = []
    stripped = code.strip()
    if not stripped or DECL_RE.match(code) or "$fatal" in code or "$error" in code or \
            "$display" in code or ": g_bad" in code or re.search(r"\b(assert|assume|cover)\b", code) or re.search(r"\bcase\b", code) and "(" in code and \
            re.match(r"^\s*(unique\s+|priority\s+)?case", code):
        return out
    # brackets: ranges inside [...] are not arithmetic sites
    in_br = [False] * len(code)
    depth = 0
    for i, c in enumerate(code):
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        in_br[i] = depth > 0 or c == "]"

    def add(i, length, op, repl):
        out.append((line_off + i, length, op, code[i:i + length], repl))

    # relational / shift
    for m in re.finditer(r"<<<|>>>|<<|>>|<=|>=|<|>|->", code):
        tok, i = m.group(0), m.start()
        if in_br[i] or tok in ("<<<", ">>>", "->"):
            continue
        if tok in ("<<", ">>"):
            rest = code[m.end():]
            k = re.match(r"\s*(\d+)(?![\w'])", rest)
            if k:
                v = int(k.group(1))
                j = m.end() + k.start(1)
                out.append((line_off + j, len(k.group(1)), "shift", k.group(1), str(v + 1)))
            else:
                add(i, 2, "shift", ">>" if tok == "<<" else "<<")
            continue
        if tok == "<=":
            pre = code[:i]
            pre = pre[pre.rfind(";") + 1:]
            pre = re.sub(r"^.*\bbegin\b", "", pre)
            pre = IF_PREFIX_RE.sub("", pre, count=1)
            mif = re.match(r"^\s*if\s*\(", pre)
            if mif:
                close = match_paren(pre, pre.index("("))
                if close >= 0:
                    pre = pre[close + 1:]
            pre = pre.strip()
            while re.search(r"\[[^\[\]]*\]", pre):
                pre = re.sub(r"\[[^\[\]]*\]", "", pre)
            if LVALUE_RE.match(pre) or pre == "":
                continue  # a nonblocking assignment
        if code[i - 1:i] in ("=", "!", "<", ">") or code[i + len(tok):i + len(tok) + 1] in (">", "<"):
            continue
        repl = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[tok]
        add(i, len(tok), "rel", repl)
    # equality
    for m in re.finditer(r"(?<![=!<>])(==|!=)(?!=)", code):
        add(m.start(), 2, "eq", "!=" if m.group(1) == "==" else "==")
    # logical
    for m in re.finditer(r"&&|\|\|", code):
        add(m.start(), 2, "logic", "||" if m.group(0) == "&&" else "&&")
    for m in re.finditer(r"(?<![&|])([&|])(?![&|=])", code):
        i = m.start()
        prev = code[:i].rstrip()
        if not prev or prev[-1] in "(=,?:{!~&|" or in_br[i]:
            continue  # a reduction operator
        add(i, 1, "logic", "|" if m.group(1) == "&" else "&")
    for m in re.finditer(r"!(?!=)", code):
        add(m.start(), 1, "logic", "")
    # arithmetic (binary + and -, outside [...] and not +: / -:)
    for m in re.finditer(r"(?<![+\-])([+\-])(?![+\-:=])", code):
        i = m.start()
        if in_br[i]:
            continue
        prev = code[:i].rstrip()
        if not prev or not re.search(r"[\w\)\]]$", prev) or re.search(r"\d'[dhbDHB]?$", prev):
            continue
        add(i, 1, "arith", "-" if m.group(1) == "+" else "+")
    # constants
    for m in LIT_RE.finditer(code):
        width, base, digits = int(m.group(1)), m.group(2), m.group(3).replace("_", "")
        try:
            v = int(digits, {"d": 10, "h": 16, "b": 2}[base.lower()])
        except ValueError:
            continue
        if width < 1 or width > 64:
            continue
        top = (1 << width) - 1
        nv = v + 1 if v < top else v - 1
        out.append((line_off + m.start(), len(m.group(0)), "const", m.group(0), lit_text(width, base, nv)))
        if width > 1:
            fv = v ^ (1 << (width - 1))
            out.append((line_off + m.start(), len(m.group(0)), "bit", m.group(0), lit_text(width, base, fv)))
    for m in NUM_RE.finditer(code):
        i = m.start()
        if in_br[i] or code[m.end():m.end() + 1] == "'":
            continue
        if re.search(r"(<<|>>)\s*$", code[:i]):
            continue  # a shift amount: the shift operator's site
        v = int(m.group(1))
        add(i, len(m.group(1)), "const", str(v + 1))
    for m in BITSEL_RE.finditer(code):
        v = int(m.group(1))
        add(m.start(1), len(m.group(1)), "bit", str(v ^ 1))
    # if (c) -> if (!(c))
    for m in re.finditer(r"\bif\s*\(", code):
        open_i = m.end() - 1
        close = match_paren(code, open_i)
        if close < 0:
            continue
        cond = code[open_i + 1:close]
        out.append((line_off + open_i, close - open_i + 1, "if", "(" + cond + ")", "(!(" + cond + "))"))
    return out


def find_sites(files):
    sites = []
    for path in files:
        base = os.path.basename(path)
        if base in SKIP_FILES:
            continue
        text = open(path).read()
        code = blank_comments(text)
        enum_depth = 0
        off = 0
        cond = []  # `ifdef stack: True inside a block only the test build has
        for lineno, line in enumerate(code.split("\n"), 1):
            m = re.match(r"\s*`(ifdef|ifndef|else|elsif|endif)\b\s*(\w*)", line)
            if m:
                d, name = m.group(1), m.group(2)
                if d in ("ifdef", "ifndef"):
                    cond.append((d == "ifdef") == (name in CHECK_DEFINES))
                elif d in ("else", "elsif") and cond:
                    cond[-1] = d == "elsif" and name in CHECK_DEFINES
                elif d == "endif" and cond:
                    cond.pop()
            if any(cond):  # the assertions (`ifdef ABB_ASSERT): checks, not design
                off += len(line) + 1
                continue
            if re.search(r"\btypedef\b", line) or enum_depth:
                enum_depth += line.count("{") - line.count("}")
                if "typedef" in line and "{" not in line:
                    enum_depth = max(enum_depth, 0)
                off += len(line) + 1
                continue
            for (o, length, op, orig, repl) in sites_of_line(line, off):
                if orig == repl:
                    continue
                sites.append({"file": path, "line": lineno, "off": o, "len": length,
                              "op": op, "orig": orig, "repl": repl})
            off += len(line) + 1
    return sites


# --- running one mutant ------------------------------------------------------

def sh(cmd, log, timeout=None, env=None):
    with open(log, "a") as f:
        f.write("$ " + (cmd if isinstance(cmd, str) else " ".join(map(shlex.quote, cmd))) + "\n")
        f.flush()
        try:
            p = subprocess.run(cmd, shell=isinstance(cmd, str), stdout=f, stderr=subprocess.STDOUT,
                               timeout=timeout, env=env)
            return p.returncode
        except subprocess.TimeoutExpired:
            f.write("TIMEOUT after %s s\n" % timeout)
            return "timeout"


def model_digest(obj):
    """Digest of the verilated C++ in obj (file names' content hashes left out):
    equal digests mean the mutant's model is the very same program."""
    h = hashlib.sha256()
    for name in sorted(os.listdir(obj)):
        if name.endswith((".cpp", ".h")) and "__ALL" not in name:
            text = open(os.path.join(obj, name), errors="replace").read()
            h.update(re.sub(r"DepSet_h[0-9a-f]+", "DepSet_h", text).encode())
    return h.hexdigest()


def verilate(site, args, log):
    """The RTL copied into OUT/rtl (with the mutation of site, if any) and
    verilated into OUT/obj; the digest of the model, None if it does not verilate."""
    rtl_dir = os.path.join(args.out, "rtl")
    obj = os.path.join(args.out, "obj")
    shutil.rmtree(rtl_dir, ignore_errors=True)
    shutil.rmtree(obj, ignore_errors=True)
    os.makedirs(rtl_dir)
    files = []
    for path in args.rtl:
        dst = os.path.join(rtl_dir, os.path.basename(path))
        text = open(path).read()
        if site is not None and path == site["file"]:
            o, n = site["off"], site["len"]
            assert text[o:o + n] == site["orig"], (site, text[o:o + n])
            text = text[:o] + site["repl"] + text[o + n:]
        open(dst, "w").write(text)
        files.append(dst)
    inc = ["-Wno-fatal", "-I" + rtl_dir, "-I" + os.path.dirname(os.path.abspath(args.rtl[0]))]
    if sh([args.verilator] + shlex.split(args.vflags) + ["--Mdir", obj] + inc + files, log) != 0:
        return None
    # the untraced model edited as the simulator's own (sim/defer_comb.py):
    # the library's rtl_model.o was compiled against that header, and runs
    # the model's clock edge accordingly
    if args.defer and sh([sys.executable, args.defer, obj, "Vabb_top"], log) != 0:
        return None
    digest = model_digest(obj)
    # the same mutant with tracing compiled in (OUT/obj_tr), so that the
    # library is whole: a check that needs a waveform runs on the mutant
    if args.vflags_tr:
        obj_tr = obj + "_tr"
        shutil.rmtree(obj_tr, ignore_errors=True)
        if sh([args.verilator] + shlex.split(args.vflags_tr) + ["--Mdir", obj_tr] + inc + files, log) != 0:
            return None
    return digest


def build_mutant(args, log):
    """Compile the verilated mutant (OUT/obj) and link OUT/libabbsim.so."""
    obj = os.path.join(args.out, "obj")
    if sh(["make", "-s", "-C", obj, "-f", "Vabb_top.mk"] + shlex.split(args.vopt) + ["Vabb_top__ALL.a"], log) != 0:
        return False
    models = [os.path.join(obj, "Vabb_top__ALL.a")]
    if args.vflags_tr:
        obj_tr = obj + "_tr"
        if sh(["make", "-s", "-C", obj_tr, "-f", "Vabb_top_tr.mk"] + shlex.split(args.vopt) +
              ["Vabb_top_tr__ALL.a"], log) != 0:
            return False
        models.append(os.path.join(obj_tr, "Vabb_top_tr__ALL.a"))
    lib = os.path.join(args.out, "libabbsim.so")
    link = [args.cxx, "-shared", "-o", lib, "-Wl,--no-undefined", "-Wl,-soname,libabbsim.so"] + \
        shlex.split(args.sim_objs) + models + \
        [a for a in shlex.split(args.sim_libs) if a.endswith(".a")] + [args.vlib] + \
        [a for a in shlex.split(args.sim_libs) if not a.endswith(".a")] + ["-lz", "-pthread"]
    return sh(link, log) == 0


# CUnit's verbose lines: "  Test: name ...", a failed test's "FAILED" and its
# numbered assertion failures "    1. file:line  - expression"
TEST_RE = re.compile(r"^\s*Test: (\S+) \.\.\.")
DETAIL_RE = re.compile(r"^\s+\d+\. \S+:\d+\s+- ")
# a failing RTL assertion (abb_assert.svh: $fatal with the message; Verilator
# prints "%Fatal: file.sv:N: Assertion failed in HIER: message")
ASSERT_RE = re.compile(r"%(?:Fatal|Error): ([\w./-]+\.sv:\d+): (?:Assertion failed in \S+: )?(.*)")
# the bench's own evidence worth quoting with the verdict
EVIDENCE_RE = re.compile(r"scoreboard MISMATCH|golden vector|vectors?-new|diff -u|RTL model fatal|"
                         r"mismatch|differs|expected|replay:")


def run_stream(cmd, log, timeout, env):
    """Run one check, stop it at its first failed test. Returns (status, evidence):
    status 0 passed, 'fail', 'timeout' or the exit code; evidence the lines that
    tell why (the failed test, its messages, an RTL assertion). The failed
    test's whole output is left in run_stream.last_output."""
    with open(log, "a") as f:
        f.write("$ " + " ".join(map(shlex.quote, cmd)) + "\n")
        f.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             text=True, errors="replace", start_new_session=True)
        deadline = time.time() + timeout
        test, recent, recent_all, evidence, failed = None, [], [], [], False
        run_stream.last_output = []

        def stop():
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            for line in p.stdout:
                f.write(line)
                m = TEST_RE.match(line)
                if m and not failed:
                    test, recent, recent_all = m.group(1), [], []
                    rest = line[m.end():].strip()  # output right after "...": e.g. an assertion
                    if ASSERT_RE.search(rest):
                        recent.append(rest)
                    if not line.rstrip().endswith("FAILED"):
                        continue  # else "  Test: name ...FAILED": failed without output
                if len(recent_all) < 400:
                    recent_all.append(line.rstrip())
                if failed:
                    run_stream.last_output.append(line.rstrip())
                    if DETAIL_RE.match(line):
                        evidence.append(line.strip())
                        continue
                    stop()  # the first failed test is enough: the mutant is killed
                    break
                if re.search(r"(^|\.\.\.)FAILED\s*$", line) and not line.startswith("abb_tests"):
                    failed = True
                    run_stream.last_output = [r for r in recent_all]
                    evidence = ["test " + (test or "?")] + \
                        [r for r in recent if EVIDENCE_RE.search(r) or ASSERT_RE.search(r)][:3]
                    continue
                if ASSERT_RE.search(line) and not any(ASSERT_RE.search(r) for r in recent):
                    recent.append(line.strip())
                elif len(recent) < 40:
                    recent.append(line.strip())
        finally:
            timer.cancel()
            p.stdout.close()
            rc = p.wait()
        if time.time() >= deadline and not failed:
            f.write("TIMEOUT after %s s\n" % timeout)
            return "timeout", ["no result within %d s" % timeout]
        if failed:
            f.write("mutate: stopped at the first failed test\n")
            return "fail", evidence
        if rc != 0:
            return rc, [r for r in recent if EVIDENCE_RE.search(r) or ASSERT_RE.search(r)][:3] or \
                ["exit status %s" % rc]
        return 0, []


def run_checks(args, log):
    """(check, evidence) of the first failing check, (None, []) when every check passed.
    check is "SUITE" (or "SUITE (timeout)"), with " [assertion FILE:LINE]" when an RTL
    assertion fired (the assertion is then what told the mutant apart)."""
    env = dict(os.environ)
    env["ABB_SIM_LIB"] = os.path.abspath(os.path.join(args.out, "libabbsim.so"))
    env.pop("ABB_DEVICE", None)
    # a mutant that never completes a transfer fails the wait after 100 ms of
    # device time (the bench passes with it) instead of the default 10 s
    env["ABB_WAIT_LIMIT_MS"] = str(args.wait_limit_ms)
    for suite in args.suites.split():
        if suite == "regress":
            if args.regress_n <= 0:
                continue
            cmd = [args.regress, "N=%d" % args.regress_n, "SEED=%d" % args.seed]
        else:
            cmd = [args.tests, suite]
        t = time.time()
        rc, ev = run_stream(cmd, log, args.timeout, env)
        with open(log, "a") as f:
            f.write("mutate: %s %s in %.1f s\n" % (suite, "passed" if rc == 0 else "FAILED", time.time() - t))
        if rc != 0:
            name = suite + (" (timeout)" if rc == "timeout" else "")
            for e in ev:
                m = ASSERT_RE.search(e)
                if m:
                    name += " [assertion %s]" % os.path.basename(m.group(1))
                    break
            return name, ev
    return None, []


# --- the demonstration: one broken line per checker -----------------------

# Three fixed mutations (`make mutate-demo`), each meant to be caught by one
# checker of the bench: (file, original text, broken text, what it breaks,
# the checker that must catch it). The scoreboard one touches no TLP the
# vectors record; the vector one changes no data, register or assertion.
DEMOS = [
    ("scoreboard", "abb_regs.sv",
     "f_rd_d = f_rd_q + 1'b1;", "f_rd_d = f_rd_q + 1'b0;",
     "a read of RXF_DATA no longer pops the RX FIFO (register side effect)"),
    ("assertion", "abb_c2h_mover.sv",
     "chunk_dw(mps_dw_i, ha_q[11:2], rem_q)", "chunk_dw(mps_dw_i, 10'd0, rem_q)",
     "the upstream mover forgets the host address's 4 KiB boundary"),
    ("vectors", "abb_h2c_mover.sv",
     "lowest_set = v & (~v + NumTags'(1));",
     "lowest_set = '0; for (int t = 0; t < NumTags; t++) if (v[t]) lowest_set = NumTags'(1) << t;",
     "read requests take the highest free tag instead of the lowest (data unchanged)"),
]


def demo_evidence(lines, limit=4):
    """The lines of a failed test's output that show why, at most limit."""
    keep = []
    for line in lines:
        t = line.strip()
        if ASSERT_RE.search(t) or "scoreboard MISMATCH" in t or "differs from" in t or \
                DETAIL_RE.match(line) or \
                (re.match(r"^[-+]\s*\d+ ", t) and not t.startswith(("---", "+++"))):
            keep.append(t)
    return keep[:limit]


def run_demo(args):
    """Build each DEMOS mutant, run the golden vectors and the scoreboard on it,
    and tell which checker caught it: the vectors or the scoreboard (a failed
    test without an RTL assertion in its output) or an RTL assertion (its
    message in the output of either). Exit status 1 unless each mutant was
    caught by the checker it is meant for."""
    os.makedirs(args.out, exist_ok=True)
    logdir = os.path.join(args.out, "logs")
    os.makedirs(logdir, exist_ok=True)
    env = dict(os.environ)
    env["ABB_SIM_LIB"] = os.path.abspath(os.path.join(args.out, "libabbsim.so"))
    env.pop("ABB_DEVICE", None)
    env["ABB_WAIT_LIMIT_MS"] = str(args.wait_limit_ms)
    by_name = {os.path.basename(p): p for p in args.rtl}
    ok_all = True
    for want, base, orig, repl, what in DEMOS:
        path = by_name[base]
        text = open(path).read()
        if text.count(orig) != 1:
            print("mutate-demo: %s: '%s' is not in %s exactly once (the RTL moved: update DEMOS)"
                  % (want, orig, base), file=sys.stderr)
            return 2
        off = text.index(orig)
        site = {"file": path, "line": text.count("\n", 0, off) + 1, "off": off, "len": len(orig),
                "op": "demo", "orig": orig, "repl": repl}
        log = os.path.join(logdir, "demo-%s.log" % want)
        open(log, "w").write("demo %s: %s:%d '%s' -> '%s'\n" % (want, base, site["line"], orig, repl))
        print("mutate-demo: [%s] %s:%d: %s\n    '%s' -> '%s'" % (want, base, site["line"], what, orig, repl),
              flush=True)
        if verilate(site, args, log) is None or not build_mutant(args, log):
            print("mutate-demo: the %s mutant does not build (%s)" % (want, log), file=sys.stderr)
            return 2
        caught = {}
        asserted = []
        for check in ("vectors", "scoreboard"):
            rc, ev = run_stream([args.tests, check], log, args.timeout, env)
            out = run_stream.last_output
            if rc == 0:
                print("    %-10s passed" % check)
                continue
            asserts = [line.strip() for line in out if ASSERT_RE.search(line)]
            test = ev[0] if ev else "exit status %s" % rc
            if asserts:
                asserted.append((check, test, asserts[0]))
                print("    %-10s FAILED (%s), stopped by an RTL assertion" % (check, test))
            else:
                caught[check] = True
                print("    %-10s CAUGHT it: %s" % (check, test))
                for e in demo_evidence(out):
                    print("        " + e[:150])
        if asserted:
            caught["assertion"] = True
            check, test, line = asserted[0]
            print("    %-10s CAUGHT it (in %s, %s):\n        %s" % ("assertion", check, test, line[:200]))
        else:
            print("    %-10s none fired" % "assertion")
        ok = caught.get(want, False)
        ok_all = ok_all and ok
        print("mutate-demo: [%s] %s\n" % (want, "caught by the %s, as meant" % want if ok else
                                           "NOT caught by the %s" % want), flush=True)
    print("mutate-demo: %s" % ("each checker caught its broken line" if ok_all else "FAILED"))
    return 0 if ok_all else 1


def describe(idx, s):
    return "m%03d %s:%d %s '%s' -> '%s'" % (idx, os.path.basename(s["file"]), s["line"], s["op"],
                                           s["orig"], s["repl"])


def main():
    ap = argparse.ArgumentParser(description="seeded RTL mutants through the bench")
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated mutant numbers of this N/SEED draw")
    ap.add_argument("--list", action="store_true", help="print the drawn mutants, run nothing")
    ap.add_argument("--only-mutants", action="store_true",
                    help="leave out the reference run (the unmutated RTL through the checks)")
    ap.add_argument("--out", default="build/mutate")
    ap.add_argument("--verilator", default="verilator")
    ap.add_argument("--vflags", default=os.environ.get("MUT_VFLAGS", ""))
    # the flags of the traced model (class Vabb_top_tr); empty: a library
    # without waveforms (then --sim-objs must not hold rtl_model_traced.o)
    ap.add_argument("--vflags-tr", default=os.environ.get("MUT_VFLAGS_TR", ""))
    ap.add_argument("--vopt", default=os.environ.get("MUT_VOPT", ""))
    ap.add_argument("--defer", default=os.environ.get("MUT_DEFER", ""),
                    help="sim/defer_comb.py when the simulator's untraced model is edited by it")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--sim-objs", default=os.environ.get("MUT_SIM_OBJS", ""))
    ap.add_argument("--vlib", default="build/sim/obj_dir_tr/libverilated_pic.a")
    ap.add_argument("--sim-libs", default=os.environ.get("MUT_SIM_LIBS", "-lsystemc"))
    ap.add_argument("--tests", default="build/abb_tests")
    ap.add_argument("--regress", default="build/abb_regress")
    ap.add_argument("--suites", default="vectors scoreboard regs intx cfgspace determinism link bad_input "
                    "tlp_rules regress blocking dma_integrity faults rx dma_ctl",
                    help="checks in order: suites of --tests, 'regress' for --regress")
    ap.add_argument("--regress-n", type=int, default=300)
    ap.add_argument("--timeout", type=int, default=60, help="wall seconds per check")
    ap.add_argument("--wait-limit-ms", type=int, default=100, help="ABB_WAIT_LIMIT_MS of the checks")
    ap.add_argument("--demo", action="store_true",
                    help="the three fixed broken lines (DEMOS), one per checker")
    ap.add_argument("--demo-check", action="store_true",
                    help="only check that each DEMOS line is in its RTL file exactly once (no build)")
    ap.add_argument("rtl", nargs="+")
    args = ap.parse_args()
    if args.demo_check:
        by_name = {os.path.basename(p): p for p in args.rtl}
        bad = 0
        for want, base, orig, _repl, _what in DEMOS:
            n = open(by_name[base]).read().count(orig) if base in by_name else 0
            if n != 1:
                print("mutate-demo-check: %s: '%s' is in %s %d times, not once (the RTL moved: "
                      "update DEMOS in testbench/mutate.py)" % (want, orig, base, n), file=sys.stderr)
                bad = 1
        if not bad:
            print("mutate-demo-check: the %d demo lines are in the RTL" % len(DEMOS))
        return bad
    if args.demo:
        if not args.vflags or not args.sim_objs:
            print("mutate: MUT_VFLAGS and MUT_SIM_OBJS must be set (run through `make mutate-demo`)",
                  file=sys.stderr)
            return 2
        return run_demo(args)

    sites = find_sites(args.rtl)
    rng = random.Random(args.seed)
    n = min(args.n, len(sites))
    drawn = rng.sample(range(len(sites)), n)
    mutants = [(i + 1, sites[k]) for i, k in enumerate(drawn)]
    if args.only:
        want = {int(x) for x in args.only.split(",") if x.strip()}
        mutants = [m for m in mutants if m[0] in want]
    print("mutate: %d sites in %d files; %d drawn with SEED=%d" %
          (len(sites), len(args.rtl) - len(SKIP_FILES), n, args.seed), flush=True)
    if args.list:
        for idx, s in mutants:
            print(describe(idx, s))
        return 0
    if not args.vflags or not args.sim_objs:
        print("mutate: MUT_VFLAGS and MUT_SIM_OBJS must be set (run through `make mutate`)", file=sys.stderr)
        return 2

    os.makedirs(args.out, exist_ok=True)
    logdir = os.path.join(args.out, "logs")
    os.makedirs(logdir, exist_ok=True)
    # the unmutated model's digest: a mutant whose verilated model is the same
    # program is equivalent by construction (nothing to run)
    ref = verilate(None, args, os.path.join(logdir, "reference.log"))
    if ref is None:
        print("mutate: the unmutated RTL does not verilate (%s/reference.log)" % logdir, file=sys.stderr)
        return 2
    # the unmutated RTL built as a mutant is and through the same checks:
    # any check failing on it would count as a kill of every mutant
    if not args.only_mutants:  # (--list returned above)
        log = os.path.join(logdir, "reference.log")
        t = time.time()
        if not build_mutant(args, log):
            print("mutate: the unmutated RTL does not build as a mutant (%s)" % log, file=sys.stderr)
            return 2
        by, ev = run_checks(args, log)
        if by:
            print("mutate: the unmutated RTL, built as a mutant, fails %s (%s): the run would "
                  "count that as kills; fix the set-up first" % (by, log), file=sys.stderr)
            for e in ev[:3]:
                print("    " + e[:200], file=sys.stderr)
            return 2
        print("mutate: the unmutated RTL built as a mutant passes every check (%.0f s)"
              % (time.time() - t), flush=True)
    killed, survived, stillborn, same = [], [], [], []
    t0 = time.time()
    for idx, s in mutants:
        log = os.path.join(logdir, "m%03d.log" % idx)
        open(log, "w").write(describe(idx, s) + "\n")
        t = time.time()
        digest = verilate(s, args, log)
        ev = []
        if digest is None or (digest != ref and not build_mutant(args, log)):
            stillborn.append((idx, s))
            verdict = "stillborn (does not build)"
            tb = time.time()
        elif digest == ref:
            same.append((idx, s))
            verdict = "equivalent (the verilated model is identical to the unmutated one)"
            tb = time.time()
        else:
            tb = time.time()
            by, ev = run_checks(args, log)
            if by:
                killed.append((idx, s, by, ev))
                verdict = "killed by " + by
            else:
                survived.append((idx, s))
                verdict = "SURVIVED"
        print("%s: %s (build %.0f s, checks %.0f s)" % (describe(idx, s), verdict, tb - t, time.time() - tb),
              flush=True)
        for e in ev[:3]:
            print("    " + e[:200], flush=True)

    lines = []
    live = len(killed) + len(survived) + len(same)
    rate = 100.0 * len(killed) / live if live else 0.0
    lines.append("mutate: SEED=%d N=%d: killed %d of %d mutants (%.1f %%), %d survived, "
                 "%d identical models, %d stillborn, %.0f s"
                 % (args.seed, n, len(killed), live, rate, len(survived), len(same), len(stillborn),
                    time.time() - t0))
    by_check = {}
    for _, _, by, _ in killed:
        key = re.sub(r" \[assertion [^\]]*\]", " [assertion]", by)
        by_check[key] = by_check.get(key, 0) + 1
    lines.append("mutate: first killing check: " +
                 ", ".join("%s %d" % kv for kv in sorted(by_check.items(), key=lambda kv: -kv[1])))
    for idx, s, by, ev in killed:
        lines.append("killed %s by %s: %s" % (describe(idx, s), by, " | ".join(e[:160] for e in ev[:2])))
    for idx, s in same:
        lines.append("identical %s" % describe(idx, s))
    for idx, s in survived:
        src = open(s["file"]).read().split("\n")[s["line"] - 1].strip()
        lines.append("survivor %s\n    %s" % (describe(idx, s), src))
    for idx, s in stillborn:
        lines.append("stillborn %s" % describe(idx, s))
    text = "\n".join(lines)
    print(text)
    open(os.path.join(args.out, "report.txt"), "w").write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
