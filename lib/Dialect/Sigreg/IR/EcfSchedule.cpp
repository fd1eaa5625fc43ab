//===- EcfSchedule.cpp - schedule decisions of the fused ECF --------------===//

#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::sigreg;

namespace {

/// Size of dimension `i` of `type`, `dynamicSize` standing for a dynamic one.
int64_t dimSize(Type type, unsigned i, int64_t dynamicSize) {
  int64_t d = cast<ShapedType>(type).getDimSize(i);
  return ShapedType::isDynamic(d) ? dynamicSize : d;
}

/// The rules below say why a kernel cannot run `op`, or return "" when it
/// can. The choice (usesX) adds its options and cost rules on top; the
/// verifier of a hand-written schedule (verifySchedule) applies them alone.

/// The tensor-core kernels multiply 16-bit inputs.
std::string mmaObstacle(FusedEcfOp op) {
  Type e = getElementTypeOrSelf(op.getInput().getType());
  if (e.isBF16() || e.isF16())
    return "";
  std::string msg;
  llvm::raw_string_ostream os(msg);
  os << "needs a bf16 or f16 input, got " << e;
  return msg;
}

/// True when every reader of the seeded projection `projection` is `op` or a
/// sigreg.fused_ecf_backward reading it as its projection: the Hopper
/// kernels of the backward read g in the same row-major 16-bit layout.
bool readByOpAndBackward(Value projection, FusedEcfOp op) {
  for (OpOperand &use : projection.getUses()) {
    if (use.getOwner() == op.getOperation())
      continue;
    auto bwd = dyn_cast<FusedEcfBackwardOp>(use.getOwner());
    if (!bwd || bwd.getProjection() != use.get())
      return false;
  }
  return true;
}

/// The Hopper kernel with `tileSlices` slices per CTA tile (0: the default
/// 256).
std::string wgmmaObstacle(FusedEcfOp op, int64_t tileSlices,
                          int64_t dynamicSize) {
  Type in = op.getInput().getType();
  Type e = getElementTypeOrSelf(in);
  // f32 runs as bf16 hi + lo parts (wgmmaSplitsInput), any D.
  bool split = e.isF32();
  std::string msg = split ? "" : mmaObstacle(op);
  if (!msg.empty())
    return msg;
  llvm::raw_string_ostream os(msg);
  int64_t features = dimSize(in, 2, dynamicSize);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  if (split && slices % 8 != 0) {
    os << "needs S a multiple of 8 (16-byte TMA row strides), got S = "
       << slices;
    return msg;
  }
  if (split && needsSplitProjection(op)) {
    os << "multiplies bf16 hi + lo parts of an f32 input (about 2^-16 "
          "relative), which meets the f32 tolerance only for a loss reduced "
          "over the slices; per-slice statistics need the f32 GEMM";
    return msg;
  }
  if (split && splitInputError(op) > kSplitInputErrorBudget) {
    os << "multiplies bf16 hi + lo parts of an f32 input; its estimated "
          "error "
       << llvm::formatv("{0:e1}", splitInputError(op)).str()
       << " exceeds the budget "
       << llvm::formatv("{0:e1}", kSplitInputErrorBudget).str()
       << " (half the f32 tolerance)";
    return msg;
  }
  if (!split && (features % 8 != 0 || slices % 8 != 0)) {
    os << "needs D and S multiples of 8 (16-byte TMA row strides), got D = "
       << features << ", S = " << slices;
    return msg;
  }
  // The 128- and 64-slice tiles add their row parts through [parts - 1][2
  // (P - 1)][slices] f32 buffers over their dynamic shared memory (96 KB).
  int64_t points = dimSize(op.getCos().getType(), 2, dynamicSize);
  if (tileSlices < kWgmmaTileSlices && points > 65) {
    os << "with " << tileSlices
       << "-slice tiles needs P <= 65, got P = " << points;
    return msg;
  }
  Value projection = op.getProjection();
  if (projection.getDefiningOp<ProjectionOp>()) {
    if (!readByOpAndBackward(projection, op))
      os << "needs a seeded projection read by this op alone (and by the "
            "fused backward)";
  } else if (getElementTypeOrSelf(projection.getType()) != e) {
    os << "needs an explicit projection of the input's type " << e << ", got "
       << getElementTypeOrSelf(projection.getType());
  }
  return msg;
}

/// The single launch of a training step (singleLaunchStep): the backward
/// GEMM reads the G and g (rounded to the input's type, the hi part where
/// the forward splits it) it writes, so it needs one batch tile (each block
/// then holds its slices' global means), a 16-bit input and TMA's multiples
/// of 8.
std::string singleLaunchStepObstacle(FusedEcfOp op, int64_t dynamicSize) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  Type in = op.getInput().getType();
  Type e = getElementTypeOrSelf(in);
  int64_t batch = dimSize(in, 1, dynamicSize),
          features = dimSize(in, 2, dynamicSize),
          slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  if (!op.getProjection().getDefiningOp<ProjectionOp>())
    os << "as a training step needs a seeded projection";
  else if (!e.isBF16() && !e.isF16())
    os << "as a training step needs a bf16 or f16 input, got " << e;
  else if (batch > kSingleLaunchStepMaxRows)
    os << "as a training step needs N <= " << kSingleLaunchStepMaxRows
       << " (one batch tile), got N = " << batch;
  else if (features % 8 || slices % 8)
    os << "as a training step needs D and S multiples of 8 (the backward "
          "GEMM's TMA), got D = "
       << features << ", S = " << slices;
  return msg;
}

/// The single launch of `op`'s whole chain (see usesSingleLaunch).
std::string singleLaunchObstacle(FusedEcfOp op, int64_t dynamicSize) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  std::optional<SingleLaunchStep> step = singleLaunchStep(op);
  if (!foldableEpilogue(op) && !step) {
    os << "needs cos and sin read only by one sigreg.all_reduce_mean of "
          "world_size 1 whose results are read only by one "
          "sigreg.fused_epilogue (or, in a training step, also by the "
          "sigreg.ecf_cotangent of a sigreg.fused_ecf_backward)";
    return msg;
  }
  if (step)
    if (std::string why = singleLaunchStepObstacle(op, dynamicSize);
        !why.empty())
      return why;
  Value projection = op.getProjection();
  if (projection.getDefiningOp<ProjectionOp>()) {
    if (!step && !projection.hasOneUse()) {
      os << "needs a seeded projection read by this op alone";
      return msg;
    }
  } else if (!isa<BlockArgument>(projection)) {
    os << "needs a seeded projection or a function argument as projection";
    return msg;
  }
  Type in = op.getInput().getType();
  int64_t batch = dimSize(in, 1, dynamicSize),
          features = dimSize(in, 2, dynamicSize);
  int64_t points = dimSize(op.getCos().getType(), 2, dynamicSize);
  if (features > 8192)
    os << "needs D <= 8192 (one column of g in shared memory), got D = "
       << features;
  else if (points > 64)
    os << "needs P <= 64, got P = " << points;
  else if (batch < 1)
    os << "needs a non-empty batch";
  return msg;
}
} // namespace

/// The obstacles of the Hopper kernels whose ECF runs from the accumulators
/// (the ping-pong and transposed kernels): at most `maxPoints` points (the
/// sums in registers beside them), batch tiles of `rows` inside their view
/// (rows past N must be TMA's zeros), no slices result. Each message starts
/// with `prefix`.
static std::string accumulatorEcfObstacle(FusedEcfOp op, int64_t dynamicSize,
                                          int64_t maxPoints, int64_t rows,
                                          StringRef prefix,
                                          StringRef slicesNote) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  Type in = op.getInput().getType();
  int64_t views = dimSize(in, 0, dynamicSize),
          batch = dimSize(in, 1, dynamicSize),
          points = dimSize(op.getCos().getType(), 2, dynamicSize);
  if (points > maxPoints)
    os << prefix << "needs P <= " << maxPoints
       << " (the ECF sums in registers beside the accumulators), got P = "
       << points;
  else if (views > 1 && batch % rows != 0)
    os << prefix << "needs N a multiple of " << rows
       << " with several views (a batch tile past N would read the next "
          "view's rows), got V = "
       << views << ", N = " << batch;
  else if (op.getSlices())
    os << prefix << "does not store the slices result" << slicesNote;
  return msg;
}

std::string mlir::sigreg::wgmmaPersistentObstacle(FusedEcfOp op,
                                                  int64_t dynamicSize) {
  return accumulatorEcfObstacle(op, dynamicSize, kWgmmaPersistentMaxPoints,
                                kWgmmaTileRows, "", "");
}

std::string mlir::sigreg::wgmmaTransposedObstacle(FusedEcfOp op,
                                                  int64_t dynamicSize) {
  std::string prefix = llvm::formatv(
      "with tile = [{0}, {1}] ", kWgmmaTransposedRows, kWgmmaTransposedSlices);
  return accumulatorEcfObstacle(op, dynamicSize, kWgmmaTransposedMaxPoints,
                                kWgmmaTransposedRows, prefix,
                                " (tile = [128, 256] does)");
}

std::string mlir::sigreg::persistentTransposedObstacle(FusedEcfOp op,
                                                       int64_t dynamicSize) {
  std::string msg = wgmmaTransposedObstacle(op, dynamicSize);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  int64_t sliceTiles =
      llvm::divideCeilSigned<int64_t>(slices, kWgmmaTransposedSlices);
  if (msg.empty() && transposedSumGroups(1, sliceTiles) == 0)
    msg = llvm::formatv(
        "with tile = [{0}, {1}] needs at most {2} slice tiles (a CTA per "
        "slice tile and multiprocessor), got S = {3}",
        kWgmmaTransposedRows, kWgmmaTransposedSlices, kMultiprocessors, slices);
  return msg;
}

/// Why a kernel cannot generate `op`'s projection itself (empty when it
/// can): it needs a seeded projection that only `op` reads, with an i64 seed
/// or, with `stepSeed`, one read from a step counter.
static std::string generatedProjectionObstacle(FusedEcfOp op,
                                               bool stepSeed = false) {
  auto proj = op.getProjection().getDefiningOp<ProjectionOp>();
  if (!proj)
    return "needs a seeded projection (not an explicit one)";
  if (!stepSeed && proj.getSeed().getDefiningOp<AdvanceStepOp>())
    return "needs a seeded projection with an i64 seed (not one read from a "
           "step counter)";
  if (!proj->hasOneUse())
    return "needs the seeded projection to have no other user (g exists only "
           "inside this kernel's launch)";
  return "";
}

std::string mlir::sigreg::wgmmaGenerateObstacle(FusedEcfOp op, int64_t cluster,
                                                int64_t dynamicSize) {
  Type in = op.getInput().getType();
  int64_t views = dimSize(in, 0, dynamicSize),
          batch = dimSize(in, 1, dynamicSize),
          features = dimSize(in, 2, dynamicSize);
  int64_t batchTiles = llvm::divideCeilSigned<int64_t>(batch, kWgmmaTileRows);
  std::string msg = generatedProjectionObstacle(op);
  llvm::raw_string_ostream os(msg);
  if (!msg.empty())
    return msg;
  if (views != 1)
    os << "needs one view (several would generate g once per view), got V = "
       << views;
  else if (!llvm::is_contained({1, 2, 4, 8}, cluster))
    os << "needs cluster = 1, 2, 4 or 8 (the CTAs that generate the g tile "
          "together), got "
       << cluster;
  else if (batchTiles % cluster != 0)
    os << "needs batch_tiles a multiple of the cluster " << cluster
       << " (the batch tiles of a slice tile generate its g tile together), "
          "got "
       << batchTiles;
  else if (features % (16 * cluster) != 0)
    os << "needs D a multiple of 16 x cluster = " << 16 * cluster
       << " (each CTA's threads take whole groups of four rows), got D = "
       << features;
  else if (wgmmaSplitsInput(op) || needsSplitProjection(op))
    os << "needs a 16-bit input whose statistics allow g rounded to 16 bits "
          "(not the hi + lo split)";
  return msg;
}

int64_t mlir::sigreg::wgmmaGenerateClusterOf(FusedEcfOp op, int64_t requested,
                                             int64_t dynamicSize) {
  if (requested)
    return wgmmaGenerateObstacle(op, requested, dynamicSize).empty() ? requested
                                                                     : 0;
  for (int64_t cluster : {8, 4, 2, 1})
    if (wgmmaGenerateObstacle(op, cluster, dynamicSize).empty())
      return cluster;
  return 0;
}

/// The CTAs of `op`'s one-tile grid under schedule `s`: V x batch tiles x
/// slice tiles.
static int64_t oneTileGridCtas(FusedEcfOp op, const EcfSchedule &s,
                               int64_t dynamicSize) {
  return dimSize(op.getInput().getType(), 0, dynamicSize) * s.numBatchTiles *
         s.numSliceTiles;
}

std::string mlir::sigreg::wgmmaCooperativeObstacle(FusedEcfOp op,
                                                   const EcfSchedule &s,
                                                   int64_t dynamicSize) {
  int64_t ctas = oneTileGridCtas(op, s, dynamicSize);
  std::string msg = generatedProjectionObstacle(op, /*stepSeed=*/true);
  llvm::raw_string_ostream os(msg);
  if (!msg.empty())
    return msg;
  if (!op.getInput().getType().hasStaticShape())
    os << "needs a static input shape (the grid barrier counts the grid's "
          "CTAs when the kernel is compiled)";
  else if (!s.wgmmaHasTail() || s.cluster != 1 || s.generateProjection)
    os << "needs the one-tile kernel = wgmma with tile = [128, N] and no "
          "cluster";
  else if (s.splitProjection || wgmmaSplitsInput(op))
    os << "needs a 16-bit input whose statistics allow g rounded to 16 bits "
          "(not the hi + lo split)";
  else {
    int64_t resident =
        kMultiprocessors *
        getWgmmaTiling(s.blockSlices, false, ctas, s.blockRows, s.promoteKTiles)
            .ctasPerSM;
    if (ctas > resident)
      os << "needs a grid the multiprocessors hold at once (at most "
         << resident << " CTAs: every CTA waits at the grid barrier), got "
         << ctas;
  }
  return msg;
}

int64_t mlir::sigreg::cooperativeChunkRows(int64_t features, int64_t slices,
                                           int64_t ctas) {
  int64_t threads = std::max<int64_t>(ctas, 1) * 256;
  int64_t rows = llvm::divideCeilSigned(features * slices, threads);
  return std::min(llvm::alignTo(std::max<int64_t>(rows, 4), 4),
                  llvm::alignTo(features, 4));
}

int64_t mlir::sigreg::transposedSumGroups(int64_t batchTiles,
                                          int64_t sliceTiles) {
  return std::min(batchTiles, kMultiprocessors / sliceTiles);
}

bool mlir::sigreg::persistentTransposedPays(int64_t rowTiles,
                                            int64_t batchTiles,
                                            int64_t sliceTiles) {
  int64_t groups = transposedSumGroups(batchTiles, sliceTiles);
  if (groups <= 0)
    return false;
  return llvm::divideCeilSigned(rowTiles, groups) <=
         llvm::divideCeilSigned(rowTiles * sliceTiles, kMultiprocessors);
}

bool mlir::sigreg::usesTensorCores(FusedEcfOp op,
                                   const EcfScheduleOptions &options,
                                   int64_t dynamicSize) {
  Type in = op.getInput().getType();
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  int64_t blocks =
      dimSize(in, 0, dynamicSize) *
      llvm::divideCeilSigned<int64_t>(dimSize(in, 1, dynamicSize), kMmaRows) *
      llvm::divideCeilSigned<int64_t>(slices, kMmaSlices);
  return options.tensorCores && mmaObstacle(op).empty() &&
         blocks >= kTargetBlocks / 4;
}

std::string mlir::sigreg::scheduleOptionError(
    int64_t blockRows, int64_t blockSlices, int64_t wgmmaSlices,
    int64_t singleLaunch, int64_t wgmmaCluster, int64_t wgmmaRows,
    int64_t singleLaunchWarps, int64_t promoteKTiles,
    int64_t wgmmaCooperative) {
  for (int64_t t : {blockRows, blockSlices})
    if (t != 0 && (t < 0 || t > 256 || !llvm::isPowerOf2_64(t)))
      return llvm::formatv("block-rows and block-slices must be 0 or a power "
                           "of two up to 256, got {0}",
                           t);
  if (!llvm::is_contained({0, 64, 128, 256}, wgmmaSlices))
    return llvm::formatv("wgmma-slices must be 0, 64, 128 or 256, got {0}",
                         wgmmaSlices);
  if (singleLaunch < 0 || singleLaunch > 2)
    return llvm::formatv("single-launch must be 0, 1 or 2, got {0}",
                         singleLaunch);
  if (wgmmaCluster != 0 && !isWgmmaClusterSize(wgmmaCluster))
    return llvm::formatv("wgmma-cluster must be 0, 1, 2 or 4, got {0}",
                         wgmmaCluster);
  if (!llvm::is_contained({int64_t(0), kWgmmaTileRows, kWgmmaTransposedRows},
                          wgmmaRows))
    return llvm::formatv("wgmma-rows must be 0, 128 or 256, got {0}",
                         wgmmaRows);
  if (!llvm::is_contained({0, 4, 8, 16}, singleLaunchWarps))
    return llvm::formatv("single-launch-warps must be 0, 4, 8 or 16, got {0}",
                         singleLaunchWarps);
  if (promoteKTiles < -1)
    return llvm::formatv("promote-accumulators must be -1 (by rule), 0 "
                         "(never) or a number of k-tiles, got {0}",
                         promoteKTiles);
  if (wgmmaCooperative < -1 || wgmmaCooperative > 1)
    return llvm::formatv("wgmma-cooperative must be -1 (by rule), 0 (never) "
                         "or 1 (wherever it can), got {0}",
                         wgmmaCooperative);
  return "";
}

/// Why the one-tile Hopper kernel cannot run clusters of `cluster` CTAs
/// (empty when it can): each CTA loads an equal share of the g tile's
/// 64-slice boxes, and the clusters tile the batch tiles.
static std::string wgmmaClusterObstacle(int64_t cluster, int64_t tileSlices,
                                        int64_t batchTiles) {
  if (cluster == 1)
    return "";
  if (tileSlices / 64 % cluster != 0)
    return llvm::formatv("needs tile slices a multiple of 64 x cluster for a "
                         "cluster of {0} (each CTA loads an equal share of "
                         "the g tile's 64-slice boxes), got {1}",
                         cluster, tileSlices);
  if (batchTiles % cluster != 0)
    return llvm::formatv("needs batch_tiles a multiple of the cluster {0} "
                         "(clusters of CTAs along the batch tiles), got {1}",
                         cluster, batchTiles);
  return "";
}

int64_t mlir::sigreg::wgmmaClusterOf(int64_t requested, int64_t tileSlices,
                                     int64_t batchTiles, int64_t reduction) {
  int64_t cluster = requested;
  if (!cluster)
    cluster = tileSlices == kWgmmaTileSlices &&
                      llvm::divideCeilSigned<int64_t>(reduction, 64) >=
                          kWgmmaClusterKTiles
                  ? 2
                  : 1;
  return wgmmaClusterObstacle(cluster, tileSlices, batchTiles).empty() ? cluster
                                                                       : 1;
}

std::string mlir::sigreg::pingPongClusterObstacle(int64_t cluster,
                                                  int64_t batchTiles) {
  if (cluster == 1)
    return "";
  if (cluster != 2)
    return llvm::formatv("runs pairs of CTAs only (clusters of 4 measured "
                         "slower), got cluster = {0}",
                         cluster);
  if (batchTiles % 2 != 0)
    return llvm::formatv("needs an even number of batch tiles for a pair "
                         "(the pair's CTAs share the g tile of two batch "
                         "tiles), got batch_tiles = {0}",
                         batchTiles);
  return "";
}

int64_t mlir::sigreg::pingPongClusterOf(int64_t requested, int64_t batchTiles) {
  int64_t cluster = requested ? requested : 2;
  return pingPongClusterObstacle(cluster, batchTiles).empty() ? cluster : 1;
}

WgmmaTiling mlir::sigreg::getWgmmaTiling(int64_t tileSlices, bool persistent,
                                         int64_t ctas, int64_t rows,
                                         int64_t promote) {
  // As the 256-slice tile: a producer warpgroup and setmaxnreg. ptxas
  // compiles the whole kernel within the registers of 384 threads (168):
  // the ECF from the accumulators fits once the column norms' loads are
  // shared by the lanes of a quad.
  if (rows == kWgmmaTransposedRows)
    return {kWgmmaTransposedSlices, 4,   64, 1, 384, 40, 232, persistent,
            /*cluster=*/1,          rows};
  if (persistent)
    return {kWgmmaPingPongSlices, 6, 64, 1, 384, 40, 232, true};
  WgmmaTiling tiling = {256, 4, 64, 1, 384, 40, 232, false};
  if (tileSlices == 64) {
    bool oneWave = ctas > 0 && ctas <= kMultiprocessors;
    int64_t stages = oneWave ? kWgmmaDeepRingStages : 4;
    tiling = {64, stages, 64, oneWave ? 1 : 2, 288, 0, 0, false};
  } else if (tileSlices == kWgmmaPromoteWideSlices && promote) {
    // The promoted sums need the registers two CTAs would share.
    tiling = {128, kWgmmaPromoteWideStages, 64, 1, 288, 0, 0, false};
  } else if (tileSlices == 128) {
    tiling = {128, 3, 64, 2, 288, 0, 0, false};
  }
  tiling.promote = promote;
  return tiling;
}

int64_t mlir::sigreg::wgmmaTileSlices(FusedEcfOp op,
                                      const EcfScheduleOptions &options,
                                      int64_t dynamicSize) {
  Type in = op.getInput().getType();
  return wgmmaTileSlices(
      dimSize(in, 0, dynamicSize), dimSize(in, 1, dynamicSize),
      dimSize(op.getCos().getType(), 1, dynamicSize), options);
}

int64_t mlir::sigreg::wgmmaTileSlices(int64_t numViews, int64_t batch,
                                      int64_t numSlices,
                                      const EcfScheduleOptions &options) {
  if (options.wgmmaSlices)
    return options.wgmmaSlices;
  auto tiles = [&](int64_t slices) {
    return numViews * llvm::divideCeilSigned<int64_t>(batch, kWgmmaTileRows) *
           llvm::divideCeilSigned<int64_t>(numSlices, slices);
  };
  if (tiles(kWgmmaTileSlices) >= kTargetBlocks / 2)
    return kWgmmaTileSlices;
  return tiles(128) >= kTargetBlocks / 2 ? 128 : 64;
}

bool mlir::sigreg::wgmmaSplitsInput(FusedEcfOp op) {
  return getElementTypeOrSelf(op.getInput().getType()).isF32();
}

int64_t mlir::sigreg::wgmmaSplitFeatures(int64_t featureDim) {
  return llvm::alignTo(featureDim, kWgmmaSplitAlign);
}

bool mlir::sigreg::usesWgmma(FusedEcfOp op, const EcfScheduleOptions &options,
                             int64_t dynamicSize) {
  return options.tensorCores && options.hopper &&
         wgmmaObstacle(op, wgmmaTileSlices(op, options, dynamicSize),
                       dynamicSize)
             .empty();
}

/// Unit roundoff of the 16-bit type g is rounded to (the input's).
static double projectionRoundoff(Type e) {
  return e.isBF16()  ? std::ldexp(1.0, -8)
         : e.isF16() ? std::ldexp(1.0, -11)
                     : std::ldexp(1.0, -24);
}

/// Ranks whose batches the ECF averages over (an all_reduce_mean of its
/// means), 1 without one.
static int64_t worldSizeOf(FusedEcfOp op) {
  int64_t worldSize = 1;
  for (Operation *user : op->getUsers())
    if (auto ar = dyn_cast<AllReduceMeanOp>(user))
      worldSize = std::max<int64_t>(worldSize, ar.getWorldSize());
  return worldSize;
}

double mlir::sigreg::roundedProjectionError(FusedEcfOp op) {
  auto in = op.getInput().getType();
  auto cos = op.getCos().getType();
  if (!in.hasStaticShape() || !cos.hasStaticShape())
    return std::numeric_limits<double>::infinity();
  double u = projectionRoundoff(in.getElementType());
  double V = in.getDimSize(0), N = in.getDimSize(1), D = in.getDimSize(2),
         S = cos.getDimSize(1);
  // The ECF averages over every rank's batch.
  return u * std::sqrt(N * static_cast<double>(worldSizeOf(op)) / D) /
         std::sqrt(V * S);
}

double mlir::sigreg::truncatedAccumulationError(FusedEcfOp op,
                                                bool splitProjection,
                                                int64_t dynamicSize) {
  Type in = op.getInput().getType();
  double N = static_cast<double>(dimSize(in, 1, dynamicSize)) *
             static_cast<double>(worldSizeOf(op));
  double mmas =
      llvm::divideCeilSigned<int64_t>(dimSize(in, 2, dynamicSize), 16) *
      (splitProjection ? 2 : 1);
  return 2.0 * std::sqrt(N) * mmas * std::ldexp(1.0, -25);
}

double mlir::sigreg::singleLaunchRoundedError(FusedEcfOp op) {
  double error = roundedProjectionError(op);
  if (std::isinf(error))
    return error;
  auto in = op.getInput().getType();
  double V = in.getDimSize(0), S = op.getCos().getType().getDimSize(1);
  return error + projectionRoundoff(in.getElementType()) / std::sqrt(V * S);
}

bool mlir::sigreg::singleLaunchNeedsSplit(FusedEcfOp op) {
  return needsSplitProjection(op) ||
         singleLaunchRoundedError(op) > kRoundedProjectionErrorBudget;
}

double mlir::sigreg::splitInputError(FusedEcfOp op) {
  auto in = op.getInput().getType();
  if (!in.hasStaticShape())
    return std::numeric_limits<double>::infinity();
  double N = static_cast<double>(in.getDimSize(1)) * worldSizeOf(op);
  return std::ldexp(1.0, -16) * std::sqrt(N) / 32.0;
}

double mlir::sigreg::fusedBackwardError(FusedEcfBackwardOp op) {
  auto in = op.getInput().getType();
  if (!in.hasStaticShape())
    return std::numeric_limits<double>::infinity();
  Type e = in.getElementType();
  double u = e.isBF16()  ? std::ldexp(1.0, -8)
             : e.isF16() ? std::ldexp(1.0, -11)
                         : std::ldexp(1.0, -24);
  if (!op.getProjection().getDefiningOp<ProjectionOp>())
    return u;
  double N = in.getDimSize(1), D = in.getDimSize(2);
  return u * (1.0 + std::sqrt(N / D) / 3.0);
}

bool mlir::sigreg::readsStatisticsPerSlice(FusedEcfOp op, bool *reduced) {
  bool reducedLoss = false;
  // The means' readers (the saved slices go to the fused backward, whose
  // accuracy fusedBackwardError covers).
  SmallVector<OpOperand *> uses;
  for (Value mean : {op.getCos(), op.getSin()})
    for (OpOperand &use : mean.getUses())
      uses.push_back(&use);
  for (OpOperand *usePtr : uses) {
    OpOperand &use = *usePtr;
    Operation *user = use.getOwner();
    // Returned means (an entry point of the DDP split) whose caller reduces
    // the statistic over the slices: the function says so with the result
    // attribute sigreg.reduced.
    if (isa<func::ReturnOp>(user)) {
      auto func = user->getParentOfType<func::FuncOp>();
      if (!func ||
          !func.getResultAttr(use.getOperandNumber(), kReducedAttrName))
        return true;
      reducedLoss = true;
      continue;
    }
    auto ar = dyn_cast<AllReduceMeanOp>(user);
    if (!ar)
      return true;
    for (Operation *next : ar->getUsers()) {
      // The gradient: its 1e-2 tolerance leaves room for g rounded to 16
      // bits (docs/BACKWARD.md has the measured errors).
      if (isa<EcfCotangentOp>(next))
        continue;
      auto epi = dyn_cast<FusedEpilogueOp>(next);
      if (!epi || epi.getReduction() == Reduction::none)
        return true;
      reducedLoss = true;
    }
  }
  if (reduced)
    *reduced = reducedLoss;
  return false;
}

bool mlir::sigreg::needsSplitProjection(FusedEcfOp op) {
  bool reducedLoss = false;
  if (readsStatisticsPerSlice(op, &reducedLoss))
    return true;
  // Reduced over the slices: g rounded to 16 bits only where the error
  // bound leaves room for the rest of the tolerance.
  return reducedLoss &&
         roundedProjectionError(op) > kRoundedProjectionErrorBudget;
}

/// Whether a fused backward of the same problem reads `op`'s means (a
/// training step): --sigreg-save-slices then has the 128-row kernel store
/// the slices for it.
static bool hasFusedBackward(FusedEcfOp op) {
  for (Operation *user : op.getInput().getUsers())
    if (auto bwd = dyn_cast<FusedEcfBackwardOp>(user);
        bwd && bwd.getProjection() == op.getProjection())
      return true;
  return false;
}

bool mlir::sigreg::usesWgmmaTransposed(FusedEcfOp op,
                                       const EcfScheduleOptions &options,
                                       int64_t tileSlices,
                                       int64_t dynamicSize) {
  if (options.wgmmaRows == kWgmmaTileRows ||
      !wgmmaTransposedObstacle(op, dynamicSize).empty())
    return false;
  if (options.wgmmaRows == kWgmmaTransposedRows)
    return true;
  // Not for f32 inputs on split operands by rule: their mainloop is three
  // times longer, the ECF's share small, and the transposed kernel measured
  // slower at large f32 (1.39 against 1.36 ms).
  return tileSlices == kWgmmaTileSlices && !wgmmaSplitsInput(op) &&
         !hasFusedBackward(op);
}

bool mlir::sigreg::promotedWideTileFills(int64_t numViews, int64_t batch,
                                         int64_t numSlices) {
  return numViews * llvm::divideCeilSigned<int64_t>(batch, kWgmmaTileRows) *
             llvm::divideCeilSigned<int64_t>(numSlices,
                                             kWgmmaPromoteWideSlices) >=
         kMultiprocessors;
}

/// Whether the tensor cores' sums are promoted by rule: 16-bit inputs whose
/// statistics are read per slice (readsStatisticsPerSlice) with the Hopper
/// kernel's tile and persistence left to the rule, where
/// truncatedAccumulationError exceeds its budget. A seeded g is split into
/// hi + lo parts there, so its GEMM runs twice the MMAs.
static bool promotesByRule(FusedEcfOp op, const EcfScheduleOptions &options,
                           int64_t dynamicSize) {
  Type e = getElementTypeOrSelf(op.getInput().getType());
  if (!options.tensorCores || !(e.isBF16() || e.isF16()) || options.wgmmaRows ||
      options.wgmmaSlices || options.wgmmaPersistent ||
      !readsStatisticsPerSlice(op))
    return false;
  bool seeded = bool(op.getProjection().getDefiningOp<ProjectionOp>());
  return truncatedAccumulationError(op, seeded, dynamicSize) >
         kTruncatedAccumulationBudget;
}

EcfSchedule mlir::sigreg::chooseEcfSchedule(FusedEcfOp op,
                                            const EcfScheduleOptions &requested,
                                            int64_t dynamicSize) {
  Type in = op.getInput().getType();
  int64_t numViews = dimSize(in, 0, dynamicSize);
  int64_t batch = dimSize(in, 1, dynamicSize);
  int64_t numSlices = dimSize(op.getCos().getType(), 1, dynamicSize);
  // Promoted sums take the Hopper kernel's 128 x 64 tile (32 accumulators
  // per thread, room for as many promoted sums), or its 128 x 128 tile (one
  // CTA per multiprocessor): on request, and by rule where its grid fills
  // the multiprocessors (promotedWideTileFills), one tile per CTA.
  EcfScheduleOptions options = requested;
  bool wideByRule = false;
  if (options.promoteKTiles < 0) {
    bool byRule = promotesByRule(op, options, dynamicSize);
    options.promoteKTiles = byRule ? kRulePromoteKTiles : 0;
    wideByRule = byRule && promotedWideTileFills(numViews, batch, numSlices);
  }
  if (options.promoteKTiles) {
    options.wgmmaRows = kWgmmaTileRows;
    options.wgmmaSlices =
        options.wgmmaSlices == kWgmmaPromoteWideSlices || wideByRule
            ? kWgmmaPromoteWideSlices
            : kWgmmaPromoteSlices;
    options.wgmmaPersistent = false;
  }

  EcfSchedule s;
  s.wgmma = usesWgmma(op, options, dynamicSize);
  int64_t wgmmaSlices = s.wgmma ? wgmmaTileSlices(op, options, dynamicSize) : 0;
  // --wgmma-persistent: the ping-pong kernel, or with wgmma-rows = 256 the
  // transposed kernel made persistent.
  bool pingPong = s.wgmma && options.wgmmaPersistent &&
                  options.wgmmaRows != kWgmmaTransposedRows &&
                  wgmmaPersistentObstacle(op, dynamicSize).empty();
  if (pingPong)
    wgmmaSlices = kWgmmaPingPongSlices;
  bool transposed = s.wgmma && !pingPong &&
                    usesWgmmaTransposed(op, options, wgmmaSlices, dynamicSize);
  if (transposed)
    wgmmaSlices = kWgmmaTransposedSlices;
  // The transposed tile by rule is persistent where that keeps its waves
  // (persistentTransposedPays); wgmma-rows = 256 alone asks for one tile.
  bool persistentByRule = false;
  if (transposed && !options.wgmmaRows) {
    int64_t batchTiles =
        llvm::divideCeilSigned<int64_t>(batch, kWgmmaTransposedRows);
    persistentByRule = persistentTransposedPays(
        numViews * batchTiles, batchTiles,
        llvm::divideCeilSigned<int64_t>(numSlices, kWgmmaTransposedSlices));
  }
  s.wgmmaPersistent =
      pingPong ||
      (transposed && (options.wgmmaPersistent || persistentByRule) &&
       persistentTransposedObstacle(op, dynamicSize).empty());
  s.tensorCores = s.wgmma || usesTensorCores(op, options, dynamicSize);
  // Only a seeded projection is split; an explicit one has the input's
  // type already (the Hopper kernel splits an f32 one itself). The Hopper
  // kernel splits a seeded g exactly when it splits the input.
  bool seeded = bool(op.getProjection().getDefiningOp<ProjectionOp>());
  s.splitProjection =
      seeded && s.tensorCores &&
      ((s.wgmma && wgmmaSplitsInput(op)) || needsSplitProjection(op));
  // Tile choice: rows by batch size, slices shrunk until the grid has about
  // two blocks per multiprocessor.
  if (s.wgmma) {
    s.blockRows = transposed ? kWgmmaTransposedRows : kWgmmaTileRows;
    s.blockSlices = wgmmaSlices;
  } else if (s.tensorCores) {
    s.blockRows = kMmaRows;
    s.blockSlices = kMmaSlices;
  } else {
    s.blockRows = options.blockRows ? options.blockRows
                  : batch <= 16     ? 16
                  : batch <= 32     ? 32
                                    : 64;
    s.blockSlices = options.blockSlices;
  }
  s.numBatchTiles = llvm::divideCeilSigned<int64_t>(batch, s.blockRows);
  if (s.wgmma && !s.wgmmaPersistent) {
    int64_t reduction = wgmmaReductionFeatures(
        dimSize(in, 2, dynamicSize), wgmmaSplitsInput(op), s.splitProjection);
    s.cluster = wgmmaClusterOf(options.wgmmaCluster, s.blockSlices,
                               s.numBatchTiles, reduction);
  } else if (pingPong) {
    s.cluster = pingPongClusterOf(options.wgmmaCluster, s.numBatchTiles);
  }
  // --wgmma-generate: the 64-slice tile generates its own g tile, in clusters
  // of the slice tile's batch-tile CTAs (no multicast cluster then): the
  // largest cluster by rule, or wgmma-cluster's where it can.
  if (options.wgmmaGenerate && s.wgmma && !s.wgmmaPersistent &&
      s.blockRows == kWgmmaTileRows && s.blockSlices == kWgmmaGenerateSlices &&
      !s.splitProjection)
    if (int64_t cluster =
            wgmmaGenerateClusterOf(op, options.wgmmaCluster, dynamicSize)) {
      s.generateProjection = true;
      s.cluster = cluster;
    }
  if (!s.blockSlices) {
    s.blockSlices = 64;
    while (s.blockSlices > 16 &&
           numViews * s.numBatchTiles *
                   llvm::divideCeilSigned<int64_t>(numSlices, s.blockSlices) <
               kTargetBlocks)
      s.blockSlices /= 2;
  }
  s.numSliceTiles = llvm::divideCeilSigned<int64_t>(numSlices, s.blockSlices);
  if (promotesAccumulators(s))
    s.promoteKTiles = options.promoteKTiles;
  // --wgmma-cooperative: the one-tile kernel's grid generates g itself; by
  // rule where each of its threads generates at most kCooperativeRuleMaxRows
  // rows (measured on the H200: one launch at mid 18.1 us against two
  // launches' 18.3, at N 512 D 2048, 128 rows a thread, 23.9 against 22.8).
  if (options.wgmmaCooperative != 0 && s.wgmma &&
      wgmmaCooperativeObstacle(op, s, dynamicSize).empty())
    s.cooperativeProjection =
        options.wgmmaCooperative == 1 ||
        cooperativeChunkRows(dimSize(in, 2, dynamicSize), numSlices,
                             oneTileGridCtas(op, s, dynamicSize)) <=
            kCooperativeRuleMaxRows;
  s.tileK = 16;
  if (!s.tensorCores &&
      numViews * s.numBatchTiles * s.numSliceTiles < kTargetBlocks / 2) {
    auto smemBytes = [&](int64_t k) {
      return 4 * (k * (s.blockRows + 1) + k * s.blockSlices +
                  2 * 16 * s.blockSlices + s.blockSlices);
    };
    while (s.tileK < 128 && smemBytes(2 * s.tileK) <= 40 * 1024)
      s.tileK *= 2;
  }
  return s;
}

int64_t mlir::sigreg::projectionChunkRows(int64_t requested) {
  return llvm::alignTo(requested, 4);
}

ProjectionSchedule mlir::sigreg::chooseProjectionSchedule(
    ProjectionOp op, const EcfScheduleOptions &options, int64_t dynamicSize) {
  return chooseProjectionSchedule(
      op, options.projectionChunk,
      [&](FusedEcfOp ecf) {
        return chooseEcfSchedule(ecf, options, dynamicSize);
      },
      dynamicSize);
}

ProjectionSchedule mlir::sigreg::chooseProjectionSchedule(
    ProjectionOp op, int64_t projectionChunk,
    function_ref<EcfSchedule(FusedEcfOp)> scheduleOf, int64_t dynamicSize) {
  ProjectionSchedule s{Type(), false, false, 0, 0};
  bool forwardReaders = false;
  Type backwardElement;
  for (Operation *user : op->getUsers()) {
    if (auto bwd = dyn_cast<FusedEcfBackwardOp>(user))
      backwardElement = getElementTypeOrSelf(bwd.getInput().getType());
    auto ecf = dyn_cast<FusedEcfOp>(user);
    if (!ecf)
      continue;
    forwardReaders = true;
    EcfSchedule consumer = scheduleOf(ecf);
    if (consumer.wgmma) {
      // The only consumer (usesWgmma checks it); an f32 one reads bf16 hi
      // and lo rows.
      Type in = getElementTypeOrSelf(ecf.getInput().getType());
      s.packedElement = in.isF32() ? BFloat16Type::get(op.getContext()) : in;
      s.rowMajor = true;
      s.splitProjection = consumer.splitProjection;
      s.generateCluster = consumer.generateProjection ? consumer.cluster : 0;
      if (consumer.cooperativeProjection)
        s.cooperativeCtas = oneTileGridCtas(ecf, consumer, dynamicSize);
    } else if (consumer.tensorCores) {
      s.packedElement = getElementTypeOrSelf(ecf.getInput().getType());
      s.splitProjection |= consumer.splitProjection;
    }
  }
  // Read by the fused backward alone: the Hopper kernels' row-major 16-bit
  // g (with forward readers, the backward follows their layout or reports
  // that it cannot).
  if (!forwardReaders && backwardElement) {
    s.packedElement = backwardElement;
    s.rowMajor = true;
  }
  // At most `projectionChunk` rows per chunk, fewer (down to 16) when the
  // generator's grid, ceil(S / 256) x chunks blocks of 256 threads, would
  // not fill the GPU: with 64-row chunks D = S = 1024 gave 64 blocks (ncu,
  // docs/PERF-NOTES.md v19).
  int64_t features = dimSize(op.getType(), 0, dynamicSize);
  int64_t columnBlocks = llvm::divideCeilSigned<int64_t>(
      dimSize(op.getType(), 1, dynamicSize), int64_t(256));
  int64_t filling = features * columnBlocks / kTargetBlocks / 4 * 4;
  s.chunkRows = projectionChunkRows(
      std::min(projectionChunk, std::max<int64_t>(filling, 16)));
  // Generated by the Hopper kernel: each of the 4 row parts of each of the
  // cluster's CTAs is a chunk.
  if (s.generateCluster)
    s.chunkRows = features / (4 * s.generateCluster);
  // Generated by the Hopper kernel's grid: about one item per consumer
  // thread.
  if (s.cooperativeCtas)
    s.chunkRows = cooperativeChunkRows(
        features, dimSize(op.getType(), 1, dynamicSize), s.cooperativeCtas);
  s.numChunks = llvm::divideCeilSigned<int64_t>(features, s.chunkRows);
  return s;
}

SingleLaunchTiling mlir::sigreg::chooseSingleLaunchTiling(
    FusedEcfOp op, const EcfScheduleOptions &options, int64_t dynamicSize) {
  Type in = op.getInput().getType();
  int64_t numViews = dimSize(in, 0, dynamicSize),
          batch = dimSize(in, 1, dynamicSize),
          featureDim = dimSize(in, 2, dynamicSize);
  int64_t numSlices = dimSize(op.getCos().getType(), 1, dynamicSize),
          numPoints = dimSize(op.getCos().getType(), 2, dynamicSize);
  bool seeded = bool(op.getProjection().getDefiningOp<ProjectionOp>());
  Type element = getElementTypeOrSelf(in);
  auto blocks = [&](int64_t rows, int64_t slices) {
    return numViews * llvm::divideCeilSigned<int64_t>(batch, rows) *
           llvm::divideCeilSigned<int64_t>(numSlices, slices);
  };
  // --block-rows / --block-slices, when given, override the rule's tile
  // (the verifier then checks it).
  auto pick = [](int64_t option, int64_t rule) {
    return option ? option : rule;
  };
  // --single-launch-warps: as requested where the kernel can, else the
  // rule's.
  auto warpsFor = [&](ProjectionMode projection) {
    int64_t warps = pick(options.singleLaunchWarps, kSingleLaunchWarps);
    return singleLaunchWarpsObstacle(op, projection, warps).empty()
               ? warps
               : kSingleLaunchWarps;
  };
  if (seeded && options.tensorCores && !element.isF32()) {
    // The batch in one tile, halved while the grid would still hold at
    // most half a block per multiprocessor and the halved tile still has a
    // GEMM of rows x D >= 32768 per slice: each batch tile generates its g
    // again, which pays only where the blocks' GEMM is what a small grid
    // waits for (N = 256, D = 1024, S = 256: 32 blocks of 256 rows 20.3 us,
    // 128 blocks of 64 rows 13.1, 256 of 32 rows 14.9; minimal's 128 blocks
    // of 256 rows 8.1 against 10.2 in 256 blocks of 128; docs/PERF-NOTES.md
    // n6).
    // A training step keeps the batch in one tile (singleLaunchStep).
    bool step = singleLaunchStep(op).has_value();
    int64_t rule = std::clamp<int64_t>(llvm::PowerOf2Ceil(batch), 16, 256);
    while (!step && rule > 16 && 2 * blocks(rule, 8) <= kMultiprocessors &&
           rule / 2 * featureDim >= kSingleLaunchSplitGemm)
      rule /= 2;
    int64_t rows = pick(options.blockRows, rule);
    int64_t slices =
        pick(options.blockSlices, rows <= 128 && numPoints <= 32 &&
                                          blocks(rows, 16) >= kTargetBlocks / 2
                                      ? 16
                                      : 8);
    ProjectionMode projection = singleLaunchNeedsSplit(op)
                                    ? ProjectionMode::split
                                    : ProjectionMode::rounded;
    return {rows, slices, projection, warpsFor(projection)};
  }
  int64_t rows = pick(options.blockRows,
                      std::clamp<int64_t>(llvm::PowerOf2Ceil(batch), 8, 256));
  int64_t slices = 16;
  while (slices > 1 && (rows * slices > 1024 || featureDim * slices > 8192 ||
                        16 * slices * numPoints > 8192 ||
                        blocks(rows, slices) < kTargetBlocks / 2))
    slices /= 2;
  slices = pick(options.blockSlices, slices);
  ProjectionMode projection =
      seeded ? ProjectionMode::f32 : ProjectionMode::explicit_;
  return {rows, slices, projection, warpsFor(projection)};
}

bool mlir::sigreg::promotesAccumulators(const EcfSchedule &s) {
  if (!s.tensorCores)
    return false;
  if (!s.wgmma)
    return true;
  return !s.wgmmaPersistent && s.blockRows == kWgmmaTileRows &&
         (s.blockSlices == kWgmmaPromoteSlices ||
          s.blockSlices == kWgmmaPromoteWideSlices);
}

std::string mlir::sigreg::singleLaunchWarpsObstacle(FusedEcfOp op,
                                                    ProjectionMode projection,
                                                    int64_t warps) {
  if (warps != 4 && warps != 8 && warps != 16)
    return llvm::formatv("needs warps = 4, 8 or 16, got {0}", warps);
  if (warps == 8)
    return "";
  if (!singleLaunchUsesMma(projection))
    return llvm::formatv("with warps = {1} needs the tensor-core GEMM "
                         "(projection = rounded or split), got projection = "
                         "{0}",
                         stringifyProjectionMode(projection), warps);
  int64_t points = op.getCos().getType().getDimSize(2);
  if (warps == 16 && points > kSingleLaunchWideMaxPoints)
    return llvm::formatv("with warps = 16 needs P <= {0} (the ECF sums "
                         "within 128 registers per thread), got P = {1}",
                         kSingleLaunchWideMaxPoints, points);
  return "";
}

bool mlir::sigreg::usesSingleLaunch(FusedEcfOp op,
                                    const EcfScheduleOptions &options,
                                    int64_t dynamicSize) {
  if (options.singleLaunch == 0 ||
      !singleLaunchObstacle(op, dynamicSize).empty())
    return false;
  // A training step's backward GEMM runs on the Hopper kernels, and its G
  // comes from the tensor-core single launch.
  if (singleLaunchStep(op) && (!options.hopper || !options.tensorCores))
    return false;
  if (options.singleLaunch >= 2)
    return true;
  Type in = op.getInput().getType();
  int64_t views = dimSize(in, 0, dynamicSize),
          batch = dimSize(in, 1, dynamicSize),
          features = dimSize(in, 2, dynamicSize);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  return batch <= 256 &&
         views * batch * features * slices <= (int64_t(1) << 28);
}

//===----------------------------------------------------------------------===//
// The schedule as IR
//===----------------------------------------------------------------------===//

ScheduleAttr
mlir::sigreg::chooseScheduleAttr(FusedEcfOp op,
                                 const EcfScheduleOptions &options) {
  MLIRContext *ctx = op.getContext();
  bool seeded = bool(op.getProjection().getDefiningOp<ProjectionOp>());
  auto in = op.getInput().getType();
  if (usesSingleLaunch(op, options)) {
    SingleLaunchTiling t = chooseSingleLaunchTiling(op, options);
    return ScheduleAttr::get(
        ctx, KernelKind::single_launch, t.blockRows, t.blockSlices, 16,
        llvm::divideCeilSigned<int64_t>(in.getDimSize(1), t.blockRows),
        t.projection, /*cluster=*/1, t.warps, /*promote=*/0);
  }
  EcfSchedule s = chooseEcfSchedule(op, options);
  KernelKind kind = s.wgmma ? (s.wgmmaPersistent ? KernelKind::wgmma_persistent
                                                 : KernelKind::wgmma)
                    : s.tensorCores ? KernelKind::mma
                                    : KernelKind::simt;
  ProjectionMode projection = !seeded                ? ProjectionMode::explicit_
                              : !s.tensorCores       ? ProjectionMode::f32
                              : s.splitProjection    ? ProjectionMode::split
                              : s.generateProjection ? ProjectionMode::generated
                              : s.cooperativeProjection
                                  ? ProjectionMode::cooperative
                                  : ProjectionMode::rounded;
  return ScheduleAttr::get(ctx, kind, s.blockRows, s.blockSlices, s.tileK,
                           s.numBatchTiles, projection, s.cluster,
                           kSingleLaunchWarps, s.promoteKTiles);
}

EcfSchedule mlir::sigreg::getEcfSchedule(FusedEcfOp op, ScheduleAttr attr) {
  EcfSchedule s;
  KernelKind kind = attr.getKernel();
  s.wgmma = kind == KernelKind::wgmma || kind == KernelKind::wgmma_persistent;
  s.wgmmaPersistent = kind == KernelKind::wgmma_persistent;
  s.tensorCores = s.wgmma || kind == KernelKind::mma;
  s.splitProjection = attr.getProjection() == ProjectionMode::split;
  s.generateProjection = attr.getProjection() == ProjectionMode::generated;
  s.cooperativeProjection = attr.getProjection() == ProjectionMode::cooperative;
  s.blockRows = attr.getRows();
  s.blockSlices = attr.getSlices();
  s.tileK = attr.getKTile();
  s.numBatchTiles = attr.getBatchTiles();
  s.numSliceTiles = llvm::divideCeilSigned<int64_t>(
      op.getCos().getType().getDimSize(1), s.blockSlices);
  s.cluster = attr.getCluster();
  s.promoteKTiles = attr.getPromote();
  return s;
}

EcfSchedule mlir::sigreg::getOrChooseEcfSchedule(
    FusedEcfOp op, const EcfScheduleOptions &options, int64_t dynamicSize) {
  if (ScheduleAttr attr = op.getScheduleAttr())
    return getEcfSchedule(op, attr);
  return chooseEcfSchedule(op, options, dynamicSize);
}

/// Shared memory of the SIMT kernel's tiles (x, g, the two reduction
/// buffers, the norms) with a k tile of depth `k`.
static int64_t simtSharedBytes(int64_t rows, int64_t slices, int64_t k) {
  return 4 * (k * (rows + 1) + k * slices + 2 * 16 * slices + slices);
}

LogicalResult
mlir::sigreg::verifySchedule(FusedEcfOp op, ScheduleAttr attr,
                             function_ref<InFlightDiagnostic()> emitError) {
  KernelKind kind = attr.getKernel();
  StringRef name = stringifyKernelKind(kind);
  int64_t rows = attr.getRows(), slices = attr.getSlices(), k = attr.getKTile();
  auto in = op.getInput().getType();
  auto cos = op.getCos().getType();
  int64_t batch = in.getDimSize(1), features = in.getDimSize(2),
          numSlices = cos.getDimSize(1), points = cos.getDimSize(2);
  auto fail = [&]() {
    InFlightDiagnostic diag = emitError();
    diag << "schedule kernel = " << name << " ";
    return diag;
  };
  auto isPow2In = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi && llvm::isPowerOf2_64(v);
  };

  // Only the one-tile Hopper kernel stores the slices.
  if (op.getSlices() && kind != KernelKind::wgmma)
    return fail() << "does not store the slices result (only kernel = "
                     "wgmma does)";

  // How the projection is read.
  ProjectionMode projection = attr.getProjection();
  bool seeded = bool(op.getProjection().getDefiningOp<ProjectionOp>());
  if (!seeded && projection != ProjectionMode::explicit_)
    return emitError() << "schedule projection = "
                       << stringifyProjectionMode(projection)
                       << " needs a seeded sigreg.projection operand; an "
                          "explicit projection has projection = explicit";
  if (seeded && projection == ProjectionMode::explicit_)
    return emitError() << "schedule projection = explicit, but the projection "
                          "operand is a seeded sigreg.projection (f32, split "
                          "or rounded)";
  // Generated by the kernel itself: read as rounded, by the 64-slice Hopper
  // tile (the checks below, then its own).
  bool generated = projection == ProjectionMode::generated;
  if (generated) {
    if (kind != KernelKind::wgmma || rows != kWgmmaTileRows ||
        slices != kWgmmaGenerateSlices)
      return fail() << "with projection = generated needs kernel = wgmma "
                       "with tile = [128, 64], got tile = ["
                    << rows << ", " << slices << "]";
    std::string why = wgmmaGenerateObstacle(op, attr.getCluster(),
                                            /*dynamicSize=*/1);
    if (!why.empty())
      return fail() << "with projection = generated " << why;
    projection = ProjectionMode::rounded;
  }
  // Generated by the one-tile kernel's grid: read as rounded (its own
  // checks at the end, once the tile is known to be valid).
  bool cooperative = projection == ProjectionMode::cooperative;
  if (cooperative)
    projection = ProjectionMode::rounded;
  if (seeded) {
    ProjectionMode expected = projection;
    // The tensor-core kernels read g split or rounded to 16 bits; the
    // Hopper kernel splits it always for an f32 input.
    // The single launch reads it in f32 (SIMT) or, for a 16-bit input, on
    // tensor cores like the mma kernel.
    bool sixteenBit = !getElementTypeOrSelf(in).isF32();
    bool splitOnly = kind != KernelKind::mma &&
                     kind != KernelKind::single_launch && wgmmaSplitsInput(op);
    if (kind == KernelKind::simt ||
        (kind == KernelKind::single_launch && !sixteenBit))
      expected = ProjectionMode::f32;
    else if (kind != KernelKind::single_launch &&
             (splitOnly || projection == ProjectionMode::f32))
      expected = ProjectionMode::split;
    if (projection != expected)
      return fail() << "reads a seeded projection as projection = "
                    << stringifyProjectionMode(expected)
                    << (expected == ProjectionMode::split && !splitOnly
                            ? " or rounded"
                            : "")
                    << (kind == KernelKind::single_launch
                            ? " (rounded and split need a bf16 or f16 input)"
                            : "")
                    << ", got projection = "
                    << stringifyProjectionMode(attr.getProjection());
    if (projection == ProjectionMode::rounded &&
        (kind == KernelKind::single_launch ? singleLaunchNeedsSplit(op)
                                           : needsSplitProjection(op)))
      return fail() << "with projection = "
                    << stringifyProjectionMode(attr.getProjection())
                    << ": this op needs the hi + lo split (per-slice "
                       "statistics, or a rounding error above the budget); "
                       "use projection = split";
  }

  // The kernel's own rules and tiles. The Hopper kernels: wgmmaObstacle's,
  // then the tile's own (`tileObstacle`).
  std::string obstacle;
  auto hopperObstacle = [&](function_ref<std::string()> tileObstacle) {
    std::string why = wgmmaObstacle(op, slices, /*dynamicSize=*/1);
    return why.empty() ? tileObstacle() : why;
  };
  bool transposedTile =
      rows == kWgmmaTransposedRows && slices == kWgmmaTransposedSlices;
  switch (kind) {
  case KernelKind::simt:
    if (!llvm::is_contained({16, 32, 64}, rows) ||
        !llvm::is_contained({16, 32, 64}, slices))
      return fail() << "needs tile rows and slices of 16, 32 or 64, got ["
                    << rows << ", " << slices << "]";
    if (!isPow2In(k, 16, 128))
      return fail() << "needs k_tile = 16, 32, 64 or 128, got " << k;
    if (k > 16 && simtSharedBytes(rows, slices, k) > 40 * 1024)
      return fail() << "with k_tile = " << k << " needs "
                    << simtSharedBytes(rows, slices, k)
                    << " bytes of shared memory, above 40 KB";
    break;
  case KernelKind::mma:
    obstacle = mmaObstacle(op);
    if (obstacle.empty() && (rows != kMmaRows || slices != kMmaSlices))
      return fail() << "needs tile = [" << kMmaRows << ", " << kMmaSlices
                    << "], got [" << rows << ", " << slices << "]";
    break;
  case KernelKind::wgmma:
    if (transposedTile) {
      obstacle = hopperObstacle(
          [&] { return wgmmaTransposedObstacle(op, /*dynamicSize=*/1); });
      break;
    }
    if (rows != kWgmmaTileRows || !llvm::is_contained({64, 128, 256}, slices))
      return fail() << "needs tile = [128, 256], [128, 128], [128, 64] or "
                       "[256, 128], got ["
                    << rows << ", " << slices << "]";
    obstacle = wgmmaObstacle(op, slices, /*dynamicSize=*/1);
    break;
  case KernelKind::wgmma_persistent:
    if (transposedTile) {
      obstacle = hopperObstacle(
          [&] { return persistentTransposedObstacle(op, /*dynamicSize=*/1); });
      break;
    }
    if (rows != kWgmmaTileRows || slices != kWgmmaPingPongSlices)
      return fail() << "needs tile = [128, " << kWgmmaPingPongSlices
                    << "] (the ping-pong kernel) or [" << kWgmmaTransposedRows
                    << ", " << kWgmmaTransposedSlices
                    << "] (the transposed kernel), got [" << rows << ", "
                    << slices << "]";
    obstacle = hopperObstacle(
        [&] { return wgmmaPersistentObstacle(op, /*dynamicSize=*/1); });
    break;
  case KernelKind::single_launch:
    obstacle = singleLaunchObstacle(op, /*dynamicSize=*/1);
    if (!obstacle.empty())
      break;
    if (singleLaunchStep(op) && !singleLaunchUsesMma(projection))
      return fail() << "as a training step needs the tensor cores' "
                       "projection = rounded or split (the backward GEMM reads "
                       "the g it writes), got projection = "
                    << stringifyProjectionMode(projection);
    if (singleLaunchStep(op) && !ShapedType::isDynamic(batch) && rows < batch)
      return fail() << "as a training step needs the batch in one tile "
                       "(rows >= N = "
                    << batch << "), got rows = " << rows;
    if (singleLaunchUsesMma(projection)) {
      if (!isPow2In(rows, 16, 256) || (slices != 8 && slices != 16) ||
          rows * slices > 2048)
        return fail() << "with projection = "
                      << stringifyProjectionMode(projection)
                      << " (tensor cores) needs tile rows a power of two in "
                         "[16, 256], slices 8 or 16 and rows * slices <= "
                         "2048, got ["
                      << rows << ", " << slices << "]";
      if (16 * slices * points > 8192)
        return fail() << "with " << slices
                      << " slices per block needs 16 * slices * P <= 8192 "
                         "(32 KB of shared memory), got P = "
                      << points;
      break;
    }
    if (!isPow2In(rows, 8, 256) || !isPow2In(slices, 1, 16) ||
        rows * slices > 1024)
      return fail() << "needs tile rows a power of two in [8, 256], slices a "
                       "power of two in [1, 16] and rows * slices <= 1024, "
                       "got ["
                    << rows << ", " << slices << "]";
    if (features * slices > 8192 || 16 * slices * points > 8192)
      return fail() << "with " << slices
                    << " slices per block needs D * slices <= 8192 and 16 * "
                       "slices * P <= 8192 (32 KB of shared memory), got D = "
                    << features << ", P = " << points;
    break;
  }
  if (!obstacle.empty())
    return fail() << obstacle;
  if (kind != KernelKind::simt && k != 16)
    return fail() << "needs k_tile = 16 (deeper k tiles are for kernel = "
                     "simt), got "
                  << k;
  if (!ShapedType::isDynamic(batch) &&
      attr.getBatchTiles() != llvm::divideCeilSigned<int64_t>(batch, rows))
    return emitError() << "schedule batch_tiles = " << attr.getBatchTiles()
                       << " does not match ceil(N / rows) = "
                       << llvm::divideCeilSigned<int64_t>(batch, rows)
                       << " (N = " << batch << ", rows = " << rows << ")";
  int64_t promote = attr.getPromote();
  if (promote < 0)
    return fail() << "needs promote >= 0, got " << promote;
  if (promote > 0) {
    EcfSchedule s;
    s.wgmma = kind == KernelKind::wgmma || kind == KernelKind::wgmma_persistent;
    s.wgmmaPersistent = kind == KernelKind::wgmma_persistent;
    s.tensorCores = s.wgmma || kind == KernelKind::mma;
    s.blockRows = rows;
    s.blockSlices = slices;
    if (!promotesAccumulators(s))
      return fail() << "with tile = [" << rows << ", " << slices
                    << "] does not promote its sums (promote is for kernel = "
                       "mma and for kernel = wgmma with tile = [128, 64] or "
                       "[128, 128]), "
                       "got promote = "
                    << promote;
  }
  int64_t warps = attr.getWarps();
  if (warps != kSingleLaunchWarps && kind != KernelKind::single_launch)
    return fail() << "does not take warps (only kernel = single_launch "
                     "does), got warps = "
                  << warps;
  if (kind == KernelKind::single_launch) {
    std::string why =
        singleLaunchWarpsObstacle(op, attr.getProjection(), warps);
    if (!why.empty())
      return fail() << why;
  }
  int64_t cluster = attr.getCluster();
  if (cluster != 1) {
    if (kind != KernelKind::wgmma && kind != KernelKind::wgmma_persistent)
      return fail() << "does not run clusters (only kernel = wgmma and "
                       "wgmma_persistent do), got cluster = "
                    << cluster;
    if (!generated && !isWgmmaClusterSize(cluster))
      return fail() << "needs cluster = 1, 2 or 4, got " << cluster;
    if (kind == KernelKind::wgmma_persistent && rows == kWgmmaTransposedRows)
      return fail() << "with tile = [" << rows << ", " << slices
                    << "] runs no clusters (its CTAs keep one slice tile "
                       "each), got cluster = "
                    << cluster;
    std::string why =
        generated ? ""
        : kind == KernelKind::wgmma_persistent && rows == kWgmmaTileRows
            ? pingPongClusterObstacle(cluster, attr.getBatchTiles())
            : wgmmaClusterObstacle(cluster, slices, attr.getBatchTiles());
    if (!why.empty())
      return fail() << why;
  }
  if (cooperative) {
    std::string why = wgmmaCooperativeObstacle(op, getEcfSchedule(op, attr),
                                               /*dynamicSize=*/1);
    if (!why.empty())
      return fail() << "with projection = cooperative " << why;
  }
  (void)numSlices;
  return success();
}

std::optional<SingleLaunchStep> mlir::sigreg::singleLaunchStep(FusedEcfOp op) {
  if (op.getSlices())
    return std::nullopt;
  SingleLaunchStep step;
  // The readers of the means: two one-rank all_reduce_means of both.
  SmallVector<AllReduceMeanOp, 2> means;
  for (Value mean : {op.getCos(), op.getSin()})
    for (Operation *user : mean.getUsers()) {
      auto ar = dyn_cast<AllReduceMeanOp>(user);
      if (!ar || ar.getWorldSize() != 1 || ar.getCos() != op.getCos() ||
          ar.getSin() != op.getSin())
        return std::nullopt;
      if (!llvm::is_contained(means, ar))
        means.push_back(ar);
    }
  // The loss's chain and the backward's, or (sigreg.loss_grad alone) the
  // backward's only.
  if (means.empty() || means.size() > 2)
    return std::nullopt;
  // The only reader of both of a value's results.
  auto soleUser = [](Value a, Value b) -> Operation * {
    if (!a.hasOneUse() || !b.hasOneUse() ||
        *a.getUsers().begin() != *b.getUsers().begin())
      return nullptr;
    return *a.getUsers().begin();
  };
  for (AllReduceMeanOp ar : means) {
    Operation *user = soleUser(ar.getCosGlobal(), ar.getSinGlobal());
    if (auto epi = dyn_cast_if_present<FusedEpilogueOp>(user);
        epi && epi.getCos() == ar.getCosGlobal()) {
      step.lossMean = ar;
      step.epilogue = epi;
    } else if (auto cot = dyn_cast_if_present<EcfCotangentOp>(user);
               cot && cot.getCos() == ar.getCosGlobal()) {
      step.gradMean = ar;
      step.cotangent = cot;
    }
  }
  if (!step.cotangent || (means.size() == 2 && !step.epilogue))
    return std::nullopt;
  // The kernel reads the loss's cotangent, so it must exist where the
  // forward runs (the loss_grad's decomposition puts its reshape first; the
  // conversion moves such pure definitions before the forward; anything
  // else formed after the forward keeps the backward's own launches).
  if (!availableBefore(step.cotangent.getGrad(), op))
    return std::nullopt;
  step.backward = dyn_cast_if_present<FusedEcfBackwardOp>(
      soleUser(step.cotangent.getDcos(), step.cotangent.getDsin()));
  if (!step.backward || step.backward.getSlices() ||
      step.backward.getInput() != op.getInput() ||
      step.backward.getProjection() != op.getProjection() ||
      step.backward.getDcos() != step.cotangent.getDcos())
    return std::nullopt;
  Value projection = op.getProjection();
  if (projection.getDefiningOp<ProjectionOp>() &&
      !readByOpAndBackward(projection, op))
    return std::nullopt;
  return step;
}

/// availableBefore to a depth of `depth` definitions.
static bool availableBefore(Value value, Operation *op,
                            const DominanceInfo &dom, int depth) {
  if (dom.properlyDominates(value, op))
    return true;
  // A value computed from `op`'s own results never is.
  Operation *def = value.getDefiningOp();
  if (!def || def == op || depth == 0 || def->getBlock() != op->getBlock() ||
      def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) {
    return availableBefore(v, op, dom, depth - 1);
  });
}

bool mlir::sigreg::availableBefore(Value value, Operation *op) {
  return ::availableBefore(value, op, DominanceInfo(op->getParentOp()),
                           /*depth=*/4);
}

void mlir::sigreg::moveBefore(RewriterBase &rewriter, Value value,
                              Operation *op) {
  Operation *def = value.getDefiningOp();
  if (!def || DominanceInfo(op->getParentOp()).properlyDominates(value, op))
    return;
  for (Value operand : def->getOperands())
    moveBefore(rewriter, operand, op);
  rewriter.moveOpBefore(def, op);
}

FusedEpilogueOp mlir::sigreg::foldableEpilogue(FusedEcfOp op) {
  auto ar = dyn_cast_if_present<AllReduceMeanOp>(
      op.getCos().hasOneUse() ? *op.getCos().getUsers().begin() : nullptr);
  if (!ar || ar.getWorldSize() != 1 || !op.getSin().hasOneUse() ||
      *op.getSin().getUsers().begin() != ar.getOperation() ||
      ar.getCos() != op.getCos() || ar.getSin() != op.getSin())
    return {};
  auto epi = dyn_cast_if_present<FusedEpilogueOp>(
      ar.getCosGlobal().hasOneUse() ? *ar.getCosGlobal().getUsers().begin()
                                    : nullptr);
  if (!epi || !ar.getSinGlobal().hasOneUse() ||
      *ar.getSinGlobal().getUsers().begin() != epi.getOperation() ||
      epi.getCos() != ar.getCosGlobal() || epi.getSin() != ar.getSinGlobal())
    return {};
  return epi;
}
