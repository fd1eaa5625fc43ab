//===- KernelUtils.cpp - helpers of the kernel builders -------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::sigreg;

gpu::GPUFuncOp mlir::sigreg::createKernel(OpBuilder &b, Location loc,
                                          StringRef name, StringRef region,
                                          TypeRange args,
                                          ArrayRef<int64_t> workgroupF32Sizes,
                                          ArrayRef<int64_t> workgroupI32Sizes) {
  MLIRContext *ctx = b.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> workgroup;
  for (int64_t n : workgroupF32Sizes)
    workgroup.push_back(MemRefType::get({n}, b.getF32Type(),
                                        MemRefLayoutAttrInterface(), wgSpace));
  for (int64_t n : workgroupI32Sizes)
    workgroup.push_back(MemRefType::get({n}, b.getI32Type(),
                                        MemRefLayoutAttrInterface(), wgSpace));
  auto func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}),
                                     workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("sigreg.region", b.getStringAttr(region));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kBlockThreads), 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return func;
}

void mlir::sigreg::emitStepAdvance(KernelBuilder &k, Value step, Value seed) {
  if (!seed)
    seed = k.load(step, {});
  k.store(
      arith::AddIOp::create(
          k.b, seed, arith::ConstantIntOp::create(k.b, k.b.getI64Type(), 1)),
      step, {});
}

MemRefType mlir::sigreg::f32Memref(OpBuilder &b, ArrayRef<int64_t> shape) {
  return MemRefType::get(shape, b.getF32Type());
}

Value mlir::sigreg::toI32(KernelBuilder &k, Value index) {
  return arith::IndexCastUIOp::create(k.b, k.b.getI32Type(), index);
}

Value mlir::sigreg::fromI32(KernelBuilder &k, Value value) {
  return arith::IndexCastUIOp::create(k.b, k.b.getIndexType(), value);
}

Value mlir::sigreg::constI32(KernelBuilder &k, int32_t value) {
  return arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(value));
}

Value mlir::sigreg::packPair(KernelBuilder &k, Value lo, Value hi) {
  Type i16 = k.b.getI16Type(), i32 = k.b.getI32Type();
  auto widen = [&](Value v) -> Value {
    Value bits = arith::BitcastOp::create(k.b, i16, v);
    return arith::ExtUIOp::create(k.b, i32, bits);
  };
  Value hiBits = arith::ShLIOp::create(
      k.b, widen(hi),
      arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(16)));
  return arith::OrIOp::create(k.b, hiBits, widen(lo));
}
RoundedPair mlir::sigreg::roundPair(KernelBuilder &k, Value lo, Value hi,
                                    Type elem) {
  auto pairOf = [](Type t) { return VectorType::get({2}, t); };
  Value v = vector::FromElementsOp::create(k.b, pairOf(k.b.getF32Type()),
                                           ValueRange{lo, hi});
  Value rounded = arith::TruncFOp::create(k.b, pairOf(elem), v);
  Value word = vector::BitCastOp::create(
      k.b, VectorType::get({1}, k.b.getI32Type()), rounded);
  return {rounded, vector::ExtractOp::create(k.b, word, ArrayRef<int64_t>{0})};
}

Value mlir::sigreg::RoundedPair::element(KernelBuilder &k, int64_t i) const {
  return vector::ExtractOp::create(k.b, vector, ArrayRef<int64_t>{i});
}

void mlir::sigreg::emitColumnNorms(KernelBuilder &k, Value sumSq, Value norm,
                                   Value tid, Value s0, int64_t tileSlices,
                                   int64_t normChunks, Value lastS) {
  k.ifThen(k.lt(tid, k.idx(tileSlices)), [&] {
    Value s = k.min(k.add(s0, tid), lastS);
    SmallVector<Value> sum = k.forEach(
        k.idx(0), k.idx(normChunks), k.idx(1), {k.f32(0.0f)},
        [&](Value c, ValueRange carried) {
          return SmallVector<Value>{k.addf(carried[0], k.load(sumSq, {c, s}))};
        });
    k.store(math::SqrtOp::create(k.b, sum[0]), norm, {tid});
  });
}

Value mlir::sigreg::arriveAtCounter(KernelBuilder &k, Value tid, Value flag,
                                    Value counters, Value index,
                                    int64_t expected,
                                    function_ref<void()> barrier) {
  Type i32 = k.b.getI32Type();
  auto sync = [&] {
    if (barrier)
      barrier();
    else
      k.barrier();
  };
  // The block's writes are ordered before thread 0's by the barrier; its
  // acq_rel fences at GPU scope (fence.acq_rel.gpu) release them with the
  // counter's increment and acquire the other blocks' (cumulative through
  // the barriers, the pattern of CUTLASS's GenericBarrier). Cheaper than a
  // membar.gl (fence.sc.gpu) in every thread: measured in
  // docs/PERF-NOTES.md (n2).
  sync();
  auto fence = [&] {
    LLVM::FenceOp::create(k.b, LLVM::AtomicOrdering::acq_rel, "device");
  };
  k.ifThen(k.lt(tid, k.idx(1)), [&] {
    Value one = arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(1));
    fence(); // release
    Value old = memref::AtomicRMWOp::create(k.b, arith::AtomicRMWKind::addi,
                                            one, counters, ValueRange{index});
    fence(); // acquire
    Value last = arith::CmpIOp::create(
        k.b, arith::CmpIPredicate::eq, old,
        arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(expected - 1)));
    k.ifThen(last, [&] {
      k.store(arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(0)),
              counters, {index});
    });
    k.store(arith::ExtUIOp::create(k.b, i32, last), flag, {k.idx(0)});
  });
  sync();
  return arith::CmpIOp::create(
      k.b, arith::CmpIPredicate::ne, k.load(flag, {k.idx(0)}),
      arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(0)));
}

void mlir::sigreg::namedBarrier(KernelBuilder &k, Value id, int64_t threads,
                                bool arriveOnly) {
  Value id32 = toI32(k, id);
  Value count = constI32(k, static_cast<int32_t>(threads));
  if (arriveOnly) {
    NVVM::BarrierArriveOp::create(k.b, id32, count);
    return;
  }
  NVVM::BarrierOp::create(k.b, /*res=*/Type(), id32, count,
                          /*reductionOp=*/nullptr,
                          /*reductionPredicate=*/Value());
}

void mlir::sigreg::emitGridBarrier(KernelBuilder &k, Value tid, Value counter,
                                   int64_t ctas) {
  auto c64 = [&](int64_t v) {
    return arith::ConstantOp::create(k.b, k.b.getI64IntegerAttr(v));
  };
  auto fence = [&] {
    LLVM::FenceOp::create(k.b, LLVM::AtomicOrdering::acq_rel, "device");
  };
  k.barrier();
  k.ifThen(k.lt(tid, k.idx(1)), [&] {
    fence(); // release
    Value old = memref::AtomicRMWOp::create(k.b, arith::AtomicRMWKind::addi,
                                            c64(1), counter, {k.idx(0)});
    Value n = c64(ctas);
    Value target = arith::MulIOp::create(
        k.b,
        arith::AddIOp::create(k.b, arith::DivUIOp::create(k.b, old, n), c64(1)),
        n);
    scf::WhileOp::create(
        k.b, k.b.getLoc(), TypeRange{}, ValueRange{},
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value now = memref::AtomicRMWOp::create(
              b, loc, arith::AtomicRMWKind::addi,
              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)),
              counter, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
          Value waiting = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, now, target);
          scf::ConditionOp::create(b, loc, waiting, ValueRange{});
        },
        [&](OpBuilder &b, Location loc, ValueRange) {
          scf::YieldOp::create(b, loc);
        });
    fence(); // acquire
  });
  k.barrier();
}

void mlir::sigreg::emitBlockTreeSum(KernelBuilder &k, Value tid, Value red,
                                    function_ref<void()> barrier) {
  auto sync = [&] {
    if (barrier)
      barrier();
    else
      k.barrier();
  };
  sync();
  for (int64_t stride = kBlockThreads / 2; stride >= 1; stride /= 2) {
    k.ifThen(k.lt(tid, k.idx(stride)), [&] {
      Value other = k.load(red, {k.add(tid, k.idx(stride))});
      k.store(k.addf(k.load(red, {tid}), other), red, {tid});
    });
    sync();
  }
}

/// `theta` reduced to [-pi, pi] by Cody-Waite (2 pi = 6.28125 +
/// 1.9353071795864769e-3, the first part exact in 8 bits).
static Value reduceAngle(KernelBuilder &k, Value theta) {
  Value q = math::RoundEvenOp::create(
      k.b, k.mulf(theta, k.f32(0.15915494309189535f)));
  Value r = k.fma(q, k.f32(-6.28125f), theta);
  return k.fma(q, k.f32(-1.9353071795864769e-3f), r);
}

Value mlir::sigreg::encodePhase(KernelBuilder &k, Value theta) {
  // 65536 / (2 pi); |r| <= pi, so the rounded code is in [-32768, 32768]
  // and 32768 (pi) wraps to -32768 (-pi), the same angle.
  Value turns = math::RoundEvenOp::create(
      k.b, k.mulf(reduceAngle(k, theta), k.f32(10430.378350470453f)));
  Value code = arith::FPToSIOp::create(k.b, k.b.getI32Type(), turns);
  return arith::TruncIOp::create(k.b, k.b.getI16Type(), code);
}

Value mlir::sigreg::decodePhase(KernelBuilder &k, Value code) {
  Value turns = arith::SIToFPOp::create(k.b, k.b.getF32Type(), code);
  return k.mulf(turns, k.f32(9.587379924285257e-5f)); // 2 pi / 65536
}

std::pair<Value, Value> mlir::sigreg::reducedSinCos(KernelBuilder &k,
                                                    Value theta, bool inRange) {
  Value r = inRange ? theta : reduceAngle(k, theta);
  Type f32 = k.b.getF32Type();
  auto call = [&](StringRef name) -> Value {
    return LLVM::CallIntrinsicOp::create(k.b, f32, k.b.getStringAttr(name),
                                         ValueRange{r})
        .getResult(0);
  };
  return {call("llvm.nvvm.sin.approx.f"), call("llvm.nvvm.cos.approx.f")};
}

/// Where `swapped` is given: first, second = second, first if it is true.
static void swapIf(KernelBuilder &k, Value swapped, Value &first,
                   Value &second) {
  if (!swapped)
    return;
  Value f = k.select(swapped, second, first);
  second = k.select(swapped, first, second);
  first = f;
}

void mlir::sigreg::forEachHarmonic(
    KernelBuilder &k, int64_t P, Value theta,
    function_ref<void(int64_t, Value, Value)> point, bool inRange,
    Value swapped) {
  auto [s1, c1] = reducedSinCos(k, theta, inRange);
  Value twoC1 = k.addf(c1, c1);
  Value cPrev = k.f32(1.0f), sPrev = k.f32(0.0f), c = c1, sn = s1;
  // Swapped: the recurrences start from each other's values (both run on
  // 2 cos theta), so `point` gets sin(p theta) as c.
  swapIf(k, swapped, cPrev, sPrev);
  swapIf(k, swapped, c, sn);
  for (int64_t p = 1; p < P; ++p) {
    if (p > 1 && (p - 1) % kHarmonicSegment == 0) {
      auto [sp, cp] =
          reducedSinCos(k, k.mulf(theta, k.f32(static_cast<float>(p))));
      c = cp;
      sn = sp;
      cPrev = k.fma(cp, c1, k.mulf(sp, s1));
      sPrev = k.fma(sp, c1, arith::NegFOp::create(k.b, k.mulf(cp, s1)));
      swapIf(k, swapped, cPrev, sPrev);
      swapIf(k, swapped, c, sn);
    }
    point(p, c, sn);
    if (p + 1 < P) {
      Value cNext = k.fma(twoC1, c, arith::NegFOp::create(k.b, cPrev));
      Value sNext = k.fma(twoC1, sn, arith::NegFOp::create(k.b, sPrev));
      cPrev = c;
      sPrev = sn;
      c = cNext;
      sn = sNext;
    }
  }
}

void mlir::sigreg::forEachHarmonicPair(
    KernelBuilder &k, int64_t P, Value ya, Value yb, Value halfScale,
    function_ref<void(int64_t, Value, Value, Value)> point, Value swapped) {
  Value u = k.mulf(k.addf(ya, yb), halfScale);
  Value v = k.mulf(k.subf(ya, yb), halfScale);
  auto [su, cu] = reducedSinCos(k, u);
  auto [sv, cv] = reducedSinCos(k, v);
  Value twoCu = k.addf(cu, cu), twoCv = k.addf(cv, cv);
  Value cPrev = k.f32(1.0f), sPrev = k.f32(0.0f), wPrev = k.f32(2.0f);
  Value c = cu, sn = su, w = twoCv;
  // Swapped: the c recurrence starts from sin's values and the s one from
  // cos's (both run on 2 cos u), so `point` gets sin(p u) as c.
  swapIf(k, swapped, cPrev, sPrev);
  swapIf(k, swapped, c, sn);
  auto neg = [&](Value x) { return arith::NegFOp::create(k.b, x); };
  for (int64_t p = 1; p < P; ++p) {
    if (p > 1 && (p - 1) % kHarmonicSegment == 0) {
      Value pf = k.f32(static_cast<float>(p));
      auto [sp, cp] = reducedSinCos(k, k.mulf(u, pf));
      auto [spv, cpv] = reducedSinCos(k, k.mulf(v, pf));
      c = cp;
      sn = sp;
      w = k.addf(cpv, cpv);
      cPrev = k.fma(cp, cu, k.mulf(sp, su));
      sPrev = k.fma(sp, cu, neg(k.mulf(cp, su)));
      Value vPrev = k.fma(cpv, cv, k.mulf(spv, sv));
      wPrev = k.addf(vPrev, vPrev);
      swapIf(k, swapped, cPrev, sPrev);
      swapIf(k, swapped, c, sn);
    }
    point(p, c, sn, w);
    if (p + 1 < P) {
      Value cNext = k.fma(twoCu, c, neg(cPrev));
      Value sNext = k.fma(twoCu, sn, neg(sPrev));
      Value wNext = k.fma(twoCv, w, neg(wPrev));
      cPrev = c;
      sPrev = sn;
      wPrev = w;
      c = cNext;
      sn = sNext;
      w = wNext;
    }
  }
}

Value mlir::sigreg::addXorShuffled(KernelBuilder &k, Value value,
                                   int32_t offset) {
  return k.addf(value, gpu::ShuffleOp::create(k.b, value, offset, 32,
                                              gpu::ShuffleMode::XOR)
                           .getShuffleResult());
}

Value mlir::sigreg::laneBit(KernelBuilder &k, Value lane, int32_t offset) {
  return k.lt(k.idx(0), k.rem(k.div(lane, k.idx(offset)), k.idx(2)));
}

SmallVector<Value> mlir::sigreg::addXorHalving(KernelBuilder &k, Value lane,
                                               ArrayRef<Value> values,
                                               ArrayRef<int32_t> offsets) {
  assert(values.size() % (size_t{1} << offsets.size()) == 0 &&
         "addXorHalving: the values halve at every offset");
  SmallVector<Value> sum(values);
  for (int32_t off : offsets) {
    Value upper = laneBit(k, lane, off);
    size_t half = sum.size() / 2;
    SmallVector<Value> kept;
    for (size_t i = 0; i < half; ++i) {
      Value give = k.select(upper, sum[i], sum[half + i]);
      Value keep = k.select(upper, sum[half + i], sum[i]);
      Value got =
          gpu::ShuffleOp::create(k.b, give, off, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      kept.push_back(k.addf(keep, got));
    }
    sum = std::move(kept);
  }
  return sum;
}

SmallVector<Value> mlir::sigreg::addXorSent(KernelBuilder &k,
                                            ArrayRef<Value> keep,
                                            ArrayRef<Value> send,
                                            int32_t offset) {
  assert(keep.size() == send.size() && "addXorSent: one sent per kept");
  SmallVector<Value> added;
  for (size_t i = 0; i < keep.size(); ++i)
    added.push_back(
        k.addf(keep[i], gpu::ShuffleOp::create(k.b, send[i], offset, 32,
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult()));
  return added;
}

Value mlir::sigreg::halvedPart(KernelBuilder &k, Value lane,
                               ArrayRef<int32_t> offsets) {
  Value part = k.idx(0);
  for (int32_t off : offsets)
    part = k.add(k.mul(part, k.idx(2)),
                 k.select(laneBit(k, lane, off), k.idx(1), k.idx(0)));
  return part;
}

Value mlir::sigreg::emitBlockShuffleSum(KernelBuilder &k, Value tid,
                                        Value value, Value scratch,
                                        function_ref<void()> barrier,
                                        int64_t threads) {
  for (int32_t off = 16; off >= 1; off /= 2)
    value = addXorShuffled(k, value, off);
  Value lane = k.rem(tid, k.idx(32)), warp = k.div(tid, k.idx(32));
  k.ifThen(k.lt(lane, k.idx(1)), [&] { k.store(value, scratch, {warp}); });
  if (barrier)
    barrier();
  else
    k.barrier();
  Value total = k.load(scratch, {k.idx(0)});
  for (int64_t w = 1; w < threads / 32; ++w)
    total = k.addf(total, k.load(scratch, {k.idx(w)}));
  return total;
}

Value mlir::sigreg::mmaSyncOperand(KernelBuilder &k, Type elem, Value word) {
  if (elem.isBF16())
    return word;
  return LLVM::BitcastOp::create(k.b, VectorType::get({2}, k.b.getF16Type()),
                                 word);
}

void mlir::sigreg::emitMmaSync16816(KernelBuilder &k, Type elem,
                                    ArrayRef<Value> a, ArrayRef<Value> b,
                                    MutableArrayRef<Value> acc) {
  Type f32 = k.b.getF32Type();
  auto accType =
      LLVM::LLVMStructType::getLiteral(k.b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes ptxType =
      elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto mma = NVVM::MmaOp::create(
      k.b, accType, a, b, acc, {16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  for (int64_t c = 0; c < 4; ++c)
    acc[c] =
        LLVM::ExtractValueOp::create(k.b, mma.getRes(), ArrayRef<int64_t>{c});
}

GradCoefficients mlir::sigreg::gradCoefficientsFrom(KernelBuilder &k, int64_t P,
                                                    double tMax, int64_t N,
                                                    Value scale,
                                                    ArrayRef<Value> dcosP,
                                                    ArrayRef<Value> dsinP) {
  double dt = tMax / double(P - 1);
  // 1 / (N ||g_s||) = scale / (dt N).
  Value f = k.mulf(scale, k.f32(static_cast<float>(1.0 / (dt * N))));
  GradCoefficients c;
  for (int64_t p = 1; p < P; ++p) {
    Value tf = k.mulf(f, k.f32(static_cast<float>(p * dt)));
    c.a.push_back(k.mulf(tf, dsinP[p]));
    c.negB.push_back(arith::NegFOp::create(k.b, k.mulf(tf, dcosP[p])));
  }
  return c;
}

Value mlir::sigreg::emitGradValue(KernelBuilder &k, int64_t P, Value theta,
                                  const GradCoefficients &c, bool inRange) {
  Value g = k.f32(0.0f);
  forEachHarmonic(
      k, P, theta,
      [&](int64_t p, Value cp, Value sp) {
        g = k.fma(c.a[p - 1], cp, k.fma(c.negB[p - 1], sp, g));
      },
      inRange);
  return g;
}

std::optional<LossSumLayout>
mlir::sigreg::packedLossSumLayout(Reduction reduction, int64_t arrivals,
                                  int64_t statistics, int64_t numPoints,
                                  double tMax, int64_t globalCount,
                                  ClipMode clip, double clipValue) {
  if (reduction == Reduction::none)
    return std::nullopt;
  int64_t countBits = llvm::bit_width(static_cast<uint64_t>(arrivals));
  int64_t sumBits = 64 - 2 * countBits;
  // T = globalCount * sum_p w_p |e_p - phi_p|^2, with e_p the ECF (a mean
  // of unit complex numbers, |e_p| <= 1) and phi_p in (0, 1]: at most
  // globalCount * sum_p w_p (1 + phi_p)^2, 1% more for f32 rounding; the
  // clip value where clamp_min can raise T to it.
  IntegrationGrid grid = computeIntegrationGrid(numPoints, tMax);
  double weighted = 0.0;
  for (size_t p = 0; p < grid.w.size(); ++p)
    weighted +=
        std::fabs(grid.w[p]) * (1.0 + grid.phi[p]) * (1.0 + grid.phi[p]);
  double slice = 1.01 * static_cast<double>(globalCount) * weighted;
  if (clip == ClipMode::clamp_min)
    slice = std::max(slice, clipValue);
  double bound = slice * static_cast<double>(statistics);
  // Integer bits: the bound, and one more so that a block's sum below
  // 2^integerBits cannot carry the whole sum into the poison count.
  int64_t integerBits =
      static_cast<int64_t>(std::ceil(std::log2(std::max(bound, 1.0)))) + 1;
  int64_t fractionBits = sumBits - integerBits;
  if (fractionBits < kMinLossFractionBits)
    return std::nullopt;
  return LossSumLayout{countBits, sumBits, fractionBits};
}

nvgpu::TensorMapDescriptorType
mlir::sigreg::swizzledBoxMap(MLIRContext *ctx, ArrayRef<int64_t> box,
                             Type elem) {
  auto tile = MemRefType::get(box, elem, nullptr,
                              IntegerAttr::get(IntegerType::get(ctx, 64), 3));
  return nvgpu::TensorMapDescriptorType::get(
      ctx, tile, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

void mlir::sigreg::prefetchToL2(KernelBuilder &k, Value memref, Value index) {
  auto type = cast<MemRefType>(memref.getType());
  MLIRContext *ctx = k.b.getContext();
  Type i64 = k.b.getI64Type();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(k.b, memref);
  Value address = arith::IndexCastUIOp::create(
      k.b, i64, k.add(base, k.mul(index, k.idx(bytes))));
  Value generic = LLVM::IntToPtrOp::create(
      k.b, LLVM::LLVMPointerType::get(ctx, 0), address);
  Value global = LLVM::AddrSpaceCastOp::create(
      k.b, LLVM::LLVMPointerType::get(ctx, 1), generic);
  NVVM::PrefetchOp::create(
      k.b, NVVM::PrefetchCacheLevelAttr::get(ctx, NVVM::PrefetchCacheLevel::L2),
      /*evictPriority=*/nullptr, global, /*predicate=*/Value(),
      /*tensormap=*/nullptr, /*uniform=*/nullptr, /*in_param_space=*/nullptr);
}

Value mlir::sigreg::toPackedContribution(KernelBuilder &k,
                                         const LossSumLayout &layout,
                                         Value value) {
  int64_t F = layout.sumBits, Fr = layout.fractionBits;
  Type i64 = k.b.getI64Type();
  // In [0, 2^(F - Fr)): the layout's bound; NaN and +inf fail it.
  Value inRange = k.land(
      arith::CmpFOp::create(k.b, arith::CmpFPredicate::OGE, value, k.f32(0.0f)),
      arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, value,
                            k.f32(std::ldexp(1.0f, F - Fr))));
  Value scaled = math::RoundEvenOp::create(
      k.b, k.mulf(value, k.f32(std::ldexp(1.0f, Fr))));
  Value fixed =
      arith::FPToUIOp::create(k.b, i64, k.select(inRange, scaled, k.f32(0.0f)));
  return arith::SelectOp::create(
      k.b, inRange, fixed,
      arith::ConstantOp::create(
          k.b, k.b.getI64IntegerAttr(static_cast<int64_t>(uint64_t(1) << F))));
}

void mlir::sigreg::emitPackedLossAdd(KernelBuilder &k,
                                     const LossSumLayout &layout, Value sum,
                                     Value acc, Value out, int64_t arrivals,
                                     Reduction reduction, int64_t statistics,
                                     function_ref<void()> onLoss) {
  emitPackedWordAdd(k, layout, toPackedContribution(k, layout, sum), acc, out,
                    arrivals, reduction, statistics, onLoss);
}

void mlir::sigreg::emitPackedWordAdd(KernelBuilder &k,
                                     const LossSumLayout &layout,
                                     Value contribution, Value acc, Value out,
                                     int64_t arrivals, Reduction reduction,
                                     int64_t statistics,
                                     function_ref<void()> onLoss) {
  int64_t F = layout.sumBits, C = layout.countBits, Fr = layout.fractionBits;
  Type f64 = k.b.getF64Type();
  auto c64 = [&](uint64_t v) {
    return arith::ConstantOp::create(
        k.b, k.b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  Value add =
      arith::AddIOp::create(k.b, contribution, c64(uint64_t(1) << (F + C)));
  Value old = memref::AtomicRMWOp::create(k.b, arith::AtomicRMWKind::addi, add,
                                          acc, ValueRange{k.idx(0)});
  Value total = arith::AddIOp::create(k.b, old, add);
  Value count = arith::ShRUIOp::create(k.b, total, c64(F + C));
  Value last = arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, count,
                                     c64(arrivals));
  k.ifThen(last, [&] {
    Value poison =
        arith::AndIOp::create(k.b, arith::ShRUIOp::create(k.b, total, c64(F)),
                              c64((uint64_t(1) << C) - 1));
    Value bits = arith::AndIOp::create(k.b, total, c64((uint64_t(1) << F) - 1));
    double scale = std::ldexp(1.0, -Fr);
    if (reduction == Reduction::mean)
      scale /= static_cast<double>(statistics);
    Value value = arith::MulFOp::create(
        k.b, arith::UIToFPOp::create(k.b, f64, bits),
        arith::ConstantOp::create(k.b, k.b.getF64FloatAttr(scale)));
    Value loss = arith::TruncFOp::create(k.b, k.b.getF32Type(), value);
    Value clean =
        arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, poison, c64(0));
    k.store(
        k.select(clean, loss, k.f32(std::numeric_limits<float>::quiet_NaN())),
        out, {});
    k.store(c64(0), acc, {k.idx(0)});
    if (onLoss)
      onLoss();
  });
}
