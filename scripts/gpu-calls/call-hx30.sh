#!/usr/bin/env bash
# Thirtieth session, last call (docs/PERF-NOTES.md): blog and minimal under the minctasm rule
# once more (issue 8's figures are the H200's, if one comes), and a probe for the Hopper kernel:
# mid's sigreg_fused_ecf_wgmma (128 CTAs, one wave) with `.minnctapersm 1` added to its PTX by
# hand (m-NAME; the compiler does not emit it: a probe of whether it should). Set hx30: blog and
# minimal from mc30 (NAME, h-NAME), mid-bf16 and mid-f32 of `scripts/build-gpu-artifacts.sh
# build DIR anchors` and their m- copies; PART=minimal_variants (call 13): minimal in 16-warp
# blocks (w16-) and with its ECF from the y tile (fe0-, --single-launch-fragment-ecf=0) under
# the rule, built by sigreg-run from mc30's source.mlir with those flags. Carry [".gpu/rt",
# ".gpu/hx30"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
time_all() {
  alternate .gpu/hx30 3 "blog-bf16 minimal-bf16" "h- -"
  alternate .gpu/hx30 3 "mid-bf16 mid-f32" "- m-"
}
check() { validate .gpu/hx30/m-mid-bf16 .gpu/hx30/m-mid-f32; }
minimal_variants() {
  alternate .gpu/hx30 3 "minimal-bf16" "- w16- fe0-"
  validate .gpu/hx30/w16-minimal-bf16 .gpu/hx30/fe0-minimal-bf16
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all check}
