// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true --sigreg-save-slices --convert-sigreg-to-gpu="hopper=true defer-cotangent=true" --canonicalize --cse | FileCheck %s

// A seed from sigreg.advance_step (a step counter in device memory): the
// kernels that generate the projection take the counter, memref<i64>, and
// every thread loads the seed from it first; the forward advances it once:
// in the kernel that writes a scalar loss (the single launch's last block,
// the Hopper kernel's tail, the epilogue kernel), so the forward needs no
// launch of its own for it; a per-slice loss has none, and then
// sigreg_advance_step, one thread, runs after the forward's kernels (before
// the backward phase of a step).

// The single launch at the blog shape: the counter is its first argument, no
// other launch; x staged in shared memory (in clusters of 2, by TMA boxes of
// the tensor map that is the last argument) as with a seed argument.
// CHECK-LABEL: func.func @blog(
// CHECK-SAME:    %{{.*}}: tensor<32x2048xbf16>, %[[STEP:.*]]: memref<i64>)
// CHECK-NOT:     sigreg.advance_step
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c131072_i32 args(%[[STEP]] : memref<i64>, %{{.*}} : memref<1x32x2048xbf16>, %{{.*}} : memref<f32>, %{{.*}} : memref<1xi32>, %{{.*}} : memref<1xi64>, %{{.*}} : !llvm.ptr)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @blog(%x: tensor<32x2048xbf16>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// The kernel: the seed loaded at the entry, before the generator's first use;
// seed + 1 stored by the block whose atomic completes the loss word, after it
// wrote the loss and reset the word. With x staged its tensor-core k loop
// counts in i32 as a seed argument's does (narrowKLoop; with x read from L2
// and the seed from the counter ptxas sank the i32 loop's x loads to the
// MMAs, so unstaged it counts in index), and generates g 6 step groups ahead
// as a seed argument's does (the prologue's Philox work takes the seed first;
// the loop runs the first 2 of the warp's 8 groups).
// CHECK-LABEL: gpu.func @sigreg_single_launch(
// CHECK-SAME:    %[[CTR:[^:]*]]: memref<i64>, %{{.*}}: memref<1x32x2048xbf16>, %[[OUT:[^:]*]]: memref<f32>, %{{.*}}: memref<1xi32>, %[[ACC:[^:]*]]: memref<1xi64>, %{{.*}}: !llvm.ptr)
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK:         %[[SEED:.*]] = memref.load %[[CTR]][] : memref<i64>
// CHECK:         nvgpu.tma.async.load
// CHECK:         arith.trunci %[[SEED]] : i64 to i32
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c32_i32 step %c16_i32 iter_args({{.*}}) -> ({{.*}}) : i32 {
// CHECK:           nvvm.mma.sync
// CHECK:         memref.atomic_rmw addi %{{.*}}, %[[ACC]][%{{.*}}] : (i64, memref<1xi64>) -> i64
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK:           memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<1xi64>
// CHECK:           scf.if
// CHECK:             %[[NEXT:.*]] = arith.addi %[[SEED]], %{{.*}} : i64
// CHECK:             memref.store %[[NEXT]], %[[CTR]][] : memref<i64>
// CHECK:         gpu.return

// -----

// A loss per slice: the single launch has no last block, so the advance is a
// launch of its own after it.
// CHECK-LABEL: func.func @per_slice(
// CHECK-SAME:    %{{.*}}: tensor<32x2048xbf16>, %[[STEP:.*]]: memref<i64>)
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks {{.*}} args(%[[STEP]] : memref<i64>,
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_advance_step blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%[[STEP]] : memref<i64>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// The kernel: load, add one, store.
// CHECK-LABEL: gpu.func @sigreg_single_launch(
// CHECK-SAME:    %[[CTR:[^:]*]]: memref<i64>,
// CHECK:         memref.load %[[CTR]][] : memref<i64>
// CHECK-NOT:     memref.store %{{.*}}, %[[CTR]]
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @sigreg_advance_step(
// CHECK-SAME:    %[[CTR:.*]]: memref<i64>) kernel attributes {known_block_size = array<i32: 1, 1, 1>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[CTR]][] : memref<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.addi %[[V]], %[[ONE]] : i64
// CHECK-NEXT:    memref.store %[[N]], %[[CTR]][] : memref<i64>
// CHECK-NEXT:    gpu.return
func.func @per_slice(%x: tensor<32x2048xbf16>, %step: memref<i64>) -> tensor<1024xf32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<32x2048xbf16> -> tensor<1024xf32>
  return %l : tensor<1024xf32>
}

// -----

// A training step at mid (the projection kernel, then the Hopper kernel, whose
// tail writes the loss, and the backward's dL/dy kernel): the projection
// kernel reads the counter, the Hopper kernel's tail advances it (the
// projection kernel completed before the tail's griddepcontrol.wait let the
// mainloop read g); the backward phase reads G and g, not the seed.
// CHECK-LABEL: func.func @mid_step(
// CHECK-SAME:    %{{.*}}: tensor<512x1024xbf16>, %[[STEP:[^:]*]]: memref<i64>,
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_rows blocks {{.*}} args(%[[STEP]] : memref<i64>,
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}}, %[[STEP]] : memref<i64>) {sigreg.programmatic
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_slices
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma {{.*}}sigreg.phase = "backward"
// CHECK-NOT:     sigreg_advance_step
// CHECK:         return
// CHECK-LABEL: gpu.func @sigreg_projection_rows(
// CHECK-SAME:    %[[CTR:[^:]*]]: memref<i64>,
// CHECK-NOT:     gpu.func
// CHECK:         memref.load %[[CTR]][] : memref<i64>
// The tail: the thread whose atomic completes the loss word writes the loss,
// resets the word, then writes seed + 1.
// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma(
// CHECK-SAME:    %[[OUT:[^:]*]]: memref<f32>, %[[WORD:[^:]*]]: memref<1xi64>, %[[CTR:[^:]*]]: memref<i64>)
// CHECK:         memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK-NEXT:    memref.store %c0_i64, %[[WORD]][%c0] : memref<1xi64>
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[CTR]][] : memref<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.addi %[[V]], %{{.*}} : i64
// CHECK-NEXT:    memref.store %[[N]], %[[CTR]][] : memref<i64>
func.func @mid_step(%x: tensor<512x1024xbf16>, %step: memref<i64>, %g: tensor<f32>) -> (tensor<f32>, tensor<512x1024xbf16>) {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 2048 points = 17 : tensor<512x1024xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 2048 points = 17 : tensor<512x1024xbf16> -> tensor<512x1024xf32>
  %dxr = arith.truncf %dx : tensor<512x1024xf32> to tensor<512x1024xbf16>
  return %l, %dxr : tensor<f32>, tensor<512x1024xbf16>
}

// -----

// A batch of 64 tiles: the Hopper kernel, then sigreg_ecf_finalize_loss
// (the finalize and the epilogue), whose block that writes the loss (the
// last to add to the loss word) advances the counter.
// CHECK-LABEL: func.func @tall(
// CHECK-SAME:    %{{.*}}: tensor<8192x64xbf16>, %[[STEP:[^:]*]]: memref<i64>)
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_split_rows blocks {{.*}} args(%[[STEP]] : memref<i64>,
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize_loss blocks in (%c64, %c1, %c1) {{.*}}, %[[STEP]] : memref<i64>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK-LABEL: gpu.func @sigreg_ecf_finalize_loss(
// CHECK-SAME:    %[[OUT:[^:]*]]: memref<f32>, %{{.*}}: memref<1xi64>, %[[CTR:[^:]*]]: memref<i64>)
// CHECK:         memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK:         %[[V:.*]] = memref.load %[[CTR]][] : memref<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.addi %[[V]], %{{.*}} : i64
// CHECK-NEXT:    memref.store %[[N]], %[[CTR]][] : memref<i64>
func.func @tall(%x: tensor<8192x64xbf16>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 17 : tensor<8192x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
