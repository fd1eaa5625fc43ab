// REQUIRES: cuda-toolkit
// RUN: env CUDA_HOME=/usr/local/cuda sigreg-opt %s --sigreg-gpu-pipeline=single-launch=0 | FileCheck %s
// RUN: env CUDA_HOME=/usr/local/cuda sigreg-opt %s --sigreg-gpu-pipeline="format=isa block-rows=16 single-launch=0" | FileCheck %s --check-prefix=FIN

// CUDA_HOME is set explicitly here; serialize-libdevice.mlir checks the
// default environment.

// --sigreg-gpu-pipeline=single-launch=0 with the default format (isa): the gpu.module is
// serialized into a gpu.binary holding PTX for sm_90a (libdevice linked for
// cos/sin/sqrt). The PTX is printed escaped on one line (\0A newline, \09
// tab), so the checks below follow it left to right. The only local-memory
// array is libdevice's Payne-Hanek frame (__local_depot, 28 bytes) in the
// trig kernel: the ECF accumulators stay in registers.

// CHECK-LABEL: func.func @loss(
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue
// CHECK-NOT:     gpu.module
// CHECK:       gpu.binary @sigreg_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "
// CHECK-SAME:    .version 8.0\0A.target sm_90a\0A.address_size 64\0A
// CHECK-NOT:   .local
// CHECK:       .visible .entry sigreg_projection(\0A\09.param .u64 sigreg_projection_param_0
// CHECK-NOT:   .local
// CHECK-NOT:   .shared
// CHECK:       .visible .entry sigreg_fused_ecf(
// CHECK-SAME:    .maxntid 256, 1, 1\0A{\0A\09.local .align 4 .b8 \09__local_depot1[28];
// CHECK-NOT:   .local .align
// CHECK:       .shared .align 4 .b8 __wg_sigreg_fused_ecf_0[{{[0-9]+}}];
// CHECK-NOT:   .local .align
// CHECK:       .shared .align 4 .b8 __wg_sigreg_fused_ecf_1[{{[0-9]+}}];
// CHECK:       .shared .align 4 .b8 __wg_sigreg_fused_ecf_2[1024];
// CHECK:       .shared .align 4 .b8 __wg_sigreg_fused_ecf_3[1024];
// CHECK:       .shared .align 4 .b8 __wg_sigreg_fused_ecf_4[64];
// CHECK:       st.shared.b32
// CHECK:       bar.sync \090;
// CHECK:       ld.shared.b32
// CHECK:       fma.rn.f32
// CHECK-NOT:   .local .align
// CHECK-NOT:   sigreg_ecf_finalize
// CHECK:       .visible .entry sigreg_epilogue(
// CHECK-NOT:   .local
// CHECK:       .shared .align 4 .b8 __wg_sigreg_epilogue_0[1024];
// CHECK-NOT:   .local
// CHECK:       bar.sync
// CHECK-NOT:   .local
// CHECK:       ret;\0A\0A}\0A">]

// With block-rows=16 the batch of 37 spans 3 tiles: the finalize kernel is
// in the PTX too, without local memory; the x tile is 16*17 floats.
// FIN:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize
// FIN:         gpu.binary @sigreg_kernels
// FIN:         .shared .align 4 .b8 __wg_sigreg_fused_ecf_0[{{[0-9]+}}];
// FIN:         .visible .entry sigreg_ecf_finalize(
// FIN-NOT:     .local
// FIN:         .visible .entry sigreg_epilogue(

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
