// --target=cuda on a machine without a CUDA driver or device: exit code 3
// and the reason, nothing run. --target=auto (the default) falls back to the
// CPU with a note.
// UNSUPPORTED: cuda-gpu

// RUN: not sigreg-run --target=cuda %s 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: sigreg-run: error: --target=cuda: no {{CUDA driver|CUDA device|device}}
// CUDA-NOT: PASS
// RUN: (sigreg-run --target=cuda %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT3
// EXIT3: exit=3

// RUN: sigreg-run %s | FileCheck %s --check-prefix=AUTO
// AUTO:      sigreg-run: no GPU ({{.+}}); running on the CPU
// AUTO-NEXT: sigreg-run: target=cpu entry=@f
// AUTO:      PASS

func.func @f(%x: tensor<2x5x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<2x5x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
