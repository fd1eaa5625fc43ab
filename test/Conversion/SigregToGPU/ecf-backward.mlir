// RUN: sigreg-opt %s -split-input-file --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s -split-input-file --convert-sigreg-to-gpu="hopper=1 wgmma-slices=256" --sigreg-gpu-bufferize | FileCheck %s --check-prefix=SLICES256

// The fused backward (docs/BACKWARD.md) on the Hopper kernels, for V = 2
// views of N = 300 rows (ragged: 3 batch tiles of 128), D = 136, S = 72,
// P = 9, bf16, seeded: the DDP split's second entry point, x, seed and the
// ECF cotangents to dL/dx.

// Host: g generated once, rounded to bf16, row-major [D, S]; the ECF
// gradient kernel reads x [V * N, D] and g through the forward's tensor maps
// (boxes 128 x 64 and 64 x 64) and writes G = dL/dy / ||g_s|| as bf16 [V * N,
// S]; the backward GEMM reads G (boxes 128 x 64) and g as a K-major operand
// and writes dx [V * N, D] into the result. Its tile of 128 rows by 256, 128
// or 64 features follows the forward's rule (not the wgmma-slices option):
// 5 x 1 tiles of 256 or 5 x 2 of 128 would leave most multiprocessors idle,
// so 64 features (boxes 64 x 64: 64 features by 64 slices), 5 x 3 tiles of
// 288 threads with the deep ring (192 KB).
// CHECK-LABEL: func.func @backward_entry(
// CHECK-SAME:      %[[X:.*]]: memref<2x300x136xbf16>, %[[SEED:.*]]: i64, %[[DC:.*]]: memref<2x72x9xf32>, %[[DS:.*]]: memref<2x72x9xf32>, %[[OUT:.*]]: memref<2x300x136xf32>)
// CHECK:         %[[G:.*]] = memref.alloc() : memref<136x72xbf16>
// CHECK:         %[[SS:.*]] = memref.alloc() : memref<9x72xf32>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_rows {{.*}} args(%[[SEED]] : i64, %[[G]] : memref<136x72xbf16>, %[[SS]] : memref<9x72xf32>)
// CHECK:         %[[DY:.*]] = memref.alloc() : memref<600x72xbf16>
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<2x300x136xbf16> into memref<600x136xbf16>
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b
// Few tiles (1 x 3 x 2): 128-slice tiles, 288 threads, 96 KB. The
// wgmma-slices option overrides the rule: 256-slice tiles, 384 threads.
// SLICES256: gpu.func @sigreg_ecf_grad_wgmma({{.*}}known_block_size = array<i32: 384, 1, 1>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_grad_wgmma blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})  dynamic_shared_memory_size %{{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[SS]] : memref<9x72xf32>, %[[DC]] : memref<2x72x9xf32>, %[[DS]] : memref<2x72x9xf32>, %[[DY]] : memref<600x72xbf16>) {sigreg.region = "backward_trig"}
// CHECK:         %[[DXROWS:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<2x300x136xf32> into memref<600x136xf32>
// CHECK:         %[[DYU:.*]] = memref.cast %[[DY]] : memref<600x72xbf16> to memref<*xbf16>
// CHECK:         nvgpu.tma.create.descriptor %[[DYU]] box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_project_transpose_wgmma blocks in (%[[C3:.*]], %[[C5:.*]], %{{.*}}) threads in (%[[C288:.*]], %{{.*}}, %{{.*}})  dynamic_shared_memory_size %[[SMEM:.*]] args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[DXROWS]] : memref<600x136xf32>) {sigreg.programmatic, sigreg.region = "backward_gemm"}
// CHECK-NEXT:    return

// The ECF gradient kernel: the forward's stages 1-4 (N-major g boxes,
// transposed B), then stage 5 (emitEcfGradColumns): the coefficients
// t_p dsin / (N ||g_s||) and -t_p dcos / (N ||g_s||) of the thread's slice,
// then per row one range-reduced sincos, the Chebyshev recurrence and two
// FMAs per point, and a bf16 store of G where the slice is inside S (only
// the store is guarded: a branch around the stage makes ptxas serialize the
// wgmmas).
// CHECK-LABEL: gpu.func @sigreg_ecf_grad_wgmma(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<9x72xf32>, %[[GDC:.*]]: memref<2x72x9xf32>, %[[GDS:.*]]: memref<2x72x9xf32>, %[[GOUT:.*]]: memref<600x72xbf16>) kernel
// CHECK-SAME:      known_block_size = array<i32: 288, 1, 1>
// CHECK-SAME:      sigreg.region = "backward_trig"
// CHECK:         nvgpu.warpgroup.mma {{.*}} {transposeB}
// CHECK:         nvgpu.warpgroup.mma.store
// CHECK:         memref.load %[[GDS]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x72x9xf32>
// CHECK:         memref.load %[[GDC]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x72x9xf32>
// CHECK:         arith.negf
// CHECK:         scf.for
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:           llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-COUNT-8:   math.fma
// CHECK:           %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:      %[[AT:.*]] = arith.addi
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.store %[[T]], %[[GOUT]][%[[AT]], %{{.*}}] : memref<600x72xbf16>
// CHECK:         gpu.return

// The backward GEMM: one TMA box of g [64 features][64 slices] per stage
// (K-major B), four k16 wgmmas per 64-deep k-tile without the transpose,
// each with its own descriptors 32 bytes further along the rows; the
// accumulators go through the shared tile to dx: 4 threads per column, each
// 32 rows (part, part + 4, ...), with the row and column clamped to the
// problem (min) instead of a guarded store, and a constant trip count (a
// branch or a run-time count after the wgmmas made ptxas serialize them).
// CHECK-LABEL: gpu.func @sigreg_project_transpose_wgmma(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[DX:.*]]: memref<600x136xf32>) kernel
// CHECK-SAME:      known_block_size = array<i32: 288, 1, 1>
// CHECK-SAME:      sigreg.region = "backward_gemm"
// CHECK:         nvgpu.tma.async.load {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.tma.async.load {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x16xbf16, #gpu.address_space<workgroup>>>
// CHECK:         nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<16x64xbf16, #gpu.address_space<workgroup>>>
// CHECK:         nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {waitGroup = 5 : i64} : <tensor = memref<64x16xbf16, {{.*}}>>, <tensor = memref<16x64xbf16, {{.*}}>>, <fragmented = vector<64x64xf32>>
// CHECK:         nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {waitGroup = 6 : i64}
// CHECK:         nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {waitGroup = 7 : i64}
// CHECK:         nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {waitGroup = 4 : i64}
// CHECK-NOT:     transposeB
// CHECK:         nvgpu.warpgroup.mma.store
// CHECK:         %[[COL:.*]] = arith.min{{[su]}}i %{{.*}}, %{{.*}} : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C32:.*]] step
// CHECK:           %[[ROW:.*]] = arith.min{{[su]}}i %{{.*}}, %{{.*}} : index
// CHECK:           %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<128x64xf32, strided<[68, 1]>, #gpu.address_space<workgroup>>
// CHECK-NOT:       scf.if
// CHECK:           memref.store %[[V]], %[[DX]][%{{.*}}, %{{.*}}] : memref<600x136xf32>
// CHECK:         gpu.return
func.func @backward_entry(%x: tensor<2x300x136xbf16>, %seed: i64, %dc: tensor<2x72x9xf32>, %ds: tensor<2x72x9xf32>) -> tensor<2x300x136xf32> {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds t_max = 2.5 : tensor<2x300x136xbf16>, tensor<136x72xf32>, tensor<2x72x9xf32> -> tensor<2x300x136xf32>
  return %dx : tensor<2x300x136xf32>
}

// -----

// The ECF cotangent kernel (backward of the statistic, clip and reduction),
// one thread per (v, s) = 144 threads in one block: with reduction none the
// cotangent of slice (v, s) is grad[v, s]; zero_below(0.5) gates it to 0
// where the unclipped statistic T < 0.5; then dcos = 2 r count w_p (c -
// phi_p) and dsin = 2 r count w_p s (count = 300; w_0 = dt = 0.375, phi_0 =
// 1).
// CHECK-LABEL: func.func @cotangent(
// CHECK-SAME:      %[[C:.*]]: memref<2x72x9xf32>, %[[S:.*]]: memref<2x72x9xf32>, %[[GR:.*]]: memref<2x72xf32>, %{{.*}}: memref<2x72x9xf32>, %{{.*}}: memref<2x72x9xf32>)
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_cotangent blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%{{.*}}, %[[ONE]], %[[ONE]])  args(%[[C]] : memref<2x72x9xf32>, %[[S]] : memref<2x72x9xf32>, %[[GR]] : memref<2x72xf32>, %{{.*}} : memref<2x72x9xf32>, %{{.*}} : memref<2x72x9xf32>) {sigreg.region = "backward_epilogue"}
// CHECK-LABEL: gpu.func @sigreg_ecf_cotangent(
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[CLIP:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[W0:.*]] = arith.constant 3.750000e-01 : f32
// CHECK-DAG:     %[[ONEF:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[COUNT:.*]] = arith.constant 3.000000e+02 : f32
// CHECK:         %[[R:.*]] = memref.load %{{.*}}[%[[V:.*]], %[[SL:.*]]] : memref<2x72xf32>
// CHECK-NEXT:    %[[C0:.*]] = memref.load %{{.*}}[%[[V]], %[[SL]], %{{.*}}] : memref<2x72x9xf32>
// CHECK-NEXT:    %[[S0:.*]] = memref.load %{{.*}}[%[[V]], %[[SL]], %{{.*}}] : memref<2x72x9xf32>
// CHECK-NEXT:    %[[D0:.*]] = arith.subf %[[C0]], %[[ONEF]] : f32
// CHECK:         %[[T:.*]] = arith.mulf %{{.*}}, %[[COUNT]] : f32
// CHECK-NEXT:    %[[GATE:.*]] = arith.cmpf olt, %[[T]], %[[CLIP]] : f32
// CHECK-NEXT:    %[[RG:.*]] = arith.select %[[GATE]], %[[ZERO]], %[[R]] : f32
// CHECK-NEXT:    %[[RN:.*]] = arith.mulf %[[RG]], %[[COUNT]] : f32
// CHECK-NEXT:    %[[F:.*]] = arith.mulf %[[RN]], %[[TWO]] : f32
// CHECK-NEXT:    %[[F0:.*]] = arith.mulf %[[F]], %[[W0]] : f32
// (c - phi_0) and s of p = 0 are the statistic's, shared by CSE. The P
// values of each (emitSliceCotangent, which the gradient kernel of saved
// slices shares), then the stores.
// CHECK-NEXT:    %[[DC0:.*]] = arith.mulf %[[F0]], %[[D0]] : f32
// CHECK-NEXT:    %[[DS0:.*]] = arith.mulf %[[F0]], %[[S0]] : f32
// CHECK:         memref.store %[[DC0]], %{{.*}}[%[[V]], %[[SL]], %{{.*}}] : memref<2x72x9xf32>
// CHECK-NEXT:    memref.store %[[DS0]], %{{.*}}[%[[V]], %[[SL]], %{{.*}}] : memref<2x72x9xf32>
func.func @cotangent(%c: tensor<2x72x9xf32>, %s: tensor<2x72x9xf32>, %g: tensor<2x72xf32>) -> (tensor<2x72x9xf32>, tensor<2x72x9xf32>) {
  %n = arith.constant 300 : index
  %dc, %ds = sigreg.ecf_cotangent %c, %s, %n, %g clip = zero_below(0.5) reduction = none : tensor<2x72x9xf32>, tensor<2x72xf32>
  return %dc, %ds : tensor<2x72x9xf32>, tensor<2x72x9xf32>
}

// -----

// Saved slices (--sigreg-save-slices): the forward kernel stores y = acc /
// ||g_s|| as f32 [V * N, S] (its last argument, stage 4b emitSliceStore:
// consecutive threads write consecutive slices, only the store guarded; its
// tail adds the 3 batch tiles into the means the entry point returns), and
// the backward forms G from y in sigreg_ecf_grad_slices (no GEMM: a thread
// per slice, 8 rows per block (ecfGradSliceRows: halved from 64 while the grid has fewer than 264 blocks), grid (1, ceil(300 / 8), V)) before the
// backward GEMM.
// CHECK-LABEL: func.func @saved(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x300x136xbf16>, %[[SEED:[^:]*]]: i64, %[[DC:[^:]*]]: memref<2x72x9xf32>, %[[DS:[^:]*]]: memref<2x72x9xf32>
// CHECK:         %[[SS:.*]] = memref.alloc() : memref<9x72xf32>
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<2x300x72xf32>
// CHECK:         %[[YROWS:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<2x300x72xf32> into memref<600x72xf32>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[SS]] : memref<9x72xf32>, %{{.*}} : memref<3x2x9x72xf32>, %{{.*}} : memref<3x2x9x72xf32>, %[[YROWS]] : memref<600x72xf32>, %{{.*}} : memref<2x72x9xf32>, %{{.*}} : memref<2x72x9xf32>, %{{.*}} : memref<2xi32>)
// CHECK:         %[[G:.*]] = memref.alloc() : memref<600x72xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_grad_slices blocks in (%c1, %c38, %c2) threads in (%c256, %c1, %c1)  args(%[[YROWS]] : memref<600x72xf32>, %[[SS]] : memref<9x72xf32>, %[[DC]] : memref<2x72x9xf32>, %[[DS]] : memref<2x72x9xf32>, %[[G]] : memref<600x72xbf16>) {sigreg.programmatic, sigreg.region = "backward_trig"}
// CHECK-NOT:     sigreg_ecf_grad_wgmma
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_project_transpose_wgmma

// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma(
// CHECK-SAME:      %[[YOUT:[^:]*]]: memref<600x72xf32>, %{{.*}}: memref<2x72x9xf32>, %{{.*}}: memref<2x72x9xf32>, %{{.*}}: memref<2xi32>) kernel
// CHECK:         nvgpu.warpgroup.mma.store
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %c72 : index
// CHECK:         %[[NORM:.*]] = math.sqrt
// CHECK:         scf.for
// CHECK:           %[[ACC:.*]] = memref.load %{{.*}} : memref<128x128xf32, strided<[132, 1]>, #gpu.address_space<workgroup>>
// CHECK:           %[[YV:.*]] = arith.mulf %[[ACC]], %{{.*}} : f32
// CHECK:           scf.if %[[INSIDE]] {
// CHECK:             memref.store %[[YV]], %[[YOUT]][%{{.*}}, %{{.*}}] : memref<600x72xf32>
// The ECF stage follows as without the slices.
// CHECK:         llvm.call_intrinsic "llvm.nvvm.sin.approx.f"

// CHECK-LABEL: gpu.func @sigreg_ecf_grad_slices(
// CHECK-SAME:      %[[YIN:.*]]: memref<600x72xf32>, %{{.*}}: memref<9x72xf32>, %[[GDC:.*]]: memref<2x72x9xf32>, %[[GDS:.*]]: memref<2x72x9xf32>, %[[GOUT:.*]]: memref<600x72xbf16>) kernel
// CHECK-SAME:      sigreg.region = "backward_trig"
// A programmatic dependent of the forward: it waits for the forward's
// results before it reads them.
// CHECK:         nvvm.griddepcontrol wait
// CHECK-NOT:     nvgpu
// CHECK:         memref.load %[[GDS]]
// CHECK:         memref.load %[[GDC]]
// Groups of 4 rows: the next group's 4 loads (rows clamped to the block's
// last) are issued before the current group's harmonics.
// CHECK-COUNT-4: memref.load %[[YIN]][%{{.*}}, %{{.*}}] : memref<600x72xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args(%[[CUR:[^ ]*]] = %{{.*}}
// CHECK-COUNT-4:   memref.load %[[YIN]][%{{.*}}, %{{.*}}] : memref<600x72xf32>
// CHECK:           arith.mulf %[[CUR]], %cst{{.*}} : f32
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:           llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-COUNT-16:  math.fma
// CHECK:           %[[GV:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:           memref.store %[[GV]], %[[GOUT]][%{{.*}}, %{{.*}}] : memref<600x72xbf16>
// CHECK:         gpu.return
func.func @saved(%x: tensor<2x300x136xbf16>, %seed: i64, %dc: tensor<2x72x9xf32>, %ds: tensor<2x72x9xf32>) -> (tensor<2x72x9xf32> {sigreg.reduced}, tensor<2x72x9xf32> {sigreg.reduced}, tensor<2x300x136xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %c, %s, %y = sigreg.fused_ecf %x, %a t_max = 2.5 {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 3, projection = rounded>} : tensor<2x300x136xbf16>, tensor<136x72xf32> -> tensor<2x72x9xf32>, slices tensor<2x300x72xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds slices(%y : tensor<2x300x72xf32>) t_max = 2.5 : tensor<2x300x136xbf16>, tensor<136x72xf32>, tensor<2x72x9xf32> -> tensor<2x300x136xf32>
  return %c, %s, %dx : tensor<2x72x9xf32>, tensor<2x72x9xf32>, tensor<2x300x136xf32>
}

// -----

// The cotangent folded into the gradient kernel of saved slices: an
// ecf_cotangent read only by a fused backward with slices emits no kernel
// and no dcos, dsin buffers; sigreg_ecf_grad_slices takes the global means
// and the loss's cotangent and computes each slice's statistic, clip gate
// and cotangent itself before its coefficients.
// CHECK-LABEL: func.func @folded_cotangent(
// CHECK-NOT:     sigreg_ecf_cotangent
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_grad_slices {{.*}} args(%{{.*}} : memref<600x72xf32>, %{{.*}} : memref<9x72xf32>, %{{.*}} : memref<2x72x9xf32>, %{{.*}} : memref<2x72x9xf32>, %{{.*}} : memref<f32>, %{{.*}} : memref<600x72xbf16>)
// CHECK-LABEL: gpu.func @sigreg_ecf_grad_slices(
// CHECK-SAME:      %{{.*}}: memref<600x72xf32>, %{{.*}}: memref<9x72xf32>, %[[FC:.*]]: memref<2x72x9xf32>, %[[FS:.*]]: memref<2x72x9xf32>, %[[FG:.*]]: memref<f32>, %{{.*}}: memref<600x72xbf16>)
// CHECK:         memref.load %[[FG]][] : memref<f32>
// CHECK:         memref.load %[[FC]]
// The zero_below gate on the unclipped statistic.
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:         scf.for
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
func.func @folded_cotangent(%x: tensor<2x300x136xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<2x300x136xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %c, %s, %y = sigreg.fused_ecf %x, %a t_max = 2.5 {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 3, projection = rounded>} : tensor<2x300x136xbf16>, tensor<136x72xf32> -> tensor<2x72x9xf32>, slices tensor<2x300x72xf32>
  %n0 = arith.constant 300 : index
  %cg, %sg, %n = sigreg.all_reduce_mean %c, %s, %n0 : tensor<2x72x9xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %n t_max = 2.5 clip = zero_below(0.5) reduction = mean : tensor<2x72x9xf32> -> tensor<f32>
  %dc, %ds = sigreg.ecf_cotangent %cg, %sg, %n, %g t_max = 2.5 clip = zero_below(0.5) reduction = mean : tensor<2x72x9xf32>, tensor<f32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds slices(%y : tensor<2x300x72xf32>) t_max = 2.5 : tensor<2x300x136xbf16>, tensor<136x72xf32>, tensor<2x72x9xf32> -> tensor<2x300x136xf32>
  return %l, %dx : tensor<f32>, tensor<2x300x136xf32>
}

// -----

// A forward whose g is split into hi + lo parts (projection = split: the
// [2 Dp, S] layout, Dp = 72 rounded up to 128) and a backward on the same
// seeded projection: the backward's Hopper kernels read the split's first D
// rows, g rounded to bf16, through a reinterpret_cast of the buffer's prefix.
// CHECK-LABEL: func.func @split_forward(
// CHECK:         %[[G:.*]] = memref.alloc() : memref<256x48xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_split_rows {{.*}} args(%{{.*}} : i64, %[[G]] : memref<256x48xbf16>,
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma
// CHECK:         %[[HI:.*]] = memref.reinterpret_cast %[[G]] to offset: [0], sizes: [72, 48], strides: [48, 1] : memref<256x48xbf16> to memref<72x48xbf16>
// CHECK:         memref.cast %[[HI]] : memref<72x48xbf16> to memref<*xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_grad_wgmma
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_project_transpose_wgmma
func.func @split_forward(%x: tensor<1x300x72xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<1x300x72xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<72x48xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 3, projection = split>} : tensor<1x300x72xbf16>, tensor<72x48xf32> -> tensor<1x48x17xf32>
  %n0 = arith.constant 300 : index
  %cg, %sg, %n = sigreg.all_reduce_mean %c, %s, %n0 : tensor<1x48x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %n reduction = mean : tensor<1x48x17xf32> -> tensor<f32>
  %dc, %ds = sigreg.ecf_cotangent %cg, %sg, %n, %g reduction = mean : tensor<1x48x17xf32>, tensor<f32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x300x72xbf16>, tensor<72x48xf32>, tensor<1x48x17xf32> -> tensor<1x300x72xf32>
  return %l, %dx : tensor<f32>, tensor<1x300x72xf32>
}
