#!/usr/bin/env python3
"""covreport.py - the coverage report of `make coverage` (testbench/coverage.mk).

    testbench/covreport.py --dat build/cov/coverage.dat --rtl-dir rtl-model
                           (--gcovr build/cov/libabb.txt | --gcov FILE) --out build/cov/coverage.txt

Reads Verilator's merged coverage file (points of the pages v_line/...,
v_toggle/..., v_user/...; v_branch/... count as line points) and prints:

- RTL line coverage per file: a line point (block, if, else, case item) is
  covered when any instance of its module executed it; the same for toggle
  points (a signal bit seen 0->1 and 1->0 counts per bit and direction as
  Verilator counts them);
- the functional points (rtl-model/abb_cover.sv, `cover property`), per
  module (Verilator merges the two channels' instances of abb_dma_ctl into
  one set of points: a point counts when either channel hit it);
- libabb (host/lib, host/daq) line coverage per file from gcovr's table (or
  plain gcov's summaries);
- what is not covered: every RTL line point with count 0 (file:line and
  kind), every functional point not hit, signals with untoggled bits, and
  libabb's missed lines (gcovr's Missing column);
- the targets: RTL line >= 95 %, every functional point, libabb line >= 90 %.
"""
import argparse
import collections
import os
import re
import sys


def parse_dat(path):
    """[(fields dict, count)] of a Verilator coverage file."""
    points = []
    rx = re.compile(r"^C '(.*)' (\d+)$")
    with open(path, encoding="latin-1") as f:
        for line in f:
            m = rx.match(line.rstrip("\n"))
            if not m:
                continue
            fields = {}
            for part in m.group(1).split("\x01"):
                if "\x02" in part:
                    k, v = part.split("\x02", 1)
                    fields[k] = v
            points.append((fields, int(m.group(2))))
    return points


def pct(hit, total):
    return 100.0 * hit / total if total else 100.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dat", required=True)
    ap.add_argument("--rtl-dir", default="rtl-model")
    ap.add_argument("--gcovr")
    ap.add_argument("--gcov")
    ap.add_argument("--out")
    ap.add_argument("--cover-file", default="abb_cover.sv")
    args = ap.parse_args()

    points = parse_dat(args.dat)
    line = collections.defaultdict(dict)    # file -> (line, col, kind) -> count (max over instances)
    togg = collections.defaultdict(dict)    # file -> (signal, bit/dir text) -> count
    user = []                               # (hier, name, count, file, line)
    for fields, count in points:
        page = fields.get("page", "")
        fname = os.path.basename(fields.get("f", "?"))
        kind = page.split("/")[0]
        if kind == "v_user":
            user.append((fields.get("h", "?"), fields.get("o", "?"), count, fname, fields.get("l", "?")))
            continue
        if fname == args.cover_file:
            continue  # the checkers' own code is not the RTL
        if kind in ("v_line", "v_branch"):
            key = (int(fields.get("l", 0)), fields.get("n", ""), fields.get("o", ""))
            line[fname][key] = max(line[fname].get(key, 0), count)
        elif kind == "v_toggle":
            key = (fields.get("o", ""), fields.get("l", ""))
            togg[fname][key] = max(togg[fname].get(key, 0), count)

    out = []
    w = out.append
    w("RTL coverage (Verilator: %s)" % args.dat)
    w("%-22s %14s %8s %16s %8s" % ("file", "line hit/total", "line %", "toggle hit/total", "toggle %"))
    tl_hit = tl_tot = tt_hit = tt_tot = 0
    for fname in sorted(set(line) | set(togg)):
        lh = sum(1 for c in line[fname].values() if c > 0)
        lt = len(line[fname])
        th = sum(1 for c in togg[fname].values() if c > 0)
        tt = len(togg[fname])
        tl_hit += lh
        tl_tot += lt
        tt_hit += th
        tt_tot += tt
        w("%-22s %14s %7.1f%% %16s %7.1f%%" % (fname, "%d/%d" % (lh, lt), pct(lh, lt), "%d/%d" % (th, tt), pct(th, tt)))
    rtl_line = pct(tl_hit, tl_tot)
    w("%-22s %14s %7.1f%% %16s %7.1f%%" % ("RTL total", "%d/%d" % (tl_hit, tl_tot), rtl_line,
                                          "%d/%d" % (tt_hit, tt_tot), pct(tt_hit, tt_tot)))
    w("")

    # functional points per module checker
    by_mod = collections.defaultdict(list)
    for hier, name, count, fname, ln in user:
        by_mod[hier.rsplit(".u_cov", 1)[0]].append((name, count))
    u_hit = sum(1 for p in user if p[2] > 0)
    w("Functional points (rtl-model/%s): %d/%d hit" % (args.cover_file, u_hit, len(user)))
    for inst in sorted(by_mod):
        pts = by_mod[inst]
        w("  %-28s %3d/%-3d %s" % (inst, sum(1 for _, c in pts if c > 0), len(pts),
                                  " ".join("%s=%d" % (n.split(".")[-1], c) for n, c in sorted(pts))))
    w("")

    # libabb
    lib_rows, lib_total, lib_missing = [], None, {}
    if args.gcovr and os.path.exists(args.gcovr):
        for ln in open(args.gcovr):
            m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)%\s*(.*)$", ln.rstrip())
            if m and m.group(1) != "TOTAL":
                lib_rows.append((m.group(1), int(m.group(3)), int(m.group(2))))
                lib_missing[m.group(1)] = m.group(5)
            elif m:
                lib_total = (int(m.group(3)), int(m.group(2)))
    elif args.gcov and os.path.exists(args.gcov):
        cur = None
        for ln in open(args.gcov):
            m = re.match(r"^File '(.*)'", ln)
            if m:
                cur = m.group(1)
            m = re.match(r"^Lines executed:([\d.]+)% of (\d+)", ln)
            if m and cur and ("host/lib/" in cur or "host/daq/" in cur):
                tot = int(m.group(2))
                lib_rows.append((cur, round(float(m.group(1)) * tot / 100), tot))
                cur = None
    if lib_rows:
        if lib_total is None:
            lib_total = (sum(r[1] for r in lib_rows), sum(r[2] for r in lib_rows))
        w("libabb line coverage (gcov%s)" % ("r" if args.gcovr else ""))
        w("%-34s %14s %8s" % ("file", "lines hit/total", "line %"))
        for f, h, t in sorted(lib_rows):
            w("%-34s %14s %7.1f%%" % (f, "%d/%d" % (h, t), pct(h, t)))
        lib_line = pct(*lib_total)
        w("%-34s %14s %7.1f%%" % ("libabb total", "%d/%d" % lib_total, lib_line))
    else:
        lib_line = None
        w("libabb line coverage: no gcov data")
    w("")

    w("Targets")
    w("  RTL line >= 95 %%:          %5.1f %%  %s" % (rtl_line, "PASS" if rtl_line >= 95.0 else "MISS"))
    w("  functional points all hit: %d/%d  %s" % (u_hit, len(user), "PASS" if u_hit == len(user) else "MISS"))
    if lib_line is not None:
        w("  libabb line >= 90 %%:       %5.1f %%  %s" % (lib_line, "PASS" if lib_line >= 90.0 else "MISS"))
    w("")

    w("Not covered")
    for hier, name, count, fname, ln in sorted(user):
        if count == 0:
            w("  functional %s.%s (%s:%s)" % (hier.rsplit(".u_cov", 1)[0], name.split(".")[-1], fname, ln))
    for fname in sorted(line):
        for (ln, col, kind), c in sorted(line[fname].items()):
            if c == 0:
                w("  line %s:%d %s" % (fname, ln, kind))
    for fname in sorted(togg):
        sigs = collections.defaultdict(int)
        for (sig, ln), c in togg[fname].items():
            if c == 0:
                sigs[re.sub(r"\[.*$|:.*$", "", sig)] += 1
        if sigs:
            w("  toggle %s: %s" % (fname, ", ".join("%s(%d)" % kv for kv in sorted(sigs.items()))))
    for f, miss in sorted(lib_missing.items()):
        if miss:
            w("  libabb %s: lines %s" % (f, miss))

    text = "\n".join(out)
    if args.out:
        open(args.out, "w").write(text + "\n")
    # the summary on the terminal, the full lists in the file
    cut = text.index("Not covered")
    print(text[:cut] + "Not covered: %d entries, listed in %s" % (text[cut:].count("\n"), args.out or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
