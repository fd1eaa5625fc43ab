// REQUIRES: cuda-toolkit
// libdevice is linked whatever the environment: without CUDA_ROOT /
// CUDA_HOME / CUDA_PATH the pipelines use /usr/local/cuda, so cos/sin/sqrt/fma
// never stay `.extern .func __nv_*` calls that ptxas would reject.
// RUN: env -u CUDA_ROOT -u CUDA_HOME -u CUDA_PATH sigreg-opt %s --sigreg-gpu-pipeline | FileCheck %s
// RUN: env -u CUDA_ROOT -u CUDA_HOME -u CUDA_PATH sigreg-opt %s --sigreg-naive-gpu-pipeline | FileCheck %s

// CHECK:     gpu.binary @sigreg_kernels
// CHECK-NOT: .extern .func
// CHECK-NOT: call.uni (retval0), __nv_
// CHECK:     ">]

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
