// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-fragment-ecf=1 single-launch-transposed-ecf=0 single-launch-term-sums=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=RULE
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-fragment-ecf=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=OFF
// RUN: not sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-fragment-ecf=2 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-warps=4 single-launch-transposed-ecf=0 single-launch-term-sums=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=W4
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-transposed-ecf=1 single-launch-term-sums=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TR
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=single-launch-fragment-ecf=1 single-launch-transposed-ecf=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TRF
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TERMS1
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-term-sums=2 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=TERMS2
// RUN: not sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch-term-sums=3 2>&1 | FileCheck %s --check-prefix=BADTERMS

// single-launch-fragment-ecf at the minimal shape (V 4, N 256, D 16, S 256,
// P 17, bf16): one k step, so one k group (mmaWarpsK = 1) and each warp's
// accumulators are whole sums. Stages 3-5 run on them in registers
// (emitFragmentEcf): no partials, no y tile, no barrier between the MMAs
// and the ECF's warp sums. (Its schedule splits g into hi + lo parts: 2
// row fragments x 2 parts = 4 mma.sync.)
// By rule (single-launch-fragment-ecf=-1, the default) too: the tile has
// 256 rows, at least kSingleLaunchFragmentEcfMinRows = 128; and by default
// transposed (single-launch-transposed-ecf, below: A's zero rows, no index
// shuffle). With =0 the y tile, as in single-launch-kernel.mlir. The CHECK
// lines show the untransposed form (single-launch-transposed-ecf=0) with
// warp 0 forming the block's statistics (single-launch-term-sums=0).
// BAD: error: single-launch-fragment-ecf must be -1 (by rule), 0 (never) or 1 (wherever it can), got 2
// RULE-LABEL:  func.func @minimal
// RULE:          gpu.func @sigreg_single_launch
// RULE-SAME:       %[[YS:[^ ]*]] : memref<2048xf32,
// RULE:          nvvm.mma.sync A[%{{.*}}, %c0_i32, %{{.*}}, %c0_i32]
// RULE-NOT:      gpu.shuffle  idx
// RULE-NOT:      memref.store %{{.*}}, %[[YS]]
// RULE:          gpu.return
// OFF-LABEL:   func.func @minimal
// OFF:           gpu.func @sigreg_single_launch
// OFF-SAME:        %[[YS:[^ ]*]] : memref<2048xf32,
// OFF-NOT:       gpu.shuffle  idx
// OFF:           memref.store %{{.*}}, %[[YS]]
// CHECK-LABEL: func.func @minimal
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      workgroup(%[[GS:.*]] : memref<2176xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[YS:[^ ]*]] : memref<2048xf32,
// CHECK-NOT:     gpu.barrier
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT:     memref.store
// The column norms: the sums of g^2 over the four lanes t, then per column
// of the thread the sum from lane 4 c, its square root and one reciprocal.
// The lanes whose bit 16 is set (b) take their two columns in swapped
// roles: the kept column is 2 t + b (its norm from lane 4 (2 t + b), its
// accumulators picked by a select on b), the sent one 2 t + 1 - b.
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:         %[[B16:.*]] = arith.divui %{{.*}}, %c16 : index
// CHECK-NEXT:    %[[B:.*]] = arith.remui %[[B16]], %c2 : index
// CHECK-NEXT:    %[[SWAP:.*]] = arith.cmpi ugt, %[[B]], %c0 : index
// CHECK:         %[[T2:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK-NEXT:    %[[KEPT:.*]] = arith.addi %[[T2]], %[[B]] : index
// CHECK-NEXT:    %[[FROM:.*]] = arith.muli %[[KEPT]], %c4 : index
// CHECK-NEXT:    %[[FROMI:.*]] = arith.index_castui %[[FROM]] : index to i32
// CHECK-NEXT:    %[[SQ0:.*]], %{{.*}} = gpu.shuffle  idx %{{.*}}, %[[FROMI]], %c32_i32 : f32
// CHECK-NEXT:    %[[N0:.*]] = math.sqrt %[[SQ0]] : f32
// CHECK-NEXT:    %[[I0:.*]] = arith.divf %{{.*}}, %[[N0]] : f32
// CHECK-NEXT:    %[[A0:.*]] = arith.select %[[SWAP]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.mulf %[[A0]], %[[I0]] : f32
// Rows q and q + 8 of a fragment as a pair (no masks: the tile is the
// batch, every warp has rows): two range-reduced sincos; where the lane's
// bit 8 is set the cos and sin recurrences start from each other's values
// (four selects), so its list holds the sines first.
// CHECK:         %[[SU:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:    %[[CU:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:         arith.select %[[SINES:.*]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    arith.select %[[SINES]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    arith.select %[[SINES]], %[[SU]], %[[CU]] : f32
// CHECK-NEXT:    arith.select %[[SINES]], %[[CU]], %[[SU]] : f32
// CHECK:         %[[SQ1:.*]], %{{.*}} = gpu.shuffle  idx
// CHECK-NEXT:    %[[N1:.*]] = math.sqrt %[[SQ1]] : f32
// CHECK-NEXT:    %[[I1:.*]] = arith.divf %{{.*}}, %[[N1]] : f32
// CHECK-NOT:     memref.store
// CHECK-NOT:     gpu.barrier
// The butterfly over the lanes q: at offset 16 the sent column's 32 sums
// whole (no selects: the lane 16 away keeps that column), each added to the
// kept column's; at offset 8 the second half of the list (sin, or cos where
// the sines come first: the other lane's kept half), no selects either;
// then 8 shuffles of the halves picked by a select on the lane's bit 4, and
// the lane's 8 sums of column 2 t + b to the warp's slots of gs.
// CHECK:         %[[GOT:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.addf %{{.*}}, %[[GOT]] : f32
// CHECK-COUNT-31: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NOT:     arith.select
// CHECK-COUNT-16: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT:     arith.select
// CHECK:         arith.select
// CHECK-COUNT-8: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK-COUNT-8: memref.store %{{.*}}, %[[GS]][%{{.*}}] : memref<2176xf32
// CHECK-NOT:     memref.store %{{.*}}, %[[YS]]
// Then the warps' sums in warp order, as without the option.
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c136 step %c256
// CHECK-COUNT-16: memref.load %[[GS]]
// CHECK-NOT:     memref.store %{{.*}}, %[[YS]]
// CHECK:         gpu.return
// In blocks of 4 warps (single-launch-warps=4, untransposed, term-sums=0): 128 threads, each warp 64
// rows (4 row fragments x 2 parts = 8 mma.sync); a thread still holds two
// columns' 32 sums, so the butterfly is the same per warp and the block has
// half the shuffles; the warp sums are added over 4 warps, one pass: the
// 128 threads take the means of p = 1..16 (entry 17 j + 1 + tid % 16 of
// column j = tid / 16) and the first 8 also write p = 0's (1 and 0).
// W4-LABEL:    func.func @minimal
// W4:            gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c32, %c1, %c4) threads in (%c128, %c1, %c1)
// W4:            gpu.func @sigreg_single_launch
// W4-SAME:         workgroup(%[[GS:[^ ]*]] : memref<2048xf32,
// W4-SAME:         known_block_size = array<i32: 128, 1, 1>
// W4-NOT:        gpu.barrier
// W4-COUNT-8:    nvvm.mma.sync
// W4-NOT:        gpu.barrier
// W4-COUNT-32:   gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// W4-COUNT-16:   gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// W4-COUNT-8:    gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// W4:            gpu.barrier
// W4-NOT:        scf.for
// W4:            %[[P1:.*]] = arith.remui %thread_id_x, %c16 : index
// W4-NEXT:       %[[P:.*]] = arith.addi %[[P1]], %c1 : index
// W4-NEXT:       %[[J:.*]] = arith.divui %thread_id_x, %c16 : index
// W4-NEXT:       %[[J17:.*]] = arith.muli %[[J]], %c17 : index
// W4-NEXT:       %[[Q:.*]] = arith.addi %[[J17]], %[[P]] : index
// W4-NEXT:       memref.load %[[GS]][%[[Q]]]
// W4-COUNT-7:    memref.load %[[GS]]
// W4-NOT:        memref.load %[[GS]]
// W4:            %[[FIRST:.*]] = arith.cmpi ult, %thread_id_x, %c8 : index
// W4-NEXT:       scf.if %[[FIRST]] {
// W4-NEXT:         %[[Q0:.*]] = arith.muli %thread_id_x, %c17 : index
// W4-NEXT:         memref.store %{{.*}}, %{{.*}}[%[[Q0]]]
// W4:            gpu.return
// single-launch-transposed-ecf: the GEMM as g^T x^T (emitTransposedMmaStep),
// 8 slices on m (rows 8-15 of A are zero words), the warp's 32 rows on n as
// 4 fragments of 8 (x's two words of row 8 f + q per fragment), g split into
// hi + lo: 4 x 2 = 8 mma.sync, each lane's accumulators c0, c1 of one slice.
// The slice's norm: the lane's sum of g^2 over the four lanes t (xor 1, 2),
// no shuffle from another column's lane. The butterfly over those four lanes
// (emitTransposedFragmentEcf): offset 2 sends the second half of the list
// (16 sums, no selects: the lanes of bit 2 list their sines first), offset 1
// the half a select picks (8), and the lane's 8 sums go to gs; no shuffles
// at offsets 16, 8 or 4 before the barrier. The warps' sums, as before
// (single-launch-term-sums=0).
// TR-LABEL:    func.func @minimal
// TR:            gpu.func @sigreg_single_launch
// TR-SAME:         workgroup(%[[GS:[^ ]*]] : memref<2176xf32,
// TR-NOT:        gpu.barrier
// TR:            %[[W0:.*]] = vector.bitcast %{{.*}} : vector<4xbf16> to vector<2xi32>
// TR-NEXT:       %[[B0:.*]] = vector.extract %[[W0]][0] : i32 from vector<2xi32>
// TR-NEXT:       %[[B1:.*]] = vector.extract %[[W0]][1] : i32 from vector<2xi32>
// TR-NEXT:       nvvm.mma.sync A[%[[HI0:.*]], %c0_i32, %[[HI1:.*]], %c0_i32]  B[%[[B0]], %[[B1]]]
// TR-SAME:         shape = #nvvm.shape<m = 16, n = 8, k = 16>
// TR:            nvvm.mma.sync A[%[[LO0:.*]], %c0_i32, %[[LO1:.*]], %c0_i32]  B[%[[B0]], %[[B1]]]
// TR-COUNT-6:    nvvm.mma.sync A[%{{.*}}, %c0_i32, %{{.*}}, %c0_i32]
// TR-NOT:        nvvm.mma.sync
// TR:            gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// TR:            gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// TR:            math.sqrt
// TR-NOT:        gpu.shuffle  idx
// TR-NOT:        gpu.shuffle  xor %{{.*}}, %c16_i32
// TR-NOT:        gpu.shuffle  xor %{{.*}}, %c8_i32
// TR-NOT:        gpu.shuffle  xor %{{.*}}, %c4_i32
// TR:            %[[GOT:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// TR-NEXT:       arith.addf %{{.*}}, %[[GOT]] : f32
// TR-COUNT-15:   gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// TR-NOT:        arith.select
// TR:            arith.select
// TR-COUNT-8:    gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// TR-NOT:        gpu.shuffle
// TR-COUNT-8:    memref.store %{{.*}}, %[[GS]][%{{.*}}] : memref<2176xf32
// TR-NEXT:       gpu.barrier
// TR:            scf.for %{{.*}} = %{{.*}} to %c136 step %c256
// TR:            gpu.return
// single-launch-term-sums=1, the default, at minimal: 8 slices x 16 points
// p >= 1 = 128 entries on warps 0-3 (threads below 128; p = 0's term is exactly 0).
// After the barrier each thread gathers its entry's 8 warp sums (entry
// (j, p) at j 17 + p), forms its term in the loss word's fixed point (26
// fraction bits, 48 sum bits: one poison count is 2^48) and the warp adds
// the terms' two 26-bit parts by redux.sync. Lane 0 stores the warp's sum
// to its slot (memref<4xi64>, workgroup); warps 1-3 arrive at named barrier
// 1 over 128 threads without waiting, warp 0 syncs on it, adds the slots
// (no fences: the barrier orders the slots' stores before its loads) and
// brings the block's sum, with one arrival (2^56), to the loss word, whose
// 128th arrival writes the loss.
// TERMS1-LABEL: func.func @minimal
// TERMS1:       gpu.func @sigreg_single_launch
// TERMS1-SAME:    memref<1xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SLOTS:.*]] : memref<4xi64, #gpu.address_space<workgroup>>
// TERMS1:         gpu.barrier
// TERMS1:         arith.cmpi ult, %thread_id_x, %c128 : index
// TERMS1-NEXT:    scf.if
// TERMS1-NEXT:      arith.minui %thread_id_x, %c127 : index
// TERMS1-NEXT:      arith.remui %{{.*}}, %c16 : index
// TERMS1-NEXT:      arith.divui %{{.*}}, %c16 : index
// TERMS1-NEXT:      arith.addi %{{.*}}, %c1 : index
// TERMS1-NEXT:      arith.muli %{{.*}}, %c17 : index
// TERMS1:           math.roundeven
// TERMS1:           arith.select %{{.*}}, %{{.*}}, %c281474976710656_i64 : i64
// TERMS1:           nvvm.redux.sync  add %{{.*}}, %c-1_i32 : i32 -> i32
// TERMS1:           arith.shrui %{{.*}}, %c26_i64 : i64
// TERMS1:           nvvm.redux.sync  add %{{.*}}, %c-1_i32 : i32 -> i32
// TERMS1-NOT:       nvvm.redux.sync
// TERMS1:           scf.if
// TERMS1-NEXT:        memref.store %{{.*}}, %[[SLOTS]][%{{.*}}] : memref<4xi64, #gpu.address_space<workgroup>>
// TERMS1-NEXT:      }
// TERMS1-NEXT:      arith.cmpi ugt, %[[WARP:.*]], %c0 : index
// TERMS1-NEXT:      scf.if
// TERMS1-NEXT:        nvvm.barrier.arrive id = %c1_i32 number_of_threads = %c128_i32
// TERMS1-NEXT:      }
// TERMS1-NEXT:      arith.cmpi ult, %[[WARP]], %c1 : index
// TERMS1-NEXT:      scf.if
// TERMS1-NEXT:        nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// TERMS1-NEXT:        scf.if
// TERMS1-COUNT-4:       memref.load %[[SLOTS]]
// TERMS1-NOT:           llvm.fence
// TERMS1:               arith.addi %{{.*}}, %c72057594037927936_i64 : i64
// TERMS1-NEXT:          memref.atomic_rmw addi %{{.*}}, %arg4[%c0] : (i64, memref<1xi64>) -> i64
// TERMS1:               arith.cmpi eq, %{{.*}}, %c128_i64 : i64
// TERMS1-NOT:     gpu.barrier
// TERMS1:         gpu.return
// single-launch-term-sums=2: no slots; lane 0 of each of the 4 warps adds
// its sum to the loss word as one of 4 x 128 = 512 arrivals (10-bit counts:
// the arrival unit 2^54, 22 fraction bits).
// TERMS2-LABEL: func.func @minimal
// TERMS2:       gpu.func @sigreg_single_launch
// TERMS2-NOT:     xi64, #gpu.address_space<workgroup>>
// TERMS2:         nvvm.redux.sync
// TERMS2:         nvvm.redux.sync
// TERMS2-NOT:     llvm.fence
// TERMS2:         arith.addi %{{.*}}, %c18014398509481984_i64 : i64
// TERMS2-NEXT:    memref.atomic_rmw addi %{{.*}}, %arg4[%c0] : (i64, memref<1xi64>) -> i64
// TERMS2-NEXT:    arith.addi
// TERMS2-NEXT:    arith.shrui %{{.*}}, %c54_i64 : i64
// TERMS2-NEXT:    arith.cmpi eq, %{{.*}}, %c512_i64 : i64
// BADTERMS: single-launch-term-sums must be 0 (never), 1 (the warps' sums added in shared memory) or 2 (every warp's sum to the loss word), got 3
func.func @minimal(%x: tensor<4x256x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 reduction = mean : tensor<4x256x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A ragged batch (N 200 in a tile of 256 rows) and D 13: every element is
// masked by its row (row < 256 and row < 200), one sincos per element.
// CHECK-LABEL: func.func @ragged
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-NOT:     gpu.barrier
// CHECK:         nvvm.mma.sync
// CHECK:         gpu.shuffle  idx
// CHECK:         arith.cmpi ult, %{{.*}}, %c200 : index
// CHECK:         llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:         arith.select
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         gpu.barrier
// Transposed (g rounded to f16, one part: 4 fragments, 4 mma.sync, A's
// rows 8-15 the same zero operand), a row past the batch masks each element
// (row 8 f + 2 t (+ 1) of the warp's, below 256 and 200): one sincos per
// element, the selects, then the sines first by selects, and the butterfly
// over offsets 2 and 1.
// TR-LABEL:    func.func @ragged
// TR:            gpu.func @sigreg_single_launch
// TR:            nvvm.mma.sync A[%{{.*}}, %[[Z:.*]], %{{.*}}, %[[Z]]]
// TR-COUNT-3:    nvvm.mma.sync A[%{{.*}}, %[[Z]], %{{.*}}, %[[Z]]]
// TR-NOT:        nvvm.mma.sync
// TR:            arith.cmpi ult, %{{.*}}, %c200 : index
// TR:            llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// TR:            arith.select
// TR-NOT:        gpu.shuffle  xor %{{.*}}, %c16_i32
// TR:            gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// TR:            gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// TR:            gpu.barrier
// Term sums at the ragged shape (one view, 19 blocks: 5-bit counts leave a
// 54-bit sum field, so the warp adds three 26-bit parts); 8 x 8 = 64
// entries on 2 warps.
// TERMS1-LABEL: func.func @ragged
// TERMS1:         arith.cmpi ult, %thread_id_x, %c64 : index
// TERMS1-COUNT-3:   nvvm.redux.sync
// TERMS1:           nvvm.barrier.arrive id = %c1_i32 number_of_threads = %c64_i32
// TERMS1:           nvvm.barrier id = %c1_i32 number_of_threads = %c64_i32
func.func @ragged(%x: tensor<200x13xf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 150 points = 9 reduction = mean : tensor<200x13xf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Not applicable, so the option changes nothing: P = 3 (2 (P - 1) = 4 sums
// do not halve three times) and D = 32 (two k groups add their partials in
// shared memory). Both form the y tile as before.
// CHECK-LABEL: func.func @p3
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      %[[YS:arg[0-9]+]] : memref<2048xf32,
// CHECK:         memref.store %{{.*}}, %[[YS]]
// CHECK-NOT:     gpu.shuffle  idx
func.func @p3(%x: tensor<256x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 3 reduction = mean : tensor<256x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @d32
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      %[[YS:arg[0-9]+]] : memref<2048xf32,
// CHECK:         memref.store %{{.*}}, %[[YS]]
// CHECK-NOT:     gpu.shuffle  idx
func.func @d32(%x: tensor<256x32xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 reduction = mean : tensor<256x32xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Three views of 40 rows in a tile of 64 (D 8, S 64, P 17, per slice): the
// option runs the ECF on the accumulators (24 rows of each tile masked); the
// rule keeps the y tile (64 rows < 128: measured 0.1-0.3 us slower on the
// H200 with the option).
// CHECK-LABEL: func.func @views64
// CHECK:         gpu.func @sigreg_single_launch
// CHECK:         gpu.shuffle  idx
// RULE-LABEL:  func.func @views64
// RULE:          gpu.func @sigreg_single_launch
// RULE-NOT:      gpu.shuffle  idx
// RULE:          gpu.return
// Transposed only where the ECF runs on the accumulators: by rule not in
// this 64-row tile, which keeps its y tile.
// TR-LABEL:    func.func @views64
// TR:            gpu.func @sigreg_single_launch
// TR-SAME:         %[[YS:arg[0-9]+]] : memref<512xf32,
// TR:            memref.store %{{.*}}, %[[YS]]
// TR:            gpu.return
// Per-slice statistics (reduction none) keep their stage 7: no term sums.
// TERMS1-LABEL: func.func @views64
// TERMS1-NOT:     nvvm.redux.sync
// TERMS1:         gpu.return
func.func @views64(%x: tensor<3x40x8xbf16>, %seed: i64) -> tensor<3x64xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 64 points = 17 reduction = none : tensor<3x40x8xbf16> -> tensor<3x64xf32>
  return %l : tensor<3x64xf32>
}

// -----

// A whole batch of 64 rows in a tile of 64, transposed (fragment ECF
// forced): the 8 warps' 2 fragments of 8 rows span 128 rows, so the x rows
// of warps 4-7 are clamped to the batch (row 63) like a ragged batch's
// (mmaRowsInBatch), never read past it, and their elements masked.
// TRF-LABEL:   func.func @n64
// TRF:           gpu.func @sigreg_single_launch
// TRF:           %[[R0:.*]] = arith.minui %{{.*}}, %c63 : index
// TRF-NEXT:      %{{.*}} = arith.muli %{{.*}}, %c4 : index
// TRF-NEXT:      vector.load %{{.*}}[%{{.*}}, %[[R0]], %{{.*}}] {{.*}} : memref<1x64x16xbf16>, vector<4xbf16>
// TRF:           %[[R1:.*]] = arith.minui %{{.*}}, %c63 : index
// TRF-NEXT:      vector.load %{{.*}}[%{{.*}}, %[[R1]], %{{.*}}] {{.*}} : memref<1x64x16xbf16>, vector<4xbf16>
// TRF:           arith.cmpi ult, %{{.*}}, %c64 : index
// TRF:           gpu.return
func.func @n64(%x: tensor<64x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 128 points = 17 reduction = mean : tensor<64x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
