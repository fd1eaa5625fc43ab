// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=1 promote-accumulators=4" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=OFF

// Promoted sums on the Hopper kernel's 128 x 64 tile (promote-accumulators=4,
// schedule promote = 4; stage 3b, promoteAccumulator in WgmmaEcfKernel.cpp):
// per-slice statistics of a bf16 input, g split into hi + lo rows, so 32
// k-tiles of 64 features. The rolled mainloop carries the accumulator, the
// ring's parity and 32 promoted f32 sums (zero at first); after every fourth
// k-tile the MMAs complete (wgmma.wait_group 0), the thread's 32 values of
// the accumulator (its struct view, whose casts fold away in
// convert-nvgpu-to-nvvm) are added to the promoted sums and the MMAs start
// again from a zero accumulator. After the loop the last sums are promoted
// the same way and the promoted sums, packed back into an accumulator, are
// what stage 4 stores into the y tile.
// CHECK-LABEL:   gpu.func @sigreg_fused_ecf_wgmma
// CHECK:           %[[INIT:[0-9]+]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x64xf32>>
// CHECK:           %[[LOOP:[0-9]+]]:34 = scf.for %[[STEP:arg[0-9]+]] = %c0 to %c32 step %c1 iter_args(%[[ACC:arg[0-9]+]] = %[[INIT]], %{{.*}} = %false, %[[P0:arg[0-9]+]] = %[[ZERO:cst[_0-9]*]],
// CHECK:             %[[NEXT:[0-9]+]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC]] {transposeB}
// CHECK:             %[[STEP1:[0-9]+]] = arith.addi %[[STEP]], %c1 : index
// CHECK-NEXT:        %[[REM:[0-9]+]] = arith.remui %[[STEP1]], %c4 : index
// CHECK-NEXT:        %[[EVERY:[0-9]+]] = arith.cmpi eq, %[[REM]], %c0 : index
// CHECK-NEXT:        %{{.*}}:33 = scf.if %[[EVERY]] -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>, f32,
// CHECK-NEXT:          %[[FRESH:[0-9]+]] = nvgpu.warpgroup.mma.init.accumulator
// CHECK-NEXT:          nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:          %[[VIEW:[0-9]+]] = builtin.unrealized_conversion_cast %[[NEXT]] : !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>> to !llvm.struct<(struct<(f32, {{.*}})>)>
// CHECK-NEXT:          %[[V0:[0-9]+]] = llvm.extractvalue %[[VIEW]][0, 0]
// CHECK-NEXT:          %[[S0:[0-9]+]] = arith.addf %[[P0]], %[[V0]] : f32
// CHECK-COUNT-31:      llvm.extractvalue %[[VIEW]]
// CHECK:               scf.yield %[[FRESH]], %[[S0]],
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[NEXT]], %[[P0]],
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      %[[LAST:[0-9]+]] = builtin.unrealized_conversion_cast %[[LOOP]]#0
// CHECK-NEXT:      %[[L0:[0-9]+]] = llvm.extractvalue %[[LAST]][0, 0]
// CHECK-NEXT:      arith.addf %[[LOOP]]#2, %[[L0]] : f32
// CHECK-COUNT-32:  llvm.insertvalue
// CHECK-NEXT:      %[[PROMOTED:[0-9]+]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
// CHECK:           nvgpu.warpgroup.mma.store %[[PROMOTED]], %{{.*}} : <fragmented = vector<64x64xf32>>

// Without promotion the same op takes the transposed tile by rule (sigreg_fused_ecf_wgmma_transposed)
// and no sums are promoted.
// OFF-LABEL:     gpu.func @sigreg_fused_ecf_wgmma_transposed
// OFF-NOT:         builtin.unrealized_conversion_cast %{{.*}} : !nvgpu.warpgroup.accumulator
func.func @none_n8192(%x: tensor<8192x1024xbf16>, %seed: i64) -> tensor<1024xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<8192x1024xbf16> -> tensor<1024xf32>
  return %l : tensor<1024xf32>
}
