//===- SigregToGPU.cpp - fused sigreg ops -> GPU kernels + host code ------===//
//
// Lowers each fused sigreg op to launches of the kernels declared in
// Kernels.h (one file per kernel family: ProjectionKernels, SimtEcfKernel,
// MmaEcfKernel, WgmmaEcfKernel, SingleLaunchKernel, EpilogueKernels) with
// one OpConversionPattern per op, driven by applyPartialConversion with the
// sigreg dialect illegal. The host code stays on tensors at the function
// boundary: a pattern reads its tensor operands through
// `bufferization.to_buffer ... read_only`, launches its kernels on them and
// on freshly allocated result buffers (memref.alloc, the workspaces), and
// replaces its results with `bufferization.to_tensor ... restrict` of those.
// Upstream one-shot bufferization (function boundaries, identity layouts)
// and buffer-results-to-out-params (hoisting static allocations) then give
// the memref signature, the same bufferization as the naive path
// (--sigreg-gpu-bufferize; both GPU pipelines run it): tensor arguments become
// memref arguments, results trailing out-parameters that the last kernel
// writes in place (its result allocation is hoisted into the
// out-parameter). A result returned through a tensor.collapse_shape is
// allocated in the returned shape and expanded for the kernel, so that it is
// written in place too; a value returned twice is copied the second time.
//
// Why patterns and no BufferizableOpInterface on the fused ops: a fused op's
// buffers depend on its neighbours (a seeded projection's layout on its
// readers, the chains below), which one rewrite per op sees in the tensor IR
// before bufferization; the interface would have to rebuild that view.
//
// A seeded sigreg.projection is replaced 1:N by the buffers its kernel
// writes (g, maybe its lo words, the per-chunk sums of squares): its readers
// (fused_ecf, fused_ecf_backward) take them from their OneToNOpAdaptor. Ops
// whose work another op's kernel does stay legal until that op's pattern
// erases them: the chain projection -> fused_ecf -> all_reduce_mean ->
// fused_epilogue of the single launch, the chain fused_ecf ->
// all_reduce_mean -> fused_epilogue whose epilogue the Hopper kernel runs in
// its tail (both rooted at the fused_ecf, emitted at the epilogue), and an
// ecf_cotangent that the gradient kernel of its fused_ecf_backward folds in.
//
// Everything that can reject an op is checked before the conversion
// (Lowering::check), so that each diagnostic is one error at the op and
// no pattern fails after building kernels (those are appended to
// gpu.module @sigreg_kernels outside the converted function).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Conversion/Passes.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
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
  o.wgmmaGenerate = options.wgmmaGenerate;
  o.wgmmaCooperative = options.wgmmaCooperative;
  o.wgmmaCluster = options.wgmmaCluster;
  o.wgmmaRows = options.wgmmaRows;
  o.wgmmaAtomicSums = options.wgmmaAtomicSums;
  o.singleLaunch = options.singleLaunch;
  o.singleLaunchWarps = options.singleLaunchWarps;
  o.promoteKTiles = options.promoteAccumulators;
  return o;
}

MemRefType toMemref(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The buffer of `value`: itself when it is one (a seeded projection's
/// buffers), else a read-only bufferization.to_buffer of the tensor.
Value toBuffer(OpBuilder &b, Location loc, Value value) {
  if (isa<MemRefType>(value.getType()))
    return value;
  return bufferization::ToBufferOp::create(b, loc, toMemref(value.getType()),
                                           value, /*read_only=*/true);
}

/// `buffer` (written by the kernels before) as the tensor of a result.
Value toTensor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
      buffer, /*restrict=*/true, /*writable=*/true);
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

/// The value of a global count: a constant or a static tensor.dim, directly
/// or through a one-rank sigreg.all_reduce_mean (the identity).
std::optional<int64_t> constantCount(Value count) {
  if (auto ar = count.getDefiningOp<AllReduceMeanOp>())
    count = ar.getLocalCount();
  if (std::optional<int64_t> c = getConstantIntValue(count))
    return c;
  auto dim = count.getDefiningOp<tensor::DimOp>();
  if (!dim)
    return std::nullopt;
  std::optional<int64_t> index = dim.getConstantIndex();
  auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
  if (!type || !index || *index < 0 || *index >= type.getRank() ||
      type.isDynamicDim(*index))
    return std::nullopt;
  return type.getDimSize(*index);
}

/// The kernel shape of a fused_epilogue or ecf_cotangent: [V, S, P], the
/// knobs, and the global count (checked constant by FunctionPlan::check).
template <typename OpT> EpilogueKernelShape epilogueShape(OpT op) {
  auto cType = op.getCos().getType();
  return EpilogueKernelShape{cType.getDimSize(0),
                             cType.getDimSize(1),
                             cType.getDimSize(2),
                             op.getTMax().convertToDouble(),
                             *constantCount(op.getGlobalCount()),
                             op.getClip(),
                             op.getClipValue().convertToDouble(),
                             op.getReduction()};
}

/// `count` i32 counters of a last-block reduction (arriveAtCounter): zeroed
/// once when the runtime allocates them (`sigreg.zero_init`), left at zero
/// by every launch.
Value allocCounters(OpBuilder &b, Location loc, int64_t count) {
  auto counters =
      memref::AllocOp::create(b, loc, MemRefType::get({count}, b.getI32Type()));
  counters->setAttr("sigreg.zero_init", b.getUnitAttr());
  return counters;
}

/// Bytes from which a seeded projection read by the one-tile Hopper kernel
/// is kept in L2's persisting portion (kL2PersistAttrName): measured at
/// 32 MB (large) and 64 MB (N 4096 D 4096 S 8192); smaller ones stay in L2
/// anyway.
constexpr int64_t kL2PersistProjectionBytes = int64_t(16) << 20;

/// The per-batch-tile cos and sin sums an ECF kernel stores for the kernel
/// (or the tail) that adds the tiles: two f32 workspaces of `shape`.
std::pair<Value, Value> allocTileSums(OpBuilder &b, Location loc,
                                      ArrayRef<int64_t> shape) {
  auto type = MemRefType::get(shape, b.getF32Type());
  return {memref::AllocOp::create(b, loc, type),
          memref::AllocOp::create(b, loc, type)};
}

/// A 64-bit word zeroed once when the runtime allocates it
/// (`sigreg.zero_init`): the word a mean/sum loss is added up in
/// (emitPackedLossAdd; reset by the block or CTA that completes it), or the
/// counter of a grid barrier (emitGridBarrier; never reset).
Value allocZeroInitWord(OpBuilder &b, Location loc) {
  auto word =
      memref::AllocOp::create(b, loc, MemRefType::get({1}, b.getI64Type()));
  word->setAttr("sigreg.zero_init", b.getUnitAttr());
  return word;
}

/// A seeded projection as its lowering leaves it (the 1:N replacement of
/// sigreg.projection): raw g (f32), or packed hi/lo words for the
/// tensor-core kernels, or row-major 16-bit g for the Hopper kernels, and
/// the per-chunk sums of squares; or, where the consumer generates g itself
/// (projection = generated or cooperative), the empty g and sumSq buffers
/// and the seed.
struct SeededProjection {
  Value g, loWords, sumSq;
  int64_t chunks;
  /// The seed when the consumer's kernel generates g: an i64, or the step
  /// counter (memref<i64>) it is read from.
  Value seed;

  /// The seeded projection of a projection operand's values, if it is one.
  static std::optional<SeededProjection> of(ValueRange values) {
    if (values.size() < 2)
      return std::nullopt;
    auto last = dyn_cast<MemRefType>(values.back().getType());
    if (!last || last.getRank() == 0)
      return SeededProjection{
          values[0], Value(), values[1],
          cast<MemRefType>(values[1].getType()).getDimSize(0), values.back()};
    Value sumSq = values.back();
    return SeededProjection{values.front(),
                            values.size() == 3 ? values[1] : Value(), sumSq,
                            cast<MemRefType>(sumSq.getType()).getDimSize(0)};
  }
};

/// The single launch's knobs, the pass options single-launch-*.
struct SingleLaunchKnobs {
  /// fast-normals' Box-Muller step in the tensor-core GEMM wherever it runs
  /// (by rule only where the k walk is staggered; else the exact mapping).
  bool fastNormals = false;
  /// SingleLaunchShape::staggerSteps: -1 by rule (tiles of at most
  /// kSingleLaunchStaggerMaxRows rows, with fast-normals' mapping), 0 never,
  /// 1 wherever the steps allow.
  int64_t stagger = -1;
  /// SingleLaunchShape::fragmentEcf: -1 by rule (tiles of at least
  /// kSingleLaunchFragmentEcfMinRows rows), 0 never, 1 wherever
  /// ecfFromFragments allows.
  int64_t fragmentEcf = -1;
  /// SingleLaunchShape::stepGroup (0: mmaStepGroup's rule).
  int64_t stepGroup = 0;
  /// SingleLaunchShape::prefetchX.
  bool prefetchX = false;
  /// SingleLaunchShape::prefetchTail.
  bool prefetchTail = false;
  /// SingleLaunchShape::transposedEcf (on by default: at minimal 5.98-6.18
  /// against 6.08-6.21 us, a masked 8-view shape 6.22-6.40 against
  /// 6.66-6.78, the other three shapes measured within their spread;
  /// docs/PERF-NOTES.md, thirty-fifth session).
  bool transposedEcf = true;
  /// SingleLaunchShape::stageX (-1 by rule, 0 never, 1 wherever stagesX
  /// allows, 2 or 4 the same in clusters of that many blocks).
  int64_t stageX = -1;
  /// SingleLaunchShape::stageTma (-1 by rule, 0 never, 1 by the warps, 2 by
  /// thread 0).
  int64_t stageTma = -1;
  /// SingleLaunchShape::genAhead (-1 by rule, 0-7 step groups).
  int64_t genAhead = -1;
  /// SingleLaunchShape::minctasm: -1 by rule (on tensor cores, the blocks per
  /// multiprocessor of a one-wave grid up to kSingleLaunchMaxMinctasm; else
  /// none), 0 none, N >= 1 that many.
  int64_t minctasm = -1;
  /// SingleLaunchShape::termSums (0 never, 1 the warps' sums in shared
  /// memory, 2 every warp's to the loss word).
  int64_t termSums = 1;
};

/// The state the patterns share: the kernel module, the schedule knobs, and
/// what FunctionPlan::check decided about each function's op chains.
class Lowering {
public:
  Lowering(gpu::GPUModuleOp kernels, const EcfScheduleOptions &schedule,
           bool deferCotangent, NormalMapping normals,
           SingleLaunchKnobs single = {})
      : kernels(kernels), schedule(schedule), deferCotangent(deferCotangent),
        normals(normals), single(single) {}

  LogicalResult check(func::FuncOp func);
  /// Ops that stay legal during the conversion: their work is done, and
  /// they are erased, by the pattern of another op of their chain.
  bool isAbsorbed(Operation *op) const { return absorbed.contains(op); }
  /// Drops the programmatic mark of the launches (programmaticCandidates)
  /// that do not directly follow another launch in the converted host code.
  void settleProgrammaticLaunches();
  /// Erases the sigreg.advance_step ops of `func` once their readers are
  /// lowered; a step that no kernel advanced (advancedSteps) gets a launch
  /// of sigreg_advance_step at the end of the forward: before the backward
  /// phase's first launch, else before the return.
  void finishDeviceSteps(func::FuncOp func);

  void lowerProjection(ConversionPatternRewriter &rewriter, ProjectionOp proj);
  void lowerFusedEcf(ConversionPatternRewriter &rewriter, FusedEcfOp ecf,
                     Value input, ValueRange projection);
  void lowerEpilogue(ConversionPatternRewriter &rewriter, FusedEpilogueOp epi,
                     Value cos, Value sin);
  void lowerEcfCotangent(ConversionPatternRewriter &rewriter, EcfCotangentOp op,
                         Value cos, Value sin, Value grad);
  void lowerFusedEcfBackward(ConversionPatternRewriter &rewriter,
                             FusedEcfBackwardOp op, Value input,
                             ValueRange projection, Value dcos, Value dsin,
                             ValueRange slices);
  /// `sharedGrad`: the bytes of a 16-bit dL/dy `grad` that this GEMM alone
  /// reads (the phases it was written over), which dL/dx may then share.
  void emitBackwardGemm(ConversionPatternRewriter &rewriter,
                        FusedEcfBackwardOp op, Value grad, Value g,
                        Value sharedGrad = {});

private:
  LogicalResult checkSupported(func::FuncOp func);
  LogicalResult checkGridLimits(Operation *op);
  LogicalResult checkLowerable(Operation *op);
  void planChains(func::FuncOp func);

  /// The single launch of `ecf`'s chain, ending at `epi`.
  void lowerSingleLaunch(ConversionPatternRewriter &rewriter, FusedEcfOp ecf,
                         FusedEpilogueOp epi, Value input, Value projection);
  /// The Hopper kernels (and the split of f32 operands); with `epi`, the
  /// kernel's tail runs that epilogue. Returns the cos, sin (and slices)
  /// buffers.
  SmallVector<Value> lowerWgmmaEcf(ConversionPatternRewriter &rewriter,
                                   FusedEcfOp ecf, const EcfKernelShape &sh,
                                   Value input, Value projection,
                                   const SeededProjection *seeded,
                                   const EcfSchedule &sched,
                                   FusedEpilogueOp epi);
  Value splitOperand(OpBuilder &b, Location loc, Value value,
                     const SplitOperandShape &shape);
  std::pair<Value, Value>
  finishEcf(ConversionPatternRewriter &rewriter, Location loc, FusedEcfOp ecf,
            gpu::GPUFuncOp kernel, std::array<int64_t, 3> grid,
            int64_t blockThreads, SmallVector<Value> args,
            int64_t numBatchTiles, int64_t dynamicSharedBytes,
            bool programmatic = false, bool sliceMajor = false,
            ValueRange trailingArgs = {});
  SmallVector<Value> tensorMapArgs(OpBuilder &b, Location loc,
                                   gpu::GPUFuncOp kernel,
                                   ArrayRef<Value> buffers,
                                   unsigned firstIndex = 0);
  Value resultBuffer(ConversionPatternRewriter &rewriter, Value result);
  /// The buffer of a fused forward's i16 phases `result`: a view of bytes
  /// allocated for it (phaseBytes), so that a backward that alone reads them
  /// can write its 16-bit dL/dy over them (viewAs).
  Value phaseBuffer(OpBuilder &b, Location loc, Value result);
  /// The bytes of a phaseBuffer viewed as [rows, cols] of `elem`.
  static Value viewAs(OpBuilder &b, Location loc, Value bytes, int64_t rows,
                      int64_t cols, Type elem);
  /// phaseBuffer's views -> their bytes.
  DenseMap<Value, Value> phaseBytes;

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
  /// The step counter whose value seeds `proj`, if it is one.
  static AdvanceStepOp stepOf(ProjectionOp proj) {
    return proj ? proj.getSeed().getDefiningOp<AdvanceStepOp>()
                : AdvanceStepOp();
  }
  /// What `proj`'s generator takes as its seed: the i64 seed, or the
  /// counter (memref<i64>) of a device step.
  static Value seedArgument(ProjectionOp proj) {
    AdvanceStepOp step = stepOf(proj);
    return step ? Value(step.getStep()) : Value(proj.getSeed());
  }
  /// Device steps that a kernel of the forward advances itself (the single
  /// launch, the epilogue kernel, the Hopper kernel's tail: advancesStep).
  DenseSet<Operation *> advancedSteps;
  /// The step counter that `epi`'s kernel advances (recorded in
  /// advancedSteps), if any: a scalar loss whose ECF's projection is seeded
  /// from one that no kernel advances yet. The projection kernel, its only
  /// reader, has completed before the epilogue runs (stream order; a
  /// programmatic dependent waits for its predecessors before its reads).
  AdvanceStepOp stepAdvancedBy(FusedEpilogueOp epi) {
    if (epilogueShape(epi).reduction == Reduction::none)
      return {};
    auto ar = epi.getCos().getDefiningOp<AllReduceMeanOp>();
    auto ecf = ar ? ar.getCos().getDefiningOp<FusedEcfOp>() : FusedEcfOp();
    AdvanceStepOp step =
        ecf ? stepOf(ecf.getProjection().getDefiningOp<ProjectionOp>())
            : AdvanceStepOp();
    if (!step || !advancedSteps.insert(step).second)
      return {};
    return step;
  }
  /// The type of g as the projection kernel writes it for `proj`'s readers.
  MemRefType seededGType(ProjectionOp proj);
  bool runsAsSingleLaunch(FusedEcfOp ecf) {
    if (ScheduleAttr attr = ecf.getScheduleAttr())
      return attr.getKernel() == KernelKind::single_launch;
    return usesSingleLaunch(ecf, schedule);
  }
  OpBuilder kernelBuilder() { return OpBuilder::atBlockEnd(kernels.getBody()); }
  gpu::GPUFuncOp addKernel(gpu::GPUFuncOp kernel) {
    kernelTable->insert(kernel); // renames on a clash
    return kernel;
  }

  /// The kernel shape of an ecf_cotangent: its epilogue shape, with the
  /// cotangent read as 1 when it is deferred to the backward GEMM.
  EpilogueKernelShape cotangentShape(EcfCotangentOp op) const {
    EpilogueKernelShape sh = epilogueShape(op);
    sh.unitCotangent = deferCotangent;
    return sh;
  }

  gpu::GPUModuleOp kernels;
  /// The schedule knobs of the options (tile sizes, projection chunk, tensor
  /// cores); the decisions themselves are made in EcfSchedule.cpp.
  EcfScheduleOptions schedule;
  /// defer-cotangent: the loss's cotangent scales the backward GEMM.
  bool deferCotangent;
  /// fast-normals: the Box-Muller step of every generated g.
  NormalMapping normals;
  /// The single launch's knobs.
  SingleLaunchKnobs single;
  /// The kernel module's symbols, read again for each function (a kernel
  /// whose name is taken gets the first free suffix from _0 on).
  std::optional<SymbolTable> kernelTable;
  /// Chains ecf -> all_reduce_mean -> fused_epilogue run as one launch
  /// (usesSingleLaunch, with the seeded projection), by their ecf.
  DenseMap<Operation *, FusedEpilogueOp> singleLaunchChain;
  /// The training steps among them (singleLaunchStep): the single launch
  /// also forms G and g, and their fused backward is the backward GEMM
  /// alone; by their ecf, and the backward's buffers (G, g) by the backward.
  DenseMap<Operation *, SingleLaunchStep> singleLaunchSteps;
  struct StepOperands {
    Value grad, g;
    EcfCotangentOp cotangent;
  };
  DenseMap<Operation *, StepOperands> stepOperands;
  /// Chains ecf -> all_reduce_mean -> fused_epilogue whose epilogue the
  /// Hopper kernel runs in its tail (WgmmaEcfShape::epilogue), by their ecf.
  DenseMap<Operation *, FusedEpilogueOp> tailChain;
  /// The tail chains whose means other ops read too (a training step's
  /// backward): the kernel's means are the fused_ecf's results, and the
  /// all_reduce_mean that only the folded epilogue reads, by their ecf.
  DenseMap<Operation *, AllReduceMeanOp> sharedTails;
  /// sigreg.ecf_cotangent ops whose work the gradient kernel of their fused
  /// backward (with saved slices) does, by that backward.
  DenseMap<Operation *, EcfCotangentOp> foldedCotangents;
  DenseSet<Operation *> absorbed;
  SmallVector<gpu::LaunchFuncOp> programmaticCandidates;
};

/// The backward GEMM's tile, 128 rows of dL/dx [rows, D] by 256, 128 or 64
/// features: the forward's rule for its slices (wgmmaTileSlices, without the
/// wgmma-slices option), so that a small batch still spreads over the
/// multiprocessors.
static int64_t backwardGemmTileFeatures(int64_t rows, int64_t D) {
  EcfScheduleOptions rule;
  return wgmmaTileSlices(1, rows, D, rule);
}

/// Fails with an error at `op` when a kernel it lowers to would need a grid
/// beyond CUDA's limits (x < 2^31, y and z <= 65535 blocks).
LogicalResult Lowering::checkGridLimits(Operation *op) {
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
        failed(check("backward GEMM",
                     ceilDiv(D, backwardGemmTileFeatures(V * N, D)),
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

LogicalResult Lowering::checkSupported(func::FuncOp func) {
  // The unfused backward first: its ops also use the forward's values in
  // ways the fused lowering rejects, and this is the error that explains why.
  WalkResult backward = func.walk([&](Operation *op) {
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
  WalkResult result = func.walk([&](Operation *op) {
    if (op == func.getOperation())
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
    // A device step's seed exists only in the kernels that generate the
    // projection: nothing on the host may read it.
    if (auto step = dyn_cast<AdvanceStepOp>(op)) {
      for (Operation *user : step->getUsers())
        if (!isa<ProjectionOp>(user)) {
          step.emitOpError("seeds a projection on the GPU only: its seed is "
                           "read in the projection's kernels, not on the "
                           "host, but '")
              << user->getName() << "' uses it";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    }
    if (!isa<ProjectionOp, FusedEcfOp, AllReduceMeanOp, FusedEpilogueOp,
             EcfCotangentOp, FusedEcfBackwardOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, tensor::DimOp, arith::ConstantOp,
             func::ReturnOp>(op)) {
      op->emitOpError("cannot be lowered by --convert-sigreg-to-gpu");
      return WalkResult::interrupt();
    }
    if (auto dim = dyn_cast<tensor::DimOp>(op);
        dim && !dim.getConstantIndex()) {
      dim.emitOpError("needs a constant dimension index");
      return WalkResult::interrupt();
    }
    // Values the host code never holds as a buffer: tensor constants, and a
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

/// The chain a kernel computing `ecf` may end with: one
/// sigreg.all_reduce_mean of world size 1 of its means whose results one
/// sigreg.fused_epilogue alone reads (other ops may read the means too: a
/// training step's backward), else null.
static std::pair<AllReduceMeanOp, FusedEpilogueOp>
tailEpilogue(FusedEcfOp ecf) {
  for (Operation *user : ecf.getCos().getUsers()) {
    auto ar = dyn_cast<AllReduceMeanOp>(user);
    if (!ar || ar.getWorldSize() != 1 || ar.getCos() != ecf.getCos() ||
        ar.getSin() != ecf.getSin() || !ar.getCosGlobal().hasOneUse() ||
        !ar.getSinGlobal().hasOneUse())
      continue;
    auto epi = dyn_cast<FusedEpilogueOp>(*ar.getCosGlobal().getUsers().begin());
    if (epi && epi.getCos() == ar.getCosGlobal() &&
        epi.getSin() == ar.getSinGlobal())
      return {ar, epi};
  }
  return {};
}

/// Finds the chains whose ops another op's kernel lowers (singleLaunchChain,
/// tailChain, foldedCotangents) and marks those ops absorbed.
void Lowering::planChains(func::FuncOp func) {
  func.walk([&](FusedEcfOp ecf) {
    // The Hopper kernel runs the epilogue in its tail when its means are
    // complete in the kernel (one batch tile, or the finalize folded in):
    // the means then live in the kernel alone, or, where other ops read them
    // too (a training step's backward, which may read the stored slices),
    // are its results as well.
    // With more batch tiles than the tail gathers, sigreg_ecf_finalize_loss
    // runs the finalize and that epilogue in one launch after the kernel.
    EcfSchedule sched = ecfSchedule(ecf);
    int64_t N = ecf.getInput().getType().getDimSize(1);
    // Partial sums per slice: batch tiles, or the persistent transposed
    // kernel's groups.
    int64_t T = sched.numTileSums();
    bool tail = T == 1 || wgmmaTailGathers(T, N, schedule.wgmmaAtomicSums);
    auto finalizeCarries = [](FusedEpilogueOp epi) {
      // (A count that is not constant is an error of checkLowerable.)
      return constantCount(epi.getGlobalCount()) &&
             finalizeLossSlices(epilogueShape(epi)) != 0;
    };
    // (Without a tail, wgmmaHasTail, the chain needs several batch tiles and
    // the finalize-loss kernel.)
    if (!sched.wgmmaHasTail())
      tail = false;
    if (sched.wgmma && (sched.wgmmaHasTail() || T > 1))
      if (auto [ar, epi] = tailEpilogue(ecf);
          epi && (tail || finalizeCarries(epi))) {
        tailChain[ecf] = epi;
        absorbed.insert(ar);
        absorbed.insert(epi);
        if (ecf.getSlices() || !foldableEpilogue(ecf))
          sharedTails[ecf] = ar;
        return;
      }
    if (!runsAsSingleLaunch(ecf))
      return;
    Operation *proj = ecf.getProjection().getDefiningOp<ProjectionOp>();
    if (std::optional<SingleLaunchStep> step = singleLaunchStep(ecf)) {
      // The loss's chain and the backward's cotangent run in the single
      // launch; the second all_reduce_mean forwards the means it writes; the
      // backward's lowering erases the cotangent and the projection.
      singleLaunchChain[ecf] = step->epilogue;
      singleLaunchSteps[ecf] = *step;
      for (Operation *op :
           {step->lossMean.getOperation(), step->epilogue.getOperation(),
            step->cotangent.getOperation(), proj})
        if (op)
          absorbed.insert(op);
      return;
    }
    auto ar = cast<AllReduceMeanOp>(*ecf.getCos().getUsers().begin());
    auto epi = cast<FusedEpilogueOp>(*ar.getCosGlobal().getUsers().begin());
    singleLaunchChain[ecf] = epi;
    absorbed.insert(ar);
    absorbed.insert(epi);
    if (proj)
      absorbed.insert(proj);
  });
  // Read only by a fused backward that forms dL/dy from saved slices: its
  // gradient kernel computes each slice's cotangent itself (one launch and
  // the dcos, dsin buffers fewer).
  func.walk([&](EcfCotangentOp op) {
    if (!op.getDcos().hasOneUse() || !op.getDsin().hasOneUse())
      return;
    auto bwd = dyn_cast<FusedEcfBackwardOp>(*op.getDcos().getUsers().begin());
    if (bwd && bwd.getSlices() && bwd.getDcos() == op.getDcos() &&
        bwd.getDsin() == op.getDsin()) {
      foldedCotangents[bwd] = op;
      absorbed.insert(op);
    }
  });
}

MemRefType Lowering::seededGType(ProjectionOp proj) {
  ProjectionSchedule layout = projectionSchedule(proj);
  int64_t D = proj.getType().getDimSize(0), S = proj.getType().getDimSize(1);
  MLIRContext *ctx = proj.getContext();
  Type halfType = layout.packedElement;
  if (halfType && layout.rowMajor) {
    // The Hopper kernel's split layout of an f32 problem: [2 Dp, S] hi ; lo.
    int64_t splitRows = layout.splitProjection ? wgmmaSplitFeatures(D) : 0;
    return MemRefType::get({splitRows ? 2 * splitRows : D, S}, halfType);
  }
  if (halfType)
    return MemRefType::get({(D + 1) / 2, S}, IntegerType::get(ctx, 32));
  return MemRefType::get({D, S}, Float32Type::get(ctx));
}

/// The errors the patterns would otherwise meet while lowering `op`.
LogicalResult Lowering::checkLowerable(Operation *op) {
  if (isa<FusedEpilogueOp, EcfCotangentOp>(op) &&
      !constantCount(op->getOperand(2)))
    return op->emitOpError("needs a constant global count on the GPU");
  if (auto cot = dyn_cast<EcfCotangentOp>(op);
      cot && deferCotangent && cot.getReduction() == Reduction::none)
    return cot.emitOpError(
        "defer-cotangent needs a scalar loss (reduction = mean or sum): a "
        "per-slice cotangent cannot scale dL/dx after the GEMM");
  auto ecf = dyn_cast<FusedEcfOp>(op);
  // The epilogue a launch of the ecf computes: the single launch's (null
  // for a sigreg.loss_grad alone) or the Hopper kernel's tail's.
  FusedEpilogueOp epi = ecf ? singleLaunchChain.lookup(ecf) : nullptr;
  if (ecf && !epi)
    epi = tailChain.lookup(ecf);
  if (epi && epi.getTMax() != ecf.getTMax())
    return epi.emitOpError("t_max differs from its sigreg.fused_ecf's");
  if (ecf && !singleLaunchChain.contains(ecf)) {
    EcfSchedule sched = ecfSchedule(ecf);
    if (ecf.getSlices() && (!sched.wgmma || sched.wgmmaPersistent))
      return ecf.emitOpError("the slices result needs the one-tile Hopper "
                             "kernel (schedule kernel = wgmma)");
    if (!sched.wgmma && !sched.tensorCores)
      for (int64_t t : {sched.blockRows, sched.blockSlices})
        if (t != 16 && t != 32 && t != 64)
          return ecf.emitOpError("tile sizes must be 16, 32 or 64, got ") << t;
  }
  auto bwd = dyn_cast<FusedEcfBackwardOp>(op);
  if (!bwd)
    return success();
  auto inType = bwd.getInput().getType();
  int64_t N = inType.getDimSize(1), D = inType.getDimSize(2);
  int64_t S = bwd.getProjection().getType().getDimSize(1);
  Type elem = inType.getElementType();
  auto fail = [&]() {
    return bwd.emitOpError("has no fused GPU lowering for this problem: ");
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
  if (double err = fusedBackwardError(bwd); err > kFusedBackwardErrorBudget)
    return fail() << "its estimated error with 16-bit roundings ("
                  << llvm::formatv("{0:e1}", err).str() << ", N = " << N
                  << ", D = " << D << ") exceeds the "
                  << kFusedBackwardErrorBudget
                  << " gradient tolerance; lower through "
                     "--sigreg-naive-gpu-pipeline";
  // A training step's single launch writes g in the backward GEMM's layout.
  bool fromSingleLaunch = llvm::any_of(singleLaunchSteps, [&](auto &entry) {
    return entry.second.backward == bwd;
  });
  if (fromSingleLaunch)
    return success();
  if (auto proj = bwd.getProjection().getDefiningOp<ProjectionOp>()) {
    // Row-major 16-bit: g itself, or the Hopper forward's hi + lo split,
    // whose first D rows are g rounded (read as such by
    // lowerFusedEcfBackward).
    MemRefType gType = seededGType(proj);
    int64_t rows = gType.getDimSize(0);
    if (gType.getElementType() != elem || gType.getDimSize(1) != S ||
        (rows != D && rows != 2 * wgmmaSplitFeatures(D)))
      return fail() << "its seeded projection is also read by a forward "
                       "kernel that needs g in another layout than the "
                       "row-major 16-bit one of the Hopper kernels";
  } else if (bwd.getProjection().getType().getElementType() != elem) {
    return fail() << "it needs an explicit projection of the input's type "
                  << elem;
  }
  return success();
}

LogicalResult Lowering::check(func::FuncOp func) {
  kernelTable.emplace(kernels);
  if (failed(checkSupported(func)))
    return failure();
  for (Type t : func.getResultTypes())
    if (!isa<RankedTensorType>(t))
      return func.emitError("GPU lowering supports tensor results only");
  planChains(func);
  WalkResult result = func.walk([&](Operation *op) {
    return failed(checkLowerable(op)) ? WalkResult::interrupt()
                                      : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The buffer a kernel writes `result` into: a new allocation, which
/// bufferization turns into the out-parameter when the result is returned.
/// A result returned through a tensor.collapse_shape alone is allocated in
/// the returned shape (that collapse is replaced by it) and expanded.
Value Lowering::resultBuffer(ConversionPatternRewriter &rewriter,
                             Value result) {
  Location loc = result.getLoc();
  MemRefType type = toMemref(result.getType());
  if (result.hasOneUse())
    if (auto collapse =
            dyn_cast<tensor::CollapseShapeOp>(*result.getUsers().begin());
        collapse && collapse->hasOneUse() &&
        isa<func::ReturnOp>(*collapse->getUsers().begin())) {
      Value out =
          memref::AllocOp::create(rewriter, loc, toMemref(collapse.getType()));
      Value expanded = memref::ExpandShapeOp::create(
          rewriter, loc, type, out, collapse.getReassociationIndices());
      rewriter.replaceOp(collapse, toTensor(rewriter, loc, out));
      return expanded;
    }
  return memref::AllocOp::create(rewriter, loc, type);
}

Value Lowering::viewAs(OpBuilder &b, Location loc, Value bytes, int64_t rows,
                       int64_t cols, Type elem) {
  return memref::ViewOp::create(
      b, loc, MemRefType::get({rows, cols}, elem), bytes,
      arith::ConstantIndexOp::create(b, loc, 0), ValueRange{});
}

Value Lowering::phaseBuffer(OpBuilder &b, Location loc, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  int64_t rows = type.getDimSize(0) * type.getDimSize(1),
          cols = type.getDimSize(2);
  Value bytes = memref::AllocOp::create(
      b, loc, MemRefType::get({rows * cols * 2}, b.getI8Type()));
  Value flat = viewAs(b, loc, bytes, rows, cols, b.getI16Type());
  Value view = memref::ExpandShapeOp::create(
      b, loc, toMemref(type), flat,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  phaseBytes[view] = bytes;
  return view;
}

/// A seeded projection: the generator kernel writes the raw g (as the
/// consumer reads it) and the per-chunk sums of g^2; A is never materialized.
void Lowering::lowerProjection(ConversionPatternRewriter &rewriter,
                               ProjectionOp proj) {
  Location loc = proj.getLoc();
  // A tensor-core consumer reads g as packed 16-bit hi(/lo) words, with
  // whole row pairs per chunk.
  ProjectionSchedule layout = projectionSchedule(proj);
  Type halfType = layout.packedElement;
  bool split = layout.splitProjection;
  ProjectionKernelShape shape{proj.getType().getDimSize(0),
                              proj.getType().getDimSize(1), layout.chunkRows,
                              normals};
  int64_t D = shape.featureDim, S = shape.numSlices;
  // The Hopper kernel's split layout of an f32 problem: [2 Dp, S] hi ; lo.
  int64_t splitRows =
      halfType && layout.rowMajor && split ? wgmmaSplitFeatures(D) : 0;
  MemRefType gType = seededGType(proj);
  Value g = memref::AllocOp::create(rewriter, loc, gType), loWords;
  if (halfType && !layout.rowMajor && split)
    loWords = memref::AllocOp::create(rewriter, loc, gType);
  Value sumSq = memref::AllocOp::create(
      rewriter, loc,
      MemRefType::get({shape.numChunks(), S}, rewriter.getF32Type()));
  OpBuilder kb = kernelBuilder();
  std::array<int64_t, 3> grid = {
      llvm::divideCeilSigned<int64_t>(S, kBlockThreads), shape.numChunks(), 1};
  Value seed = seedArgument(proj);
  // Generated by its consumer, the Hopper kernel (projection = generated or
  // cooperative): the buffers it writes and the seed, no launch here.
  if (layout.generateCluster || layout.cooperativeCtas) {
    rewriter.replaceOpWithMultiple(
        proj, SmallVector<SmallVector<Value>>{{g, sumSq, seed}});
    return;
  }
  // A device step: the kernel reads the seed from the counter.
  auto generator = [&](gpu::GPUFuncOp kernel) {
    if (!isa<IntegerType>(seed.getType()))
      readSeedFromStep(kernel, 0);
    return addKernel(kernel);
  };
  if (halfType && layout.rowMajor) {
    createLaunch(
        rewriter, loc,
        generator(buildProjectionKernel(kb, loc, shape, halfType, splitRows)),
        grid, kBlockThreads, {seed, g, sumSq});
  } else if (halfType) {
    SmallVector<Value> args = {seed, g};
    if (split)
      args.push_back(loWords);
    args.push_back(sumSq);
    createLaunch(
        rewriter, loc,
        generator(buildPackedProjectionKernel(kb, loc, shape, halfType, split)),
        grid, kBlockThreads, args);
  } else
    createLaunch(rewriter, loc,
                 generator(buildProjectionKernel(kb, loc, shape)), grid,
                 kBlockThreads, {seed, g, sumSq});
  SmallVector<Value> buffers = {g};
  if (loWords)
    buffers.push_back(loWords);
  buffers.push_back(sumSq);
  rewriter.replaceOpWithMultiple(proj,
                                 SmallVector<SmallVector<Value>>{buffers});
}

/// A fused ECF on the SIMT or mma.sync kernel (the Hopper kernel in
/// lowerWgmmaEcf), then the finalize kernel when the batch has several
/// tiles; or, rooted here, the single launch or the Hopper kernel with the
/// epilogue of its chain, emitted where the epilogue is.
void Lowering::lowerFusedEcf(ConversionPatternRewriter &rewriter,
                             FusedEcfOp ecf, Value input,
                             ValueRange projection) {
  Location loc = ecf.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  FusedEpilogueOp epi = singleLaunchChain.lookup(ecf);
  if (singleLaunchChain.contains(ecf)) {
    // A training step's launch goes where the ecf is: the backward reads its
    // buffers.
    rewriter.setInsertionPoint(singleLaunchSteps.contains(ecf)
                                   ? ecf.getOperation()
                                   : epi.getOperation());
    lowerSingleLaunch(rewriter, ecf, epi, input, projection.front());
    return;
  }
  epi = tailChain.lookup(ecf);
  AllReduceMeanOp sharedAr = sharedTails.lookup(ecf);
  // An exclusive chain is emitted where its epilogue is; a shared one where
  // the ecf is, so that the means' other readers come after it.
  if (epi && !sharedAr)
    rewriter.setInsertionPoint(epi);
  Value x = toBuffer(rewriter, loc, input);
  std::optional<SeededProjection> seeded = SeededProjection::of(projection);
  EcfKernelShape sh;
  fillEcfProblem(ecf, sh);
  sh.seeded = seeded.has_value();
  sh.projectionElement =
      seeded ? cast<MemRefType>(seeded->g.getType()).getElementType()
             : ecf.getProjection().getType().getElementType();
  EcfSchedule sched = ecfSchedule(ecf);
  sh.blockSlices = sched.blockSlices;
  sh.wgmmaCluster = sched.cluster;
  sh.promoteKTiles = sched.promoteKTiles;
  SmallVector<Value> results;
  if (sched.wgmma) {
    sh.blockRows = sched.blockRows;
    results = lowerWgmmaEcf(rewriter, ecf, sh, x, projection.front(),
                            seeded ? &*seeded : nullptr, sched, epi);
  } else {
    bool mma = sched.tensorCores;
    sh.normChunks = seeded ? seeded->chunks : 0;
    sh.blockRows = sched.blockRows;
    sh.blockSlices = sched.blockSlices;
    sh.tileK = sched.tileK;
    SmallVector<Value> args = {x};
    sh.splitProjection = seeded && seeded->loWords;
    if (seeded && mma) {
      args.push_back(seeded->g);
      if (sh.splitProjection)
        args.push_back(seeded->loWords);
      args.push_back(seeded->sumSq);
    } else if (seeded)
      args.append({seeded->g, seeded->sumSq});
    else
      args.push_back(toBuffer(rewriter, loc, projection.front()));
    OpBuilder kb = kernelBuilder();
    gpu::GPUFuncOp kernel = addKernel(mma ? buildFusedEcfMmaKernel(kb, loc, sh)
                                          : buildFusedEcfKernel(kb, loc, sh));
    auto [cos, sin] =
        finishEcf(rewriter, loc, ecf, kernel,
                  {sh.numSliceTiles(), sh.numBatchTiles(), sh.numViews},
                  kBlockThreads, args, sh.numBatchTiles(), 0);
    results = {cos, sin};
  }
  if (!epi || sharedAr) {
    // (A shared chain's epilogue was replaced by lowerWgmmaEcf: its
    // all_reduce_mean has no reader left.)
    if (sharedAr)
      rewriter.eraseOp(sharedAr);
    SmallVector<Value> tensors;
    for (Value buffer : results)
      tensors.push_back(toTensor(rewriter, loc, buffer));
    rewriter.replaceOp(ecf, tensors);
    return;
  }
  // The epilogue's result was replaced by lowerWgmmaEcf; the means live in
  // the kernel alone.
  rewriter.eraseOp(*ecf.getCos().getUsers().begin());
  rewriter.eraseOp(ecf);
}

/// The fused epilogue kernel: the statistic, clip and reduction.
void Lowering::lowerEpilogue(ConversionPatternRewriter &rewriter,
                             FusedEpilogueOp epi, Value cos, Value sin) {
  Location loc = epi.getLoc();
  EpilogueKernelShape sh = epilogueShape(epi);
  AdvanceStepOp step = stepAdvancedBy(epi);
  sh.advancesStep = bool(step);
  Value cosBuf = toBuffer(rewriter, loc, cos),
        sinBuf = toBuffer(rewriter, loc, sin);
  Value out = resultBuffer(rewriter, epi.getResult());
  OpBuilder kb = kernelBuilder();
  gpu::GPUFuncOp kernel = addKernel(buildEpilogueKernel(kb, loc, sh));
  SmallVector<Value> args = {cosBuf, sinBuf, out};
  if (sh.lastBlockReduction()) {
    args.push_back(allocCounters(rewriter, loc, 1));
    args.push_back(memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get({sh.numBlocks()}, rewriter.getF32Type())));
  }
  if (step)
    args.push_back(step.getStep());
  createLaunch(rewriter, loc, kernel, {sh.numBlocks(), 1, 1}, kBlockThreads,
               args);
  rewriter.replaceOp(epi, toTensor(rewriter, loc, out));
}

/// Launches a fused ECF kernel whose trailing arguments are the cos/sin
/// outputs: the means when the batch is one tile, else per-tile sums that
/// sigreg_ecf_finalize adds in a fixed order. Returns the cos and sin
/// buffers; with `programmatic`, the ECF kernel's launch may overlap the
/// launch before it.
std::pair<Value, Value> Lowering::finishEcf(
    ConversionPatternRewriter &rewriter, Location loc, FusedEcfOp ecf,
    gpu::GPUFuncOp kernel, std::array<int64_t, 3> grid, int64_t blockThreads,
    SmallVector<Value> args, int64_t T, int64_t dynamicSharedBytes,
    bool programmatic, bool sliceMajor, ValueRange trailingArgs) {
  auto cType = ecf.getCos().getType();
  int64_t V = cType.getDimSize(0), S = cType.getDimSize(1),
          P = cType.getDimSize(2);
  int64_t batch = ecf.getInput().getType().getDimSize(1);
  // Returned means (an entry point of the DDP split) are written in place.
  Value cosOut = resultBuffer(rewriter, ecf.getCos());
  Value sinOut = resultBuffer(rewriter, ecf.getSin());
  gpu::LaunchFuncOp launch;
  if (T == 1) {
    args.append({cosOut, sinOut});
    args.append(trailingArgs.begin(), trailingArgs.end());
    launch = createLaunch(rewriter, loc, kernel, grid, blockThreads, args,
                          dynamicSharedBytes);
  } else {
    auto [cosPart, sinPart] =
        allocTileSums(rewriter, loc,
                      sliceMajor ? ArrayRef<int64_t>{T, V, P, S}
                                 : ArrayRef<int64_t>{T, V, S, P});
    args.append({cosPart, sinPart});
    args.append(trailingArgs.begin(), trailingArgs.end());
    launch = createLaunch(rewriter, loc, kernel, grid, blockThreads, args,
                          dynamicSharedBytes);
    OpBuilder kb = kernelBuilder();
    gpu::GPUFuncOp finalize = addKernel(
        buildEcfFinalizeKernel(kb, loc, T, V, S, P, batch, sliceMajor));
    createLaunch(
        rewriter, loc, finalize,
        {llvm::divideCeilSigned<int64_t>(V * S * P, kBlockThreads), 1, 1},
        kBlockThreads, {cosPart, sinPart, cosOut, sinOut});
  }
  if (programmatic)
    programmaticCandidates.push_back(launch);
  return {cosOut, sinOut};
}

/// The tensor-map arguments of a kernel whose arguments from `firstIndex`
/// on take tensor maps of `buffers`: each an nvgpu.tma.create.descriptor
/// (encoded by the runtime from the bound buffer) with the box of the
/// kernel's descriptor type, passed as a pointer to a by-value parameter.
SmallVector<Value> Lowering::tensorMapArgs(OpBuilder &b, Location loc,
                                           gpu::GPUFuncOp kernel,
                                           ArrayRef<Value> buffers,
                                           unsigned firstIndex) {
  // The kernel casts each tensor-map argument to its descriptor type.
  auto descriptorType = [&](unsigned index) {
    for (Operation *user : kernel.getArgument(index).getUsers())
      if (auto c = dyn_cast<UnrealizedConversionCastOp>(user))
        return cast<nvgpu::TensorMapDescriptorType>(c.getResultTypes()[0]);
    llvm_unreachable("tensor-map argument without its descriptor cast");
  };
  SmallVector<Value> args;
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    unsigned index = firstIndex + static_cast<unsigned>(i);
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
/// reduction); a folded one is lowered with its fused backward.
void Lowering::lowerEcfCotangent(ConversionPatternRewriter &rewriter,
                                 EcfCotangentOp op, Value cos, Value sin,
                                 Value grad) {
  Location loc = op.getLoc();
  EpilogueKernelShape sh = cotangentShape(op);
  SmallVector<Value> args = {toBuffer(rewriter, loc, cos),
                             toBuffer(rewriter, loc, sin)};
  if (!sh.unitCotangent)
    args.push_back(toBuffer(rewriter, loc, grad));
  MemRefType ecf = toMemref(op.getCos().getType());
  Value dcos = memref::AllocOp::create(rewriter, loc, ecf);
  Value dsin = memref::AllocOp::create(rewriter, loc, ecf);
  args.append({dcos, dsin});
  OpBuilder kb = kernelBuilder();
  gpu::GPUFuncOp kernel = addKernel(buildEcfCotangentKernel(kb, loc, sh));
  createLaunch(rewriter, loc, kernel,
               {llvm::divideCeilSigned<int64_t>(sh.numViews * sh.numSlices,
                                                kBlockThreads),
                1, 1},
               kBlockThreads, args);
  rewriter.replaceOp(
      op, {toTensor(rewriter, loc, dcos), toTensor(rewriter, loc, dsin)});
}

/// The fused backward on the Hopper machinery (docs/BACKWARD.md): the ECF
/// gradient kernel recomputes y per 128-row tile and writes G = dL/dy
/// (divided by ||g_s|| when seeded) in the input's 16-bit type, [V * N, S];
/// the backward GEMM then forms dx = G g^T, K = S, into the result.
void Lowering::lowerFusedEcfBackward(ConversionPatternRewriter &rewriter,
                                     FusedEcfBackwardOp op, Value input,
                                     ValueRange projection, Value dcos,
                                     Value dsin, ValueRange slices) {
  Location loc = op.getLoc();
  auto inType = op.getInput().getType();
  int64_t V = inType.getDimSize(0), N = inType.getDimSize(1),
          D = inType.getDimSize(2);
  int64_t S = op.getProjection().getType().getDimSize(1),
          P = op.getDcos().getType().getDimSize(2);
  Type elem = inType.getElementType();
  if (auto fromStep = stepOperands.find(op); fromStep != stepOperands.end()) {
    // A training step's single launch wrote G and g: the GEMM alone; the
    // cotangent and the projection it absorbed go with the backward.
    StepOperands st = fromStep->second;
    emitBackwardGemm(rewriter, op, st.grad, st.g);
    rewriter.eraseOp(st.cotangent);
    if (Operation *proj = op.getProjection().getDefiningOp())
      rewriter.eraseOp(proj);
    return;
  }
  std::optional<SeededProjection> seeded = SeededProjection::of(projection);
  Value g = seeded ? seeded->g : toBuffer(rewriter, loc, projection.front());
  // The Hopper forward's hi + lo split of a seeded g ([2 Dp, S]): the
  // backward's kernels read its first D rows, g rounded to the input's type
  // (what they read when the forward does not split it; the split serves
  // the forward's accuracy, the backward's budget counts that rounding).
  if (auto gType = cast<MemRefType>(g.getType()); gType.getDimSize(0) != D)
    g = memref::ReinterpretCastOp::create(
        rewriter, loc, MemRefType::get({D, S}, gType.getElementType()), g,
        /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{D, S},
        /*strides=*/ArrayRef<int64_t>{S, 1});
  // The forward's tile rule (and its wgmma-slices option), at least 128
  // slices: the 64-slice tile is the forward's alone.
  int64_t tileSlices =
      std::max<int64_t>(128, wgmmaTileSlices(V, N, S, schedule));
  WgmmaEcfShape w{V,
                  N,
                  D,
                  S,
                  P,
                  op.getTMax().convertToDouble(),
                  elem,
                  seeded.has_value(),
                  seeded ? seeded->chunks : 0,
                  getWgmmaTiling(tileSlices)};
  OpBuilder kb = kernelBuilder();
  Value grad, sharedGrad;
  bool inPlace = false;
  SmallVector<Value> args;
  if (!slices.empty()) {
    // dL/dy from the forward's slices (--sigreg-save-slices): no GEMM; the
    // cotangent folded in where planChains left it to this kernel. Phases
    // read by this op alone take dL/dy in place (the same bytes, viewed as
    // the input's type for the GEMM).
    Value sliceBuffer = toBuffer(rewriter, loc, slices.front());
    if (auto toBuf = sliceBuffer.getDefiningOp<bufferization::ToBufferOp>())
      if (auto toTen =
              toBuf.getTensor().getDefiningOp<bufferization::ToTensorOp>())
        sliceBuffer = toTen.getBuffer();
    w.slicesPhase =
        cast<MemRefType>(sliceBuffer.getType()).getElementType().isInteger(16);
    if (Value bytes = phaseBytes.lookup(sliceBuffer);
        bytes && op.getSlices().hasOneUse()) {
      inPlace = true;
      sharedGrad = bytes;
      grad = viewAs(rewriter, loc, bytes, V * N, S, elem);
    }
    args = {memref::CollapseShapeOp::create(
        rewriter, loc, sliceBuffer,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}})};
    if (seeded)
      args.push_back(seeded->sumSq);
    EcfCotangentOp cot = foldedCotangents.lookup(op);
    std::optional<EpilogueKernelShape> cotangent;
    if (cot) {
      cotangent = cotangentShape(cot);
      for (Value v : {cot.getCos(), cot.getSin(), cot.getGrad()})
        if (v != cot.getGrad() || !cotangent->unitCotangent)
          args.push_back(toBuffer(rewriter, loc, rewriter.getRemappedValue(v)));
    } else {
      args.append(
          {toBuffer(rewriter, loc, dcos), toBuffer(rewriter, loc, dsin)});
    }
    if (!inPlace) {
      grad = memref::AllocOp::create(rewriter, loc,
                                     MemRefType::get({V * N, S}, elem));
      args.push_back(grad);
    }
    int64_t rowsPerBlock = ecfGradSliceRows(V, N, S);
    // Programmatic dependents (settleProgrammaticLaunches keeps the mark
    // where a launch precedes them): this kernel and the backward GEMM run
    // griddepcontrol.wait before they read what the launch before wrote.
    programmaticCandidates.push_back(createLaunch(
        rewriter, loc,
        addKernel(buildEcfGradSlicesKernel(kb, loc, w, rowsPerBlock,
                                           cotangent ? &*cotangent : nullptr,
                                           inPlace)),
        {llvm::divideCeilSigned<int64_t>(S, kBlockThreads),
         llvm::divideCeilSigned<int64_t>(N, rowsPerBlock), V},
        kBlockThreads, args));
  } else {
    // y recomputed from x viewed as [V * N, D].
    grad = memref::AllocOp::create(rewriter, loc,
                                   MemRefType::get({V * N, S}, elem));
    Value rows = memref::CollapseShapeOp::create(
        rewriter, loc, toBuffer(rewriter, loc, input),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    gpu::GPUFuncOp ecfGrad = addKernel(buildEcfGradWgmmaKernel(kb, loc, w));
    args = tensorMapArgs(rewriter, loc, ecfGrad, {rows, g});
    if (seeded)
      args.push_back(seeded->sumSq);
    args.append(
        {toBuffer(rewriter, loc, dcos), toBuffer(rewriter, loc, dsin), grad});
    createLaunch(rewriter, loc, ecfGrad,
                 {w.numSliceTiles(), w.numBatchTiles(), V}, w.tiling.threads,
                 args, wgmmaDynamicSharedBytes(w.tiling, w.numPoints));
  }

  emitBackwardGemm(rewriter, op, grad, g, sharedGrad);
  if (EcfCotangentOp cot = foldedCotangents.lookup(op))
    rewriter.eraseOp(cot);
}

/// The index of `v` among its function's results, when its only use (through
/// reshapes with one use each) is the return.
static std::optional<int64_t> returnedAs(Value v) {
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (isa<func::ReturnOp>(user))
      return v.getUses().begin()->getOperandNumber();
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user))
      return std::nullopt;
    v = user->getResult(0);
  }
  return std::nullopt;
}

/// The backward GEMM dx = G g^T (K = S) of `op` into its result, which it
/// replaces: one launch, or row parts (backwardGemmParts) when G's bytes
/// `sharedGrad` may share dx's allocation.
void Lowering::emitBackwardGemm(ConversionPatternRewriter &rewriter,
                                FusedEcfBackwardOp op, Value grad, Value g,
                                Value sharedGrad) {
  Location loc = op.getLoc();
  auto inType = op.getInput().getType();
  int64_t V = inType.getDimSize(0), N = inType.getDimSize(1),
          D = inType.getDimSize(2);
  int64_t S = op.getProjection().getType().getDimSize(1);
  Type elem = inType.getElementType();
  OpBuilder kb = kernelBuilder();
  int64_t tileFeatures = backwardGemmTileFeatures(V * N, D);
  // A deferred cotangent: the loss's, whose ECF cotangent the kernels
  // before formed with 1.
  auto cot = op.getDcos().getDefiningOp<EcfCotangentOp>();
  bool scaled = deferCotangent && cot;
  ProjectTransposeShape t{
      V * N,
      D,
      S,
      elem,
      getWgmmaTiling(tileFeatures, /*persistent=*/false,
                     llvm::divideCeilSigned<int64_t>(D, tileFeatures) *
                         llvm::divideCeilSigned<int64_t>(V * N, kWgmmaRows)),
      op.getResult().getType().getElementType(),
      scaled};
  Type dxElem = op.getResult().getType().getElementType();
  std::optional<int64_t> result = returnedAs(op.getResult());
  std::optional<BackwardGemmParts> parts;
  if (sharedGrad && result)
    parts = backwardGemmParts(V * N, D, S, dxElem.getIntOrFloatBitWidth() / 8);
  t.rowPart = parts.has_value();
  gpu::GPUFuncOp gemm = addKernel(buildProjectTransposeWgmmaKernel(kb, loc, t));
  Value dx = resultBuffer(rewriter, op.getResult());
  Value dxRows = memref::CollapseShapeOp::create(
      rewriter, loc, dx, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  SmallVector<Value> args = tensorMapArgs(rewriter, loc, gemm, {grad, g});
  args.push_back(dxRows);
  if (scaled)
    args.push_back(
        toBuffer(rewriter, loc, rewriter.getRemappedValue(cot.getGrad())));
  int64_t rowTiles = llvm::divideCeilSigned<int64_t>(V * N, kWgmmaRows);
  int64_t count = parts ? parts->count : 1;
  for (int64_t j = 0; j < count; ++j) {
    int64_t first = parts ? j * parts->rowTilesPerPart : 0;
    int64_t tiles =
        parts ? std::min(parts->rowTilesPerPart, rowTiles - first) : rowTiles;
    SmallVector<Value> partArgs = args;
    if (parts)
      partArgs.push_back(arith::ConstantOp::create(
          rewriter, loc, rewriter.getI32IntegerAttr(first)));
    gpu::LaunchFuncOp launch = createLaunch(
        rewriter, loc, gemm,
        {llvm::divideCeilSigned<int64_t>(D, t.tiling.slices), tiles, 1},
        t.tiling.threads, partArgs, wgmmaDynamicSharedBytes(t.tiling));
    // The first launch of the backward phase (docs/AOT.md) starts a run of
    // its own: not a programmatic dependent of the launch before it. A later
    // part waits for the one before (griddepcontrol.wait): it writes dx over
    // the rows of G that part read.
    if (scaled && j == 0)
      launch->setAttr(kPhaseAttrName, rewriter.getStringAttr("backward"));
    else
      programmaticCandidates.push_back(launch);
  }
  if (parts)
    sharedGrad.getDefiningOp()->setAttr(
        kSharesResultAttrName,
        rewriter.getDictionaryAttr(
            {rewriter.getNamedAttr("result",
                                   rewriter.getI64IntegerAttr(*result)),
             rewriter.getNamedAttr(
                 "offset", rewriter.getI64IntegerAttr(parts->gradOffset))}));
  rewriter.replaceOp(op, toTensor(rewriter, loc, dx));
}

void Lowering::finishDeviceSteps(func::FuncOp func) {
  SmallVector<AdvanceStepOp> steps;
  func.walk([&](AdvanceStepOp op) { steps.push_back(op); });
  for (AdvanceStepOp step : steps) {
    assert(step->use_empty() && "the step's projections are lowered");
    if (!advancedSteps.contains(step)) {
      Block &body = func.getBody().front();
      Operation *end = body.getTerminator();
      for (auto launch : body.getOps<gpu::LaunchFuncOp>())
        if (launch->hasAttr(kPhaseAttrName)) {
          end = launch;
          break;
        }
      // One kernel for every function of the module.
      auto kernel = kernelTable->lookup<gpu::GPUFuncOp>("sigreg_advance_step");
      if (!kernel) {
        OpBuilder kb = kernelBuilder();
        kernel = addKernel(buildAdvanceStepKernel(kb, step.getLoc()));
      }
      OpBuilder b(end);
      createLaunch(b, step.getLoc(), kernel, {1, 1, 1}, 1, {step.getStep()});
    }
    step.erase();
  }
  advancedSteps.clear();
}

/// Keeps `launch` programmatic (kProgrammaticLaunchAttrName) when the step
/// before it is a kernel launch: only allocations, constants, casts,
/// reshapes, tensor-map descriptors and the bufferization casts (no steps
/// of the manifest) may lie between them.
void Lowering::settleProgrammaticLaunches() {
  for (gpu::LaunchFuncOp launch : programmaticCandidates)
    for (Operation *op = launch->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<gpu::LaunchFuncOp>(op)) {
        launch->setAttr(kProgrammaticLaunchAttrName,
                        UnitAttr::get(launch.getContext()));
        break;
      }
      if (!isa<memref::AllocOp, arith::ConstantOp, memref::CastOp,
               memref::ExpandShapeOp, memref::CollapseShapeOp, memref::ViewOp,
               nvgpu::TmaCreateDescriptorOp, UnrealizedConversionCastOp,
               bufferization::ToBufferOp, bufferization::ToTensorOp,
               tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::DimOp>(
              op))
        break;
    }
  programmaticCandidates.clear();
}

/// CTAs of the one-tile Hopper kernel's grid (sh.blockRows-row tiles).
static int64_t wgmmaGridCtas(const EcfKernelShape &sh) {
  return sh.numViews * llvm::divideCeilSigned(sh.batch, sh.blockRows) *
         llvm::divideCeilSigned(sh.numSlices, sh.blockSlices);
}

/// Host side of the Hopper kernel: x viewed as [V * N, D] and the 16-bit
/// projection [D, S] get tensor maps (nvgpu.tma.create.descriptor, encoded
/// by the runtime from the bound buffers), passed to the kernel as pointers
/// to by-value parameters.
SmallVector<Value> Lowering::lowerWgmmaEcf(ConversionPatternRewriter &rewriter,
                                           FusedEcfOp ecf,
                                           const EcfKernelShape &sh, Value x,
                                           Value explicitProjection,
                                           const SeededProjection *seeded,
                                           const EcfSchedule &sched,
                                           FusedEpilogueOp epi) {
  Location loc = ecf.getLoc();
  bool persistent = sched.wgmmaPersistent;
  bool split = wgmmaSplitsInput(ecf);
  WgmmaEcfShape w{sh.numViews,
                  sh.batch,
                  sh.featureDim,
                  sh.numSlices,
                  sh.numPoints,
                  sh.tMax,
                  split ? rewriter.getBF16Type() : sh.inputElement,
                  bool(seeded),
                  seeded ? seeded->chunks : 0,
                  getWgmmaTiling(sh.blockSlices, persistent,
                                 persistent ? 0 : wgmmaGridCtas(sh),
                                 sh.blockRows, sh.promoteKTiles)};
  // The one-tile kernel of 128-row tiles (the others have no tail).
  bool tail = sched.wgmmaHasTail();
  // A seeded g generated as hi and lo rows (lowerProjection), or an f32
  // problem: the split layout.
  bool splitG = seeded && cast<MemRefType>(seeded->g.getType()).getDimSize(0) !=
                              sh.featureDim;
  w.splitFeatures = split || splitG ? wgmmaSplitFeatures(sh.featureDim) : 0;
  w.splitInput = split;
  // The schedule's cluster: along the batch tiles of the one-tile kernel,
  // pairs of tile groups in the ping-pong kernel; with a projection the
  // kernel generates itself, the CTAs that generate the g tile together (no
  // multicast).
  bool generate = seeded && seeded->seed;
  bool cooperative = generate && sched.cooperativeProjection;
  w.tiling.cluster = generate ? 1 : sh.wgmmaCluster;
  w.tiling.generate = generate && !cooperative ? sh.wgmmaCluster : 0;
  // The grid generates g (projection = cooperative), in the chunks
  // chooseProjectionSchedule gave the projection.
  if (cooperative)
    w.cooperativeChunkRows =
        projectionSchedule(ecf.getProjection().getDefiningOp<ProjectionOp>())
            .chunkRows;
  w.normals = normals;
  // The tail (one-tile kernel): the finalize for few batch tiles, and the
  // epilogue of a chain planChains gave it.
  EpilogueKernelShape epiShape;
  AdvanceStepOp step;
  w.foldFinalize = tail && wgmmaTailGathers(w.numBatchTiles(), sh.batch,
                                            schedule.wgmmaAtomicSums);
  // More batch tiles than the tail gathers: the epilogue of the chain runs
  // in sigreg_ecf_finalize_loss after the kernel (planChains).
  bool finalizeLoss = epi && w.numTileSums() > 1 && !w.foldFinalize;
  if (epi) {
    epiShape = epilogueShape(epi);
    step = stepAdvancedBy(epi);
    epiShape.advancesStep = bool(step);
    if (!finalizeLoss)
      w.epilogue = &epiShape;
  }
  w.atomicSums = tail && wgmmaAtomicSums(w.numBatchTiles(), sh.batch,
                                         schedule.wgmmaAtomicSums);
  // The slices for the fused backward (--sigreg-save-slices), written where
  // their reader finds them.
  Value slices;
  // (checkLowerable sends only the one-tile kernel here with a slices
  // result.)
  if (Value result = ecf.getSlices()) {
    w.storeSlices = true;
    w.slicesPhase =
        cast<RankedTensorType>(result.getType()).getElementType().isInteger(16);
    slices = w.slicesPhase ? phaseBuffer(rewriter, loc, result)
                           : resultBuffer(rewriter, result);
  }
  OpBuilder kb = kernelBuilder();
  gpu::GPUFuncOp kernel = addKernel(
      w.tiling.pingPong() ? buildFusedEcfWgmmaPersistentKernel(kb, loc, w)
      : tail              ? buildFusedEcfWgmmaKernel(kb, loc, w)
                          : buildFusedEcfWgmmaTransposedKernel(kb, loc, w));

  Value rows = memref::CollapseShapeOp::create(
      rewriter, loc, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value projection =
      seeded ? seeded->g : toBuffer(rewriter, loc, explicitProjection);
  // A generated g the one-tile kernel's batch tiles all re-read, too large to
  // stay in L2 beside x's stream by itself: kept in L2's persisting portion
  // (large -20 us, N 4096 D 4096 S 8192 -19 us; docs/PERF-NOTES.md l2).
  if (seeded && !w.tiling.pingPong() &&
      cast<MemRefType>(seeded->g.getType()).getNumElements() * 2 >=
          kL2PersistProjectionBytes)
    if (Operation *alloc = seeded->g.getDefiningOp<memref::AllocOp>())
      alloc->setAttr(kL2PersistAttrName, rewriter.getUnitAttr());
  if (split) {
    // x as [V * N, 2 Dp] = [hi | lo]; an explicit A as [2 Dp, S] = [hi ; lo]
    // (a seeded g was generated so).
    rows = splitOperand(rewriter, loc, rows,
                        {sh.numViews * sh.batch, sh.featureDim,
                         /*alongRows=*/false, w.splitFeatures});
    if (!seeded)
      projection = splitOperand(rewriter, loc, projection,
                                {sh.featureDim, sh.numSlices,
                                 /*alongRows=*/true, w.splitFeatures});
  }
  // A seed read from a step counter: every thread of the kernel loads it at
  // the entry (forwardArgs: after the two tensor maps and sumSq).
  if (generate && isa<MemRefType>(seeded->seed.getType()))
    readSeedFromStep(kernel, 3);
  SmallVector<Value> args =
      tensorMapArgs(rewriter, loc, kernel, {rows, projection});
  if (seeded)
    args.push_back(seeded->sumSq);
  if (generate)
    args.append({seeded->seed, seeded->g});
  if (cooperative)
    args.push_back(allocZeroInitWord(rewriter, loc));
  // Persistent: the ping-pong kernel one CTA per multiprocessor (at most one
  // per tile) in whole clusters, the transposed kernel one per slice tile
  // in each of its groups (transposedSumGroups).
  std::array<int64_t, 3> grid =
      persistent
          ? std::array<int64_t, 3>{w.tiling.pingPong()
                                       ? std::min<int64_t>(w.numTiles(),
                                                           kTargetBlocks / 2) /
                                             w.tiling.cluster * w.tiling.cluster
                                       : w.numTileSums() * w.numSliceTiles(),
                                   1, 1}
          : std::array<int64_t, 3>{w.numSliceTiles(), w.numBatchTiles(),
                                   w.numViews};
  SmallVector<Value> trailing;
  if (slices)
    trailing.push_back(memref::CollapseShapeOp::create(
        rewriter, loc, slices, ArrayRef<ReassociationIndices>{{0, 1}, {2}}));
  int64_t T = w.numTileSums();
  SmallVector<Value> results;
  if (finalizeLoss) {
    auto [cosPart, sinPart] = allocTileSums(
        rewriter, loc, {T, sh.numViews, sh.numPoints, sh.numSlices});
    args.append({cosPart, sinPart});
    args.append(trailing);
    programmaticCandidates.push_back(
        createLaunch(rewriter, loc, kernel, grid, w.tiling.threads, args,
                     wgmmaDynamicSharedBytes(w.tiling, w.numPoints)));
    Value cosOut = resultBuffer(rewriter, ecf.getCos());
    Value sinOut = resultBuffer(rewriter, ecf.getSin());
    Value out = resultBuffer(rewriter, epi.getResult());
    SmallVector<Value> finalArgs = {cosPart, sinPart, cosOut, sinOut, out};
    if (epiShape.reduction != Reduction::none)
      finalArgs.push_back(allocZeroInitWord(rewriter, loc));
    if (step)
      finalArgs.push_back(step.getStep());
    OpBuilder fb = kernelBuilder();
    gpu::GPUFuncOp finalize =
        addKernel(buildEcfFinalizeLossKernel(fb, loc, T, sh.batch, epiShape));
    programmaticCandidates.push_back(createLaunch(
        rewriter, loc, finalize, {finalizeLossBlocks(epiShape), 1, 1},
        kBlockThreads, finalArgs));
    rewriter.replaceOp(epi, toTensor(rewriter, loc, out));
    results = {cosOut, sinOut};
  } else if (!w.foldFinalize && !w.epilogue) {
    auto [cos, sin] =
        finishEcf(rewriter, loc, ecf, kernel, grid, w.tiling.threads, args, T,
                  wgmmaDynamicSharedBytes(w.tiling, w.numPoints),
                  /*programmatic=*/true, /*sliceMajor=*/true, trailing);
    results = {cos, sin};
  } else {
    // The kernel's tail writes the means, and with an epilogue the loss: one
    // launch (forwardArgs has the argument order).
    Value cosOut = resultBuffer(rewriter, ecf.getCos());
    Value sinOut = resultBuffer(rewriter, ecf.getSin());
    if (T == 1) {
      args.append({cosOut, sinOut});
    } else if (w.atomicSums) {
      // Fixed-point accumulators, zero at the first launch, reset by the
      // tail.
      auto accType = MemRefType::get({sh.numViews, sh.numPoints, sh.numSlices},
                                     rewriter.getI64Type());
      for (int i = 0; i < 2; ++i) {
        auto acc = memref::AllocOp::create(rewriter, loc, accType);
        acc->setAttr("sigreg.zero_init", rewriter.getUnitAttr());
        args.push_back(acc);
      }
    } else {
      auto [cosPart, sinPart] = allocTileSums(
          rewriter, loc, {T, sh.numViews, sh.numPoints, sh.numSlices});
      args.append({cosPart, sinPart});
    }
    args.append(trailing);
    if (w.foldFinalize)
      args.append({cosOut, sinOut});
    if (w.numCounters())
      args.push_back(allocCounters(rewriter, loc, w.numCounters()));
    Value out;
    if (epi) {
      out = resultBuffer(rewriter, epi.getResult());
      args.push_back(out);
      if (w.lossSumLayout()) {
        args.push_back(allocZeroInitWord(rewriter, loc));
      } else if (epiShape.reduction != Reduction::none) {
        args.push_back(memref::AllocOp::create(
            rewriter, loc,
            MemRefType::get({sh.numViews * sh.numSlices},
                            rewriter.getF32Type())));
      }
      if (step)
        args.push_back(step.getStep());
    }
    programmaticCandidates.push_back(
        createLaunch(rewriter, loc, kernel, grid, w.tiling.threads, args,
                     wgmmaDynamicSharedBytes(w.tiling, w.numPoints)));
    if (epi)
      rewriter.replaceOp(epi, toTensor(rewriter, loc, out));
    results = {cosOut, sinOut};
  }
  if (slices)
    results.push_back(slices);
  // The grid barrier needs every CTA resident: a cooperative launch.
  if (cooperative)
    for (auto launch :
         rewriter.getInsertionBlock()->getOps<gpu::LaunchFuncOp>())
      if (launch.getKernelName() == kernel.getName())
        launch->setAttr(kCooperativeLaunchAttrName, rewriter.getUnitAttr());
  return results;
}

/// A workspace with `value` (an f32 matrix) split into bf16 hi + lo parts
/// by sigreg_split_operand, in the layout of `shape`.
Value Lowering::splitOperand(OpBuilder &b, Location loc, Value value,
                             const SplitOperandShape &shape) {
  Value out = memref::AllocOp::create(b, loc, shape.outType(b.getContext()));
  OpBuilder kb = kernelBuilder();
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
void Lowering::lowerSingleLaunch(ConversionPatternRewriter &rewriter,
                                 FusedEcfOp ecf, FusedEpilogueOp epi,
                                 Value input, Value projection) {
  Location loc = epi ? epi.getLoc() : ecf.getLoc();
  SingleLaunchShape sh;
  fillEcfProblem(ecf, sh);
  auto proj = ecf.getProjection().getDefiningOp<ProjectionOp>();
  sh.seeded = bool(proj);
  // The single launch generates g with the exact mapping unless its k walk
  // is staggered by rule or its x tile is small (below): at blog, with the
  // approximate functions alone its k loop has 27% fewer instructions, but
  // ptxas sinks the x loads below the generation (blog 0.0127 -> 0.0162
  // ms), and with those loads issued one step group ahead it gains nothing
  // (docs/PERF-NOTES.md, seventeenth session); staggered, the blocks' loads
  // spread and it gains 14%.
  // single-launch-fast-normals asks for the fast mapping on tensor cores
  // anyway.
  if (single.fastNormals)
    sh.normals = normals;
  sh.staggerSteps = single.stagger == 1;
  sh.fragmentEcf = single.fragmentEcf == 1;
  sh.stepGroup = single.stepGroup;
  sh.prefetchX = single.prefetchX;
  sh.prefetchTail = single.prefetchTail;
  sh.transposedEcf = single.transposedEcf;
  sh.stageX = single.stageX;
  sh.stageTma = single.stageTma;
  sh.genAhead = single.genAhead;
  sh.termSums = single.termSums;
  sh.projectionElement =
      proj ? Type() : ecf.getProjection().getType().getElementType();
  sh.chunkRows = projectionChunkRows(schedule.projectionChunk);
  ScheduleAttr attr = ecf.getScheduleAttr();
  SingleLaunchTiling tiling =
      attr ? SingleLaunchTiling{attr.getRows(), attr.getSlices(),
                                attr.getProjection(), attr.getWarps()}
           : chooseSingleLaunchTiling(ecf, schedule);
  sh.blockRows = tiling.blockRows;
  sh.blockSlices = tiling.blockSlices;
  sh.warps = tiling.warps;
  sh.tensorCores = singleLaunchUsesMma(tiling.projection);
  sh.splitProjection = tiling.projection == ProjectionMode::split;
  auto step = singleLaunchSteps.find(ecf);
  if (step != singleLaunchSteps.end())
    sh.stepCotangent = cotangentShape(step->second.cotangent);
  // The loss's knobs: its epilogue's, or (sigreg.loss_grad alone) the
  // cotangent's, whose loss the kernel then computes into a workspace.
  EpilogueKernelShape knobs = epi ? epilogueShape(epi) : *sh.stepCotangent;
  sh.globalCount = knobs.globalCount;
  sh.clip = knobs.clip;
  sh.clipValue = knobs.clipValue;
  sh.reduction = knobs.reduction;
  // By rule, tiles of at most kSingleLaunchStaggerMaxRows rows walk their k
  // steps staggered, generating g with the fast normals: on the H200 blog
  // went 12.5-12.8 -> 10.8-11.1 us with both, while each alone gained at
  // most 2% (the fast normals' shorter loop exposed the x loads that every
  // block issued in the same order) and both lost at 256 rows (N 256 D 1024
  // 11.7 -> 15.4; docs/PERF-NOTES.md, twenty-third session).
  if (single.stagger == -1 && sh.blockRows <= kSingleLaunchStaggerMaxRows) {
    sh.staggerSteps = true;
    if (sh.staggersSteps())
      sh.normals = normals;
    else
      sh.staggerSteps = false;
  }
  // By rule the unstaggered tensor-core tiles of at most
  // kSingleLaunchFastNormalsMaxTile x elements take the fast normals too:
  // what bound them is the generation's instructions, not x's loads.
  if (sh.tensorCores && !sh.staggerSteps &&
      sh.blockRows * sh.featureDim <= kSingleLaunchFastNormalsMaxTile)
    sh.normals = normals;
  // A staggered walk takes kSingleLaunchStaggerStepGroup steps per
  // iteration by rule where the grid is at most one block per
  // multiprocessor and they divide every warp's steps and leave it
  // staggered: fewer x loads in flight per warp, a loop body half as long.
  int64_t blocks = sh.numViews * sh.numBatchTiles() * sh.numSliceTiles();
  if (sh.staggerSteps && single.stepGroup == 0 && blocks <= kMultiprocessors) {
    sh.stepGroup = kSingleLaunchStaggerStepGroup;
    if (sh.mmaStepGroup() != kSingleLaunchStaggerStepGroup ||
        !sh.staggersSteps())
      sh.stepGroup = 0;
  }
  // By rule the ECF runs on the accumulators (where ecfFromFragments allows)
  // in tiles of at least kSingleLaunchFragmentEcfMinRows rows: on the H200
  // minimal went 6.5-6.8 -> 6.3-6.5 us and the 128- and 256-row shapes of
  // the fragment set gained 0.1-0.4 us, while 40 rows in a 64-row tile lost
  // 0.1-0.3.
  if (single.fragmentEcf == -1)
    sh.fragmentEcf = sh.blockRows >= kSingleLaunchFragmentEcfMinRows;
  // By rule a tensor-core kernel whose grid is one wave tells ptxas the
  // blocks each multiprocessor holds (.minnctapersm, at most
  // kSingleLaunchMaxMinctasm): without it ptxas fitted blog's k loop to the
  // registers of the stages after it, which the halving butterfly had
  // lowered to 42, sinking the loop's x loads to its MMAs. The SIMT kernels
  // (f32 inputs, explicit projections) measured 0.1-0.4 us slower with it,
  // bar one (docs/PERF-NOTES.md, thirtieth session).
  int64_t perSM = (blocks + kMultiprocessors - 1) / kMultiprocessors;
  sh.minctasm = single.minctasm != -1 ? single.minctasm
                : sh.tensorCores && perSM <= kSingleLaunchMaxMinctasm ? perSM
                                                                      : 0;

  Type f32 = rewriter.getF32Type();
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints,
          T = sh.numBatchTiles();
  Value out = epi ? resultBuffer(rewriter, epi.getResult())
                  : memref::AllocOp::create(rewriter, loc,
                                            sh.reduction == Reduction::none
                                                ? MemRefType::get({V, S}, f32)
                                                : MemRefType::get({}, f32));
  if (auto step = stepOf(proj)) {
    sh.deviceStep = true;
    if (sh.advancesStep())
      advancedSteps.insert(step);
  }
  SmallVector<Value> args = {proj ? seedArgument(proj)
                                  : toBuffer(rewriter, loc, projection),
                             toBuffer(rewriter, loc, input), out};
  args.push_back(allocCounters(rewriter, loc, sh.numCounters()));
  if (T > 1) {
    auto [cosPart, sinPart] = allocTileSums(rewriter, loc, {T, V, S, P});
    args.append({cosPart, sinPart});
  }
  if (sh.reduction != Reduction::none) {
    // The loss's fixed-point accumulator (zeroed once, reset by the last
    // block), or the statistics the last block adds.
    if (sh.lossSumLayout()) {
      args.push_back(allocZeroInitWord(rewriter, loc));
    } else {
      args.push_back(memref::AllocOp::create(rewriter, loc,
                                             MemRefType::get({V * S}, f32)));
    }
  }
  SmallVector<Value> means;
  if (sh.stepCotangent) {
    // The means (the second all_reduce_mean's operands), the loss's
    // cotangent, then G and g for the backward GEMM.
    SingleLaunchStep st = step->second;
    MemRefType meanType = MemRefType::get({V, S, P}, f32);
    means = {memref::AllocOp::create(rewriter, loc, meanType),
             memref::AllocOp::create(rewriter, loc, meanType)};
    Type elem = sh.inputElement;
    Value grad = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({V * sh.batch, S}, elem));
    Value g = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({sh.featureDim, S}, elem));
    args.append(means);
    if (!sh.stepCotangent->unitCotangent) {
      // A reshape of it formed after the forward moves before it
      // (singleLaunchStep checked that it can).
      moveBefore(rewriter, st.cotangent.getGrad(), ecf);
      args.push_back(toBuffer(
          rewriter, loc, rewriter.getRemappedValue(st.cotangent.getGrad())));
    }
    args.append({grad, g});
    stepOperands[st.backward] = {grad, g, st.cotangent};
  }
  OpBuilder kb = kernelBuilder();
  gpu::GPUFuncOp kernel = addKernel(buildSingleLaunchKernel(kb, loc, sh));
  // stagesXByTma: x's tensor map, the last argument, over x viewed as
  // [V * N, D].
  if (sh.stagesXByTma()) {
    Value rows = memref::CollapseShapeOp::create(
        rewriter, loc, toBuffer(rewriter, loc, input),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    args.append(tensorMapArgs(rewriter, loc, kernel, {rows},
                              static_cast<unsigned>(args.size())));
  }
  createLaunch(rewriter, loc, kernel, {sh.numSliceTiles(), T, V}, sh.threads(),
               args, singleLaunchDynamicSharedBytes(sh));
  // The bulk copies of x into shared memory move 16-byte pieces from
  // 16-byte aligned addresses: the artifact's x declares it (the runtime
  // refuses a misaligned binding instead of the kernel faulting).
  if (sh.stagesX())
    if (auto func = ecf->getParentOfType<func::FuncOp>())
      func->setAttr(kXAlignAttrName, rewriter.getI64IntegerAttr(16));
  if (epi)
    rewriter.replaceOp(epi, toTensor(rewriter, loc, out));
  if (sh.stepCotangent) {
    if (step->second.lossMean)
      rewriter.eraseOp(step->second.lossMean);
    rewriter.replaceOp(ecf, {toTensor(rewriter, loc, means[0]),
                             toTensor(rewriter, loc, means[1])});
    return;
  }
  rewriter.eraseOp(*ecf.getCos().getUsers().begin());
  rewriter.eraseOp(ecf);
  if (proj)
    rewriter.eraseOp(proj);
}

/// buffer-results-to-out-params hoists a returned allocation into its
/// out-parameter, and a second return of it would then name the erased
/// allocation (an upstream crash): each repeated return value becomes a copy
/// (bufferization.alloc_tensor copy), a memref.copy from the first
/// out-parameter after bufferization.
void copyRepeatedResults(func::FuncOp func) {
  func.walk([](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      if (!llvm::is_contained(
              ret.getOperands().take_front(operand.getOperandNumber()), v))
        continue;
      operand.set(bufferization::AllocTensorOp::create(
          b, ret.getLoc(), cast<RankedTensorType>(v.getType()), ValueRange(),
          v));
    }
  });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Base of the patterns: the shared Lowering.
template <typename OpT> struct LoweringPattern : OpConversionPattern<OpT> {
  LoweringPattern(MLIRContext *ctx, Lowering &lowering)
      : OpConversionPattern<OpT>(ctx), lowering(lowering) {}
  Lowering &lowering;
};

struct ProjectionLowering : LoweringPattern<ProjectionOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(ProjectionOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowering.lowerProjection(rewriter, op);
    return success();
  }
};

struct FusedEcfLowering : LoweringPattern<FusedEcfOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(FusedEcfOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowering.lowerFusedEcf(rewriter, op, adaptor.getInput().front(),
                           adaptor.getProjection());
    return success();
  }
};

/// One rank: the all-reduce is the identity.
struct AllReduceMeanLowering : LoweringPattern<AllReduceMeanOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(AllReduceMeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, {adaptor.getCos(), adaptor.getSin(), adaptor.getLocalCount()});
    return success();
  }
};

struct FusedEpilogueLowering : LoweringPattern<FusedEpilogueOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(FusedEpilogueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowering.lowerEpilogue(rewriter, op, adaptor.getCos(), adaptor.getSin());
    return success();
  }
};

struct EcfCotangentLowering : LoweringPattern<EcfCotangentOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(EcfCotangentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowering.lowerEcfCotangent(rewriter, op, adaptor.getCos(), adaptor.getSin(),
                               adaptor.getGrad());
    return success();
  }
};

struct FusedEcfBackwardLowering : LoweringPattern<FusedEcfBackwardOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult
  matchAndRewrite(FusedEcfBackwardOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowering.lowerFusedEcfBackward(
        rewriter, op, adaptor.getInput().front(), adaptor.getProjection(),
        adaptor.getDcos().front(), adaptor.getDsin().front(),
        adaptor.getSlices());
    return success();
  }
};

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
    std::string optionError = scheduleOptionError(
        blockRows, blockSlices, wgmmaSlices, singleLaunch, wgmmaCluster,
        wgmmaRows, singleLaunchWarps, promoteAccumulators, wgmmaCooperative);
    if (!optionError.empty()) {
      module.emitError(optionError);
      return signalPassFailure();
    }
    if (projectionChunk < 1) {
      module.emitError("projection-chunk must be positive");
      return signalPassFailure();
    }
    if (singleLaunchFragmentEcf < -1 || singleLaunchFragmentEcf > 1) {
      module.emitError("single-launch-fragment-ecf must be -1 (by rule), 0 "
                       "(never) or 1 (wherever it can), got ")
          << static_cast<int64_t>(singleLaunchFragmentEcf);
      return signalPassFailure();
    }
    if (singleLaunchStagger < -1 || singleLaunchStagger > 1) {
      module.emitError("single-launch-stagger must be -1 (by rule), 0 "
                       "(never) or 1 (wherever the steps allow), got ")
          << static_cast<int64_t>(singleLaunchStagger);
      return signalPassFailure();
    }
    if (!llvm::is_contained({-1, 0, 1, 2, 4}, singleLaunchStageX)) {
      module.emitError("single-launch-stage-x must be -1 (by rule), 0 "
                       "(never), 1 (wherever it can) or 2 or 4 (wherever it "
                       "can, in clusters of that many blocks), got ")
          << static_cast<int64_t>(singleLaunchStageX);
      return signalPassFailure();
    }
    if (singleLaunchStageTma < -1 || singleLaunchStageTma > 2) {
      module.emitError("single-launch-stage-tma must be -1 (by rule), 0 "
                       "(never), 1 (boxes issued by every warp) or 2 (by "
                       "thread 0), got ")
          << static_cast<int64_t>(singleLaunchStageTma);
      return signalPassFailure();
    }
    if (singleLaunchGenAhead < -1 || singleLaunchGenAhead > 7) {
      module.emitError("single-launch-gen-ahead must be -1 (by rule) or 0 to 7 "
                       "step groups, got ")
          << static_cast<int64_t>(singleLaunchGenAhead);
      return signalPassFailure();
    }
    if (singleLaunchTermSums < 0 || singleLaunchTermSums > 2) {
      module.emitError("single-launch-term-sums must be 0 (never), 1 (the "
                       "warps' sums added in shared memory) or 2 (every "
                       "warp's sum to the loss word), got ")
          << static_cast<int64_t>(singleLaunchTermSums);
      return signalPassFailure();
    }
    if (singleLaunchMinctasm < -1 || singleLaunchMinctasm > 32) {
      module.emitError("single-launch-minctasm must be -1 (by rule), 0 "
                       "(none) or a block count from 1 to 32, got ")
          << static_cast<int64_t>(singleLaunchMinctasm);
      return signalPassFailure();
    }
    if (!llvm::is_contained({0, 1, 2, 4, 8}, singleLaunchStepGroup)) {
      module.emitError("single-launch-step-group must be 0, 1, 2, 4 or 8, "
                       "got ")
          << static_cast<int64_t>(singleLaunchStepGroup);
      return signalPassFailure();
    }
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    ConvertSigregToGPUOptions opts;
    opts.blockRows = blockRows;
    opts.blockSlices = blockSlices;
    opts.projectionChunk = projectionChunk;
    opts.tensorCores = tensorCores;
    opts.hopper = hopper;
    opts.wgmmaSlices = wgmmaSlices;
    opts.wgmmaPersistent = wgmmaPersistent;
    opts.wgmmaGenerate = wgmmaGenerate;
    opts.wgmmaCooperative = wgmmaCooperative;
    opts.wgmmaCluster = wgmmaCluster;
    opts.wgmmaRows = wgmmaRows;
    opts.wgmmaAtomicSums = wgmmaAtomicSums;
    opts.singleLaunch = singleLaunch;
    opts.singleLaunchWarps = singleLaunchWarps;
    opts.promoteAccumulators = promoteAccumulators;
    opts.deferCotangent = deferCotangent;
    Lowering lowering(
        kernels, scheduleOptions(opts), deferCotangent,
        fastNormals ? NormalMapping::Fast : NormalMapping::Exact,
        SingleLaunchKnobs{singleLaunchFastNormals, singleLaunchStagger,
                          singleLaunchFragmentEcf, singleLaunchStepGroup,
                          singleLaunchPrefetchX, singleLaunchPrefetchTail,
                          singleLaunchTransposedEcf, singleLaunchStageX,
                          singleLaunchStageTma, singleLaunchGenAhead,
                          singleLaunchMinctasm, singleLaunchTermSums});
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ProjectionLowering, FusedEcfLowering, AllReduceMeanLowering,
                 FusedEpilogueLowering, EcfCotangentLowering,
                 FusedEcfBackwardLowering>(ctx, lowering);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Everything but the sigreg ops is legal: the host code the patterns
    // build (memref, gpu, nvgpu, arith, bufferization casts) and the tensor
    // ops that bufferization lowers.
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalDialect<SigregDialect>();
    // Erased after the conversion (finishDeviceSteps), once the kernels that
    // read its counter are built.
    target.addLegalOp<AdvanceStepOp>();
    target.addDynamicallyLegalOp<ProjectionOp, AllReduceMeanOp, FusedEpilogueOp,
                                 EcfCotangentOp>(
        [&](Operation *op) { return lowering.isAbsorbed(op); });
    for (func::FuncOp f : funcs) {
      if (failed(lowering.check(f)) ||
          failed(applyPartialConversion(f, target, frozen)))
        return signalPassFailure();
      lowering.finishDeviceSteps(f);
      lowering.settleProgrammaticLaunches();
      copyRepeatedResults(f);
    }
  }
};
} // namespace

std::optional<BackwardGemmParts>
mlir::sigreg::backwardGemmParts(int64_t rows, int64_t D, int64_t S,
                                int64_t dxElementBytes) {
  int64_t rowTiles = llvm::divideCeilSigned(rows, kWgmmaRows);
  int64_t colTiles =
      llvm::divideCeilSigned(D, backwardGemmTileFeatures(rows, D));
  int64_t perPart =
      llvm::divideCeilSigned<int64_t>(rowTiles, kBackwardGemmRowParts);
  if (rowTiles < kBackwardGemmRowParts ||
      (rowTiles / kBackwardGemmRowParts) * colTiles < kMultiprocessors)
    return std::nullopt;
  BackwardGemmParts parts{llvm::divideCeilSigned(rowTiles, perPart), perPart,
                          0};
  // Part j writes dL/dx rows [j R, min((j + 1) R, rows)) and reads dL/dy rows
  // from j R on: its writes end before the first dL/dy byte it (or a later
  // part) reads.
  int64_t R = perPart * kWgmmaRows;
  for (int64_t j = 0; j < parts.count; ++j)
    parts.gradOffset = std::max(
        parts.gradOffset,
        std::min((j + 1) * R, rows) * D * dxElementBytes - j * R * S * 2);
  parts.gradOffset = llvm::alignTo(parts.gradOffset, kSharedOffsetAlign);
  int64_t dxBytes = rows * D * dxElementBytes, gradBytes = rows * S * 2;
  if (std::max(dxBytes, parts.gradOffset + gradBytes) >= dxBytes + gradBytes)
    return std::nullopt;
  return parts;
}
