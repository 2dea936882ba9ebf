#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/plot/tests/host.py - host-side checks of tools/plot/ubplot.

On small made-up inputs (a Chrome trace, link statistics, ubbench's JSON,
laid out as their writers lay them out) each chart is written as PNG and
as SVG and is a valid file of its kind, the same input gives the same
file, the bandwidth is each slice's bytes spread over its time, and bad
input (not JSON, the wrong kind of file, a missing field, a plane not
there) exits 1 with a message, a bad command line 2. The charts are
skipped, not failed, where matplotlib (python3-matplotlib) is missing.
Prints KTAP; exits nonzero if a check failed.

Usage: tools/plot/tests/host.py [UBPLOT]   (default tools/plot/ubplot)
"""

import importlib.machinery
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class Ktap:
    """The results, printed as KTAP at the end."""

    def __init__(self):
        self.lines = []
        self.counts = {"pass": 0, "fail": 0, "skip": 0}

    def ok(self, desc):
        self.counts["pass"] += 1
        self.lines.append(f"ok {len(self.lines) + 1} - {desc}")

    def skip(self, desc, why):
        self.counts["skip"] += 1
        self.lines.append(f"ok {len(self.lines) + 1} - {desc} # SKIP {why}")

    def not_ok(self, desc, *diag):
        self.counts["fail"] += 1
        self.lines.append(f"not ok {len(self.lines) + 1} - {desc}" +
                          "".join(f"\n# {d}" for d in diag))

    def check(self, desc, good, *diag):
        if good:
            self.ok(desc)
        else:
            self.not_ok(desc, *diag)

    def report(self):
        c = self.counts
        print("TAP version 13")
        print(f"1..{len(self.lines)}")
        print("\n".join(self.lines))
        print(f"# Totals: pass:{c['pass']} fail:{c['fail']} xfail:0 "
              f"xpass:0 skip:{c['skip']} error:0")
        return 1 if c["fail"] else 0


def link(plane, kind, start, end, size, tid=1):
    """A link slice of a trace, as ubctl trace dump writes it."""
    return {"ph": "X", "cat": "link", "name": "WRITE",
            "pid": 1000000 + plane, "tid": tid,
            "ts": start / 1e3, "dur": (end - start) / 1e3,
            "args": {"plane": plane, "kind": kind, "link": "npu3 tx",
                     "bytes": size, "start_ns": start, "end_ns": end,
                     "eid": 3, "user_data": 7}}


def inputs(d):
    """Writes the made-up inputs into directory d: a trace of two planes
    (plane 0 sends 1000 B in 0..1000 ns and 3000 B in 1000..2000 ns,
    plane 1 500 B in 0..2000 ns), with the metadata, op slices and flows
    a trace has around its link slices; link statistics of 2 planes, 4
    nodes and 3 L2 switches; ubbench's latency JSON; and bad ones."""
    def dump(name, doc):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            json.dump(doc, f)

    events = [
        {"ph": "M", "name": "process_name", "pid": 4, "tid": 0,
         "args": {"name": "npu3"}},
        {"ph": "X", "cat": "op", "name": "WRITE", "pid": 4, "tid": 1,
         "ts": 0, "dur": 2, "args": {
             "eid": 3, "qid": 1, "opcode": "WRITE", "bytes": 4000,
             "peer": "npu5", "status": "OK", "planes": [0, 1],
             "model_start_ns": 0, "model_end_ns": 2000}},
        link(0, "port-tx", 0, 1000, 1000),
        link(0, "port-tx", 1000, 2000, 3000),
        link(0, "l1-up", 0, 2000, 99999),
        link(0, "port-rx", 0, 2000, 99999),
        link(1, "port-tx", 0, 2000, 500, tid=2),
        {"ph": "s", "cat": "causality", "id": 1, "pid": 4, "tid": 1,
         "ts": 0},
        {"ph": "f", "cat": "causality", "id": 1, "pid": 4, "tid": 1,
         "ts": 2},
    ]
    trace = {"displayTimeUnit": "ns", "otherData": {"time_unit": "us"},
             "traceEvents": events}
    dump("trace.json", trace)
    trace["traceEvents"] = [e for e in events
                            if e.get("args", {}).get("kind") != "port-tx"]
    dump("notx.json", trace)
    dump("noend.json", {"traceEvents": [
        {"ph": "X", "cat": "link", "args": {
            "kind": "port-tx", "plane": 0, "bytes": 8, "start_ns": 5}}]})

    # Busy (n + j) / 8 of the time, plane 1 a tenth more; node 0 up to
    # L2 0 was never held.
    links = [{"plane": p, "kind": k, "node": n, "l2": j,
              "bytes": 1000 * (n + j), "busy_ps": 250 * (n + j) + 100 * p,
              "idle_ps": 2000 - 250 * (n + j) - 100 * p}
             for p in (0, 1) for k in ("l1-up", "l2-down")
             for n in range(4) for j in range(3)]
    links[0]["idle_ps"] = 0
    links += [{"plane": p, "kind": k, "eid": 3, "entity": "npu3",
               "bytes": 10, "busy_ps": 10, "idle_ps": 0}
              for p in (0, 1) for k in ("port-tx", "port-rx")]
    dump("stats.json", {"horizon_ps": 2000, "links": links})
    dump("stats1.json", {"horizon_ps": 2000,
                         "links": [x for x in links if x["plane"] == 1]})
    nol2 = [dict(x) for x in links]
    del nol2[5]["l2"]
    dump("nol2.json", {"horizon_ps": 2000, "links": nol2})
    noidle = [dict(x) for x in links]
    del noidle[7]["idle_ps"]
    dump("noidle.json", {"horizon_ps": 2000, "links": noidle})

    fig = {"median": 1.2, "samples": [1.2, 1.3]}
    lat = {"unit": "us", "bytes": 8, "ops": 5,
           "doorbell": {"p50": fig, "p99": fig,
                        "lat_ns": [1200, 1300, 1250, 9000, 1100]},
           "polling": {"p50": fig, "p99": fig,
                       "lat_ns": [900, 950, 1000, 1020, 5000]}}
    dump("bench.json", {"queue": {"latency": lat}})
    del lat["polling"]["lat_ns"]
    dump("old.json", {"queue": {"latency": lat}})
    with open(os.path.join(d, "bad.json"), "w", encoding="utf-8") as f:
        f.write('{"traceEvents": [')


def read(path):
    """The bytes of the file at path, None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def invalid(path):
    """Why the file at path is not a PNG (signature, IHDR of a nonempty
    image, IEND) or an SVG (XML whose root is svg), as its name says;
    None if it is."""
    data = read(path)
    if data is None:
        return "cannot be read"
    if path.endswith(".png"):
        if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
            return "no PNG signature and IHDR"
        width, height = struct.unpack(">II", data[16:24])
        if not width or not height or \
           not data.endswith(b"IEND\xaeB`\x82"):
            return f"a PNG of {width}x{height} or without IEND"
        return None
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        return f"not XML: {e}"
    return None if root.tag.endswith("}svg") else f"root is {root.tag}"


def load_ubplot(path):
    """tools/plot/ubplot as a module (it has no .py)."""
    loader = importlib.machinery.SourceFileLoader("ubplot", path)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("ubplot", loader))
    loader.exec_module(module)
    return module


def utilization(ubplot, stats):
    """None if plane 0's links are busy (node + l2) / 8 of their time and
    node 0's link up to L2 0, never held, 0; else what differs."""
    plane, util = ubplot.plane_links(ubplot.load(stats), stats, 0)
    want = {k: {(n, j): (n + j) / 8 for n in range(4) for j in range(3)}
            for k in ("l1-up", "l2-down")}
    if plane != 0 or util != want:
        return f"plane {plane}: {util}, want {want}"
    return None


def bandwidth_arithmetic(ubplot, trace):
    """None if plane 0 runs at 1 then 3 GB/s and plane 1 at 0.25, bins
    that cut slices getting their share of each; else what differs."""
    import numpy as np

    planes = ubplot.plane_slices(ubplot.load(trace), trace, "port-tx")
    if sorted(planes) != [0, 1]:
        return f"planes {sorted(planes)}, want [0, 1]"
    for edges, plane, want in (([0, 1000, 2000], 0, [1, 3]),
                               ([0, 500, 1500, 2000], 0, [1, 2, 3]),
                               ([0, 2000], 1, [0.25]),
                               ([-1000, 0, 4000], 0, [0, 1])):
        got = ubplot.binned_rate(np, planes[plane],
                                 np.array(edges, dtype=float))
        if not np.allclose(got, want):
            return f"edges {edges}, plane {plane}: {list(got)}, want {want}"
    return None


def main():
    ubplot = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else
                              os.path.join(ROOT, "tools/plot/ubplot"))
    t = Ktap()
    tmp = tempfile.TemporaryDirectory()
    d = tmp.name
    inputs(d)

    def run(*args):
        try:
            return subprocess.run([ubplot, *args], capture_output=True,
                                  text=True, check=False)
        except OSError as e:
            return subprocess.CompletedProcess(args, 127, "",
                                               f"{ubplot}: {e}")

    def expect(want, pattern, desc, *args):
        """ubplot ARGS exits want and says pattern on stderr."""
        r = run(*args)
        t.check(desc, r.returncode == want and pattern in r.stderr,
                f"command: ubplot {' '.join(args)}",
                f"exit {r.returncode}, want {want}",
                f"stderr: {r.stderr[-300:]!r}")

    def chart(desc, out, *args):
        """ubplot ARGS -o out exits 0 and writes a valid out."""
        if os.path.exists(out):
            os.remove(out)
        r = run(*args, "-o", out)
        why = f"exit {r.returncode}: {r.stderr[-300:]!r}" \
            if r.returncode else invalid(out)
        t.check(desc, why is None, f"command: ubplot {' '.join(args)} "
                f"-o {out}", str(why))

    def p(name):
        return os.path.join(d, name)

    # The command line
    r = run("--help")
    t.check("--help exits 0 and names the three charts",
            r.returncode == 0 and all(c in r.stdout for c in
                                      ("bandwidth", "heatmap", "cdf")),
            f"exit {r.returncode}", f"stderr: {r.stderr[-300:]!r}")
    expect(2, "invalid choice: 'pie'", "unknown chart exits 2",
           "pie", p("trace.json"), "-o", p("x.png"))
    expect(2, "required: -o", "no -o exits 2", "cdf", p("bench.json"))
    expect(2, "give a .png or an .svg file", "-o of another format exits 2",
           "cdf", p("bench.json"), "-o", p("x.jpg"))
    expect(2, "not a number from 1 on: 0", "--bins 0 exits 2",
           "bandwidth", "--bins", "0", p("trace.json"), "-o", p("x.png"))

    if not importlib.util.find_spec("matplotlib"):
        t.skip("the charts", "no matplotlib: install python3-matplotlib")
        return t.report()

    # The charts
    chart("bandwidth of a trace as PNG", p("bw.png"),
          "bandwidth", p("trace.json"))
    chart("bandwidth of a trace as SVG", p("bw.svg"),
          "bandwidth", p("trace.json"))
    chart("bandwidth received (port-rx) of a real trace as PNG",
          p("bwrx.png"), "bandwidth", "--kind", "port-rx",
          os.path.join(ROOT, "tools/trace/tests/sample.json"))
    chart("heatmap of plane 1 as PNG", p("hm.png"),
          "heatmap", "--plane", "1", p("stats.json"))
    chart("heatmap of the only plane as SVG", p("hm.svg"),
          "heatmap", p("stats1.json"))
    chart("latency CDF as PNG", p("cdf.png"), "cdf", p("bench.json"))
    chart("latency CDF of two files as SVG", p("cdf.svg"),
          "cdf", p("bench.json"), p("bench.json"))
    first = read(p("bw.png"))
    r = run("bandwidth", p("trace.json"), "-o", p("bw.png"))
    t.check("the same input gives the same PNG", first is not None and
            r.returncode == 0 and read(p("bw.png")) == first)
    for desc, check, path in (
            ("bandwidth: each slice's bytes spread over its time, in GB/s",
             bandwidth_arithmetic, p("trace.json")),
            ("heatmap: utilization is busy over busy + idle",
             utilization, p("stats.json"))):
        try:
            why = check(load_ubplot(ubplot), path)
        except Exception as e:  # whatever breaks in ubplot is a failure
            why = f"{type(e).__name__}: {e}"
        t.check(desc, why is None, str(why))

    # Bad input: exit 1 and what stderr says
    x = p("x.png")
    bad = (
        (f"{p('bad.json')}: not JSON", "input not JSON",
         "bandwidth", p("bad.json")),
        ("No such file", "missing input", "cdf", p("none.json")),
        ("not a Chrome trace", "bandwidth of link stats",
         "bandwidth", p("stats.json")),
        ("no link slices of kind port-tx", "a trace without port-tx slices",
         "bandwidth", p("notx.json")),
        ("without args.end_ns", "a port-tx slice without end_ns",
         "bandwidth", p("noend.json")),
        ("not link statistics", "heatmap of a trace",
         "heatmap", p("trace.json")),
        ("give --plane N", "heatmap of 2 planes without --plane",
         "heatmap", p("stats.json")),
        ("no l1-up or l2-down links of plane 5",
         "heatmap of a plane not there",
         "heatmap", "--plane", "5", p("stats.json")),
        (f"{p('nol2.json')}: links[5]: a l1-up link without l2",
         "heatmap of a switch link without l2",
         "heatmap", "--plane", "0", p("nol2.json")),
        (f"{p('noidle.json')}: links[7]: a l1-up link without idle_ps",
         "heatmap of a switch link without idle_ps (an older ubctl)",
         "heatmap", "--plane", "0", p("noidle.json")),
        ("not ubbench's JSON", "cdf of a trace", "cdf", p("trace.json")),
        ("queue.latency.polling has no lat_ns",
         "cdf of a JSON without lat_ns", "cdf", p("old.json")),
    )
    for pattern, desc, *args in bad:
        expect(1, pattern, f"{desc} exits 1", *args, "-o", x)
    expect(1, p("none/x.png"), "an unwritable output exits 1",
           "cdf", p("bench.json"), "-o", p("none/x.png"))
    return t.report()


if __name__ == "__main__":
    sys.exit(main())
