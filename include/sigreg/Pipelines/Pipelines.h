//===- Pipelines.h - registered sigreg pipelines ----------------*- C++ -*-===//
//
// Every pipeline of the project is built and registered here, so that
// `sigreg-opt --<pipeline>` and the in-process compiler of `sigreg-run` run
// exactly the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_PIPELINES_PIPELINES_H
#define SIGREG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace sigreg {

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {};

/// sigreg.loss -> decompose -> naive linalg -> bufferize -> loops -> LLVM.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target SM (sm_90a enables the TMA + wgmma kernel)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{*this, "features",
                                            llvm::cl::desc("PTX features"),
                                            llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin, fatbin, "
                     "or none to stop before serialization"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> blockRows{
      *this, "block-rows", llvm::cl::desc("Fused ECF batch tile (0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("bf16/f16: fused ECF GEMM on tensor cores"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> blockSlices{
      *this, "block-slices", llvm::cl::desc("Fused ECF slice tile (0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> singleLaunch{
      *this, "single-launch",
      llvm::cl::desc("Whole forward in one launch: 0 never, 1 by the cost "
                     "rule (usesSingleLaunch), 2 wherever it applies"),
      llvm::cl::init(1)};
  PassOptions::Option<int64_t> singleLaunchWarps{
      *this, "single-launch-warps",
      llvm::cl::desc("Warps per block of the single launch, 8 or 16 (0: by "
                     "rule, 8)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> wgmmaSlices{
      *this, "wgmma-slices",
      llvm::cl::desc("TMA + wgmma kernel slice tile, 64, 128 or 256 (0: auto)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> wgmmaCluster{
      *this, "wgmma-cluster",
      llvm::cl::desc("TMA + wgmma kernel: CTAs per cluster sharing the g "
                     "tile by multicast, 1, 2 or 4 (0: by rule)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> wgmmaRows{
      *this, "wgmma-rows",
      llvm::cl::desc("TMA + wgmma kernel: batch rows per CTA tile, 128 or "
                     "256 (the transposed 256 x 128 tile; 0: by rule)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> saveSlices{
      *this, "save-slices",
      llvm::cl::desc("Fused backward: read the forward's slices instead of "
                     "recomputing them, where --sigreg-save-slices's cost rule "
                     "allows"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> slicesPhase{
      *this, "slices-phase",
      llvm::cl::desc("16-bit inputs: save y's 16-bit phase, not y in f32 "
                     "(--sigreg-save-slices=phase)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> wgmmaGenerate{
      *this, "wgmma-generate",
      llvm::cl::desc("TMA + wgmma kernel: the 64-slice tile generates its g "
                     "tile itself (one launch)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> wgmmaCooperative{
      *this, "wgmma-cooperative",
      llvm::cl::desc("TMA + wgmma kernel: the one-tile kernel's grid "
                     "generates g itself before a grid-wide barrier, "
                     "launched cooperatively (one launch): -1 by rule, 0 "
                     "never, 1 wherever it can"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> wgmmaPersistent{
      *this, "wgmma-persistent",
      llvm::cl::desc("TMA + wgmma kernel: persistent, the ping-pong kernel, "
                     "or with wgmma-rows=256 the transposed tile wherever "
                     "it can (by rule where it keeps its waves)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> wgmmaAtomicSums{
      *this, "wgmma-atomic-sums",
      llvm::cl::desc("TMA + wgmma kernel past 16 batch tiles: the tiles' sums "
                     "through 64-bit integer atomics (less memory, slower)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> preciseSqrt{
      *this, "precise-sqrt",
      llvm::cl::desc("Correctly rounded f32 square roots in the kernels "
                     "(--sigreg-precise-sqrt: a seeded projection is then the "
                     "host's bit for bit; default sqrt.approx.f32, faster)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> singleLaunchFastNormals{
      *this, "single-launch-fast-normals",
      llvm::cl::desc("The single launch's tensor-core GEMM generates g with "
                     "fast-normals' mapping wherever it runs (default: only "
                     "where single-launch-stagger's rule staggers it)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> singleLaunchStagger{
      *this, "single-launch-stagger",
      llvm::cl::desc("The single launch's blocks walk their k steps from "
                     "different first steps, so that they do not all read "
                     "the same x lines at once: -1 by rule (tiles of at "
                     "most 32 rows, with the fast normals), 0 never, 1 "
                     "wherever the steps allow"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> singleLaunchFragmentEcf{
      *this, "single-launch-fragment-ecf",
      llvm::cl::desc("The single launch's ECF runs on the mma.sync "
                     "accumulators in registers where the GEMM has one k "
                     "group (D <= 16): -1 by rule (tiles of at least 128 "
                     "rows), 0 never, 1 wherever it can"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> singleLaunchPrefetchX{
      *this, "single-launch-prefetch-x",
      llvm::cl::desc("The single launch's tensor-core k loop loads the next "
                     "step group's x words one iteration ahead (slower on "
                     "the H200 at every shape measured)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> singleLaunchStageX{
      *this, "single-launch-stage-x",
      llvm::cl::desc("The single launch's tensor-core k loop reads x from "
                     "shared memory, copied in by bulk copies at the "
                     "kernel's start: -1 by rule (training steps, forwards "
                     "of 32+ rows with D >= 2048), 0 never, 1 wherever it "
                     "can, 2 or 4 wherever it can with the copies shared "
                     "by clusters of that many blocks"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> singleLaunchStepGroup{
      *this, "single-launch-step-group",
      llvm::cl::desc("The single launch's tensor-core k loop takes this many "
                     "k steps per iteration where every warp's steps divide "
                     "by it (0: by rule, 2 in a staggered walk, else 4 or 2)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> promoteAccumulators{
      *this, "promote-accumulators",
      llvm::cl::desc("Tensor-core kernels: their sums added into f32 "
                     "registers every N k-tiles (mma.sync, or the Hopper "
                     "kernel's 128 x 64 tile; 0: never; -1: by rule, "
                     "per-slice statistics whose truncated MMA sums would "
                     "cost more than 1e-3)"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> fastNormals{
      *this, "fast-normals",
      llvm::cl::desc("Generated projections: the Box-Muller step through the "
                     "GPU's approximate log2, sine and cosine (g within about "
                     "1e-5 of the exact mapping's; precise-sqrt=1 implies the "
                     "exact mapping)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> deferCotangent{
      *this, "defer-cotangent",
      llvm::cl::desc("A training step (mean/sum): the loss's cotangent scales "
                     "the backward GEMM only, whose launch starts the "
                     "artifact's backward phase (docs/AOT.md)"),
      llvm::cl::init(false)};
};

/// The product: decompose, fuse, lower the fused ops to GPU kernels with
/// explicit schedules, kernels to NVVM and PTX. Host code stays at the
/// memref + gpu.launch_func level (the runner turns it into a manifest).
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// The eager-PyTorch baseline on the GPU: decompose, naive linalg lowering,
/// bufferization, one kernel per linalg op, NVVM and PTX.
void buildNaiveGpuPipeline(OpPassManager &pm,
                           const GpuPipelineOptions &options);

/// Registers all pipelines with the global registry.
void registerSigregPipelines();

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_PIPELINES_PIPELINES_H
