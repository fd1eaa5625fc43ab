// RUN: sigreg-opt %s --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true --convert-sigreg-to-gpu=hopper=true --canonicalize --cse | FileCheck %s

// A training step (the loss and its gradient of the same operands) whose
// batch fits one tile of the single launch (singleLaunchStep, EcfSchedule.cpp)
// runs in two launches: sigreg_single_launch writes the loss and, for the
// backward GEMM, G = dL/dy / ||g_s|| and g rounded to the input's type; then
// sigreg_project_transpose_wgmma forms dL/dx = G g^T.

// The schedule's choice is choose-schedule-step.mlir's test.

// The launches: the single launch, then the GEMM as its programmatic
// dependent, reading the G and g buffers it wrote. By rule a training step's
// single launch stages x in dynamic shared memory (single-launch-stage-x,
// single-launch-kernel.mlir's STAGE test): 32 rows of 2 x 2048 + 32 bytes.
// CHECK-LABEL: func.func @blog(
// CHECK-SAME:    %[[X:.*]]: tensor<32x2048xbf16>, %[[SEED:.*]]: i64, %[[GRAD:.*]]: tensor<f32>)
// CHECK:         %[[G:.*]] = memref.alloc() : memref<32x1024xbf16>
// CHECK:         %[[W:.*]] = memref.alloc() : memref<2048x1024xbf16>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c132096_i32 args(%[[SEED]] : i64, {{.*}}, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<f32>, %[[G]] : memref<32x1024xbf16>, %[[W]] : memref<2048x1024xbf16>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         memref.cast %[[G]]
// CHECK:         memref.cast %[[W]]
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma blocks in (%c32, %c1, %c1) {{.*}} {sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// sigreg.loss_grad alone (no loss returned): the same two launches; the
// single launch writes the loss, which the gate of a clipped loss needs, into
// a workspace.
// CHECK-LABEL: func.func @gradient(
// CHECK-SAME:    %{{.*}}: tensor<32x2048xbf16>, %[[SEED:.*]]: i64, %{{.*}}: tensor<f32>)
// CHECK:         %[[LOSS:.*]] = memref.alloc() : memref<f32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch{{.*}} blocks in (%c128, %c1, %c1) {{.*}}args(%[[SEED]] : i64, %{{.*}} : memref<1x32x2048xbf16>, %[[LOSS]] : memref<f32>,
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma{{.*}} {sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// Per-slice (reduction none) on [N, D]: the decomposition reshapes the [S]
// cotangent before the forward, so the single launch, which reads it, can
// (it failed verification when the reshape came after: "operand #0 does not
// dominate this use").
// CHECK-LABEL: func.func @per_slice(
// CHECK-SAME:    %{{.*}}: tensor<96x64xbf16>, %[[SEED:.*]]: i64, %[[G:.*]]: tensor<48xf32>)
// CHECK:         tensor.expand_shape %[[G]]
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch{{.*}} blocks in (%c6, %c1, %c1)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// Written by hand with the cotangent's reshape after the forward (as a
// function holding a loss and its loss_grad decomposes to): the reshape is
// side-effect free and its operand dominates the forward, so the conversion
// moves it before the single launch (availableBefore, moveBefore). A
// cotangent computed from the forward's own results cannot be: next.
// CHECK-LABEL: func.func @cotangent_after_forward(
// CHECK-SAME:    %{{.*}}: tensor<1x96x64xbf16>, %{{.*}}: i64, %[[G:.*]]: tensor<48xf32>)
// CHECK:         tensor.expand_shape %[[G]]
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch{{.*}} blocks in (%c6, %c1, %c1)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// A cotangent computed from the forward's own loss cannot exist before the
// forward (availableBefore): no single-launch step; the forward runs on the
// Hopper kernel with g split into hi + lo parts (per-slice statistics), and
// the backward's kernels read the split's hi rows (the fused backward's
// reinterpret_cast of g; ecf-backward.mlir).
// CHECK-LABEL: func.func @cotangent_from_the_loss(
// CHECK-NOT:     sigreg_single_launch
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_split_rows
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_cotangent
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_wgmma
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma
// CHECK:         return

// The kernel's step stages. Stage 1: the B fragments' g, rounded, stored by
// the writer warps (view 0, row group 0) where d < D and s < S (the values
// rounded in pairs, then taken out of the pair).
// CHECK:       gpu.func @sigreg_single_launch(%{{.*}}: i64, %{{.*}}: memref<1x32x2048xbf16>, %{{.*}}: memref<f32>, %{{.*}}: memref<1xi32>, %{{.*}}: memref<1xi64>, %[[COS:.*]]: memref<1x1024x17xf32>, %[[SIN:.*]]: memref<1x1024x17xf32>, %[[LG:.*]]: memref<f32>, %[[GOUT:.*]]: memref<32x1024xbf16>, %[[WOUT:.*]]: memref<2048x1024xbf16>)
// CHECK:         %[[PAIR:.*]] = arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK:         %[[G0:.*]] = vector.extract %[[PAIR]][0] : bf16 from vector<2xbf16>
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %[[G0]], %[[WOUT]][%{{.*}}, %{{.*}}] : memref<2048x1024xbf16>
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{.*}}, %[[WOUT]][%{{.*}}, %{{.*}}] : memref<2048x1024xbf16>
// CHECK:         nvvm.mma.sync
// Stages 7-8 (the statistics into the loss's 64-bit word), then 7b: the
// tile's means to global memory, a barrier, each slice's cotangent from
// them and the loss's cotangent, and G of every element of the y tile (one
// sincos, the recurrence), stored as bf16.
// CHECK:         memref.atomic_rmw addi %{{.*}}, %{{.*}}[%c0] : (i64, memref<1xi64>) -> i64
// CHECK:         memref.store %{{.*}}, %[[COS]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1024x17xf32>
// CHECK:         memref.store %{{.*}}, %[[SIN]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1024x17xf32>
// CHECK:         gpu.barrier
// CHECK:         memref.load %[[LG]][] : memref<f32>
// CHECK:         memref.load %[[COS]]
// CHECK:         memref.load %[[SIN]]
// CHECK:         nvvm.sin.approx
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         memref.store %{{.*}}, %[[GOUT]][%{{.*}}, %{{.*}}] : memref<32x1024xbf16>
// The last block's reduction of the loss follows.
// CHECK:         gpu.return
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %l, %dx : tensor<f32>, tensor<32x2048xf32>
}

func.func @gradient(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> tensor<32x2048xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %dx : tensor<32x2048xf32>
}

func.func @per_slice(%x: tensor<96x64xbf16>, %seed: i64, %g: tensor<48xf32>) -> tensor<96x64xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<48xf32>) slices = 48 points = 17 reduction = none : tensor<96x64xbf16> -> tensor<96x64xf32>
  return %dx : tensor<96x64xf32>
}

func.func @cotangent_after_forward(%x: tensor<1x96x64xbf16>, %seed: i64, %g: tensor<48xf32>) -> tensor<1x96x64xf32> {
  %a = sigreg.projection seed(%seed) : tensor<64x48xf32>
  %y = sigreg.project %x, %a : tensor<1x96x64xbf16>, tensor<64x48xf32> -> tensor<1x96x48xf32>
  %c, %s = sigreg.ecf %y t_max = 3.0 : tensor<1x96x48xf32> -> tensor<1x48x17xf32>
  %n = arith.constant 96 : index
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x48x17xf32>
  %g2 = tensor.expand_shape %g [[0, 1]] output_shape [1, 48] : tensor<48xf32> into tensor<1x48xf32>
  %dc, %ds = sigreg.ecf_cotangent %cg, %sg, %ng, %g2 t_max = 3.0 reduction = none : tensor<1x48x17xf32>, tensor<1x48xf32>
  %dy = sigreg.ecf_grad %y, %dc, %ds t_max = 3.0 : tensor<1x96x48xf32>, tensor<1x48x17xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x96x48xf32>, tensor<64x48xf32> -> tensor<1x96x64xf32>
  return %dx : tensor<1x96x64xf32>
}

func.func @cotangent_from_the_loss(%x: tensor<96x64xbf16>, %seed: i64) -> (tensor<48xf32>, tensor<96x64xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 48 points = 17 reduction = none : tensor<96x64xbf16> -> tensor<48xf32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%l : tensor<48xf32>) slices = 48 points = 17 reduction = none : tensor<96x64xbf16> -> tensor<96x64xf32>
  return %l, %dx : tensor<48xf32>, tensor<96x64xf32>
}
