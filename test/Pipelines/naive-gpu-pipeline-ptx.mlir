// REQUIRES: cuda-toolkit
// RUN: env CUDA_HOME=/usr/local/cuda sigreg-opt %s --sigreg-naive-gpu-pipeline | FileCheck %s

// --sigreg-naive-gpu-pipeline with the default isa format: PTX for sm_90a in a
// gpu.binary; the constant tables (t_p, phi_p, w_p) are global arrays, the
// naive kernels use neither shared memory nor barriers. CUDA_HOME is set: see
// serialize-libdevice.mlir.

// CHECK-LABEL: func.func @loss(
// CHECK:         memref.alloc() {{.*}}: memref<1x37x77x9xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_trig_reduction_
// CHECK:       gpu.binary @sigreg_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "
// CHECK-SAME:    .version 8.0\0A.target sm_90a\0A.address_size 64\0A
// CHECK-SAME:    .global .align 64 .b8 __constant_9xf32
// CHECK-NOT:     .shared
// CHECK-NOT:     bar.sync
// CHECK-SAME:    .visible .entry naive_projection_generation_0(
// CHECK-NOT:     .shared
// CHECK-NOT:     bar.sync
// CHECK-SAME:    .visible .entry naive_projection_gemm_
// CHECK-NOT:     .shared
// CHECK-NOT:     bar.sync
// CHECK-SAME:    .visible .entry naive_trig_reduction_
// CHECK-NOT:     .shared
// CHECK-NOT:     bar.sync
// CHECK-SAME:    .visible .entry naive_epilogue_
// CHECK-NOT:     .shared
// CHECK-NOT:     bar.sync
// CHECK-NOT:     .extern .func
// CHECK-SAME:    ">]

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
