#!/usr/bin/env python3
"""covreport.py - what lcov does not do for `make coverage` (testbench/coverage.mk).

The report users browse is lcov's: genhtml's HTML of the RTL (from
`verilator_coverage --write-info`) and of libabb (gcov data captured by
lcov). This script does the two jobs around it that no tool does here:

    covreport.py split --dat COV/coverage.dat --out-dir COV
        writes the inputs of `verilator_coverage --write-info`:
        COV/rtl-line.dat    the line and branch points (v_line, v_branch) of
                            the RTL files, without the checkers' own file
        COV/functional.dat  the functional points (v_user: the `cover
                            property` lines of rtl-model/abb_cover.sv,
                            one line each)
        In both the instance is dropped (its name and the parameter suffix
        of its module), so verilator_coverage sums a point over the
        instances of its module: a point is covered when any instance hit
        it (--write-info would otherwise list one branch per instance on
        every line of abb_dma_ctl, one module for the two channels).

    covreport.py summary --dat COV/coverage.dat --info-dir COV [--out COV/coverage.txt]
        prints the figures CI reads, taken from `lcov --summary` of
        COV/rtl.info, functional.info and libabb.info, and the toggle
        figure (lcov has no toggle coverage: Verilator's toggle points,
        counted from coverage.dat, a bit's point covered when any instance
        toggled it); the RTL branch figure from lcov when the tracefile has
        branch records, else (Verilator 5.006 writes none) from Verilator's
        if/else points in coverage.dat; checks the targets RTL line >= 95 %, every functional
        point hit, libabb line >= 90 % (PASS/MISS: the figures are reported,
        not enforced). --out gets the same plus lcov's per-file table
        (lcov --list of COV/coverage.info) and what is not covered as text
        (uncovered lines and functional points from the tracefiles,
        untoggled signals per file) for grep; the HTML shows the same.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

RTL_LINE_TARGET = 95.0
LIBABB_LINE_TARGET = 90.0


def read_points(path):
    """[(key text, fields dict, count)] of a Verilator coverage file."""
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
            points.append((m.group(1), fields, int(m.group(2))))
    return points


def merged_key(key):
    """A point's key without its instance: the field h dropped, the page's
    module name without Verilator's parameter suffix (abb_dma_ctl__Fz2_C40000:
    the two channels are two parameterisations of one module)."""
    parts = []
    for p in key.split("\x01"):
        if p.startswith("h\x02"):
            continue
        if p.startswith("page\x02"):
            p = re.sub(r"__[^/]*$", "", p)
        parts.append(p)
    return "\x01".join(parts)


def kind(fields):
    return fields.get("page", "").split("/")[0]


def split(args):
    outs = {"rtl-line.dat": [], "functional.dat": []}
    for key, fields, count in read_points(args.dat):
        k = kind(fields)
        if k == "v_user":
            # one line per point: a property written over two lines is
            # still one point (its S field would make it two lines)
            key = "\x01".join(p for p in key.split("\x01") if not p.startswith("S\x02"))
            outs["functional.dat"].append((key, count))
        elif k in ("v_line", "v_branch") and os.path.basename(fields.get("f", "")) != args.cover_file:
            outs["rtl-line.dat"].append((key, count))
    for name, pts in outs.items():
        with open(os.path.join(args.out_dir, name), "w", encoding="latin-1") as f:
            f.write("# SystemC::Coverage-3\n")
            for key, count in pts:
                f.write("C '%s' %d\n" % (merged_key(key), count))
    return 0


def lcov_summary(info):
    """{'lines': (hit, total), 'branches': (hit, total)} from `lcov --summary`."""
    out = subprocess.run(["lcov", "--summary", info, "--rc", "lcov_branch_coverage=1"],
                         capture_output=True, text=True, check=True)
    fig = {}
    for ln in (out.stdout + out.stderr).splitlines():
        m = re.match(r"^\s*(lines|branches)\.*: [\d.]+% \((\d+) of (\d+)", ln)
        if m:
            fig[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    fig.setdefault("lines", (0, 0))
    fig.setdefault("branches", (0, 0))
    return fig


def uncovered(info):
    """[(source file, line)] of the DA records with count 0 in a tracefile."""
    miss, sf = [], None
    with open(info) as f:
        for ln in f:
            if ln.startswith("SF:"):
                sf = ln[3:].strip()
            elif ln.startswith("DA:"):
                no, cnt = ln[3:].split(",")[:2]
                if int(cnt) == 0:
                    miss.append((sf, int(no)))
    return miss


def by_file(misses):
    """[(source file, [line])] of [(source file, line)], files in order."""
    files = collections.defaultdict(list)
    for sf, no in misses:
        files[sf].append(no)
    return sorted(files.items())


def ranges(nos):
    """'3-5, 9' of [3, 4, 5, 9]."""
    out, nos = [], sorted(set(nos))
    i = 0
    while i < len(nos):
        j = i
        while j + 1 < len(nos) and nos[j + 1] == nos[j] + 1:
            j += 1
        out.append(str(nos[i]) if i == j else "%d-%d" % (nos[i], nos[j]))
        i = j + 1
    return ", ".join(out)


def source_line(path, no):
    try:
        with open(path, encoding="latin-1") as f:
            for i, ln in enumerate(f, 1):
                if i == no:
                    return ln.strip()
    except OSError:
        pass
    return ""


def pct(hit, total):
    return 100.0 * hit / total if total else 100.0


def frac(hit_total):
    return "%d/%d %5.1f %%" % (hit_total[0], hit_total[1], pct(*hit_total))


def summary(args):
    info = {n: os.path.join(args.info_dir, n + ".info") for n in ("rtl", "functional", "libabb")}
    fig = {n: lcov_summary(p) for n, p in info.items()}

    togg = collections.defaultdict(dict)    # file -> (signal bit, line) -> count (max over instances)
    branch = {}                             # (file, line, column, if/else) -> count (max over instances)
    for key, fields, count in read_points(args.dat):
        fname = os.path.basename(fields.get("f", "?"))
        if fname == args.cover_file:
            continue
        if kind(fields) == "v_toggle":
            k = (fields.get("o", ""), fields.get("l", ""))
            togg[fname][k] = max(togg[fname].get(k, 0), count)
        elif kind(fields) == "v_branch":
            k = (fname, fields.get("l", ""), fields.get("n", ""), fields.get("o", ""))
            branch[k] = max(branch.get(k, 0), count)
    t_hit = sum(1 for f in togg for c in togg[f].values() if c > 0)
    t_tot = sum(len(togg[f]) for f in togg)
    b_fig = (sum(1 for c in branch.values() if c > 0), len(branch))

    rtl_line = pct(*fig["rtl"]["lines"])
    lib_line = pct(*fig["libabb"]["lines"])
    u_hit, u_tot = fig["functional"]["lines"]
    out = []
    w = out.append
    w("Coverage (lcov --summary of %s/{rtl,functional,libabb}.info; HTML: %s)"
      % (args.info_dir, os.path.join(args.info_dir, "html", "index.html")))
    rtl_br = fig["rtl"]["branches"]
    if rtl_br[1]:
        w("  RTL line:          %-22s branch %s" % (frac(fig["rtl"]["lines"]), frac(rtl_br)))
    else:
        # Verilator 5.006's --write-info has no BRDA records: its if/else points instead
        w("  RTL line:          %-22s branch %s (if/else points, coverage.dat)"
          % (frac(fig["rtl"]["lines"]), frac(b_fig)))
    w("  RTL toggle:        %s (coverage.dat; lcov has no toggle coverage)" % frac((t_hit, t_tot)))
    w("  functional points: %d/%d hit (rtl-model/%s)" % (u_hit, u_tot, args.cover_file))
    w("  libabb line:       %-22s branch %s" % (frac(fig["libabb"]["lines"]), frac(fig["libabb"]["branches"])))
    w("Targets")
    w("  RTL line >= %g %%:          %5.1f %%  %s" % (RTL_LINE_TARGET, rtl_line,
                                                   "PASS" if rtl_line >= RTL_LINE_TARGET else "MISS"))
    w("  functional points all hit: %d/%d  %s" % (u_hit, u_tot, "PASS" if u_hit == u_tot else "MISS"))
    w("  libabb line >= %g %%:       %5.1f %%  %s" % (LIBABB_LINE_TARGET, lib_line,
                                                   "PASS" if lib_line >= LIBABB_LINE_TARGET else "MISS"))
    print("\n".join(out))
    if not args.out:
        return 0

    w("")
    w("Per file (lcov --list of coverage.info)")
    both = os.path.join(args.info_dir, "coverage.info")
    if os.path.exists(both):
        lst = subprocess.run(["lcov", "--list", both, "--rc", "lcov_branch_coverage=1"],
                             capture_output=True, text=True, check=True).stdout
        out.extend(ln for ln in lst.splitlines() if not ln.startswith("Reading"))
    w("")
    w("RTL toggle per file (bits and directions as Verilator counts them)")
    for fname in sorted(togg):
        th = sum(1 for c in togg[fname].values() if c > 0)
        w("  %-22s %s" % (fname, frac((th, len(togg[fname])))))
    w("")
    w("Not covered (the HTML report shows each in its source)")
    for sf, no in uncovered(info["functional"]):
        w("  functional %s:%d %s" % (os.path.basename(sf), no, source_line(sf, no).split(":")[0]))
    for sf, nos in by_file(uncovered(info["rtl"])):
        w("  line %s: %s" % (os.path.relpath(sf), ranges(nos)))
    for fname in sorted(togg):
        sigs = collections.defaultdict(int)
        for (sig, ln), c in togg[fname].items():
            if c == 0:
                sigs[re.sub(r"\[.*$|:.*$", "", sig)] += 1
        if sigs:
            w("  toggle %s: %s" % (fname, ", ".join("%s(%d)" % kv for kv in sorted(sigs.items()))))
    for sf, nos in by_file(uncovered(info["libabb"])):
        w("  libabb %s: lines %s" % (os.path.relpath(sf), ranges(nos)))
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print("Not covered: listed in %s and %s" % (args.out, os.path.join(args.info_dir, "html", "index.html")))
    return 0


def main():
    ap = argparse.ArgumentParser(description="the coverage data around lcov for `make coverage`")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("split", help="Verilator's points by kind, instances merged, for --write-info")
    sp.add_argument("--dat", required=True)
    sp.add_argument("--out-dir", required=True)
    sp.add_argument("--cover-file", default="abb_cover.sv")
    sm = sub.add_parser("summary", help="the figures from lcov --summary, toggle, targets")
    sm.add_argument("--dat", required=True)
    sm.add_argument("--info-dir", required=True)
    sm.add_argument("--out")
    sm.add_argument("--cover-file", default="abb_cover.sv")
    args = ap.parse_args()
    return split(args) if args.cmd == "split" else summary(args)


if __name__ == "__main__":
    sys.exit(main())
