// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=4096x2048 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.128 && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=4096x2048 --wgmma-rows=128 --emit-artifact=%t.128 > /dev/null
// RUN: FileCheck %s --check-prefix=ROWS128 < %t.128/fused/sigreg.ptx
// RUN: rm -rf %t.p && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=4096x2048 --wgmma-persistent --wgmma-rows=256 --emit-artifact=%t.p > /dev/null
// RUN: FileCheck %s --check-prefix=PERSIST < %t.p/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t.p/fused/sigreg.ptx -o %t.p/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The transposed one-tile kernel by rule, end to end: N = 4096, D = 2048,
// S = 4096 takes 256-slice tiles on the 128-row kernel (16 x 32 CTAs), so
// the rule gives the 256 x 128 tile (16 batch tiles x 32 slice tiles);
// P = 23, the most its registers hold.
// OUT: fused pipeline: 3 steps

// PTX:       .extern .shared .align 1024
// PTX:       .visible .entry sigreg_fused_ecf_wgmma_transposed(
// PTX:       .maxntid 384, 1, 1
// PTX-NOT:   .reqnctapercluster
// PTX:       setmaxnreg.dec.sync.aligned.u32 40;
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PTX:       setmaxnreg.inc.sync.aligned.u32 232;
// PTX:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX:       sin.approx.f32
// PTX:       shfl.sync.bfly.b32
// PTX:       .visible .entry sigreg_ecf_finalize_loss(

// ROWS128:   .visible .entry sigreg_fused_ecf_wgmma(
// ROWS128-NOT: sigreg_fused_ecf_wgmma_transposed

// Made persistent (--wgmma-persistent): the same kernel walking its row
// tiles, the tiles' sums added in shared memory (16 batch tiles, 32 slice
// tiles: 4 groups of 32 CTAs); within the same 168 registers at P = 23.
// PERSIST:   .visible .entry sigreg_fused_ecf_wgmma_transposed(
// PERSIST:   .maxntid 384, 1, 1
// PERSIST:   wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PERSIST:   ld.shared.b32
// PERSIST:   st.shared.b32
// PERSIST:   .visible .entry sigreg_ecf_finalize_loss(

// The ECF's 128 accumulators, 2 (P - 1) = 44 sums and the recurrences fit
// the 168 registers ptxas gives a kernel of 384 threads.
// PTXAS: Compiling entry function 'sigreg_fused_ecf_wgmma_transposed' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 168 registers
func.func @sigreg(%x: tensor<?x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 23 : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
