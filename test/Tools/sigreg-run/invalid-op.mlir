// IR that parses but fails the sigreg verifier is rejected while loading,
// with the verifier's diagnostic at the op's location, exit code 2.

// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// CHECK: invalid-op.mlir:[[@LINE+5]]:8: error: 'sigreg.loss' op number of integration points must be odd and >= 3, got 4
// CHECK-NOT: PASS
// EXIT2: exit=2

func.func @f(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 4 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
