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

namespace {
/// Static shared memory of sigreg_ecf_finalize_loss: the warps' sums and the
/// means, 4 (2 * 8 + 2) BS P bytes.
constexpr int64_t kFinalizeLossSharedBytes = 48 * 1024;

/// The loss word of `slicesPerBlock`-slice blocks.
std::optional<LossSumLayout> finalizeLossLayout(const EpilogueKernelShape &e,
                                                int64_t slicesPerBlock) {
  return packedLossSumLayout(
      e.reduction,
      e.numViews * llvm::divideCeilSigned(e.numSlices, slicesPerBlock),
      e.numViews * e.numSlices, e.numPoints, e.tMax, e.globalCount, e.clip,
      e.clipValue);
}
} // namespace

int64_t mlir::sigreg::finalizeLossSlices(const EpilogueKernelShape &e) {
  for (int64_t bs : {8, 16, 32}) {
    if (4 * (2 * kBlockThreads / 32 + 2) * bs * e.numPoints >
        kFinalizeLossSharedBytes)
      return 0;
    if (e.reduction == Reduction::none || finalizeLossLayout(e, bs))
      return bs;
  }
  return 0;
}

int64_t mlir::sigreg::finalizeLossBlocks(const EpilogueKernelShape &e) {
  return e.numViews *
         llvm::divideCeilSigned(e.numSlices, finalizeLossSlices(e));
}

namespace {
/// Points per pass of sigreg_ecf_finalize_loss's sums (P = 65 in one pass
/// spilled).
constexpr int64_t kFinalizeLossPoints = 33;
} // namespace

gpu::GPUFuncOp
mlir::sigreg::buildEcfFinalizeLossKernel(OpBuilder &b, Location loc, int64_t T,
                                         int64_t batch,
                                         const EpilogueKernelShape &epi) {
  int64_t V = epi.numViews, S = epi.numSlices, P = epi.numPoints;
  const int64_t BS = finalizeLossSlices(epi), warps = kBlockThreads / 32;
  const int64_t lanes = kBlockThreads / BS;
  assert(BS && "no block of slices fits");
  bool none = epi.reduction == Reduction::none;
  std::optional<LossSumLayout> layout = finalizeLossLayout(epi, BS);
  assert((none || layout) && "a mean/sum without its loss word");
  MemRefType part = f32Memref(b, {T, V, P, S}), means = f32Memref(b, {V, S, P});
  SmallVector<Type> args = {part, part, means, means,
                            none ? f32Memref(b, {V, S}) : f32Memref(b, {})};
  if (!none)
    args.push_back(MemRefType::get({1}, b.getI64Type()));
  if (epi.advancesStep)
    args.push_back(MemRefType::get({}, b.getI64Type()));
  // Workgroup buffers: the warps' sums [warps][2P][BS], the means [BS][P]
  // (cos, sin).
  auto func = createKernel(b, loc, "sigreg_ecf_finalize_loss", "epilogue", args,
                           {warps * 2 * P * BS, BS * P, BS * P});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value cosPart = func.getArgument(0), sinPart = func.getArgument(1);
  Value cosMean = func.getArgument(2), sinMean = func.getArgument(3);
  Value out = func.getArgument(4);
  Value warpSums = func.getWorkgroupAttributions()[0];
  Value cosShared = func.getWorkgroupAttributions()[1];
  Value sinShared = func.getWorkgroupAttributions()[2];
  // The shared means as [1, BS, P] for the statistic.
  auto localView = [&](Value shared) -> Value {
    return memref::ExpandShapeOp::create(
        k.b, ArrayRef<int64_t>{1, BS, P}, shared,
        ArrayRef<ReassociationIndices>{{0, 1, 2}});
  };
  // The partial sums are the Hopper kernel's (the launch before).
  NVVM::GriddepcontrolOp::create(k.b, NVVM::GridDepActionKind::wait);

  int64_t sliceBlocks = llvm::divideCeilSigned(S, BS);
  Value tid = k.threadId(Dimension::x), block = k.blockId(Dimension::x);
  Value v = k.div(block, k.idx(sliceBlocks));
  Value s0 = k.mul(k.rem(block, k.idx(sliceBlocks)), k.idx(BS));
  Value sl = k.rem(tid, k.idx(BS)), lane = k.div(tid, k.idx(BS));
  // Past S a thread reads the last slice (its sums are never used).
  Value sRead = k.min(k.add(s0, sl), k.idx(S - 1));

  // Stages 1-2, for the points in groups of at most kFinalizeLossPoints
  // (its 4 kFinalizeLossPoints accumulators and loads in registers).
  // Stage 1: lane `lane` adds tiles lane, lane + lanes, ... of each point.
  // Stage 2: the lanes of a slice in a warp (xor BS, 2 BS, ... < 32); lane
  // < BS of each warp stores the warp's sums, warpSums[warp][j][slice] (j =
  // p for cos, P + p for sin).
  Value warp = k.div(tid, k.idx(32));
  for (int64_t p0 = 0; p0 < P; p0 += kFinalizeLossPoints) {
    int64_t np = std::min(kFinalizeLossPoints, P - p0);
    SmallVector<Value> zeros(2 * np, k.f32(0.0f));
    SmallVector<Value> sums = k.forEach(
        lane, k.idx(T), k.idx(lanes), zeros, [&](Value t, ValueRange acc) {
          SmallVector<Value> next;
          for (int64_t q = 0; q < np; ++q)
            next.push_back(
                k.addf(acc[q], k.load(cosPart, {t, v, k.idx(p0 + q), sRead})));
          for (int64_t q = 0; q < np; ++q)
            next.push_back(k.addf(
                acc[np + q], k.load(sinPart, {t, v, k.idx(p0 + q), sRead})));
          return next;
        });
    for (int32_t off = BS; off < 32; off *= 2)
      for (Value &sum : sums)
        sum = addXorShuffled(k, sum, off);
    k.ifThen(k.lt(k.rem(tid, k.idx(32)), k.idx(BS)), [&] {
      for (int64_t q = 0; q < 2 * np; ++q) {
        int64_t j = q < np ? p0 + q : P + p0 + q - np;
        k.store(
            sums[q], warpSums,
            {k.add(k.mul(k.add(k.mul(warp, k.idx(2 * P)), k.idx(j)), k.idx(BS)),
                   sl)});
      }
    });
  }
  k.barrier();
  // Stage 3: the means, element e = (j, slice) of the block's 2P x BS.
  Value n = k.f32(static_cast<float>(batch));
  k.forEach(tid, k.idx(2 * P * BS), k.idx(kBlockThreads), [&](Value e) {
    Value total = k.load(warpSums, {e});
    for (int64_t w = 1; w < warps; ++w)
      total =
          k.addf(total, k.load(warpSums, {k.add(e, k.idx(w * 2 * P * BS))}));
    Value mean = k.divf(total, n);
    Value j = k.div(e, k.idx(BS)), slice = k.rem(e, k.idx(BS));
    Value isSin = k.lt(k.idx(P - 1), j);
    Value p = k.select(isSin, k.sub(j, k.idx(P)), j);
    Value at = k.add(k.mul(slice, k.idx(P)), p);
    Value s = k.add(s0, slice);
    Value inside = k.lt(s, k.idx(S));
    k.ifThen(isSin, [&] {
      k.store(mean, sinShared, {at});
      k.ifThen(inside, [&] { k.store(mean, sinMean, {v, s, p}); });
    });
    k.ifThen(k.lt(j, k.idx(P)), [&] {
      k.store(mean, cosShared, {at});
      k.ifThen(inside, [&] { k.store(mean, cosMean, {v, s, p}); });
    });
  });
  k.barrier();
  // Stage 4: the block's statistics (warp 0), stored or added to the loss.
  Value cosLocal = localView(cosShared), sinLocal = localView(sinShared);
  k.ifThen(k.lt(tid, k.idx(32)), [&] {
    Value s = k.add(s0, tid);
    Value has = k.land(k.lt(tid, k.idx(BS)), k.lt(s, k.idx(S)));
    Value stat = k.ifElse(
        has,
        [&] {
          return emitSliceStatistic(k, epi, cosLocal, sinLocal, k.idx(0), tid);
        },
        k.f32(0.0f));
    if (none) {
      k.ifThen(has, [&] { k.store(stat, out, {v, s}); });
      return;
    }
    for (int32_t off = 1; off < BS; off *= 2)
      stat = addXorShuffled(k, stat, off);
    k.ifThen(k.lt(tid, k.idx(1)), [&] {
      // Every reader of a step counter (the projection) ran before the
      // Hopper kernel this launch waited for.
      emitPackedLossAdd(k, *layout, stat, func.getArgument(5), out,
                        finalizeLossBlocks(epi), epi.reduction, V * S, [&] {
                          if (epi.advancesStep)
                            emitStepAdvance(k, func.getArgument(6));
                        });
    });
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
