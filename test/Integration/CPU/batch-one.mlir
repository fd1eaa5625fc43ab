// N = 1: the batch mean of the ECF is a single sample, cos/sin of one
// projection; T = N * sum_p w_p ((cos - phi)^2 + sin^2) is still defined.

// RUN: sigreg-run --target=cpu --entry=static_views %s | FileCheck %s --check-prefix=STATIC
// RUN: sigreg-run --target=cpu --entry=dynamic --shape=1x16 %s | FileCheck %s --check-prefix=DYN
// RUN: sigreg-run --target=cpu --entry=dynamic --shape=1x16 --dtype=bf16 %s | FileCheck %s --check-prefix=DYN-BF16

// STATIC: sigreg-run: target=cpu entry=@static_views x=2x1x16xf32 S=5 P=7 t_max=3 clip=none reduction=none projection=seed
// STATIC: unwritten {{ *}}0 of 10
// STATIC-NEXT: PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)
// DYN:    sigreg-run: target=cpu entry=@dynamic x=1x16xf32 S=5 P=17 t_max=3 clip=none reduction=mean projection=seed
// DYN:    PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// DYN-BF16: sigreg-run: target=cpu entry=@dynamic x=1x16xbf16
// DYN-BF16: PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)

func.func @static_views(%x: tensor<2x1x16xf32>, %seed: i64) -> tensor<2x5xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 5 points = 7 reduction = none : tensor<2x1x16xf32> -> tensor<2x5xf32>
  return %l : tensor<2x5xf32>
}
func.func @dynamic(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 5 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
