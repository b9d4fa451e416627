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
        verilator_coverage --write-info (5.006) writes one DA record per
        line, its count the smallest over the line's columns of the counts
        summed over the instances: a line is covered when each of its points
        was hit by some instance (the two channels of abb_dma_ctl, two
        parameterisations of one module, count as one).

    covreport.py summary --dat COV/coverage.dat --info-dir COV [--out COV/coverage.txt]
        prints the figures CI reads, taken from `lcov --summary` of
        COV/rtl.info, functional.info and libabb.info, and the toggle
        figure (lcov has no toggle coverage: Verilator's toggle points,
        counted from coverage.dat, a bit's point covered when any instance
        toggled it); the RTL branch figure from lcov when the tracefile has
        branch records, else (Verilator 5.006 writes none) from Verilator's
        if/else points in coverage.dat; checks the targets RTL line >= 95 %,
        every functional point hit, libabb line >= 90 % (PASS/MISS: the figures are reported,
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
                f.write("C '%s' %d\n" % (key, count))
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


def figures(dat, info_dir, cover_file):
    """The summary's figures: lcov's of the three tracefiles in info_dir, and
    from Verilator's dat the RTL toggle and if/else points (hit, total)."""
    info = {n: os.path.join(info_dir, n + ".info") for n in ("rtl", "functional", "libabb")}
    fig = {n: lcov_summary(p) for n, p in info.items()}

    togg = collections.defaultdict(dict)    # file -> (signal bit, line) -> count (max over instances)
    branch = {}                             # (file, line, column, if/else) -> count (max over instances)
    for key, fields, count in read_points(dat):
        fname = os.path.basename(fields.get("f", "?"))
        if fname == cover_file:
            continue
        if kind(fields) == "v_toggle":
            k = (fields.get("o", ""), fields.get("l", ""))
            togg[fname][k] = max(togg[fname].get(k, 0), count)
        elif kind(fields) == "v_branch":
            k = (fname, fields.get("l", ""), fields.get("n", ""), fields.get("o", ""))
            branch[k] = max(branch.get(k, 0), count)
    fig["toggle"] = (sum(1 for f in togg for c in togg[f].values() if c > 0), sum(len(togg[f]) for f in togg))
    fig["if_else"] = (sum(1 for c in branch.values() if c > 0), len(branch))
    return info, fig, togg


def summary(args):
    info, fig, togg = figures(args.dat, args.info_dir, args.cover_file)
    t_hit, t_tot = fig["toggle"]
    b_fig = fig["if_else"]

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


def check(args):
    """The report's own check (`make coverage-check`): a small coverage.dat
    of two instances through split, verilator_coverage --write-info and
    lcov --summary, the figures compared with what they must be."""
    d = os.path.abspath(args.dir)
    os.makedirs(d, exist_ok=True)
    rtl, cov = os.path.join(d, "abb_x.sv"), os.path.join(d, args.cover_file)
    for path in (rtl, cov):
        with open(path, "w") as f:
            f.write("".join("// line %d\n" % i for i in range(1, 41)))

    def point(f, line, col, page, o, hier, count, lines=None):
        keys = [("f", f), ("l", str(line)), ("n", str(col)), ("page", page), ("o", o)]
        keys += [("S", lines)] if lines else []
        keys += [("h", hier)]
        return "C '%s' %d\n" % ("".join("\x01%s\x02%s" % kv for kv in keys), count)

    pts = [
        # a block of lines 10-12, hit by the second instance only (two parameterisations)
        point(rtl, 10, 5, "v_line/abb_x__A1", "block", "top.u0", 0, "10-12"),
        point(rtl, 10, 5, "v_line/abb_x__A2", "block", "top.u1", 7, "10-12"),
        # if (lines 20-21) taken, its else (line 22) never
        point(rtl, 20, 5, "v_branch/abb_x__A1", "if", "top.u0", 3, "20-21"),
        point(rtl, 22, 5, "v_branch/abb_x__A1", "else", "top.u0", 0),
        point(rtl, 22, 5, "v_branch/abb_x__A2", "else", "top.u1", 0),
        point(rtl, 3, 1, "v_toggle/abb_x__A1", "sig[0]", "top.u0", 1),
        point(rtl, 3, 1, "v_toggle/abb_x__A1", "sig[1]", "top.u0", 0),
        # a property over lines 5-6 fired by one instance, one never; the
        # checkers' own line point is not the RTL's
        point(cov, 5, 3, "v_user/abb_x_cov", "prop_a", "top.u0.u_cov", 2, "5-6"),
        point(cov, 5, 3, "v_user/abb_x_cov", "prop_a", "top.u1.u_cov", 0, "5-6"),
        point(cov, 8, 3, "v_user/abb_x_cov", "prop_b", "top.u0.u_cov", 0),
        point(cov, 30, 3, "v_line/abb_x_cov", "block", "top.u0.u_cov", 0, "30-31"),
    ]
    dat = os.path.join(d, "coverage.dat")
    with open(dat, "w", encoding="latin-1") as f:
        f.write("# SystemC::Coverage-3\n" + "".join(pts))
    split(argparse.Namespace(dat=dat, out_dir=d, cover_file=args.cover_file))
    for name, src in (("rtl", "rtl-line"), ("functional", "functional")):
        subprocess.run(["verilator_coverage", "--write-info", os.path.join(d, name + ".info"),
                        os.path.join(d, src + ".dat")], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "libabb.info"), "w") as f:   # lcov's own format, as lcov --capture writes it
        f.write("TN:\nSF:%s\nDA:1,1\nDA:2,0\nBRDA:1,0,0,1\nBRDA:1,0,1,-\nend_of_record\n" % rtl)
    _, fig, _ = figures(dat, d, args.cover_file)
    want = {"rtl": (5, 6), "functional": (1, 2), "libabb": (1, 2), "toggle": (1, 2),
            "if_else": (1, 2), "libabb branches": (1, 2)}
    got = {"rtl": fig["rtl"]["lines"], "functional": fig["functional"]["lines"],
           "libabb": fig["libabb"]["lines"], "toggle": fig["toggle"], "if_else": fig["if_else"],
           "libabb branches": fig["libabb"]["branches"]}
    bad = ["%s %d/%d, expected %d/%d" % (k, got[k][0], got[k][1], want[k][0], want[k][1])
           for k in want if got[k] != want[k]]
    if bad:
        print("coverage-check: FAILED: %s (data in %s)" % ("; ".join(bad), d), file=sys.stderr)
        return 1
    print("coverage-check: the report's figures of a two-instance sample are right (%s)" % d)
    return 0


def main():
    ap = argparse.ArgumentParser(description="the coverage data around lcov for `make coverage`")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("split", help="Verilator's line and functional points for --write-info")
    sp.add_argument("--dat", required=True)
    sp.add_argument("--out-dir", required=True)
    sp.add_argument("--cover-file", default="abb_cover.sv")
    sm = sub.add_parser("summary", help="the figures from lcov --summary, toggle, targets")
    sm.add_argument("--dat", required=True)
    sm.add_argument("--info-dir", required=True)
    sm.add_argument("--out")
    sm.add_argument("--cover-file", default="abb_cover.sv")
    sc = sub.add_parser("check", help="the report's own check on a small sample (make coverage-check)")
    sc.add_argument("--dir", required=True)
    sc.add_argument("--cover-file", default="abb_cover.sv")
    args = ap.parse_args()
    return {"split": split, "summary": summary, "check": check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
