// RUN: sigreg-opt %s --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true --convert-sigreg-to-gpu=hopper=true --canonicalize --cse | FileCheck %s

// A training step (the loss and its gradient of the same operands) whose
// batch fits one tile of the single launch (singleLaunchStep, EcfSchedule.cpp)
// runs in two launches: sigreg_single_launch writes the loss and, for the
// backward GEMM, G = dL/dy / ||g_s|| and g rounded to the input's type; then
// sigreg_project_transpose_wgmma forms dL/dx = G g^T.

// The schedule's choice is choose-schedule-step.mlir's test.

// The launches: the single launch, then the GEMM as its programmatic
// dependent, reading the G and g buffers it wrote.
// CHECK-LABEL: func.func @blog(
// CHECK-SAME:    %[[X:.*]]: tensor<32x2048xbf16>, %[[SEED:.*]]: i64, %[[GRAD:.*]]: tensor<f32>)
// CHECK:         %[[G:.*]] = memref.alloc() : memref<32x1024xbf16>
// CHECK:         %[[W:.*]] = memref.alloc() : memref<2048x1024xbf16>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[SEED]] : i64, {{.*}}, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<f32>, %[[G]] : memref<32x1024xbf16>, %[[W]] : memref<2048x1024xbf16>)
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
