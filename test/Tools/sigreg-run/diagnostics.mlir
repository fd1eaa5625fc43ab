// User errors are reported as one diagnostic, without a dump of the IR.


// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s
// CHECK:     error: the batch dimension is dynamic: give --shape
// CHECK-NOT: see current operation
// CHECK-NOT: "func.func"
// RUN: not sigreg-run --target=cpu --entry=nope %s 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY:     error: no function named 'nope'
// NOENTRY-NOT: see current operation
// NOENTRY-NOT: "builtin.module"

func.func @f(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
