// Clipping of the per-slice statistic T, with a clip value that clips some
// slices but not all. For these inputs (V=3, N=37, D=129, S=77, P=9, f32,
// --seed=0 --input-seed=1) the float64 reference has 107 of the 231 slices
// below 0.7 (T ranges over [0.019, 4.36], mean 0.9704): unclipped mean
// 0.970417263, zero_below(0.7) mean 0.797703836, clamp_min(0.7) mean
// 1.12194626 (computed from the per-slice statistics of reduction = none).
// The reference lines pin those values, so a clip that clipped nothing or
// everything would fail here even if the compiled code agreed with it.
// python/tests/test_pinned_references.py recomputes every pinned value from
// the Python side alone (inputs, Philox mapping, float64 reference).

// RUN: sigreg-run --target=cpu --entry=zero_below_mean %s | FileCheck %s --check-prefix=ZB
// RUN: sigreg-run --target=cpu --entry=clamp_min_mean %s | FileCheck %s --check-prefix=CM
// RUN: sigreg-run --target=cpu --entry=zero_below_none %s | FileCheck %s --check-prefix=ZB-NONE
// RUN: sigreg-run --target=cpu --entry=clamp_min_none %s | FileCheck %s --check-prefix=CM-NONE
// RUN: sigreg-run --target=cpu --entry=zero_below_sum %s | FileCheck %s --check-prefix=ZB-SUM
// RUN: sigreg-run --target=cpu --entry=clamp_min_rank2 --shape=37x129 %s | FileCheck %s --check-prefix=CM-RANK2

// ZB:      sigreg-run: target=cpu entry=@zero_below_mean x=3x37x129xf32 S=77 P=9 t_max=3 clip=zero_below(0.7) reduction=mean projection=seed
// ZB:      reference {{ *}}0.79770383
// ZB:      PASS: relative error

// CM:      sigreg-run: target=cpu entry=@clamp_min_mean x=3x37x129xf32 S=77 P=9 t_max=3 clip=clamp_min(0.7) reduction=mean projection=seed
// CM:      reference {{ *}}1.1219462
// CM:      PASS: relative error

// Per-slice validation: every one of the 231 statistics, clipped or not.
// ZB-NONE:      clip=zero_below(0.7) reduction=none
// ZB-NONE:      reference (mean) {{ *}}0.79770383
// ZB-NONE:      unwritten {{ *}}0 of 231
// ZB-NONE-NEXT: PASS: max relative error

// CM-NONE:      clip=clamp_min(0.7) reduction=none
// CM-NONE:      reference (mean) {{ *}}1.1219462
// CM-NONE:      unwritten {{ *}}0 of 231
// CM-NONE-NEXT: PASS: max relative error

// 231 * 0.797703830 = 184.269587
// ZB-SUM:      clip=zero_below(0.7) reduction=sum
// ZB-SUM:      reference {{ *}}184.26958
// ZB-SUM:      PASS: relative error

// Rank 2, dynamic N = 37, bf16: 36 of the 77 slices are below 0.7.
// CM-RANK2:    sigreg-run: target=cpu entry=@clamp_min_rank2 x=37x129xbf16 S=77 P=9 t_max=3 clip=clamp_min(0.7) reduction=mean projection=seed
// CM-RANK2:    reference {{ *}}1.2417989
// CM-RANK2:    PASS: relative error {{.*}} (bf16 inputs)

func.func @zero_below_mean(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(0.7) : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @clamp_min_mean(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(0.7) : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @zero_below_none(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(0.7) reduction = none : tensor<3x37x129xf32> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}
func.func @clamp_min_none(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(0.7) reduction = none : tensor<3x37x129xf32> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}
func.func @zero_below_sum(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(0.7) reduction = sum : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @clamp_min_rank2(%x: tensor<?x129xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(0.7) : tensor<?x129xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
