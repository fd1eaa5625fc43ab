// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=false --convert-sigreg-to-gpu=hopper=false --canonicalize --cse | FileCheck %s

// A seed from a step counter (device-step.mlir) on the mma.sync kernel (sm_90
// without the Hopper kernel), whose batch tiles sigreg_ecf_finalize adds:
// the epilogue kernel's thread that writes the loss (in the last of its two
// blocks) advances the counter; the packed projection kernel reads it.
// CHECK-LABEL: func.func @tall(
// CHECK-SAME:    %{{.*}}: tensor<8192x64xbf16>, %[[STEP:[^:]*]]: memref<i64>)
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_packed blocks {{.*}} args(%[[STEP]] : memref<i64>,
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_mma
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%c2, %c1, %c1) {{.*}}, %[[STEP]] : memref<i64>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK-LABEL: gpu.func @sigreg_epilogue(
// CHECK-SAME:    %[[OUT:[^:]*]]: memref<f32>, %{{.*}}: memref<1xi32>, %{{.*}}: memref<2xf32>, %[[CTR:[^:]*]]: memref<i64>)
// CHECK:         memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[CTR]][] : memref<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.addi %[[V]], %{{.*}} : i64
// CHECK-NEXT:    memref.store %[[N]], %[[CTR]][] : memref<i64>
func.func @tall(%x: tensor<8192x64xbf16>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 17 : tensor<8192x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
