//===- SigregToGPU.cpp - fused sigreg ops -> GPU kernels + host code ------===//
//
// Rewrites each function holding fused sigreg ops into host code on memrefs
// that launches the kernels declared in Kernels.h (one file per kernel family:
// ProjectionKernels, SimtEcfKernel, MmaEcfKernel, WgmmaEcfKernel,
// SingleLaunchKernel, EpilogueKernels). The host side is bufferized here
// directly (the op set is small and closed): tensor arguments become memref
// arguments, tensor results become trailing out-parameters that the last
// kernel writes in place when it can, and intermediates become memref.alloc
// workspaces. Anything else is rejected with an error at its location.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Conversion/Passes.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_CONVERTSIGREGTOGPU
#include "sigreg/Conversion/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {

EcfScheduleOptions scheduleOptions(const ConvertSigregToGPUOptions &options) {
  EcfScheduleOptions o;
  o.blockRows = options.blockRows;
  o.blockSlices = options.blockSlices;
  o.projectionChunk = options.projectionChunk;
  o.tensorCores = options.tensorCores;
  o.hopper = options.hopper;
  o.wgmmaSlices = options.wgmmaSlices;
  o.wgmmaPersistent = options.wgmmaPersistent;
  o.singleLaunch = options.singleLaunch;
  return o;
}

MemRefType toMemref(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The problem dimensions of `ecf` (views, batch, features, slices, points,
/// t_max, input type) into a kernel shape that has these fields.
template <typename Shape> void fillEcfProblem(FusedEcfOp ecf, Shape &sh) {
  auto inType = ecf.getInput().getType();
  auto cType = ecf.getCos().getType();
  sh.numViews = inType.getDimSize(0);
  sh.batch = inType.getDimSize(1);
  sh.featureDim = inType.getDimSize(2);
  sh.numSlices = cType.getDimSize(1);
  sh.numPoints = cType.getDimSize(2);
  sh.tMax = ecf.getTMax().convertToDouble();
  sh.inputElement = inType.getElementType();
}

/// Lowers one function. Values of the old (tensor) body map to values of the
/// new (memref) body.
class FunctionLowering {
public:
  FunctionLowering(func::FuncOp func, gpu::GPUModuleOp kernels,
                   const ConvertSigregToGPUOptions &options)
      : oldFunc(func), kernels(kernels), schedule(scheduleOptions(options)),
        kernelTable(kernels) {}

  LogicalResult run();

private:
  LogicalResult checkSupported();
  LogicalResult checkGridLimits(Operation *op);
  LogicalResult lowerOp(OpBuilder &b, Operation *op);
  LogicalResult lowerProjection(OpBuilder &b, ProjectionOp proj);
  LogicalResult lowerFusedEcf(OpBuilder &b, FusedEcfOp ecf,
                              FusedEpilogueOp epi = {});
  LogicalResult lowerEpilogue(OpBuilder &b, FusedEpilogueOp epi);
  LogicalResult lowerEcfCotangent(OpBuilder &b, EcfCotangentOp op);
  /// The kernel shape of a fused_epilogue or ecf_cotangent: [V, S, P], the
  /// knobs, and the global count, which must be a constant here.
  template <typename OpT> FailureOr<EpilogueKernelShape> epilogueShape(OpT op) {
    std::optional<int64_t> count =
        getConstantIntValue(map.lookup(op.getGlobalCount()));
    if (!count)
      return op.emitOpError("needs a constant global count on the GPU");
    auto cType = op.getCos().getType();
    return EpilogueKernelShape{cType.getDimSize(0),
                               cType.getDimSize(1),
                               cType.getDimSize(2),
                               op.getTMax().convertToDouble(),
                               *count,
                               op.getClip(),
                               op.getClipValue().convertToDouble(),
                               op.getReduction()};
  }
  LogicalResult lowerFusedEcfBackward(OpBuilder &b, FusedEcfBackwardOp op);
  SmallVector<Value> tensorMapArgs(OpBuilder &b, Location loc,
                                   gpu::GPUFuncOp kernel,
                                   ArrayRef<Value> buffers);
  LogicalResult lowerReturn(OpBuilder &b, func::ReturnOp ret);
  struct SeededProjection;
  LogicalResult lowerSingleLaunch(OpBuilder &b, FusedEpilogueOp epi);
  Value splitOperand(OpBuilder &b, Location loc, Value value,
                     const SplitOperandShape &shape);
  LogicalResult lowerWgmmaEcf(OpBuilder &b, FusedEcfOp ecf,
                              const EcfKernelShape &sh,
                              const SeededProjection *seeded, bool persistent,
                              FusedEpilogueOp epi);
  gpu::LaunchFuncOp finishEcf(OpBuilder &b, Location loc, FusedEcfOp ecf,
                              gpu::GPUFuncOp kernel,
                              std::array<int64_t, 3> grid, int64_t blockThreads,
                              SmallVector<Value> args, int64_t numBatchTiles,
                              int64_t dynamicSharedBytes,
                              bool sliceMajor = false,
                              ValueRange trailingArgs = {});
  Value destination(OpBuilder &b, Value result);
  /// The schedule of `ecf`: its #sigreg.schedule, else chosen from the
  /// options as --sigreg-choose-schedule would.
  EcfSchedule ecfSchedule(FusedEcfOp ecf) {
    return getOrChooseEcfSchedule(ecf, schedule);
  }
  ProjectionSchedule projectionSchedule(ProjectionOp proj) {
    return chooseProjectionSchedule(
        proj, schedule.projectionChunk,
        [&](FusedEcfOp ecf) { return ecfSchedule(ecf); });
  }
  bool runsAsSingleLaunch(FusedEcfOp ecf) {
    if (ScheduleAttr attr = ecf.getScheduleAttr())
      return attr.getKernel() == KernelKind::single_launch;
    return usesSingleLaunch(ecf, schedule);
  }
  gpu::GPUFuncOp addKernel(gpu::GPUFuncOp kernel) {
    kernelTable.insert(kernel); // renames on a clash
    return kernel;
  }

  func::FuncOp oldFunc, newFunc;
  gpu::GPUModuleOp kernels;
  /// The schedule knobs of `options` (tile sizes, projection chunk, tensor
  /// cores); the decisions themselves are made in EcfSchedule.cpp.
  EcfScheduleOptions schedule;
  SymbolTable kernelTable;
  IRMapping map;
  /// Seeded projections: raw g (f32), or packed hi/lo words for the
  /// tensor-core kernel, and the per-chunk sums of squares.
  struct SeededProjection {
    Value g, loWords, sumSq;
    int64_t chunks;
  };
  DenseMap<Value, SeededProjection> seededProjections;
  /// sigreg.ecf_cotangent ops whose work the gradient kernel of their fused
  /// backward (with saved slices) does, by that backward.
  DenseMap<Operation *, std::pair<EcfCotangentOp, EpilogueKernelShape>>
      foldedCotangents;
  /// Ops of the chains lowered as one launch (usesSingleLaunch): the
  /// projection, fused_ecf and all_reduce_mean emit nothing, the epilogue
  /// emits the launch.
  DenseMap<Operation *, FusedEcfOp> singleLaunchChain;
  /// Chains ecf -> all_reduce_mean -> fused_epilogue whose epilogue the
  /// Hopper kernel runs in its tail (WgmmaEcfShape::epilogue): the ecf and
  /// all_reduce_mean emit nothing, the epilogue emits the kernel.
  DenseMap<Operation *, FusedEcfOp> tailChain;
  SmallVector<Value> outParams;
};

/// Fails with an error at `op` when a kernel it lowers to would need a grid
/// beyond CUDA's limits (x < 2^31, y and z <= 65535 blocks).
LogicalResult FunctionLowering::checkGridLimits(Operation *op) {
  auto check = [&](StringRef kernel, int64_t x, int64_t y,
                   int64_t z) -> LogicalResult {
    if (x <= std::numeric_limits<int32_t>::max() && y <= 65535 && z <= 65535)
      return success();
    return op->emitOpError("needs a ")
           << kernel << " grid of (" << x << ", " << y << ", " << z
           << ") blocks, beyond CUDA's limits (x < 2^31, y and z <= 65535)";
  };
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (auto proj = dyn_cast<ProjectionOp>(op)) {
    if (!proj.getType().hasStaticShape())
      return success();
    ProjectionSchedule layout = projectionSchedule(proj);
    return check("projection",
                 ceilDiv(proj.getType().getDimSize(1), kBlockThreads),
                 layout.numChunks, 1);
  }
  if (auto ecf = dyn_cast<FusedEcfOp>(op)) {
    auto c = ecf.getCos().getType();
    if (!ecf.getInput().getType().hasStaticShape() || !c.hasStaticShape())
      return success();
    EcfSchedule sched = ecfSchedule(ecf);
    int64_t V = c.getDimSize(0);
    return failure(failed(check("fused ECF", sched.numSliceTiles,
                                sched.numBatchTiles, V)) ||
                   failed(check("ECF finalize",
                                ceilDiv(V * c.getDimSize(1) * c.getDimSize(2),
                                        kBlockThreads),
                                1, 1)));
  }
  if (auto bwd = dyn_cast<FusedEcfBackwardOp>(op)) {
    auto in = bwd.getInput().getType();
    if (!in.hasStaticShape())
      return success();
    int64_t V = in.getDimSize(0), N = in.getDimSize(1), D = in.getDimSize(2);
    return failure(
        failed(check("ECF gradient",
                     ceilDiv(bwd.getDcos().getType().getDimSize(1), 128),
                     ceilDiv(N, kWgmmaRows), V)) ||
        failed(check("backward GEMM", ceilDiv(D, kWgmmaTileSlices),
                     ceilDiv(V * N, kWgmmaRows), 1)));
  }
  if (auto epi = dyn_cast<FusedEpilogueOp>(op)) {
    auto c = epi.getCos().getType();
    if (!c.hasStaticShape())
      return success();
    return check("epilogue",
                 ceilDiv(c.getDimSize(0) * c.getDimSize(1), kBlockThreads), 1,
                 1);
  }
  return success();
}

LogicalResult FunctionLowering::checkSupported() {
  // The unfused backward first: its ops also use the forward's values in
  // ways the fused lowering rejects, and this is the error that explains why.
  WalkResult backward = oldFunc.walk([&](Operation *op) {
    if (!isa<EcfGradOp, ProjectTransposeOp>(op))
      return WalkResult::advance();
    op->emitOpError("has no GPU lowering in the fused pipeline: run "
                    "--sigreg-fuse-ecf-backward first (it fuses "
                    "project_transpose(ecf_grad(project(x, A)), A)), or lower "
                    "through the naive GPU pipeline (--sigreg-naive-gpu-"
                    "pipeline)");
    return WalkResult::interrupt();
  });
  if (backward.wasInterrupted())
    return failure();
  WalkResult result = oldFunc.walk([&](Operation *op) {
    if (op == oldFunc.getOperation())
      return WalkResult::advance();
    if (isa<ProjectOp, EcfOp, EppsPulleyOp, ReduceOp>(op)) {
      op->emitOpError("has no GPU lowering in the fused pipeline: run "
                      "--sigreg-fuse-ecf and --sigreg-fuse-epilogue first (the "
                      "naive GPU pipeline lowers unfused ops through linalg)");
      return WalkResult::interrupt();
    }
    if (isa<LossOp, LossGradOp>(op)) {
      op->emitOpError("must be decomposed first (run --sigreg-decompose)");
      return WalkResult::interrupt();
    }
    if (auto ar = dyn_cast<AllReduceMeanOp>(op); ar && ar.getWorldSize() != 1) {
      ar.emitOpError("world_size = ")
          << ar.getWorldSize()
          << " needs a communicator; the single-process pipelines support "
             "world_size = 1 only";
      return WalkResult::interrupt();
    }
    if (!isa<ProjectionOp, FusedEcfOp, AllReduceMeanOp, FusedEpilogueOp,
             EcfCotangentOp, FusedEcfBackwardOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, tensor::DimOp, arith::ConstantOp,
             func::ReturnOp>(op)) {
      op->emitOpError("cannot be lowered by --convert-sigreg-to-gpu");
      return WalkResult::interrupt();
    }
    // Values the host code never holds as a memref: tensor constants, and a
    // seeded projection's A (the projection kernel writes the raw g and the
    // per-chunk sums of squares that only the fused ECF kernels read).
    if (auto cst = dyn_cast<arith::ConstantOp>(op);
        cst && isa<ShapedType>(cst.getType())) {
      op->emitOpError("of type ")
          << cst.getType()
          << " is not supported by --convert-sigreg-to-gpu (only scalar "
             "constants; pass tensors as function arguments)";
      return WalkResult::interrupt();
    }
    if (auto proj = dyn_cast<ProjectionOp>(op))
      for (OpOperand &use : proj->getUses()) {
        auto ecf = dyn_cast<FusedEcfOp>(use.getOwner());
        if (ecf && ecf.getProjection() == use.get())
          continue;
        auto bwd = dyn_cast<FusedEcfBackwardOp>(use.getOwner());
        if (bwd && bwd.getProjection() == use.get())
          continue;
        InFlightDiagnostic diag =
            proj.emitOpError("result is used by '")
            << use.getOwner()->getName()
            << "': --convert-sigreg-to-gpu supports a seeded projection only "
               "as the projection operand of sigreg.fused_ecf and "
               "sigreg.fused_ecf_backward (A itself is "
               "never materialized on the GPU; pass it with "
               "projection(...) or lower through the naive pipeline)";
        diag.attachNote(use.getOwner()->getLoc()) << "used here";
        return WalkResult::interrupt();
      }
    for (Type t : op->getOperandTypes())
      if (auto shaped = dyn_cast<ShapedType>(t);
          shaped && !shaped.hasStaticShape()) {
        op->emitOpError("the GPU pipelines need static shapes, got ")
            << t << " (sigreg-run specializes the batch size from --shape)";
        return WalkResult::interrupt();
      }
    if (failed(checkGridLimits(op)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Where the op producing `result` writes: the out-parameter when the value
/// (or a collapse of it) is returned, else a new workspace.
Value FunctionLowering::destination(OpBuilder &b, Value result) {
  Location loc = result.getLoc();
  MemRefType type = toMemref(result.getType());
  if (result.hasOneUse()) {
    OpOperand &use = *result.getUses().begin();
    if (isa<func::ReturnOp>(use.getOwner()))
      return outParams[use.getOperandNumber()];
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
        collapse && collapse->hasOneUse() &&
        isa<func::ReturnOp>(*collapse->getUsers().begin())) {
      Value out = outParams[collapse->getUses().begin()->getOperandNumber()];
      return memref::ExpandShapeOp::create(b, loc, type, out,
                                           collapse.getReassociationIndices());
    }
  }
  return memref::AllocOp::create(b, loc, type);
}

LogicalResult FunctionLowering::lowerOp(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  if (isa<arith::ConstantOp>(op)) {
    b.clone(*op, map);
    return success();
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = cast<RankedTensorType>(dim.getSource().getType());
    if (!index)
      return dim.emitOpError("needs a constant dimension index");
    map.map(dim.getResult(),
            arith::ConstantIndexOp::create(b, loc, type.getDimSize(*index)));
    return success();
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    map.map(expand.getResult(),
            memref::ExpandShapeOp::create(b, loc, toMemref(expand.getType()),
                                          map.lookup(expand.getSrc()),
                                          expand.getReassociationIndices()));
    return success();
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    map.map(collapse.getResult(), memref::CollapseShapeOp::create(
                                      b, loc, map.lookup(collapse.getSrc()),
                                      collapse.getReassociationIndices()));
    return success();
  }
  if (auto it = tailChain.find(op); it != tailChain.end()) {
    if (auto epi = dyn_cast<FusedEpilogueOp>(op))
      return lowerFusedEcf(b, it->second, epi);
    if (auto ar = dyn_cast<AllReduceMeanOp>(op))
      map.map(ar.getGlobalCount(), map.lookup(ar.getLocalCount()));
    return success();
  }
  if (auto it = singleLaunchChain.find(op); it != singleLaunchChain.end()) {
    if (auto epi = dyn_cast<FusedEpilogueOp>(op))
      return lowerSingleLaunch(b, epi);
    if (auto ar = dyn_cast<AllReduceMeanOp>(op))
      map.map(ar.getGlobalCount(), map.lookup(ar.getLocalCount()));
    return success();
  }
  if (auto proj = dyn_cast<ProjectionOp>(op))
    return lowerProjection(b, proj);
  if (auto ecf = dyn_cast<FusedEcfOp>(op))
    return lowerFusedEcf(b, ecf);
  if (auto ar = dyn_cast<AllReduceMeanOp>(op)) {
    // One rank: the all-reduce is the identity.
    map.map(ar.getCosGlobal(), map.lookup(ar.getCos()));
    map.map(ar.getSinGlobal(), map.lookup(ar.getSin()));
    map.map(ar.getGlobalCount(), map.lookup(ar.getLocalCount()));
    return success();
  }
  if (auto epi = dyn_cast<FusedEpilogueOp>(op))
    return lowerEpilogue(b, epi);
  if (auto cot = dyn_cast<EcfCotangentOp>(op))
    return lowerEcfCotangent(b, cot);
  if (auto bwd = dyn_cast<FusedEcfBackwardOp>(op))
    return lowerFusedEcfBackward(b, bwd);
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return lowerReturn(b, ret);
  return op->emitOpError("cannot be lowered by --convert-sigreg-to-gpu");
}

/// A seeded projection: the generator kernel writes the raw g (as the
/// consumer reads it) and the per-chunk sums of g^2; A is never materialized.
LogicalResult FunctionLowering::lowerProjection(OpBuilder &b,
                                                ProjectionOp proj) {
  Location loc = proj.getLoc();
  // A tensor-core consumer reads g as packed 16-bit hi(/lo) words, with
  // whole row pairs per chunk.
  ProjectionSchedule layout = projectionSchedule(proj);
  Type halfType = layout.packedElement;
  bool split = layout.splitProjection;
  ProjectionKernelShape shape{proj.getType().getDimSize(0),
                              proj.getType().getDimSize(1), layout.chunkRows};
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t D = shape.featureDim, S = shape.numSlices;
  SeededProjection info{Value(), Value(), Value(), shape.numChunks()};
  // The Hopper kernel's split layout of an f32 problem: [2 Dp, S] hi ; lo.
  int64_t splitRows =
      halfType && layout.rowMajor && split ? wgmmaSplitFeatures(D) : 0;
  if (halfType && layout.rowMajor) {
    info.g = memref::AllocOp::create(
        b, loc, MemRefType::get({splitRows ? 2 * splitRows : D, S}, halfType));
  } else if (halfType) {
    auto words = MemRefType::get({(D + 1) / 2, S}, i32);
    info.g = memref::AllocOp::create(b, loc, words);
    if (split)
      info.loWords = memref::AllocOp::create(b, loc, words);
  } else {
    info.g = memref::AllocOp::create(b, loc, MemRefType::get({D, S}, f32));
  }
  info.sumSq = memref::AllocOp::create(
      b, loc, MemRefType::get({shape.numChunks(), S}, f32));
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  std::array<int64_t, 3> grid = {
      llvm::divideCeilSigned<int64_t>(S, kBlockThreads), shape.numChunks(), 1};
  Value seed = map.lookup(proj.getSeed());
  if (halfType && layout.rowMajor) {
    createLaunch(
        b, loc,
        addKernel(buildProjectionKernel(kb, loc, shape, halfType, splitRows)),
        grid, kBlockThreads, {seed, info.g, info.sumSq});
  } else if (halfType) {
    SmallVector<Value> args = {seed, info.g};
    if (split)
      args.push_back(info.loWords);
    args.push_back(info.sumSq);
    createLaunch(
        b, loc,
        addKernel(buildPackedProjectionKernel(kb, loc, shape, halfType, split)),
        grid, kBlockThreads, args);
  } else
    createLaunch(b, loc, addKernel(buildProjectionKernel(kb, loc, shape)), grid,
                 kBlockThreads, {seed, info.g, info.sumSq});
  seededProjections[proj.getResult()] = info;
  return success();
}

/// A fused ECF on the SIMT or mma.sync kernel (the Hopper kernel in
/// lowerWgmmaEcf), then the finalize kernel when the batch has several tiles.
LogicalResult FunctionLowering::lowerFusedEcf(OpBuilder &b, FusedEcfOp ecf,
                                              FusedEpilogueOp epi) {
  Location loc = ecf.getLoc();
  EcfKernelShape sh;
  fillEcfProblem(ecf, sh);
  auto seeded = seededProjections.find(ecf.getProjection());
  sh.seeded = seeded != seededProjections.end();
  sh.projectionElement =
      sh.seeded ? cast<MemRefType>(seeded->second.g.getType()).getElementType()
                : ecf.getProjection().getType().getElementType();
  EcfSchedule sched = ecfSchedule(ecf);
  sh.blockSlices = sched.blockSlices;
  if (ecf.getSlices() && (!sched.wgmma || sched.wgmmaPersistent))
    return ecf.emitOpError("the slices result needs the one-tile Hopper kernel "
                           "(schedule kernel = wgmma)");
  if (sched.wgmma)
    return lowerWgmmaEcf(b, ecf, sh,
                         seeded != seededProjections.end() ? &seeded->second
                                                           : nullptr,
                         sched.wgmmaPersistent, epi);
  bool mma = sched.tensorCores;
  sh.normChunks = sh.seeded ? seeded->second.chunks : 0;
  sh.blockRows = sched.blockRows;
  sh.blockSlices = sched.blockSlices;
  sh.tileK = sched.tileK;
  if (!mma)
    for (int64_t t : {sh.blockRows, sh.blockSlices})
      if (t != 16 && t != 32 && t != 64)
        return ecf.emitOpError("tile sizes must be 16, 32 or 64, got ") << t;

  SmallVector<Value> args = {map.lookup(ecf.getInput())};
  sh.splitProjection = sh.seeded && seeded->second.loWords;
  if (sh.seeded && mma) {
    args.push_back(seeded->second.g);
    if (sh.splitProjection)
      args.push_back(seeded->second.loWords);
    args.push_back(seeded->second.sumSq);
  } else if (sh.seeded)
    args.append({seeded->second.g, seeded->second.sumSq});
  else
    args.push_back(map.lookup(ecf.getProjection()));
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp kernel = addKernel(mma ? buildFusedEcfMmaKernel(kb, loc, sh)
                                        : buildFusedEcfKernel(kb, loc, sh));
  finishEcf(b, loc, ecf, kernel,
            {sh.numSliceTiles(), sh.numBatchTiles(), sh.numViews},
            kBlockThreads, args, sh.numBatchTiles(), 0);
  return success();
}

/// `count` i32 counters of a last-block reduction (arriveAtCounter): zeroed
/// once when the runtime allocates them (`sigreg.zero_init`), left at zero
/// by every launch.
static Value allocCounters(OpBuilder &b, Location loc, int64_t count) {
  auto counters =
      memref::AllocOp::create(b, loc, MemRefType::get({count}, b.getI32Type()));
  counters->setAttr("sigreg.zero_init", b.getUnitAttr());
  return counters;
}

/// The fused epilogue kernel: the statistic, clip and reduction.
LogicalResult FunctionLowering::lowerEpilogue(OpBuilder &b,
                                              FusedEpilogueOp epi) {
  Location loc = epi.getLoc();
  FailureOr<EpilogueKernelShape> shape = epilogueShape(epi);
  if (failed(shape))
    return failure();
  const EpilogueKernelShape &sh = *shape;
  Value out = destination(b, epi.getResult());
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp kernel = addKernel(buildEpilogueKernel(kb, loc, sh));
  SmallVector<Value> args = {map.lookup(epi.getCos()), map.lookup(epi.getSin()),
                             out};
  if (sh.lastBlockReduction()) {
    args.push_back(allocCounters(b, loc, 1));
    args.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get({sh.numBlocks()}, b.getF32Type())));
  }
  createLaunch(b, loc, kernel, {sh.numBlocks(), 1, 1}, kBlockThreads, args);
  map.map(epi.getResult(), out);
  return success();
}

/// Results: copied to the out-parameters unless the last kernel wrote them in
/// place.
LogicalResult FunctionLowering::lowerReturn(OpBuilder &b, func::ReturnOp ret) {
  Location loc = ret.getLoc();
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Value m = map.lookupOrNull(v);
    if (!m || !isa<MemRefType>(m.getType()))
      return ret.emitOpError("operand ")
             << i << " has no buffer in the GPU host code (only inputs and "
             << "results of the lowered ops can be returned)";
    Value base = m;
    while (Operation *def = base.getDefiningOp()) {
      if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
        break;
      base = def->getOperand(0);
    }
    if (base != outParams[i])
      memref::CopyOp::create(b, loc, m, outParams[i]);
  }
  func::ReturnOp::create(b, loc);
  return success();
}

/// Launches a fused ECF kernel whose trailing arguments are the cos/sin
/// outputs: the means when the batch is one tile, else per-tile sums that
/// sigreg_ecf_finalize adds in a fixed order. Returns the ECF kernel's
/// launch.
gpu::LaunchFuncOp
FunctionLowering::finishEcf(OpBuilder &b, Location loc, FusedEcfOp ecf,
                            gpu::GPUFuncOp kernel, std::array<int64_t, 3> grid,
                            int64_t blockThreads, SmallVector<Value> args,
                            int64_t T, int64_t dynamicSharedBytes,
                            bool sliceMajor, ValueRange trailingArgs) {
  auto cType = ecf.getCos().getType();
  int64_t V = cType.getDimSize(0), S = cType.getDimSize(1),
          P = cType.getDimSize(2);
  int64_t batch = ecf.getInput().getType().getDimSize(1);
  // Returned means (an entry point of the DDP split) are written in place.
  Value cosOut = destination(b, ecf.getCos());
  Value sinOut = destination(b, ecf.getSin());
  gpu::LaunchFuncOp launch;
  if (T == 1) {
    args.append({cosOut, sinOut});
    args.append(trailingArgs.begin(), trailingArgs.end());
    launch = createLaunch(b, loc, kernel, grid, blockThreads, args,
                          dynamicSharedBytes);
  } else {
    auto partType = MemRefType::get(sliceMajor ? ArrayRef<int64_t>{T, V, P, S}
                                               : ArrayRef<int64_t>{T, V, S, P},
                                    b.getF32Type());
    Value cosPart = memref::AllocOp::create(b, loc, partType);
    Value sinPart = memref::AllocOp::create(b, loc, partType);
    args.append({cosPart, sinPart});
    args.append(trailingArgs.begin(), trailingArgs.end());
    launch = createLaunch(b, loc, kernel, grid, blockThreads, args,
                          dynamicSharedBytes);
    OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
    gpu::GPUFuncOp finalize = addKernel(
        buildEcfFinalizeKernel(kb, loc, T, V, S, P, batch, sliceMajor));
    createLaunch(
        b, loc, finalize,
        {llvm::divideCeilSigned<int64_t>(V * S * P, kBlockThreads), 1, 1},
        kBlockThreads, {cosPart, sinPart, cosOut, sinOut});
  }
  map.map(ecf.getCos(), cosOut);
  map.map(ecf.getSin(), sinOut);
  return launch;
}

/// The tensor-map arguments of a Hopper kernel whose first arguments take
/// tensor maps of `buffers`: each an nvgpu.tma.create.descriptor (encoded by
/// the runtime from the bound buffer) with the box of the kernel's
/// descriptor type, passed as a pointer to a by-value parameter.
SmallVector<Value> FunctionLowering::tensorMapArgs(OpBuilder &b, Location loc,
                                                   gpu::GPUFuncOp kernel,
                                                   ArrayRef<Value> buffers) {
  // The kernel casts each tensor-map argument to its descriptor type.
  auto descriptorType = [&](unsigned index) {
    for (Operation *user : kernel.getArgument(index).getUsers())
      if (auto c = dyn_cast<UnrealizedConversionCastOp>(user))
        return cast<nvgpu::TensorMapDescriptorType>(c.getResultTypes()[0]);
    llvm_unreachable("tensor-map argument without its descriptor cast");
  };
  SmallVector<Value> args;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    auto type = descriptorType(index);
    auto memref = cast<MemRefType>(buffer.getType());
    Value unranked =
        memref::CastOp::create(b, loc,
                               UnrankedMemRefType::get(memref.getElementType(),
                                                       memref.getMemorySpace()),
                               buffer);
    SmallVector<Value> box;
    for (int64_t d : type.getTensor().getShape())
      box.push_back(arith::ConstantIndexOp::create(b, loc, d));
    Value desc =
        nvgpu::TmaCreateDescriptorOp::create(b, loc, type, unranked, box);
    args.push_back(UnrealizedConversionCastOp::create(
                       b, loc, kernel.getArgumentTypes()[index], desc)
                       .getResult(0));
  }
  return args;
}

/// The ECF cotangent kernel (backward of the statistic, clip and
/// reduction).
LogicalResult FunctionLowering::lowerEcfCotangent(OpBuilder &b,
                                                  EcfCotangentOp op) {
  Location loc = op.getLoc();
  FailureOr<EpilogueKernelShape> shape = epilogueShape(op);
  if (failed(shape))
    return failure();
  const EpilogueKernelShape &sh = *shape;
  // Read only by a fused backward that forms dL/dy from saved slices: its
  // gradient kernel computes each slice's cotangent itself (one launch and
  // the dcos, dsin buffers fewer).
  if (op.getDcos().hasOneUse() && op.getDsin().hasOneUse()) {
    auto bwd = dyn_cast<FusedEcfBackwardOp>(*op.getDcos().getUsers().begin());
    if (bwd && bwd.getSlices() && bwd.getDcos() == op.getDcos() &&
        bwd.getDsin() == op.getDsin()) {
      foldedCotangents[bwd.getOperation()] = {op, sh};
      return success();
    }
  }
  MemRefType ecf = toMemref(op.getCos().getType());
  Value dcos = memref::AllocOp::create(b, loc, ecf);
  Value dsin = memref::AllocOp::create(b, loc, ecf);
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp kernel = addKernel(buildEcfCotangentKernel(kb, loc, sh));
  createLaunch(b, loc, kernel,
               {llvm::divideCeilSigned<int64_t>(sh.numViews * sh.numSlices,
                                                kBlockThreads),
                1, 1},
               kBlockThreads,
               {map.lookup(op.getCos()), map.lookup(op.getSin()),
                map.lookup(op.getGrad()), dcos, dsin});
  map.map(op.getDcos(), dcos);
  map.map(op.getDsin(), dsin);
  return success();
}

/// The fused backward on the Hopper machinery (docs/BACKWARD.md): the ECF
/// gradient kernel recomputes y per 128-row tile and writes G = dL/dy
/// (divided by ||g_s|| when seeded) in the input's 16-bit type, [V * N, S];
/// the backward GEMM then forms dx = G g^T, K = S, into the result.
LogicalResult FunctionLowering::lowerFusedEcfBackward(OpBuilder &b,
                                                      FusedEcfBackwardOp op) {
  Location loc = op.getLoc();
  auto inType = op.getInput().getType();
  int64_t V = inType.getDimSize(0), N = inType.getDimSize(1),
          D = inType.getDimSize(2);
  int64_t S = op.getProjection().getType().getDimSize(1),
          P = op.getDcos().getType().getDimSize(2);
  Type elem = inType.getElementType();
  auto fail = [&]() {
    return op.emitOpError("has no fused GPU lowering for this problem: ");
  };
  if (!schedule.hopper || !schedule.tensorCores)
    return fail() << "the fused backward runs on the Hopper kernels only "
                     "(chip sm_90a with tensor cores); lower through "
                     "--sigreg-naive-gpu-pipeline";
  if (!elem.isBF16() && !elem.isF16())
    return fail() << "it needs bf16 or f16 input, got " << elem
                  << "; lower through --sigreg-naive-gpu-pipeline";
  if (D % 8 || S % 8)
    return fail() << "TMA needs D and S multiples of 8, got D = " << D
                  << ", S = " << S
                  << "; lower through --sigreg-naive-gpu-pipeline";
  if (double err = fusedBackwardError(op); err > kFusedBackwardErrorBudget)
    return fail() << "its estimated error with 16-bit roundings ("
                  << llvm::formatv("{0:e1}", err).str() << ", N = " << N
                  << ", D = " << D << ") exceeds the "
                  << kFusedBackwardErrorBudget
                  << " gradient tolerance; lower through "
                     "--sigreg-naive-gpu-pipeline";
  auto seeded = seededProjections.find(op.getProjection());
  Value g;
  if (seeded != seededProjections.end()) {
    auto gType = cast<MemRefType>(seeded->second.g.getType());
    if (gType.getElementType() != elem || gType.getShape() != ArrayRef{D, S})
      return fail() << "its seeded projection is also read by a forward "
                       "kernel that needs g in another layout than the "
                       "row-major 16-bit one of the Hopper kernels";
    g = seeded->second.g;
  } else {
    if (op.getProjection().getType().getElementType() != elem)
      return fail() << "it needs an explicit projection of the input's type "
                    << elem;
    g = map.lookup(op.getProjection());
  }
  bool isSeeded = seeded != seededProjections.end();
  // The forward's tile rule (and its wgmma-slices option), at least 128
  // slices: the 64-slice tile is the forward's alone.
  int64_t slices = std::max<int64_t>(128, wgmmaTileSlices(V, N, S, schedule));
  WgmmaEcfShape w{V,
                  N,
                  D,
                  S,
                  P,
                  op.getTMax().convertToDouble(),
                  elem,
                  isSeeded,
                  isSeeded ? seeded->second.chunks : 0,
                  getWgmmaTiling(slices)};
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  Value grad =
      memref::AllocOp::create(b, loc, MemRefType::get({V * N, S}, elem));
  SmallVector<Value> args;
  if (Value saved = op.getSlices()) {
    // dL/dy from the forward's slices (--sigreg-save-slices): no GEMM; the
    // cotangent folded in where lowerEcfCotangent left it to this kernel.
    args = {memref::CollapseShapeOp::create(
        b, loc, map.lookup(saved),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}})};
    if (isSeeded)
      args.push_back(seeded->second.sumSq);
    auto folded = foldedCotangents.find(op.getOperation());
    const EpilogueKernelShape *cotangent = nullptr;
    if (folded != foldedCotangents.end()) {
      EcfCotangentOp cot = folded->second.first;
      cotangent = &folded->second.second;
      args.append({map.lookup(cot.getCos()), map.lookup(cot.getSin()),
                   map.lookup(cot.getGrad()), grad});
    } else {
      args.append({map.lookup(op.getDcos()), map.lookup(op.getDsin()), grad});
    }
    int64_t rowsPerBlock = ecfGradSliceRows(V, N, S);
    createLaunch(b, loc,
                 addKernel(buildEcfGradSlicesKernel(kb, loc, w, rowsPerBlock,
                                                    cotangent)),
                 {llvm::divideCeilSigned<int64_t>(S, kBlockThreads),
                  llvm::divideCeilSigned<int64_t>(N, rowsPerBlock), V},
                 kBlockThreads, args);
  } else {
    // y recomputed from x viewed as [V * N, D].
    Value rows = memref::CollapseShapeOp::create(
        b, loc, map.lookup(op.getInput()),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    gpu::GPUFuncOp ecfGrad = addKernel(buildEcfGradWgmmaKernel(kb, loc, w));
    args = tensorMapArgs(b, loc, ecfGrad, {rows, g});
    if (isSeeded)
      args.push_back(seeded->second.sumSq);
    args.append({map.lookup(op.getDcos()), map.lookup(op.getDsin()), grad});
    createLaunch(b, loc, ecfGrad, {w.numSliceTiles(), w.numBatchTiles(), V},
                 w.tiling.threads, args, wgmmaDynamicSharedBytes(w.tiling));
  }

  ProjectTransposeShape t{V * N, D, S, elem, getWgmmaTiling(kWgmmaTileSlices)};
  gpu::GPUFuncOp gemm = addKernel(buildProjectTransposeWgmmaKernel(kb, loc, t));
  Value dx = destination(b, op.getResult());
  Value dxRows = memref::CollapseShapeOp::create(
      b, loc, dx, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  args = tensorMapArgs(b, loc, gemm, {grad, g});
  args.push_back(dxRows);
  createLaunch(b, loc, gemm,
               {llvm::divideCeilSigned<int64_t>(D, t.tiling.slices),
                llvm::divideCeilSigned<int64_t>(V * N, kWgmmaRows), 1},
               t.tiling.threads, args, wgmmaDynamicSharedBytes(t.tiling));
  map.map(op.getResult(), dx);
  return success();
}

/// Marks `launch` programmatic (kProgrammaticLaunchAttrName) when the step
/// before it is a kernel launch: only allocations, constants, casts and
/// tensor-map descriptors (no steps of the manifest) may lie between them.
static void markProgrammaticLaunch(gpu::LaunchFuncOp launch) {
  for (Operation *op = launch->getPrevNode(); op; op = op->getPrevNode()) {
    if (isa<gpu::LaunchFuncOp>(op)) {
      launch->setAttr(kProgrammaticLaunchAttrName,
                      UnitAttr::get(launch.getContext()));
      return;
    }
    if (!isa<memref::AllocOp, arith::ConstantOp, memref::CastOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp,
             nvgpu::TmaCreateDescriptorOp, UnrealizedConversionCastOp>(op))
      return;
  }
}

/// CTAs of the one-tile Hopper kernel's grid (kWgmmaRows-row tiles).
static int64_t wgmmaGridCtas(const EcfKernelShape &sh) {
  return sh.numViews * llvm::divideCeilSigned(sh.batch, kWgmmaRows) *
         llvm::divideCeilSigned(sh.numSlices, sh.blockSlices);
}

/// Host side of the Hopper kernel: x viewed as [V * N, D] and the 16-bit
/// projection [D, S] get tensor maps (nvgpu.tma.create.descriptor, encoded
/// by the runtime from the bound buffers), passed to the kernel as pointers
/// to by-value parameters.
LogicalResult FunctionLowering::lowerWgmmaEcf(OpBuilder &b, FusedEcfOp ecf,
                                              const EcfKernelShape &sh,
                                              const SeededProjection *seeded,
                                              bool persistent,
                                              FusedEpilogueOp epi) {
  Location loc = ecf.getLoc();
  bool split = wgmmaSplitsInput(ecf);
  WgmmaEcfShape w{sh.numViews,
                  sh.batch,
                  sh.featureDim,
                  sh.numSlices,
                  sh.numPoints,
                  sh.tMax,
                  split ? b.getBF16Type() : sh.inputElement,
                  bool(seeded),
                  seeded ? seeded->chunks : 0,
                  getWgmmaTiling(sh.blockSlices, persistent,
                                 persistent ? 0 : wgmmaGridCtas(sh))};
  // A seeded g generated as hi and lo rows (lowerProjection), or an f32
  // problem: the split layout.
  bool splitG = seeded && cast<MemRefType>(seeded->g.getType()).getDimSize(0) !=
                              sh.featureDim;
  w.splitFeatures = split || splitG ? wgmmaSplitFeatures(sh.featureDim) : 0;
  w.splitInput = split;
  // The tail (one-tile kernel): the finalize for few batch tiles, and the
  // epilogue of a chain run() gave it.
  EpilogueKernelShape epiShape;
  if (epi) {
    FailureOr<EpilogueKernelShape> shape = epilogueShape(epi);
    if (failed(shape))
      return failure();
    if (epi.getTMax() != ecf.getTMax())
      return epi.emitOpError("t_max differs from its sigreg.fused_ecf's");
    epiShape = *shape;
    w.epilogue = &epiShape;
  }
  w.foldFinalize = !persistent && wgmmaFoldsFinalize(w.numBatchTiles());
  // The slices for the fused backward (--sigreg-save-slices), written where
  // their reader finds them.
  Value slices;
  // (lowerFusedEcf sends only the one-tile kernel here with a slices result.)
  if (ecf.getSlices()) {
    w.storeSlices = true;
    slices = destination(b, ecf.getSlices());
    map.map(ecf.getSlices(), slices);
  }
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp kernel =
      addKernel(persistent ? buildFusedEcfWgmmaPersistentKernel(kb, loc, w)
                           : buildFusedEcfWgmmaKernel(kb, loc, w));

  Value x = map.lookup(ecf.getInput());
  Value rows = memref::CollapseShapeOp::create(
      b, loc, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value projection = seeded ? seeded->g : map.lookup(ecf.getProjection());
  if (split) {
    // x as [V * N, 2 Dp] = [hi | lo]; an explicit A as [2 Dp, S] = [hi ; lo]
    // (a seeded g was generated so).
    rows = splitOperand(b, loc, rows,
                        {sh.numViews * sh.batch, sh.featureDim,
                         /*alongRows=*/false, w.splitFeatures});
    if (!seeded)
      projection = splitOperand(b, loc, projection,
                                {sh.featureDim, sh.numSlices,
                                 /*alongRows=*/true, w.splitFeatures});
  }
  SmallVector<Value> args = tensorMapArgs(b, loc, kernel, {rows, projection});
  if (seeded)
    args.push_back(seeded->sumSq);
  // Persistent: one CTA per multiprocessor (at most one per tile).
  std::array<int64_t, 3> grid =
      persistent ? std::array<int64_t, 3>{std::min<int64_t>(w.numTiles(),
                                                            kTargetBlocks / 2),
                                          1, 1}
                 : std::array<int64_t, 3>{w.numSliceTiles(), w.numBatchTiles(),
                                          w.numViews};
  SmallVector<Value> trailing;
  if (slices)
    trailing.push_back(memref::CollapseShapeOp::create(
        b, loc, slices, ArrayRef<ReassociationIndices>{{0, 1}, {2}}));
  int64_t T = w.numBatchTiles();
  if (!w.foldFinalize && !w.epilogue) {
    markProgrammaticLaunch(finishEcf(b, loc, ecf, kernel, grid,
                                     w.tiling.threads, args, T,
                                     wgmmaDynamicSharedBytes(w.tiling),
                                     /*sliceMajor=*/true, trailing));
    return success();
  }
  // The kernel's tail writes the means, and with an epilogue the loss: one
  // launch (forwardArgs has the argument order).
  Value cosOut = destination(b, ecf.getCos());
  Value sinOut = destination(b, ecf.getSin());
  if (T == 1) {
    args.append({cosOut, sinOut});
  } else {
    auto partType = MemRefType::get(
        {T, sh.numViews, sh.numPoints, sh.numSlices}, b.getF32Type());
    args.push_back(memref::AllocOp::create(b, loc, partType));
    args.push_back(memref::AllocOp::create(b, loc, partType));
  }
  args.append(trailing);
  if (w.foldFinalize)
    args.append({cosOut, sinOut});
  if (w.numCounters())
    args.push_back(allocCounters(b, loc, w.numCounters()));
  if (epi) {
    Value out = destination(b, epi.getResult());
    args.push_back(out);
    if (epiShape.reduction != Reduction::none)
      args.push_back(memref::AllocOp::create(
          b, loc,
          MemRefType::get({sh.numViews * sh.numSlices}, b.getF32Type())));
    map.map(epi.getResult(), out);
  }
  markProgrammaticLaunch(createLaunch(b, loc, kernel, grid, w.tiling.threads,
                                      args, wgmmaDynamicSharedBytes(w.tiling)));
  map.map(ecf.getCos(), cosOut);
  map.map(ecf.getSin(), sinOut);
  return success();
}

/// A workspace with `value` (an f32 matrix) split into bf16 hi + lo parts
/// by sigreg_split_operand, in the layout of `shape`.
Value FunctionLowering::splitOperand(OpBuilder &b, Location loc, Value value,
                                     const SplitOperandShape &shape) {
  Value out = memref::AllocOp::create(b, loc, shape.outType(b.getContext()));
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  createLaunch(
      b, loc, addKernel(buildSplitOperandKernel(kb, loc, shape)),
      {llvm::divideCeilSigned<int64_t>(shape.items(), kBlockThreads), 1, 1},
      kBlockThreads, {value, out});
  return out;
}

/// The chain projection -> fused_ecf -> all_reduce_mean -> fused_epilogue as
/// one launch of sigreg_single_launch. Workspaces: the counters (zeroed once
/// when the runtime allocates them: `sigreg.zero_init`), per-batch-tile ECF
/// sums when the batch spans several tiles, the per-slice statistics for
/// mean/sum.
LogicalResult FunctionLowering::lowerSingleLaunch(OpBuilder &b,
                                                  FusedEpilogueOp epi) {
  Location loc = epi.getLoc();
  FusedEcfOp ecf = singleLaunchChain.lookup(epi.getOperation());
  std::optional<int64_t> count =
      getConstantIntValue(map.lookup(epi.getGlobalCount()));
  if (!count)
    return epi.emitOpError("needs a constant global count on the GPU");
  SingleLaunchShape sh;
  fillEcfProblem(ecf, sh);
  auto proj = ecf.getProjection().getDefiningOp<ProjectionOp>();
  sh.seeded = bool(proj);
  sh.projectionElement =
      proj ? Type() : ecf.getProjection().getType().getElementType();
  sh.chunkRows = projectionChunkRows(schedule.projectionChunk);
  ScheduleAttr attr = ecf.getScheduleAttr();
  SingleLaunchTiling tiling =
      attr ? SingleLaunchTiling{attr.getRows(), attr.getSlices(),
                                attr.getProjection()}
           : chooseSingleLaunchTiling(ecf, schedule);
  sh.blockRows = tiling.blockRows;
  sh.blockSlices = tiling.blockSlices;
  sh.tensorCores = singleLaunchUsesMma(tiling.projection);
  sh.splitProjection = tiling.projection == ProjectionMode::split;
  sh.globalCount = *count;
  sh.clip = epi.getClip();
  sh.clipValue = epi.getClipValue().convertToDouble();
  sh.reduction = epi.getReduction();
  if (epi.getTMax() != ecf.getTMax())
    return epi.emitOpError("t_max differs from its sigreg.fused_ecf's");

  Type f32 = b.getF32Type();
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints,
          T = sh.numBatchTiles();
  Value out = destination(b, epi.getResult());
  SmallVector<Value> args = {proj ? map.lookup(proj.getSeed())
                                  : map.lookup(ecf.getProjection()),
                             map.lookup(ecf.getInput()), out};
  args.push_back(allocCounters(b, loc, sh.numCounters()));
  if (T > 1)
    for (int i = 0; i < 2; ++i)
      args.push_back(
          memref::AllocOp::create(b, loc, MemRefType::get({T, V, S, P}, f32)));
  if (sh.reduction != Reduction::none)
    args.push_back(
        memref::AllocOp::create(b, loc, MemRefType::get({V * S}, f32)));
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  gpu::GPUFuncOp kernel = addKernel(buildSingleLaunchKernel(kb, loc, sh));
  createLaunch(b, loc, kernel, {sh.numSliceTiles(), T, V}, kBlockThreads, args);
  map.map(epi.getResult(), out);
  return success();
}

LogicalResult FunctionLowering::run() {
  if (failed(checkSupported()))
    return failure();
  oldFunc.walk([&](FusedEcfOp ecf) {
    // The Hopper kernel runs the epilogue in its tail when its means are
    // complete in the kernel (one batch tile, or the finalize folded in).
    EcfSchedule sched = ecfSchedule(ecf);
    if (sched.wgmma && !sched.wgmmaPersistent && !ecf.getSlices())
      if (FusedEpilogueOp epi = foldableEpilogue(ecf)) {
        int64_t T = llvm::divideCeilSigned<int64_t>(
            ecf.getInput().getType().getDimSize(1), kWgmmaTileRows);
        if (T == 1 || wgmmaFoldsFinalize(T)) {
          for (Operation *op :
               {ecf.getOperation(), *ecf.getCos().getUsers().begin(),
                epi.getOperation()})
            tailChain[op] = ecf;
          return;
        }
      }
    if (!runsAsSingleLaunch(ecf))
      return;
    auto ar = cast<AllReduceMeanOp>(*ecf.getCos().getUsers().begin());
    Operation *epi = *ar.getCosGlobal().getUsers().begin();
    for (Operation *op : {ecf.getOperation(), ar.getOperation(), epi,
                          ecf.getProjection().getDefiningOp()})
      if (op)
        singleLaunchChain[op] = ecf;
  });
  SmallVector<Type> argTypes;
  for (Type t : oldFunc.getArgumentTypes())
    argTypes.push_back(isa<RankedTensorType>(t) ? toMemref(t) : t);
  unsigned numInputs = argTypes.size();
  for (Type t : oldFunc.getResultTypes()) {
    if (!isa<RankedTensorType>(t))
      return oldFunc.emitError("GPU lowering supports tensor results only");
    argTypes.push_back(toMemref(t));
  }
  OpBuilder b(oldFunc);
  newFunc = func::FuncOp::create(b, oldFunc.getLoc(), oldFunc.getSymName(),
                                 b.getFunctionType(argTypes, {}));
  newFunc.setVisibility(oldFunc.getVisibility());
  Block *entry = newFunc.addEntryBlock();
  for (unsigned i = 0; i < numInputs; ++i)
    map.map(oldFunc.getArgument(i), entry->getArgument(i));
  for (unsigned i = numInputs; i < argTypes.size(); ++i)
    outParams.push_back(entry->getArgument(i));
  b.setInsertionPointToStart(entry);
  for (Operation &op : oldFunc.getBody().front()) {
    if (failed(lowerOp(b, &op))) {
      newFunc.erase();
      return failure();
    }
  }
  oldFunc.erase();
  return success();
}

struct ConvertSigregToGPUPass
    : sigreg::impl::ConvertSigregToGPUBase<ConvertSigregToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp f) {
      bool has = false;
      f.walk(
          [&](Operation *op) { has |= isa<SigregDialect>(op->getDialect()); });
      if (has)
        funcs.push_back(f);
    });
    if (funcs.empty())
      return;
    std::string tileError = tileOptionError(blockRows, blockSlices);
    if (!tileError.empty()) {
      module.emitError(tileError);
      return signalPassFailure();
    }
    if (projectionChunk < 1) {
      module.emitError("projection-chunk must be positive");
      return signalPassFailure();
    }
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    if (!llvm::is_contained({0, 64, 128, 256}, int64_t(wgmmaSlices))) {
      module.emitError("wgmma-slices must be 0, 64, 128 or 256, got ")
          << static_cast<int64_t>(wgmmaSlices);
      return signalPassFailure();
    }
    if (singleLaunch < 0 || singleLaunch > 2) {
      module.emitError("single-launch must be 0, 1 or 2, got ")
          << static_cast<int64_t>(singleLaunch);
      return signalPassFailure();
    }
    ConvertSigregToGPUOptions opts{
        blockRows, blockSlices, projectionChunk, tensorCores,
        hopper,    wgmmaSlices, wgmmaPersistent, singleLaunch};
    for (func::FuncOp f : funcs)
      if (failed(FunctionLowering(f, kernels, opts).run()))
        return signalPassFailure();
  }
};
} // namespace
