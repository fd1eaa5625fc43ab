// Issue 11: validation that cannot pass vacuously, and clipping that cannot
// hide a wrong statistic.
//
// A clip threshold above every statistic clips every slice: loss and
// reference are then exactly 0 (zero_below) or the threshold (clamp_min)
// whatever the kernels computed. The check used to pass; it fails now
// (exit 1) and says why.
// RUN: not sigreg-run --target=cpu --entry=all_zero %s | FileCheck %s --check-prefix=ZERO
// ZERO: FAIL: vacuous check: every slice's statistic is clipped (choose inputs or a clip value that leave some slices unclipped)
// RUN: not sigreg-run --target=cpu --entry=all_clamped %s | FileCheck %s --check-prefix=CLAMP
// CLAMP: FAIL: vacuous check: every slice's statistic is clipped
// RUN: (sigreg-run --target=cpu --entry=all_clamped %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT1
// EXIT1: exit=1
//
// With a clip, sigreg-run also runs the entry with clip none and reduction
// none and compares every unclipped statistic with the reference.
// RUN: sigreg-run --target=cpu --entry=some_clipped %s | FileCheck %s --check-prefix=SOME
// SOME: PASS: max relative error
// SOME: unclipped statistics   PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)

func.func @all_zero(%x: tensor<2x40x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 9 clip = zero_below(1.0e+03) : tensor<2x40x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @all_clamped(%x: tensor<2x40x16xf32>, %seed: i64) -> tensor<2x8xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 9 clip = clamp_min(1.0e+03) reduction = none : tensor<2x40x16xf32> -> tensor<2x8xf32>
  return %l : tensor<2x8xf32>
}

func.func @some_clipped(%x: tensor<2x40x16xf32>, %seed: i64) -> tensor<2x8xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 9 clip = zero_below(0.5) reduction = none : tensor<2x40x16xf32> -> tensor<2x8xf32>
  return %l : tensor<2x8xf32>
}
