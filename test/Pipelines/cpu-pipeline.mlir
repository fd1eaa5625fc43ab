// RUN: sigreg-opt %s --split-input-file --sigreg-cpu-pipeline | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-cpu-pipeline | FileCheck %s --check-prefix=LLVMONLY
// RUN: sigreg-opt %s --split-input-file --sigreg-cpu-pipeline | sigreg-opt --split-input-file --verify-each | FileCheck %s --check-prefix=LLVMONLY
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-lower-naive --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUF

// --sigreg-cpu-pipeline: decompose, naive lowering, bufferization with
// results turned into out-parameters, loops, LLVM dialect.

// Nothing but the llvm dialect (and the builtin module) is left.
// LLVMONLY-NOT: {{[ (](func|linalg|memref|sigreg|tensor|bufferization|scf|cf|arith|math|affine|vector)\.[a-z_]+}}
// LLVMONLY-NOT: unrealized_conversion_cast

// Static [V, N, D] = [1, 37, 129], S = 77, P = 9, seed, mean.
// The entry takes x as a rank-3 memref descriptor (allocated, aligned,
// offset, 3 sizes, 3 strides), the seed, then the 0-d result memref as an
// out-parameter (allocated, aligned, offset), and returns nothing.
// CHECK:       llvm.func @free(!llvm.ptr)
// CHECK:       llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @static_seed_mean(
// CHECK-SAME:      %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME:      %[[SEED:[a-z0-9_]+]]: i64,
// CHECK-SAME:      %[[OUTA:[a-z0-9_]+]]: !llvm.ptr, %[[OUT:[a-z0-9_]+]]: !llvm.ptr, %[[OUTOFF:[a-z0-9_]+]]: i64) {
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:     %[[ALIGN:.*]] = llvm.mlir.constant(64 : index) : i64
// The projection A[129, 77] (9933 f32) ...
// CHECK:         %[[ASZ:.*]] = llvm.getelementptr %[[NULL]][9933] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         llvm.call @malloc
// ... y[1, 37, 77] (2849 f32) ...
// CHECK:         llvm.getelementptr %[[NULL]][2849] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         llvm.call @malloc
// ... and the naive path's [V, N, S, P] = [1, 37, 77, 9] buffer:
// V*N*S*P = 25641 f32 = 102564 bytes (plus alignment padding).
// CHECK:         %[[BIG:.*]] = llvm.getelementptr %[[NULL]][25641] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[BIGB:.*]] = llvm.ptrtoint %[[BIG]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[BIGP:.*]] = llvm.add %[[BIGB]], %[[ALIGN]] : i64
// CHECK-NEXT:    llvm.call @malloc(%[[BIGP]]) : (i64) -> !llvm.ptr
// The trig of the ECF becomes libm-style intrinsics.
// CHECK-DAG:     llvm.intr.cos
// CHECK-DAG:     llvm.intr.sin
// The loss is stored through the out-parameter, and every buffer is freed.
// CHECK:         llvm.store %{{.*}}, %[[OUT]] : f32, !llvm.ptr
// CHECK:         llvm.call @free
// CHECK:         llvm.return{{$}}
// BUF-LABEL: func.func @static_seed_mean(
// BUF-COUNT-3: memref.alloc() {alignment = 64 : i64} : memref<1x37x77x9xf32>
// BUF-NOT:     memref.alloc() {alignment = 64 : i64} : memref<1x37x77x9xf32>
func.func @static_seed_mean(%x: tensor<1x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<1x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Rank 2, dynamic N, bf16 with an explicit projection, reduction none: the
// result [S] is a rank-1 out-parameter; the [V, N, S, P] buffers are sized at
// run time as N * (S * P) = N * 693 f32.
// CHECK-LABEL: llvm.func @dynamic_projection_none(
// CHECK-SAME:      %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %[[N:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME:      %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME:      %{{[a-z0-9_]+}}: !llvm.ptr, %[[OUT:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64) {
// CHECK-DAG:     %[[SP:.*]] = llvm.mlir.constant(693 : index) : i64
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// The bf16 input is extended in the GEMM.
// CHECK:         llvm.fpext %{{.*}} : bf16 to f32
// CHECK:         %[[NSP:.*]] = llvm.mul %[[N]], %[[SP]] : i64
// CHECK:         %[[SZ:.*]] = llvm.getelementptr %[[NULL]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.call @malloc
// CHECK:         llvm.store %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.return{{$}}
// BUF-LABEL: func.func @dynamic_projection_none(
// BUF:         %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<1x?x77xf32>
// BUF-COUNT-3: memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<1x?x77x9xf32>
func.func @dynamic_projection_none(%x: tensor<?x129xbf16>, %a: tensor<129x77xbf16>) -> tensor<77xf32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xbf16>) slices = 77 points = 9 reduction = none : tensor<?x129xbf16> -> tensor<77xf32>
  return %l : tensor<77xf32>
}

// -----

// llvm.emit_c_interface (what sigreg-run sets) adds the _mlir_ciface_ wrapper
// that takes memref descriptors by pointer.
// CHECK-LABEL: llvm.func @c_interface(
// CHECK-LABEL: llvm.func @_mlir_ciface_c_interface(
// CHECK-SAME:      %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: !llvm.ptr)
// CHECK:         llvm.call @c_interface(
func.func @c_interface(%x: tensor<3x5x4xf16>, %seed: i64) -> tensor<3x2xf32> attributes {llvm.emit_c_interface} {
  %l = sigreg.loss %x seed(%seed) slices = 2 points = 3 clip = zero_below(0.5) reduction = none : tensor<3x5x4xf16> -> tensor<3x2xf32>
  return %l : tensor<3x2xf32>
}
