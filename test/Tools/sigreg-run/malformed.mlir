// A parse error is reported at its file:line:col with the offending line,
// exit code 2.

// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// CHECK: malformed.mlir:[[@LINE+6]]:67: error: expected non-function type
// CHECK-NEXT: %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> ->
// CHECK-NOT: PASS
// EXIT2: exit=2

func.func @f(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> ->
}
