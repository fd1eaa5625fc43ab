// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true --sigreg-save-slices --convert-sigreg-to-gpu="hopper=true defer-cotangent=true" --canonicalize --cse | FileCheck %s

// The backward GEMM in row parts (backwardGemmParts, docs/BACKWARD.md): where
// dL/dy G lies over the phases that the GEMM alone reads and dL/dx is a
// result of the function, the GEMM runs as 4 launches of a quarter of the row
// tiles each (an i32 argument gives the part's first row tile), each after
// the one before (programmatic: griddepcontrol.wait), and the phases'
// allocation carries sigreg.shares_result: G may lie `offset` bytes into
// dL/dx's buffer, since part j writes dL/dx rows only over G rows that parts
// up to j - 1 have read. At large, with dL/dx in bf16, the offset is a
// quarter of dL/dx (2048 rows x 4096 x 2 bytes): G and dL/dx in 80 MiB, not
// 128.

// CHECK-LABEL: func.func @large_bf16(
// CHECK:         memref.alloc() {sigreg.shares_result = {offset = 16777216 : i64, result = 1 : i64}} : memref<67108864xi8>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_slices
// CHECK:         %[[DX:.*]] = memref.alloc() : memref<8192x4096xbf16>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma_rows blocks in (%c16, %c16, %c1) {{.*}}args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[DX]] : memref<8192x4096xbf16>, %{{.*}} : memref<f32>, %c0_i32 : i32) {sigreg.phase = "backward", sigreg.region = "backward_gemm"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma_rows blocks in (%c16, %c16, %c1) {{.*}}args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[DX]] : memref<8192x4096xbf16>, %{{.*}} : memref<f32>, %c16_i32 : i32) {sigreg.programmatic, sigreg.region = "backward_gemm"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma_rows {{.*}}%c32_i32 : i32) {sigreg.programmatic
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma_rows {{.*}}%c48_i32 : i32) {sigreg.programmatic
// CHECK-NEXT:    return
// The part's first row tile is added to the block's.
// CHECK:       gpu.func @sigreg_project_transpose_wgmma_rows(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<8192x4096xbf16>, %{{.*}}: memref<f32>, %[[FIRST:.*]]: i32)
// CHECK-DAG:     %[[BY:.*]] = gpu.block_id  y
// CHECK-DAG:     %[[F:.*]] = arith.index_cast %[[FIRST]] : i32 to index
// CHECK:         arith.addi %[[BY]], %[[F]] : index
func.func @large_bf16(%x: tensor<8192x4096xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<8192x4096xbf16>) {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<8192x4096xf32>
  %h = arith.truncf %dx : tensor<8192x4096xf32> to tensor<8192x4096xbf16>
  return %l, %h : tensor<f32>, tensor<8192x4096xbf16>
}

// -----

// dL/dx in f32 (4 bytes an element, G's rows take 2): the last part binds.
// It writes dL/dx up to 8192 x 4096 x 4 bytes = 128 MiB while it reads G
// from row 6144 on, 6144 x 4096 x 2 = 48 MiB past G's start: G starts 80 MiB
// in (144 MiB for both, not 192).
// CHECK-LABEL: func.func @large_f32(
// CHECK:         memref.alloc() {sigreg.shares_result = {offset = 83886080 : i64, result = 1 : i64}} : memref<67108864xi8>
// CHECK-COUNT-4: gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma_rows
func.func @large_f32(%x: tensor<8192x4096xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<8192x4096xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<8192x4096xf32>
  return %l, %dx : tensor<f32>, tensor<8192x4096xf32>
}

// -----

// dL/dx returned twice: not one buffer the caller binds (the pipelines copy
// the second), so nothing may share it; one launch.
// CHECK-LABEL: func.func @returned_twice(
// CHECK-NOT:     sigreg.shares_result
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma blocks in (%c16, %c64, %c1)
// CHECK-NOT:     sigreg_project_transpose_wgmma
// CHECK:         return
func.func @returned_twice(%x: tensor<8192x4096xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<8192x4096xf32>, tensor<8192x4096xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<8192x4096xf32>
  return %l, %dx, %dx : tensor<f32>, tensor<8192x4096xf32>, tensor<8192x4096xf32>
}

// -----

// Mid (8 row tiles of 8 CTAs): a quarter of the rows would not fill the
// GPU; one launch, no sharing.
// CHECK-LABEL: func.func @mid(
// CHECK-NOT:     sigreg.shares_result
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma blocks in
// CHECK-NOT:     sigreg_project_transpose_wgmma
// CHECK:         return
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<1024x1024xbf16>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<1024x1024xf32>
  %h = arith.truncf %dx : tensor<1024x1024xf32> to tensor<1024x1024xbf16>
  return %l, %h : tensor<f32>, tensor<1024x1024xbf16>
}
