// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=CHAIN
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=0 promote-accumulators=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PROMOTE
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=0 promote-accumulators=2" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PROMOTE2

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
// The k-loop (17 k-tiles of 32 features: two k16 steps, each 8 MMAs on g's
// hi words and 8 on its lo words). By default the MMAs accumulate into the
// carried accumulators across every k-tile; with promote-accumulators=1
// each k-tile's first MMAs start from zero and the 32 carried f32
// accumulators add the tile's sums (round-to-nearest arith.addf).
// CHAIN:         gpu.func @sigreg_fused_ecf_mma(
// CHAIN:         %{{.*}}:37 = scf.for %{{.*}} = %c0 to %c17 step %c1 iter_args(%[[A0:[a-z0-9_]+]] = %{{.*}}
// CHAIN:           nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}]
// CHAIN-NOT:       arith.addf %[[A0]],
// CHAIN:           scf.yield
// PROMOTE:       gpu.func @sigreg_fused_ecf_mma(
// PROMOTE:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// PROMOTE:       scf.for %{{.*}} = %c0 to %c17 step %c1 iter_args(%[[A0:[a-z0-9_]+]] = %[[ZERO]]
// PROMOTE-COUNT-8: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]]]
// PROMOTE-NOT:     C[%[[ZERO]],
// PROMOTE-COUNT-24: nvvm.mma.sync
// PROMOTE-NOT:     nvvm.mma.sync
// PROMOTE:         arith.addf %[[A0]], %{{.*}} : f32
// PROMOTE-COUNT-31: arith.addf %arg{{[0-9]+}}, %{{.*}} : f32
// PROMOTE:         scf.yield
// Every second k-tile (promote-accumulators=2): the loop carries 32 promoted
// sums beside the 32 accumulators (69 values with the 5 staged operand
// vectors, 37 without); at an even k-tile count (kt + 1) % 2 ==
// 0 selects promoted + accumulator and a zero accumulator; after the loop
// the two are added.
// PROMOTE2:      gpu.func @sigreg_fused_ecf_mma(
// PROMOTE2:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// PROMOTE2:      %{{.*}}:69 = scf.for %{{.*}} = %c0 to %c17 step %c1 iter_args(%{{.*}} = %[[ZERO]],
// PROMOTE2-COUNT-32: nvvm.mma.sync
// PROMOTE2:        %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// PROMOTE2-NEXT:   %[[SUM:.*]] = arith.addf %arg{{[0-9]+}}, %{{.*}} : f32
// PROMOTE2-NEXT:   arith.select %[[EVEN]], %[[SUM]], %arg{{[0-9]+}} : f32
// PROMOTE2-NEXT:   arith.select %[[EVEN]], %[[ZERO]], %{{.*}} : f32
// PROMOTE2:        scf.yield
// PROMOTE2-COUNT-32: arith.addf
func.func @p65(%x: tensor<1000x520xf16>, %seed: i64) -> tensor<1032xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1032 points = 65 reduction = none : tensor<1000x520xf16> -> tensor<1032xf32>
  return %l : tensor<1032xf32>
}
