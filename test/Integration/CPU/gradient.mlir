// The gradient dL/dx (sigreg.loss_grad, docs/CONTRACT.md section 2) through
// --sigreg-cpu-pipeline (decompose, then the naive lowering of the backward
// ops), validated against the float64 reference gradient: relative L2 error
// <= 1e-3 for f32 and 1e-2 for bf16/f16 inputs. The upstream gradient is all
// ones (for reduction = none that is the gradient of the sum of the
// statistics). The reference norms are pinned, and recomputed from the Python
// side alone by python/tests/test_pinned_references.py.

// RUN: sigreg-run --target=cpu --entry=seeded_mean %s | FileCheck %s --check-prefix=MEAN
// RUN: sigreg-run --target=cpu --entry=seeded_mean --dtype=bf16 %s | FileCheck %s --check-prefix=MEAN-BF16
// RUN: sigreg-run --target=cpu --entry=explicit_none_clamp --shape=37x129 %s | FileCheck %s --check-prefix=NONE
// RUN: sigreg-run --target=cpu --entry=zero_below_sum %s | FileCheck %s --check-prefix=ZB

// MEAN:      sigreg-run: target=cpu entry=@seeded_mean x=3x37x129xf32 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed output=dL/dx
// MEAN:      reference ||dL/dx|| {{ *}}0.1203303
// MEAN:      unwritten {{ *}}0 of 14319
// MEAN-NEXT: PASS: gradient relative L2 error {{.*}} <= 1.0e-03 (f32 inputs)

// MEAN-BF16: x=3x37x129xbf16
// MEAN-BF16: PASS: gradient relative L2 error {{.*}} <= 1.0e-02 (bf16 inputs)

// 36 of the 77 statistics are below 0.7 (clip.mlir): clamp_min gates their
// gradient to 0.
// NONE:      sigreg-run: target=cpu entry=@explicit_none_clamp x=37x129xbf16 S=77 P=9 t_max=3 clip=clamp_min(0.7) reduction=none projection=explicit output=dL/dx
// NONE:      reference ||dL/dx|| {{ *}}16.170606
// NONE:      unwritten {{ *}}0 of 4773
// NONE-NEXT: PASS: gradient relative L2 error {{.*}} <= 1.0e-02 (bf16 inputs)

// ZB:        sigreg-run: target=cpu entry=@zero_below_sum x=2x41x33xf16 S=29 P=17 t_max=3 clip=zero_below(0.9) reduction=sum projection=seed output=dL/dx
// 35 of the 58 statistics are below 0.9 (f16 inputs): zero_below gates them.
// ZB:        reference ||dL/dx|| {{ *}}12.261455
// ZB:        PASS: gradient relative L2 error {{.*}} <= 1.0e-02 (f16 inputs)

func.func @seeded_mean(%x: tensor<3x37x129xf32>, %seed: i64, %g: tensor<f32>) -> tensor<3x37x129xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<3x37x129xf32>
  return %dx : tensor<3x37x129xf32>
}
func.func @explicit_none_clamp(%x: tensor<?x129xbf16>, %a: tensor<129x77xbf16>, %g: tensor<77xf32>) -> tensor<?x129xf32> {
  %dx = sigreg.loss_grad %x projection(%a : tensor<129x77xbf16>) grad(%g : tensor<77xf32>) slices = 77 points = 9 clip = clamp_min(0.7) reduction = none : tensor<?x129xbf16> -> tensor<?x129xf32>
  return %dx : tensor<?x129xf32>
}
func.func @zero_below_sum(%x: tensor<2x41x33xf16>, %seed: i64, %g: tensor<f32>) -> tensor<2x41x33xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 29 clip = zero_below(0.9) reduction = sum : tensor<2x41x33xf16> -> tensor<2x41x33xf32>
  return %dx : tensor<2x41x33xf32>
}
