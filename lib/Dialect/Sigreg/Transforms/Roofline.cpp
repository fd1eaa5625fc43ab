//===- Roofline.cpp - FLOPs, bytes and intensity per region (analysis) ----===//
//
// `--sigreg-roofline` reports, per region of docs/CONTRACT.md section 7
// (projection_generation, projection_gemm, trig_reduction, epilogue) and in
// total, the FLOPs, the bytes moved and their ratio, computed from the
// shapes and element types of the sigreg ops present. The IR is not changed.
//
// Notation: x [V, N, D], A [D, S], y [V, N, S], cos/sin [V, S, P],
// statistics [V, S]; B = V*N. q(T) is the byte width of T's element type
// (the input dtype for x, the projection's own type, 4 for every f32
// intermediate and for the f32 integration points, phi and weights, P
// elements each); `element-bytes=N` replaces every q by N (the seed's
// convention of one q for everything).
//
// Naive path: the seed's formulas, one op at a time. With views the seed's
// S becomes V*S after the GEMM (the ECF and the epilogue run once per view),
// which the element counts of the ops give directly:
//   sigreg.projection   FLOPs S(1 + 3D)                 bytes 3DS q
//   sigreg.project      FLOPs 2BDS                      bytes BD q(x) + DS q(A)
//                                                             + BS q
//   sigreg.ecf
//     frequency projection   FLOPs BSP          bytes (BSP + BS + P) q
//     cos/sin                FLOPs 0 (SFU 2BSP) bytes 3BSP q
//     batch mean             FLOPs 2BSP + 2VSP  bytes (2BSP + 2VSP) q
//   sigreg.epps_pulley
//     squared error          FLOPs 4VSP         bytes (3VSP + P) q
//     weighted integration   FLOPs 2VSP + VS    bytes (VSP + P + VS) q
//   sigreg.reduce       mean: FLOPs VS + 1, sum: VS, bytes (VS + 1)q; none: 0
// Clipping (comparisons) is not counted, as in the seed; the all-reduce
// (FLOPs 2VSP, bytes 2VSP q) is outside the totals and reported apart when
// world_size > 1.
//
// Fused path: the compulsory DRAM traffic of the kernels
// `--convert-sigreg-to-gpu` builds (each tensor read or written once; tile
// re-reads by other blocks are assumed to hit L2), and their arithmetic:
//   sigreg.projection (feeding fused_ecf)   projection_generation
//       writes g [D, S] f32, or for the tensor-core kernel packed 16-bit
//       words, ceil(D/2) S of them holding g's hi parts, and as many again
//       for the lo parts only when the projection is split (per-slice
//       statistics: a fused_ecf result reaching a fused_epilogue with
//       reduction none, or any other consumer; a loss reduced over the
//       slices reads hi words only), and the per-chunk sums of squares
//       [C, S] f32, C = ceil(D / chunk), chunk = the projection schedule's
//       rows (at most projection-chunk, fewer to fill the GPU, a multiple
//       of 4); FLOPs 2DS (square, add); the Philox/Box-Muller
//       draw is RNG work, 0 FLOPs as in the seed.
//   sigreg.fused_ecf   projection_gemm: reads x (BD q(x)) and A (DS q(A)),
//       or g (as written above) and the chunk sums when A is a
//       sigreg.projection; FLOPs 2BDS,
//       plus, seeded, the folded normalization CS + S + BS (chunk sums,
//       sqrt, divide of y).
//                      trig_reduction: per (v, n, s) 1 mul for theta,
//       6(P - 1) for the angle-addition rotations (4 mul + 2 add/sub), 2P
//       adds into the cos/sin sums, then 2VSP divides for the means; SFU 2BS
//       (one cos and one sin of theta). Writes 2VSP f32 means; with T > 1
//       batch tiles (T = ceil(N / rows), rows as the lowering picks them:
//       128 for the Hopper kernel, 64 for the mma.sync kernel, else
//       `block-rows` or 16/32/64 by N)
//       it writes 2TVSP f32 partials, the finalize kernel reads them back
//       and writes the means: (4T + 2)VSP f32; the Hopper kernel with more
//       than 16 batch tiles adds 2TVSP 64-bit fixed-point sums atomically
//       instead, and its tail reads and resets 2VSP of them and writes the
//       means: (2T + 4)VSP x 8 + 2VSP x 4 bytes. This is an estimate from the
//       schedule's tile choice.
// The kernel choice, tiles, split and chunk rounding are those of
// --convert-sigreg-to-gpu: the op's #sigreg.schedule when it has one, else
// both choose them with sigreg/Dialect/Sigreg/Utils/EcfSchedule.h.
//   sigreg.fused_epilogue  epilogue: per (v, s, p) 6 FLOPs (sub, 2 mul, add,
//       mul by w_p, add), per statistic 1 mul by the count, then the final
//       reduction as sigreg.reduce; reads 2VSP f32 (phi and w are folded
//       constants) and writes the result.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

#include <array>
#include <optional>
#include <string>

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGROOFLINE
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {

/// A non-negative count whose arithmetic records overflow instead of
/// wrapping (FLOP and byte counts of large problems exceed 64 bits).
struct Count {
  int64_t v = 0;
  bool overflow = false;
  Count() = default;
  Count(int64_t v) : v(v), overflow(v < 0) {}
  friend Count operator+(Count a, Count b) {
    Count r;
    r.overflow =
        a.overflow || b.overflow || __builtin_add_overflow(a.v, b.v, &r.v);
    return r;
  }
  friend Count operator-(Count a, Count b) {
    Count r;
    r.overflow = a.overflow || b.overflow ||
                 __builtin_sub_overflow(a.v, b.v, &r.v) || r.v < 0;
    return r;
  }
  friend Count operator*(Count a, Count b) {
    Count r;
    r.overflow =
        a.overflow || b.overflow || __builtin_mul_overflow(a.v, b.v, &r.v);
    return r;
  }
  Count &operator+=(Count o) { return *this = *this + o; }
  Count &operator*=(Count o) { return *this = *this * o; }
};

struct Cost {
  Count flops = 0, bytes = 0, sfu = 0;
  bool overflow() const {
    return flops.overflow || bytes.overflow || sfu.overflow;
  }
  Cost &operator+=(const Cost &o) {
    flops += o.flops;
    bytes += o.bytes;
    sfu += o.sfu;
    return *this;
  }
  std::optional<double> intensity() const {
    if (bytes.v == 0)
      return std::nullopt;
    return static_cast<double>(flops.v) / static_cast<double>(bytes.v);
  }
};

enum Region { ProjectionGeneration, ProjectionGemm, TrigReduction, Epilogue };
constexpr std::array<StringLiteral, 4> kRegionNames = {
    "projection_generation", "projection_gemm", "trig_reduction", "epilogue"};

struct FunctionReport {
  std::string name;
  StringRef path;
  std::array<Cost, 4> regions;
  Cost total, allReduce;
};

struct SigregRooflinePass
    : sigreg::impl::SigregRooflineBase<SigregRooflinePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Bytes per element of `type` (or of its element type).
  Count q(Type type) const {
    if (elementBytes > 0)
      return int64_t(elementBytes);
    if (auto shaped = dyn_cast<ShapedType>(type))
      type = shaped.getElementType();
    return (static_cast<int64_t>(type.getIntOrFloatBitWidth()) + 7) / 8;
  }
  Count qF32() const { return elementBytes > 0 ? Count(elementBytes) : 4; }
  /// Size of dimension `i`, the `batch` option standing for a dynamic one.
  Count dim(Type type, unsigned i) const {
    int64_t d = cast<ShapedType>(type).getDimSize(i);
    return ShapedType::isDynamic(d) ? int64_t(batch) : d;
  }
  Count numel(Type type) const {
    auto shaped = cast<ShapedType>(type);
    Count n = 1;
    for (unsigned i = 0, e = shaped.getRank(); i < e; ++i)
      n *= dim(type, i);
    return n;
  }
  /// The schedule knobs of --convert-sigreg-to-gpu that the options mirror
  /// (no block-slices: the slice tile does not change the traffic).
  EcfScheduleOptions scheduleOptions() const {
    EcfScheduleOptions o;
    o.blockRows = blockRows;
    o.projectionChunk = projectionChunk;
    o.tensorCores = tensorCores;
    o.wgmmaAtomicSums = wgmmaAtomicSums;
    return o;
  }
  /// The schedule of `ecf`: its #sigreg.schedule when it has one (as
  /// --convert-sigreg-to-gpu follows it), else the one the options give.
  EcfSchedule ecfSchedule(FusedEcfOp ecf) const {
    return getOrChooseEcfSchedule(ecf, scheduleOptions(), batch);
  }
  /// The layout of `proj`'s g for its consumers' schedules.
  ProjectionSchedule projectionSchedule(ProjectionOp proj) const {
    return chooseProjectionSchedule(
        proj, projectionChunk, [&](FusedEcfOp ecf) { return ecfSchedule(ecf); },
        batch);
  }
  /// 32-bit words of g [D, S] as the projection kernel writes them: f32, or
  /// packed pairs of 16-bit hi (and, split, lo) parts.
  static Count projectionWords(const ProjectionSchedule &layout, Count D,
                               Count S) {
    if (!layout.packedElement)
      return D * S;
    return (layout.splitProjection ? 2 : 1) * ((D + 1).v / 2) * S;
  }
  /// Epilogue's final reduction of `stats` statistics.
  Cost reduction(Reduction kind, Count stats) const {
    switch (kind) {
    case Reduction::mean:
      return {stats + 1, (stats + 1) * qF32(), 0};
    case Reduction::sum:
      return {stats, (stats + 1) * qF32(), 0};
    case Reduction::none:
      return {};
    }
    llvm_unreachable("unknown reduction");
  }

  void analyze(Operation *op, FunctionReport &report);
  void print(FunctionOpInterface func, const FunctionReport &report);
  void writeJson(ArrayRef<FunctionReport> reports);
};

void SigregRooflinePass::analyze(Operation *op, FunctionReport &r) {
  auto &gen = r.regions[ProjectionGeneration],
       &gemm = r.regions[ProjectionGemm], &trig = r.regions[TrigReduction],
       &epi = r.regions[Epilogue];
  Count f32 = qF32();

  if (auto proj = dyn_cast<ProjectionOp>(op)) {
    Count D = dim(proj.getType(), 0), S = dim(proj.getType(), 1);
    bool fused = llvm::any_of(proj->getUsers(), llvm::IsaPred<FusedEcfOp>);
    if (!fused) {
      gen += {S * (1 + 3 * D), 3 * D * S * f32, 0};
      return;
    }
    ProjectionSchedule layout = projectionSchedule(proj);
    Count gWords = projectionWords(layout, D, S);
    gen += {2 * D * S, (gWords + layout.numChunks * S) * f32, 0};
    return;
  }
  if (auto project = dyn_cast<ProjectOp>(op)) {
    Type x = project.getInput().getType(),
         a = project.getProjection().getType();
    Count B = dim(x, 0) * dim(x, 1), D = dim(x, 2), S = dim(a, 1);
    gemm += {2 * B * D * S, B * D * q(x) + D * S * q(a) + B * S * f32, 0};
    return;
  }
  if (auto ecf = dyn_cast<EcfOp>(op)) {
    Count BS = numel(ecf.getSlices().getType());
    Count C = numel(ecf.getCos().getType());
    Count P = dim(ecf.getCos().getType(), 2), BSP = BS * P;
    trig += {BSP, (BSP + BS + P) * f32, 0}; // frequency projection
    trig += {0, 3 * BSP * f32, 2 * BSP};    // cos / sin
    trig += {2 * BSP + 2 * C, (2 * BSP + 2 * C) * f32, 0}; // batch mean
    return;
  }
  if (auto ar = dyn_cast<AllReduceMeanOp>(op)) {
    if (ar.getWorldSize() > 1) {
      Count C = numel(ar.getCos().getType());
      r.allReduce += {2 * C, 2 * C * f32, 0};
    }
    return;
  }
  if (auto ep = dyn_cast<EppsPulleyOp>(op)) {
    Count C = numel(ep.getCos().getType()), St = numel(ep.getType());
    Count P = dim(ep.getCos().getType(), 2);
    epi += {4 * C, (3 * C + P) * f32, 0};       // squared error
    epi += {2 * C + St, (C + P + St) * f32, 0}; // weighted integration
    return;
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    epi += reduction(red.getReduction(), numel(red.getStatistics().getType()));
    return;
  }
  if (auto ecf = dyn_cast<FusedEcfOp>(op)) {
    Type x = ecf.getInput().getType(), a = ecf.getProjection().getType();
    Type c = ecf.getCos().getType();
    Count V = dim(x, 0), N = dim(x, 1), D = dim(x, 2), S = dim(c, 1),
          P = dim(c, 2);
    Count B = V * N, C = V * S * P;
    // projection_gemm: operand reads, GEMM, folded normalization.
    Cost g{2 * B * D * S, B * D * q(x), 0};
    if (auto proj = ecf.getProjection().getDefiningOp<ProjectionOp>()) {
      // The kernel reads g as the projection kernel wrote it.
      ProjectionSchedule layout = projectionSchedule(proj);
      Count chunks = layout.numChunks;
      Count gWords = projectionWords(layout, D, S);
      g += {chunks * S + S + B * S, (gWords + chunks * S) * f32, 0};
    } else {
      g.bytes += D * S * q(a);
    }
    gemm += g;
    // trig_reduction: theta, rotations, sums, means; output traffic.
    EcfSchedule sched = ecfSchedule(ecf);
    Count T = sched.numTileSums();
    Count written = T.v == 1 ? 2 * C : (4 * T + 2) * C;
    Count bytes = written * f32;
    // The Hopper kernel's 64-bit fixed-point sums: 2T VSP atomics, the
    // tail's read and reset of each accumulator, the means.
    if (sched.wgmmaHasTail() &&
        sigreg::wgmmaAtomicSums(T.v, N.v, wgmmaAtomicSums))
      bytes = (2 * T + 4) * C * 8 + 2 * C * f32;
    trig += {B * S * (1 + 6 * (P - 1) + 2 * P) + 2 * C, bytes, 2 * B * S};
    return;
  }
  if (auto ep = dyn_cast<FusedEpilogueOp>(op)) {
    Type c = ep.getCos().getType();
    Count C = numel(c), St = dim(c, 0) * dim(c, 1);
    Count out = numel(ep.getType());
    Cost e{6 * C + St, 2 * C * f32 + out * f32, 0};
    Cost fin = reduction(ep.getReduction(), St);
    e.flops += fin.flops; // the statistics stay on chip: no bytes
    epi += e;
    return;
  }
}

std::string formatCost(StringRef name, const Cost &c, bool withSfu) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << name << ": flops=" << c.flops.v << " bytes=" << c.bytes.v
     << " intensity=";
  if (std::optional<double> ai = c.intensity())
    os << llvm::format("%.4f", *ai);
  else
    os << "n/a";
  if (withSfu)
    os << " sfu=" << c.sfu.v;
  return s;
}

void SigregRooflinePass::print(FunctionOpInterface func,
                               const FunctionReport &r) {
  // Location-based remarks: the op is not printed along with each line.
  Location loc = func.getLoc();
  {
    InFlightDiagnostic header = emitRemark(loc) << "roofline: @" << r.name
                                                << " path=" << r.path << " q=";
    if (elementBytes > 0)
      header << int64_t(elementBytes);
    else
      header << "per-type (x: input dtype, f32: 4)";
  }
  for (auto [i, c] : llvm::enumerate(r.regions))
    emitRemark(loc, formatCost(kRegionNames[i], c, i == TrigReduction));
  emitRemark(loc, formatCost("total", r.total, /*withSfu=*/true));
  if (r.allReduce.flops.v)
    emitRemark(loc, formatCost("all_reduce (outside the total)", r.allReduce,
                               /*withSfu=*/false));
}

void SigregRooflinePass::writeJson(ArrayRef<FunctionReport> reports) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(jsonFile, &error);
  if (!file) {
    getOperation()->emitError("sigreg-roofline: ") << error;
    return signalPassFailure();
  }
  llvm::json::OStream j(file->os(), /*IndentSize=*/2);
  auto cost = [&](const Cost &c) {
    j.attribute("flops", c.flops.v);
    j.attribute("bytes", c.bytes.v);
    if (std::optional<double> ai = c.intensity())
      j.attribute("intensity", *ai);
    else
      j.attribute("intensity", nullptr);
    j.attribute("sfu", c.sfu.v);
  };
  j.object([&] {
    j.attribute("element_bytes", int64_t(elementBytes));
    j.attributeArray("functions", [&] {
      for (const FunctionReport &r : reports)
        j.object([&] {
          j.attribute("function", r.name);
          j.attribute("path", r.path);
          j.attributeObject("regions", [&] {
            for (size_t i = 0; i < r.regions.size(); ++i)
              j.attributeObject(kRegionNames[i], [&] { cost(r.regions[i]); });
          });
          j.attributeObject("total", [&] { cost(r.total); });
          if (r.allReduce.flops.v)
            j.attributeObject("all_reduce", [&] { cost(r.allReduce); });
        });
    });
  });
  file->os() << "\n";
  file->keep();
}

void SigregRooflinePass::runOnOperation() {
  markAllAnalysesPreserved();
  if (elementBytes < 0 || batch < 0 || blockRows < 0 || projectionChunk < 1) {
    getOperation()->emitError("sigreg-roofline: element-bytes, batch and "
                              "block-rows must be >= 0, projection-chunk > 0");
    return signalPassFailure();
  }
  SmallVector<FunctionReport, 2> reports;
  bool failed = false;
  getOperation()->walk([&](FunctionOpInterface func) {
    FunctionReport r;
    r.name = func.getName().str();
    bool naive = false, fused = false, dynamic = false;
    func->walk([&](Operation *op) {
      if (op == func.getOperation() || !isa<SigregDialect>(op->getDialect()))
        return;
      if (isa<LossOp>(op)) {
        emitRemark(op->getLoc(), "roofline: sigreg.loss is not analyzed, "
                                 "run --sigreg-decompose first");
        return;
      }
      naive |= isa<ProjectOp, EcfOp, EppsPulleyOp, ReduceOp>(op);
      fused |= isa<FusedEcfOp, FusedEpilogueOp>(op);
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                             op->getResultTypes()))
        if (auto shaped = dyn_cast<ShapedType>(t))
          dynamic |= !shaped.hasStaticShape();
      analyze(op, r);
    });
    if (!naive && !fused &&
        llvm::all_of(r.regions, [](const Cost &c) { return !c.flops.v; }))
      return;
    if (dynamic && batch == 0) {
      emitRemark(func.getLoc(), "roofline: dynamic batch size; pass batch=N "
                                "to evaluate it");
      return;
    }
    r.path = naive && fused ? "mixed" : fused ? "fused" : "naive";
    for (const Cost &c : r.regions)
      r.total += c;
    if (r.total.overflow() || r.allReduce.overflow()) {
      func.emitError("roofline: the FLOP or byte counts of @")
          << r.name << " overflow 64 bits";
      failed = true;
      return;
    }
    print(func, r);
    reports.push_back(std::move(r));
  });
  if (failed)
    return signalPassFailure();
  if (!jsonFile.empty())
    writeJson(reports);
}
} // namespace
