// Issue 11: a static tensor<4x4611686018427387904xf32> passed the verifier
// and sigreg-run --target=cpu aborted in malloc (V*N*D wrapped in the host
// vectors). It is now a verifier error at the op: exit 2, nothing run.
// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: not sigreg-run --target=cpu %s 2>/dev/null | count 0
// CHECK: limits-overflow.mlir:[[@LINE+4]]:8: error: 'sigreg.loss' op problem too large: V*N*D = 1*4*4611686018427387904 overflows 64 bits
// EXIT2: exit=2

func.func @wraps(%x: tensor<4x4611686018427387904xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x4611686018427387904xf32> -> tensor<f32>
  return %l : tensor<f32>
}
