//===- Kernels.cpp - kernel builders of --convert-sigreg-to-gpu -----------===//

#include "Kernels.h"

#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"
#include "sigreg/Dialect/Sigreg/Utils/KernelBuilder.h"
#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using gpu::Dimension;

/// Creates an empty kernel `name` with `args` and workgroup buffers of f32
/// of the given sizes, and a builder at the start of its body.
gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc, StringRef name,
                            StringRef region, TypeRange args,
                            ArrayRef<int64_t> workgroupF32Sizes,
                            ArrayRef<int64_t> workgroupI32Sizes = {}) {
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

MemRefType f32Memref(OpBuilder &b, ArrayRef<int64_t> shape) {
  return MemRefType::get(shape, b.getF32Type());
}

Value toI32(KernelBuilder &k, Value index) {
  return arith::IndexCastUIOp::create(k.b, k.b.getI32Type(), index);
}

/// Packs two 16-bit floats (lo at the lower address) into an i32 word.
Value packPair(KernelBuilder &k, Value lo, Value hi) {
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
/// Column norms of a seeded projection for the slices of a tile: thread
/// `tid < tileSlices` sums the per-chunk g^2 of slice s0 + tid in chunk order
/// and stores the square root in `norm[tid]`.
void emitColumnNorms(KernelBuilder &k, Value sumSq, Value norm, Value tid,
                     Value s0, int64_t tileSlices, int64_t normChunks,
                     Value lastS) {
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
} // namespace

//===----------------------------------------------------------------------===//
// Projection: thread = one slice column s, block row = one chunk of D (a
// multiple of 4 rows).
//   grid (ceil(S / 256), ceil(D / chunk)), block 256.
//   g[d, s] for d in the chunk, four rows per Philox call
//   (buildProjectionGaussianGroup), sumSq[chunk, s] = sum g^2 in ascending d.
// Consecutive threads write consecutive s: stores are coalesced.
//===----------------------------------------------------------------------===//

namespace {
/// The rows [d0, d1) of column `s` (d0 a multiple of 4) by groups of four:
/// `body(group, g)` gets the group's first row and its four values, rows
/// past D included; returns the f32 sum of g^2 over the rows below D, in
/// ascending d.
Value emitProjectionRows(
    KernelBuilder &k, Value seed, Value s, Value d0, Value d1, int64_t D,
    const std::function<void(Value, ArrayRef<Value>)> &body) {
  Value sI32 = toI32(k, s);
  SmallVector<Value> acc = k.forEach(
      d0, d1, k.idx(4), {k.f32(0.0f)}, [&](Value d, ValueRange carried) {
        std::array<Value, 4> g = buildProjectionGaussianGroup(
            k.b, seed, toI32(k, k.div(d, k.idx(4))), sI32);
        body(d, g);
        // Rows past D add 0 (exact): the sum is the ascending-d sum of the
        // rows below D.
        Value sum = carried[0];
        for (int64_t i = 0; i < 4; ++i) {
          Value sq = k.mulf(g[i], g[i]);
          if (i > 0)
            sq = k.select(k.lt(k.add(d, k.idx(i)), k.idx(D)), sq, k.f32(0.0f));
          sum = k.addf(sum, sq);
        }
        return SmallVector<Value>{sum};
      });
  return acc[0];
}
} // namespace

gpu::GPUFuncOp
mlir::sigreg::buildProjectionKernel(OpBuilder &b, Location loc,
                                    const ProjectionKernelShape &shape,
                                    Type storeType) {
  int64_t D = shape.featureDim, S = shape.numSlices;
  bool rounded = storeType && !storeType.isF32();
  auto func = createKernel(
      b, loc, rounded ? "sigreg_projection_rows" : "sigreg_projection",
      "projection_generation",
      {b.getI64Type(),
       MemRefType::get({D, S}, rounded ? storeType : b.getF32Type()),
       f32Memref(b, {shape.numChunks(), S})},
      {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value seed = func.getArgument(0), g = func.getArgument(1),
        sumSq = func.getArgument(2);
  Value s = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  Value chunk = k.blockId(Dimension::y);
  k.ifThen(k.lt(s, k.idx(S)), [&] {
    Value d0 = k.mul(chunk, k.idx(shape.chunk));
    Value d1 = k.min(k.add(d0, k.idx(shape.chunk)), k.idx(D));
    Value sum = emitProjectionRows(
        k, seed, s, d0, d1, D, [&](Value d, ArrayRef<Value> rows) {
          for (int64_t i = 0; i < 4; ++i) {
            Value gv = rows[i], di = k.add(d, k.idx(i));
            auto store = [&] {
              k.store(rounded ? arith::TruncFOp::create(k.b, storeType, gv)
                              : gv,
                      g, {di, s});
            };
            // The group's first row is below D (d < d1 <= D).
            if (i == 0)
              store();
            else
              k.ifThen(k.lt(di, k.idx(D)), store);
          }
        });
    k.store(sum, sumSq, {chunk, s});
  });
  return func;
}

//===----------------------------------------------------------------------===//
// Projection for the tensor-core GEMM: same threads as above; each group of
// four rows makes two row pairs (d, d+1): g is split into 16-bit hi + lo parts
// (g = hi + lo to about 2^-17) and stored as packed words hiW[d/2, s],
// loW[d/2, s] (lo half = row d), the layout the GEMM's shared-memory tile
// uses; rows past D are 0. sumSq is the f32 sum of g^2 in ascending d, as in
// the f32 kernel.
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp
mlir::sigreg::buildPackedProjectionKernel(OpBuilder &b, Location loc,
                                          const ProjectionKernelShape &shape,
                                          Type halfType, bool withLo) {
  int64_t D = shape.featureDim, S = shape.numSlices, pairs = (D + 1) / 2;
  MemRefType words = MemRefType::get({pairs, S}, b.getI32Type());
  SmallVector<Type> args = {b.getI64Type(), words};
  if (withLo)
    args.push_back(words);
  args.push_back(f32Memref(b, {shape.numChunks(), S}));
  auto func = createKernel(b, loc, "sigreg_projection_packed",
                           "projection_generation", args, {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value seed = func.getArgument(0), hiW = func.getArgument(1),
        loW = withLo ? func.getArgument(2) : Value(),
        sumSq = func.getArgument(args.size() - 1);
  Value s = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  Value chunk = k.blockId(Dimension::y);
  k.ifThen(k.lt(s, k.idx(S)), [&] {
    Value d0 = k.mul(chunk, k.idx(shape.chunk));
    Value d1 = k.min(k.add(d0, k.idx(shape.chunk)), k.idx(D));
    auto split = [&](Value gv) -> std::pair<Value, Value> {
      Value hi = arith::TruncFOp::create(k.b, halfType, gv);
      Value rest = k.subf(gv, arith::ExtFOp::create(k.b, k.b.getF32Type(), hi));
      return {hi, arith::TruncFOp::create(k.b, halfType, rest)};
    };
    Value sum = emitProjectionRows(
        k, seed, s, d0, d1, D, [&](Value d, ArrayRef<Value> rows) {
          for (int64_t half = 0; half < 2; ++half) {
            Value dp = k.add(k.div(d, k.idx(2)), k.idx(half));
            Value rowLo = rows[2 * half], rowHi = rows[2 * half + 1];
            // Rows past D are stored as 0.
            Value hiRow = k.add(d, k.idx(2 * half + 1));
            rowHi = k.select(k.lt(hiRow, k.idx(D)), rowHi, k.f32(0.0f));
            auto store = [&] {
              auto [hi0, lo0] = split(rowLo);
              auto [hi1, lo1] = split(rowHi);
              k.store(packPair(k, hi0, hi1), hiW, {dp, s});
              if (withLo)
                k.store(packPair(k, lo0, lo1), loW, {dp, s});
            };
            if (half == 0)
              store();
            else
              k.ifThen(k.lt(dp, k.idx(pairs)), store);
          }
        });
    k.store(sum, sumSq, {chunk, s});
  });
  return func;
}

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
  // tile (bit-cast), plus the column norms.
  bool split = sh.seeded && sh.splitProjection;
  int64_t aWords = kMmaRows * kMmaStride, bWords = kMmaSlices * kMmaStride;
  int64_t smemWords =
      std::max(kMmaRows * kMmaSlices, aWords + (split ? 2 : 1) * bWords);
  auto func = createKernel(b, loc, "sigreg_fused_ecf_mma", "trig_reduction",
                           args, {kMmaSlices}, {smemWords});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  MLIRContext *ctx = b.getContext();
  Value x = func.getArgument(0), A = func.getArgument(1);
  Value loWords =
      sh.seeded && sh.splitProjection ? func.getArgument(2) : Value();
  Value sumSq = sh.seeded ? func.getArgument(args.size() - 3) : Value();
  Value cosOut = func.getArgument(args.size() - 2),
        sinOut = func.getArgument(args.size() - 1);
  Value norm = func.getWorkgroupAttributions()[0],
        smem = func.getWorkgroupAttributions()[1];
  Value aBase = k.idx(0), bHiBase = k.idx(aWords),
        bLoBase = k.idx(aWords + bWords);
  auto storeY = [&](Value y, Value index) {
    k.store(arith::BitcastOp::create(k.b, b.getI32Type(), y), smem, {index});
  };
  auto loadY = [&](Value index) -> Value {
    return arith::BitcastOp::create(k.b, b.getF32Type(), k.load(smem, {index}));
  };

  Value tid = k.threadId(gpu::Dimension::x);
  Value lane = k.rem(tid, k.idx(32)), warp = k.div(tid, k.idx(32));
  Value g = k.div(lane, k.idx(4)), t = k.rem(lane, k.idx(4));
  Value wm = k.div(warp, k.idx(4)), wn = k.rem(warp, k.idx(4));
  Value batchTile = k.blockId(gpu::Dimension::y);
  Value s0 = k.mul(k.blockId(gpu::Dimension::x), k.idx(kMmaSlices));
  Value n0 = k.mul(batchTile, k.idx(kMmaRows));
  Value v = k.blockId(gpu::Dimension::z);
  Value lastS = k.idx(S - 1), lastN = k.idx(N - 1), lastD = k.idx(D - 1);
  Value zeroElem = arith::ConstantOp::create(k.b, b.getZeroAttr(elem));
  Type f32 = b.getF32Type();

  if (sh.seeded)
    emitColumnNorms(k, sumSq, norm, tid, s0, kMmaSlices, sh.normChunks, lastS);

  // 1. GEMM (the k-loop's barriers also order the norm stores above).
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  NVVM::MMATypes ptxType =
      elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto asOperand = [&](Value word) -> Value {
    if (elem.isBF16())
      return word;
    return LLVM::BitcastOp::create(k.b, VectorType::get({2}, b.getF16Type()),
                                   word);
  };
  // Operand staging, split in a load half (global -> registers, for k-tile
  // kt) and a store half (registers -> shared memory). The k-loop is software
  // pipelined: the loads of tile kt + 1 are issued before the MMAs of tile
  // kt, so their latency hides behind the tensor-core work.
  auto zeroVector = [&](VectorType type) -> Value {
    return arith::ConstantOp::create(
        k.b,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  };
  auto i32x4 = VectorType::get({4}, b.getI32Type());
  bool xVector = D % 8 == 0;
  int64_t bWidth = sh.seeded && S % 4 == 0 ? 4 : 1;
  SmallVector<std::pair<Value, Value>> bParts = {{A, bHiBase}};
  if (split)
    bParts.push_back({loWords, bLoBase});
  // x tile: 64 rows x 16 words. With D % 8 == 0 each thread moves one
  // aligned 16-byte vector (8 values of a row); else 4 words of two scalar
  // loads each.
  auto xSlot = [&](int64_t e) -> Value {
    if (xVector)
      return k.add(aBase, k.add(k.mul(k.div(tid, k.idx(4)), k.idx(kMmaStride)),
                                k.mul(k.rem(tid, k.idx(4)), k.idx(4))));
    Value wi = k.add(tid, k.idx(e * kBlockThreads));
    return k.add(aBase, k.add(k.mul(k.div(wi, k.idx(16)), k.idx(kMmaStride)),
                              k.rem(wi, k.idx(16))));
  };
  int64_t xCount = xVector ? 1 : kMmaRows * 16 / kBlockThreads;
  // A tile: 128 slices x 16 words (pairs along k), stored slice-major.
  // Seeded: packed hi/lo words [D/2, S] from the projection kernel, 16-byte
  // loads of 4 slices when S % 4 == 0. Consecutive threads take consecutive
  // k words of the same slices: each warp reads 16 rows x 32 contiguous
  // bytes and its shared-memory stores (stride 20 words per slice) hit 32
  // distinct banks. Explicit: pairs of scalar loads.
  int64_t bCount = sh.seeded ? kMmaSlices * 16 / bWidth / kBlockThreads
                             : kMmaSlices * 16 / kBlockThreads;
  auto bSlot = [&](Value dstBase, int64_t e) -> Value {
    Value vi = k.add(tid, k.idx(e * kBlockThreads));
    if (!sh.seeded)
      return k.add(dstBase,
                   k.add(k.mul(k.rem(vi, k.idx(kMmaSlices)), k.idx(kMmaStride)),
                         k.div(vi, k.idx(kMmaSlices))));
    Value nn = k.mul(k.div(vi, k.idx(16)), k.idx(bWidth));
    return k.add(dstBase,
                 k.add(k.mul(nn, k.idx(kMmaStride)), k.rem(vi, k.idx(16))));
  };

  auto loadTile = [&](Value kt) -> SmallVector<Value> {
    SmallVector<Value> staged;
    Value k0 = k.mul(kt, k.idx(kMmaK));
    for (int64_t e = 0; e < xCount; ++e) {
      if (xVector) {
        Value row = k.div(tid, k.idx(4)), kv = k.rem(tid, k.idx(4));
        Value n = k.add(n0, row), kk = k.add(k0, k.mul(kv, k.idx(8)));
        Value ok = k.land(k.lt(n, k.idx(N)), k.lt(kk, k.idx(D)));
        auto vecType = VectorType::get({8}, elem);
        Value vec = vector::LoadOp::create(
            k.b, vecType, x,
            ValueRange{v, k.min(n, lastN), k.min(kk, k.idx(D - 8))},
            /*nontemporal=*/false, llvm::MaybeAlign(16));
        vec = k.select(ok, vec, zeroVector(vecType));
        staged.push_back(vector::BitCastOp::create(k.b, i32x4, vec));
        continue;
      }
      Value wi = k.add(tid, k.idx(e * kBlockThreads));
      Value row = k.div(wi, k.idx(16)), kw = k.rem(wi, k.idx(16));
      Value n = k.add(n0, row);
      Value kk = k.add(k0, k.mul(kw, k.idx(2))), kk1 = k.add(kk, k.idx(1));
      Value rowOk = k.lt(n, k.idx(N)), nc = k.min(n, lastN);
      Value lo = k.select(k.land(rowOk, k.lt(kk, k.idx(D))),
                          k.load(x, {v, nc, k.min(kk, lastD)}), zeroElem);
      Value hi = k.select(k.land(rowOk, k.lt(kk1, k.idx(D))),
                          k.load(x, {v, nc, k.min(kk1, lastD)}), zeroElem);
      staged.push_back(packPair(k, lo, hi));
    }
    if (sh.seeded) {
      Value kp0 = k.mul(kt, k.idx(kMmaK / 2));
      for (auto [src, dstBase] : bParts)
        for (int64_t e = 0; e < bCount; ++e) {
          Value vi = k.add(tid, k.idx(e * kBlockThreads));
          Value kp = k.add(kp0, k.rem(vi, k.idx(16)));
          Value sIdx = k.add(s0, k.mul(k.div(vi, k.idx(16)), k.idx(bWidth)));
          Value ok = k.land(k.lt(kp, k.idx(pairs)), k.lt(sIdx, k.idx(S)));
          Value row = k.min(kp, k.idx(pairs - 1));
          Value col = k.min(sIdx, k.idx(S - bWidth));
          if (bWidth == 1) {
            staged.push_back(k.select(
                ok, k.load(src, {row, col}),
                arith::ConstantOp::create(k.b, b.getI32IntegerAttr(0))));
            continue;
          }
          Value vec = vector::LoadOp::create(
              k.b, i32x4, src, ValueRange{row, col},
              /*nontemporal=*/false, llvm::MaybeAlign(16));
          staged.push_back(k.select(ok, vec, zeroVector(i32x4)));
        }
      return staged;
    }
    for (int64_t e = 0; e < bCount; ++e) {
      Value wi = k.add(tid, k.idx(e * kBlockThreads));
      Value nn = k.rem(wi, k.idx(kMmaSlices)),
            kw = k.div(wi, k.idx(kMmaSlices));
      Value sIdx = k.add(s0, nn);
      Value kk = k.add(k0, k.mul(kw, k.idx(2))), kk1 = k.add(kk, k.idx(1));
      Value colOk = k.lt(sIdx, k.idx(S)), sc = k.min(sIdx, lastS);
      Value lo = k.select(k.land(colOk, k.lt(kk, k.idx(D))),
                          k.load(A, {k.min(kk, lastD), sc}), zeroElem);
      Value hi = k.select(k.land(colOk, k.lt(kk1, k.idx(D))),
                          k.load(A, {k.min(kk1, lastD), sc}), zeroElem);
      staged.push_back(packPair(k, lo, hi));
    }
    return staged;
  };

  auto storeTile = [&](ValueRange staged) {
    size_t next = 0;
    auto storeWords = [&](Value value, Value slot, int64_t step) {
      if (!isa<VectorType>(value.getType())) {
        k.store(value, smem, {slot});
        return;
      }
      for (int64_t j = 0; j < 4; ++j)
        k.store(vector::ExtractOp::create(k.b, value, ArrayRef<int64_t>{j}),
                smem, {k.add(slot, k.idx(j * step))});
    };
    for (int64_t e = 0; e < xCount; ++e)
      storeWords(staged[next++], xSlot(e), 1);
    for (auto [src, dstBase] :
         sh.seeded ? bParts
                   : SmallVector<std::pair<Value, Value>>{{A, bHiBase}}) {
      (void)src;
      for (int64_t e = 0; e < bCount; ++e)
        storeWords(staged[next++], bSlot(dstBase, e), kMmaStride);
    }
  };

  int64_t numK = (D + kMmaK - 1) / kMmaK;
  SmallVector<Value> loopInit(32, k.f32(0.0f));
  SmallVector<Value> first = loadTile(k.idx(0));
  loopInit.append(first.begin(), first.end());
  SmallVector<Value> loopResults = k.forEach(
      k.idx(0), k.idx(numK), k.idx(1), loopInit,
      [&](Value kt, ValueRange carried) {
        storeTile(carried.drop_front(32));
        k.barrier();
        // The last iteration reloads its own tile (clamped): unused.
        SmallVector<Value> staged =
            loadTile(k.min(k.add(kt, k.idx(1)), k.idx(numK - 1)));
        SmallVector<Value> next(carried.begin(), carried.begin() + 32);
        for (int64_t ks = 0; ks < kMmaK / 16; ++ks) {
          Value kwb = k.add(t, k.idx(ks * 8));
          SmallVector<SmallVector<Value>> aFrag(2);
          for (int64_t mf = 0; mf < 2; ++mf) {
            Value r = k.add(k.add(k.mul(wm, k.idx(32)), k.idx(mf * 16)), g);
            Value base = k.add(aBase, k.add(k.mul(r, k.idx(kMmaStride)), kwb));
            for (int64_t off :
                 {int64_t(0), 8 * kMmaStride, int64_t(4), 8 * kMmaStride + 4})
              aFrag[mf].push_back(
                  asOperand(k.load(smem, {k.add(base, k.idx(off))})));
          }
          SmallVector<Value> bases = {bHiBase};
          if (split)
            bases.push_back(bLoBase);
          for (Value bBase : bases) {
            SmallVector<SmallVector<Value>> bFrag(4);
            for (int64_t nf = 0; nf < 4; ++nf) {
              Value c = k.add(k.add(k.mul(wn, k.idx(32)), k.idx(nf * 8)), g);
              Value base =
                  k.add(bBase, k.add(k.mul(c, k.idx(kMmaStride)), kwb));
              for (int64_t off : {0, 4})
                bFrag[nf].push_back(
                    asOperand(k.load(smem, {k.add(base, k.idx(off))})));
            }
            for (int64_t mf = 0; mf < 2; ++mf)
              for (int64_t nf = 0; nf < 4; ++nf) {
                int64_t f = (mf * 4 + nf) * 4;
                SmallVector<Value> cIn(next.begin() + f, next.begin() + f + 4);
                auto mma = NVVM::MmaOp::create(
                    k.b, accType, aFrag[mf], bFrag[nf], cIn, {16, 8, 16},
                    std::nullopt, std::nullopt,
                    std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                    std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                   NVVM::MMALayout::col});
                for (int64_t i = 0; i < 4; ++i)
                  next[f + i] = LLVM::ExtractValueOp::create(
                      k.b, mma.getRes(), ArrayRef<int64_t>{i});
              }
          }
        }
        k.barrier();
        next.append(staged.begin(), staged.end());
        return next;
      });
  SmallVector<Value> acc(loopResults.begin(), loopResults.begin() + 32);

  // 2. Accumulators -> shared y tile (normalized).
  for (int64_t mf = 0; mf < 2; ++mf)
    for (int64_t nf = 0; nf < 4; ++nf)
      for (int64_t i = 0; i < 4; ++i) {
        Value r =
            k.add(k.add(k.mul(wm, k.idx(32)), k.idx(mf * 16 + (i / 2) * 8)), g);
        Value c = k.add(k.add(k.mul(wn, k.idx(32)), k.idx(nf * 8 + i % 2)),
                        k.mul(t, k.idx(2)));
        Value y = acc[(mf * 4 + nf) * 4 + i];
        if (sh.seeded)
          y = k.divf(y, k.load(norm, {c}));
        storeY(y, k.add(k.mul(r, k.idx(kMmaSlices)), c));
      }
  k.barrier();

  // 3. ECF: thread = (slice sl, row half h).
  Value sl = k.rem(tid, k.idx(kMmaSlices)), h = k.div(tid, k.idx(kMmaSlices));
  Value rowStart = k.mul(h, k.idx(kMmaRows / 2));
  // Rows of this half inside the batch: clamp(N - n0 - rowStart, 0, 32).
  Value remaining = arith::SubIOp::create(k.b, k.idx(N), n0);
  Value count = arith::MaxSIOp::create(
      k.b, arith::SubIOp::create(k.b, remaining, rowStart), k.idx(0));
  count = arith::MinSIOp::create(k.b, count, k.idx(kMmaRows / 2));
  Value dtF = k.f32(static_cast<float>(sh.tMax / static_cast<double>(P - 1)));
  SmallVector<Value> init(2 * P, k.f32(0.0f));
  SmallVector<Value> sums = k.forEach(
      k.idx(0), count, k.idx(1), init, [&](Value rr, ValueRange carried) {
        Value row = k.add(rowStart, rr);
        Value y = loadY(k.add(k.mul(row, k.idx(kMmaSlices)), sl));
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
  k.barrier(); // y tile reads done: reuse it to add the two halves.
  Value isLower = k.lt(h, k.idx(1));
  Value s = k.add(s0, sl);
  Value batchF = k.f32(static_cast<float>(N));
  for (int64_t part = 0; part < 2; ++part) {
    Value out = part == 0 ? cosOut : sinOut;
    k.ifThen(arith::XOrIOp::create(
                 k.b, isLower,
                 arith::ConstantOp::create(k.b, k.b.getBoolAttr(true))),
             [&] {
               for (int64_t p = 0; p < P; ++p)
                 storeY(sums[part * P + p], k.add(k.idx(p * kMmaSlices), sl));
             });
    k.barrier();
    k.ifThen(k.land(isLower, k.lt(s, k.idx(S))), [&] {
      for (int64_t p = 0; p < P; ++p) {
        Value total =
            k.addf(sums[part * P + p], loadY(k.add(k.idx(p * kMmaSlices), sl)));
        if (T == 1)
          k.store(k.divf(total, batchF), out, {v, s, k.idx(p)});
        else
          k.store(total, out, {batchTile, v, s, k.idx(p)});
      }
    });
    k.barrier();
  }
  return func;
}

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

//===----------------------------------------------------------------------===//
// Epilogue. T[v, s] = count * sum_p w_p ((c - phi_p)^2 + s^2), clipped, with
// phi and w folded in as constants (P is static).
//   none:      one thread per (v, s).
//   mean/sum:  one block; thread-strided partial sums, then a fixed-order
//              shared-memory tree; thread 0 writes the scalar.
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp
mlir::sigreg::buildEpilogueKernel(OpBuilder &b, Location loc,
                                  const EpilogueKernelShape &sh) {
  int64_t V = sh.numViews, S = sh.numSlices, P = sh.numPoints;
  bool none = sh.reduction == Reduction::none;
  MemRefType ecf = f32Memref(b, {V, S, P});
  MemRefType out = none ? f32Memref(b, {V, S}) : f32Memref(b, {});
  auto func = createKernel(
      b, loc, "sigreg_epilogue", "epilogue", {ecf, ecf, out},
      none ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{kBlockThreads});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  IntegrationGrid grid = computeIntegrationGrid(P, sh.tMax);
  Value cosIn = func.getArgument(0), sinIn = func.getArgument(1),
        outArg = func.getArgument(2);
  Value count = k.f32(static_cast<float>(sh.globalCount));
  Value clipV = k.f32(static_cast<float>(sh.clipValue));

  auto statistic = [&](Value v, Value s) {
    Value dot = k.f32(0.0f);
    for (int64_t p = 0; p < P; ++p) {
      Value c = k.load(cosIn, {v, s, k.idx(p)});
      Value sn = k.load(sinIn, {v, s, k.idx(p)});
      Value d = k.subf(c, k.f32(static_cast<float>(grid.phi[p])));
      Value err = k.addf(k.mulf(d, d), k.mulf(sn, sn));
      dot = k.addf(dot, k.mulf(err, k.f32(static_cast<float>(grid.w[p]))));
    }
    Value stat = k.mulf(dot, count);
    if (sh.clip == ClipMode::clamp_min)
      return Value(arith::MaximumFOp::create(k.b, stat, clipV));
    if (sh.clip == ClipMode::zero_below)
      return k.select(
          arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, stat, clipV),
          k.f32(0.0f), stat);
    return stat;
  };

  Value tid = k.threadId(Dimension::x);
  if (none) {
    Value e = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)), tid);
    k.ifThen(k.lt(e, k.idx(V * S)), [&] {
      Value v = k.div(e, k.idx(S)), s = k.rem(e, k.idx(S));
      k.store(statistic(v, s), outArg, {v, s});
    });
    return func;
  }
  Value red = func.getWorkgroupAttributions()[0];
  SmallVector<Value> local = k.forEach(
      tid, k.idx(V * S), k.idx(kBlockThreads), {k.f32(0.0f)},
      [&](Value e, ValueRange carried) {
        Value v = k.div(e, k.idx(S)), s = k.rem(e, k.idx(S));
        return SmallVector<Value>{k.addf(carried[0], statistic(v, s))};
      });
  k.store(local[0], red, {tid});
  k.barrier();
  for (int64_t stride = kBlockThreads / 2; stride >= 1; stride /= 2) {
    k.ifThen(k.lt(tid, k.idx(stride)), [&] {
      Value other = k.load(red, {k.add(tid, k.idx(stride))});
      k.store(k.addf(k.load(red, {tid}), other), red, {tid});
    });
    k.barrier();
  }
  k.ifThen(k.lt(tid, k.idx(1)), [&] {
    Value total = k.load(red, {k.idx(0)});
    if (sh.reduction == Reduction::mean)
      total = k.divf(total, k.f32(static_cast<float>(V * S)));
    k.store(total, outArg, {});
  });
  return func;
}
