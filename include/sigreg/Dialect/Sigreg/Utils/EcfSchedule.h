//===- EcfSchedule.h - schedule decisions of the fused ECF ------*- C++ -*-===//
//
// The one place where the fused ECF schedule is decided: which kernel
// (tensor cores or SIMT), the tile sizes, the number of batch tiles, whether
// the seeded projection is split into hi + lo 16-bit parts, and the rounding
// of the projection chunk. --convert-sigreg-to-gpu builds its kernels from
// these decisions and --sigreg-roofline estimates the fused path's traffic
// from the same ones (docs/GPU-SCHEDULES.md).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_DIALECT_SIGREG_UTILS_ECFSCHEDULE_H
#define SIGREG_DIALECT_SIGREG_UTILS_ECFSCHEDULE_H

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace sigreg {

/// Streaming multiprocessors of an H200.
constexpr int64_t kMultiprocessors = 132;
/// Number of blocks the tile choice aims for: about two per streaming
/// multiprocessor.
constexpr int64_t kTargetBlocks = 2 * kMultiprocessors;
/// Fixed tile of the tensor-core fused ECF kernel: 64 batch rows x 128
/// slices.
constexpr int64_t kMmaRows = 64;
constexpr int64_t kMmaSlices = 128;
/// CTA tile of the Hopper (TMA + wgmma) fused ECF kernel: 128 batch rows x
/// 256 (or 128) slices.
constexpr int64_t kWgmmaTileRows = 128;
constexpr int64_t kWgmmaTileSlices = 256;

/// The Hopper kernel's tile variants. 256 slices: 128 f32 accumulators per
/// consumer thread, a 4-stage ring of 48 KB stages, one CTA of 384 threads
/// per multiprocessor (a producer warpgroup; setmaxnreg moves registers to
/// the consumers). 128 slices: 64 accumulators, a 3-stage ring of 32 KB
/// stages, two CTAs of 288 threads (the producer is one warp) per
/// multiprocessor, so that one CTA's ECF runs while the other's tensor cores
/// work; no setmaxnreg (registers 0): ptxas would have to fit the wgmma into
/// the 80 registers of a 384-thread CTA at entry.
/// Persistent (the ping-pong kernel): one CTA of 288 threads per
/// multiprocessor loops over tiles of 128 slices x 128 batch rows; each of
/// its two consumer warpgroups owns a whole tile (two m64n128 wgmma halves,
/// 128 accumulators per thread, D = g^T x^T so that a thread holds 32 rows
/// of each of its 4 slices) and computes its ECF from the accumulators
/// while the other warpgroup's MMAs run; the producer is one warp. A 6-stage
/// ring of 32 KB stages. No setmaxnreg: 288 threads leave ptxas 224
/// registers per thread (the accumulators, the 2 (P - 1) sums and the
/// recurrence). Opt-in (docs/PERF-NOTES.md).
struct WgmmaTiling {
  int64_t slices, stages, tileK, ctasPerSM, threads;
  /// setmaxnreg targets of the producer and consumer warpgroups (0: none).
  int32_t producerRegisters, consumerRegisters;
  bool persistent;
  /// CTAs per thread block cluster along the batch tiles (1, 2 or 4): the
  /// CTAs of a cluster share their slice tile, so each loads an equal share
  /// of the g boxes of a stage and multicasts it to all of them (one-tile
  /// forward kernel only).
  int64_t cluster = 1;
  /// Batch rows per CTA tile: kWgmmaTileRows, or kWgmmaTransposedRows for
  /// the transposed one-tile kernel (tile [256, 128], the product D = g^T
  /// x^T so that the ECF runs from the accumulators).
  int64_t rows = kWgmmaTileRows;
  /// CTAs per thread block cluster along the batch tiles that generate
  /// their g tile together (projection = generated; 0: the projection
  /// kernel writes g). No multicast: `cluster` stays 1.
  int64_t generate = 0;
  /// The one-tile kernel's 128 x 64 tile: its sums promoted to f32 registers
  /// every `promote` k-tiles (EcfSchedule::promoteKTiles; 0: never).
  int64_t promote = 0;

  /// The ping-pong kernel: persistent with 128-row tiles, each consumer
  /// warpgroup owning whole tiles. Persistent with the transposed tile, the
  /// two consumer warpgroups share each tile as in the one-tile kernel.
  bool pingPong() const { return persistent && rows == kWgmmaTileRows; }
};
/// `ctas`, when known (nonzero), is the grid of the one-tile kernel: a grid
/// of 64-slice tiles that fits one CTA per multiprocessor gets an 8-stage
/// ring (192 KB) instead of 4, so that more TMA loads are in flight (mid
/// bf16: the kernel 20.8 -> 19.8 us; 6 stages measured slower than 4,
/// docs/PERF-NOTES.md h1) and the register budget of one CTA (ctasPerSM 1:
/// two would not fit the ring anyway), which its unrolled mainloop needs
/// (under minctasm 2 ptxas spilled it; docs/PERF-NOTES.md u1). `promote`:
/// WgmmaTiling::promote; the 128-slice tile then takes one CTA per
/// multiprocessor and kWgmmaPromoteWideStages stages (the promoted sums need
/// the registers two CTAs would share).
WgmmaTiling getWgmmaTiling(int64_t tileSlices, bool persistent = false,
                           int64_t ctas = 0, int64_t rows = kWgmmaTileRows,
                           int64_t promote = 0);
/// The cluster rule of the one-tile Hopper kernel: pairs of CTAs along the
/// batch tiles share their g tile by TMA multicast (each loads half of its
/// boxes) where the tile has 256 slices, the GEMM's reduction has at least
/// kWgmmaClusterKTiles 64-deep k-tiles and the batch tiles pair up: L2
/// traffic at large 3.47 -> 2.68 GB, the forward 3% faster at D = 4096; at
/// D <= 2048 the pair's lockstep costs more than the traffic saves, and the
/// 128-slice tile (113 registers under two CTAs per multiprocessor) spilled
/// 32 bytes with it at N = 1024 (docs/PERF-NOTES.md c2).
constexpr int64_t kWgmmaClusterKTiles = 64;
/// The cluster sizes of the one-tile Hopper kernel (1: none).
inline bool isWgmmaClusterSize(int64_t cluster) {
  return cluster == 1 || cluster == 2 || cluster == 4;
}
/// CTAs per cluster of the one-tile Hopper kernel with `tileSlices`-slice
/// tiles, `batchTiles` batch tiles and a reduction of `reduction` features,
/// by rule (`requested` 0) or as requested where the kernel can (else 1).
int64_t wgmmaClusterOf(int64_t requested, int64_t tileSlices,
                       int64_t batchTiles, int64_t reduction);
/// Why the ping-pong kernel cannot run in clusters of `cluster` CTAs (empty
/// when it can): pairs share the g tile of two batch tiles, so the batch
/// tiles must pair up; clusters of 4 (2 x 2, the x tile shared too)
/// measured 0.86 ms at large against 0.58 for pairs (docs/PERF-NOTES.md).
std::string pingPongClusterObstacle(int64_t cluster, int64_t batchTiles);
/// The ping-pong kernel's cluster: `requested` where it can (else 1), or by
/// rule (0) pairs where it can.
int64_t pingPongClusterOf(int64_t requested, int64_t batchTiles);
/// Stages of the 64-slice ring when the grid fits one CTA per
/// multiprocessor.
constexpr int64_t kWgmmaDeepRingStages = 8;
/// Slices per tile of the ping-pong (persistent) kernel.
constexpr int64_t kWgmmaPingPongSlices = 128;
/// Largest P of the ping-pong kernel: each consumer thread holds the
/// 2 (P - 1) sums of one slice beside its 128 accumulators.
constexpr int64_t kWgmmaPersistentMaxPoints = 25;
/// Why the ping-pong kernel cannot run `op` (empty when it can): P beyond
/// kWgmmaPersistentMaxPoints, or a batch tile that reads the next view's
/// rows (V > 1 with N % 128 != 0: its ECF counts the rows past N as zeros,
/// which TMA supplies only past the last view), or the slices result.
std::string wgmmaPersistentObstacle(FusedEcfOp op, int64_t dynamicSize = 0);
/// The transposed one-tile kernel's tile (docs/GPU-SCHEDULES.md): 256 batch
/// rows x 128 slices; each consumer warpgroup multiplies its 64 slices of
/// the g tile (A, read M-major) with the 256 rows of the x tile (B), one
/// m64n256k16 wgmma per k16 step, so that a thread holds 64 rows of each of
/// its 2 slices and the ECF runs from its accumulators: no y tile through
/// shared memory, and half the per-tile sums of the 128 x 256 tile.
constexpr int64_t kWgmmaTransposedRows = 256;
constexpr int64_t kWgmmaTransposedSlices = 128;
/// Points of the transposed kernel: the 128 accumulators, the 2 (P - 1)
/// sums and the recurrences within the 168 registers ptxas gives a
/// 384-thread kernel (P = 25 spilled at D = 4096).
constexpr int64_t kWgmmaTransposedMaxPoints = 23;
/// Why `op` cannot run on the transposed one-tile kernel (empty when it
/// can): P above kWgmmaTransposedMaxPoints, a slices result (its y tile is
/// the 128-row kernel's), or several views with N not a multiple of 256
/// (rows past a view's N must be TMA's zeros).
std::string wgmmaTransposedObstacle(FusedEcfOp op, int64_t dynamicSize = 0);
/// The persistent transposed kernel (kernel = wgmma_persistent, tile = [256,
/// 128]): groups of CTAs, one CTA per slice tile in each group, so that a
/// CTA keeps its slice tile and walks the row tiles (view, batch tile) j,
/// j + groups, ... of its group j, adding their ECF sums in shared memory;
/// it writes one sum per (group, view), so the finalize reads `groups` sums
/// per slice instead of one per batch tile. groups = min(batch tiles, 132 /
/// slice tiles): every group then has a row tile in every view. 0 when the
/// slice tiles do not fit one CTA per multiprocessor.
int64_t transposedSumGroups(int64_t batchTiles, int64_t sliceTiles);
/// Whether the persistent transposed kernel is the rule where the transposed
/// tile is (wgmma-rows by rule, persistentTransposedObstacle empty): each of
/// its CTAs walks at most as many row tiles (ceil(rowTiles / groups)) as the
/// one-tile grid of rowTiles x sliceTiles CTAs takes waves on the
/// multiprocessors, so it keeps the one-tile kernel's work per multiprocessor
/// and saves the finalize most of its tile sums. Measured on the H200
/// (docs/PERF-NOTES.md, twenty-first session): 5-22 us faster at large, wide,
/// N 16384 D 2048 and V 2, the same at V 4 (equal waves everywhere); 17%
/// slower at V 8 N 512 S 6144, whose 48 slice tiles leave two groups (96
/// CTAs of 8 row tiles against 6 waves), which this rule leaves one-tile.
bool persistentTransposedPays(int64_t rowTiles, int64_t batchTiles,
                              int64_t sliceTiles);
/// Why `op` cannot run on the persistent transposed kernel (empty when it
/// can): wgmmaTransposedObstacle's reasons, or more slice tiles than
/// multiprocessors.
std::string persistentTransposedObstacle(FusedEcfOp op,
                                         int64_t dynamicSize = 0);

/// The Hopper kernel that generates its own g tile (projection = generated):
/// the 64-slice tile of 128 rows, whose C batch-tile CTAs of a slice tile
/// (a thread block cluster of C, or one CTA for C = 1) each generate D / C
/// rows of the tile's 64 columns into g and their per-chunk sums of squares
/// (4 chunks of D / (4 C) rows), then pass a cluster barrier and read g by
/// TMA as from the projection kernel: the forward in one launch.
constexpr int64_t kWgmmaGenerateSlices = 64;
/// Why `op` cannot generate its g tile in the Hopper kernel with clusters of
/// `cluster` CTAs (empty when it can): a projection that is not seeded by
/// an i64 seed or has other users, several views, a cluster other than 1,
/// 2, 4 or 8, batch tiles of 128 rows that the cluster does not divide, D
/// not a multiple of 16 x cluster, or an input or statistics that need the
/// hi + lo split.
std::string wgmmaGenerateObstacle(FusedEcfOp op, int64_t cluster,
                                  int64_t dynamicSize = 0);
/// The generation cluster: `requested` where wgmmaGenerateObstacle allows
/// it, or by rule (0) the largest of 8, 4, 2, 1 it allows; 0 when none (g
/// then comes from the projection kernel).
int64_t wgmmaGenerateClusterOf(FusedEcfOp op, int64_t requested,
                               int64_t dynamicSize = 0);

struct EcfSchedule;
/// The one-tile Hopper kernel whose grid generates g itself (projection =
/// cooperative): every CTA's consumer threads generate a share of g's
/// (chunk, column) items (the projection kernel's work, rounded to the
/// input's type) into g and the per-chunk sums of squares, then the grid
/// passes one barrier (a counter in device memory) and reads g by TMA as
/// from the projection kernel: the forward in one launch. A seed read from a
/// step counter is loaded by every thread at the kernel's entry, before the
/// barrier, so the tail that advances the counter after it cannot race
/// with the reads. Why `op` with schedule `s` cannot (empty when it can):
/// an explicit projection or one with other users, a dynamic input shape, a
/// kernel other than the
/// one-tile 128-row one without clusters, the hi + lo split, or a grid
/// larger than the CTAs the multiprocessors hold at once (kMultiprocessors x
/// the tiling's CTAs per multiprocessor).
std::string wgmmaCooperativeObstacle(FusedEcfOp op, const EcfSchedule &s,
                                     int64_t dynamicSize = 0);
/// Rows of D per (chunk, column) item of the cooperative generation: about
/// D x S / (the grid's CTAs x 256 consumer threads), a multiple of 4 (one
/// Philox call makes 4 rows), so that each consumer thread takes about one
/// item.
int64_t cooperativeChunkRows(int64_t features, int64_t slices, int64_t ctas);
/// The most rows of D each thread generates where --wgmma-cooperative's rule
/// (-1) makes the grid generate g: measured on the H200 (2026-12-05), one
/// cooperative launch beat the two launches at 8 to 32 rows a thread (mid
/// 18.3 -> 18.1 us, N 2048 S 2048 42.0 -> 40.2) and lost at 128 (N 512 D
/// 2048, 22.8 -> 23.9: 64 CTAs generate serially before the grid barrier).
constexpr int64_t kCooperativeRuleMaxRows = 32;

/// The user-facing knobs (pass options) that the schedule follows. Zero tile
/// sizes mean "by shape".
struct EcfScheduleOptions {
  int64_t blockRows = 0, blockSlices = 0, projectionChunk = 64;
  bool tensorCores = true;
  /// The target has sm_90a's wgmma and TMA (chip sm_90a): large bf16/f16
  /// problems may take the Hopper kernel.
  bool hopper = false;
  /// Hopper kernel slices per CTA tile: 64, 128 or 256 (0: by rule).
  int64_t wgmmaSlices = 0;
  /// Hopper kernel: the persistent ping-pong kernel, the ECF of one
  /// warpgroup's tile beside the other's MMAs (where
  /// wgmmaPersistentObstacle allows).
  bool wgmmaPersistent = false;
  /// Hopper kernel: the 64-slice tile generates its g tile itself
  /// (projection = generated, where wgmmaGenerateObstacle allows).
  bool wgmmaGenerate = false;
  /// Hopper kernel: the one-tile kernel's grid generates g itself before a
  /// grid-wide barrier (projection = cooperative, where
  /// wgmmaCooperativeObstacle allows): -1 by rule (where
  /// cooperativeChunkRows is at most kCooperativeRuleMaxRows), 0 never, 1
  /// wherever it can.
  int64_t wgmmaCooperative = -1;
  /// Hopper kernel: CTAs per thread block cluster sharing the g tile by
  /// multicast, 1, 2 or 4 (0: by rule, wgmmaClusterOf).
  int64_t wgmmaCluster = 0;
  /// Hopper kernel batch rows per CTA tile: 128 (the 128 x 256, 128 or 64
  /// tiles) or 256 (the transposed kernel's 256 x 128 tile, where
  /// wgmmaTransposedObstacle allows); 0: by rule (usesWgmmaTransposed).
  int64_t wgmmaRows = 0;
  /// The single-launch forward: 0 never, 1 where usesSingleLaunch's cost
  /// rule picks it, 2 wherever it applies.
  int64_t singleLaunch = 1;
  /// Warps per block of the single launch, 4, 8 or 16 (0: by rule,
  /// kSingleLaunchWarps).
  int64_t singleLaunchWarps = 0;
  /// The tensor cores' sums promoted to f32 registers every that many
  /// k-tiles (EcfSchedule::promoteKTiles; 0: never; -1: by rule,
  /// kRulePromoteKTiles where truncatedAccumulationError exceeds
  /// kTruncatedAccumulationBudget). Takes the Hopper kernel's 128 x 64 tile,
  /// the one with room for the promoted sums.
  int64_t promoteKTiles = -1;
  /// Hopper kernel past kWgmmaFoldedBatchTiles batch tiles: the tiles' sums
  /// in fixed point through integer atomics (wgmmaAtomicSums; less memory,
  /// measured slower).
  bool wgmmaAtomicSums = false;
};

/// Why the schedule options of --sigreg-choose-schedule and
/// --convert-sigreg-to-gpu cannot be used (empty when they can): block-rows
/// and block-slices must be 0 or a power of two up to 256, wgmma-slices 0,
/// 64, 128 or 256, single-launch 0, 1 or 2. Each kernel's schedule verifier
/// then checks the tile it gets (16, 32 or 64 for the SIMT and mma.sync
/// kernels, up to 256 rows and 8 or 16 slices for the single launch on
/// tensor cores, ...).
std::string scheduleOptionError(int64_t blockRows, int64_t blockSlices,
                                int64_t wgmmaSlices, int64_t singleLaunch,
                                int64_t wgmmaCluster = 0, int64_t wgmmaRows = 0,
                                int64_t singleLaunchWarps = 0,
                                int64_t promoteKTiles = -1,
                                int64_t wgmmaCooperative = -1);

/// The schedule of one sigreg.fused_ecf.
struct EcfSchedule {
  /// The tensor-core (mma.sync) kernel, else the SIMT kernel.
  bool tensorCores;
  /// The Hopper kernel (TMA + wgmma, 128 x 256 tiles; implies tensorCores).
  bool wgmma;
  /// Its persistent variant (WgmmaTiling::persistent).
  bool wgmmaPersistent;
  /// The one-tile Hopper kernel: CTAs per cluster along the batch tiles
  /// (WgmmaTiling::cluster; 1 elsewhere).
  int64_t cluster = 1;
  /// Tensor cores with a seeded projection: multiply by g's hi and lo 16-bit
  /// parts (f32 accuracy, two MMAs) instead of hi only. See
  /// needsSplitProjection.
  bool splitProjection;
  int64_t blockRows, blockSlices;
  /// SIMT kernel: depth of the k (feature) tile staged per barrier pair. 16
  /// when the grid fills the GPU; deeper (up to 128, within 40 KB of shared
  /// memory) when it does not, so that the few blocks keep more loads in
  /// flight and pass fewer barriers (small batches are latency-bound).
  int64_t tileK;
  /// Grid: ceil(N / blockRows) batch tiles (partials and a finalize kernel
  /// when more than one) by ceil(S / blockSlices) slice tiles, per view.
  int64_t numBatchTiles, numSliceTiles;
  /// The Hopper kernel generates its g tile itself, in clusters of `cluster`
  /// CTAs (projection = generated; no multicast).
  bool generateProjection = false;
  /// The one-tile Hopper kernel's grid generates g itself before a grid-wide
  /// barrier (projection = cooperative; wgmmaCooperativeObstacle).
  bool cooperativeProjection = false;
  /// The mma.sync kernel or the Hopper kernel's 128 x 64 tile: the tensor
  /// cores' sums start from zero every promoteKTiles k-tiles (32 features
  /// for mma.sync, 64 for the Hopper kernel) and are added into f32
  /// registers with round-to-nearest adds, so that their truncating
  /// accumulation (docs/PERF-NOTES.md, "Per-slice accuracy at a large
  /// batch") runs over that many k-tiles only. 0: over the whole reduction.
  int64_t promoteKTiles = 0;

  /// The Hopper kernel that may gather its batch tiles and run the epilogue
  /// in its tail: the one-tile kernel of 128-row tiles. The ping-pong and
  /// transposed kernels leave both to the finalize(-loss) kernel.
  bool wgmmaHasTail() const {
    return wgmma && !wgmmaPersistent && blockRows == kWgmmaTileRows;
  }
  /// Partial sums per view and slice that the kernel writes for the
  /// finalize: one per batch tile, or per group of CTAs of the persistent
  /// transposed kernel (transposedSumGroups); 1: the kernel writes the
  /// means.
  int64_t numTileSums() const {
    return wgmmaPersistent && blockRows == kWgmmaTransposedRows
               ? transposedSumGroups(numBatchTiles, numSliceTiles)
               : numBatchTiles;
  }
};

/// True when `op`, on the one-tile Hopper kernel with `tileSlices`-slice
/// tiles by rule, runs the transposed kernel (tile [256, 128]) where
/// wgmmaTransposedObstacle allows: asked for (EcfScheduleOptions::wgmmaRows
/// = 256), or by rule (0) where the 128-row kernel would have 256-slice
/// tiles (the grid fills the GPU), the input is 16-bit (not split) and no
/// fused backward reads the forward (a training step, whose forward stores
/// the slices with the 128-row kernel). Measured faster or the same at every
/// shape tried (docs/PERF-NOTES.md, eighteenth session).
bool usesWgmmaTransposed(FusedEcfOp op, const EcfScheduleOptions &options,
                         int64_t tileSlices, int64_t dynamicSize = 0);

/// Chooses the schedule of `op`. Dynamic dimensions (the analysis of a
/// function with a dynamic batch) are replaced by `dynamicSize`; the GPU
/// lowering has static shapes only. The SIMT tile sizes are not checked
/// here: with explicit options they may be anything the caller accepts.
EcfSchedule chooseEcfSchedule(FusedEcfOp op, const EcfScheduleOptions &options,
                              int64_t dynamicSize = 0);

/// True when `op` runs on the tensor-core kernel: bf16/f16 input, allowed by
/// the options, and (cost rule) the 64 x 128 tiles still give at least half
/// a block per multiprocessor, kTargetBlocks / 4; smaller problems keep the
/// SIMT kernel's finer tiles (more blocks in flight, docs/GPU-SCHEDULES.md).
bool usesTensorCores(FusedEcfOp op, const EcfScheduleOptions &options,
                     int64_t dynamicSize = 0);

/// True when `op` runs on the Hopper kernel (TMA + wgmma): allowed by the
/// options (tensor cores, sm_90a), and either a bf16/f16 input with D and S
/// multiples of 8 (TMA needs 16-byte row strides) and a seeded projection
/// that may be rounded to 16 bits (no hi/lo split), or an f32 input (split
/// into bf16 hi + lo parts, wgmmaSplitsInput) with S a multiple of 8; a
/// seeded projection must be read by this op alone (or the fused backward),
/// an explicit one must have the input's type. No size rule: measured on the
/// H200 (docs/PERF-NOTES.md v18), it beats the mma.sync kernel even with a few
/// dozen tiles (mid: 0.037 against 0.070 ms).
bool usesWgmma(FusedEcfOp op, const EcfScheduleOptions &options,
               int64_t dynamicSize = 0);
/// True when the Hopper kernel runs `op` on bf16 hi + lo parts of an f32
/// input (bf16x3): x = x_hi + x_lo and g = g_hi + g_lo (each exact to about
/// 2^-17 relative), y = x_hi g_hi + x_hi g_lo + x_lo g_hi as one bf16 GEMM
/// over three segments of the feature dimension; the dropped x_lo g_lo
/// term is about 2^-16 of y. A seeded g is generated in that split
/// (projection = split), an explicit f32 A is split by a kernel like x.
/// usesWgmma takes it only for a loss reduced over the slices whose
/// splitInputError is within kSplitInputErrorBudget: per-slice statistics
/// moved by 2e-4 to 7e-4 on the H200 (against the 1e-4 f32 tolerance),
/// so they keep the SIMT kernel's f32 GEMM.
bool wgmmaSplitsInput(FusedEcfOp op);
/// Estimated relative error of a loss reduced over the slices computed from
/// bf16 hi + lo parts of an f32 input: 2^-16 sqrt(N_global) / 32. Fitted to
/// the H200 runs of 2026-12-01 (docs/PERF-NOTES.md), which it bounds: N 1024
/// 1.06e-5 (estimate 1.5e-5), N 8192 2.87e-5 (4.3e-5), 2 views of N 4096
/// 4.4e-6 (3.1e-5), N 2048 D 3 1.6e-6 (2.2e-5). The error grows with the
/// batch, not with fewer slices: the per-row perturbations of y shift every
/// slice's ECF the same way.
double splitInputError(FusedEcfOp op);
/// Half the 1e-4 f32 tolerance: N_global up to about 10^4 rows.
constexpr double kSplitInputErrorBudget = 5e-5;
/// Features per part in the split layout: D rounded up to kWgmmaSplitAlign,
/// so that the hi and lo parts start on k-tile boundaries (x is stored as
/// [V * N, 2 Dp] = [hi | lo], g as [2 Dp, S] = [hi ; lo], zero padded).
constexpr int64_t kWgmmaSplitAlign = 64;
int64_t wgmmaSplitFeatures(int64_t featureDim);
/// Features of the Hopper kernel's GEMM reduction: D, or the split layout's
/// segments, (x_hi, g_hi), (x_hi, g_lo), (x_lo, g_hi) for split inputs and
/// the first two for a split g alone.
inline int64_t wgmmaReductionFeatures(int64_t featureDim, bool splitInput,
                                      bool splitG) {
  if (!splitInput && !splitG)
    return featureDim;
  return (splitInput ? 3 : 2) * wgmmaSplitFeatures(featureDim);
}

/// The sigreg.fused_epilogue of `op`'s chain ecf -> all_reduce_mean (world
/// size 1) -> fused_epilogue when the means go nowhere else (a kernel may then
/// run the epilogue itself), else null.
FusedEpilogueOp foldableEpilogue(FusedEcfOp op);

/// A training step that one sigreg_single_launch can run with the backward
/// GEMM after it (docs/BACKWARD.md, "The step in two launches"): `op`'s
/// means are read by exactly two sigreg.all_reduce_mean of world size 1, one
/// (lossMean) read only by the loss's sigreg.fused_epilogue, the other
/// (gradMean) only by one sigreg.ecf_cotangent, whose dcos and dsin only one
/// sigreg.fused_ecf_backward of the same input and projection reads (no
/// saved slices); a seeded projection is read by `op` and that backward
/// alone. A sigreg.loss_grad alone has the second chain only (lossMean and
/// epilogue null). The kernel reads the loss's cotangent, so it must be
/// available where `op` runs (availableBefore): the conversion moves its
/// side-effect-free definitions there (moveBefore).
struct SingleLaunchStep {
  AllReduceMeanOp lossMean;
  FusedEpilogueOp epilogue;
  AllReduceMeanOp gradMean;
  EcfCotangentOp cotangent;
  FusedEcfBackwardOp backward;
};
std::optional<SingleLaunchStep> singleLaunchStep(FusedEcfOp op);

/// Whether `value` dominates `op`, or is defined in `op`'s block by
/// side-effect-free ops without regions (at most a few deep) whose operands
/// are themselves available there: a reshape of the cotangent placed after
/// the forward, as a function holding both a loss and its loss_grad
/// decomposes to.
bool availableBefore(Value value, Operation *op);
/// Moves the definitions availableBefore accepted before `op`, operands
/// first, so that `value` dominates it.
void moveBefore(RewriterBase &rewriter, Value value, Operation *op);

/// The one-tile Hopper kernel adds the batch tiles' sums itself (its last
/// CTA per slice tile, instead of sigreg_ecf_finalize) for at most this many
/// batch tiles: mid (8) saves a launch; at large (64) each last CTA's serial
/// gather would be a tail of several microseconds (docs/PERF-NOTES.md m2).
constexpr int64_t kWgmmaFoldedBatchTiles = 16;
inline bool wgmmaFoldsFinalize(int64_t batchTiles) {
  return batchTiles > 1 && batchTiles <= kWgmmaFoldedBatchTiles;
}
/// Fraction bits of the fixed-point batch sums (wgmmaAtomicSums).
constexpr int64_t kWgmmaSumFractionBits = 32;
/// On request (EcfScheduleOptions::wgmmaAtomicSums, --convert-sigreg-to-gpu
/// wgmma-atomic-sums), with more batch tiles than that (large: 64): each CTA
/// adds its tile's sums,
/// converted to 64-bit fixed point with kWgmmaSumFractionBits fraction bits,
/// to one [V, P, S] accumulator with integer atomics (their order cannot
/// change the sum: deterministic), and the last CTA per slice tile reads one
/// value per point: the finalize and the epilogue run in the kernel's tail,
/// and the [T, V, P, S] per-tile sums (34 MB at large) are not stored. The
/// sums of |cos| <= 1 over at most N rows stay below 2^63 for N < 2^30.
/// Measured on the H200 (docs/PERF-NOTES.md ts1): 34 MB less at large, but
/// the atomics cost more than the finalize kernel saves (large 0.547-0.552
/// -> 0.566-0.572 ms, N 8192 D 512 0.057 -> 0.068), so it is off by default.
inline bool wgmmaAtomicSums(int64_t batchTiles, int64_t batch, bool enabled) {
  return enabled && batchTiles > kWgmmaFoldedBatchTiles &&
         batch < (int64_t(1) << 30);
}
/// The tail gathers the batch tiles' sums (wgmmaFoldsFinalize or
/// wgmmaAtomicSums).
inline bool wgmmaTailGathers(int64_t batchTiles, int64_t batch,
                             bool atomicSums) {
  return wgmmaFoldsFinalize(batchTiles) ||
         wgmmaAtomicSums(batchTiles, batch, atomicSums);
}

/// Slices per tile of the Hopper kernel: the option's, else 256 when the
/// 128 x 256 tiles give at least one per multiprocessor, else 128 (twice the
/// CTAs, two per multiprocessor: mid 0.037 ms against 0.046 with 256) when
/// those give one per multiprocessor, else 64 (docs/PERF-NOTES.md m1).
int64_t wgmmaTileSlices(FusedEcfOp op, const EcfScheduleOptions &options,
                        int64_t dynamicSize = 0);
/// The same rule for a problem of V views of N rows and S slices (the fused
/// backward's ECF gradient kernel follows it too).
int64_t wgmmaTileSlices(int64_t numViews, int64_t batch, int64_t numSlices,
                        const EcfScheduleOptions &options);

/// Warps per block of the single launch by rule. 16 (schedule warps = 16,
/// --single-launch-warps=16) doubles the warps that hide each other's
/// latency and halves the ECF's elements per thread: measured no faster
/// than 8 (docs/PERF-NOTES.md, twentieth to thirtieth sessions).
/// 4 (warps = 4, thirty-third session) halves the block's shuffles and
/// Philox calls per multiprocessor at minimal-class tiles and doubles each
/// thread's ECF elements: measured no faster at minimal and 2 us slower at
/// blog (docs/PERF-NOTES.md, thirty-fourth session).
constexpr int64_t kSingleLaunchWarps = 8;
/// The Hopper tile whose sums may be promoted (schedule promote): 128 x 64,
/// 32 accumulators per consumer thread and as many promoted sums.
constexpr int64_t kWgmmaPromoteSlices = 64;
/// The wider tile promotion takes on request (wgmma-slices=128) and by rule
/// (promotedWideTileFills): 128 x 128, 64 accumulators per consumer thread
/// and as many promoted sums.
constexpr int64_t kWgmmaPromoteWideSlices = 128;
/// Its ring: one CTA per multiprocessor (the sums need the registers that
/// two CTAs would share), so 6 stages of 32 KB.
constexpr int64_t kWgmmaPromoteWideStages = 6;
/// Whether promoted sums take the 128 x 128 tile by rule: where its grid,
/// V x ceil(N / 128) x ceil(S / 128) CTAs, fills the multiprocessors. Measured
/// on the H200 (docs/PERF-NOTES.md, twenty-second session), per-slice bf16
/// statistics at N 8192 S 1024: D 1024 0.107 -> 0.101 ms, D 4096 0.347 ->
/// 0.298-0.301, N 8100 D 4000 S 1000 0.409 -> 0.324 against the 128 x 64
/// tile; below one CTA per multiprocessor the 128 x 64 tile keeps twice the
/// CTAs.
bool promotedWideTileFills(int64_t numViews, int64_t batch, int64_t numSlices);
/// Whether schedule `s` can promote its tensor cores' sums to f32 registers
/// (EcfSchedule::promoteKTiles): the mma.sync kernel, and the one-tile
/// Hopper kernel's 128 x 64 tile.
bool promotesAccumulators(const EcfSchedule &s);
/// Largest P of the single launch in blocks of 16 warps: a 512-thread block
/// leaves ptxas 128 registers per thread, and the 2 (P - 1) ECF sums of P =
/// 33 spilled there (N = 20 to 129, P = 33 and 63, f16 and bf16).
constexpr int64_t kSingleLaunchWideMaxPoints = 17;
/// Why the single launch of `op` cannot run in blocks of `warps` warps with
/// its GEMM reading the projection as `projection` (empty when it can):
/// warps other than 4, 8 or 16; 4 and 16 warps need the tensor-core GEMM
/// (projection rounded or split: the SIMT GEMM spilled under 128 registers
/// at minimal f32 in 16 warps, and 4 were never built for it), 16 warps P <=
/// kSingleLaunchWideMaxPoints.
std::string singleLaunchWarpsObstacle(FusedEcfOp op, ProjectionMode projection,
                                      int64_t warps);
/// Tiles of the single-launch forward (sigreg_single_launch): blockRows
/// batch rows x blockSlices slices per block of `warps` warps (4, 8 or 16), and
/// how its GEMM reads the projection: `f32` (a seeded g in f32, SIMT FMAs),
/// `explicit` (the projection operand, SIMT FMAs), or `rounded` / `split` (a
/// seeded g generated in registers in the mma.sync operand layout, rounded to
/// the input's 16-bit type or as hi + lo parts; bf16/f16 inputs only).
struct SingleLaunchTiling {
  int64_t blockRows, blockSlices;
  ProjectionMode projection;
  int64_t warps = kSingleLaunchWarps;
};
/// True for the tensor-core variant of the single launch.
inline bool singleLaunchUsesMma(ProjectionMode projection) {
  return projection == ProjectionMode::rounded ||
         projection == ProjectionMode::split;
}
/// The tensor-core variant for a seeded projection and a bf16/f16 input
/// (when options.tensorCores): blockRows = N rounded up to a power of two
/// in [16, 256], blockSlices 16 when that still gives one block per
/// multiprocessor, else 8; g split into hi + lo parts where
/// singleLaunchNeedsSplit says so. Otherwise the SIMT variant: blockRows = N
/// rounded up to a power of two in [8, 256]; blockSlices: the largest power
/// of two <= 16 with blockRows * blockSlices <= 1024 (up to four y elements
/// per thread of the ECF stage), the g tile D x blockSlices f32 and the warp
/// sums 16 x blockSlices x P f32 within 32 KB, and at least one block per
/// multiprocessor (V * batch tiles * slice tiles >= 132) when possible.
/// Nonzero options.blockRows / blockSlices replace the rule's rows / slices.
/// On tensor cores, a batch that fills few blocks is split into halves
/// (more batch tiles) while the grid stays at most half a block per
/// multiprocessor and each half keeps rows x D >= kSingleLaunchSplitGemm.
constexpr int64_t kSingleLaunchSplitGemm = 32768;
/// The largest batch of a training step's single launch: one batch tile of
/// at most 256 rows (singleLaunchStep).
constexpr int64_t kSingleLaunchStepMaxRows = 256;
SingleLaunchTiling chooseSingleLaunchTiling(FusedEcfOp op,
                                            const EcfScheduleOptions &options,
                                            int64_t dynamicSize = 0);

/// True when `op` and its chain (a seeded sigreg.projection read by `op`
/// alone, or an explicit projection; cos and sin read only by one
/// sigreg.all_reduce_mean of world size 1, whose results are read only by
/// one sigreg.fused_epilogue) run as one launch, sigreg_single_launch.
/// It applies when D <= 8192 (one column of g fits the shared tile) and
/// P <= 64. Cost rule (options.singleLaunch == 1): one batch tile (N <= 256,
/// so the projection is generated once per slice) and at most 2^28
/// multiply-adds (V N D S), where the SIMT GEMM of the single launch takes
/// no longer than the launches it saves; docs/GPU-SCHEDULES.md has the
/// measured figures.
bool usesSingleLaunch(FusedEcfOp op, const EcfScheduleOptions &options,
                      int64_t dynamicSize = 0);

/// Accuracy rule of the tensor-core kernel with a seeded projection: a loss
/// reduced over the slices (every result reaches, through
/// sigreg.all_reduce_mean, a sigreg.fused_epilogue with reduction mean or
/// sum) meets the bf16 tolerance with g rounded to 16 bits, as eager PyTorch
/// rounds A for its bf16 GEMM (the per-slice errors average out); per-slice
/// statistics (reduction none, or any other consumer) need the hi + lo
/// split.
/// Accuracy rule of the tensor-core kernel with a seeded projection. Per-slice
/// statistics (reduction none, or any consumer other than
/// sigreg.all_reduce_mean -> sigreg.fused_epilogue with reduction mean or
/// sum) need the hi + lo split of g (f32 accuracy). A loss reduced over the
/// slices uses g rounded to 16 bits, as eager PyTorch rounds A for its bf16
/// GEMM, only when roundedProjectionError(op) <= kRoundedProjectionErrorBudget;
/// otherwise it is split too.
/// A fused_ecf whose means are returned (an entry point of the DDP split)
/// counts as reduced over the slices where the function's result carries the
/// unit attribute kReducedAttrName: the caller computes a mean or sum loss.
bool needsSplitProjection(FusedEcfOp op);
/// Whether some reader of `op`'s means reads the statistics per slice (the
/// first reason of needsSplitProjection); `reduced`, when given, is set
/// when they are all reduced over the slices and one reader at least is.
bool readsStatisticsPerSlice(FusedEcfOp op, bool *reduced = nullptr);
constexpr llvm::StringLiteral kReducedAttrName = "sigreg.reduced";

/// Estimated relative error of a loss reduced over the V*S slices when the
/// GEMM multiplies by g rounded to 16 bits (unit roundoff u: 2^-8 bf16,
/// 2^-11 f16):
///   u * sqrt(N_global / D) / sqrt(V * S).
/// Rounding g perturbs each slice's direction a by a * delta, |delta| <= u,
/// independently per element; the statistic T = N_global * (ECF distance)
/// moves by about sqrt(N_global) * (a . (a * delta)) ~ u sqrt(N_global / D)
/// relative to T (T is O(1) for Gaussian-like data), with a random sign
/// per slice, so the mean over V * S slices is sqrt(V * S) smaller. The
/// measured errors on the H200 are about half the estimate: large anchor
/// (N 8192, D 4096, S 4096, bf16) 4.6e-5 against 8.6e-5; V 3, N 2048,
/// D 3, S 64, bf16, sum 3.75e-3 against 7.3e-3 (issue 11). Infinite for
/// dynamic shapes (split).
double roundedProjectionError(FusedEcfOp op);
/// Relative error of one slice's statistic that the tensor cores' truncating
/// accumulation leaves when the statistics are per slice: about 2^-25 of |y|
/// lost toward zero per MMA (D / 16 of them, twice with g split into hi + lo
/// parts when `splitProjection`), moving a slice's statistic by 2 sqrt(N)
/// times that (N over every rank). Measured on the H200 at N = 8192
/// (docs/PERF-NOTES.md, twenty-first session): D = 1024 8.1e-4 (model
/// 6.9e-4), D = 4096 3.7e-3 and 2.6e-3 on mma.sync (model 2.8e-3); promoted
/// every 4 k-tiles 1.5e-4. A dynamic dimension reads as `dynamicSize`.
double truncatedAccumulationError(FusedEcfOp op, bool splitProjection,
                                  int64_t dynamicSize = 0);
/// Largest truncatedAccumulationError left to the tensor cores' own sums:
/// half of the 2e-3 tolerance of 16-bit inputs.
constexpr double kTruncatedAccumulationBudget = 1e-3;
/// The promotion interval by rule: every 4 k-tiles (measured as accurate as
/// every k-tile, 1.9e-4 against 2.4e-4 at D = 1024, and no slower).
constexpr int64_t kRulePromoteKTiles = 4;

/// The same estimate for the single launch, which serves small batches:
/// roundedProjectionError plus a per-sample term u / sqrt(V * S). Rounding
/// g moves each y by about u relative, independently across samples (the
/// part of g's error orthogonal to g); for a batch of N samples that moves
/// the ECF's 1/sqrt(N) deviation from the Gaussian's by about u relative,
/// so T by about u, whatever N and D. roundedProjectionError's
/// sqrt(N / D) term dominates at large N; at small N this one does.
/// Measured on the H200 (2026-12-02, g rounded to bf16): blog (N 32, D
/// 2048, S 1024) 1.1e-4 against 1.4e-4 here (1.5e-5 without the term);
/// V 3, N 2, D 191, S 1: 2.6e-3 against 2.5e-3 (2.3e-4 without it: the
/// failure that found the term); minimal (V 4, N 256, D 16, S 256) 2.2e-4
/// against 6.1e-4.
double singleLaunchRoundedError(FusedEcfOp op);
/// The single launch splits g into hi + lo parts where needsSplitProjection
/// says so or singleLaunchRoundedError exceeds the budget.
bool singleLaunchNeedsSplit(FusedEcfOp op);

/// Largest roundedProjectionError for which g is rounded: a quarter of the
/// 2e-3 bf16/f16 tolerance, leaving the rest for the other roundings.
constexpr double kRoundedProjectionErrorBudget = 5e-4;

/// Estimated relative L2 error of dL/dx from the fused backward on the
/// Hopper kernels (sigreg_ecf_grad_wgmma + sigreg_project_transpose_wgmma),
/// which round dL/dy to the input's 16-bit type and, for a seeded
/// projection, multiply by g rounded to it in both GEMMs (unit roundoff u:
/// 2^-8 bf16, 2^-11 f16):
///   seeded:   u * (1 + sqrt(N / D) / 3),
///   explicit: u (A is exact in 16 bits; only dL/dy is rounded).
/// The rounded g perturbs every y by about u (one term per sample and
/// slice), and each slice's ECF by u sqrt(N / D) relative, as in
/// roundedProjectionError without the averaging over slices (dx sums the
/// slices' contributions along nearly orthogonal directions). Fitted to the
/// H200 runs of 2026-12-01 (docs/BACKWARD.md), which it bounds: bf16 seeded
/// 3.7e-3 at N / D = 1/64 (estimate 4.0e-3), 4.4e-3 at 2 (5.7e-3), 6.7e-3 at
/// 16 (9.1e-3); bf16 explicit 1.6e-3 (3.9e-3); f16 2.0e-4 to 4.2e-4.
double fusedBackwardError(FusedEcfBackwardOp op);
/// The fused backward runs where fusedBackwardError is at most the 16-bit
/// gradient tolerance (docs/CONTRACT.md section 5).
constexpr double kFusedBackwardErrorBudget = 1e-2;

/// Rows of D per projection chunk: `requested`, rounded up to a multiple of 4
/// (one Philox call makes 4 rows: docs/PROJECTION.md section 2).
int64_t projectionChunkRows(int64_t requested);

/// How a seeded sigreg.projection is written for its fused_ecf consumers.
struct ProjectionSchedule {
  /// bf16/f16 when a tensor-core consumer reads g as packed 16-bit words
  /// (ceil(D/2) x S i32 each), null when g is written as D x S f32.
  Type packedElement;
  /// Packed: lo words are written too (some consumer needs the split).
  bool splitProjection;
  /// With packedElement: g rounded to it and stored row-major [D, S] for the
  /// Hopper kernel's TMA, instead of packed words; with splitProjection too,
  /// its hi and lo parts as [2 Dp, S] (wgmmaSplitFeatures).
  bool rowMajor;
  int64_t chunkRows, numChunks;
  /// Nonzero: the consumer's Hopper kernel generates g (projection =
  /// generated), in clusters of this many CTAs: no projection launch;
  /// chunkRows = D / (4 x generateCluster).
  int64_t generateCluster = 0;
  /// Nonzero: the consumer's one-tile Hopper kernel generates g with this
  /// many CTAs (projection = cooperative): no projection launch; chunkRows
  /// = cooperativeChunkRows.
  int64_t cooperativeCtas = 0;
};

/// The layout of `op`'s output as --convert-sigreg-to-gpu writes it.
ProjectionSchedule chooseProjectionSchedule(ProjectionOp op,
                                            const EcfScheduleOptions &options,
                                            int64_t dynamicSize = 0);
/// The same from the schedules of `op`'s fused_ecf consumers, given by
/// `scheduleOf` (the attribute where there is one), and `projectionChunk`
/// rows of D per projection chunk.
ProjectionSchedule
chooseProjectionSchedule(ProjectionOp op, int64_t projectionChunk,
                         llvm::function_ref<EcfSchedule(FusedEcfOp)> scheduleOf,
                         int64_t dynamicSize = 0);

//===----------------------------------------------------------------------===//
// The schedule as IR: #sigreg.schedule on sigreg.fused_ecf
//===----------------------------------------------------------------------===//

/// The schedule --convert-sigreg-to-gpu would choose for `op` (static
/// shapes) under `options`: the single launch where usesSingleLaunch picks
/// it, else chooseEcfSchedule's decisions.
ScheduleAttr chooseScheduleAttr(FusedEcfOp op,
                                const EcfScheduleOptions &options);

/// The decisions recorded in `attr` (verified against `op`).
EcfSchedule getEcfSchedule(FusedEcfOp op, ScheduleAttr attr);

/// The schedule of `op`: its attribute when it has one, else the one
/// chooseEcfSchedule makes under `options` (`dynamicSize` standing for a
/// dynamic dimension).
EcfSchedule getOrChooseEcfSchedule(FusedEcfOp op,
                                   const EcfScheduleOptions &options,
                                   int64_t dynamicSize = 0);

/// Whether `attr` can run `op`, by the same rules the choice follows (the
/// cost rules aside: a schedule written by hand may be slow, never wrong).
/// On failure, reports the first broken rule through `emitError`.
LogicalResult
verifySchedule(FusedEcfOp op, ScheduleAttr attr,
               llvm::function_ref<InFlightDiagnostic()> emitError);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_DIALECT_SIGREG_UTILS_ECFSCHEDULE_H
