// REQUIRES: cuda-toolkit, ptxas
// Issue 11, item 8: ptxas reported an 8-byte spill in sigreg_fused_ecf (the
// SIMT kernel) for f16, N=191, D=13, S=150, P=3: a separate libdevice cosf
// and sinf per element, each with its own slow-path range reduction, pushed
// the kernel to 48 registers and a spill. One sincos per element (math.sincos,
// __nv_sincosf, the same accuracy) leaves 40 registers and no spill.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --pipeline=fused --single-launch=0 --emit-artifact=%t > /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// CHECK: Compiling entry function 'sigreg_fused_ecf' for 'sm_90a'
// CHECK-NEXT: Function properties for sigreg_fused_ecf
// CHECK-NEXT: 0 bytes spill stores, 0 bytes spill loads
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/fused/sigreg.ptx
// PTX-LABEL: .entry sigreg_fused_ecf(
// PTX-NOT: {{sin|cos}}.approx
// PTX: .entry

func.func @sigreg(%x: tensor<191x13xf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 150 points = 3 : tensor<191x13xf16> -> tensor<f32>
  return %l : tensor<f32>
}
