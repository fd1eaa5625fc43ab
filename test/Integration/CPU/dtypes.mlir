// Each input element type as written in the IR (not through --dtype): the
// GEMM reads bf16/f16 and extends to f32; trig and reductions run in f32.

// RUN: sigreg-run --target=cpu --entry=bf16 %s | FileCheck %s --check-prefix=BF16
// RUN: sigreg-run --target=cpu --entry=f16 %s | FileCheck %s --check-prefix=F16
// RUN: sigreg-run --target=cpu --entry=f32 %s | FileCheck %s --check-prefix=F32
// --dtype overrides the element type of x (and of an explicit projection).
// RUN: sigreg-run --target=cpu --entry=bf16 --dtype=f32 %s | FileCheck %s --check-prefix=F32-OVERRIDE

// BF16: sigreg-run: target=cpu entry=@bf16 x=2x45x67xbf16 S=31 P=17 t_max=3 clip=none reduction=mean projection=seed
// BF16: PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// F16:  sigreg-run: target=cpu entry=@f16 x=2x45x67xf16 S=31 P=17 t_max=3 clip=none reduction=mean projection=seed
// F16:  PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)
// F32:  sigreg-run: target=cpu entry=@f32 x=2x45x67xf32 S=31 P=17 t_max=3 clip=none reduction=mean projection=seed
// F32:  PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// F32-OVERRIDE: sigreg-run: target=cpu entry=@bf16 x=2x45x67xf32 S=31
// F32-OVERRIDE: PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

func.func @bf16(%x: tensor<2x45x67xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 31 : tensor<2x45x67xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @f16(%x: tensor<2x45x67xf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 31 : tensor<2x45x67xf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @f32(%x: tensor<2x45x67xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 31 : tensor<2x45x67xf32> -> tensor<f32>
  return %l : tensor<f32>
}
