//===- EpilogueKernels.cpp - the ECF finalize and the epilogue kernels ----===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"
#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using gpu::Dimension;
} // namespace

//===----------------------------------------------------------------------===//
// ECF finalize: one thread per (v, s, p); sums the batch tiles in ascending
// order and divides by N. Partials [T, V, S, P] (p fastest, the thread order),
// or [T, V, P, S] (slice-major: s fastest in the thread order, so that both
// the Hopper kernel's stores, one slice per thread, and these loads are
// coalesced).
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp mlir::sigreg::buildEcfFinalizeKernel(OpBuilder &b, Location loc,
                                                    int64_t T, int64_t V,
                                                    int64_t S, int64_t P,
                                                    int64_t batch,
                                                    bool sliceMajor) {
  MemRefType part = sliceMajor ? f32Memref(b, {T, V, P, S})
                               : f32Memref(b, {T, V, S, P}),
             full = f32Memref(b, {V, S, P});
  auto func = createKernel(
      b, loc, sliceMajor ? "sigreg_ecf_finalize_sm" : "sigreg_ecf_finalize",
      "trig_reduction", {part, part, full, full}, {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value e = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  k.ifThen(k.lt(e, k.idx(V * S * P)), [&] {
    Value p, s;
    if (sliceMajor) {
      s = k.rem(e, k.idx(S));
      p = k.rem(k.div(e, k.idx(S)), k.idx(P));
    } else {
      p = k.rem(e, k.idx(P));
      s = k.rem(k.div(e, k.idx(P)), k.idx(S));
    }
    Value v = k.div(e, k.idx(S * P));
    auto at = [&](Value t) -> SmallVector<Value> {
      if (sliceMajor)
        return {t, v, p, s};
      return {t, v, s, p};
    };
    SmallVector<Value> sums =
        k.forEach(k.idx(0), k.idx(T), k.idx(1), {k.f32(0.0f), k.f32(0.0f)},
                  [&](Value t, ValueRange carried) {
                    return SmallVector<Value>{
                        k.addf(carried[0], k.load(func.getArgument(0), at(t))),
                        k.addf(carried[1], k.load(func.getArgument(1), at(t)))};
                  });
    Value n = k.f32(static_cast<float>(batch));
    k.store(k.divf(sums[0], n), func.getArgument(2), {v, s, p});
    k.store(k.divf(sums[1], n), func.getArgument(3), {v, s, p});
  });
  return func;
}

/// T[v, s] = count * sum_p w_p ((c - phi_p)^2 + s^2), unclipped.
static Value emitUnclippedStatistic(KernelBuilder &k,
                                    const IntegrationGrid &grid, Value cosIn,
                                    Value sinIn, Value v, Value s,
                                    Value count) {
  Value dot = k.f32(0.0f);
  for (size_t p = 0; p < grid.w.size(); ++p) {
    Value c = k.load(cosIn, {v, s, k.idx(p)});
    Value sn = k.load(sinIn, {v, s, k.idx(p)});
    Value d = k.subf(c, k.f32(static_cast<float>(grid.phi[p])));
    Value err = k.addf(k.mulf(d, d), k.mulf(sn, sn));
    dot = k.addf(dot, k.mulf(err, k.f32(static_cast<float>(grid.w[p]))));
  }
  return k.mulf(dot, count);
}

Value mlir::sigreg::emitSliceStatistic(KernelBuilder &k,
                                       const EpilogueKernelShape &sh,
                                       Value cosIn, Value sinIn, Value v,
                                       Value s) {
  IntegrationGrid grid = computeIntegrationGrid(sh.numPoints, sh.tMax);
  Value count = k.f32(static_cast<float>(sh.globalCount));
  Value clipV = k.f32(static_cast<float>(sh.clipValue));
  Value stat = emitUnclippedStatistic(k, grid, cosIn, sinIn, v, s, count);
  if (sh.clip == ClipMode::clamp_min)
    return arith::MaximumFOp::create(k.b, stat, clipV);
  if (sh.clip == ClipMode::zero_below)
    return k.select(
        arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, stat, clipV),
        k.f32(0.0f), stat);
  return stat;
}

//===----------------------------------------------------------------------===//
// Epilogue. T[v, s] = count * sum_p w_p ((c - phi_p)^2 + s^2), clipped, with
// phi and w folded in as constants (P is static); one thread per (v, s).
//   none:      T[v, s] to out.
//   mean/sum:  each block adds its T in a fixed-order shared-memory tree;
//              with one block thread 0 writes the scalar, else the block's
//              sum goes to blockSums and the last block to arrive (a
//              self-resetting counter, arriveAtCounter) adds the block sums
//              in ascending order. The order is fixed: results are bitwise
//              repeatable.
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp
mlir::sigreg::buildEpilogueKernel(OpBuilder &b, Location loc,
                                  const EpilogueKernelShape &sh) {
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints;
  int64_t blocks = sh.numBlocks();
  bool none = sh.reduction == Reduction::none;
  bool lastBlock = sh.lastBlockReduction();
  MemRefType ecf = f32Memref(b, {V, S, P});
  MemRefType out = none ? f32Memref(b, {V, S}) : f32Memref(b, {});
  SmallVector<Type> args = {ecf, ecf, out};
  if (lastBlock)
    args.append({MemRefType::get({1}, b.getI32Type()), f32Memref(b, {blocks})});
  assert((!sh.advancesStep || !none) && "a per-slice loss has no last block");
  if (sh.advancesStep)
    args.push_back(MemRefType::get({}, b.getI64Type()));
  auto func = createKernel(
      b, loc, "sigreg_epilogue", "epilogue", args,
      none ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{kBlockThreads},
      lastBlock ? ArrayRef<int64_t>{1} : ArrayRef<int64_t>{});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value cosIn = func.getArgument(0), sinIn = func.getArgument(1),
        outArg = func.getArgument(2);
  auto statistic = [&](Value v, Value s) {
    return emitSliceStatistic(k, sh, cosIn, sinIn, v, s);
  };

  Value tid = k.threadId(Dimension::x);
  Value block = k.blockId(Dimension::x);
  Value e = k.add(k.mul(block, k.idx(kBlockThreads)), tid);
  if (none) {
    k.ifThen(k.lt(e, k.idx(V * S)), [&] {
      Value v = k.div(e, k.idx(S)), s = k.rem(e, k.idx(S));
      k.store(statistic(v, s), outArg, {v, s});
    });
    return func;
  }
  Value red = func.getWorkgroupAttributions()[0];
  Value stat = k.ifElse(
      k.lt(e, k.idx(V * S)),
      [&] { return statistic(k.div(e, k.idx(S)), k.rem(e, k.idx(S))); },
      k.f32(0.0f));
  k.store(stat, red, {tid});
  emitBlockTreeSum(k, tid, red);
  auto writeLoss = [&](Value total) {
    if (sh.reduction == Reduction::mean)
      total = k.divf(total, k.f32(static_cast<float>(V * S)));
    k.store(total, outArg, {});
    if (sh.advancesStep)
      emitStepAdvance(k, func.getArgument(args.size() - 1));
  };
  if (!lastBlock) {
    k.ifThen(k.lt(tid, k.idx(1)), [&] { writeLoss(k.load(red, {k.idx(0)})); });
    return func;
  }
  Value counter = func.getArgument(3), blockSums = func.getArgument(4);
  k.ifThen(k.lt(tid, k.idx(1)),
           [&] { k.store(k.load(red, {k.idx(0)}), blockSums, {block}); });
  Value last = arriveAtCounter(k, tid, func.getWorkgroupAttributions()[1],
                               counter, k.idx(0), blocks);
  k.ifThen(k.land(last, k.lt(tid, k.idx(1))), [&] {
    SmallVector<Value> total = k.forEach(
        k.idx(0), k.idx(blocks), k.idx(1), {k.f32(0.0f)},
        [&](Value bl, ValueRange acc) {
          return SmallVector<Value>{k.addf(acc[0], k.load(blockSums, {bl}))};
        });
    writeLoss(total[0]);
  });
  return func;
}

//===----------------------------------------------------------------------===//
// ECF cotangent (docs/CONTRACT.md section 2), one thread per (v, s): with r
// the reduction's factor (grad / (V S), grad, or grad[v, s]) and the clip
// gate (0 when the clip replaced T, T < clip_value),
//   dcos[v, s, p] = 2 r gate count w_p (c - phi_p),
//   dsin[v, s, p] = 2 r gate count w_p s.
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp
mlir::sigreg::buildEcfCotangentKernel(OpBuilder &b, Location loc,
                                      const EpilogueKernelShape &sh) {
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints;
  bool none = sh.reduction == Reduction::none;
  MemRefType ecf = f32Memref(b, {V, S, P});
  MemRefType grad = none ? f32Memref(b, {V, S}) : f32Memref(b, {});
  SmallVector<Type> args = {ecf, ecf};
  if (!sh.unitCotangent)
    args.push_back(grad);
  args.append({ecf, ecf});
  auto func = createKernel(b, loc, "sigreg_ecf_cotangent", "backward_epilogue",
                           args, {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  unsigned next = 0;
  Value cosIn = func.getArgument(next++), sinIn = func.getArgument(next++);
  Value gradIn = sh.unitCotangent ? Value() : func.getArgument(next++);
  Value dcos = func.getArgument(next++), dsin = func.getArgument(next++);
  Value e = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  k.ifThen(k.lt(e, k.idx(V * S)), [&] {
    Value v = k.div(e, k.idx(S)), s = k.rem(e, k.idx(S));
    SliceCotangent c = emitSliceCotangent(k, sh, cosIn, sinIn, gradIn, v, s);
    for (int64_t p = 0; p < P; ++p) {
      k.store(c.dcos[p], dcos, {v, s, k.idx(p)});
      k.store(c.dsin[p], dsin, {v, s, k.idx(p)});
    }
  });
  return func;
}

SliceCotangent mlir::sigreg::emitSliceCotangent(KernelBuilder &k,
                                                const EpilogueKernelShape &sh,
                                                Value cosIn, Value sinIn,
                                                Value gradIn, Value v,
                                                Value s) {
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints;
  IntegrationGrid grid = computeIntegrationGrid(P, sh.tMax);
  Value count = k.f32(static_cast<float>(sh.globalCount));
  Value r = sh.unitCotangent                  ? k.f32(1.0f)
            : sh.reduction == Reduction::none ? k.load(gradIn, {v, s})
                                              : k.load(gradIn, {});
  if (sh.reduction == Reduction::mean)
    r = k.divf(r, k.f32(static_cast<float>(V * S)));
  if (sh.clip != ClipMode::none) {
    Value stat = emitUnclippedStatistic(k, grid, cosIn, sinIn, v, s, count);
    Value clipped =
        arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, stat,
                              k.f32(static_cast<float>(sh.clipValue)));
    r = k.select(clipped, k.f32(0.0f), r);
  }
  Value factor = k.mulf(k.mulf(r, count), k.f32(2.0f));
  SliceCotangent c;
  for (int64_t p = 0; p < P; ++p) {
    Value wf = k.mulf(factor, k.f32(static_cast<float>(grid.w[p])));
    Value cp = k.load(cosIn, {v, s, k.idx(p)});
    Value sp = k.load(sinIn, {v, s, k.idx(p)});
    c.dcos.push_back(
        k.mulf(wf, k.subf(cp, k.f32(static_cast<float>(grid.phi[p])))));
    c.dsin.push_back(k.mulf(wf, sp));
  }
  return c;
}
