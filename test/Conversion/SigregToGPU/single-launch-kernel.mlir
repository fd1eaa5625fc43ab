// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-fragment-ecf=0 single-launch-step-group=4 single-launch-stage-x=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 --sigreg-gpu-bufferize | FileCheck %s --check-prefix=OFF
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch=2 single-launch-fragment-ecf=0 single-launch-stage-x=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TILES
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=tensor-cores=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=SIMT
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-warps=16 single-launch-fragment-ecf=0 single-launch-step-group=4 single-launch-stage-x=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=W16
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-stagger=1 single-launch-step-group=4 single-launch-stage-x=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=STAGGER
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=RULE
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-stagger=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=NOSTAGGER
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-step-group=2 single-launch-stage-x=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=GROUP2
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-prefetch-x=1 single-launch-step-group=4" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PREFETCH
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-stage-x=1 single-launch-stage-tma=0 single-launch-gen-ahead=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=STAGE
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-stage-x=2 single-launch-stage-tma=0 single-launch-gen-ahead=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=CLUSTER
// RUN: not sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-stage-x=3 2>&1 | FileCheck %s --check-prefix=BADSTAGE
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=fast-normals=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=NORMALS
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch=2 single-launch-prefetch-tail=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PFTAIL
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-stage-tma=1 single-launch-gen-ahead=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TMA
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-stage-tma=2 single-launch-gen-ahead=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TMA2
// RUN: not sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-stage-tma=3 2>&1 | FileCheck %s --check-prefix=BADTMA
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-gen-ahead=2" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=AHEAD
// RUN: not sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-gen-ahead=8 2>&1 | FileCheck %s --check-prefix=BADAHEAD

// The blog shape: the whole chain is one launch of sigreg_single_launch
// (usesSingleLaunch) with its GEMM on tensor cores (bf16 input, seeded g
// rounded to bf16): block = 8 slices x 32 rows, 128 blocks. One batch
// tile: the counters workspace (zero_init) goes unused; the loss's 64-bit
// accumulator, zero_init too.
// single-launch-stagger=1 with 4 steps per iteration: block b (grid x, its
// slice tile) walks the 4 step groups of 32 steps (8 warps x 4) from group
// b mod 4, wrapping around at 128; =0 walks from step group 0. By rule (-1)
// blog's 32-row tile is staggered (with the fast normals besides:
// compile-only-single-launch.mlir) in groups of 2 steps per warp
// (kSingleLaunchStaggerStepGroup): 8 groups of 16 steps, from group b mod 8,
// each iteration's 8 x loads before its 4 mma.sync. The grid is one block per
// multiprocessor, which the kernel declares to ptxas (nvvm.minctasm = 1, by
// the rule of single-launch-minctasm). Its x is staged by rule in clusters of
// 2 (CLUSTER below): the pair b, b + 1 walks from group (b / 2) mod 8.
// single-launch-prefetch-tail: thread 0 of every block prefetches the loss's
// 64-bit word (the argument before x's tensor map) to L2 before anything
// else.
// PFTAIL-LABEL: func.func @blog
// PFTAIL:         gpu.func @sigreg_single_launch(%{{.*}}: i64, %{{.*}}: memref<1x32x2048xbf16>, %{{.*}}: memref<f32>, %{{.*}}: memref<1xi32>, %[[WORD:.*]]: memref<1xi64>, %{{.*}}: !llvm.ptr)
// PFTAIL:         %[[T0:.*]] = arith.cmpi ult, %thread_id_x, %c1 : index
// PFTAIL-NEXT:    scf.if %[[T0]] {
// PFTAIL-NEXT:      %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[WORD]] : memref<1xi64> -> index
// PFTAIL-NEXT:      %[[I:.*]] = arith.index_castui %[[P]] : index to i64
// PFTAIL-NEXT:      %[[G:.*]] = llvm.inttoptr %[[I]] : i64 to !llvm.ptr
// PFTAIL-NEXT:      %[[G1:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr to !llvm.ptr<1>
// PFTAIL-NEXT:      nvvm.prefetch level = L2, %[[G1]] : !llvm.ptr<1>
// PFTAIL-NEXT:    }
// PFTAIL-NOT:     nvvm.prefetch
// PFTAIL:         nvvm.mma.sync
// PFTAIL:         memref.atomic_rmw addi
// RULE-LABEL: func.func @blog
// RULE:         gpu.func @sigreg_single_launch{{.*}} attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.minctasm = 1 : i32, sigreg.grid_constants = array<i64: 5>, sigreg.region = "single_launch"}
// RULE:         %[[BX:.*]] = gpu.block_id  x
// RULE:         %[[PAIR:.*]] = arith.divui %[[BX]], %c2 : index
// RULE:         %[[GROUP:.*]] = arith.remui %[[PAIR]], %c8 : index
// RULE:         %[[ROTI:.*]] = arith.muli %[[GROUP]], %c16 : index
// RULE:         %[[ROT:.*]] = arith.index_castui %[[ROTI]] : index to i32
// By rule blog's x is staged in shared memory by TMA boxes (STAGE and TMA
// below) and g generated 6 of the warp's 8 step groups ahead (AHEAD below):
// the loop runs groups 0 and 1, each iteration first generating group j + 6
// (96 steps on, turned by the block's rotation), then the wait for the
// span, the 8 words from the swizzled staged x and the MMAs.
// RULE:         scf.for %[[STEP:.*]] = %{{.*}} to %c32_i32 step %c16_i32
// RULE-NEXT:      %[[LATER:.*]] = arith.addi %[[STEP]], %c96_i32 : i32
// RULE-NEXT:      %[[TURNED:.*]] = arith.addi %[[LATER]], %[[ROT]] : i32
// RULE-NEXT:      %[[WRAPPED:.*]] = arith.subi %[[TURNED]], %c128_i32 : i32
// RULE-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[TURNED]], %c128_i32 : i32
// RULE-NEXT:      %{{.*}} = arith.select %[[IN]], %[[TURNED]], %[[WRAPPED]] : i32
// RULE-NOT:       vector.load
// RULE:           nvgpu.mbarrier.try_wait.parity
// RULE-COUNT-8:   vector.load %{{.*}} : memref<65536xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// RULE-NOT:       vector.load
// RULE-COUNT-4:   nvvm.mma.sync
// RULE-NOT:       nvvm.mma.sync
// RULE:           scf.yield
// STAGGER-LABEL: func.func @blog
// STAGGER:         %[[BX:.*]] = gpu.block_id  x
// STAGGER:         %[[GROUP:.*]] = arith.remui %[[BX]], %c4 : index
// STAGGER:         %[[ROTI:.*]] = arith.muli %[[GROUP]], %c32 : index
// STAGGER:         %[[ROT:.*]] = arith.index_castui %[[ROTI]] : index to i32
// STAGGER:         scf.for %[[STEP:.*]] = %{{.*}} to %c128_i32 step %c32_i32
// STAGGER-NEXT:      %[[TURNED:.*]] = arith.addi %[[STEP]], %[[ROT]] : i32
// STAGGER-NEXT:      %[[WRAPPED:.*]] = arith.subi %[[TURNED]], %c128_i32 : i32
// STAGGER-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[TURNED]], %c128_i32 : i32
// STAGGER-NEXT:      %{{.*}} = arith.select %[[IN]], %[[TURNED]], %[[WRAPPED]] : i32
// STAGGER-COUNT-16:  vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// NOSTAGGER-LABEL: func.func @blog
// NOSTAGGER:         scf.for %[[STEP:.*]] = %{{.*}} to %c128_i32 step %c32_i32
// NOSTAGGER-NOT:       arith.select
// NOSTAGGER:           vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// single-launch-step-group=2: two k steps per iteration (step 8 x 2), the
// x loads of the two (8 of them) at the top, then their 4 mma.sync.
// GROUP2-LABEL: func.func @blog
// GROUP2:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c16_i32
// GROUP2-COUNT-8:   vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// GROUP2-NOT:       vector.load
// GROUP2-COUNT-4:   nvvm.mma.sync
// GROUP2-NOT:       nvvm.mma.sync
// GROUP2:           scf.yield
// single-launch-prefetch-x: the first group's 16 x loads (4 steps x 2 row
// fragments x 2 rows) before the loop as one vector of 32 words, carried;
// each iteration loads the next group's inside an scf.if on there being one
// (the last iteration's next group is zeros), then runs the Philox work and
// the MMAs on the carried words, and yields the next group's.
// single-launch-stage-x=1 (by rule in training steps, and in forwards of
// at least 32 rows with D >= 2048, as blog's): x staged in dynamic shared
// memory, the block's 32 rows at 2 x 2048 + 32 bytes each (132096 bytes at
// the launch), one mbarrier per span of two step groups of the walk (4).
// Thread 0 initializes them and, after a barrier, expects each span's 32768
// bytes; lane 0 of every warp then copies its rows (warp, warp + 8, ...)
// span by span, 1024 bytes each by cp.async.bulk. The loop (a forward's:
// after its Philox work) waits on its span's mbarrier (phase 0) and reads its
// 8 words from the staged rows.
// STAGE-LABEL: func.func @blog
// STAGE:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c132096_i32
// STAGE:         %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// STAGE:         %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// STAGE-COUNT-4:   nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c1
// STAGE-NOT:       nvgpu.mbarrier.init
// STAGE:         gpu.barrier
// STAGE:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.*}}], %c32768
// STAGE:           scf.for %{{.*}} = %{{.*}} to %c32 step %c8
// STAGE:             nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c1024_i32 : !llvm.ptr<7>, <1>
// STAGE:         %[[ROWS:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x2064xbf16, #gpu.address_space<workgroup>>
// STAGE:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c16_i32
// STAGE:           arith.mului_extended
// STAGE:           nvgpu.mbarrier.try_wait.parity %[[BARS]][%{{.*}}], %false
// STAGE-COUNT-8:   vector.load %[[ROWS]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<32x2064xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// STAGE-NOT:       vector.load
// STAGE-COUNT-4:   nvvm.mma.sync
// STAGE:           scf.yield
// Four views (256 blocks, two per multiprocessor): not staged.
// STAGE-LABEL: func.func @views4_n32
// STAGE-NOT:     dynamic_shared_memory_size
// STAGE:         return
// In clusters of 2 (CLUSTER; blog's rule too): the blocks b and b + 1 walk
// alike (b / 2), the mbarriers are initialized cluster-wide (thread 0's
// fence, then the cluster barrier arrived relaxed: a release arrive would
// fence every warp at cluster scope), and each block copies rows w + 8
// (rank + 2 j) of its warp w, multicast to both blocks (mask 0b11); each
// mbarrier still expects the span's 32 rows.
// CLUSTER-LABEL: func.func @blog
// CLUSTER:         gpu.func @sigreg_single_launch
// CLUSTER-SAME:      nvvm.cluster_dim = array<i32: 2, 1, 1>
// CLUSTER:         %[[BX:.*]] = gpu.block_id  x
// CLUSTER:         %[[PAIR:.*]] = arith.divui %[[BX]], %c2 : index
// CLUSTER:         arith.remui %[[PAIR]], %c8 : index
// CLUSTER-COUNT-4:   nvgpu.mbarrier.init
// CLUSTER-NEXT:      nvvm.fence.mbarrier.init
// CLUSTER:         nvvm.cluster.arrive.relaxed {aligned}
// CLUSTER-NEXT:    nvvm.cluster.wait {aligned}
// CLUSTER-NEXT:    %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CLUSTER:           nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c32768
// CLUSTER:           scf.for %{{.*}} = %{{.*}} to %c32 step %c16
// CLUSTER:             nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c1024_i32 multicast_mask = %c3_i16 : !llvm.ptr<7>, <1>
// CLUSTER-LABEL: func.func @views4_n32
// CLUSTER-NOT:     cluster_dim
// CLUSTER:         return
// single-launch-stage-tma (blog, x staged in clusters of 2 by rule): the
// host builds x's tensor map (boxes of 32 rows x 64 features, 128-byte
// swizzle) and passes it last, a grid constant; the staged x is 32 x 2048
// elements unpadded (131072 bytes). Thread 0 prefetches the descriptor and
// initializes the 4 mbarriers; each span still expects 32768 bytes, now 8
// boxes of 4096, 4 from each block of the pair, multicast to both: lane 0 of
// warp w copies the block's boxes w, w + 8 (16 = 4 spans x 4). The loop reads
// its 8 words from the swizzled [D / 64][32][64] layout: chunk (step % 4 + 4
// (t / 2)) ^ row % 8.
// TMA-LABEL: func.func @blog
// TMA:         %[[CAST:.*]] = memref.cast %{{.*}} : memref<32x2048xbf16> to memref<*xbf16>
// TMA-NEXT:    %[[DESC:.*]] = nvgpu.tma.create.descriptor %[[CAST]] box[%c32, %c64] : memref<*xbf16> -> <tensor = memref<32x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// TMA-NEXT:    %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[DESC]] : {{.*}} to !llvm.ptr
// TMA-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c131072_i32 args({{.*}}, %[[MAP]] : !llvm.ptr)
// TMA:         gpu.func @sigreg_single_launch({{.*}}, %[[ARG:.*]]: !llvm.ptr)
// TMA-SAME:      nvvm.cluster_dim = array<i32: 2, 1, 1>
// TMA-SAME:      sigreg.grid_constants = array<i64: 5>
// TMA:           %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// TMA:           %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// TMA:           %[[XMAP:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<32x64xbf16, 3>, swizzle = swizzle_128b
// TMA:             nvgpu.tma.prefetch.descriptor %[[XMAP]]
// TMA-COUNT-4:     nvgpu.mbarrier.init %[[BARS]]
// TMA:           nvvm.cluster.arrive.relaxed {aligned}
// TMA:             nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.*}}], %c32768
// TMA:             scf.for %{{.*}} = %{{.*}} to %c16 step %c8 {
// TMA:               %[[BOX:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x64xbf16, #gpu.address_space<workgroup>>
// TMA:               nvgpu.tma.async.load %[[XMAP]][%{{.*}}, %{{.*}}], %[[BARS]][%{{.*}}] to %[[BOX]] multicast_mask = %c3_i16
// TMA-NOT:         nvvm.cp.async.bulk
// TMA:           %[[ROWS:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<65536xbf16, #gpu.address_space<workgroup>>
// TMA:           scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c16_i32
// TMA:             nvgpu.mbarrier.try_wait.parity %[[BARS]][%{{.*}}], %false
// TMA:             arith.xori
// TMA-COUNT-8:     vector.load %[[ROWS]][%{{.*}}] {alignment = 8 : i64} : memref<65536xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// TMA-NOT:         vector.load
// TMA-COUNT-4:     nvvm.mma.sync
// TMA:             scf.yield
// single-launch-stage-tma=2: thread 0 issues all 16 boxes.
// TMA2-LABEL: func.func @blog
// TMA2:         %[[T0:.*]] = arith.cmpi ult, %thread_id_x, %c1 : index
// TMA2:           nvgpu.mbarrier.arrive.expect_tx
// TMA2:         scf.if %[[T0]] {
// TMA2-NEXT:      scf.for %{{.*}} = %c0 to %c16 step %c1 {
// TMA2:             nvgpu.tma.async.load
// BADTMA: single-launch-stage-tma must be -1 (by rule), 0 (never), 1 (boxes issued by every warp) or 2 (by thread 0), got 3
// Four views (256 blocks): not staged, no tensor map.
// TMA-LABEL: func.func @views4_n32
// TMA-NOT:     nvgpu.tma
// TMA:         return
// single-launch-gen-ahead=2 (blog, x staged by rule, 8 groups of 2 steps per
// warp, 16 steps apart): the prologue generates groups 0 and 1 (their B words
// and squares start the loop's carried values); the loop runs groups 0-5,
// each iteration generating group j + 2 (32 steps on) before its wait for x,
// then multiplying group j's x words with the B words carried in (the first 4
// i32 of the queue), and yields the queue moved up with the new group's
// words last; groups 6 and 7 wait, load and multiply after the loop.
// AHEAD-LABEL: func.func @blog
// AHEAD:         %[[LOOP:.*]]:17 = scf.for %[[STEP:.*]] = %{{.*}} to %c96_i32 step %c16_i32 iter_args(%[[A0:.*]] = %cst{{.*}}, {{.*}}, %[[SQ:.*]] = %{{.*}}, %[[B0:.*]] = %{{.*}}, %[[B1:.*]] = %{{.*}}, %[[B2:.*]] = %{{.*}}, %[[B3:.*]] = %{{.*}}, %[[B4:.*]] = %{{.*}}, %[[B5:.*]] = %{{.*}}, %[[B6:.*]] = %{{.*}}, %[[B7:.*]] = %{{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32, i32, i32, i32, i32) : i32 {
// AHEAD-NEXT:      arith.addi %[[STEP]], %c32_i32 : i32
// AHEAD-NOT:       nvvm.mma.sync
// AHEAD:           nvgpu.mbarrier.try_wait.parity
// AHEAD-COUNT-2:   nvvm.mma.sync A[{{.*}}] B[%[[B0]], %[[B1]]]
// AHEAD-COUNT-2:   nvvm.mma.sync A[{{.*}}] B[%[[B2]], %[[B3]]]
// AHEAD-NOT:       nvvm.mma.sync
// AHEAD:           scf.yield {{.*}}, %[[B4]], %[[B5]], %[[B6]], %[[B7]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
// AHEAD:         nvgpu.mbarrier.try_wait.parity
// AHEAD-COUNT-2: nvvm.mma.sync A[{{.*}}] B[%[[LOOP]]#9, %[[LOOP]]#10]
// AHEAD-COUNT-2: nvvm.mma.sync A[{{.*}}] B[%[[LOOP]]#11, %[[LOOP]]#12]
// AHEAD:         nvgpu.mbarrier.try_wait.parity
// AHEAD-COUNT-2: nvvm.mma.sync A[{{.*}}] B[%[[LOOP]]#13, %[[LOOP]]#14]
// AHEAD-COUNT-2: nvvm.mma.sync A[{{.*}}] B[%[[LOOP]]#15, %[[LOOP]]#16]
// AHEAD-NOT:     nvvm.mma.sync
// AHEAD:         return
// Four views: x not staged, so the loop generates each group's own g.
// AHEAD-LABEL: func.func @views4_n32
// AHEAD:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c32_i32 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) : i32 {
// AHEAD:         return
// BADAHEAD: single-launch-gen-ahead must be -1 (by rule) or 0 to 7 step groups, got 8
// BADSTAGE: single-launch-stage-x must be -1 (by rule), 0 (never), 1 (wherever it can) or 2 or 4 (wherever it can, in clusters of that many blocks), got 3
// PREFETCH-LABEL: func.func @blog
// PREFETCH:         %[[ZERO:.*]] = arith.constant dense<0> : vector<32xi32>
// PREFETCH-COUNT-16: vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// PREFETCH:         %[[FIRST:.*]] = vector.from_elements {{.*}} : vector<32xi32>
// PREFETCH:         scf.for %[[STEP:.*]] = %{{.*}} to %c128_i32 step %c32_i32 iter_args({{.*}}%[[CARRIED:.*]] = %[[FIRST]]) -> ({{.*}}vector<32xi32>)
// PREFETCH:           %[[AFTER:.*]] = arith.addi %[[STEP]], %c32_i32 : i32
// PREFETCH:           %[[MORE:.*]] = arith.cmpi ult, %[[AFTER]], %c128_i32 : i32
// PREFETCH:           %[[NEXT:.*]] = scf.if %[[MORE]] -> (vector<32xi32>) {
// PREFETCH-COUNT-16:    vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// PREFETCH:             scf.yield %{{.*}} : vector<32xi32>
// PREFETCH-NEXT:      } else {
// PREFETCH-NEXT:        scf.yield %[[ZERO]] : vector<32xi32>
// PREFETCH-NEXT:      }
// PREFETCH:           vector.extract %[[CARRIED]][0] : i32 from vector<32xi32>
// PREFETCH-NOT:       vector.load
// PREFETCH:           nvvm.mma.sync
// PREFETCH:           scf.yield {{.*}}, %[[NEXT]] : f32, f32, f32, f32, f32, f32, f32, f32, f32, vector<32xi32>
// CHECK-LABEL: func.func @blog
// CHECK:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi32>
// CHECK:         %[[ACC:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<1x32x2048xbf16>, %{{.*}} : memref<f32>, %[[CNT]] : memref<1xi32>, %[[ACC]] : memref<1xi64>) {sigreg.region = "single_launch"}
// CHECK-NOT:     gpu.launch_func
// The k groups' partials (8 x 32 x 8 floats, then the ECF's 2 x 8 x 8 x 17
// warp sums), y, the 8 k groups' sums of g^2.
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      workgroup(%[[GS:.*]] : memref<2176xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[YS:.*]] : memref<256xf32, {{.*}}, %[[NS:.*]] : memref<64xf32,
// CHECK-NOT:     gpu.barrier
// Stages 1-2 (single-launch-step-group=4; by rule two steps, RULE above):
// warp k group w takes k steps w, w + 8, ... of the 128, four
// per iteration (16 each: step 4 x 8): first the x loads of the four steps
// (two row fragments each, 8-byte loads of rows q and q + 8), then the four
// steps' B fragments (one Philox call each, g^2 summed, g rounded to bf16
// two values at a time: one cvt.rn.bf16x2.f32 per word), then their 8
// mma.sync; no shared memory.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c32_i32
// CHECK-COUNT-16:  vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// CHECK-NOT:       vector.load
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           arith.mului_extended
// CHECK:           math.fma
// CHECK:           arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT:      vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-NOT:       memref.store
// CHECK-NOT:       nvvm.mma.sync
// Two Box-Muller radii per step: six in the other three steps.
// CHECK-COUNT-6:   math.sqrt
// CHECK-NOT:       memref.store
// CHECK-COUNT-8:   nvvm.mma.sync
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
// Stage 3: the sums of g^2 over the four lanes of a column, the partials
// to shared memory.
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-COUNT-8: memref.store %{{.*}}, %[[GS]][%{{.*}}] : memref<2176xf32
// CHECK:         memref.store %{{.*}}, %[[NS]]
// CHECK:         gpu.barrier
// Stage 4: the column's norm once (its 8 k groups' sums of g^2 in order,
// a square root) and its reciprocal, then the 8 k groups' partials added in
// order and multiplied by it (no division per element).
// CHECK-COUNT-8: memref.load %[[NS]]
// CHECK:         %[[NORM:.*]] = math.sqrt
// CHECK-NOT:     math.sqrt
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[NORM]] : f32
// CHECK-COUNT-8: memref.load %[[GS]]
// CHECK-NOT:     arith.divf
// CHECK:         %[[Y:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK-NEXT:    memref.store %[[Y]], %[[YS]]
// CHECK:         gpu.barrier
// Stage 5, ECF: one sincos on the special-function unit after a range
// reduction (a bf16 input), no masks (the tile is the batch), the
// Chebyshev recurrence (2 c_1 c_p - c_{p-1}), then the 2 x 16 sums of
// p = 1..16 (p = 0 is the row count, not summed) added over the warp's 4
// rows by a halving butterfly. At lane bit 8 the lanes whose bit is set
// keep the sines: their recurrences start from each other's values (four
// selects: 1 and 0, sin and cos), so every lane lists what it keeps first
// and sends the second half (16 shuffles, no select per sum); at bit 16 a
// half of that (8 shuffles, picked by selects), and the 4 lanes of a slice
// store 8 sums each.
// CHECK:         %[[B8:.*]] = arith.divui %{{.*}}, %c8 : index
// CHECK-NEXT:    %[[R8:.*]] = arith.remui %[[B8]], %c2 : index
// CHECK-NEXT:    %[[SINES:.*]] = arith.cmpi ugt, %[[R8]], %c0 : index
// CHECK:         math.roundeven
// CHECK:         %[[S1:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:    %[[C1:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-NEXT:    arith.addf %[[C1]], %[[C1]] : f32
// CHECK-NEXT:    arith.select %[[SINES]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    arith.select %[[SINES]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.select %[[SINES]], %[[S1]], %[[C1]] : f32
// CHECK-NEXT:    %[[SECOND:.*]] = arith.select %[[SINES]], %[[C1]], %[[S1]] : f32
// CHECK-NOT:     arith.select
// CHECK:         %[[GOT:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.addf %[[FIRST]], %[[GOT]] : f32
// CHECK-NOT:     arith.select
// CHECK-COUNT-15: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK:         %[[B16:.*]] = arith.divui %{{.*}}, %c16 : index
// CHECK-NEXT:    %[[R16:.*]] = arith.remui %[[B16]], %c2 : index
// CHECK-NEXT:    %[[UP16:.*]] = arith.cmpi ugt, %[[R16]], %c0 : index
// CHECK-NEXT:    %[[GIVE:.*]] = arith.select %[[UP16]], %[[LO:.*]], %[[HI:.*]] : f32
// CHECK-NEXT:    %[[KEEP:.*]] = arith.select %[[UP16]], %[[HI]], %[[LO]] : f32
// CHECK-NEXT:    %{{.*}}, %{{.*}} = gpu.shuffle  xor %[[GIVE]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-7: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-COUNT-8: memref.store %{{.*}}, %arg5[%{{.*}}] : memref<2176xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:     memref.store
// CHECK:         gpu.barrier
// Stages 7-8 (lossSumLayout: 128 arrivals, 8 count bits, 8 poison bits,
// a 48-bit sum): warp 0 forms the 8 slices' statistics, 4 lanes per slice
// (lane = 4 j + g): lane g adds the points g, g + 4, ... (5 loads of cos and
// sin; phi_p and w_p chosen by g, w = 0 past P), the 4 lanes add theirs (xor
// 2, 1), then the slices' statistics are added over lanes 0, 4, ... (xor 16,
// 8, 4). Thread 0 adds the block's sum in fixed point (NaN or out of range:
// one poison count) and one arrival in a single relaxed atom.add on the
// 64-bit word; no fence. The block that brings the count to 128 writes the
// mean (NaN if poisoned) and resets the word.
// CHECK:         gpu.barrier
// CHECK-NOT:     llvm.fence
// CHECK:         %[[G:.*]] = arith.remui %thread_id_x, %c4 : index
// CHECK:         %[[G3:.*]] = arith.cmpi ult, %[[G]], %c3 : index
// CHECK-NEXT:    arith.select %[[G3]]
// CHECK-COUNT-5: memref.load %{{.*}} : memref<272xf32, #gpu.address_space<workgroup>>
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK-NOT:     gpu.shuffle
// CHECK:         arith.cmpf oge
// CHECK:         math.roundeven
// CHECK:         arith.fptoui %{{.*}} : f32 to i64
// CHECK:         arith.select %{{.*}}, %{{.*}}, %c281474976710656_i64 : i64
// CHECK:         arith.addi %{{.*}}, %c72057594037927936_i64 : i64
// CHECK:         %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %[[KACC:.*]][%c0] : (i64, memref<1xi64>) -> i64
// CHECK:         arith.shrui %{{.*}}, %c56_i64 : i64
// CHECK:         arith.cmpi eq, %{{.*}}, %c128_i64 : i64
// CHECK:         arith.andi %{{.*}}, %c255_i64 : i64
// CHECK:         arith.uitofp %{{.*}} : i64 to f64
// CHECK:         arith.truncf %{{.*}} : f64 to f32
// CHECK:         memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK:         memref.store %c0_i64, %[[KACC]][%c0] : memref<1xi64>
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.return
// Blocks of 16 warps (single-launch-warps=16, schedule warps = 16): 512
// threads; 16 k groups of the 128 k steps, each taking 8 steps four at a
// time (step 16 x 4); the k groups' partials (16 x 32 x 8 floats, above
// the ECF's 2 x 16 x 8 x 17 warp sums), y and the 16 k groups' sums of g^2
// in shared memory, the norm and the partials added over 16 k groups, the
// ECF's warp sums over 16 warps.
// W16-LABEL: func.func @blog
// W16:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c512, %c1, %c1)
// W16:         gpu.func @sigreg_single_launch
// W16-SAME:      workgroup(%[[GS:.*]] : memref<4352xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[YS:.*]] : memref<256xf32, {{.*}}, %[[NS:.*]] : memref<128xf32,
// W16-SAME:      known_block_size = array<i32: 512, 1, 1>
// W16:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c64_i32
// W16-COUNT-16:  vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<4xbf16>
// W16-COUNT-8:   nvvm.mma.sync
// W16:           scf.yield
// W16:         gpu.barrier
// W16-COUNT-16:  memref.load %[[NS]]
// W16-NOT:       memref.load %[[NS]]
// W16:         math.sqrt
// W16:         arith.divf
// The stages after the k loop run on 8 warps (ecfWarps: 256 elements, one
// per thread); warps 8-15 only meet the barriers.
// W16:         %[[ECF:.*]] = arith.cmpi ult, %thread_id_x, %c256
// W16:         scf.if %[[ECF]] {
// W16-COUNT-16:  memref.load %[[GS]]
// W16:         arith.mulf
// W16:         gpu.barrier
// W16:         scf.if %[[ECF]] {
// W16:         llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// W16:         gpu.barrier
// W16-COUNT-16:  memref.load %[[GS]]
// W16-NOT:       memref.load %[[GS]]
// W16:         memref.atomic_rmw addi
// W16:         gpu.return

// The SIMT GEMM (tensor-cores=0): block = 4 slices x 32 rows, 256 blocks.
// SIMT-LABEL: func.func @blog
// SIMT:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi32>
// SIMT:         %[[ST:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// SIMT-NOT:     gpu.launch_func
// SIMT:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<1x32x2048xbf16>, %{{.*}} : memref<f32>, %[[CNT]] : memref<1xi32>, %[[ST]] : memref<1xi64>) {sigreg.region = "single_launch"}
// SIMT-NOT:     gpu.launch_func
// SIMT:         gpu.func @sigreg_single_launch
// g's rows are padded (4 floats per 8 rows): 8192 + 1024 floats. The SIMT
// kernels declare no blocks per multiprocessor (single-launch-minctasm's
// rule is the tensor-core GEMM's: the SIMT ones measured slower with it).
// SIMT-SAME:      workgroup(%[[GS:.*]] : memref<9216xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// SIMT-SAME:      attributes {known_block_size = array<i32: 256, 1, 1>, sigreg.region = "single_launch"}
// Stage 1, projection generation: g of 4 slices x 2048 rows into shared
// memory, one Philox call (rounds of mulhi) per 4 rows of a column: 512
// groups x 4 slices in a thread-strided loop, four stores each.
// SIMT:         scf.for %{{.*}} = %{{.*}} to %c2048 step %c256
// SIMT:           arith.mului_extended
// SIMT-COUNT-4:   memref.store %{{.*}}, %[[GS]][%{{.*}}] : memref<9216xf32
// SIMT:         gpu.barrier
// Stage 2, column norms: sums of g^2 per chunk of 64 rows in order (four
// rows loaded per iteration), then over the 32 chunks, and a square root.
// SIMT:         scf.for %{{.*}} = %{{.*}} to %c128 step %c256
// SIMT:           scf.for %{{.*}} step %c4
// SIMT-COUNT-4:     memref.load %[[GS]]
// SIMT:             arith.mulf
// SIMT:         gpu.barrier
// SIMT:         math.sqrt
// Stage 3, GEMM: four rows per thread (8 row threads x 32 k parts), 16-byte
// vector loads of x, two blocks of each row issued before their FMAs (8
// blocks per thread, step 2 x 32), 16-byte loads of g, FMA.
// SIMT:         scf.for %{{.*}} = %{{.*}} to %c256 step %c64
// SIMT-COUNT-8:   vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<8xbf16>
// SIMT-NOT:       math.fma
// SIMT:           vector.load %[[GS]][%{{.*}}] {{.*}} vector<4xf32>
// SIMT:           math.fma
// Stage 4, k parts added in order and divided by the norm.
// SIMT:         gpu.barrier
// SIMT:         arith.divf
// Stage 5, ECF: one sincos, the recurrence, the full xor butterfly over the
// rows: all 32 sums at each of the offsets 4, 8 and 16 (the halving
// butterfly is the tensor-core kernels'; it was never timed on these).
// SIMT:         llvm.nvvm.sin.approx.f
// SIMT:         llvm.nvvm.cos.approx.f
// SIMT-COUNT-32: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// SIMT-COUNT-32: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// SIMT-COUNT-32: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// Stages 7-8: the loss summed in the 64-bit word (256 arrivals).
// SIMT-NOT:     llvm.fence
// SIMT:         memref.atomic_rmw addi %{{.*}}, %{{.*}}[%c0] : (i64, memref<1xi64>) -> i64
// SIMT:         arith.cmpi eq, %{{.*}}, %c256_i64 : i64
// SIMT:         memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// SIMT-NOT:     llvm.fence
// SIMT:         gpu.return
// (The next function bounds the checks above to blog's kernel.)
// SIMT-LABEL: func.func @views4_n32
// OFF-LABEL: func.func @blog
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_projection_packed
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue
// OFF-NOT:     sigreg_single_launch
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Four views of blog's batch at 512 slices: 64 slice tiles x 4 views, 256
// blocks, more than one per multiprocessor, so the rule staggers the walk
// but keeps 4 steps per iteration (4 groups of 32 steps from group b mod 4).
// Its one wave needs two blocks per multiprocessor, which it declares.
// RULE-LABEL: func.func @views4_n32
// RULE:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c64, %c1, %c4)
// RULE:         gpu.func @sigreg_single_launch{{.*}} attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32, sigreg.region = "single_launch"}
// RULE:         %[[BX:.*]] = gpu.block_id  x
// RULE:         arith.remui %[[BX]], %c4 : index
// RULE:         scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c32_i32
// RULE:           arith.select
// RULE-COUNT-16:  vector.load %{{.*}} : memref<4x32x2048xbf16>, vector<4xbf16>
// RULE-COUNT-8:   nvvm.mma.sync
func.func @views4_n32(%x: tensor<4x32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 17 : tensor<4x32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A forward of 32 rows at D = 1024 stages x by rule only in clusters of 2
// (its 128 slice tiles pair up); 16 rows never do.
// RULE-LABEL: func.func @n32_d1024
// RULE:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c66560_i32
// RULE:         gpu.func @sigreg_single_launch{{.*}} attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.minctasm = 1 : i32, sigreg.region = "single_launch"}
// RULE:           nvvm.cluster.arrive.relaxed {aligned}
// RULE:           nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c1024_i32 multicast_mask = %c3_i16
func.func @n32_d1024(%x: tensor<32x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// RULE-LABEL: func.func @n16_d2048
// RULE-NOT:     dynamic_shared_memory_size
// RULE:         gpu.func @sigreg_single_launch{{.*}} attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32, sigreg.region = "single_launch"}
// RULE-NOT:       nvvm.cluster
// RULE:           gpu.return
func.func @n16_d2048(%x: tensor<16x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<16x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Minimal (N = 256): one batch tile of 256 rows x 4 slices, 256 blocks.
// The GEMM multiplies two rows per thread (128 row threads x 2 k parts);
// each thread of the ECF adds four y elements (rows r, r + 64, r + 128,
// r + 192) before the butterfly. Reduction none writes T[v, s] to the
// output directly: no workspaces, no grid counter (the counters workspace,
// one word, goes unused).
// No atomic in the tail (reduction none, one batch tile): nothing to
// prefetch.
// PFTAIL-LABEL: func.func @minimal_none
// PFTAIL-NOT:     nvvm.prefetch
// PFTAIL:         return
// CHECK-LABEL: func.func @minimal_none
// CHECK:         memref.alloc() {sigreg.zero_init} : memref<1xi32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<4x256x16xf32>, %{{.*}} : memref<4x256xf32>, %{{.*}} : memref<1xi32>)
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      workgroup(%{{.*}} : memref<2048xf32, {{.*}}, %{{.*}} : memref<1024xf32
// CHECK:         scf.for
// CHECK-COUNT-2:   vector.load %{{.*}} : memref<4x256x16xf32>, vector<8xf32>
// CHECK-COUNT-4: math.cos
// CHECK-NOT:     math.cos
// CHECK:         gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         arith.maximumf
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x256xf32>
// CHECK-NOT:     memref.atomic_rmw
func.func @minimal_none(%x: tensor<4x256x16xf32>, %seed: i64) -> tensor<4x256xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 clip = clamp_min(5.0e-01) reduction = none : tensor<4x256x16xf32> -> tensor<4x256xf32>
  return %l : tensor<4x256xf32>
}

// -----

// N = 512 (single-launch=2): two batch tiles of 256 rows; per-tile sums to
// two [T, V, S, P] workspaces, the last block of each column (per-column
// counter, one per column: 64 slice tiles x 4 views) adds them in tile
// order.
// Two batch tiles, reduction none: the block's column counter
// (v * 64 + slice tile, 4-byte words) is the one word its tail adds to.
// PFTAIL-LABEL: func.func @tiles_none
// PFTAIL:         gpu.func @sigreg_single_launch(%{{.*}}: i64, %{{.*}}: memref<4x512x16xf32>, %{{.*}}: memref<4x256xf32>, %[[CTR:.*]]: memref<256xi32>,
// PFTAIL:         %[[VZ:.*]] = arith.muli %block_id_z, %c64 : index
// PFTAIL-NEXT:    %[[COL:.*]] = arith.addi %[[VZ]], %block_id_x : index
// PFTAIL-NEXT:    %[[T0:.*]] = arith.cmpi ult, %thread_id_x, %c1 : index
// PFTAIL-NEXT:    scf.if %[[T0]] {
// PFTAIL-NEXT:      %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[CTR]] : memref<256xi32> -> index
// PFTAIL-NEXT:      %[[BYTES:.*]] = arith.muli %[[COL]], %c4 : index
// PFTAIL-NEXT:      %{{.*}} = arith.addi %[[P]], %[[BYTES]] : index
// PFTAIL:           nvvm.prefetch level = L2, %{{.*}} : !llvm.ptr<1>
// PFTAIL-NEXT:    }
// PFTAIL-NOT:     nvvm.prefetch
// PFTAIL:         gpu.return
// TILES-LABEL: func.func @tiles_none
// TILES:         memref.alloc() {sigreg.zero_init} : memref<256xi32>
// TILES:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<4x512x16xf32>, %{{.*}} : memref<4x256xf32>, %{{.*}} : memref<256xi32>, %{{.*}} : memref<2x4x256x17xf32>, %{{.*}} : memref<2x4x256x17xf32>)
// TILES:         gpu.func @sigreg_single_launch
// Stage 5's p = 0 sums: the tile's row count, min(256, 512 - n0), and 0.
// TILES:         arith.minui %{{.*}}, %{{.*}} : index
// TILES:         arith.uitofp %{{.*}} : i32 to f32
// TILES:         arith.cmpi eq
// Stage 6: the column counter expects 2 arrivals.
// TILES:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x4x256x17xf32>
// TILES:         memref.atomic_rmw addi
// TILES:         arith.cmpi eq, %{{.*}}, %c1_i32
// TILES:         scf.for %{{.*}} = %c0 to %c2 step %c1
// TILES:           memref.load %{{.*}} : memref<2x4x256x17xf32>
// TILES:         arith.maximumf
// TILES:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x256xf32>
// TILES-NOT:     memref.atomic_rmw
// TILES:         gpu.return
func.func @tiles_none(%x: tensor<4x512x16xf32>, %seed: i64) -> tensor<4x256xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 clip = clamp_min(5.0e-01) reduction = none : tensor<4x512x16xf32> -> tensor<4x256xf32>
  return %l : tensor<4x256xf32>
}

// -----

// Tensor cores with g split (per-slice statistics, f16): D = 100 ends in a
// partial k step (words past D select 0), 7 steps over 4 k groups (one step
// per iteration: the groups differ), g as hi + lo f16 parts, so each B
// fragment's two parts multiply both row fragments: 4 mma.sync per step.
// CHECK-LABEL: func.func @split_none
// CHECK:         gpu.func @sigreg_single_launch
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c7_i32 step %c4_i32
// CHECK:           vector.load %{{.*}} : memref<2x64x100xf16>, vector<4xf16>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %c0_i32 : i32
// CHECK-COUNT-4:   arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-COUNT-4:   nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
func.func @split_none(%x: tensor<2x64x100xf16>, %seed: i64) -> tensor<2x50xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 50 points = 17 reduction = none : tensor<2x64x100xf16> -> tensor<2x50xf32>
  return %l : tensor<2x50xf32>
}

// -----

// D = 13 (not a multiple of 4): the A words from four scalar loads each,
// packed in pairs; one k step (the loop folds away).
// CHECK-LABEL: func.func @ragged_d
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-COUNT-4: memref.load %{{.*}} : memref<1x45x13xbf16>
// CHECK:         arith.ori
// CHECK:         nvvm.mma.sync
func.func @ragged_d(%x: tensor<45x13xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<45x13xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Explicit projection (f16), ragged D: the projection's columns are loaded
// (no Philox, no norms) and x with scalar loads (D % 8 != 0).
// CHECK-LABEL: func.func @explicit
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : memref<129x77xf16>, %{{.*}} : memref<1x37x129xf16>
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-NOT:     arith.mului_extended
// CHECK-NOT:     math.sqrt
// CHECK-NOT:     vector.load %{{.*}} : memref<1x37x129xf16>
// CHECK:         llvm.nvvm.cos.approx.f
func.func @explicit(%x: tensor<37x129xf16>, %a: tensor<129x77xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf16>) slices = 77 points = 9 reduction = sum : tensor<37x129xf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Mid (N = 1024, 2^30 multiply-adds): over the cost rule, three launches.
// CHECK-LABEL: func.func @mid
// CHECK-NOT:     sigreg_single_launch
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_mma
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// N = 4096, S = 8192 (single-launch=2): 1024 arrivals (11 count bits each
// for arrivals and poison, a 42-bit sum) against a bound of about 4 x 4096
// x sum_p w_p per statistic over 8192 of them: fewer than 16 fraction bits
// (kMinLossFractionBits), so the statistics go to a workspace and the last
// block (the grid counter after the 1024 per-column counters, release and
// acquire fences) adds them in a fixed order.
// TILES-LABEL: func.func @loss_sum_fallback
// TILES:         memref.alloc() {sigreg.zero_init} : memref<1025xi32>
// TILES-NOT:     memref<1xi64>
// TILES:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<1x4096x16xbf16>, %{{.*}} : memref<f32>, %{{.*}} : memref<1025xi32>, %{{.*}} : memref<16x1x8192x17xf32>, %{{.*}} : memref<16x1x8192x17xf32>, %{{.*}} : memref<8192xf32>)
// TILES:         gpu.func @sigreg_single_launch
// TILES:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<8192xf32>
// TILES:         llvm.fence syncscope("device") acq_rel
// TILES-NEXT:    memref.atomic_rmw addi %{{.*}}, %{{.*}}[%c1024] : (i32, memref<1025xi32>) -> i32
// TILES-NEXT:    llvm.fence syncscope("device") acq_rel
// TILES:         arith.cmpi eq, %{{.*}}, %c1023_i32
// TILES:         memref.load %{{.*}}[%{{.*}}] : memref<8192xf32>
// TILES:         memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// TILES-NOT:     memref<1xi64>
func.func @loss_sum_fallback(%x: tensor<4096x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8192 points = 17 : tensor<4096x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The minimal shape (4 views, N = 256, D = 16; P = 5 here) with its ECF on
// the y tile (single-launch-fragment-ecf=0 in the CHECK, TILES and W16 runs;
// by rule it runs on the accumulators, single-launch-fragment-ecf.mlir):
// 256-row tiles of 8 slices, 8 elements of the y tile per thread, all inside
// the batch, so
// stage 5 takes them two at a time (elements i and i + 1 of one slice):
// u = (y_a + y_b) dt / 2, v = (y_a - y_b) dt / 2 (dt / 2 = 0.375), a
// reduced sin/cos of each, and cos(p a) + cos(p b) = cos(p u) 2 cos(p v)
// (forEachHarmonicPair): the first pair's products start the sums, the next
// three pairs add theirs by fma; then the shuffles over the rows.
// CHECK-LABEL: func.func @minimal_pairs
// TILES-LABEL: func.func @minimal_pairs
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c32, %c1, %c4)
// CHECK:         gpu.func @sigreg_single_launch
// CHECK:         %[[HALFDT:.*]] = arith.constant 3.750000e-01 : f32
// CHECK:         %[[U:.*]] = arith.mulf %[[SUM:.*]], %[[HALFDT]] : f32
// CHECK-NEXT:    %[[DIFF:.*]] = arith.subf %[[YA:.*]], %[[YB:.*]] : f32
// CHECK-NEXT:    %[[V:.*]] = arith.mulf %[[DIFF]], %[[HALFDT]] : f32
// CHECK:         %[[SU:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:    %[[CU:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:         %[[CV:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-NEXT:    arith.addf %[[CU]], %[[CU]] : f32
// CHECK-NEXT:    %[[W:.*]] = arith.addf %[[CV]], %[[CV]] : f32
// The lanes that keep the sines at the butterfly's first level (bit 8)
// start the recurrences from each other's values.
// CHECK-NEXT:    arith.select %[[SINES:.*]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    arith.select %[[SINES]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.select %[[SINES]], %[[SU]], %[[CU]] : f32
// CHECK-NEXT:    %[[SECOND:.*]] = arith.select %[[SINES]], %[[CU]], %[[SU]] : f32
// CHECK-NEXT:    arith.mulf %[[FIRST]], %[[W]] : f32
// CHECK-NEXT:    arith.mulf %[[SECOND]], %[[W]] : f32
// CHECK-COUNT-3: arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NOT:     llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:         gpu.shuffle  xor
// In blocks of 16 warps: one 16-row fragment per warp (g split: two MMAs),
// 4 elements per thread, two pairs.
// With the pipeline's fast normals (fast-normals=1), by rule
// (kSingleLaunchFastNormalsMaxTile) the unstaggered 256 x 16 tile generates
// g through them too: the approximate log2 and square root of Box-Muller.
// NORMALS-LABEL: func.func @minimal_pairs
// NORMALS:         gpu.func @sigreg_single_launch
// NORMALS:           llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// NORMALS:           llvm.call_intrinsic "llvm.nvvm.sqrt.approx.ftz.f"
// NORMALS:           nvvm.mma.sync
// W16-LABEL: func.func @minimal_pairs
// W16:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c32, %c1, %c4) threads in (%c512, %c1, %c1)
// W16:         gpu.func @sigreg_single_launch
// W16-COUNT-2:   nvvm.mma.sync
// W16-NOT:       nvvm.mma.sync
// W16-COUNT-4:   llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// W16-NOT:       llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// W16:           gpu.shuffle  xor
func.func @minimal_pairs(%x: tensor<4x256x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 5 reduction = mean : tensor<4x256x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// N 256, D 1024: a 256 x 1024 x tile (8 slices per block), over
// kSingleLaunchFastNormalsMaxTile, keeps the exact mapping (its log through
// the polynomial's correctly rounded division) with fast-normals=1: the
// fast normals measured 0.5-0.7 us slower there (ptxas sinks the x loads).
// NORMALS-LABEL: func.func @n256_d1024
// NORMALS:         gpu.func @sigreg_single_launch
// NORMALS-NOT:       llvm.nvvm.lg2.approx
// NORMALS:           nvvm.mma.sync
// NORMALS-NOT:       llvm.nvvm.lg2.approx
// NORMALS:           gpu.return
func.func @n256_d1024(%x: tensor<256x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<256x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
