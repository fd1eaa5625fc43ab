"""What the single launch's last step costs: a hand-written Triton microbenchmark.

The single-launch kernel ends every block the same way: after its work, one thread adds the
block's statistic and one arrival to a 64-bit word with an atomic that returns the old value,
and the block whose arrival completes the count writes the loss. The atomic's round trip is on
the critical path of the last block to arrive, and all blocks arrive at about the same time, so
they queue on one address. This script measures that, apart from the kernel, on the GPU it runs
on:

- `empty`: a grid of 128 blocks of 256 threads that only stamps its clocks (the launch floor);
- `one`: every block adds 1 to one word and waits for the old value (the kernel's form);
- `groups G`: block b adds to word b mod G, and the last arrival of each group adds to a second
  word (two round trips, G-way and 128/G-way contention);
- `red`: the same add with the result unused (no wait: a lower bound);
- `redpoll`: the same add with the result unused, and block 0 alone then polls the word with
  volatile loads until it holds the grid's count, and resets it (the loss's writer found by
  polling instead of by each block's returned value; its stamps are taken after the poll).
- `smem`, `smem-one`: a block-wide sum that Triton adds up through shared memory (64 bytes, the
  kernel then needs a shared-memory carveout, as the single launch does), without and with the
  kind `one` atomic after it;

`--spread C` adds C cycles of busy work per block index (block b spins spin + b C cycles), so
that the blocks arrive one after another, as the single launch's blocks end over about
1,000 cycles, instead of in one burst.

Each kind runs with `spin` cycles of busy work before the atomic (0: blocks arrive as the
launch starts them; 20000: all blocks resident first, then one burst, as in the kernel). Per
kind it prints the median time per launch (CUDA events, 200 launches) and, from %clock64 stamps
in the last launch, the per-block wait for the atomic's old value (min, median, max cycles) and
the spread of the blocks' start times (%globaltimer, ns).

`--flush` times each launch as `sigreg-aot-run --bench` does: a memset of twice the L2 (at least
64 MiB) before it, outside its event pair, behind a spin long enough for the host to queue the
launch, so that the pair times the GPU's latency from the fill to the kernel's end, comparable
with the runner's medians (without it, each pair also holds Triton's host launch, 20-30 us).

Usage (GPU machine): python3 kernels-ref/microbench_tail.py [--blocks 128] [--flush] [--ncu-kind KIND]
(--ncu-kind runs one launch of one kind only, for ncu -k regex:tail.)
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl


@triton.jit
def _stamp(dep, SRC: tl.constexpr):
    # The stamp is xor'ed with `dep`, so it is read only once `dep` has arrived.
    return tl.inline_asm_elementwise(
        "{ .reg .u64 t; mov.u64 t, " + SRC + "; xor.b64 $0, t, $1; }",
        "=l,l", [dep], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def tail(words, stamps, spin, spread, KIND: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.num_programs(0)
    zero = (pid * 0).to(tl.int64)
    g0 = _stamp(zero, "%globaltimer")
    c0 = _stamp(zero, "%clock64")
    c = c0
    while c - c0 < spin + pid * spread:
        c = _stamp(zero, "%clock64")
    old = zero
    if KIND == 1:
        old = tl.atomic_add(words, 1, sem="relaxed").to(tl.int64)
    elif KIND == 2:
        members = n // G
        old = tl.atomic_add(words + (pid % G) * 32, 1, sem="relaxed").to(tl.int64)
        if (old + 1) % members == 0:
            old = old + tl.atomic_add(words + G * 32, 1, sem="relaxed").to(tl.int64)
    elif KIND == 3:
        tl.atomic_add(words, 1, sem="relaxed")
    elif KIND == 4:
        tl.atomic_add(words, 1, sem="relaxed")
        if pid == 0:
            seen = tl.load(words, volatile=True)
            while seen < n:
                seen = tl.load(words, volatile=True)
            tl.store(words, seen * 0)
            old = seen.to(tl.int64)
    elif KIND == 5 or KIND == 6:
        # A block-wide sum of values only known at run time: Triton adds the 8 warps' parts
        # through shared memory, so the kernel needs some (the single launch does).
        old = tl.sum(tl.arange(0, 256).to(tl.int64) ^ c, axis=0)
        if KIND == 6:
            old = old + tl.atomic_add(words, 1, sem="relaxed").to(tl.int64)
    c2 = _stamp(old, "%clock64") ^ old
    g1 = _stamp(old, "%globaltimer") ^ old
    base = stamps + pid * 8
    tl.store(base + 0, g0)
    tl.store(base + 1, c)
    tl.store(base + 2, c2)
    tl.store(base + 3, g1)


KINDS = {"empty": (0, 1), "one": (1, 1), "groups8": (2, 8), "groups16": (2, 16), "red": (3, 1),
         "redpoll": (4, 1), "smem": (5, 1), "smem-one": (6, 1)}


def run(kind, blocks, spin, reps, spread=0, flush=None):
    k, g = KINDS[kind]
    words = torch.zeros(64 * 32, dtype=torch.int64, device="cuda")
    stamps = torch.zeros(blocks * 8, dtype=torch.int64, device="cuda")

    def launch():
        return tail[(blocks,)](words, stamps, spin, spread, KIND=k, G=g, num_warps=8)

    shared = getattr(launch().metadata, "shared", -1)
    for _ in range(4):
        launch()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        if flush is not None:
            # The GPU spins first so that the host has queued the fill, the events and the
            # launch before they run: the pair then times the GPU, not Triton's host launch.
            torch.cuda._sleep(400000)
            flush.fill_(i + 1)
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        launch()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    s = stamps.view(blocks, 8).cpu()
    wait = (s[:, 2] - s[:, 1]).tolist()
    starts = s[:, 0]
    ends = s[:, 3]
    return statistics.median(times), sorted(wait), int(starts.max() - starts.min()), \
        int(ends.max() - starts.min()), shared


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=128)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--ncu-kind", choices=sorted(KINDS))
    ap.add_argument("--spin", type=int, default=0)
    ap.add_argument("--spread", type=int, default=0)
    ap.add_argument("--flush", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("microbench_tail.py: needs a CUDA GPU")
    flush = None
    if args.flush:
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        flush = torch.empty(max(2 * l2, 64 << 20) // 4, dtype=torch.int32, device="cuda")
    print(torch.cuda.get_device_name(), f"blocks={args.blocks} of 256 threads, spread={args.spread}, "
          f"flush={'on' if args.flush else 'off'}")
    if args.ncu_kind:
        run(args.ncu_kind, args.blocks, args.spin, 1, args.spread)
        return
    print(f"{'kind':10s} {'spin':>6s} {'us/launch':>10s} {'wait min/med/max (cycles)':>28s} "
          f"{'start spread ns':>16s} {'first start to last end ns':>27s} {'smem B':>7s}")
    for spin in (0, 20000):
        for kind in KINDS:
            t, wait, spread, span, shared = run(kind, args.blocks, spin, args.reps, args.spread, flush)
            w = f"{wait[0]}/{wait[len(wait) // 2]}/{wait[-1]}"
            print(f"{kind:10s} {spin:6d} {t:10.2f} {w:>28s} {spread:16d} {span:27d} {shared:7d}")


if __name__ == "__main__":
    main()
