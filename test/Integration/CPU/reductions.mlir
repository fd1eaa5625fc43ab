// The three reductions over (views, slices) on the same inputs (V=2, N=41,
// D=33, S=29, P=17, f32). From the per-slice float64 statistics: mean
// 0.99106486, sum = 58 * mean = 57.4817619; reduction none returns all 58.

// RUN: sigreg-run --target=cpu --entry=mean %s | FileCheck %s --check-prefix=MEAN
// RUN: sigreg-run --target=cpu --entry=sum %s | FileCheck %s --check-prefix=SUM
// RUN: sigreg-run --target=cpu --entry=none %s | FileCheck %s --check-prefix=NONE
// RUN: sigreg-run --target=cpu --entry=none_rank2 --shape=41x33 %s | FileCheck %s --check-prefix=NONE2

// MEAN:      sigreg-run: target=cpu entry=@mean x=2x41x33xf32 S=29 P=17 t_max=3 clip=none reduction=mean projection=seed
// MEAN-NEXT: loss
// MEAN-NEXT: reference {{ *}}0.9910648
// MEAN-NEXT: relative error
// MEAN-NEXT: PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

// SUM:       sigreg-run: target=cpu entry=@sum x=2x41x33xf32 S=29 P=17 t_max=3 clip=none reduction=sum projection=seed
// SUM-NEXT:  loss
// SUM-NEXT:  reference {{ *}}57.48176
// SUM-NEXT:  relative error
// SUM-NEXT:  PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

// NONE:      sigreg-run: target=cpu entry=@none x=2x41x33xf32 S=29 P=17 t_max=3 clip=none reduction=none projection=seed
// NONE-NEXT: loss (mean of T)
// NONE-NEXT: reference (mean) {{ *}}0.9910648
// NONE-NEXT: max relative error
// NONE-NEXT: l2 relative error
// NONE-NEXT: unwritten {{ *}}0 of 58
// NONE-NEXT: PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)

// Rank 2 with reduction none returns [S].
// NONE2:     sigreg-run: target=cpu entry=@none_rank2 x=41x33xf32 S=29 P=17 t_max=3 clip=none reduction=none projection=seed
// NONE2:     unwritten {{ *}}0 of 29
// NONE2-NEXT: PASS: max relative error

func.func @mean(%x: tensor<2x41x33xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 29 : tensor<2x41x33xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @sum(%x: tensor<2x41x33xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 29 reduction = sum : tensor<2x41x33xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @none(%x: tensor<2x41x33xf32>, %seed: i64) -> tensor<2x29xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 29 reduction = none : tensor<2x41x33xf32> -> tensor<2x29xf32>
  return %l : tensor<2x29xf32>
}
func.func @none_rank2(%x: tensor<?x33xf32>, %seed: i64) -> tensor<29xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 29 reduction = none : tensor<?x33xf32> -> tensor<29xf32>
  return %l : tensor<29xf32>
}
