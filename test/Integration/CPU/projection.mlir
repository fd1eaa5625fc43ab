// An explicit projection operand instead of a seed. sigreg-run generates A
// (the same Philox mapping, rounded to the input dtype) and passes it in;
// the reference uses the rounded matrix.

// RUN: sigreg-run --target=cpu --entry=explicit_rank3 %s | FileCheck %s --check-prefix=R3
// RUN: sigreg-run --target=cpu --entry=explicit_rank3 --dtype=bf16 %s | FileCheck %s --check-prefix=R3-BF16
// RUN: sigreg-run --target=cpu --entry=explicit_rank2 --shape=37x129 %s | FileCheck %s --check-prefix=R2
// With the seed, the generated-in-IR projection and the explicit one use
// the same mapping, so both runs agree with the same reference value.
// RUN: sigreg-run --target=cpu --entry=seeded_rank3 %s | FileCheck %s --check-prefix=SEEDED

// R3:       sigreg-run: target=cpu entry=@explicit_rank3 x=3x37x129xf32 S=77 P=9 t_max=3 clip=none reduction=mean projection=explicit
// R3:       reference {{ *}}0.9704
// R3:       PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// SEEDED:   sigreg-run: target=cpu entry=@seeded_rank3 x=3x37x129xf32 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// SEEDED:   reference {{ *}}0.9704
// SEEDED:   PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

// R3-BF16:  sigreg-run: target=cpu entry=@explicit_rank3 x=3x37x129xbf16 S=77 P=9 t_max=3 clip=none reduction=mean projection=explicit
// R3-BF16:  PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)

// R2:       sigreg-run: target=cpu entry=@explicit_rank2 x=37x129xf16 S=77 P=9 t_max=3 clip=none reduction=none projection=explicit
// R2:       unwritten {{ *}}0 of 77
// R2-NEXT:  PASS: max relative error {{.*}} <= 2.0e-03 (f16 inputs)

func.func @explicit_rank3(%x: tensor<3x37x129xf32>, %a: tensor<129x77xf32>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf32>) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @seeded_rank3(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @explicit_rank2(%x: tensor<?x129xf16>, %a: tensor<129x77xf16>) -> tensor<77xf32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf16>) slices = 77 points = 9 reduction = none : tensor<?x129xf16> -> tensor<77xf32>
  return %l : tensor<77xf32>
}
