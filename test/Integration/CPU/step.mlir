// A training step: sigreg.loss and sigreg.loss_grad of the same operands and
// knobs returned by one function, (x, seed or projection, grad) -> (loss,
// dL/dx). sigreg-run validates both results against the float64 reference:
// the loss like a loss, dL/dx like a gradient, for the runners' step
// cotangent 0.75 (kStepCotangent). The seeded_mean problem is gradient.mlir's:
// its reference gradient norm is 0.75 times the one pinned there (0.1203303).

// RUN: sigreg-run --target=cpu --entry=seeded_mean %s | FileCheck %s --check-prefix=MEAN
// RUN: sigreg-run --target=cpu --entry=explicit_sum --shape=53x40 --dtype=bf16 %s | FileCheck %s --check-prefix=SUM
// RUN: sigreg-run --target=cpu --entry=clipped %s | FileCheck %s --check-prefix=CLIP
// RUN: not sigreg-run --target=cpu --entry=mismatched %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not sigreg-run --target=cpu --entry=other_x %s 2>&1 | FileCheck %s --check-prefix=OTHERX

// MEAN:      sigreg-run: target=cpu entry=@seeded_mean x=3x37x129xf32 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed output=loss,dL/dx
// MEAN:      PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// MEAN:      reference ||dL/dx|| {{ *}}0.09024776
// MEAN:      unwritten {{ *}}0 of 14319
// MEAN-NEXT: PASS: gradient relative L2 error {{.*}} <= 1.0e-03 (f32 inputs)

// SUM:       x=53x40xbf16 S=24 P=17 t_max=2 clip=none reduction=sum projection=explicit output=loss,dL/dx
// SUM:       PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// SUM:       unwritten {{ *}}0 of 2120
// SUM-NEXT:  PASS: gradient relative L2 error {{.*}} <= 1.0e-02 (bf16 inputs)

// CLIP:      clip=zero_below(0.9) reduction=sum projection=seed output=loss,dL/dx
// CLIP:      PASS: relative error
// CLIP:      PASS: gradient relative L2 error

// MISMATCH: step.mlir:[[@LINE+20]]:9: error: the training step's sigreg.loss_grad differs from its sigreg.loss in slices, points or t_max
// OTHERX: step.mlir:[[@LINE+25]]:9: error: the training step's sigreg.loss_grad differs from its sigreg.loss in x

func.func @seeded_mean(%x: tensor<3x37x129xf32>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<3x37x129xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<3x37x129xf32>
  return %l, %dx : tensor<f32>, tensor<3x37x129xf32>
}
func.func @explicit_sum(%x: tensor<?x40xf32>, %a: tensor<40x24xf32>, %g: tensor<f32>) -> (tensor<f32>, tensor<?x40xf32>) {
  %l = sigreg.loss %x projection(%a : tensor<40x24xf32>) slices = 24 t_max = 2.0 reduction = sum : tensor<?x40xf32> -> tensor<f32>
  %dx = sigreg.loss_grad %x projection(%a : tensor<40x24xf32>) grad(%g : tensor<f32>) slices = 24 t_max = 2.0 reduction = sum : tensor<?x40xf32> -> tensor<?x40xf32>
  return %l, %dx : tensor<f32>, tensor<?x40xf32>
}
func.func @clipped(%x: tensor<2x41x33xf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<2x41x33xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 29 clip = zero_below(0.9) reduction = sum : tensor<2x41x33xf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 29 clip = zero_below(0.9) reduction = sum : tensor<2x41x33xf16> -> tensor<2x41x33xf32>
  return %l, %dx : tensor<f32>, tensor<2x41x33xf32>
}
func.func @mismatched(%x: tensor<4x16xf32>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<4x16xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 16 : tensor<4x16xf32> -> tensor<4x16xf32>
  return %l, %dx : tensor<f32>, tensor<4x16xf32>
}
func.func @other_x(%x: tensor<4x16xf32>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<4x16xf32>) {
  %y = arith.negf %x : tensor<4x16xf32>
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  %dx = sigreg.loss_grad %y seed(%seed) grad(%g : tensor<f32>) slices = 8 : tensor<4x16xf32> -> tensor<4x16xf32>
  return %l, %dx : tensor<f32>, tensor<4x16xf32>
}
