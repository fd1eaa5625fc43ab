// --json=<file> writes the results (problem, validation, bench) as JSON.
//

// RUN: rm -f %t.json
// RUN: sigreg-run --target=cpu --json=%t.json %s | FileCheck %s --check-prefix=STDOUT
// STDOUT: PASS
// RUN: FileCheck %s --input-file=%t.json
// CHECK: "problem": {
// CHECK-DAG: "V": 2,
// CHECK-DAG: "N": 5,
// CHECK-DAG: "D": 16,
// CHECK-DAG: "S": 4,
// CHECK-DAG: "P": 17,
// CHECK: "validation": {
// CHECK: "passed": true

func.func @f(%x: tensor<2x5x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<2x5x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
