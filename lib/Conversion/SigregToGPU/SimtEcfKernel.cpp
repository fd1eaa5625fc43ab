//===- SimtEcfKernel.cpp - the fused ECF on CUDA cores --------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using gpu::Dimension;
} // namespace

//===----------------------------------------------------------------------===//
// Fused ECF: block = (slice tile of BS, batch tile of BM, view), 256 threads
// as 16 x 16 (tx over slices, ty over rows); thread (tx, ty) owns rows
// ty + 16 i (i < BM/16) and slices tx + 16 j (j < BS/16).
//   1. GEMM: k-tiles of 16; x tile [16][BM(+1 pad)] and A tile [16][BS] staged
//      in shared memory as f32 (bf16/f16 widened on load); f32 FMA into
//      registers. Out-of-range rows/slices/features load as 0.
//   2. y = acc / ||g_s|| when seeded (normalization after the GEMM).
//   3. cos/sin: one sincos of dt*y, then the angle-addition recurrence
//      (c, s) <- (c c1 - s s1, s c1 + c s1) over the points.
//   4. Per point: per-thread sums over its rows, then a fixed-order sum over
//      the 16 row groups through shared memory; thread tid < BS writes slice
//      s0 + tid.
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp mlir::sigreg::buildFusedEcfKernel(OpBuilder &b, Location loc,
                                                 const EcfKernelShape &sh) {
  int64_t V = sh.numViews, N = sh.batch, D = sh.featureDim, S = sh.numSlices,
          P = sh.numPoints, BM = sh.blockRows, BS = sh.blockSlices;
  int64_t TM = BM / 16, TS = BS / 16, xStride = BM + 1;
  int64_t T = sh.numBatchTiles();
  SmallVector<Type> args = {MemRefType::get({V, N, D}, sh.inputElement),
                            MemRefType::get({D, S}, sh.projectionElement)};
  if (sh.seeded)
    args.push_back(f32Memref(b, {sh.normChunks, S}));
  SmallVector<int64_t> outShape =
      T == 1 ? SmallVector<int64_t>{V, S, P} : SmallVector<int64_t>{T, V, S, P};
  args.push_back(f32Memref(b, outShape));
  args.push_back(f32Memref(b, outShape));
  int64_t kTileK = sh.tileK;
  auto func =
      createKernel(b, loc, "sigreg_fused_ecf", "trig_reduction", args,
                   {kTileK * xStride, kTileK * BS, 16 * BS, 16 * BS, BS});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value x = func.getArgument(0), A = func.getArgument(1);
  Value sumSq = sh.seeded ? func.getArgument(2) : Value();
  Value cosOut = func.getArgument(args.size() - 2),
        sinOut = func.getArgument(args.size() - 1);
  Value xs = func.getWorkgroupAttributions()[0],
        as = func.getWorkgroupAttributions()[1],
        redC = func.getWorkgroupAttributions()[2],
        redS = func.getWorkgroupAttributions()[3],
        norm = func.getWorkgroupAttributions()[4];

  Value tid = k.threadId(Dimension::x);
  Value tx = k.rem(tid, k.idx(16)), ty = k.div(tid, k.idx(16));
  Value sliceTile = k.blockId(Dimension::x),
        batchTile = k.blockId(Dimension::y);
  Value v = k.blockId(Dimension::z);
  Value s0 = k.mul(sliceTile, k.idx(BS)), n0 = k.mul(batchTile, k.idx(BM));
  Value lastS = k.idx(S - 1), lastN = k.idx(N - 1), lastD = k.idx(D - 1);

  if (sh.seeded) {
    emitColumnNorms(k, sumSq, norm, tid, s0, BS, sh.normChunks, lastS);
    k.barrier();
  }

  // 1. GEMM over k-tiles.
  int64_t numK = (D + kTileK - 1) / kTileK;
  SmallVector<Value> zeros(TM * TS, k.f32(0.0f));
  SmallVector<Value> acc = k.forEach(
      k.idx(0), k.idx(numK), k.idx(1), zeros,
      [&](Value kt, ValueRange carried) {
        Value k0 = k.mul(kt, k.idx(kTileK));
        for (int64_t e = 0; e < BM * kTileK / kBlockThreads; ++e) {
          Value lin = k.add(tid, k.idx(e * kBlockThreads));
          Value r = k.div(lin, k.idx(kTileK)), c = k.rem(lin, k.idx(kTileK));
          Value n = k.add(n0, r), kk = k.add(k0, c);
          Value inBounds = k.land(k.lt(n, k.idx(N)), k.lt(kk, k.idx(D)));
          Value val =
              k.toF32(k.load(x, {v, k.min(n, lastN), k.min(kk, lastD)}));
          k.store(k.select(inBounds, val, k.f32(0.0f)), xs,
                  {k.add(k.mul(c, k.idx(xStride)), r)});
        }
        for (int64_t e = 0; e < kTileK * BS / kBlockThreads; ++e) {
          Value lin = k.add(tid, k.idx(e * kBlockThreads));
          Value kk = k.div(lin, k.idx(BS)), ss = k.rem(lin, k.idx(BS));
          Value d = k.add(k0, kk), s = k.add(s0, ss);
          Value inBounds = k.land(k.lt(d, k.idx(D)), k.lt(s, k.idx(S)));
          Value val = k.toF32(k.load(A, {k.min(d, lastD), k.min(s, lastS)}));
          k.store(k.select(inBounds, val, k.f32(0.0f)), as, {lin});
        }
        k.barrier();
        SmallVector<Value> next(carried.begin(), carried.end());
        for (int64_t kk = 0; kk < kTileK; ++kk) {
          SmallVector<Value> xv, av;
          for (int64_t i = 0; i < TM; ++i)
            xv.push_back(k.load(xs, {k.add(ty, k.idx(kk * xStride + 16 * i))}));
          for (int64_t j = 0; j < TS; ++j)
            av.push_back(k.load(as, {k.add(tx, k.idx(kk * BS + 16 * j))}));
          for (int64_t i = 0; i < TM; ++i)
            for (int64_t j = 0; j < TS; ++j)
              next[i * TS + j] = k.fma(xv[i], av[j], next[i * TS + j]);
        }
        k.barrier();
        return next;
      });

  // 2-3. Normalize, first rotation.
  double dt = sh.tMax / static_cast<double>(P - 1);
  Value dtF = k.f32(static_cast<float>(dt));
  SmallVector<Value> valid, c1(TM * TS), s1(TM * TS), cp(TM * TS), sp(TM * TS);
  for (int64_t i = 0; i < TM; ++i)
    valid.push_back(k.lt(k.add(n0, k.add(ty, k.idx(16 * i))), k.idx(N)));
  for (int64_t j = 0; j < TS; ++j) {
    Value nrm = sh.seeded ? k.load(norm, {k.add(tx, k.idx(16 * j))}) : Value();
    for (int64_t i = 0; i < TM; ++i) {
      Value y = acc[i * TS + j];
      if (nrm)
        y = k.divf(y, nrm);
      Value theta = k.mulf(y, dtF);
      auto sc = math::SincosOp::create(k.b, k.b.getF32Type(), k.b.getF32Type(),
                                       theta);
      c1[i * TS + j] = sc.getCos();
      s1[i * TS + j] = sc.getSin();
      cp[i * TS + j] = k.f32(1.0f);
      sp[i * TS + j] = k.f32(0.0f);
    }
  }

  // 4. Per point: reduce over rows, write.
  Value zero = k.f32(0.0f);
  Value batchF = k.f32(static_cast<float>(N));
  for (int64_t p = 0; p < P; ++p) {
    for (int64_t j = 0; j < TS; ++j) {
      Value pc = zero, ps = zero;
      for (int64_t i = 0; i < TM; ++i) {
        pc = k.addf(pc, k.select(valid[i], cp[i * TS + j], zero));
        ps = k.addf(ps, k.select(valid[i], sp[i * TS + j], zero));
      }
      Value slot = k.add(k.mul(ty, k.idx(BS)), k.add(tx, k.idx(16 * j)));
      k.store(pc, redC, {slot});
      k.store(ps, redS, {slot});
    }
    k.barrier();
    k.ifThen(k.lt(tid, k.idx(BS)), [&] {
      Value tc = zero, ts = zero;
      for (int64_t r = 0; r < 16; ++r) {
        Value slot = k.add(tid, k.idx(r * BS));
        tc = k.addf(tc, k.load(redC, {slot}));
        ts = k.addf(ts, k.load(redS, {slot}));
      }
      Value s = k.add(s0, tid);
      k.ifThen(k.lt(s, k.idx(S)), [&] {
        Value pIdx = k.idx(p);
        if (T == 1) {
          k.store(k.divf(tc, batchF), cosOut, {v, s, pIdx});
          k.store(k.divf(ts, batchF), sinOut, {v, s, pIdx});
        } else {
          k.store(tc, cosOut, {batchTile, v, s, pIdx});
          k.store(ts, sinOut, {batchTile, v, s, pIdx});
        }
      });
    });
    k.barrier();
    if (p + 1 < P)
      for (int64_t e = 0; e < TM * TS; ++e) {
        Value c = cp[e], s = sp[e];
        cp[e] = k.subf(k.mulf(c, c1[e]), k.mulf(s, s1[e]));
        sp[e] = k.addf(k.mulf(s, c1[e]), k.mulf(c, s1[e]));
      }
  }
  return func;
}
