//===- Passes.td - sigreg conversion passes ---------------*- tablegen -*-===//

#ifndef SIGREG_CONVERSION_PASSES_TD
#define SIGREG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSigregToGPU : Pass<"convert-sigreg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the fused sigreg ops to GPU kernels with explicit schedules";
  let description = [{
    Lowers the fused sigreg ops of every function holding them (after
    `--sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue`) to
    `gpu.launch_func` of kernels of `gpu.module @sigreg_kernels`, one
    conversion pattern per op: each reads its tensor operands through
    `bufferization.to_buffer`, writes `memref.alloc` result buffers and
    workspaces, and yields `bufferization.to_tensor` of its results. The
    function boundary stays on tensors: `--sigreg-gpu-bufferize` (upstream
    one-shot bufferization, then results as out-parameters) gives the memref
    host code. Shapes must be static. The schedules are documented in
    docs/GPU-SCHEDULES.md:

    - `sigreg.projection` -> `sigreg_projection`: one thread per slice column
      and chunk of D rows; writes raw g and per-chunk sums of g^2.
    - `sigreg.fused_ecf` -> `sigreg_fused_ecf`: a block per (slice tile,
      batch tile, view), 256 threads, shared-memory tiled f32 GEMM; y stays in
      registers, cos/sin by one sincos and an angle-addition recurrence over
      the points, batch sums reduced through shared memory. bf16/f16 inputs
      use `sigreg_fused_ecf_mma` instead (mma.sync m16n8k16 tiles of 64 rows x
      128 slices, y staged in shared memory), and with `hopper` large ones
      `sigreg_fused_ecf_wgmma` (TMA + wgmma, warp-specialized, tiles of 128
      rows x 256 slices; tensor maps built on the host with
      `nvgpu.tma.create.descriptor`). With more than
      one batch tile, `sigreg_ecf_finalize` sums the tiles in a fixed order.
    - `sigreg.fused_epilogue` -> `sigreg_epilogue`: one block, thread-strided
      statistic and a fixed-order tree reduction (mean/sum), or one thread
      per statistic (none).
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", "0",
           "Batch rows per block of the fused ECF kernel (16, 32 or 64; 0: by shape)">,
    Option<"blockSlices", "block-slices", "int64_t", "0",
           "Slices per block of the fused ECF kernel (16, 32 or 64; 0: by shape)">,
    Option<"projectionChunk", "projection-chunk", "int64_t", "64",
           "Most rows of D per thread of the projection kernel (fewer, down to 16, when the grid would not fill the GPU)">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "bf16/f16 inputs: run the fused ECF GEMM on tensor cores (mma.sync)">,
    Option<"hopper", "hopper", "bool", "false",
           "The target is sm_90a: large bf16/f16 problems use the TMA + wgmma kernel">,
    Option<"wgmmaSlices", "wgmma-slices", "int64_t", "0",
           "Slices per CTA tile of the TMA + wgmma kernel (64, 128 or 256; 0: by rule)">,
    Option<"wgmmaPersistent", "wgmma-persistent", "bool", "false",
           "TMA + wgmma kernel: persistent, the ping-pong kernel (one consumer warpgroup's ECF beside the other's MMAs), or with wgmma-rows=256 the transposed tile (its CTAs walk the batch tiles of one slice tile) wherever it can; by rule the transposed tile is persistent where that keeps its waves, and wgmma-rows=256 alone keeps one tile per CTA">,
    Option<"wgmmaGenerate", "wgmma-generate", "bool", "false",
           "TMA + wgmma kernel: the 64-slice tile generates its g tile itself, split among a cluster of the slice tile's CTAs (one launch; measured slower than two at mid)">,
    Option<"wgmmaCooperative", "wgmma-cooperative", "int64_t", "-1",
           "TMA + wgmma kernel: the one-tile kernel's grid generates g itself before a grid-wide barrier, launched cooperatively (one launch, no projection launch): -1 by rule (where each thread generates at most 32 rows), 0 never, 1 wherever it can">,
    Option<"wgmmaCluster", "wgmma-cluster", "int64_t", "0",
           "TMA + wgmma kernel: CTAs per cluster sharing the g tile by multicast "
           "(1, 2 or 4; 0: by rule)">,
    Option<"wgmmaRows", "wgmma-rows", "int64_t", "0",
           "TMA + wgmma kernel: batch rows per CTA tile, 128 or 256 (the "
           "transposed kernel's 256 x 128 tile, ECF from the accumulators; "
           "0: by rule)">,
    Option<"wgmmaAtomicSums", "wgmma-atomic-sums", "bool", "false",
           "TMA + wgmma kernel past 16 batch tiles: the tiles' sums in 64-bit fixed point through "
           "integer atomics, finalized in the kernel's tail (less memory, slower)">,
    Option<"singleLaunch", "single-launch", "int64_t", "1",
           "Whole forward in one launch (sigreg_single_launch): 0 never, 1 where "
           "the cost rule usesSingleLaunch picks it, 2 wherever it applies">,
    Option<"singleLaunchWarps", "single-launch-warps", "int64_t", "0",
           "Warps per block of the single launch, 4, 8 or 16 (0: by rule, 8)">,
    Option<"singleLaunchFastNormals", "single-launch-fast-normals", "bool", "false",
           "The single launch's tensor-core GEMM generates g with fast-normals' mapping "
           "wherever it runs (by default where its k walk is staggered by rule and in "
           "unstaggered tiles of at most 128 Ki x elements; elsewhere the exact one, "
           "measured faster there; fast-normals=0: nowhere)">,
    Option<"singleLaunchStagger", "single-launch-stagger", "int64_t", "-1",
           "The single launch's blocks walk their tensor-core k steps from different first "
           "steps (block b from step group b mod the groups), so that they do not all read the "
           "same x lines at once: -1 by rule (tiles of at most 32 rows, with the fast normals "
           "of fast-normals), 0 never, 1 wherever the steps allow">,
    Option<"singleLaunchFragmentEcf", "single-launch-fragment-ecf", "int64_t", "-1",
           "The single launch's ECF runs on the mma.sync accumulators in registers where the "
           "GEMM has one k group (D <= 16): no partials or y tile in shared memory; -1 by rule "
           "(tiles of at least 128 rows), 0 never, 1 wherever it can">,
    Option<"singleLaunchPrefetchX", "single-launch-prefetch-x", "bool", "false",
           "The single launch's tensor-core k loop loads the next step group's x words at the "
           "top of each iteration and carries them to it (measured slower at blog on the H200 and "
           "the H100; off)">,
    Option<"singleLaunchPrefetchTail", "single-launch-prefetch-tail", "bool", "false",
           "Thread 0 of every single-launch block prefetches to L2 (prefetch.global.L2) the "
           "words its last step adds to atomically (the packed loss word, the arrival "
           "counters), so that the tail's atomics do not wait on DRAM">,
    Option<"singleLaunchTransposedEcf", "single-launch-transposed-ecf", "bool", "true",
           "Where the single launch's ECF runs on the mma.sync accumulators of a tile of 8 "
           "slices, the GEMM runs transposed (g^T x^T, slices on m, rows on n): every "
           "accumulator a lane holds is of one slice, and the rows' butterfly takes 24 "
           "shuffles per warp instead of 56 (on; =0 the untransposed form)">,
    Option<"singleLaunchStageX", "single-launch-stage-x", "int64_t", "-1",
           "The single launch's tensor-core k loop reads x from shared memory: the block's rows "
           "copied in whole by bulk copies (cp.async.bulk, one mbarrier per span of step groups "
           "of the walk) issued at the kernel's start, where the loop counts in i32, the walk is "
           "staggered, the grid is one wave and the rows fit; -1 by rule (training steps, and "
           "forwards of at least 32 rows with D >= 2048; in clusters of 2 where the slice tiles "
           "pair up), 0 never, 1 wherever it can, 2 or 4 "
           "wherever it can with the copies shared by clusters of that many blocks (each block "
           "copies its share of the rows and multicasts it to the cluster)">,
    Option<"singleLaunchStageTma", "single-launch-stage-tma", "int64_t", "-1",
           "Where the single launch stages x (single-launch-stage-x), its copies are TMA boxes "
           "of a tensor map of x (64 features x the tile's rows, 128-byte swizzle) instead of "
           "bulk copies of row pieces: a quarter as many copies at blog, and the k steps take "
           "their features in the order that keeps the swizzled rows' loads free of bank "
           "conflicts (needs D % 64 == 0). -1 by rule (1 in forwards with D >= 2048, where with "
           "single-launch-gen-ahead's rule they measured faster than the bulk copies; 0 "
           "elsewhere), 0 never (bulk copies), 1 lane 0 of every warp issues its share of "
           "the boxes, 2 thread 0 issues them all">,
    Option<"singleLaunchGenAhead", "single-launch-gen-ahead", "int64_t", "-1",
           "Where the single launch stages x and waits for a span after the group's Philox "
           "work (forwards), the k loop generates g this many step groups (0-7) ahead of the "
           "MMAs that use them: the prologue generates the first groups, each iteration "
           "generates a later group's B fragments before its wait and carries them in "
           "registers, so that more x-independent work precedes the wait for x's first span "
           "(needs more step groups per warp than that). -1 by rule: the warp's step groups "
           "less 2, at most 6; 0 never (each group's own)">,
    Option<"singleLaunchTermSums", "single-launch-term-sums", "int64_t", "1",
           "Where a single-launch forward's ECF comes from the MMA fragments of the whole "
           "batch and its mean/sum loss (no clip) is added up in one fixed-point word, each "
           "thread that gathers a (slice, point) entry's warp sums forms that entry's term of "
           "the statistic in fixed point, and each warp adds its terms by redux.sync (no "
           "second barrier, no shuffles): 1 (the default) the warps store their sums to "
           "shared-memory slots and warp 0 adds them after a named barrier, 2 every warp "
           "adds its sum to the loss word, 0 never (warp 0 forms the block's statistics)">,
    Option<"singleLaunchMinctasm", "single-launch-minctasm", "int64_t", "-1",
           "The single launch's .minnctapersm, the blocks per multiprocessor ptxas plans its "
           "registers for: -1 by rule (the tensor-core GEMM's kernels: the blocks per "
           "multiprocessor of the grid's one wave, where that is 1 or 2; without it ptxas "
           "scheduled blog's k loop for the registers of the stages after it and sank the x "
           "loads to the MMAs), 0 none, N >= 1 that many">,
    Option<"singleLaunchStepGroup", "single-launch-step-group", "int64_t", "0",
           "The single launch's tensor-core k loop takes this many k steps per iteration "
           "(their x loads issued together) where every warp's steps divide by it (0: by rule, "
           "4 or 2)">,
    Option<"promoteAccumulators", "promote-accumulators", "int64_t", "-1",
           "Tensor-core kernels: their sums start from zero every N k-tiles and are added "
           "into f32 registers with round-to-nearest adds (the mma.sync kernel, and the "
           "Hopper kernel's 128 x 64 tile, which N > 0 selects; 0: never; -1: by rule, "
           "per-slice statistics whose truncated MMA sums would cost more than 1e-3)">,
    Option<"fastNormals", "fast-normals", "bool", "false",
           "Generated projections: the Box-Muller step through the GPU's approximate "
           "log2, sine and cosine (docs/PROJECTION.md section 7; g within about 1e-5 of "
           "the exact mapping's) instead of the exact mapping's polynomials">,
    Option<"deferCotangent", "defer-cotangent", "bool", "false",
           "A scalar loss's cotangent scales the backward GEMM's output instead "
           "of entering the ECF cotangent (read as 1 there): only the GEMM reads "
           "it, and its launch is marked sigreg.phase = \"backward\"">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SigregLinalgToGPU : Pass<"sigreg-linalg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower bufferized linalg.generic ops to one naive GPU kernel each";
  let description = [{
    The naive GPU path, for side-by-side timing with the fused one: every
    `linalg.generic` on memrefs (run `--linalg-generalize-named-ops` first)
    becomes a kernel of `gpu.module @sigreg_kernels` launched by
    `gpu.launch_func`. Schedule: one thread per point of the parallel
    iteration space (flattened row-major, 256 threads per block), the
    reduction loops run sequentially in the thread in the op's loop order,
    so a reduction sums in the same order as the CPU lowering. Values the
    body captures become kernel arguments (constants are cloned in);
    constant globals read by a kernel are copied into the GPU module. The
    op's `sigreg.region` attribute names the launch's region.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // SIGREG_CONVERSION_PASSES_TD
