#!/usr/bin/env bash
# From the repository root, after call-tp/call-w16/call-gen (docs/PERF-NOTES.md, twenty-first
# session): the follow-up call. Results under $OUT.
#  1. the tpersistent pairs call-tp.sh did not time (d512, n8192d1024, views2) and views8 again;
#  2. what promoted accumulators cost: NAME = ps-n8192-*, p-NAME = its promote twin;
#  3. the tp- variant of large and wide in the same process as torch.compile (issue 7's figure);
#  4. ncu launch/occupancy/speed-of-light of views8 and tp-views8 (the one pair tp- lost).
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 bash scripts/gpu-ab.sh .gpu/tpersistent --skip-validate --rounds 2 \
  --pairs "d512-bf16 n8192d1024-bf16 views2-bf16 views8-bf16" --out $OUT/tp-bench2 2>&1 | grep -E ' r[0-9] |gpu-ab'
ps=/tmp/psb; rm -rf $ps; mkdir -p $ps; P=$(pwd)/.gpu/perslice
for s in d128 d1024 d4096; do
  ln -s $P/ps-n8192-$s $ps/$s; ln -s $P/ps-n8192-$s-promote4 $ps/p-$s
  ln -s $P/ps-n8192-$s-mma $ps/mma-$s; ln -s $P/ps-n8192-$s-mma-promote $ps/p-mma-$s
done
ln -s $P/ps-n8192-d1024-promote1 $ps/p1-d1024
timeout 120 bash scripts/gpu-ab.sh $ps --prefix p- --skip-validate --rounds 2 --out $OUT/ps-bench 2>&1 | grep -E ' r[0-9] |gpu-ab'
timeout 40 bash scripts/gpu-ab.sh $ps --prefix p1- --skip-validate --rounds 2 --out $OUT/ps-bench1 2>&1 | grep -E ' r[0-9] |gpu-ab'
timeout 240 bash scripts/gpu-ab.sh .gpu/tpersistent --skip-validate --skip-bench \
  --same-process "large-bf16 wide-bf16" --out $OUT/tp-same 2>&1 | tail -30
export PATH=$PATH:/usr/local/cuda/bin
for n in views8-bf16 tp-views8-bf16; do
  timeout 90 ncu --section SpeedOfLight --section LaunchStats --section Occupancy -c 6 \
    .gpu/rt/bin/sigreg-aot-run .gpu/tpersistent/$n/fused > $OUT/ncu-$n.txt 2>&1
  echo "ncu $n rc=$?"; grep -E '^  [a-z_].*\(|Duration|Grid Size|Block Size|Registers Per|Achieved Occ|Compute \(SM\) Thr|Memory Thr|Waves Per' $OUT/ncu-$n.txt | head -40
done
