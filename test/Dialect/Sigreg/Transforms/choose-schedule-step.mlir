// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=false | FileCheck %s --check-prefix=NOHOPPER

// A training step (the loss and its gradient of the same operands) whose
// batch fits one tile of the single launch (singleLaunchStep, EcfSchedule.cpp)
// gets the single launch, which then also writes the backward GEMM's
// operands (single-launch-step.mlir in test/Conversion/SigregToGPU).

// The blog shape: the single launch with g rounded, one batch tile.
// CHECK-LABEL: func.func @blog
// CHECK:         sigreg.fused_ecf {{.*}}schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>
// Without the Hopper kernels (the backward GEMM is one) the step's forward
// is not the single launch.
// NOHOPPER-LABEL: func.func @blog
// NOHOPPER:       schedule = #sigreg.schedule<kernel = simt,
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %l, %dx : tensor<f32>, tensor<32x2048xf32>
}

// -----

// sigreg.loss_grad alone: the backward's chain only, the same schedule.
// CHECK-LABEL: func.func @gradient
// CHECK:         schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>
func.func @gradient(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> tensor<32x2048xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %dx : tensor<32x2048xf32>
}

// -----

// N = 256, D = 1024, S = 256: the loss alone splits the batch into 64-row
// tiles (128 blocks, choose-schedule.mlir); the step keeps one 256-row tile,
// as every block needs its slices' global means.
// CHECK-LABEL: func.func @one_tile
// CHECK:         schedule = #sigreg.schedule<kernel = single_launch, tile = [256, 8], k_tile = 16, batch_tiles = 1, projection = rounded>
func.func @one_tile(%x: tensor<256x1024xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<256x1024xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 reduction = mean : tensor<256x1024xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 256 points = 17 reduction = mean : tensor<256x1024xbf16> -> tensor<256x1024xf32>
  return %l, %dx : tensor<f32>, tensor<256x1024xf32>
}

// -----

// Not a two-launch step: f32 inputs (the backward GEMM takes 16-bit G and
// g), S not a multiple of 8 (TMA), and an explicit projection.
// CHECK-LABEL: func.func @f32_input
// CHECK-NOT:     kernel = single_launch
// CHECK-LABEL: func.func @ragged_slices
// CHECK-NOT:     kernel = single_launch
// CHECK-LABEL: func.func @explicit
// CHECK-NOT:     kernel = single_launch
func.func @f32_input(%x: tensor<32x256xf32>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x256xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 reduction = mean : tensor<32x256xf32> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 256 points = 17 reduction = mean : tensor<32x256xf32> -> tensor<32x256xf32>
  return %l, %dx : tensor<f32>, tensor<32x256xf32>
}
func.func @ragged_slices(%x: tensor<32x256xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x256xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 100 points = 17 reduction = mean : tensor<32x256xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 100 points = 17 reduction = mean : tensor<32x256xbf16> -> tensor<32x256xf32>
  return %l, %dx : tensor<f32>, tensor<32x256xf32>
}
func.func @explicit(%x: tensor<32x256xbf16>, %a: tensor<256x64xbf16>, %g: tensor<f32>) -> (tensor<f32>, tensor<32x256xf32>) {
  %l = sigreg.loss %x projection(%a : tensor<256x64xbf16>) slices = 64 points = 17 reduction = mean : tensor<32x256xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x projection(%a : tensor<256x64xbf16>) grad(%g : tensor<f32>) slices = 64 points = 17 reduction = mean : tensor<32x256xbf16> -> tensor<32x256xf32>
  return %l, %dx : tensor<f32>, tensor<32x256xf32>
}

// -----

// A large training step: the loss alone takes the transposed Hopper tile
// [256, 128] (choose-schedule.mlir); with its gradient the forward keeps
// the 128-row tile, whose y --sigreg-save-slices stores for the backward.
// CHECK-LABEL: func.func @large_step
// CHECK:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 64, projection = rounded, cluster = 2>
func.func @large_step(%x: tensor<8192x4096xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<8192x4096xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 reduction = mean : tensor<8192x4096xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 4096 points = 17 reduction = mean : tensor<8192x4096xbf16> -> tensor<8192x4096xf32>
  return %l, %dx : tensor<f32>, tensor<8192x4096xf32>
}
