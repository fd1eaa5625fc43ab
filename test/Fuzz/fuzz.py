#!/usr/bin/env python3
"""Fuzzes sigreg-opt: random and mutated .mlir inputs through every pass and
pipeline, on a fixed seed and a bounded count (issue 11, item 6).

Inputs come from two sources, half each:
  - a grammar of sigreg functions (sigreg.loss with random shapes, dtypes and
    knobs; hand-assembled mid-level and fused op chains, including the
    returned values that crashed --convert-sigreg-to-gpu);
  - mutations of the chunks (split at `// -----`) of the .mlir files under
    the corpus directory (the lit tests): numbers replaced by boundary
    values, element types, enum values and op names swapped, dimensions made
    dynamic, lines dropped or duplicated, the text truncated.

Each input goes through sigreg-opt with every pass and pipeline flag. A run
fails the fuzz test when the tool is killed by a signal, exits with a code
other than 0 or 1, prints an LLVM crash banner or fatal error, or runs past
the time limit. Every failure is written to --out (input + command) and
listed; the exit status is 1 if there was any.

Known upstream issue, skipped: MLIR's parser recurses once per nesting level
of regions/brackets, so inputs nested thousands deep overflow the stack
inside MLIR itself; the mutations never nest deeper than the corpus does.
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time

PASSES = [
    ["--sigreg-decompose"],
    ["--sigreg-decompose", "--sigreg-lower-naive"],
    ["--sigreg-decompose", "--sigreg-fuse-ecf", "--sigreg-fuse-epilogue"],
    ["--sigreg-decompose", "--sigreg-fuse-ecf", "--sigreg-fuse-epilogue",
     "--convert-sigreg-to-gpu"],
    # The single launch's opt-in variants (docs/GPU-SCHEDULES.md).
    ["--sigreg-decompose", "--sigreg-fuse-ecf", "--sigreg-fuse-epilogue",
     "--convert-sigreg-to-gpu=single-launch-fragment-ecf=1 single-launch-step-group=2 "
     "single-launch-stagger=1 single-launch-prefetch-x=1 single-launch-prefetch-tail=1 "
     "single-launch-transposed-ecf=1 single-launch=2"],
    # ... and the untransposed accumulator ECF, which the default replaced in 8-slice tiles.
    ["--sigreg-decompose", "--sigreg-fuse-ecf", "--sigreg-fuse-epilogue",
     "--convert-sigreg-to-gpu=single-launch-fragment-ecf=1 single-launch-transposed-ecf=0 "
     "single-launch=2"],
    ["--sigreg-lower-naive"],
    ["--sigreg-fuse-ecf"],
    ["--convert-sigreg-to-gpu"],
    ["--sigreg-decompose", "--sigreg-lower-naive",
     "--one-shot-bufferize=bufferize-function-boundaries",
     "--sigreg-linalg-to-gpu"],
    ["--sigreg-decompose", "--sigreg-roofline=batch=64"],
    ["--sigreg-decompose", "--sigreg-fuse-ecf", "--sigreg-fuse-epilogue",
     "--sigreg-roofline"],
    ["--sigreg-cpu-pipeline"],
    ["--sigreg-gpu-pipeline=format=isa"],
    ["--sigreg-naive-gpu-pipeline=format=isa"],
]

CRASH_MARKERS = ["PLEASE submit a bug report", "LLVM ERROR", "Assertion",
                 "Stack dump", "UNREACHABLE", "terminate called"]

DTYPES = ["bf16", "f16", "f32"]
BAD_DTYPES = ["f64", "i32", "i64", "f8E4M3FN", "index"]
INTERESTING_INTS = [0, 1, -1, 2, 3, 4, 15, 16, 17, 31, 33, 63, 64, 65, 66, 67,
                    127, 128, 129, 255, 256, 257, 1023, 1024, 65535, 65536,
                    2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1,
                    -(2**63)]
INTERESTING_FLOATS = ["0.0", "-0.0", "1.0e-308", "5.0e-01", "3.0", "40.0",
                      "1.0e6", "1.0e7", "1.0e38", "1.0e308", "-3.0",
                      "0x7FF0000000000000", "0x7FF8000000000000"]
ENUM_WORDS = ["mean", "sum", "none", "zero_below", "clamp_min", "max", "foo"]
SIGREG_OPS = ["sigreg.loss", "sigreg.projection", "sigreg.project",
              "sigreg.ecf", "sigreg.all_reduce_mean", "sigreg.epps_pulley",
              "sigreg.reduce", "sigreg.fused_ecf", "sigreg.fused_epilogue"]


def rand_dim(rng, small=True):
    if rng.random() < 0.85:
        return rng.choice([1, 2, 3, 5, 7, 8, 16, 17, 31, 33, 37, 64, 100, 129]
                          if small else [1, 64, 1024, 4096, 65536])
    return rng.choice([rng.randint(1, 300), 2**20, 2**31, 2**40, 2**62])


def gen_loss(rng):
    """A sigreg.loss function with random knobs (mostly valid)."""
    views = rng.random() < 0.5
    dt = rng.choice(DTYPES if rng.random() < 0.9 else BAD_DTYPES)
    V, N, D = rand_dim(rng), rand_dim(rng), rand_dim(rng)
    S = rand_dim(rng)
    P = rng.choice([3, 5, 9, 17, 33, 65] if rng.random() < 0.8 else
                   [1, 2, 4, 67, 257, 1025, 10**6 + 1, 2**63 - 1])
    ndim = "?" if rng.random() < 0.3 else str(N)
    xt = f"tensor<{V}x{ndim}x{D}x{dt}>" if views else \
        f"tensor<{ndim}x{D}x{dt}>"
    red = rng.choice(["mean", "sum", "none"])
    if red == "none":
        rt = f"tensor<{V}x{S}xf32>" if views else f"tensor<{S}xf32>"
    else:
        rt = "tensor<f32>"
    clip = ""
    c = rng.choice(["none", "zero_below", "clamp_min"])
    if c != "none":
        clip = f"clip = {c}({rng.choice(INTERESTING_FLOATS[:9])})"
    tmax = f"t_max = {rng.choice(INTERESTING_FLOATS)}" \
        if rng.random() < 0.3 else ""
    if rng.random() < 0.5:
        arg2, use = "%seed: i64", "seed(%seed)"
    else:
        at = f"tensor<{D}x{S}x{dt}>"
        arg2, use = f"%a: {at}", f"projection(%a : {at})"
    extra_ret = ""
    extra_ty = ""
    body_extra = ""
    if rng.random() < 0.2 and "seed" in arg2:
        # The returned projection of issue 11.
        body_extra = f"  %p = sigreg.projection seed(%seed) : tensor<{D}x{S}xf32>\n"
        extra_ret, extra_ty = ", %p", f", tensor<{D}x{S}xf32>"
    return (f"func.func @f(%x: {xt}, {arg2}) -> ({rt}{extra_ty}) {{\n"
            f"{body_extra}"
            f"  %l = sigreg.loss %x {use} slices = {S} points = {P} {tmax} "
            f"{clip} reduction = {red} : {xt} -> {rt}\n"
            f"  return %l{extra_ret} : {rt}{extra_ty}\n}}\n")


def gen_schedule(rng, N, seeded):
    """Mostly nothing; else a hand-written #sigreg.schedule (docs/GPU-SCHEDULES.md) from
    the knobs' usual values (cluster, warps and promote among them) and some others, which the verifier must accept or reject with
    a diagnostic, and the conversion then follow."""
    if rng.random() < 0.6:
        return ""
    kernel = rng.choice(["simt", "mma", "wgmma", "wgmma_persistent", "single_launch"])
    rows = rng.choice([8, 16, 32, 64, 128, 256, 512, 3])
    slices = rng.choice([1, 4, 8, 16, 32, 64, 128, 256, 7])
    k_tile = rng.choice([16, 16, 32, 128, 8])
    tiles = max(1, -(-N // rows)) if rng.random() < 0.9 else rng.randint(0, 9)
    proj = rng.choice(["rounded", "split", "f32", "generated", "cooperative"] if seeded else
                      ["explicit", "explicit", "rounded"])
    extra = ""
    if rng.random() < 0.3:
        extra += f", cluster = {rng.choice([1, 2, 4, 8, 3, 0])}"
    if rng.random() < 0.3:
        extra += f", warps = {rng.choice([8, 16, 4, 0, 32])}"
    if rng.random() < 0.3:
        extra += f", promote = {rng.choice([0, 1, 2, 4, 64, -1])}"
    return (f" {{schedule = #sigreg.schedule<kernel = {kernel}, tile = [{rows}, {slices}], "
            f"k_tile = {k_tile}, batch_tiles = {tiles}, projection = {proj}{extra}>}}")


def gen_fused(rng, srng):
    """A hand-assembled fused chain, sometimes returning odd values, sometimes with a
    schedule drawn from `srng` (a generator of its own, so that the other inputs of a seed
    stay what they were before schedules were drawn)."""
    V, N, D, S = rand_dim(rng), rand_dim(rng), rand_dim(rng), rand_dim(rng)
    P = rng.choice([3, 5, 17, 65, 67])
    dt = rng.choice(DTYPES)
    xt = f"tensor<{V}x{N}x{D}x{dt}>"
    ct = f"tensor<{V}x{S}x{P}xf32>"
    seeded = rng.random() < 0.5
    lines = []
    args = [f"%x: {xt}"]
    if seeded:
        args.append("%seed: i64")
        lines.append(f"  %a = sigreg.projection seed(%seed) : tensor<{D}x{S}xf32>")
        at = f"tensor<{D}x{S}xf32>"
    else:
        at = f"tensor<{D}x{S}x{dt}>"
        args.append(f"%a: {at}")
    lines.append(f"  %n = arith.constant {N} : index")
    lines.append(f"  %c, %s = sigreg.fused_ecf %x, %a{gen_schedule(srng, N, seeded)} : "
                 f"{xt}, {at} -> {ct}")
    ws = rng.choice([1, 1, 1, 2])
    lines.append(f"  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n "
                 f"world_size = {ws} : {ct}")
    red = rng.choice(["mean", "sum", "none"])
    rt = f"tensor<{V}x{S}xf32>" if red == "none" else "tensor<f32>"
    lines.append(f"  %r = sigreg.fused_epilogue %cg, %sg, %ng "
                 f"reduction = {red} : {ct} -> {rt}")
    rets = [("%r", rt)]
    choice = rng.random()
    if choice < 0.2:
        rets.append(("%c", ct))
    elif choice < 0.35 and seeded:
        rets.append(("%a", at))
    elif choice < 0.45:
        lines.append("  %k = arith.constant dense<1.0> : tensor<2xf32>")
        rets.append(("%k", "tensor<2xf32>"))
    elif choice < 0.5:
        rets.append(("%x", xt))
    rng.shuffle(rets)
    lines.append("  return " + ", ".join(r for r, _ in rets) + " : " +
                 ", ".join(t for _, t in rets))
    return (f"func.func @g({', '.join(args)}) -> "
            f"({', '.join(t for _, t in rets)}) {{\n" + "\n".join(lines) +
            "\n}\n")


def load_corpus(root):
    chunks = []
    for dirpath, _, files in sorted(os.walk(root)):
        if os.path.basename(dirpath) in ("Fuzz", "vectors"):
            continue
        for f in sorted(files):
            if not f.endswith(".mlir"):
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8").read()
            for chunk in re.split(r"^// -----\s*$", text, flags=re.M):
                body = "\n".join(l for l in chunk.splitlines()
                                 if not l.lstrip().startswith("//"))
                if "func.func" in body and len(body) < 20000:
                    chunks.append(body)
    return chunks


def mutate(rng, text):
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(9)
        if kind == 0:  # an integer -> a boundary value
            ms = list(re.finditer(r"(?<![\w.%#@])-?\d+(?![\w.])", text))
            if ms:
                m = rng.choice(ms)
                text = text[:m.start()] + str(rng.choice(INTERESTING_INTS)) + \
                    text[m.end():]
        elif kind == 1:  # a float -> a boundary value
            ms = list(re.finditer(r"-?\d+\.\d+(e[+-]?\d+)?", text))
            if ms:
                m = rng.choice(ms)
                text = text[:m.start()] + rng.choice(INTERESTING_FLOATS) + \
                    text[m.end():]
        elif kind == 2:  # element type swap (everywhere or once)
            a = rng.choice(DTYPES)
            b = rng.choice(DTYPES + BAD_DTYPES)
            text = text.replace(f"x{a}>", f"x{b}>", rng.choice([1, -1]))
        elif kind == 3:  # enum word swap
            a, b = rng.choice(ENUM_WORDS), rng.choice(ENUM_WORDS)
            text = re.sub(rf"\b{a}\b", b, text, count=1)
        elif kind == 4:  # op name swap
            a, b = rng.choice(SIGREG_OPS), rng.choice(SIGREG_OPS)
            text = text.replace(a, b, 1)
        elif kind == 5:  # a static dimension -> dynamic
            ms = list(re.finditer(r"(?<=[<x])\d+(?=x)", text))
            if ms:
                m = rng.choice(ms)
                text = text[:m.start()] + "?" + text[m.end():]
        elif kind == 6:  # drop a line
            lines = text.splitlines()
            if len(lines) > 2:
                del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 7:  # duplicate a line
            lines = text.splitlines()
            if lines:
                i = rng.randrange(len(lines))
                lines.insert(i, lines[i])
            text = "\n".join(lines)
        else:  # truncate
            if len(text) > 10:
                text = text[:rng.randrange(len(text))]
    return text


def run_one(tool, flags, text, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run([tool, "-", "-o", "/dev/null"] + flags,
                           input=text.encode(), capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.monotonic() - start
    err = p.stderr.decode(errors="replace")
    why = None
    if p.returncode < 0:
        why = f"signal {-p.returncode}"
    elif p.returncode not in (0, 1):
        why = f"exit {p.returncode}"
    else:
        for marker in CRASH_MARKERS:
            if marker in err:
                why = f"printed '{marker}'"
                break
    return why, err, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tool", required=True, help="path of sigreg-opt")
    ap.add_argument("--corpus", required=True, help="directory of .mlir files")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--count", type=int, default=60, help="inputs")
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per sigreg-opt run")
    ap.add_argument("--out", default="fuzz-failures")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    srng = random.Random(args.seed + 1)
    corpus = load_corpus(args.corpus)
    if not corpus:
        print(f"fuzz: no corpus under {args.corpus}", file=sys.stderr)
        return 2
    inputs = []
    for i in range(args.count):
        r = rng.random()
        if r < 0.3:
            inputs.append(gen_loss(rng))
        elif r < 0.5:
            inputs.append(gen_fused(rng, srng))
        else:
            inputs.append(mutate(rng, rng.choice(corpus)))
    jobs = [(i, flags) for i in range(len(inputs)) for flags in PASSES]
    start = time.monotonic()
    failures = []
    slowest = (0.0, None)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, args.tool, flags, inputs[i],
                               args.timeout): (i, flags)
                   for i, flags in jobs}
        for fut in concurrent.futures.as_completed(futures):
            i, flags = futures[fut]
            why, err, secs = fut.result()
            if secs > slowest[0]:
                slowest = (secs, (i, flags))
            if why:
                failures.append((i, flags, why, err))
    elapsed = time.monotonic() - start
    print(f"fuzz: seed {args.seed}, {len(inputs)} inputs x {len(PASSES)} "
          f"pass lists = {len(jobs)} runs in {elapsed:.1f} s "
          f"(slowest {slowest[0]:.1f} s: input {slowest[1][0]} "
          f"{' '.join(slowest[1][1])})")
    if failures:
        os.makedirs(args.out, exist_ok=True)
        for n, (i, flags, why, err) in enumerate(sorted(failures)):
            path = os.path.join(args.out, f"failure-{n}.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"// sigreg-opt {' '.join(flags)}: {why}\n")
                f.write(inputs[i])
            print(f"FAIL: input {i} with {' '.join(flags)}: {why} "
                  f"(reproducer {path})")
            print("\n".join(err.splitlines()[:8]))
        print(f"fuzz: {len(failures)} failures")
        return 1
    print("fuzz: no crash, abort or hang")
    return 0


if __name__ == "__main__":
    sys.exit(main())
