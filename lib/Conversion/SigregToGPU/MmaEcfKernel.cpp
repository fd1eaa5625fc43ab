//===- MmaEcfKernel.cpp - the fused ECF on tensor cores (mma.sync) --------===//

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

//===----------------------------------------------------------------------===//
// Fused ECF on tensor cores (bf16/f16 inputs): block = (128 slices, 64 batch
// rows, view), 256 threads = 8 warps as 2 (rows) x 4 (slices); warp tile
// 32 x 32 = 2 x 4 fragments of mma.sync.m16n8k16 (f32 accumulators).
//   1. k-tiles of 32: x tile [64 rows][16 words] and A tile [128 slices]
//      [16 words] staged in shared memory as packed pairs along k (row
//      stride 20 words: fragment loads are bank-conflict free); ragged edges
//      load as 0.
//   2. The accumulators (y, divided by ||g_s|| when seeded) go to a shared
//      [64][128] f32 tile.
//   3. ECF: thread = (slice, half of the rows); one sincos per row, the
//      angle-addition recurrence over the points, sums in registers; the two
//      halves are added in a fixed order through shared memory.
//===----------------------------------------------------------------------===//

namespace {
// The 64 x 128 tile (kMmaRows, kMmaSlices) is shared with the schedule choice
// (sigreg/Dialect/Sigreg/Utils/EcfSchedule.h).
constexpr int64_t kMmaK = 32, kMmaStride = 20;

/// The values the stages of one kernel share.
struct MmaTile {
  KernelBuilder &k;
  const EcfKernelShape &sh;
  Type elem;
  int64_t pairs;
  /// The seeded f32 projection is split into hi and lo 16-bit words.
  bool split;
  Value x, A, loWords, sumSq, cosOut, sinOut, norm, smem;
  /// Word offsets in `smem` of the x tile and the A tile (hi, lo).
  Value aBase, bHiBase, bLoBase;
  /// Thread layout: lane = (g, t) of the mma fragments, warp = (wm, wn).
  Value tid, g, t, wm, wn;
  Value batchTile, s0, n0, v, lastS, lastN, lastD, zeroElem;
  /// Operand staging: x as 16-byte vectors (D % 8 == 0) or word pairs; A
  /// words per load (4 when seeded and S % 4 == 0); loads per thread; the
  /// (source, shared base) of each A part.
  bool xVector;
  int64_t bWidth, xCount, bCount;
  SmallVector<std::pair<Value, Value>> bParts;
};

void storeY(MmaTile &m, Value y, Value index) {
  m.k.store(arith::BitcastOp::create(m.k.b, m.k.b.getI32Type(), y), m.smem,
            {index});
}
Value loadY(MmaTile &m, Value index) {
  return arith::BitcastOp::create(m.k.b, m.k.b.getF32Type(),
                                  m.k.load(m.smem, {index}));
}
Value zeroVector(KernelBuilder &k, VectorType type) {
  return arith::ConstantOp::create(
      k.b,
      DenseElementsAttr::get(type, k.b.getZeroAttr(type.getElementType())));
}

/// Shared-memory word of the x tile (64 rows x 16 words) that load `e` of
/// this thread fills.
Value xSlot(MmaTile &m, int64_t e) {
  KernelBuilder &k = m.k;
  if (m.xVector)
    return k.add(m.aBase,
                 k.add(k.mul(k.div(m.tid, k.idx(4)), k.idx(kMmaStride)),
                       k.mul(k.rem(m.tid, k.idx(4)), k.idx(4))));
  Value wi = k.add(m.tid, k.idx(e * kBlockThreads));
  return k.add(m.aBase, k.add(k.mul(k.div(wi, k.idx(16)), k.idx(kMmaStride)),
                              k.rem(wi, k.idx(16))));
}

/// Shared-memory word of the A tile (128 slices x 16 words, slice-major) that
/// load `e` of this thread fills. Seeded: consecutive threads take
/// consecutive k words of the same slices, so each warp reads 16 rows x 32
/// contiguous bytes and its stores (stride 20 words per slice) hit 32
/// distinct banks.
Value bSlot(MmaTile &m, Value dstBase, int64_t e) {
  KernelBuilder &k = m.k;
  Value vi = k.add(m.tid, k.idx(e * kBlockThreads));
  if (!m.sh.seeded)
    return k.add(dstBase,
                 k.add(k.mul(k.rem(vi, k.idx(kMmaSlices)), k.idx(kMmaStride)),
                       k.div(vi, k.idx(kMmaSlices))));
  Value nn = k.mul(k.div(vi, k.idx(16)), k.idx(m.bWidth));
  return k.add(dstBase,
               k.add(k.mul(nn, k.idx(kMmaStride)), k.rem(vi, k.idx(16))));
}

/// Stage 1a: the global loads of k-tile `kt` (x, then the A parts) into
/// registers; ragged edges load as 0.
SmallVector<Value> loadOperandTile(MmaTile &m, Value kt) {
  KernelBuilder &k = m.k;
  const EcfKernelShape &sh = m.sh;
  int64_t N = sh.batch, D = sh.featureDim, S = sh.numSlices;
  auto i32x4 = VectorType::get({4}, k.b.getI32Type());
  SmallVector<Value> staged;
  Value k0 = k.mul(kt, k.idx(kMmaK));
  for (int64_t e = 0; e < m.xCount; ++e) {
    if (m.xVector) {
      Value row = k.div(m.tid, k.idx(4)), kv = k.rem(m.tid, k.idx(4));
      Value n = k.add(m.n0, row), kk = k.add(k0, k.mul(kv, k.idx(8)));
      Value ok = k.land(k.lt(n, k.idx(N)), k.lt(kk, k.idx(D)));
      auto vecType = VectorType::get({8}, m.elem);
      Value vec = vector::LoadOp::create(
          k.b, vecType, m.x,
          ValueRange{m.v, k.min(n, m.lastN), k.min(kk, k.idx(D - 8))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      vec = k.select(ok, vec, zeroVector(k, vecType));
      staged.push_back(vector::BitCastOp::create(k.b, i32x4, vec));
      continue;
    }
    Value wi = k.add(m.tid, k.idx(e * kBlockThreads));
    Value row = k.div(wi, k.idx(16)), kw = k.rem(wi, k.idx(16));
    Value n = k.add(m.n0, row);
    Value kk = k.add(k0, k.mul(kw, k.idx(2))), kk1 = k.add(kk, k.idx(1));
    Value rowOk = k.lt(n, k.idx(N)), nc = k.min(n, m.lastN);
    Value lo = k.select(k.land(rowOk, k.lt(kk, k.idx(D))),
                        k.load(m.x, {m.v, nc, k.min(kk, m.lastD)}), m.zeroElem);
    Value hi =
        k.select(k.land(rowOk, k.lt(kk1, k.idx(D))),
                 k.load(m.x, {m.v, nc, k.min(kk1, m.lastD)}), m.zeroElem);
    staged.push_back(packPair(k, lo, hi));
  }
  if (sh.seeded) {
    Value kp0 = k.mul(kt, k.idx(kMmaK / 2));
    for (auto [src, dstBase] : m.bParts)
      for (int64_t e = 0; e < m.bCount; ++e) {
        Value vi = k.add(m.tid, k.idx(e * kBlockThreads));
        Value kp = k.add(kp0, k.rem(vi, k.idx(16)));
        Value sIdx = k.add(m.s0, k.mul(k.div(vi, k.idx(16)), k.idx(m.bWidth)));
        Value ok = k.land(k.lt(kp, k.idx(m.pairs)), k.lt(sIdx, k.idx(S)));
        Value row = k.min(kp, k.idx(m.pairs - 1));
        Value col = k.min(sIdx, k.idx(S - m.bWidth));
        if (m.bWidth == 1) {
          staged.push_back(k.select(
              ok, k.load(src, {row, col}),
              arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(0))));
          continue;
        }
        Value vec =
            vector::LoadOp::create(k.b, i32x4, src, ValueRange{row, col},
                                   /*nontemporal=*/false, llvm::MaybeAlign(16));
        staged.push_back(k.select(ok, vec, zeroVector(k, i32x4)));
      }
    return staged;
  }
  for (int64_t e = 0; e < m.bCount; ++e) {
    Value wi = k.add(m.tid, k.idx(e * kBlockThreads));
    Value nn = k.rem(wi, k.idx(kMmaSlices)), kw = k.div(wi, k.idx(kMmaSlices));
    Value sIdx = k.add(m.s0, nn);
    Value kk = k.add(k0, k.mul(kw, k.idx(2))), kk1 = k.add(kk, k.idx(1));
    Value colOk = k.lt(sIdx, k.idx(S)), sc = k.min(sIdx, m.lastS);
    Value lo = k.select(k.land(colOk, k.lt(kk, k.idx(D))),
                        k.load(m.A, {k.min(kk, m.lastD), sc}), m.zeroElem);
    Value hi = k.select(k.land(colOk, k.lt(kk1, k.idx(D))),
                        k.load(m.A, {k.min(kk1, m.lastD), sc}), m.zeroElem);
    staged.push_back(packPair(k, lo, hi));
  }
  return staged;
}

/// Stage 1b: the staged registers -> the shared x and A tiles.
void storeOperandTile(MmaTile &m, ValueRange staged) {
  KernelBuilder &k = m.k;
  size_t next = 0;
  auto storeWords = [&](Value value, Value slot, int64_t step) {
    if (!isa<VectorType>(value.getType())) {
      k.store(value, m.smem, {slot});
      return;
    }
    for (int64_t j = 0; j < 4; ++j)
      k.store(vector::ExtractOp::create(k.b, value, ArrayRef<int64_t>{j}),
              m.smem, {k.add(slot, k.idx(j * step))});
  };
  for (int64_t e = 0; e < m.xCount; ++e)
    storeWords(staged[next++], xSlot(m, e), 1);
  for (auto [src, dstBase] :
       m.sh.seeded ? m.bParts
                   : SmallVector<std::pair<Value, Value>>{{m.A, m.bHiBase}}) {
    (void)src;
    for (int64_t e = 0; e < m.bCount; ++e)
      storeWords(staged[next++], bSlot(m, dstBase, e), kMmaStride);
  }
}

/// Stage 1c: the MMAs of one shared k-tile: per 16-deep step, the A
/// fragments of the warp's 2 row fragments, then for each A part the B
/// fragments of its 4 slice fragments and the 8 mma.sync; returns the 32
/// accumulators.
SmallVector<Value> emitMmaKTile(MmaTile &m, ValueRange accIn) {
  KernelBuilder &k = m.k;
  auto asOperand = [&](Value word) { return mmaSyncOperand(k, m.elem, word); };
  SmallVector<Value> next(accIn.begin(), accIn.end());
  for (int64_t ks = 0; ks < kMmaK / 16; ++ks) {
    Value kwb = k.add(m.t, k.idx(ks * 8));
    SmallVector<SmallVector<Value>> aFrag(2);
    for (int64_t mf = 0; mf < 2; ++mf) {
      Value r = k.add(k.add(k.mul(m.wm, k.idx(32)), k.idx(mf * 16)), m.g);
      Value base = k.add(m.aBase, k.add(k.mul(r, k.idx(kMmaStride)), kwb));
      for (int64_t off :
           {int64_t(0), 8 * kMmaStride, int64_t(4), 8 * kMmaStride + 4})
        aFrag[mf].push_back(
            asOperand(k.load(m.smem, {k.add(base, k.idx(off))})));
    }
    SmallVector<Value> bases = {m.bHiBase};
    if (m.split)
      bases.push_back(m.bLoBase);
    for (Value bBase : bases) {
      SmallVector<SmallVector<Value>> bFrag(4);
      for (int64_t nf = 0; nf < 4; ++nf) {
        Value c = k.add(k.add(k.mul(m.wn, k.idx(32)), k.idx(nf * 8)), m.g);
        Value base = k.add(bBase, k.add(k.mul(c, k.idx(kMmaStride)), kwb));
        for (int64_t off : {0, 4})
          bFrag[nf].push_back(
              asOperand(k.load(m.smem, {k.add(base, k.idx(off))})));
      }
      for (int64_t mf = 0; mf < 2; ++mf)
        for (int64_t nf = 0; nf < 4; ++nf)
          emitMmaSync16816(
              k, m.elem, aFrag[mf], bFrag[nf],
              MutableArrayRef<Value>(next).slice((mf * 4 + nf) * 4, 4));
    }
  }
  return next;
}

/// Stage 1: the k-loop, software pipelined: the loads of tile kt + 1 are
/// issued before the MMAs of tile kt, so their latency hides behind the
/// tensor-core work. Returns the 32 accumulators. With promoteKTiles = U
/// the loop also carries 32 promoted sums: every U k-tiles the MMAs'
/// accumulators are added into them with f32 adds (round to nearest) and
/// start again from zero, so the tensor cores' own accumulation runs over U
/// k-tiles at a time (U = 1: each k-tile's MMAs start from zero).
SmallVector<Value> emitMmaMainloop(MmaTile &m) {
  KernelBuilder &k = m.k;
  int64_t numK = (m.sh.featureDim + kMmaK - 1) / kMmaK;
  int64_t U = m.sh.promoteKTiles;
  // Carried: the MMAs' accumulators, [U > 1: the promoted sums,] the staged
  // operand words.
  int64_t sums = U > 1 ? 64 : 32;
  SmallVector<Value> zeros(32, k.f32(0.0f));
  SmallVector<Value> loopInit(sums, k.f32(0.0f));
  SmallVector<Value> first = loadOperandTile(m, k.idx(0));
  loopInit.append(first.begin(), first.end());
  SmallVector<Value> loopResults = k.forEach(
      k.idx(0), k.idx(numK), k.idx(1), loopInit,
      [&](Value kt, ValueRange carried) {
        storeOperandTile(m, carried.drop_front(sums));
        k.barrier();
        // The last iteration reloads its own tile (clamped): unused.
        SmallVector<Value> staged =
            loadOperandTile(m, k.min(k.add(kt, k.idx(1)), k.idx(numK - 1)));
        SmallVector<Value> next;
        if (U == 1) {
          next = emitMmaKTile(m, zeros);
          for (auto [sum, tile] : llvm::zip(carried.take_front(32), next))
            tile = k.addf(sum, tile);
        } else {
          next = emitMmaKTile(m, carried.take_front(32));
        }
        if (U > 1) {
          // Every U-th k-tile: promoted += accumulators, accumulators = 0.
          Value promote = arith::CmpIOp::create(
              k.b, arith::CmpIPredicate::eq,
              k.rem(k.add(kt, k.idx(1)), k.idx(U)), k.idx(0));
          for (int64_t i = 0; i < 32; ++i) {
            Value sum = carried[32 + i];
            next.push_back(k.select(promote, k.addf(sum, next[i]), sum));
            next[i] = k.select(promote, zeros[i], next[i]);
          }
        }
        k.barrier();
        next.append(staged.begin(), staged.end());
        return next;
      });
  SmallVector<Value> acc(loopResults.begin(), loopResults.begin() + 32);
  if (U > 1)
    for (int64_t i = 0; i < 32; ++i)
      acc[i] = k.addf(loopResults[32 + i], acc[i]);
  return acc;
}

/// Stage 2: the accumulators (divided by the column norm when seeded) -> the
/// shared y tile [64][128] (the mma.sync accumulator layout: rows g and
/// g + 8, columns 2t and 2t + 1 of each fragment).
void storeAccumulatorTile(MmaTile &m, ArrayRef<Value> acc) {
  KernelBuilder &k = m.k;
  for (int64_t mf = 0; mf < 2; ++mf)
    for (int64_t nf = 0; nf < 4; ++nf)
      for (int64_t i = 0; i < 4; ++i) {
        Value r = k.add(
            k.add(k.mul(m.wm, k.idx(32)), k.idx(mf * 16 + (i / 2) * 8)), m.g);
        Value c = k.add(k.add(k.mul(m.wn, k.idx(32)), k.idx(nf * 8 + i % 2)),
                        k.mul(m.t, k.idx(2)));
        Value y = acc[(mf * 4 + nf) * 4 + i];
        if (m.sh.seeded)
          y = k.divf(y, k.load(m.norm, {c}));
        storeY(m, y, k.add(k.mul(r, k.idx(kMmaSlices)), c));
      }
  k.barrier();
}

/// Stage 3: thread = (slice sl, row half h): one sincos per row of its half
/// inside the batch, the angle-addition recurrence over the points, sums in
/// registers (cos sums, then sin sums). Returns them.
SmallVector<Value> emitEcfHalfRows(MmaTile &m, Value sl, Value h) {
  KernelBuilder &k = m.k;
  int64_t N = m.sh.batch, P = m.sh.numPoints;
  Value rowStart = k.mul(h, k.idx(kMmaRows / 2));
  // Rows of this half inside the batch: clamp(N - n0 - rowStart, 0, 32).
  Value remaining = arith::SubIOp::create(k.b, k.idx(N), m.n0);
  Value count = arith::MaxSIOp::create(
      k.b, arith::SubIOp::create(k.b, remaining, rowStart), k.idx(0));
  count = arith::MinSIOp::create(k.b, count, k.idx(kMmaRows / 2));
  Value dtF = k.f32(static_cast<float>(m.sh.tMax / static_cast<double>(P - 1)));
  SmallVector<Value> init(2 * P, k.f32(0.0f));
  return k.forEach(
      k.idx(0), count, k.idx(1), init, [&](Value rr, ValueRange carried) {
        Value row = k.add(rowStart, rr);
        Value y = loadY(m, k.add(k.mul(row, k.idx(kMmaSlices)), sl));
        Value theta = k.mulf(y, dtF);
        Value c1 = math::CosOp::create(k.b, theta);
        Value s1 = math::SinOp::create(k.b, theta);
        Value c = k.f32(1.0f), sn = k.f32(0.0f);
        SmallVector<Value> next(carried.begin(), carried.end());
        for (int64_t p = 0; p < P; ++p) {
          next[p] = k.addf(next[p], c);
          next[P + p] = k.addf(next[P + p], sn);
          if (p + 1 < P) {
            Value nc = k.subf(k.mulf(c, c1), k.mulf(sn, s1));
            sn = k.addf(k.mulf(sn, c1), k.mulf(c, s1));
            c = nc;
          }
        }
        return next;
      });
}

/// Stage 3 (end): the upper half's sums are added to the lower half's
/// through the (read) y tile in a fixed order; the lower half writes the
/// means (one batch tile) or the tile's partial sums.
void storeEcfHalves(MmaTile &m, Value sl, Value h, ArrayRef<Value> sums) {
  KernelBuilder &k = m.k;
  int64_t N = m.sh.batch, S = m.sh.numSlices, P = m.sh.numPoints;
  int64_t T = (N + kMmaRows - 1) / kMmaRows;
  k.barrier(); // y tile reads done: reuse it to add the two halves.
  Value isLower = k.lt(h, k.idx(1));
  Value s = k.add(m.s0, sl);
  Value batchF = k.f32(static_cast<float>(N));
  for (int64_t part = 0; part < 2; ++part) {
    Value out = part == 0 ? m.cosOut : m.sinOut;
    k.ifThen(arith::XOrIOp::create(
                 k.b, isLower,
                 arith::ConstantOp::create(k.b, k.b.getBoolAttr(true))),
             [&] {
               for (int64_t p = 0; p < P; ++p)
                 storeY(m, sums[part * P + p],
                        k.add(k.idx(p * kMmaSlices), sl));
             });
    k.barrier();
    k.ifThen(k.land(isLower, k.lt(s, k.idx(S))), [&] {
      for (int64_t p = 0; p < P; ++p) {
        Value total = k.addf(sums[part * P + p],
                             loadY(m, k.add(k.idx(p * kMmaSlices), sl)));
        if (T == 1)
          k.store(k.divf(total, batchF), out, {m.v, s, k.idx(p)});
        else
          k.store(total, out, {m.batchTile, m.v, s, k.idx(p)});
      }
    });
    k.barrier();
  }
}
} // namespace

gpu::GPUFuncOp mlir::sigreg::buildFusedEcfMmaKernel(OpBuilder &b, Location loc,
                                                    const EcfKernelShape &sh) {
  int64_t V = sh.numViews, N = sh.batch, D = sh.featureDim, S = sh.numSlices,
          P = sh.numPoints;
  int64_t T = (N + kMmaRows - 1) / kMmaRows;
  Type elem = sh.inputElement;
  int64_t pairs = (D + 1) / 2;
  SmallVector<Type> args = {MemRefType::get({V, N, D}, elem)};
  if (sh.seeded) {
    MemRefType words = MemRefType::get({pairs, S}, b.getI32Type());
    args.push_back(words);
    if (sh.splitProjection)
      args.push_back(words);
    args.push_back(f32Memref(b, {sh.normChunks, S}));
  } else {
    args.push_back(MemRefType::get({D, S}, sh.projectionElement));
  }
  SmallVector<int64_t> outShape =
      T == 1 ? SmallVector<int64_t>{V, S, P} : SmallVector<int64_t>{T, V, S, P};
  args.push_back(f32Memref(b, outShape));
  args.push_back(f32Memref(b, outShape));
  // Shared memory: one i32 buffer holding the x tile, the A tile (hi, and lo
  // when the seeded f32 projection is split), and after the k-loop the f32 y
  // tile (bit-cast), then the upper row half's P sums per slice
  // (storeEcfHalves: 128 words more than the y tile at P = 65, which wrote
  // past the buffer before), plus the column norms.
  bool split = sh.seeded && sh.splitProjection;
  int64_t aWords = kMmaRows * kMmaStride, bWords = kMmaSlices * kMmaStride;
  int64_t smemWords = std::max({kMmaRows * kMmaSlices, P * kMmaSlices,
                                aWords + (split ? 2 : 1) * bWords});
  auto func = createKernel(b, loc, "sigreg_fused_ecf_mma", "trig_reduction",
                           args, {kMmaSlices}, {smemWords});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  MmaTile m{k, sh};
  m.elem = elem;
  m.pairs = pairs;
  m.split = split;
  m.x = func.getArgument(0);
  m.A = func.getArgument(1);
  m.loWords = split ? func.getArgument(2) : Value();
  m.sumSq = sh.seeded ? func.getArgument(args.size() - 3) : Value();
  m.cosOut = func.getArgument(args.size() - 2);
  m.sinOut = func.getArgument(args.size() - 1);
  m.norm = func.getWorkgroupAttributions()[0];
  m.smem = func.getWorkgroupAttributions()[1];
  m.aBase = k.idx(0);
  m.bHiBase = k.idx(aWords);
  m.bLoBase = k.idx(aWords + bWords);

  m.tid = k.threadId(gpu::Dimension::x);
  Value lane = k.rem(m.tid, k.idx(32)), warp = k.div(m.tid, k.idx(32));
  m.g = k.div(lane, k.idx(4));
  m.t = k.rem(lane, k.idx(4));
  m.wm = k.div(warp, k.idx(4));
  m.wn = k.rem(warp, k.idx(4));
  m.batchTile = k.blockId(gpu::Dimension::y);
  m.s0 = k.mul(k.blockId(gpu::Dimension::x), k.idx(kMmaSlices));
  m.n0 = k.mul(m.batchTile, k.idx(kMmaRows));
  m.v = k.blockId(gpu::Dimension::z);
  m.lastS = k.idx(S - 1);
  m.lastN = k.idx(N - 1);
  m.lastD = k.idx(D - 1);
  m.zeroElem = arith::ConstantOp::create(k.b, b.getZeroAttr(elem));

  if (sh.seeded)
    emitColumnNorms(k, m.sumSq, m.norm, m.tid, m.s0, kMmaSlices, sh.normChunks,
                    m.lastS);

  // x: one aligned 16-byte vector (8 values of a row) per thread when
  // D % 8 == 0, else 4 words of two scalar loads each. A: packed hi/lo words
  // [D/2, S] from the projection kernel, 16-byte loads of 4 slices when
  // S % 4 == 0 (seeded), or pairs of scalar loads (explicit).
  m.xVector = D % 8 == 0;
  m.bWidth = sh.seeded && S % 4 == 0 ? 4 : 1;
  m.bParts = {{m.A, m.bHiBase}};
  if (split)
    m.bParts.push_back({m.loWords, m.bLoBase});
  m.xCount = m.xVector ? 1 : kMmaRows * 16 / kBlockThreads;
  m.bCount = sh.seeded ? kMmaSlices * 16 / m.bWidth / kBlockThreads
                       : kMmaSlices * 16 / kBlockThreads;

  // 1. GEMM (the k-loop's barriers also order the norm stores above).
  SmallVector<Value> acc = emitMmaMainloop(m);
  // 2. Accumulators -> shared y tile (normalized).
  storeAccumulatorTile(m, acc);
  // 3. ECF: thread = (slice sl, row half h).
  Value sl = k.rem(m.tid, k.idx(kMmaSlices)),
        h = k.div(m.tid, k.idx(kMmaSlices));
  SmallVector<Value> sums = emitEcfHalfRows(m, sl, h);
  storeEcfHalves(m, sl, h, sums);
  return func;
}
