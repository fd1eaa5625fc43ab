//===- EcfSchedule.cpp - schedule decisions of the fused ECF --------------===//

#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::sigreg;

namespace {

/// Size of dimension `i` of `type`, `dynamicSize` standing for a dynamic one.
int64_t dimSize(Type type, unsigned i, int64_t dynamicSize) {
  int64_t d = cast<ShapedType>(type).getDimSize(i);
  return ShapedType::isDynamic(d) ? dynamicSize : d;
}
} // namespace

bool mlir::sigreg::usesTensorCores(FusedEcfOp op,
                                   const EcfScheduleOptions &options,
                                   int64_t dynamicSize) {
  Type in = op.getInput().getType();
  Type e = getElementTypeOrSelf(in);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  int64_t blocks =
      dimSize(in, 0, dynamicSize) *
      llvm::divideCeilSigned<int64_t>(dimSize(in, 1, dynamicSize), kMmaRows) *
      llvm::divideCeilSigned<int64_t>(slices, kMmaSlices);
  return options.tensorCores && (e.isBF16() || e.isF16()) &&
         blocks >= kTargetBlocks / 4;
}

WgmmaTiling mlir::sigreg::getWgmmaTiling(int64_t tileSlices, bool persistent) {
  if (tileSlices == 128)
    return {128, 3, 2, 288, 0, 0, false};
  if (persistent)
    return {256, 2, 1, 384, 40, 232, true};
  return {256, 4, 1, 384, 40, 232, false};
}

bool mlir::sigreg::usesWgmma(FusedEcfOp op, const EcfScheduleOptions &options,
                             int64_t dynamicSize) {
  Type in = op.getInput().getType();
  Type e = getElementTypeOrSelf(in);
  if (!options.tensorCores || !options.hopper || !(e.isBF16() || e.isF16()))
    return false;
  int64_t features = dimSize(in, 2, dynamicSize);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  if (features % 8 != 0 || slices % 8 != 0)
    return false;
  // The 128-slice tile adds its two row halves through a [2 (P - 1)][128]
  // f32 buffer over its 64 KB y tile.
  int64_t points = dimSize(op.getCos().getType(), 2, dynamicSize);
  if (options.wgmmaSlices == 128 && points > 65)
    return false;
  Value projection = op.getProjection();
  if (projection.getDefiningOp<ProjectionOp>()) {
    if (!projection.hasOneUse() || needsSplitProjection(op))
      return false;
  } else if (getElementTypeOrSelf(projection.getType()) != e) {
    return false;
  }
  int64_t tiles =
      dimSize(in, 0, dynamicSize) *
      llvm::divideCeilSigned<int64_t>(dimSize(in, 1, dynamicSize),
                                      kWgmmaTileRows) *
      llvm::divideCeilSigned<int64_t>(
          slices, options.wgmmaSlices ? options.wgmmaSlices : kWgmmaTileSlices);
  return tiles >= kTargetBlocks / 2;
}

double mlir::sigreg::roundedProjectionError(FusedEcfOp op) {
  auto in = op.getInput().getType();
  auto cos = op.getCos().getType();
  if (!in.hasStaticShape() || !cos.hasStaticShape())
    return std::numeric_limits<double>::infinity();
  Type e = in.getElementType();
  // Unit roundoff of the 16-bit type g is rounded to.
  double u = e.isBF16()  ? std::ldexp(1.0, -8)
             : e.isF16() ? std::ldexp(1.0, -11)
                         : std::ldexp(1.0, -24);
  double V = in.getDimSize(0), N = in.getDimSize(1), D = in.getDimSize(2),
         S = cos.getDimSize(1);
  // The ECF averages over every rank's batch.
  int64_t worldSize = 1;
  for (Operation *user : op->getUsers())
    if (auto ar = dyn_cast<AllReduceMeanOp>(user))
      worldSize = std::max<int64_t>(worldSize, ar.getWorldSize());
  return u * std::sqrt(N * static_cast<double>(worldSize) / D) /
         std::sqrt(V * S);
}

bool mlir::sigreg::needsSplitProjection(FusedEcfOp op) {
  for (Operation *user : op->getUsers()) {
    auto ar = dyn_cast<AllReduceMeanOp>(user);
    if (!ar)
      return true;
    for (Operation *next : ar->getUsers()) {
      auto epi = dyn_cast<FusedEpilogueOp>(next);
      if (!epi || epi.getReduction() == Reduction::none)
        return true;
    }
  }
  // Reduced over the slices: g rounded to 16 bits only where the error
  // bound leaves room for the rest of the tolerance.
  return roundedProjectionError(op) > kRoundedProjectionErrorBudget;
}

EcfSchedule mlir::sigreg::chooseEcfSchedule(FusedEcfOp op,
                                            const EcfScheduleOptions &options,
                                            int64_t dynamicSize) {
  Type in = op.getInput().getType();
  int64_t numViews = dimSize(in, 0, dynamicSize);
  int64_t batch = dimSize(in, 1, dynamicSize);
  int64_t numSlices = dimSize(op.getCos().getType(), 1, dynamicSize);

  EcfSchedule s;
  s.wgmma = usesWgmma(op, options, dynamicSize);
  s.wgmmaPersistent = s.wgmma && options.wgmmaPersistent &&
                      options.wgmmaSlices != 128 &&
                      dimSize(op.getCos().getType(), 2, dynamicSize) <=
                          kWgmmaPersistentMaxPoints;
  s.tensorCores = s.wgmma || usesTensorCores(op, options, dynamicSize);
  // Only a seeded projection is split; an explicit one has the input's
  // 16-bit type already.
  s.splitProjection = s.tensorCores && !s.wgmma &&
                      op.getProjection().getDefiningOp<ProjectionOp>() &&
                      needsSplitProjection(op);
  // Tile choice: rows by batch size, slices shrunk until the grid has about
  // two blocks per multiprocessor.
  if (s.wgmma) {
    s.blockRows = kWgmmaTileRows;
    s.blockSlices =
        options.wgmmaSlices ? options.wgmmaSlices : kWgmmaTileSlices;
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
  if (!s.blockSlices) {
    s.blockSlices = 64;
    while (s.blockSlices > 16 &&
           numViews * s.numBatchTiles *
                   llvm::divideCeilSigned<int64_t>(numSlices, s.blockSlices) <
               kTargetBlocks)
      s.blockSlices /= 2;
  }
  s.numSliceTiles = llvm::divideCeilSigned<int64_t>(numSlices, s.blockSlices);
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

int64_t mlir::sigreg::projectionChunkRows(int64_t requested, bool packedPairs) {
  return packedPairs && requested % 2 ? requested + 1 : requested;
}

ProjectionSchedule mlir::sigreg::chooseProjectionSchedule(
    ProjectionOp op, const EcfScheduleOptions &options, int64_t dynamicSize) {
  ProjectionSchedule s{Type(), false, false, 0, 0};
  for (Operation *user : op->getUsers()) {
    auto ecf = dyn_cast<FusedEcfOp>(user);
    if (!ecf)
      continue;
    if (usesWgmma(ecf, options, dynamicSize)) {
      // The only consumer (usesWgmma checks it).
      s.packedElement = getElementTypeOrSelf(ecf.getInput().getType());
      s.rowMajor = true;
    } else if (usesTensorCores(ecf, options, dynamicSize)) {
      s.packedElement = getElementTypeOrSelf(ecf.getInput().getType());
      s.splitProjection |= needsSplitProjection(ecf);
    }
  }
  s.chunkRows = projectionChunkRows(options.projectionChunk,
                                    s.packedElement && !s.rowMajor);
  s.numChunks = llvm::divideCeilSigned<int64_t>(
      dimSize(op.getType(), 0, dynamicSize), s.chunkRows);
  return s;
}

SingleLaunchTiling mlir::sigreg::chooseSingleLaunchTiling(int64_t numViews,
                                                          int64_t batch,
                                                          int64_t featureDim,
                                                          int64_t numSlices,
                                                          int64_t numPoints) {
  int64_t rows = std::clamp<int64_t>(llvm::PowerOf2Ceil(batch), 8, 128);
  int64_t batchTiles = llvm::divideCeilSigned<int64_t>(batch, rows);
  int64_t slices = 16;
  while (slices > 1 &&
         (rows * slices > 256 || featureDim * slices > 8192 ||
          16 * slices * numPoints > 8192 ||
          numViews * batchTiles *
                  llvm::divideCeilSigned<int64_t>(numSlices, slices) <
              kTargetBlocks / 2))
    slices /= 2;
  return {rows, slices};
}

bool mlir::sigreg::usesSingleLaunch(FusedEcfOp op,
                                    const EcfScheduleOptions &options,
                                    int64_t dynamicSize) {
  if (options.singleLaunch == 0)
    return false;
  // The chain: ecf -> all_reduce_mean (one rank) -> fused_epilogue.
  auto ar = dyn_cast_if_present<AllReduceMeanOp>(
      op.getCos().hasOneUse() ? *op.getCos().getUsers().begin() : nullptr);
  if (!ar || ar.getWorldSize() != 1 || !op.getSin().hasOneUse() ||
      *op.getSin().getUsers().begin() != ar.getOperation() ||
      ar.getCos() != op.getCos() || ar.getSin() != op.getSin())
    return false;
  auto epi = dyn_cast_if_present<FusedEpilogueOp>(
      ar.getCosGlobal().hasOneUse() ? *ar.getCosGlobal().getUsers().begin()
                                    : nullptr);
  if (!epi || !ar.getSinGlobal().hasOneUse() ||
      *ar.getSinGlobal().getUsers().begin() != epi.getOperation() ||
      epi.getCos() != ar.getCosGlobal() || epi.getSin() != ar.getSinGlobal())
    return false;
  Value projection = op.getProjection();
  if (auto proj = projection.getDefiningOp<ProjectionOp>()) {
    if (!projection.hasOneUse())
      return false;
  } else if (!isa<BlockArgument>(projection)) {
    return false;
  }
  Type in = op.getInput().getType();
  int64_t views = dimSize(in, 0, dynamicSize),
          batch = dimSize(in, 1, dynamicSize),
          features = dimSize(in, 2, dynamicSize);
  int64_t slices = dimSize(op.getCos().getType(), 1, dynamicSize);
  int64_t points = dimSize(op.getCos().getType(), 2, dynamicSize);
  if (features > 8192 || points > 64 || batch < 1)
    return false;
  if (options.singleLaunch >= 2)
    return true;
  return batch <= 256 &&
         views * batch * features * slices <= (int64_t(1) << 28);
}
