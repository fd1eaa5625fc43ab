// --entry selects the function to run; other functions of the module that
// the CPU pipeline cannot compile must not break it.


// RUN: sigreg-run --target=cpu --entry=loss %s 2>&1 | FileCheck %s
// CHECK:     sigreg-run: target=cpu entry=@loss x=4x16xf32 S=8
// CHECK-NOT: error:
// CHECK:     PASS

func.func @elementwise(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = arith.addf %a, %b : tensor<f32>
  return %r : tensor<f32>
}

func.func @loss(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
