#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): the words the single launch's last step adds to
# atomically (the packed loss word, the arrival counters) prefetched to L2 at the kernel's
# start (--single-launch-prefetch-tail). Built on the CPU machine with
#   bash scripts/build.sh && bash scripts/gpu-pack.sh build tail34
# (.gpu/rt, and set tail34: the warps16 configurations as NAME and pt-NAME, the random set's
# problems as pt-random-NNN). Times the anchors and a few single-launch shapes in both forms
# (5 rounds, alternating), the same for minimal without the L2 flush (the control: with the
# words already in L2 the prefetch should change nothing), validates every pt- artifact whose
# kernel has the prefetch, and runs the sanitizers on two.
# Carry [".gpu/rt", ".gpu/tail34"]. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
ptdirs() { local d; for d in .gpu/tail34/pt-*/; do
  grep -q 'prefetch.global.L2' "$d/fused/sigreg.ptx" 2>/dev/null && echo "${d%/}"; done; }
times() { alternate .gpu/tail34 5 "minimal-bf16 blog-bf16 mid-bf16-single ds-minimal-bf16 \
  step-minimal-bf16 slm-n256-d1024-sum sl-views-ragged-clamp" "- pt-"; }
noflush() { local r n; for r in 1 2 3; do for n in minimal-bf16 pt-minimal-bf16; do
  echo "$n --no-flush r$r $(.gpu/rt/bin/sigreg-aot-run .gpu/tail34/$n/fused --bench \
    --no-validate --no-flush 2>&1 | grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; }
check() { validate $(ptdirs) > $OUT/pt.txt; grep -v PASS $OUT/pt.txt
  echo "PASS $(grep -c PASS $OUT/pt.txt) of $(ptdirs | wc -l)"; }
san() { sanitize .gpu/tail34/pt-minimal-bf16; sanitize .gpu/tail34/pt-sl-views-ragged-clamp; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times noflush check san}
