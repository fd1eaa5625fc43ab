// RUN: sigreg-opt %s --sigreg-naive-gpu-pipeline="format=none" | FileCheck %s
// RUN: sigreg-opt %s --sigreg-naive-gpu-pipeline="format=none" | FileCheck %s --check-prefix=COUNT
// RUN: sigreg-opt %s --sigreg-gpu-pipeline="format=none single-launch=0" | FileCheck %s --check-prefix=FUSED

// --sigreg-naive-gpu-pipeline (format=none): the eager-PyTorch-like path on
// the GPU. The host allocates the slices y [1, 37, 77] and the [V, N, S, P]
// = [1, 37, 77, 9] trig buffers, and launches one naive kernel per
// linalg.generic (grid ceil(points / 256)); the fused pipeline on the same
// input does neither.

// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %{{.*}}: memref<37x129xf32>, %{{.*}}: i64, %{{.*}}: memref<f32>) {
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG:     %[[C101:.*]] = arith.constant 101 : index
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_projection_generation_0 {{.*}} {sigreg.region = "projection_generation"}
// CHECK:         memref.alloc() {{.*}}: memref<1x37x77xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_projection_gemm_{{[0-9]+}} blocks in (%[[C12]], {{.*}} {sigreg.region = "projection_gemm"}
// CHECK:         memref.alloc() {{.*}}: memref<1x37x77x9xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_trig_reduction_{{[0-9]+}} blocks in (%[[C101]], {{.*}} args(%{{.*}} : memref<1x37x77xf32>, %{{.*}} : memref<1x37x77x9xf32>) {sigreg.region = "trig_reduction"}
// CHECK:         memref.alloc() {{.*}}: memref<1x37x77x9xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_epilogue_{{[0-9]+}} {{.*}} {sigreg.region = "epilogue"}
// CHECK:         return
// CHECK:       gpu.module @sigreg_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
// CHECK:         llvm.mlir.global private constant @__constant_9xf32
// CHECK:         llvm.func @naive_projection_generation_0(
// CHECK-SAME:      attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK:         llvm.func @naive_trig_reduction_{{[0-9]+}}(
// CHECK-SAME:      nvvm.kernel
// CHECK-NOT:     gpu.func
// CHECK-NOT:     scf.
// CHECK-NOT:     memref.
// CHECK-NOT:     linalg.

// Many launches (one per linalg op: more than a dozen), each region present.
// COUNT-COUNT-12: gpu.launch_func @sigreg_kernels::@naive_
// COUNT-NOT:      sigreg_fused_ecf

// FUSED-LABEL: func.func @loss(
// FUSED-NOT:     memref<1x37x77x9xf32>
// FUSED-NOT:     memref<1x37x77xf32>
// FUSED-NOT:     @naive_
// FUSED:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf
// FUSED-NOT:     memref<1x37x77x9xf32>
// FUSED-NOT:     memref<1x37x77xf32>
// FUSED:         return

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
