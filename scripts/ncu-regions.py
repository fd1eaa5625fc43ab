#!/usr/bin/env python3
"""Where a kernel's time goes, by region of its SASS.

Reads the CSV that `ncu -i REPORT --page source --csv --print-source sass` writes for one
kernel (a report taken with `--set full --import-source yes`) and splits the SASS into regions:
a new region starts after every BAR.SYNC and at both ends of every loop (a branch back to a
lower address). Per region it prints the warp-state samples (the share of the kernel's time
that warps spent there), the warp instructions executed, the most frequent stall reasons and
the most executed opcodes.

Usage: scripts/ncu-regions.py SOURCE.csv [--top 5]
"""
import argparse
import csv
import re
import sys
from collections import Counter


def rows_of(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith('"Address"')), None)
    if start is None:
        sys.exit(f"{path}: no 'Address' header: not an ncu --page source --csv file")
    return list(csv.DictReader(lines[start:]))


def number(text):
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    rows = rows_of(args.csv)
    addr = [int(r["Address"], 16) for r in rows]
    sass = [r["Source"].strip() for r in rows]
    stall_cols = [c for c in rows[0] if c.startswith("stall_") and "Not Issued" not in c]

    cuts = set()
    for i, s in enumerate(sass):
        if "BAR.SYNC" in s:
            cuts.add(i + 1)
        m = re.search(r"\bBRA(?:\.\w+)* (0x[0-9a-f]+)", s)
        if m:
            target = int(m.group(1), 16) + (addr[0] if int(m.group(1), 16) < addr[0] else 0)
            j = next((k for k, a in enumerate(addr) if a == target), None)
            if j is not None and j <= i:  # a loop: [j, i]
                cuts.update((j, i + 1))
    bounds = sorted(c for c in cuts | {0, len(rows)} if 0 <= c <= len(rows))

    total = sum(number(r["Warp Stall Sampling (All Samples)"]) for r in rows)
    total_exec = sum(number(r["Instructions Executed"]) for r in rows)
    print(f"total samples {total:.0f}  warp instructions executed {total_exec:.0f}")
    for lo, hi in zip(bounds, bounds[1:]):
        if lo >= hi:
            continue
        part = rows[lo:hi]
        samples = sum(number(r["Warp Stall Sampling (All Samples)"]) for r in part)
        executed = sum(number(r["Instructions Executed"]) for r in part)
        if samples == 0 and executed == 0:
            continue
        stalls = Counter()
        for r in part:
            for c in stall_cols:
                stalls[c[6:]] += number(r[c])
        ops = Counter()
        for r, s in zip(part, sass[lo:hi]):
            op = re.sub(r"^@!?U?P\w+\s+", "", s).split(" ")[0]
            ops[op.split(".")[0]] += number(r["Instructions Executed"])
        share = 100.0 * samples / total if total else 0.0
        print(f"[{lo:4d}-{hi - 1:4d}] sass={hi - lo:4d} samples={samples:7.0f} ({share:5.1f}%) "
              f"exec={executed:9.0f}  {sass[lo][:40]}")
        ss = sum(stalls.values()) or 1.0
        print("      stalls: " + ", ".join(f"{k}:{100 * v / ss:.0f}%"
                                           for k, v in stalls.most_common(args.top) if v))
        print("      ops   : " + ", ".join(f"{k}:{v:.0f}" for k, v in ops.most_common(args.top + 3) if v))


if __name__ == "__main__":
    main()
