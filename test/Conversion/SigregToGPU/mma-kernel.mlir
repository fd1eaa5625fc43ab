// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// The mma.sync fused ECF kernel (MmaEcfKernel.cpp) at the largest P: its
// shared buffer holds the y tile (64 x 128 words) and then the upper row
// half's P sums per slice (storeEcfHalves), 65 x 128 = 8320 words: the last
// point's sums go to words 8192 + slice, which wrote past an 8192-word buffer
// before (an illegal address on the H200, f16, N = 1000, D = 520, S = 1032).
// CHECK:       gpu.func @sigreg_fused_ecf_mma(
// CHECK-SAME:      workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>, %[[SMEM:.*]] : memref<8320xi32, #gpu.address_space<workgroup>>)
// CHECK:         %[[AT:.*]] = arith.addi %{{.*}}, %c8192 : index
// CHECK-NEXT:    arith.bitcast
// CHECK-NEXT:    memref.store %{{.*}}, %[[SMEM]][%[[AT]]] : memref<8320xi32, #gpu.address_space<workgroup>>
func.func @p65(%x: tensor<1000x520xf16>, %seed: i64) -> tensor<1032xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1032 points = 65 reduction = none : tensor<1000x520xf16> -> tensor<1032xf32>
  return %l : tensor<1032xf32>
}
