// RUN: sigreg-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(sigreg-extern-dynamic-shared-memory))" | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(sigreg-extern-dynamic-shared-memory{alignment=128}))" | FileCheck %s --check-prefix=A128
// RUN: not sigreg-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(sigreg-extern-dynamic-shared-memory{alignment=48}))" 2>&1 | FileCheck %s --check-prefix=BAD

// The zero-sized shared global that convert-gpu-to-nvvm makes for
// gpu.dynamic_shared_memory becomes an external declaration aligned to 1024
// bytes (printed by NVPTX as `.extern .shared .align 1024 .b8 name[]`);
// static shared arrays (the mbarriers, workgroup buffers) and globals in
// other address spaces are left alone.

// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG:     llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-DAG:     llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK-DAG:     llvm.mlir.global internal constant @table(dense<1.000000e+00> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
// A128:          llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global internal constant @table(dense<1.0> : tensor<2xf32>) {addr_space = 1 : i32} : !llvm.array<2 x f32>
}

// BAD: error: alignment must be a power of two, got 48
