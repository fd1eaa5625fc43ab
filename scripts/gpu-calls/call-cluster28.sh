#!/usr/bin/env bash
# Twenty-eighth session (docs/PERF-NOTES.md): x staged in clusters. From the repository root
# with carry [".gpu/rt", ".gpu/ut", ".gpu/fin27", ".gpu/ftz27", ".gpu/cl28"] (.gpu/ut: a copy
# of build/unittests/SigregRuntimeTests; .gpu/cl28: `scripts/build-gpu-artifacts.sh build
# .gpu/cl28 cluster28`). Results under $OUT.
#  PART=probe (about 4 minutes): the runtime's GPU unit tests (call-check27.sh:
#    GpuSmoke.MisalignedBindIsAnError first runs here); every cl28 artifact validated against
#    float64 (bitwise repeat, graph replay); memcheck, racecheck, synccheck on the clustered
#    blog forward and training step; ncu (full set, SASS source page) of blog's forward by the
#    rule, in clusters of 2, and of minimal's, for scripts/ncu-regions.py (run here after).
#  PART=all (the default): PART=probe's checks, 2 rounds of PART=time, the sanitizers on the
#    clustered blog forward only.
#  PART=time (about 3 minutes): NAME (the rule), c2-NAME and c4-NAME alternating, 3 rounds
#    (full_forward, full_forward_graph ms).
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
. scripts/gpu-calls/lib.sh
check() {
  echo "== unit tests $(date +%T)"
  bash scripts/gpu-calls/call-check27.sh
  echo "== validate $(date +%T)"
  validate $(ls -d .gpu/cl28/*/ | grep -v '\.log')
}
configs="blog-bf16 step-blog-bf16 phased-blog-bf16 n32-d1024-bf16 n16-d2048-bf16 n64-d1024-bf16 step-n32-d1024-bf16 n32-f16-clamp-none"
case "${PART:-all}" in
  probe)
    check
    echo "== sanitize $(date +%T)"
    sanitize .gpu/cl28/c2-blog-bf16
    sanitize .gpu/cl28/c4-step-blog-bf16
    profile cl28/blog-bf16 cl28/c2-blog-bf16 ftz27/n-minimal-bf16 ;;
  # PART=all (one call, about 5 minutes; call-ops28.sh after it): the checks, 2 rounds of
  # timing, the sanitizers on the clustered blog forward.
  all)
    check
    echo "== time $(date +%T)"
    alternate .gpu/cl28 2 "$configs" "- c2- c4-"
    alternate .gpu/cl28 2 "blog-bf16 step-blog-bf16" "- g4- g4c2-"
    echo "== sanitize $(date +%T)"
    sanitize .gpu/cl28/c2-blog-bf16 ;;
  time)
    alternate .gpu/cl28 3 "$configs" "- c2- c4-" ;;
  # PART=short (about 2.5 minutes, for the last minutes of a session's device time): the unit
  # tests, blog's forward and steps validated and timed (2 rounds), the sanitizers on c2-blog.
  short)
    echo "== unit tests $(date +%T)"
    bash scripts/gpu-calls/call-check27.sh
    echo "== validate $(date +%T)"
    validate .gpu/cl28/{,c2-,c4-}{blog-bf16,step-blog-bf16,phased-blog-bf16} \
      .gpu/cl28/{g4-,g4c2-}{blog-bf16,step-blog-bf16}
    echo "== time $(date +%T)"
    alternate .gpu/cl28 2 "blog-bf16 step-blog-bf16 n32-d1024-bf16" "- c2- c4-"
    alternate .gpu/cl28 2 "blog-bf16 step-blog-bf16" "g4- g4c2-"
    echo "== sanitize $(date +%T)"
    sanitize .gpu/cl28/c2-blog-bf16 ;;
esac
echo "== done $(date +%T)"
