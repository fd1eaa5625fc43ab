#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): clusters of 2 whose blocks arrive at the cluster
# barrier relaxed. ncu (call 9) put the cluster form's (--single-launch-stage-x=2) loss in its
# start: barrier.cluster.arrive's default release semantics cost every warp a cluster-scope
# fence (ERRBAR, 411 samples) before the barrier; thread 0's fence.mbarrier_init already orders
# the mbarriers' initialization. Set lt31: base- the rule, c2- the cluster form as committed
# before this session, c2r- with barrier.cluster.arrive.relaxed (this compiler), for blog, its
# training step and its phased step; validation, sanitizers on c2r-blog, 3 rounds, ncu regions
# of c2r-blog. Carry [".gpu/rt", ".gpu/lt31"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { local d; for d in .gpu/lt31/*-bf16; do validate $d; done; sanitize .gpu/lt31/c2r-blog-bf16; }
time_all() { alternate .gpu/lt31 3 "blog-bf16" "base- c2- c2r-"
  alternate .gpu/lt31 3 "step-blog-bf16 phased-blog-bf16" "base- c2r-"; }
prof() { profile lt31/c2r-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check time_all prof}
