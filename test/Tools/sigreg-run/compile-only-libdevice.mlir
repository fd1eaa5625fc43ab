// REQUIRES: cuda-toolkit, ptxas
// Without CUDA_ROOT / CUDA_HOME / CUDA_PATH in the environment, sigreg-run
// --compile-only still writes self-contained PTX (libdevice linked).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env -u CUDA_ROOT -u CUDA_HOME -u CUDA_PATH sigreg-run %s --target=cuda --compile-only --pipeline=both --emit-artifact=%t
// RUN: FileCheck %s --input-file %t/fused/sigreg.ptx
// RUN: FileCheck %s --input-file %t/naive/sigreg.ptx
// RUN: %ptxas -arch=sm_90a %t/fused/sigreg.ptx -o %t/f.cubin
// RUN: %ptxas -arch=sm_90a %t/naive/sigreg.ptx -o %t/n.cubin
// CHECK:     .target sm_90a
// CHECK-NOT: .extern .func
// CHECK:     .visible .entry

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
