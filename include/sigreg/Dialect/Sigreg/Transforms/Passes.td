//===- Passes.td - sigreg dialect passes ------------------*- tablegen -*-===//

#ifndef SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD
#define SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SigregDecompose : Pass<"sigreg-decompose"> {
  let summary = "Split sigreg.loss into the mid-level region ops";
  let description = [{
    Rewrites every `sigreg.loss` into `sigreg.projection` (when seeded),
    `sigreg.project`, `sigreg.ecf`, `sigreg.all_reduce_mean`,
    `sigreg.epps_pulley` and `sigreg.reduce`. Rank-2 inputs `[N, D]` get a
    unit view dimension so that the mid-level ops always see `[V, N, D]`.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def SigregLowerNaive : Pass<"sigreg-lower-naive"> {
  let summary = "Lower the mid-level ops to linalg/tensor the way eager PyTorch runs them";
  let description = [{
    The reference path, kept forever: every intermediate eager PyTorch
    materializes is materialized here too, including the `[V, N, S, P]`
    arguments, cosines and sines. The projection is generated element-wise
    (Philox4x32-10 + Box-Muller, docs/PROJECTION.md) and normalized with a
    sequential f32 sum over D. A `sigreg.advance_step` becomes a load of the
    counter and a store of the next value, where the host can reach it
    (`host-step`, the CPU pipeline); the naive GPU pipeline, whose counter
    lives in device memory, rejects it at the op.
  }];
  let options = [
    Option<"hostStep", "host-step", "bool", "true",
           "sigreg.advance_step's counter is in host memory: load and store it "
           "(false: an error at the op)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "memref::MemRefDialect"];
}

def SigregFuseEcf : Pass<"sigreg-fuse-ecf"> {
  let summary = "Fuse the projection GEMM, frequency projection, cos/sin and batch mean";
  let description = [{
    Rewrites `sigreg.ecf(sigreg.project(x, A))`, when the slices have no
    other use, into `sigreg.fused_ecf(x, A)`: the `[V, N, S, P]` tensors and
    the slices `y` are never materialized. Never looks through
    `sigreg.all_reduce_mean`.
  }];
}

def SigregFuseEcfBackward : Pass<"sigreg-fuse-ecf-backward"> {
  let summary = "Fuse the backward of the ECF and of the projection GEMM";
  let description = [{
    Rewrites `sigreg.project_transpose(sigreg.ecf_grad(sigreg.project(x, A),
    dcos, dsin), A)`, when `dL/dy` has no other use, into
    `sigreg.fused_ecf_backward(x, A, dcos, dsin)`: neither `dL/dy` nor the
    `[V, N, S, P]` tensors are materialized, and y is recomputed from x and
    A. The forward's `sigreg.project` is erased when nothing else reads it;
    run this pass before `--sigreg-fuse-ecf`, whose rewrite needs the
    project's single use.
  }];
}

def SigregSaveSlices : Pass<"sigreg-save-slices"> {
  let summary = "Let the fused backward read the forward's slices instead of recomputing them";
  let description = [{
    For every `sigreg.fused_ecf_backward` without a `slices` operand whose
    input and projection are those of a `sigreg.fused_ecf` earlier in the
    same block, scheduled on the one-tile Hopper kernel (`#sigreg.schedule`
    kernel = wgmma: its lowering can store y), the forward gains the slices
    result `[V, N, S]` and the backward reads it: the backward's GEMM that
    recomputed y disappears, at the price of writing and reading the slices
    once (docs/BACKWARD.md has the measured trade). The slices are y in f32
    for f32 inputs; for 16-bit inputs (whose gradient tolerance is 1e-2)
    they are y's phase in i16 (`phase`, on by default: half the bytes, and
    the backward's dL/dy written over them). Cost rule: the slices' bytes
    (V N S x 4, or x 2 for the phase) at most `max-bytes`. Run after
    `--sigreg-choose-schedule`.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "int64_t(1) << 30",
           "Largest slices tensor saved, in bytes (0: never save)">,
    Option<"phase", "phase", "bool", "true",
           "Save the 16-bit phase of dt y instead of y for 16-bit inputs">
  ];
}

def SigregFuseEpilogue : Pass<"sigreg-fuse-epilogue"> {
  let summary = "Fuse squared error, weighted integration, clip and final reduction";
  let description = [{
    Rewrites `sigreg.reduce(sigreg.epps_pulley(c, s, n))`, when the
    statistics have no other use, into `sigreg.fused_epilogue(c, s, n)`. The
    fused op starts after the `sigreg.all_reduce_mean` boundary.
  }];
}

def SigregDistinctResults : Pass<"sigreg-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Give every tensor a function returns more than once a copy of its own";
  let description = [{
    `return %l, %l` hands one value to two results. One-shot bufferization
    then returns one buffer twice, and upstream `buffer-results-to-out-params`
    (with hoisted allocations) crashes on it. This pass replaces every later
    occurrence of a returned tensor by `bufferization.alloc_tensor() copy(%l)`,
    so that each result gets a buffer of its own. The pipelines run it right
    before their bufferization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def SigregChooseSchedule : Pass<"sigreg-choose-schedule"> {
  let summary = "Attach the GPU schedule to every sigreg.fused_ecf";
  let description = [{
    Records, as a `#sigreg.schedule` attribute `schedule` on every
    `sigreg.fused_ecf` with static shapes that has none, the decisions
    `--convert-sigreg-to-gpu` would make under the same options
    (chooseScheduleAttr in EcfSchedule.cpp: the kernel, tile, k tile, batch
    tiles and how a seeded projection is read). A schedule already present,
    for example one written by hand, is kept; the op verifier checks it.
    `--convert-sigreg-to-gpu` follows the attribute where there is one.
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", "0",
           "SIMT kernel: batch rows per block (16, 32 or 64; 0: by shape)">,
    Option<"blockSlices", "block-slices", "int64_t", "0",
           "SIMT kernel: slices per block (16, 32 or 64; 0: by shape)">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "bf16/f16 inputs may use the tensor-core (mma.sync) kernel">,
    Option<"hopper", "hopper", "bool", "false",
           "The target is sm_90a: large bf16/f16 problems use the TMA + wgmma kernel">,
    Option<"wgmmaSlices", "wgmma-slices", "int64_t", "0",
           "Slices per CTA tile of the TMA + wgmma kernel (64, 128 or 256; 0: by rule)">,
    Option<"wgmmaPersistent", "wgmma-persistent", "bool", "false",
           "TMA + wgmma kernel: persistent, the ping-pong kernel (P <= 25), "
           "or with wgmma-rows=256 the transposed tile (P <= 23) wherever it can; by rule the "
           "transposed tile is persistent where that keeps its waves, and wgmma-rows=256 alone "
           "keeps one tile per CTA">,
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
    Option<"singleLaunch", "single-launch", "int64_t", "1",
           "Whole forward in one launch: 0 never, 1 where the cost rule "
           "usesSingleLaunch picks it, 2 wherever it applies">,
    Option<"promoteAccumulators", "promote-accumulators", "int64_t", "-1",
           "Tensor-core kernels: their sums start from zero every N k-tiles and are added "
           "into f32 registers with round-to-nearest adds (the mma.sync kernel, and the "
           "Hopper kernel's 128 x 64 tile, which N > 0 selects; 0: never; -1: by rule, "
           "per-slice statistics whose truncated MMA sums would cost more than 1e-3)">,
    Option<"singleLaunchWarps", "single-launch-warps", "int64_t", "0",
           "Warps per block of the single launch, 4, 8 or 16 (0: by rule, 8)">
  ];
}

def SigregRoofline : Pass<"sigreg-roofline"> {
  let summary = "Report FLOPs, bytes moved and arithmetic intensity per region";
  let description = [{
    An analysis (the IR is not changed): for every function holding sigreg
    ops, computes from the shapes and element types of the ops present the
    work of the regions (docs/CONTRACT.md section 7) `projection_generation`,
    `projection_gemm`, `trig_reduction` and `epilogue`, and their total, and
    prints one remark per region on the function:

    ```
    projection_gemm: flops=134217728 bytes=8650752 intensity=15.5152
    ```

    `trig_reduction` and `total` also give `sfu=`, the cos/sin evaluations
    (not counted as FLOPs, as in the seed). Intensity is FLOPs / bytes.

    Naive path (mid-level ops, after `--sigreg-decompose`): the seed's
    formulas per op, with B = V*N rows for the GEMM and S -> V*S after it
    (the ECF and epilogue run once per view). Bytes use q = the element
    width of each tensor: the input dtype for x, the element type of an
    explicit projection, 4 for f32 intermediates and the f32 integration
    points, phi and weights (P elements each). `element-bytes=N` forces one q
    for everything, which reproduces the seed's totals exactly. Clipping is
    not counted (comparisons, absent from the seed's formulas); the
    all-reduce is outside the totals (reported apart when world_size > 1).

    Fused path (after `--sigreg-fuse-ecf` / `--sigreg-fuse-epilogue`): the
    traffic of the fused ops as `--convert-sigreg-to-gpu` schedules them,
    counted as compulsory DRAM traffic (each tensor read or written once;
    re-reads of x and A tiles by other blocks are assumed to hit L2):
    `sigreg.projection` writes g as [D, S] f32 (SIMT consumer) or as packed
    16-bit hi (and lo, when split) words [D/2, S] (tensor-core consumer,
    rules in EcfSchedule.h), and the per-chunk sums of squares;
    `sigreg.fused_ecf` reads x and A (or g and the sums) and writes
    the [V, S, P] cos/sin means, plus, when the batch spans T > 1 row tiles,
    the [T, V, S, P] per-tile partials that the finalize kernel reads back
    (an estimate from the tile sizes the lowering would choose, see
    `block-rows` and `tensor-cores`); `sigreg.fused_epilogue` reads the two
    [V, S, P] f32 tensors and writes its result. The fused ECF's operand
    reads and GEMM are reported as `projection_gemm`, its trig/mean work and
    output writes as `trig_reduction`. Full counting conventions are at the
    top of lib/Dialect/Sigreg/Transforms/Roofline.cpp.
  }];
  let options = [
    Option<"elementBytes", "element-bytes", "int64_t", "0",
           "Bytes per element for every tensor (0: each tensor's own element width)">,
    Option<"jsonFile", "json", "std::string", "",
           "Also write the report as JSON to this file">,
    Option<"batch", "batch", "int64_t", "0",
           "Size substituted for a dynamic batch dimension (0: report nothing for such functions)">,
    Option<"blockRows", "block-rows", "int64_t", "0",
           "Fused path: rows per fused ECF block, as --convert-sigreg-to-gpu (0: by shape)">,
    Option<"wgmmaAtomicSums", "wgmma-atomic-sums", "bool", "false",
           "Fused path: as --convert-sigreg-to-gpu's wgmma-atomic-sums">,
    Option<"projectionChunk", "projection-chunk", "int64_t", "64",
           "Fused path: most rows of D per projection thread, as --convert-sigreg-to-gpu">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "Fused path: bf16/f16 ECF GEMMs may use the tensor-core kernel, as --convert-sigreg-to-gpu">
  ];
}

#endif // SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD
