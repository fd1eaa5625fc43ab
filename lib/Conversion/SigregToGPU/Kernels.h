//===- Kernels.h - kernel builders of --convert-sigreg-to-gpu ---*- C++ -*-===//
//
// Each function appends one gpu.func (with the `gpu.kernel` attribute) to the
// given gpu.module and returns it; each family lives in its own file
// (ProjectionKernels.cpp, SplitKernel.cpp, SimtEcfKernel.cpp,
// MmaEcfKernel.cpp, WgmmaEcfKernel.cpp, SingleLaunchKernel.cpp,
// EpilogueKernels.cpp), the
// shared helpers in KernelUtils.h. Shapes are static; the schedule of each
// kernel is described at its definition and in docs/GPU-SCHEDULES.md.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELS_H
#define SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELS_H

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"
#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <functional>

namespace mlir {
namespace sigreg {

struct EpilogueKernelShape;

/// Threads per block of every kernel below.
constexpr int64_t kBlockThreads = 256;

/// A mean/sum loss added up in one 64-bit word (emitPackedLossAdd): the
/// arrival count, then the poison count (non-finite statistics), each
/// countBits wide, then the sum in fixed point with fractionBits.
struct LossSumLayout {
  int64_t countBits, sumBits, fractionBits;
};
/// The layout of that word for `arrivals` additions of parts of a sum of
/// `statistics` statistics (each bounded through the points, t_max, the
/// global batch and the clip), or nullopt for reduction none or where the
/// bound leaves fewer than kMinLossFractionBits fraction bits.
std::optional<LossSumLayout>
packedLossSumLayout(Reduction reduction, int64_t arrivals, int64_t statistics,
                    int64_t numPoints, double tMax, int64_t globalCount,
                    ClipMode clip, double clipValue);

struct ProjectionKernelShape {
  int64_t featureDim, numSlices, chunk;
  /// The Box-Muller step: exact (the host's bits) or fast (approx.f32).
  NormalMapping normals = NormalMapping::Exact;
  int64_t numChunks() const { return (featureDim + chunk - 1) / chunk; }
};
/// (seed : i64, g : memref<DxSxT>, sumSq : memref<CxSxf32>): T is f32 by
/// default; a 16-bit `storeType` rounds g to it (`sigreg_projection_rows`:
/// row-major [D, S] as the Hopper kernel's TMA loads it); the sums of squares
/// stay f32 of the unrounded g. With `splitRows` (Dp >= D, a 16-bit
/// storeType; `sigreg_projection_split_rows`), g is [2 Dp, S]: its
/// storeType hi part in rows [0, D), the lo part (g - hi, rounded) in rows
/// [Dp, Dp + D), zeros in the padding rows: the split layout of an f32
/// input on the Hopper kernel (wgmmaSplitsInput).
/// The rows [d0, d1) of g's column `s` (d0 a multiple of 4) by groups of
/// four (one Philox call each, `normals`' mapping): `body(d, g)` gets a
/// group's first row and its four values, rows past D included; returns
/// the f32 sum of g^2 over the rows below D, in ascending d.
Value emitProjectionRows(
    KernelBuilder &k, Value seed, Value s, Value d0, Value d1, int64_t D,
    NormalMapping normals,
    const std::function<void(Value, ArrayRef<Value>)> &body);

/// The projection kernel's thread for column `s` and the rows [d0, d1)
/// (emitProjectionRows): g stored into `g` as f32 (storeType null or f32),
/// rounded to the 16-bit storeType, or with `splitRows` also its lo part
/// (g - hi, rounded) `splitRows` rows further; rows at or past D are not
/// stored. Returns the rows' sum of g^2.
Value emitProjectionColumnChunk(KernelBuilder &k, Value seed, Value s, Value d0,
                                Value d1, int64_t D, NormalMapping normals,
                                Value g, Type storeType, int64_t splitRows = 0);

gpu::GPUFuncOp buildProjectionKernel(OpBuilder &b, Location loc,
                                     const ProjectionKernelShape &shape,
                                     Type storeType = Type(),
                                     int64_t splitRows = 0);

/// Makes the i64 seed argument `index` of `kernel` a step counter in device
/// memory (memref<i64>, sigreg.advance_step) that every thread loads at the
/// kernel's entry; the kernel's body reads the loaded value where it read
/// the argument.
void readSeedFromStep(gpu::GPUFuncOp kernel, unsigned index);

/// The kernel `sigreg_advance_step` (step : memref<i64>), one thread: step
/// += 1. The forward launches it after its last reader of the step when no
/// kernel of its own advances the counter (docs/AOT.md).
gpu::GPUFuncOp buildAdvanceStepKernel(OpBuilder &b, Location loc);

/// The split of an f32 operand into bf16 hi + lo parts for the Hopper
/// kernel (`sigreg_split_operand`, SplitKernel.cpp): (in : memref<RxCxf32>,
/// out) with out = [R, 2 Cp] = [hi | lo] along the columns (x, Cp =
/// paddedExtent >= C), or [2 Rp, C] = [hi ; lo] along the rows (an explicit
/// projection A [D, S], Rp = paddedExtent >= R); padding is stored as 0.
/// hi = bf16(v), lo = bf16(v - hi). A thread takes four consecutive
/// columns (one 16-byte load when C % 4 == 0); C (along rows) and the
/// padded extent (along columns) are multiples of 4; grid ceil(items /
/// 256).
struct SplitOperandShape {
  int64_t rows, cols;
  bool alongRows;
  int64_t paddedExtent;
  MemRefType outType(MLIRContext *ctx) const;
  /// Threads of the grid: one per four columns of the padded hi part.
  int64_t items() const;
};
gpu::GPUFuncOp buildSplitOperandKernel(OpBuilder &b, Location loc,
                                       const SplitOperandShape &shape);

struct EcfKernelShape {
  int64_t numViews, batch, featureDim, numSlices, numPoints;
  double tMax;
  Type inputElement, projectionElement;
  /// Seeded: the projection is raw g plus per-chunk sums of g^2.
  bool seeded;
  /// Tensor cores, seeded: multiply by g's hi and lo 16-bit parts (f32
  /// accuracy, two MMAs) instead of hi only (g rounded to 16 bits).
  bool splitProjection = true;
  int64_t normChunks;
  int64_t blockRows, blockSlices;
  /// The one-tile Hopper kernel: CTAs per cluster (EcfSchedule::cluster).
  int64_t wgmmaCluster = 1;
  /// SIMT kernel: k (feature) tile depth, a multiple of 16.
  int64_t tileK = 16;
  /// mma.sync kernel and the Hopper kernel's 128 x 64 tile: the MMAs start
  /// from zero every promoteKTiles k-tiles and those sums are added into
  /// f32 registers with round-to-nearest adds, so that the tensor cores' own
  /// accumulation (which shortens the sum at every instruction) runs over
  /// that many k-tiles only (EcfSchedule::promoteKTiles; 0: never).
  int64_t promoteKTiles = 0;
  int64_t numBatchTiles() const { return (batch + blockRows - 1) / blockRows; }
  int64_t numSliceTiles() const {
    return (numSlices + blockSlices - 1) / blockSlices;
  }
};
/// (x, A, [sumSq], cosOut, sinOut). With one batch tile the outputs are the
/// [V, S, P] means; otherwise [T, V, S, P] per-tile sums.
gpu::GPUFuncOp buildFusedEcfKernel(OpBuilder &b, Location loc,
                                   const EcfKernelShape &shape);

/// (seed, hiW, [loW] : memref<ceil(D/2) x S x i32>, sumSq): g split into
/// 16-bit hi (+ lo when `withLo`) parts of `halfType`, packed in pairs of
/// rows, for the tensor-core GEMM.
gpu::GPUFuncOp buildPackedProjectionKernel(OpBuilder &b, Location loc,
                                           const ProjectionKernelShape &shape,
                                           Type halfType, bool withLo);

/// Same contract as buildFusedEcfKernel for bf16/f16 inputs, on tensor cores
/// (mma.sync m16n8k16), with fixed tiles of 64 rows x 128 slices. An explicit
/// projection has the input's 16-bit type: (x, A, cos, sin). A seeded one
/// comes from buildPackedProjectionKernel: (x, hiW, [loW], sumSq, cos, sin),
/// with two MMAs per fragment (x.hi + x.lo, the projection's f32 accuracy)
/// when splitProjection is set, one (g rounded to 16 bits) otherwise.
gpu::GPUFuncOp buildFusedEcfMmaKernel(OpBuilder &b, Location loc,
                                      const EcfKernelShape &shape);

/// The Hopper fused ECF kernel (WgmmaEcfKernel.cpp): CTA tile of
/// kWgmmaRows batch rows x tiling.slices slices, k-tiles of kWgmmaTileK
/// features through a tiling.stages-deep TMA ring; 2 consumer warpgroups
/// (wgmma) and 1 producer warpgroup.
constexpr int64_t kWgmmaRows = kWgmmaTileRows, kWgmmaTileK = 64;

struct WgmmaEcfShape {
  int64_t numViews, batch, featureDim, numSlices, numPoints;
  double tMax;
  /// bf16 or f16: the type of x and of the (rounded) projection.
  Type inputElement;
  /// Seeded: the kernel divides by the column norms from sumSq.
  bool seeded;
  int64_t normChunks;
  WgmmaTiling tiling;
  /// g split into 16-bit hi + lo parts, [2 Dp, S] = [hi ; lo] with Dp =
  /// splitFeatures = wgmmaSplitFeatures(D): the mainloop runs over 2 Dp
  /// features, (x, g_hi) then (x, g_lo). With splitInput too (an f32
  /// problem, wgmmaSplitsInput; inputElement is then bf16), x is [V * N,
  /// 2 Dp] = [hi | lo] and the mainloop runs over 3 Dp features: (x_hi,
  /// g_hi), (x_hi, g_lo), (x_lo, g_hi). 0: g is [D, S], one segment.
  int64_t splitFeatures = 0;
  bool splitInput = false;
  /// With tiling.generate: the kernel generates its g tile (seed and g are
  /// arguments after sumSq) with this mapping.
  NormalMapping normals = NormalMapping::Exact;
  /// Nonzero (projection = cooperative, the one-tile kernel): the grid
  /// generates g in (chunk of this many rows, column) items with `normals`
  /// before a grid-wide barrier; seed, g and the barrier's i64 counter are
  /// arguments after sumSq.
  int64_t cooperativeChunkRows = 0;
  /// The one-tile kernel also writes the slices y = acc / ||g_s|| (or acc)
  /// as f32 [V * N, S] (a last argument; for the fused backward,
  /// --sigreg-save-slices), or with `slicesPhase` the i16 phase of the
  /// first angle dt y (encodePhase).
  bool storeSlices = false;
  bool slicesPhase = false;
  /// The one-tile kernel's tail (docs/GPU-SCHEDULES.md, "the tail"): with
  /// several batch tiles, `foldFinalize` makes the last CTA of each (view,
  /// slice tile) to finish add the batch tiles' sums in order into the means
  /// (sigreg_ecf_finalize's work); `epilogue` (the means complete in the
  /// kernel: one batch tile, or foldFinalize) makes it compute its slices'
  /// statistics too (sigreg_epilogue's work), and with a reduction the last
  /// of those CTAs adds them all.
  bool foldFinalize = false;
  /// With foldFinalize: the batch tiles' sums go to [V, P, S] i64 fixed-point
  /// accumulators (zero at the first launch, reset by the tail) through
  /// integer atomics instead of [T, V, P, S] f32 per-tile sums
  /// (wgmmaAtomicSums).
  bool atomicSums = false;
  const EpilogueKernelShape *epilogue = nullptr;
  /// Self-resetting counters of the tail: one per (view, slice tile) with
  /// foldFinalize, then one for the reduction unless the loss is summed in
  /// one 64-bit word (lossSumLayout).
  int64_t numCounters() const;
  /// A mean/sum epilogue in the tail: the layout of the 64-bit word the last
  /// CTA of each (view, slice tile) adds its slices' statistics to
  /// (emitPackedLossAdd), where the bound allows one; else the statistics go
  /// to a workspace that the last of those CTAs adds up.
  std::optional<LossSumLayout> lossSumLayout() const;
  /// Features of the GEMM's reduction.
  int64_t reduction() const {
    return wgmmaReductionFeatures(featureDim, splitInput, splitFeatures != 0);
  }
  int64_t numBatchTiles() const {
    return (batch + tiling.rows - 1) / tiling.rows;
  }
  int64_t numSliceTiles() const {
    return (numSlices + tiling.slices - 1) / tiling.slices;
  }
  int64_t numTiles() const {
    return numViews * numBatchTiles() * numSliceTiles();
  }
  /// Partial sums per view and slice the kernel writes: one per batch tile,
  /// or per group of CTAs of the persistent transposed kernel
  /// (transposedSumGroups); 1: the means.
  int64_t numTileSums() const {
    return tiling.persistent && tiling.rows == kWgmmaTransposedRows
               ? transposedSumGroups(numBatchTiles(), numSliceTiles())
               : numBatchTiles();
  }
};
/// (xMap, gMap : !llvm.ptr to 128-byte tensor maps passed by value, [sumSq],
/// cos, sin, [slices], [cosMean, sinMean], [counters], [out, [stats]]). xMap
/// tiles x viewed as [V * N, D] in boxes of 128 x 64, gMap the projection
/// [D, S] in boxes of 64 x 64, both with 128-byte swizzle. cos, sin: the
/// [V, S, P] means when the batch is one tile, else per-tile sums [T, V, P,
/// S] (slice-major: one slice per thread, coalesced). With foldFinalize the
/// kernel also writes the means cosMean, sinMean [V, S, P]; counters:
/// memref<numCounters() x i32>, zero before the first launch; with an
/// epilogue, out is the loss (memref<f32>) or the statistics [V, S]
/// (reduction none), stats an f32 workspace [V * S] (mean, sum). Grid
/// (slice tiles, batch tiles, V), tiling.threads threads,
/// wgmmaDynamicSharedBytes() of dynamic shared memory.
gpu::GPUFuncOp buildFusedEcfWgmmaKernel(OpBuilder &b, Location loc,
                                        const WgmmaEcfShape &shape);
int64_t wgmmaDynamicSharedBytes(const WgmmaTiling &tiling, int64_t points = 0);
/// The transposed one-tile kernel (tiling.rows = kWgmmaTransposedRows):
/// tiles of 256 batch rows x 128 slices, the product D = g^T x^T (each
/// consumer warpgroup one m64n256k16 wgmma per k16 step on its 64 slices),
/// the ECF from the accumulators; the same arguments and per-tile sums as
/// buildFusedEcfWgmmaKernel (no tail: no foldFinalize, atomicSums,
/// epilogue or slices); grid (slice tiles, batch tiles, V). Persistent
/// (tiling.persistent): grid (numTileSums() x slice tiles, 1, 1), CTA c
/// keeps slice tile c % slice tiles and walks the row tiles (view, batch
/// tile) of its group c / slice tiles, adding their sums in shared memory;
/// cos and sin are then [numTileSums(), V, P, S] (one sum per group), or
/// the means when there is one group.
gpu::GPUFuncOp buildFusedEcfWgmmaTransposedKernel(OpBuilder &b, Location loc,
                                                  const WgmmaEcfShape &shape);
/// The ping-pong kernel (tiling.persistent): tiles of 128 slices x 128 rows,
/// one per consumer warpgroup in turn; the same arguments and per-tile sums
/// (no tail: no foldFinalize, atomicSums or epilogue); grid (min(tiles,
/// 132) rounded down to the cluster, 1, 1); cluster c (CTA c without
/// clusters) takes the tile groups c, c + clusters, ... (slice tile fastest,
/// then batch tile pair, then view), rank r the group's batch tile 2 b + r.
gpu::GPUFuncOp buildFusedEcfWgmmaPersistentKernel(OpBuilder &b, Location loc,
                                                  const WgmmaEcfShape &shape);

/// The backward's ECF stage from saved slices (`sigreg_ecf_grad_slices`,
/// WgmmaEcfKernel.cpp): (slices : memref<(V*N) x S x f32>, [sumSq], dcos,
/// dsin : [V, S, P], gradOut : memref<(V*N) x S x inputElement>) with
/// gradOut = dL/dy / ||g_s|| (seeded) or dL/dy, the values
/// buildEcfGradWgmmaKernel computes after recomputing y. Thread = one slice
/// (consecutive threads, consecutive slices), `rowsPerBlock` rows, the next
/// 4 rows' loads issued before the current 4 rows' harmonics (ncu: the first
/// version waited on its loads, L1TEX stalls); grid (ceil(S / 256),
/// ceil(N / rowsPerBlock), V), 256 threads.
/// With `cotangent` (the sigreg.ecf_cotangent feeding the backward, folded
/// in: its kernel and the dcos, dsin buffers disappear), the arguments are
/// (slices, [sumSq], cos, sin, grad, gradOut) and each thread computes its
/// slice's cotangent (emitSliceCotangent) before the coefficients.
/// With `shape.slicesPhase` the slices are the i16 phases of dt y
/// (decodePhase); with `inPlace` too there is no gradOut: each thread writes
/// the element's G over the phase it read (same bytes, same layout; the
/// backward GEMM reads them as the input's 16-bit type).
gpu::GPUFuncOp
buildEcfGradSlicesKernel(OpBuilder &b, Location loc, const WgmmaEcfShape &shape,
                         int64_t rowsPerBlock,
                         const EpilogueKernelShape *cotangent = nullptr,
                         bool inPlace = false);
/// Rows per block of sigreg_ecf_grad_slices: 64, halved (down to 8) while
/// the grid has fewer than two blocks per multiprocessor (mid, 1024 x 1024:
/// 64 blocks of 64 rows left half the GPU idle).
int64_t ecfGradSliceRows(int64_t numViews, int64_t batch, int64_t numSlices);

/// The backward's ECF kernel (WgmmaEcfKernel.cpp): the forward kernel's
/// tiles, grid and stages 1-4 (y recomputed by TMA + wgmma), then dL/dy
/// formed per element from the ECF cotangents (emitEcfGradColumns):
/// (xMap, gMap, [sumSq], dcos, dsin : [V, S, P], gradOut : memref<(V*N) x S
/// x inputElement>) with gradOut = dL/dy / ||g_s|| (seeded) or dL/dy.
gpu::GPUFuncOp buildEcfGradWgmmaKernel(OpBuilder &b, Location loc,
                                       const WgmmaEcfShape &shape);

/// The backward GEMM dx = G g^T on the Hopper kernel's machinery with a
/// K-major B operand: G [rows, S] (the ECF-grad kernel's output, boxes of
/// 128 x 64) times g [D, S] (boxes of tiling.slices x 64), K = S; CTA tile
/// 128 rows x tiling.slices features, grid (ceil(D / tiling.slices),
/// ceil(rows / 128)).
struct ProjectTransposeShape {
  int64_t rows, featureDim, numSlices;
  Type inputElement;
  WgmmaTiling tiling;
  /// dx's element type: f32, or the input's (the products rounded to it).
  Type outputElement;
  /// dx multiplied by a scalar read from memory (a deferred cotangent).
  bool scaled = false;
  /// The grid covers a part of the rows (backwardGemmRowParts): a trailing
  /// i32 argument gives the part's first row tile, added to blockIdx.y.
  bool rowPart = false;
};
/// (gradMap, gMap : !llvm.ptr to 128-byte tensor maps, dx : memref<rows x D
/// x outputElement>, [scale : memref<f32> when scaled], [firstRowTile : i32
/// when rowPart]).

/// The backward GEMM in row parts, one launch each, so that dL/dx may share
/// one allocation with the 16-bit dL/dy G it reads (docs/BACKWARD.md): part
/// j writes the dx rows of its tiles only after part j - 1 has read the G
/// rows under them, and G starts `gradOffset` bytes into dx's allocation.
/// At large (8192 x 4096 bf16) 4 parts put G and dx in 80 MiB instead of 128.
struct BackwardGemmParts {
  int64_t count, rowTilesPerPart, gradOffset;
};
/// Parts of the backward GEMM with its dx rows in parts (kWgmmaRows-row
/// tiles).
constexpr int64_t kBackwardGemmRowParts = 4;
/// G's offset in the shared allocation is a multiple of this (TMA wants 16).
constexpr int64_t kSharedOffsetAlign = 1024;
/// kBackwardGemmRowParts parts when each still fills the GPU (at least one
/// CTA per multiprocessor) and the shared allocation is smaller than dx and
/// G apart; none otherwise. `rows` = V * N, dx elements of `dxElementBytes`.
std::optional<BackwardGemmParts>
backwardGemmParts(int64_t rows, int64_t D, int64_t S, int64_t dxElementBytes);
gpu::GPUFuncOp
buildProjectTransposeWgmmaKernel(OpBuilder &b, Location loc,
                                 const ProjectTransposeShape &sh);

/// (cosPart, sinPart : [T, V, S, P], or [T, V, P, S] when `sliceMajor`;
/// cos, sin : [V, S, P]): fixed-order sum over the tiles, divided by the
/// batch size.
gpu::GPUFuncOp buildEcfFinalizeKernel(OpBuilder &b, Location loc,
                                      int64_t numTiles, int64_t numViews,
                                      int64_t numSlices, int64_t numPoints,
                                      int64_t batch, bool sliceMajor = false);

struct EpilogueKernelShape {
  int64_t numViews, numSlices, numPoints;
  double tMax;
  int64_t globalCount;
  ClipMode clip;
  double clipValue;
  Reduction reduction;
  /// The loss's cotangent is 1 (a deferred cotangent, mean/sum only): the
  /// kernels that read it take no cotangent argument.
  bool unitCotangent = false;
  /// mean/sum of a projection seeded from a step counter (sigreg.advance_step)
  /// whose kernels all ran before: the thread that writes the loss also
  /// advances the counter (a trailing step : memref<i64> argument), so that
  /// the forward needs no sigreg_advance_step launch.
  bool advancesStep = false;
  /// Blocks of kBlockThreads threads, one thread per (v, s).
  int64_t numBlocks() const {
    return (numViews * numSlices + kBlockThreads - 1) / kBlockThreads;
  }
  /// mean/sum over several blocks: each block's sum goes to a workspace and
  /// the last block (a self-resetting counter) adds them.
  bool lastBlockReduction() const {
    return reduction != Reduction::none && numBlocks() > 1;
  }
};
/// (cos, sin : [V, S, P], out : memref<f32> or memref<VxSxf32>), then, with
/// lastBlockReduction, (counter : memref<1xi32>, zero before the first
/// launch, blockSums : memref<numBlocks x f32>), then with advancesStep
/// (step : memref<i64>). Grid (numBlocks, 1, 1).
gpu::GPUFuncOp buildEpilogueKernel(OpBuilder &b, Location loc,
                                   const EpilogueKernelShape &shape);

/// The finalize and the epilogue in one kernel (`sigreg_ecf_finalize_loss`,
/// EpilogueKernels.cpp), for a Hopper kernel whose batch tiles are too many
/// for its tail (docs/GPU-SCHEDULES.md): block = BS = finalizeLossSlices
/// consecutive slices of one view; its 256 threads are BS slices x 256 / BS
/// tile lanes, lane l adds tiles l, l + 256 / BS, ... of its slice for every
/// point. The lanes' sums meet by xor shuffles inside each warp and then in
/// shared memory, the warps in order; the means go to cos, sin and to shared
/// memory, where BS threads compute their slices' statistics
/// (emitSliceStatistic). Reduction none stores them; mean/sum adds the
/// block's sum to the loss word (emitPackedLossAdd) with one atomic.
/// (cosPart, sinPart : [T, V, P, S], cos, sin : [V, S, P], out : memref<f32>
/// or memref<VxSxf32>, [word : memref<1xi64>, zero before the first launch,
/// for mean/sum], [step : memref<i64> with advancesStep]); grid
/// (finalizeLossBlocks, 1, 1). It waits (griddepcontrol.wait) for the kernel
/// before it: launched as its programmatic dependent.
/// BS: 8, or 16 or 32 where the loss word of 8-slice blocks would have too
/// few fraction bits (the word counts the blocks); 0 where none fits (the
/// shared memory, 72 BS P bytes, or the word): the finalize and epilogue
/// kernels then run apart.
int64_t finalizeLossSlices(const EpilogueKernelShape &epi);
int64_t finalizeLossBlocks(const EpilogueKernelShape &epi);
gpu::GPUFuncOp buildEcfFinalizeLossKernel(OpBuilder &b, Location loc,
                                          int64_t numTiles, int64_t batch,
                                          const EpilogueKernelShape &epi);

/// T[v, s], clipped, from the [V, S, P] means, as sigreg_epilogue computes
/// it (EpilogueKernels.cpp; same operations, same order).
Value emitSliceStatistic(KernelBuilder &k, const EpilogueKernelShape &shape,
                         Value cosIn, Value sinIn, Value v, Value s);

/// The backward of the statistic, clip and reduction
/// (sigreg.ecf_cotangent), one thread per (v, s): (cos, sin : [V, S, P],
/// grad : memref<f32> or memref<VxSxf32> for reduction none, dcos, dsin :
/// [V, S, P]).
gpu::GPUFuncOp buildEcfCotangentKernel(OpBuilder &b, Location loc,
                                       const EpilogueKernelShape &shape);
/// The cotangents dcos[v, s, p], dsin[v, s, p] (p = 0..P-1) of one slice,
/// as sigreg_ecf_cotangent computes them, from the global means and the
/// loss's cotangent `gradIn` (EpilogueKernels.cpp); for kernels that fold
/// the cotangent in.
struct SliceCotangent {
  SmallVector<Value> dcos, dsin;
};
SliceCotangent emitSliceCotangent(KernelBuilder &k,
                                  const EpilogueKernelShape &shape, Value cosIn,
                                  Value sinIn, Value gradIn, Value v, Value s);

/// The fewest fraction bits of the single launch's fixed-point loss sum
/// (SingleLaunchShape::lossSumLayout): a resolution of 2^-16 (1.5e-5) or
/// finer on the sum of V * S statistics. Few fraction bits mean a large
/// bound (about 4 globalCount sum_p w_p per statistic), and a sample's
/// statistics are a fixed fraction of it for Gaussian data, so the sum's
/// relative resolution stays near 2^-(sumBits - 1) times that ratio
/// (docs/GPU-SCHEDULES.md).
constexpr int64_t kMinLossFractionBits = 16;

/// The whole forward (projection -> fused ECF -> one-rank all-reduce ->
/// epilogue) in one launch, SingleLaunchKernel.cpp: block = (blockSlices
/// slices, blockRows batch rows, view), `warps` warps (4, 8 or 16; the
/// schedule's warps). The GEMM runs as SIMT
/// FMAs on g in shared memory (blockRows * blockSlices <= 1024), or with
/// `tensorCores` as mma.sync on g generated in registers (blockRows *
/// blockSlices <= 2048).
struct SingleLaunchShape {
  int64_t numViews, batch, featureDim, numSlices, numPoints;
  double tMax;
  Type inputElement;
  /// Explicit projection: its element type (null when seeded).
  Type projectionElement;
  bool seeded;
  /// Seeded: rows per chunk of the column-norm sums (the projection
  /// kernel's chunk, so that the norms are the same bits).
  int64_t chunkRows;
  int64_t blockRows, blockSlices;
  /// Warps per block: 8, 16 for twice the threads hiding each other's
  /// latency, or 4 for half the warps sharing the block's shuffles and
  /// Philox calls (the tensor-core k loop's k groups and row groups, the
  /// ECF's elements per thread).
  int64_t warps = 8;
  int64_t threads() const { return 32 * warps; }
  /// Warps of the stages after the tensor-core k loop (the y tile, the ECF
  /// and its warp sums, a training step's gradient): all of them, except
  /// that blocks of more than 8 warps whose y tile has at most 256 elements
  /// use 8 (one element per thread) and their other warps only meet the
  /// barriers. With all 16 the ECF stage issued 2.4 times the instructions,
  /// the extra ones masked, and 16 warps' sums were added
  /// (docs/PERF-NOTES.md, twenty-sixth session).
  int64_t ecfWarps() const;
  int64_t ecfThreads() const { return 32 * ecfWarps(); }
  /// The Box-Muller step of the tensor-core GEMM's g (Exact unless
  /// single-launch-fast-normals asks for the projection kernels' Fast one).
  NormalMapping normals = NormalMapping::Exact;
  /// The tensor-core k loop's step groups walked from group b mod groups in
  /// block b (grid x), wrapping around (single-launch-stagger), where every
  /// warp has the same whole groups: the blocks then read different x lines
  /// at a time instead of all the same ones. The sums over k run in another
  /// order per block (deterministic, not the unstaggered bits).
  bool staggerSteps = false;
  /// staggerSteps where the tensor-core k loop can stagger: every warp has
  /// the same whole step groups, and more than one.
  bool staggersSteps() const;
  /// The tensor-core k loop counts in i32 and reads its x rows unclamped
  /// (emitMmaSteps): where every warp's rows lie in the batch and the seed
  /// is a kernel argument, or is read from a device step and x is staged
  /// (stagesXIf). 10-20% fewer instructions per iteration; with rows
  /// clamped (a ragged batch) or the seed read from a device step and x
  /// read from L2, ptxas then sank most of the iteration's x loads to just
  /// before the MMAs and the kernels got 0.4-1.2 us slower, so those keep
  /// the index loop (docs/PERF-NOTES.md, twenty-seventh session). Staged, the
  /// device-step forward at blog measured 10.7-10.8 -> 9.5-9.7 us and its
  /// phased training step 22.6-22.7 -> 19.2-19.3 (H100, thirty-first
  /// session).
  bool narrowKLoop() const;
  /// single-launch-fragment-ecf: where ecfFromFragments() allows, the ECF
  /// runs on the mma.sync accumulators in registers (no partials, no y tile
  /// in shared memory; stages 3-5 in one, emitFragmentEcf).
  bool fragmentEcf = false;
  /// single-launch-step-group: the tensor-core k loop's steps per iteration
  /// where the warps' steps divide by it (0: mmaStepGroup's rule, 4 or 2).
  int64_t stepGroup = 0;
  /// single-launch-prefetch-x: the tensor-core k loop loads the next step
  /// group's x words at the top of each iteration, inside an scf.if on there
  /// being one (zeros otherwise), and carries them to it: the branch keeps
  /// the loads where they are issued, the zeros keep LLVM from folding the
  /// carried loads back into the loop.
  bool prefetchX = false;
  /// single-launch-prefetch-tail: thread 0 of every block prefetches the
  /// words its last step adds to atomically (the packed loss word, the
  /// arrival counters) to L2 at the start (prefetchTailWords), so that the
  /// tail's atomic, on the kernel's critical path, finds them there.
  bool prefetchTail = false;
  /// single-launch-stage-x: the tensor-core k loop reads x from shared
  /// memory (the block's rows copied in whole): -1 by rule (training steps
  /// wherever stagesX allows, forwards with at least 32 rows and D >= 2048),
  /// 0 never, 1 wherever stagesX allows (docs/PERF-NOTES.md,
  /// twenty-seventh session: on the H200 blog's forward 10.4-10.6 ->
  /// 10.1-10.3 us, its training step 19.6-20.1 -> 17.3-17.5); 2 or 4
  /// wherever stagesX allows, the copies shared by clusters of that many
  /// blocks (stageCluster).
  int64_t stageX = -1;
  /// stageX where it applies: the loop counts in i32 (narrowKLoop), its
  /// walk is staggered by whole step groups (staggersSteps, no prefetchX),
  /// the grid is at most one block per multiprocessor, D % 16 == 0 (whole k
  /// steps, 16-byte row pieces) and the block's rows fit
  /// kSingleLaunchStageMaxBytes.
  bool stagesX() const;
  /// stagesX were the loop counting in i32 or not (`narrow`).
  bool stagesXIf(bool narrow) const;
  /// Bytes per staged row of x: 2 D + 32 (padded: the 8 rows a warp's
  /// 8-byte loads read fall in 2 x 128 bytes of banks, no more).
  int64_t stageRowBytes() const;
  /// Step groups per copy (and per mbarrier) of stagesX: 2 where the walk's
  /// groups pair up, else 1. Measured at blog (H100): 1 group per copy
  /// issues 32 copies per warp and lost 0.4 us in the forward; 2 gained 0.5
  /// us; 4 and 8 lost 0.3-0.9 us waiting for the first span.
  int64_t stageSpan() const;
  /// The spans of stagesX: its mbarriers, one per span.
  int64_t stageSpans() const;
  /// The features of one span of stagesX: 16 WK U stageSpan().
  int64_t stageSpanFeatures() const;
  /// stagesX in clusters: the blocks of a cluster (neighbours along the
  /// slice tiles, the same rows of x) each copy a 1 / stageCluster() share
  /// of the rows and multicast it to every block of the cluster, so the
  /// rows leave L2 once per cluster instead of once per block. stageX (2 or
  /// 4), by rule (stageX -1) kSingleLaunchStageRuleCluster, where the slice
  /// tiles divide by it, else 1 (no cluster).
  int64_t stageCluster() const;
  /// single-launch-stage-tma: stagesX's copies are TMA boxes of a tensor
  /// map of x ([V N, D], 128-byte swizzle) instead of bulk copies of row
  /// pieces: one box of 64 features x BM rows per copy, stageTmaBoxes() per
  /// span and block, the staged x [D / 64][BM][64] swizzled (stagesXByTma):
  /// 0 never, 1 lane 0 of every warp issues its share of the boxes, 2
  /// thread 0 issues them all (their operands uniform). Without g generated
  /// ahead (genAheadGroups) both measured 0.2-0.5 us slower than the bulk
  /// copies at blog, its training step and N 32 D 1024 (H100,
  /// docs/PERF-NOTES.md thirty-sixth session): the copies issue sooner but x
  /// arrives no sooner, and the loop waits for it instead.
  int64_t stageTma = -1;
  /// stageTma with its rule (-1): boxes issued by every warp (1) where a
  /// forward stages x with D >= kSingleLaunchTmaRuleMinDim, else bulk copies
  /// (0).
  int64_t stageTmaIssue() const;
  /// stageTmaIssue where it applies: stagesX, 16-bit inputs, D % 64 == 0, a
  /// loop iteration of whole 64-feature blocks (WK U % 4 == 0, so a place of
  /// the unrolled loop keeps its step % 4), spans whose blocks the cluster's
  /// blocks share evenly, and BM % 8 == 0 (whole swizzle periods per box). Its
  /// k step `s` then takes features 64 (s / 4) + 8 (s % 4) + 32 (t / 2) + 4 (t
  /// % 2) + 0..3 in lane t (stepFeatureGroup): the 8 rows of a warp's 8-byte
  /// loads fall in different banks of the swizzled rows.
  bool stagesXByTma() const;
  /// stagesXByTma: the boxes (64-feature blocks) each block copies per span.
  int64_t stageTmaBoxes() const;
  /// stagesX: the loop waits for its span after its Philox work (forwards)
  /// or before it (training steps), as each measured faster (H100: blog forward
  /// 9.9-10.0 us late against 10.1-10.3 early; the training step 17.5-17.7
  /// early against 18.3-18.5 late).
  bool stageLateWait() const;
  /// single-launch-gen-ahead: the k loop generates g this many step groups
  /// ahead of the MMAs that use them (0-7; 0: each group's own; -1 by rule:
  /// the warp's groups less 2, at most kSingleLaunchGenAheadRuleMax).
  int64_t genAhead = -1;
  /// genAhead where it applies: x staged (by rule only with the late wait:
  /// forwards; a training step given K waits for each group's span after
  /// generating group j + K, as a forward does), and
  /// more step groups per warp than genAhead (every warp has as many: the
  /// staged walk is staggered, so the steps divide by WK U). The prologue
  /// generates groups 0 .. genAhead - 1, the iteration of group j generates
  /// group j + genAhead before its wait for x and carries its B fragments in
  /// registers, and the last genAhead groups' MMAs follow the loop.
  int64_t genAheadGroups() const;
  /// single-launch-term-sums: each thread that gathers a (slice, point)
  /// entry's warp sums forms that entry's term of the statistic,
  /// w_p ((c_p - phi_p)^2 + s_p^2) times the global count, in the loss
  /// word's fixed point (toPackedContribution), and each warp adds its
  /// lanes' terms by redux.sync (emitTermLossSum): no second barrier, no
  /// shuffles. 1: the warps store their sums to shared slots, the others
  /// arrive at a named barrier that warp 0 syncs on, and warp 0 adds the
  /// block's sum to the loss word; 2: every warp adds its sum to the loss
  /// word. 0: the block's statistics formed by warp 0 (emitPackedLossSum).
  /// 1 by default: level with 0 at minimal, about 0.1 us faster at its f16,
  /// device-step and N 256 D 8 forms (docs/PERF-NOTES.md).
  int64_t termSums = 1;
  /// The warps holding (slice, point) entries (p >= 1) where termSums
  /// applies, else 0: a forward whose ECF comes from the fragments
  /// (ecfFromFragments) of the whole batch (one batch tile), mean or sum
  /// without a clip (a clip acts on whole statistics), BS (P - 1) entries
  /// within the block's threads and a loss word (packedLossSumLayout for
  /// the arrivals termSums makes) whose sum field leaves a warp's sum room
  /// in 64 bits (sumBits <= 58).
  int64_t termSumWarps() const;
  /// `.minnctapersm` of the kernel (nvvm.minctasm; 0: none), the blocks per
  /// multiprocessor that ptxas fits its registers to. Without it ptxas
  /// fitted the tensor-core k loop's schedule to the registers the rest of
  /// the kernel needed (single-launch-minctasm; by rule on tensor cores
  /// only).
  int64_t minctasm = 0;
  /// The GEMM on mma.sync.m16n8k16 (bf16/f16 input, seeded g rounded to the
  /// input's type, or as hi + lo parts with splitProjection).
  bool tensorCores = false, splitProjection = false;
  int64_t globalCount;
  ClipMode clip;
  double clipValue;
  Reduction reduction;
  /// A training step (singleLaunchStep; tensor cores, g rounded, one batch
  /// tile): the loss's cotangent, from which the kernel also writes the
  /// means, G = dL/dy / ||g_s|| and g for the backward GEMM.
  std::optional<EpilogueKernelShape> stepCotangent;
  /// Seeded from a step counter in device memory (sigreg.advance_step): the
  /// kernel's first argument is the counter, which every thread reads.
  bool deviceStep = false;
  /// deviceStep with a scalar loss: the block that finishes the loss (the
  /// last to arrive, after every block read the counter) advances it, so
  /// that the forward needs no launch of its own for that.
  bool advancesStep() const {
    return deviceStep && reduction != Reduction::none;
  }
  int64_t numBatchTiles() const { return (batch + blockRows - 1) / blockRows; }
  int64_t numSliceTiles() const {
    return (numSlices + blockSlices - 1) / blockSlices;
  }
  /// Blocks that add their statistics to the loss (mean/sum): the last
  /// block of each column (slice tile, view); with termSums = 2 each warp of
  /// termSumWarps.
  int64_t numLossArrivals() const {
    int64_t blocks = numViews * numSliceTiles();
    int64_t warps = termSums == 2 ? termSumWarps() : 0;
    return warps ? blocks * warps : blocks;
  }
  /// The layout of the one 64-bit word the blocks add their statistics to
  /// (stage 8, emitPackedLossSum), or nullopt where the sum's bound leaves
  /// fewer than kMinLossFractionBits fraction bits (then the statistics go
  /// to a workspace and the last block adds them, emitLastBlockReduction).
  std::optional<LossSumLayout> lossSumLayout() const;
  /// One counter per column (slice tile, view) when the batch spans several
  /// tiles, then the grid's counter when the loss is not summed in one
  /// word (lossSumLayout); at least one.
  int64_t numCounters() const {
    int64_t columns = numBatchTiles() > 1 ? numLossArrivals() : 0;
    bool gridCounter = reduction != Reduction::none && !lossSumLayout();
    return std::max<int64_t>(1, columns + (gridCounter ? 1 : 0));
  }
  /// Rows of the y tile each thread of the ECF stage (ecfThreads) adds up
  /// (the tile has BM * BS elements, up to eight per thread of 8 warps).
  int64_t ecfRowsPerThread() const {
    return std::max<int64_t>(1, blockRows * blockSlices / ecfThreads());
  }
  /// Rows each thread of the GEMM stage multiplies: one shared-memory load
  /// of g serves them all (4 * RG FMAs per 16-byte load).
  int64_t gemmRowsPerThread() const;
  /// g's shared-memory row of feature d starts at d * BS + 4 * (d / 8) when
  /// padded: k parts 8 rows apart then fall in different banks.
  bool padsProjectionTile() const { return blockSlices % 4 == 0; }
  /// Tensor cores: the warps as mmaWarpsK() k groups (each takes every
  /// mmaWarpsK()-th 16-deep k step) x warps / mmaWarpsK() row groups of
  /// mmaRowFragments() 16-row fragments; warps past the tile's rows idle.
  int64_t mmaSteps() const { return (featureDim + 15) / 16; }
  int64_t mmaWarpsK() const;
  /// fragmentEcf where it applies: tensor cores with one k group (each
  /// warp's accumulators are whole sums of y), no training step (it reads
  /// the y tile) and P - 1 a multiple of 4 (the warp sums split evenly over
  /// the 8 lanes of a column, emitFragmentEcf).
  bool ecfFromFragments() const {
    return fragmentEcf && tensorCores && mmaWarpsK() == 1 && !stepCotangent &&
           (numPoints - 1) % 4 == 0;
  }
  /// single-launch-transposed-ecf: where ecfFromFragments() applies to a
  /// tile of 8 slices, the GEMM runs transposed (g^T x^T: slices on m, the
  /// warp's rows on n) so that every accumulator a lane holds is of one
  /// slice (emitTransposedMmaStep, emitTransposedFragmentEcf).
  bool transposedEcf = false;
  bool transposesFragments() const {
    return transposedEcf && ecfFromFragments() && blockSlices == 8;
  }
  /// k steps per iteration of the tensor-core loop (their x loads issued
  /// together): stepGroup or else 4 or 2, when every warp has a multiple of
  /// that many, else 1.
  int64_t mmaStepGroup() const;
  int64_t mmaRowFragments() const {
    return std::max<int64_t>(1, blockRows / 16 / (warps / mmaWarpsK()));
  }
  /// Every row of every warp's mma.sync fragments is a row of the batch:
  /// the batch is whole tiles and the warps' row groups cover the tile
  /// exactly (no row is clamped or masked).
  bool mmaRowsInBatch() const {
    return batch % blockRows == 0 &&
           blockRows == 16 * mmaRowFragments() * (warps / mmaWarpsK());
  }
};
/// The most blocks per multiprocessor that single-launch-minctasm's rule
/// declares (.minnctapersm): a grid of up to this many waves of one block
/// per multiprocessor. ptxas then keeps the k loop's loads at its top
/// within the registers those blocks leave (blog 56 registers for 1, four
/// views of blog's batch 92 for 2: 15.5 -> 13.7 us on the H100; eight views
/// of 16 rows, D 384, 7.2 -> 7.3).
constexpr int64_t kSingleLaunchMaxMinctasm = 2;
/// The largest single-launch tile (rows) whose k walk is staggered, with the
/// fast normals, by rule (single-launch-stagger = -1): blog's 32-row tile
/// gained 14% on the H200, N 256 D 1024 (a 256-row batch) lost 30%.
constexpr int64_t kSingleLaunchStaggerMaxRows = 32;
/// The largest x tile (block rows x D elements) of an unstaggered
/// tensor-core single launch that generates g with the fast normals by rule
/// (single-launch-fast-normals unset): on the H100 (thirty-second session)
/// the tiles up to 128 x 1024 gained 0.05-1.0 us (N 24 D 1001 11.6-11.7 ->
/// 10.6, N 128 D 1024 15.7-16.0 -> 15.3-15.4, minimal 0.05-0.1), while N 256
/// D 1024's 256 x 1024 tile lost 0.5-0.7 us (26.7-26.8 -> 27.3-27.5).
constexpr int64_t kSingleLaunchFastNormalsMaxTile = 128 * 1024;
/// The k steps per iteration of a tile staggered by rule, where
/// single-launch-step-group is left to the rule, the grid has at most one
/// block per multiprocessor and every warp's steps divide by it: on the
/// H200 blog went 11.0-11.1 -> 10.5-10.6 us with 2 against 4 (15.0 with 8,
/// 11.6-11.8 with 1), the other one-wave shapes gained 0.1-0.9 us, and
/// four views of blog's batch (256 blocks) lost 0.2-0.5 us
/// (docs/PERF-NOTES.md, twenty-fifth session).
constexpr int64_t kSingleLaunchStaggerStepGroup = 2;
/// The smallest single-launch tile (rows) whose ECF runs on the mma.sync
/// accumulators by rule (single-launch-fragment-ecf = -1, where
/// ecfFromFragments allows): tiles of 128 and 256 rows gained 0.1-0.4 us on
/// the H200, 40 rows in a 64-row tile lost 0.1-0.3.
constexpr int64_t kSingleLaunchFragmentEcfMinRows = 128;
/// (seed : i64 | step : memref<i64> (deviceStep) | A : memref<DxS>, x :
/// memref<VxNxD>, out : memref<f32> or
/// memref<VxSxf32>, counters : memref<Cxi32> (zero at the first launch, left
/// at zero), [cosPart, sinPart : memref<TxVxSxPxf32> when T > 1], [stats :
/// memref<(V*S)xf32> for mean/sum], [with stepCotangent: cos, sin :
/// memref<VxSxPxf32> (the means), lossGrad : memref<f32> or memref<VxSxf32>
/// (absent when stepCotangent->unitCotangent),
/// gradOut : memref<(V*N)xSxT> (G), gOut : memref<DxSxT> (g rounded to the
/// input's type T)]). Grid (slice tiles, batch tiles, V).
gpu::GPUFuncOp buildSingleLaunchKernel(OpBuilder &b, Location loc,
                                       const SingleLaunchShape &shape);
/// f32 elements of the kernel's largest shared buffer (g, then reused).
int64_t singleLaunchSharedFloats(const SingleLaunchShape &shape);
/// The single launch's dynamic shared memory: the staged x rows (stagesX),
/// else 0.
int64_t singleLaunchDynamicSharedBytes(const SingleLaunchShape &shape);
/// The most bytes of x a single-launch block stages (stagesX).
constexpr int64_t kSingleLaunchStageMaxBytes = 160 * 1024;
/// The blocks per cluster of stagesX by rule (stageCluster). With the
/// cluster barrier after the mbarriers' initialization arrived relaxed
/// (thread 0's fence.mbarrier_init orders the initialization), clusters of
/// 2 measured 0.3-0.4 us faster than single blocks at blog's forward and
/// both of its training steps (H100, docs/PERF-NOTES.md thirty-first
/// session); with the default release arrive, a cluster-scope fence in
/// every warp, they had been 0.1-0.3 us slower. Clusters of 4 measured 6 us
/// slower (twenty-eighth session's form).
constexpr int64_t kSingleLaunchStageRuleCluster = 2;
/// The least D at which a staged forward copies x by TMA boxes by rule
/// (stageTmaIssue). With g generated groups ahead (genAheadGroups) the
/// boxes measured faster than the bulk copies at D 2048 (blog 8.58-8.64
/// against 8.99-9.25 us, two views and P 33 too) and slower at D 1024 (N 32
/// 7.36-7.52 against 7.07-7.34, N 64 9.47-9.57 against 8.64-8.96; H200,
/// docs/PERF-NOTES.md thirty-seventh session).
constexpr int64_t kSingleLaunchTmaRuleMinDim = 2048;
/// genAheadGroups by rule: the warp's step groups less 2, at most this many
/// (blog's 8 groups: 6 ahead measured fastest of 1-6, 8.58-8.64 us against
/// the rule before's 9.34-9.57; N 32 D 1024's 4 groups: 2 ahead fastest of
/// 1-3, H200, docs/PERF-NOTES.md thirty-seventh session). More groups ahead
/// hold 4-5 more registers each (blog: 112 at 6).
constexpr int64_t kSingleLaunchGenAheadRuleMax = 6;

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELS_H
