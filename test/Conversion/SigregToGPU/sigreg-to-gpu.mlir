// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 --sigreg-gpu-bufferize | FileCheck %s --check-prefix=NOBIG
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="block-rows=16 block-slices=64 single-launch=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=OPT
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="block-rows=32 single-launch=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=ROWS32
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 | FileCheck %s --check-prefix=TENSOR

// --convert-sigreg-to-gpu then --sigreg-gpu-bufferize: host code on memrefs
// (results become trailing out-parameters) launching the kernels of
// gpu.module @sigreg_kernels with the schedules of Kernels.cpp /
// docs/GPU-SCHEDULES.md, 256 threads a block:
//   sigreg_projection   grid (ceil(S/256), ceil(D/64), 1)
//   sigreg_fused_ecf    grid (ceil(S/BS), ceil(N/BM), V); BM = 16 if N <= 16,
//                       32 if N <= 32, else 64; BS = 64 halved (down to 16)
//                       while V * ceil(N/BM) * ceil(S/BS) < 264 blocks;
//                       workgroup f32 buffers [16*(BM+1), 16*BS, 16*BS,
//                       16*BS, BS]
//   sigreg_ecf_finalize only when ceil(N/BM) > 1: grid ceil(V*S*P/256)
//   sigreg_epilogue     ceil(V*S/256) blocks, thread = (v, s); mean/sum: a
//                       256-float tree buffer per block and, with several
//                       blocks, the block sums added by the last block
//                       (a zero_init counter)
// Neither the [V, N, S, P] tensor nor y [V, N, S] is ever allocated.

// The pass alone (TENSOR): one pattern per fused op; the function boundary
// stays on tensors. Each op reads its operands through a read-only
// bufferization.to_buffer (the seeded projection's buffers directly: it is
// replaced 1:N by them), writes fresh memref.alloc buffers and yields
// bufferization.to_tensor of its results; --sigreg-gpu-bufferize (the other
// RUN lines) turns the returned allocation into the out-parameter.
// TENSOR-LABEL: func.func @seeded_sum(
// TENSOR-SAME:      %[[X:.*]]: tensor<37x129xf32>, %[[SEED:.*]]: i64) -> tensor<f32> {
// TENSOR:         %[[X3:.*]] = tensor.expand_shape %[[X]]
// TENSOR-NEXT:    %[[G:.*]] = memref.alloc() : memref<129x77xf32>
// TENSOR-NEXT:    %[[SS:.*]] = memref.alloc() : memref<9x77xf32>
// TENSOR:         gpu.launch_func @sigreg_kernels::@sigreg_projection {{.*}} args(%[[SEED]] : i64, %[[G]] : memref<129x77xf32>, %[[SS]] : memref<9x77xf32>)
// TENSOR-NEXT:    %[[XB:.*]] = bufferization.to_buffer %[[X3]] read_only : tensor<1x37x129xf32> to memref<1x37x129xf32>
// TENSOR-NEXT:    %[[COS:.*]] = memref.alloc() : memref<1x77x9xf32>
// TENSOR-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<1x77x9xf32>
// TENSOR:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf {{.*}} args(%[[XB]] : memref<1x37x129xf32>, %[[G]] : memref<129x77xf32>, %[[SS]] : memref<9x77xf32>, %[[COS]] : memref<1x77x9xf32>, %[[SIN]] : memref<1x77x9xf32>)
// TENSOR-NEXT:    %[[COST:.*]] = bufferization.to_tensor %[[COS]] restrict writable : memref<1x77x9xf32> to tensor<1x77x9xf32>
// TENSOR-NEXT:    %[[SINT:.*]] = bufferization.to_tensor %[[SIN]] restrict writable : memref<1x77x9xf32> to tensor<1x77x9xf32>
// TENSOR-NEXT:    %[[COSB:.*]] = bufferization.to_buffer %[[COST]] read_only
// TENSOR-NEXT:    %[[SINB:.*]] = bufferization.to_buffer %[[SINT]] read_only
// TENSOR-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<f32>
// TENSOR:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue {{.*}} args(%[[COSB]] : memref<1x77x9xf32>, %[[SINB]] : memref<1x77x9xf32>, %[[OUT]] : memref<f32>)
// TENSOR-NEXT:    %[[L:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<f32> to tensor<f32>
// TENSOR-NEXT:    return %[[L]] : tensor<f32>
// TENSOR-NOT:     sigreg.{{projection|fused_ecf|all_reduce_mean|fused_epilogue}}

// NOBIG-NOT: memref<1x37x77x9xf32>
// NOBIG-NOT: memref<1x37x77xf32>
// NOBIG-NOT: memref<3x150x100x5xf32>
// NOBIG-NOT: memref<3x150x100xf32>
// NOBIG-NOT: sigreg.fused_ecf
// NOBIG-NOT: sigreg.fused_epilogue

// V=1, N=37, D=129, S=77, P=9, seeded, clamp_min, sum. BM = 64 (one batch
// tile: no finalize); BS: 64 -> 2 blocks, 32 -> 3, 16 -> 5 (floor): grid
// (5, 1, 1). Projection grid (ceil(77/256), ceil(129/16)) = (1, 9): 16-row
// chunks, the fewest rows per chunk (the 64-row default would give 3 blocks).
// CHECK-LABEL: func.func @seeded_sum(
// CHECK-SAME:      %[[X:.*]]: memref<37x129xf32>, %[[SEED:.*]]: i64, %[[OUT:.*]]: memref<f32>) {
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[X3:.*]] = memref.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [1, 37, 129] : memref<37x129xf32> into memref<1x37x129xf32>
// CHECK-NEXT:    %[[G:.*]] = memref.alloc() : memref<129x77xf32>
// CHECK-NEXT:    %[[SS:.*]] = memref.alloc() : memref<9x77xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_projection blocks in (%[[C1]], %[[C9]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[SEED]] : i64, %[[G]] : memref<129x77xf32>, %[[SS]] : memref<9x77xf32>) {sigreg.region = "projection_generation"}
// CHECK-NEXT:    %[[COS:.*]] = memref.alloc() : memref<1x77x9xf32>
// CHECK-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<1x77x9xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C5]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X3]] : memref<1x37x129xf32>, %[[G]] : memref<129x77xf32>, %[[SS]] : memref<9x77xf32>, %[[COS]] : memref<1x77x9xf32>, %[[SIN]] : memref<1x77x9xf32>) {sigreg.region = "trig_reduction"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[COS]] : memref<1x77x9xf32>, %[[SIN]] : memref<1x77x9xf32>, %[[OUT]] : memref<f32>) {sigreg.region = "epilogue"}
// CHECK-NEXT:    return
// CHECK:       gpu.module @sigreg_kernels {
// CHECK:         gpu.func @sigreg_projection(%{{.*}}: i64, %{{.*}}: memref<129x77xf32>, %{{.*}}: memref<9x77xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "projection_generation"}
// CHECK:         gpu.func @sigreg_fused_ecf(%{{.*}}: memref<1x37x129xf32>, %{{.*}}: memref<129x77xf32>, %{{.*}}: memref<9x77xf32>, %{{.*}}: memref<1x77x9xf32>, %{{.*}}: memref<1x77x9xf32>)
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "trig_reduction"}
// CHECK:           math.sqrt
// CHECK:           gpu.barrier
// CHECK:           math.sincos
// CHECK:         gpu.func @sigreg_epilogue(%{{.*}}: memref<1x77x9xf32>, %{{.*}}: memref<1x77x9xf32>, %{{.*}}: memref<f32>)
// CHECK-SAME:      workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "epilogue"}
// CHECK-DAG:       arith.constant 3.700000e+01 : f32
// CHECK-DAG:       arith.constant 5.000000e-01 : f32
// CHECK-DAG:       arith.maximumf
// CHECK:           gpu.return
// CHECK-NOT:     gpu.func
// CHECK-NOT:     sigreg_ecf_finalize
func.func @seeded_sum(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// V=3, N=150, D=40, S=100, P=5, explicit f16 projection, zero_below, none.
// BM = 64, T = ceil(150/64) = 3 batch tiles; BS: 64 -> 18 blocks, 32 -> 36,
// 16 -> 63: grid (7, 3, 3). Per-tile partial sums [3, V, S, P], then
// finalize over ceil(3*100*5/256) = 6 blocks; epilogue (none) writes the
// out-parameter directly with ceil(3*100/256) = 2 blocks. No projection kernel.
// CHECK-LABEL: func.func @multi_tile_none(
// CHECK-SAME:      %[[X:.*]]: memref<3x150x40xf16>, %[[A:.*]]: memref<40x100xf16>, %[[OUT:.*]]: memref<3x100xf32>) {
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT:     sigreg_projection
// CHECK:         %[[COS:.*]] = memref.alloc() : memref<3x100x5xf32>
// CHECK-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<3x100x5xf32>
// CHECK-NEXT:    %[[CP:.*]] = memref.alloc() : memref<3x3x100x5xf32>
// CHECK-NEXT:    %[[SP:.*]] = memref.alloc() : memref<3x3x100x5xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C7]], %[[C3]], %[[C3]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X]] : memref<3x150x40xf16>, %[[A]] : memref<40x100xf16>, %[[CP]] : memref<3x3x100x5xf32>, %[[SP]] : memref<3x3x100x5xf32>) {sigreg.region = "trig_reduction"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize blocks in (%[[C6]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[CP]] : memref<3x3x100x5xf32>, %[[SP]] : memref<3x3x100x5xf32>, %[[COS]] : memref<3x100x5xf32>, %[[SIN]] : memref<3x100x5xf32>) {sigreg.region = "trig_reduction"}
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%[[C2]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[COS]] : memref<3x100x5xf32>, %[[SIN]] : memref<3x100x5xf32>, %[[OUT]] : memref<3x100xf32>) {sigreg.region = "epilogue"}
// CHECK-NEXT:    return
// CHECK:         gpu.func @sigreg_fused_ecf(%{{.*}}: memref<3x150x40xf16>, %{{.*}}: memref<40x100xf16>, %{{.*}}: memref<3x3x100x5xf32>, %{{.*}}: memref<3x3x100x5xf32>)
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:       math.sqrt
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         gpu.func @sigreg_ecf_finalize(%{{.*}}: memref<3x3x100x5xf32>, %{{.*}}: memref<3x3x100x5xf32>, %{{.*}}: memref<3x100x5xf32>, %{{.*}}: memref<3x100x5xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "trig_reduction"}
// CHECK:           arith.constant 1.500000e+02 : f32
// CHECK:         gpu.func @sigreg_epilogue(%{{.*}}: memref<3x100x5xf32>, %{{.*}}: memref<3x100x5xf32>, %{{.*}}: memref<3x100xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "epilogue"}
// CHECK-DAG:       arith.constant 1.500000e+02 : f32
// CHECK-DAG:       arith.cmpf olt
func.func @multi_tile_none(%x: tensor<3x150x40xf16>, %a: tensor<40x100xf16>) -> tensor<3x100xf32> {
  %l = sigreg.loss %x projection(%a : tensor<40x100xf16>) slices = 100 points = 5 clip = zero_below(1.0) reduction = none : tensor<3x150x40xf16> -> tensor<3x100xf32>
  return %l : tensor<3x100xf32>
}

// -----

// Rank 2 with reduction none: the [1, S] statistics are written straight
// into the [S] out-parameter through a memref.expand_shape (no copy).
// N = 10: BM = 16 (workgroup x tile 16*17 = 272 floats).
// CHECK-LABEL: func.func @rank2_none(
// CHECK-SAME:      %{{.*}}: memref<10x16xbf16>, %{{.*}}: i64, %[[OUT:.*]]: memref<8xf32>) {
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf
// CHECK-NEXT:    %[[OUT2:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0, 1]] output_shape [1, 8] : memref<8xf32> into memref<1x8xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue {{.*}} args(%{{.*}} : memref<1x8x17xf32>, %{{.*}} : memref<1x8x17xf32>, %[[OUT2]] : memref<1x8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return
// CHECK:         gpu.func @sigreg_fused_ecf(%{{.*}}: memref<1x10x16xbf16>,
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
func.func @rank2_none(%x: tensor<10x16xbf16>, %seed: i64) -> tensor<8xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = none : tensor<10x16xbf16> -> tensor<8xf32>
  return %l : tensor<8xf32>
}

// -----

// The blog anchor (in f32: bf16/f16 inputs of enough blocks may take the
// tensor-core kernel, whose schedule is not tested here): N=32, D=2048, S=1024. BM = 32, one batch tile; BS: 64 ->
// 16 blocks, 32 -> 32, 16 -> 64: grid (64, 1, 1). Projection grid (4, 74):
// 28-row chunks, so that 4 x chunks blocks fill the GPU (2048 * 4 / 264 -> 28).
// Workgroup: 16*33 = 528, 16*16 = 256 (x3), 16.
// CHECK-LABEL: func.func @blog(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C74:.*]] = arith.constant 74 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection blocks in (%[[C4]], %[[C74]], %[[C1]])
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C64]], %[[C1]], %[[C1]])
// CHECK-NOT:     sigreg_ecf_finalize
// CHECK:         %[[COUNTER:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi32>
// CHECK:         %[[BLOCKSUMS:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%[[C4]], %[[C1]], %[[C1]]) {{.*}}, %[[COUNTER]] : memref<1xi32>, %[[BLOCKSUMS]] : memref<4xf32>)
// CHECK:         gpu.func @sigreg_fused_ecf(
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>)
// The epilogue over 4 blocks: each block's tree sum to its slot, the
// counter (barrier, then thread 0's release fence, atomic add, acquire
// fence; the last block resets it), then
// the last block adds the 4 sums in order and divides by V * S.
// CHECK:         gpu.func @sigreg_epilogue(%{{.*}}: memref<1x1024x17xf32>, %{{.*}}: memref<1x1024x17xf32>, %{{.*}}: memref<f32>, %[[CNT:.*]]: memref<1xi32>, %[[SUMS:.*]]: memref<4xf32>) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %[[FLAG:.*]] : memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK:           memref.store %{{.*}}, %[[SUMS]][%{{.*}}] : memref<4xf32>
// CHECK:           gpu.barrier
// CHECK:           llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:      memref.atomic_rmw addi %{{.*}}, %[[CNT]]
// CHECK-NEXT:      llvm.fence syncscope("device") acq_rel
// CHECK:             memref.store %{{.*}}, %[[CNT]]
// CHECK:           memref.store %{{.*}}, %[[FLAG]]
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:        memref.load %[[SUMS]]
// CHECK:           arith.divf
// CHECK:           memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// OPT-LABEL:   func.func @blog(
// OPT:           gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C16:.*]], %[[C2:.*]], %[[C1:.*]]) threads
// OPT:           gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize
// OPT:           gpu.func @sigreg_fused_ecf(%{{.*}}: memref<1x32x2048xf32>, %{{.*}}: memref<2048x1024xf32>, %{{.*}}: memref<74x1024xf32>, %{{.*}}: memref<2x1x1024x17xf32>, %{{.*}}: memref<2x1x1024x17xf32>)
// OPT-SAME:        workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
func.func @blog(%x: tensor<32x2048xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 : tensor<32x2048xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The mid anchor (f32, SIMT kernel): N = D = S = 1024. BM = 64, T = 16; BS: 64 -> 256 blocks
// (< 264), 32 -> 512: grid (32, 16, 1), finalize ceil(1024*17/256) = 68.
// With block-rows=16 block-slices=64: grid (16, 64, 1). With block-rows=32
// only: T = 32, BS = 64 already gives 512 blocks: grid (16, 32, 1).
// CHECK-LABEL: func.func @mid(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C68:.*]] = arith.constant 68 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         memref.alloc() : memref<16x1x1024x17xf32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C32]], %[[C16]], %[[C1]])
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize blocks in (%[[C68]], %[[C1]], %[[C1]])
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue blocks in (%[[C4]], %[[C1]], %[[C1]])
// CHECK:         gpu.func @sigreg_fused_ecf(
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>)
// OPT-LABEL:   func.func @mid(
// OPT-DAG:       %[[C1:.*]] = arith.constant 1 : index
// OPT-DAG:       %[[C16:.*]] = arith.constant 16 : index
// OPT-DAG:       %[[C64:.*]] = arith.constant 64 : index
// OPT-DAG:       %[[C68:.*]] = arith.constant 68 : index
// OPT:           memref.alloc() : memref<64x1x1024x17xf32>
// OPT:           gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C16]], %[[C64]], %[[C1]])
// OPT-NEXT:      gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize blocks in (%[[C68]], %[[C1]], %[[C1]])
// OPT:           gpu.func @sigreg_fused_ecf(
// OPT-SAME:        workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// ROWS32-LABEL: func.func @mid(
// ROWS32-DAG:    %[[C1:.*]] = arith.constant 1 : index
// ROWS32-DAG:    %[[C16:.*]] = arith.constant 16 : index
// ROWS32-DAG:    %[[C32:.*]] = arith.constant 32 : index
// ROWS32:        memref.alloc() : memref<32x1x1024x17xf32>
// ROWS32:        gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C16]], %[[C32]], %[[C1]])
// ROWS32:        gpu.func @sigreg_fused_ecf(
// ROWS32-SAME:     workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
func.func @mid(%x: tensor<1024x1024xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 : tensor<1024x1024xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The large anchor (f32, SIMT kernel): N = 8192, D = S = 4096. BM = 64, T = 128; BS = 64
// already gives 64 * 128 blocks: grid (64, 128, 1); finalize
// ceil(4096*17/256) = 272; projection grid (16, 64).
// CHECK-LABEL: func.func @large(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C272:.*]] = arith.constant 272 : index
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection blocks in (%[[C16]], %[[C64]], %[[C1]])
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%[[C64]], %[[C128]], %[[C1]])
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize blocks in (%[[C272]], %[[C1]], %[[C1]])
// CHECK:         gpu.func @sigreg_fused_ecf(
// CHECK-SAME:      workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
func.func @large(%x: tensor<8192x4096xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 : tensor<8192x4096xf32> -> tensor<f32>
  return %l : tensor<f32>
}
