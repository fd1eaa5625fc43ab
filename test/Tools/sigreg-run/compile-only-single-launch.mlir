// REQUIRES: cuda-toolkit, ptxas
// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/fused/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=APPROX < %t/fused/sigreg.ptx
// RUN: rm -rf %t.p && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --precise-sqrt --emit-artifact=%t.p > /dev/null
// RUN: FileCheck %s --check-prefix=SQRT --implicit-check-not=sqrt.approx < %t.p/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.w && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-warps=16 --single-launch-step-group=4 --emit-artifact=%t.w > /dev/null
// RUN: FileCheck %s --check-prefix=W16 < %t.w/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.w/fused/sigreg.ptx -o %t.w/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS16 --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.w4 && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-warps=4 --emit-artifact=%t.w4 > /dev/null
// RUN: FileCheck %s --check-prefix=W4 < %t.w4/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.w4/fused/sigreg.ptx -o %t.w4/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS4 --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.e && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-stagger=0 --fast-normals=false --emit-artifact=%t.e > /dev/null
// RUN: rm -rf %t.u && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-stagger=0 --emit-artifact=%t.u > /dev/null
// RUN: FileCheck %s --check-prefix=FAST < %t.u/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=EXACT < %t.e/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=FAST < %t/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t.e/fused/sigreg.ptx -o %t.e/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASE --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: rm -rf %t.x && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-prefetch-x --single-launch-step-group=4 --emit-artifact=%t.x > /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.x/fused/sigreg.ptx -o %t.x/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASX --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: not sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-stagger=2 --emit-artifact=%t.bad 2>&1 | FileCheck %s --check-prefix=BADSTAGGER
// RUN: rm -rf %t.m && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-minctasm=0 --single-launch-stage-tma=0 --single-launch-gen-ahead=0 --emit-artifact=%t.m > /dev/null
// RUN: FileCheck %s --check-prefix=NOMIN --implicit-check-not=.minnctapersm < %t.m/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t.m/fused/sigreg.ptx -o %t.m/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASM --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: not sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-minctasm=-2 --emit-artifact=%t.bad 2>&1 | FileCheck %s --check-prefix=BADMIN
// RUN: rm -rf %t.c && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-stage-x=4 --single-launch-stage-tma=0 --single-launch-gen-ahead=0 --emit-artifact=%t.c > /dev/null
// RUN: FileCheck %s --check-prefix=CLUSTER < %t.c/fused/sigreg.ptx
// RUN: %ptxas -arch=sm_90a -v %t.c/fused/sigreg.ptx -o %t.c/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASC --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// RUN: FileCheck %s --check-prefix=TMAPTX < %t/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=TMAMAP < %t/fused/manifest.json
// RUN: rm -rf %t.b && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --shape=32x2048 --single-launch-stage-tma=0 --single-launch-gen-ahead=0 --emit-artifact=%t.b > /dev/null
// RUN: FileCheck %s --check-prefix=BULK < %t.b/fused/sigreg.ptx
// RUN: FileCheck %s --check-prefix=BULKMAP < %t.b/fused/manifest.json
// RUN: %ptxas -arch=sm_90a -v %t.b/fused/sigreg.ptx -o %t.b/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXASB --implicit-check-not="{{[1-9][0-9]*}} bytes spill"

// The blog shape as one launch, through the whole pipeline: one step,
// zero_init workspaces (the counter, unused with one batch tile, and the
// loss's 64-bit accumulator; no memset step), PTX that ptxas assembles
// without spills (the GEMM on mma.sync with g generated in registers).

// OUT: fused pipeline: 1 steps

// x is copied into shared memory by TMA boxes of its tensor map (by rule at
// D >= 2048), whose global address must be 16-byte aligned: its buffer
// declares the alignment the runtime checks at binding.
// MANIFEST:      "align": 16,
// MANIFEST-NEXT: "bytes": 131072,
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "name": "x",
// MANIFEST:      "dtype": "i32",
// MANIFEST-NEXT: "name": "ws0",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true
// MANIFEST:      "dtype": "i64",
// MANIFEST-NEXT: "name": "ws1",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "zero_init": true
// MANIFEST-NOT:  "memset
// MANIFEST:      "kernel": "sigreg_single_launch",
// MANIFEST:      "region": "single_launch",
// MANIFEST-NEXT: "shared_bytes": 131072
// MANIFEST-NOT:  "op":

// The GEMM on tensor cores: x staged in dynamic shared memory by TMA boxes
// (by rule at blog's shape), read by 8-byte shared loads; g in registers,
// generated 6 step groups ahead of its MMAs (by rule).
// The grid (128 blocks) is one block per multiprocessor, which the kernel
// tells ptxas (single-launch-minctasm's rule), in clusters of 2 that share
// the copies of x (by rule; the cluster barrier after the mbarriers'
// initialization arrived relaxed).
// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX: .maxntid 256, 1, 1
// PTX-NEXT: .minnctapersm 1
// PTX-NEXT: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX: .shared .align 16 .b8 __wg_sigreg_single_launch_0[8704];
// PTX: fence.mbarrier_init.release.cluster
// PTX: barrier.cluster.arrive.relaxed.aligned
// PTX-NEXT: barrier.cluster.wait.aligned
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX: ld.shared.v2.b32
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: shfl.sync.bfly.b32
// The loss: one relaxed 64-bit atomic add per block, no fence.
// PTX-NOT: fence
// PTX: atom.global.add.u64
// PTX-NOT: fence
// PTX-NOT: .extern .func

// x staged in clusters of 4 (--single-launch-stage-x=4): the kernel
// declares its cluster (launched plainly), initializes its mbarriers
// cluster-wide, and each block's copies go to the four blocks at once.
// CLUSTER: .reqnctapercluster 4, 1, 1
// CLUSTER: fence.mbarrier_init.release.cluster
// CLUSTER: barrier.cluster.arrive.relaxed.aligned
// CLUSTER-NEXT: barrier.cluster.wait.aligned
// CLUSTER: mov.u32 %r{{[0-9]+}}, %cluster_ctarank
// CLUSTER: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%rd{{[0-9]+}}], %rs{{[0-9]+}}
// PTXASC: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXASC: 0 bytes spill stores, 0 bytes spill loads

// The projection's square roots: by default libdevice's approximate one
// (the GPU's g may differ from the host's in the last bit); with
// --precise-sqrt (--sigreg-precise-sqrt) correctly rounded, none approximate,
// and the GPU's g is the host's bit for bit.
// APPROX: sqrt.approx.f32
// SQRT: sqrt.rn.f32

// libdevice's sin/cos keep a 28-byte local array for their |x| > 105615
// reduction, a path the ECF's angles never take; no spills. 112 registers:
// the 6 step groups generated ahead hold 24 of them (and .minnctapersm 1
// lets ptxas use them).
// PTXAS: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXAS: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 112 registers
// With bulk copies and no groups ahead (the rule before; --single-launch-
// stage-tma=0 --single-launch-gen-ahead=0), 54 registers: with .minnctapersm
// 1 ptxas schedules the k loop with its shared loads of x at the top, as it
// did while the ECF's full butterfly needed 71. With --single-launch-
// minctasm=0 too (no .minnctapersm) ptxas fits the whole kernel to the 42
// registers the stages after the loop need, and sinks the loop's loads of x
// to its MMAs (measured 0.9 us slower on the H100).
// BULK-NOT: cp.async.bulk.tensor
// BULK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// BULK-NOT: cp.async.bulk.tensor
// BULKMAP-NOT: "tensor_map"
// BULKMAP: "shared_bytes": 132096
// PTXASB: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXASB: Used 54 registers
// NOMIN: .maxntid 256, 1, 1
// PTXASM: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXASM: Used 42 registers
// BADMIN: single-launch-minctasm must be -1 (by rule), 0 (none) or a block count from 1 to 32, got -2

// In blocks of 16 warps (--single-launch-warps=16): 512 threads, still no
// spills (70 registers with x staged and 2 of the 4 step groups generated
// ahead, within the 128 a 512-thread block allows).
// W16:      "block": [
// W16-NEXT:   512,
// W16:      "kernel": "sigreg_single_launch",
// PTXAS16: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXAS16: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS16: Used 70 registers

// In blocks of 4 warps (--single-launch-warps=4): 128 threads, no spills.
// W4:       "block": [
// W4-NEXT:    128,
// W4:       "kernel": "sigreg_single_launch",
// PTXAS4: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXAS4: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The GEMM's g: by rule at blog's 32-row tile the projection kernels' fast
// mapping (lg2.approx.ftz, sin/cos.approx per Box-Muller pair), its k walk
// staggered (single-launch-kernel.mlir); with --single-launch-stagger=0
// the walk is not staggered but the 32 x 2048 tile still takes the fast
// mapping (kSingleLaunchFastNormalsMaxTile); with --fast-normals=false as
// well, the exact mapping (its log through the correctly rounded division
// of the polynomial mapping, no approximate log2: the ECF's one
// sin.approx/cos.approx pair only), 95 registers.
// EXACT-NOT: lg2.approx
// EXACT:     div.rn.f32
// EXACT-NOT: lg2.approx
// FAST:      lg2.approx.ftz.f32
// FAST:      sin.approx.f32
// PTXASE: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXASE: Used 95 registers
// With --single-launch-prefetch-x (and 4 steps per iteration, as measured:
// slower on the H200) the next step group's 32 x words stay in
// registers across the loop's back edge: 128 registers, no spills.
// PTXASX: Compiling entry function 'sigreg_single_launch' for 'sm_90a'
// PTXASX: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXASX: Used 128 registers
// The TMA boxes (by rule; --single-launch-stage-tma=1 where the rule does
// not take them): x's tensor map is the kernel's last parameter
// (128 bytes, 64-byte aligned), thread 0 prefetches it, and the copies are
// 2-D TMA boxes multicast to the pair; the manifest tells the runtime to
// encode it over the bound x ([32, 2048] innermost first: 2048 features of
// 4096-byte rows, boxes of 64 x 32, 128-byte swizzle).
// TMAPTX: .extern .shared .align 1024 .b8
// TMAPTX: .param .align 64 .b8 sigreg_single_launch_param_5[128]
// TMAPTX: .reqnctapercluster 2, 1, 1
// TMAPTX: prefetch.param.tensormap
// TMAPTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// TMAPTX-NOT: cp.async.bulk.shared::cluster.global
// TMAMAP:      "tensor_map": {
// TMAMAP-NEXT:   "box": [
// TMAMAP-NEXT:     64,
// TMAMAP-NEXT:     32
// TMAMAP-NEXT:   ],
// TMAMAP-NEXT:   "buffer": "x",
// TMAMAP-NEXT:   "dims": [
// TMAMAP-NEXT:     2048,
// TMAMAP-NEXT:     32
// TMAMAP:        "strides": [
// TMAMAP-NEXT:     4096
// TMAMAP-NEXT:   ],
// TMAMAP-NEXT:   "swizzle": "128b"
// BADSTAGGER: single-launch-stagger must be -1 (by rule), 0 (never) or 1 (wherever the steps allow), got 2
func.func @sigreg(%x: tensor<?x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
