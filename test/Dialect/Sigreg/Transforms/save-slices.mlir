// RUN: sigreg-opt %s --split-input-file --sigreg-save-slices | FileCheck %s
// RUN: sigreg-opt %s --split-input-file "--sigreg-save-slices=max-bytes=0" | FileCheck %s --check-prefix=NEVER
// RUN: sigreg-opt %s --split-input-file "--sigreg-save-slices=max-bytes=16383" | FileCheck %s --check-prefix=SMALL
// RUN: sigreg-opt %s --split-input-file "--sigreg-save-slices=max-bytes=16384" | FileCheck %s --check-prefix=FITS
// RUN: sigreg-opt %s --split-input-file "--sigreg-save-slices=phase=false" | FileCheck %s --check-prefix=YF32

// --sigreg-save-slices: a sigreg.fused_ecf_backward whose input and
// projection are those of an earlier sigreg.fused_ecf scheduled on the
// one-tile Hopper kernel reads that op's new slices result instead of
// recomputing the GEMM, when the slices' bytes fit max-bytes. For 16-bit
// inputs the slices are y's phase, i16 [V, N, S] (2 x 64 x 64 x 2 = 16384
// bytes here); with phase=false, and for f32 inputs, y in f32.

// CHECK-LABEL: func.func @saved(
// CHECK:         %[[C:.*]], %[[S:.*]], %[[Y:.*]] = sigreg.fused_ecf %{{.*}}, %{{.*}} t_max = 2.500000e+00 {schedule = #sigreg.schedule<kernel = wgmma, {{.*}}>} : tensor<2x64x32xbf16>, tensor<32x64xbf16> -> tensor<2x64x9xf32>, slices tensor<2x64x64xi16>
// CHECK:         sigreg.fused_ecf_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} slices(%[[Y]] : tensor<2x64x64xi16>) t_max = 2.500000e+00
// NEVER-LABEL: func.func @saved(
// NEVER-NOT:     slices
// SMALL-LABEL: func.func @saved(
// SMALL-NOT:     slices
// FITS-LABEL:  func.func @saved(
// FITS:          slices tensor<2x64x64xi16>
// YF32-LABEL:     func.func @saved(
// YF32:             %{{.*}}, %{{.*}}, %[[Y:.*]] = sigreg.fused_ecf {{.*}} slices tensor<2x64x64xf32>
// YF32:             sigreg.fused_ecf_backward {{.*}} slices(%[[Y]] : tensor<2x64x64xf32>)
func.func @saved(%x: tensor<2x64x32xbf16>, %a: tensor<32x64xbf16>, %dc: tensor<2x64x9xf32>, %ds: tensor<2x64x9xf32>) -> (tensor<2x64x9xf32>, tensor<2x64x9xf32>, tensor<2x64x32xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a t_max = 2.5 {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<2x64x32xbf16>, tensor<32x64xbf16> -> tensor<2x64x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds t_max = 2.5 : tensor<2x64x32xbf16>, tensor<32x64xbf16>, tensor<2x64x9xf32> -> tensor<2x64x32xf32>
  return %c, %s, %dx : tensor<2x64x9xf32>, tensor<2x64x9xf32>, tensor<2x64x32xf32>
}

// -----

// The forward's kernel cannot store y (mma.sync; likewise SIMT, the single
// launch and the persistent Hopper kernel), or has no schedule yet: nothing
// changes.
// CHECK-LABEL: func.func @not_wgmma(
// CHECK-NOT:     slices
func.func @not_wgmma(%x: tensor<1x64x32xbf16>, %a: tensor<32x64xbf16>, %dc: tensor<1x64x9xf32>, %ds: tensor<1x64x9xf32>) -> (tensor<1x64x9xf32>, tensor<1x64x32xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x64x32xbf16>, tensor<32x64xbf16> -> tensor<1x64x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x32xbf16>, tensor<32x64xbf16>, tensor<1x64x9xf32> -> tensor<1x64x32xf32>
  return %c, %dx : tensor<1x64x9xf32>, tensor<1x64x32xf32>
}
// The transposed tile [256, 128] computes its ECF from its accumulators
// and stores no y: nothing changes.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT:     slices
func.func @transposed(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>, %dc: tensor<1x256x9xf32>, %ds: tensor<1x256x9xf32>) -> (tensor<1x256x9xf32>, tensor<1x512x64xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x512x64xbf16>, tensor<64x256xbf16>, tensor<1x256x9xf32> -> tensor<1x512x64xf32>
  return %c, %dx : tensor<1x256x9xf32>, tensor<1x512x64xf32>
}
// CHECK-LABEL: func.func @unscheduled(
// CHECK-NOT:     slices
func.func @unscheduled(%x: tensor<1x64x32xbf16>, %a: tensor<32x64xbf16>, %dc: tensor<1x64x9xf32>, %ds: tensor<1x64x9xf32>) -> (tensor<1x64x9xf32>, tensor<1x64x32xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x32xbf16>, tensor<32x64xbf16> -> tensor<1x64x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x32xbf16>, tensor<32x64xbf16>, tensor<1x64x9xf32> -> tensor<1x64x32xf32>
  return %c, %dx : tensor<1x64x9xf32>, tensor<1x64x32xf32>
}

// -----

// Another projection, or a forward after the backward: not the backward's
// slices.
// CHECK-LABEL: func.func @other_projection(
// CHECK-NOT:     slices
func.func @other_projection(%x: tensor<1x64x32xbf16>, %a: tensor<32x64xbf16>, %b: tensor<32x64xbf16>, %dc: tensor<1x64x9xf32>, %ds: tensor<1x64x9xf32>) -> (tensor<1x64x9xf32>, tensor<1x64x32xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x64x32xbf16>, tensor<32x64xbf16> -> tensor<1x64x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %b, %dc, %ds : tensor<1x64x32xbf16>, tensor<32x64xbf16>, tensor<1x64x9xf32> -> tensor<1x64x32xf32>
  return %c, %dx : tensor<1x64x9xf32>, tensor<1x64x32xf32>
}
// CHECK-LABEL: func.func @forward_after(
// CHECK-NOT:     slices
func.func @forward_after(%x: tensor<1x64x32xbf16>, %a: tensor<32x64xbf16>, %dc: tensor<1x64x9xf32>, %ds: tensor<1x64x9xf32>) -> (tensor<1x64x9xf32>, tensor<1x64x32xf32>) {
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x32xbf16>, tensor<32x64xbf16>, tensor<1x64x9xf32> -> tensor<1x64x32xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x64x32xbf16>, tensor<32x64xbf16> -> tensor<1x64x9xf32>
  return %c, %dx : tensor<1x64x9xf32>, tensor<1x64x32xf32>
}

// -----

// An f32 input (the Hopper kernel multiplies its bf16 hi + lo parts, a
// schedule the verifier allows for a loss reduced over the slices: the
// returned means say so) saves y in f32 even with phase (the default): the
// phase is for 16-bit inputs. 2 x 64 x 64 x 4 = 32768 bytes, which
// max-bytes=16384 does not fit.
// CHECK-LABEL: func.func @saved_f32(
// CHECK:         %{{.*}}, %{{.*}}, %[[Y:.*]] = sigreg.fused_ecf {{.*}} slices tensor<2x64x64xf32>
// CHECK:         sigreg.fused_ecf_backward {{.*}} slices(%[[Y]] : tensor<2x64x64xf32>)
// FITS-LABEL:  func.func @saved_f32(
// FITS-NOT:      slices
func.func @saved_f32(%x: tensor<2x64x32xf32>, %a: tensor<32x64xf32>, %dc: tensor<2x64x9xf32>, %ds: tensor<2x64x9xf32>) -> (tensor<2x64x9xf32> {sigreg.reduced}, tensor<2x64x9xf32> {sigreg.reduced}, tensor<2x64x32xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a t_max = 2.5 {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<2x64x32xf32>, tensor<32x64xf32> -> tensor<2x64x9xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds t_max = 2.5 : tensor<2x64x32xf32>, tensor<32x64xf32>, tensor<2x64x9xf32> -> tensor<2x64x32xf32>
  return %c, %s, %dx : tensor<2x64x9xf32>, tensor<2x64x9xf32>, tensor<2x64x32xf32>
}
