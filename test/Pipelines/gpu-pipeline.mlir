// RUN: sigreg-opt %s --sigreg-gpu-pipeline="format=none single-launch=0" | FileCheck %s
// RUN: sigreg-opt %s --sigreg-gpu-pipeline="format=none chip=sm_80 features=+ptx75 block-rows=16 block-slices=64 single-launch=0" | FileCheck %s --check-prefix=OPTS
// RUN: not sigreg-opt %s --sigreg-gpu-pipeline="format=none block-slices=24 single-launch=0" 2>&1 | FileCheck %s --check-prefix=BADTILE

// --sigreg-gpu-pipeline=single-launch=0 with format=none stops before serialization: the
// host function launches the fused kernels (no [V, N, S, P] buffer, no y),
// the kernels are in the LLVM dialect with NVVM attributes and intrinsics,
// libdevice functions declared, workgroup buffers as addr_space 3 globals.

// CHECK-LABEL: func.func @loss(
// CHECK-SAME:      %{{.*}}: memref<37x129xf32>, %{{.*}}: i64, %{{.*}}: memref<f32>) {
// CHECK-NOT:     memref<1x37x77x9xf32>
// CHECK-NOT:     memref<1x37x77xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection blocks in (%c1, %c9, %c1) threads in (%c256, %c1, %c1) {{.*}} {sigreg.region = "projection_generation"}
// CHECK-NOT:     memref<1x37x77x9xf32>
// CHECK-NOT:     memref<1x37x77xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%c5, %c1, %c1) threads in (%c256, %c1, %c1) {{.*}} {sigreg.region = "trig_reduction"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) {{.*}} {sigreg.region = "epilogue"}
// CHECK-NEXT:    return
// CHECK:       gpu.module @sigreg_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
// CHECK:         llvm.func @sigreg_projection(%{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, sigreg.region = "projection_generation"}
// CHECK:         llvm.mlir.global internal @__wg_sigreg_fused_ecf_0() {addr_space = 3 : i32} : !llvm.array<{{[0-9]+}} x f32>
// CHECK-NEXT:    llvm.mlir.global internal @__wg_sigreg_fused_ecf_1() {addr_space = 3 : i32} : !llvm.array<{{[0-9]+}} x f32>
// CHECK-NEXT:    llvm.mlir.global internal @__wg_sigreg_fused_ecf_2() {addr_space = 3 : i32} : !llvm.array<256 x f32>
// CHECK-NEXT:    llvm.mlir.global internal @__wg_sigreg_fused_ecf_3() {addr_space = 3 : i32} : !llvm.array<256 x f32>
// CHECK-NEXT:    llvm.mlir.global internal @__wg_sigreg_fused_ecf_4() {addr_space = 3 : i32} : !llvm.array<16 x f32>
// CHECK:         llvm.func @__nv_sincosf(f32, !llvm.ptr, !llvm.ptr)
// CHECK:         llvm.func @sigreg_fused_ecf(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, sigreg.region = "trig_reduction"}
// CHECK:           nvvm.read.ptx.sreg.tid.x
// CHECK:           nvvm.read.ptx.sreg.ctaid.z
// CHECK:           nvvm.barrier0
// CHECK:           llvm.call @__nv_sincosf
// CHECK:         llvm.mlir.global internal @__wg_sigreg_epilogue_0() {addr_space = 3 : i32} : !llvm.array<256 x f32>
// CHECK:         llvm.func @sigreg_epilogue(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, sigreg.region = "epilogue"}
// CHECK-NOT:     gpu.func
// CHECK-NOT:     scf.
// CHECK-NOT:     memref.
// CHECK-NOT:     math.
// CHECK-NOT:     sigreg.fused
// CHECK-NOT:     sigreg_ecf_finalize

// Options reach the target attribute and the tile choice: block-rows=16
// gives 3 batch tiles (finalize over ceil(77*9/256) = 3 blocks), 64 slices a
// block gives 2 slice tiles: grid (2, 3, 1).
// OPTS-LABEL:  func.func @loss(
// OPTS:          gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%c2, %c3, %c1)
// OPTS-NEXT:     gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize blocks in (%c3, %c1, %c1) {{.*}} args(%{{.*}} : memref<3x1x77x9xf32>, %{{.*}} : memref<3x1x77x9xf32>, %{{.*}} : memref<1x77x9xf32>, %{{.*}} : memref<1x77x9xf32>)
// OPTS-NEXT:     gpu.launch_func @sigreg_kernels::@sigreg_epilogue
// OPTS:        gpu.module @sigreg_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx75">] {
// OPTS:          llvm.mlir.global internal @__wg_sigreg_fused_ecf_0() {addr_space = 3 : i32} : !llvm.array<{{[0-9]+}} x f32>
// OPTS-NEXT:     llvm.mlir.global internal @__wg_sigreg_fused_ecf_1() {addr_space = 3 : i32} : !llvm.array<{{[0-9]+}} x f32>
// OPTS:          llvm.mlir.global internal @__wg_sigreg_fused_ecf_4() {addr_space = 3 : i32} : !llvm.array<64 x f32>
// OPTS:          llvm.func @sigreg_ecf_finalize(

// BADTILE: error: block-rows and block-slices must be 0 or a power of two up to 256, got 24

func.func @loss(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
