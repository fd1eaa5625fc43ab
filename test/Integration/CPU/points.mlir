// Number of integration points P from 3 to 33, and t_max other than 3
// (V=2, N=23, D=19, S=13, f32 unless noted).

// RUN: sigreg-run --target=cpu --entry=p3 %s | FileCheck %s --check-prefix=P3
// RUN: sigreg-run --target=cpu --entry=p5 %s | FileCheck %s --check-prefix=P5
// RUN: sigreg-run --target=cpu --entry=p17 %s | FileCheck %s --check-prefix=P17
// RUN: sigreg-run --target=cpu --entry=p33 %s | FileCheck %s --check-prefix=P33
// RUN: sigreg-run --target=cpu --entry=p33 --dtype=bf16 %s | FileCheck %s --check-prefix=P33-BF16

// P3:  sigreg-run: target=cpu entry=@p3 x=2x23x19xf32 S=13 P=3 t_max=3 clip=none
// P3:  PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// P5:  sigreg-run: target=cpu entry=@p5 x=2x23x19xf32 S=13 P=5 t_max=2.5 clip=none reduction=none
// P5:  unwritten {{ *}}0 of 26
// P5:  PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)
// P17: sigreg-run: target=cpu entry=@p17 x=2x23x19xf32 S=13 P=17 t_max=3 clip=none reduction=sum
// P17: PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// P33: sigreg-run: target=cpu entry=@p33 x=2x23x19xf32 S=13 P=33 t_max=5 clip=none
// P33: PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)
// P33-BF16: sigreg-run: target=cpu entry=@p33 x=2x23x19xbf16 S=13 P=33 t_max=5
// P33-BF16: PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)

func.func @p3(%x: tensor<2x23x19xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 13 points = 3 : tensor<2x23x19xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @p5(%x: tensor<2x23x19xf32>, %seed: i64) -> tensor<2x13xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 13 points = 5 t_max = 2.5 reduction = none : tensor<2x23x19xf32> -> tensor<2x13xf32>
  return %l : tensor<2x13xf32>
}
func.func @p17(%x: tensor<2x23x19xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 13 reduction = sum : tensor<2x23x19xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @p33(%x: tensor<2x23x19xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 13 points = 33 t_max = 5.0 : tensor<2x23x19xf32> -> tensor<f32>
  return %l : tensor<f32>
}
