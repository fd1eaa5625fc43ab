//===- SingleLaunchKernel.cpp - the whole forward in one launch -----------===//
//
// sigreg.projection -> sigreg.fused_ecf -> sigreg.all_reduce_mean (one rank)
// -> sigreg.fused_epilogue as one kernel, for problems that do not fill the
// GPU (usesSingleLaunch in EcfSchedule.cpp). Block = (BS slices, BM batch
// rows, view), 256 threads; grid (ceil(S / BS), ceil(N / BM), V). Stages, one
// function each:
//   1. generateProjectionTile: g[D][BS] of the block's slices straight into
//      shared memory (Philox, buildProjectionGaussian: bit-exact), or the
//      explicit projection's columns.
//   2. emitLocalColumnNorms: per-chunk sums of g^2 in ascending d, then the
//      chunks in order, as the projection kernel + the ECF kernels do.
//   3. multiplyTile: thread = (row r, k part kp); x rows are read with 16-byte
//      vector loads (plain loads when D % 8 != 0), g from shared memory, f32
//      FMA into BS accumulators.
//   4. reduceKParts: the k parts added in ascending order, divided by the
//      column norm: the y tile [BM][BS] in shared memory.
//   5. emitTileEcf: thread = (row, slice); one sincos, the angle-addition
//      recurrence over the points; rows added by a butterfly of xor shuffles
//      inside each warp, then the 8 warps in order.
//   6. (several batch tiles) the per-tile sums go to a workspace; the last
//      block of each column (slice tile, view), found with a self-resetting
//      atomic counter, adds them in ascending tile order.
//   7. emitTileStatistic: T[v, s] exactly as the epilogue kernel computes it.
//   8. emitLastBlockReduction (mean/sum): the last block of the grid (second
//      counter) adds T[v, s] in the epilogue kernel's fixed order.
// Counters start at zero (the workspace is zeroed once when allocated:
// "zero_init" in the manifest) and are reset by the block that reads them
// last, so every launch leaves them at zero. Every sum runs in a fixed
// order: results are bitwise identical run to run.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
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
constexpr int64_t kWarps = kBlockThreads / 32;

/// The kernel's values shared by the stages.
struct Tile {
  const SingleLaunchShape &sh;
  KernelBuilder &k;
  Value tid, s0, n0, v, sliceTile, batchTile;
  /// Shared memory: g (reused for the k-part partials, the warp sums and
  /// the final tree), y, chunk sums + norms, ECF means, flag.
  Value gs, ys, norms, ecf, flag;
};

/// Stage 1: gs[d * BS + j] = g[d, s0 + j] (0 beyond S). Seeded: one Philox
/// call per four rows of a column (buildProjectionGaussianGroup).
void generateProjectionTile(Tile &t, Value seedOrA) {
  KernelBuilder &k = t.k;
  int64_t D = t.sh.featureDim, S = t.sh.numSlices, BS = t.sh.blockSlices;
  if (t.sh.seeded) {
    int64_t groups = (D + 3) / 4;
    k.forEach(t.tid, k.idx(groups * BS), k.idx(kBlockThreads), [&](Value lin) {
      Value j = k.rem(lin, k.idx(BS)), q = k.div(lin, k.idx(BS));
      Value s = k.add(t.s0, j);
      Value sc = k.min(s, k.idx(S - 1));
      std::array<Value, 4> g =
          buildProjectionGaussianGroup(k.b, seedOrA, toI32(k, q), toI32(k, sc));
      Value inS = k.lt(s, k.idx(S));
      for (int64_t i = 0; i < 4; ++i) {
        Value d = k.add(k.mul(q, k.idx(4)), k.idx(i));
        auto store = [&] {
          k.store(k.select(inS, g[i], k.f32(0.0f)), t.gs,
                  {k.add(k.mul(d, k.idx(BS)), j)});
        };
        // Rows past D exist only in the last group.
        if (i == 0 || D % 4 == 0)
          store();
        else
          k.ifThen(k.lt(d, k.idx(D)), store);
      }
    });
    return;
  }
  k.forEach(t.tid, k.idx(D * BS), k.idx(kBlockThreads), [&](Value lin) {
    Value j = k.rem(lin, k.idx(BS)), d = k.div(lin, k.idx(BS));
    Value s = k.add(t.s0, j);
    Value sc = k.min(s, k.idx(S - 1));
    Value g = k.toF32(k.load(seedOrA, {d, sc}));
    k.store(k.select(k.lt(s, k.idx(S)), g, k.f32(0.0f)), t.gs, {lin});
  });
}

/// Stage 2 (seeded): norms[C * BS + j] = ||g[:, s0 + j]||, the sum of g^2
/// per chunk of `chunkRows` rows in ascending d, then over the chunks in
/// order (the projection kernel's sumSq and emitColumnNorms' order).
void emitLocalColumnNorms(Tile &t) {
  KernelBuilder &k = t.k;
  int64_t D = t.sh.featureDim, BS = t.sh.blockSlices, R = t.sh.chunkRows;
  int64_t C = (D + R - 1) / R;
  assert(R % 4 == 0 && "projectionChunkRows makes chunks of 4k rows");
  k.forEach(t.tid, k.idx(C * BS), k.idx(kBlockThreads), [&](Value pair) {
    Value c = k.div(pair, k.idx(BS)), j = k.rem(pair, k.idx(BS));
    // Four rows per iteration, loaded before they are added (R % 4 == 0):
    // one shared-memory round trip per four rows. Rows past D (last chunk)
    // add g = 0, which leaves the sum's bits unchanged.
    Value d0 = k.mul(c, k.idx(R));
    SmallVector<Value> sum = k.forEach(
        d0, k.add(d0, k.idx(R)), k.idx(4), {k.f32(0.0f)},
        [&](Value d, ValueRange acc) {
          SmallVector<Value> gs;
          for (int64_t i = 0; i < 4; ++i) {
            Value di = k.add(d, k.idx(i));
            Value g = k.load(
                t.gs, {k.add(k.mul(k.min(di, k.idx(D - 1)), k.idx(BS)), j)});
            gs.push_back(
                D % R == 0 ? g : k.select(k.lt(di, k.idx(D)), g, k.f32(0.0f)));
          }
          Value total = acc[0];
          for (Value g : gs)
            total = k.addf(total, k.mulf(g, g));
          return SmallVector<Value>{total};
        });
    k.store(sum[0], t.norms, {pair});
  });
  k.barrier();
  k.ifThen(k.lt(t.tid, k.idx(BS)), [&] {
    SmallVector<Value> sum =
        k.forEach(k.idx(0), k.idx(C), k.idx(1), {k.f32(0.0f)},
                  [&](Value c, ValueRange acc) {
                    Value part =
                        k.load(t.norms, {k.add(k.mul(c, k.idx(BS)), t.tid)});
                    return SmallVector<Value>{k.addf(acc[0], part)};
                  });
    k.store(math::SqrtOp::create(k.b, sum[0]), t.norms,
            {k.add(k.idx(C * BS), t.tid)});
  });
}

/// Stage 3: thread (r = tid % BM, kp = tid / BM) sums x[n0 + r, d] g[d, j]
/// over its k part (blocks of W features, kp + i * KP) for the BS slices.
/// When every thread has the same number of blocks, they go U at a time:
/// the U x loads are issued before the FMAs that use them, so a thread waits
/// for one L2 round trip per U blocks instead of one per block (the loop was
/// latency-bound on them, docs/PERF-NOTES.md).
SmallVector<Value> multiplyTile(Tile &t, Value x) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t D = sh.featureDim, BS = sh.blockSlices, BM = sh.blockRows;
  int64_t KP = kBlockThreads / BM;
  int64_t W = D % 8 == 0 ? 8 : 1;
  int64_t blocks = D / W;
  int64_t U = 1;
  if (blocks % KP == 0)
    for (int64_t u : {4, 2})
      if ((blocks / KP) % u == 0) {
        U = u;
        break;
      }
  Value r = k.rem(t.tid, k.idx(BM)), kp = k.div(t.tid, k.idx(BM));
  // Rows past the batch read the last row; the ECF masks them out.
  Value n = k.min(k.add(t.n0, r), k.idx(sh.batch - 1));
  Type f32 = k.b.getF32Type();
  auto g4 = VectorType::get({4}, f32);
  // The W features of block `blk` as f32 scalars.
  auto loadBlock = [&](Value blk) {
    Value d0 = k.mul(blk, k.idx(W));
    SmallVector<Value> xs;
    if (W == 1) {
      xs.push_back(k.toF32(k.load(x, {t.v, n, d0})));
      return xs;
    }
    auto vecType = VectorType::get({8}, sh.inputElement);
    Value vec =
        vector::LoadOp::create(k.b, vecType, x, ValueRange{t.v, n, d0},
                               /*nontemporal=*/false, llvm::MaybeAlign(16));
    if (!sh.inputElement.isF32())
      vec = arith::ExtFOp::create(k.b, VectorType::get({8}, f32), vec);
    for (int64_t w = 0; w < 8; ++w)
      xs.push_back(vector::ExtractOp::create(k.b, vec, ArrayRef<int64_t>{w}));
    return xs;
  };
  // acc[j] += sum over the block's W features of x * g[d, j].
  auto multiplyBlock = [&](Value blk, ArrayRef<Value> xs,
                           SmallVector<Value> &acc) {
    Value d0 = k.mul(blk, k.idx(W));
    for (int64_t w = 0; w < W; ++w) {
      Value row = k.mul(k.add(d0, k.idx(w)), k.idx(BS));
      for (int64_t j = 0; j < BS; j += 4) {
        if (BS % 4 == 0) {
          Value gv = vector::LoadOp::create(
              k.b, g4, t.gs, ValueRange{k.add(row, k.idx(j))},
              /*nontemporal=*/false, llvm::MaybeAlign(16));
          for (int64_t i = 0; i < 4; ++i)
            acc[j + i] = k.fma(
                xs[w], vector::ExtractOp::create(k.b, gv, ArrayRef<int64_t>{i}),
                acc[j + i]);
          continue;
        }
        for (int64_t i = j; i < std::min(j + 4, BS); ++i)
          acc[i] = k.fma(xs[w], k.load(t.gs, {k.add(row, k.idx(i))}), acc[i]);
      }
    }
  };
  SmallVector<Value> zeros(BS, k.f32(0.0f));
  return k.forEach(kp, k.idx(blocks), k.idx(KP * U), zeros,
                   [&](Value blk, ValueRange acc) {
                     SmallVector<SmallVector<Value>> xs;
                     for (int64_t u = 0; u < U; ++u)
                       xs.push_back(loadBlock(k.add(blk, k.idx(u * KP))));
                     SmallVector<Value> next(acc.begin(), acc.end());
                     for (int64_t u = 0; u < U; ++u)
                       multiplyBlock(k.add(blk, k.idx(u * KP)), xs[u], next);
                     return next;
                   });
}

/// Stage 4: ys[r * BS + j] = (sum over kp ascending of the partials) /
/// norm[j]; the partials go through gs (free after the GEMM).
void reduceKParts(Tile &t, ArrayRef<Value> acc) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, KP = kBlockThreads / BM;
  int64_t C = (sh.featureDim + sh.chunkRows - 1) / sh.chunkRows;
  k.barrier(); // every thread is done reading g
  for (int64_t j = 0; j < BS; ++j)
    k.store(acc[j], t.gs, {k.add(k.mul(t.tid, k.idx(BS)), k.idx(j))});
  k.barrier();
  k.ifThen(k.lt(t.tid, k.idx(BM * BS)), [&] {
    Value r = k.div(t.tid, k.idx(BS)), j = k.rem(t.tid, k.idx(BS));
    Value y = k.f32(0.0f);
    for (int64_t p = 0; p < KP; ++p)
      y = k.addf(
          y,
          k.load(t.gs, {k.add(k.mul(k.add(k.idx(p * BM), r), k.idx(BS)), j)}));
    if (sh.seeded)
      y = k.divf(y, k.load(t.norms, {k.add(k.idx(C * BS), j)}));
    k.store(y, t.ys, {t.tid});
  });
  k.barrier();
}

/// Stage 5: the block's sums over its rows of cos/sin(t_p y) per (slice,
/// point): to t.ecf as means ([cos | sin][j][p]) with one batch tile, else
/// to the per-tile workspaces.
void emitTileEcf(Tile &t, Value partC, Value partS) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, P = sh.numPoints;
  int64_t N = sh.batch, S = sh.numSlices;
  Value r = k.div(t.tid, k.idx(BS));
  Value valid =
      k.land(k.lt(t.tid, k.idx(BM * BS)), k.lt(k.add(t.n0, r), k.idx(N)));
  Value y = k.load(t.ys, {k.min(t.tid, k.idx(BM * BS - 1))});
  Value dt = k.f32(static_cast<float>(sh.tMax / static_cast<double>(P - 1)));
  Value theta = k.mulf(y, dt);
  Value c1 = math::CosOp::create(k.b, theta);
  Value s1 = math::SinOp::create(k.b, theta);
  Value zero = k.f32(0.0f);
  Value c = k.f32(1.0f), sn = zero;
  SmallVector<Value> sums(2 * P);
  for (int64_t p = 0; p < P; ++p) {
    sums[p] = k.select(valid, c, zero);
    sums[P + p] = k.select(valid, sn, zero);
    if (p + 1 < P) {
      Value nc = k.subf(k.mulf(c, c1), k.mulf(sn, s1));
      sn = k.addf(k.mulf(sn, c1), k.mulf(c, s1));
      c = nc;
    }
  }
  // Rows of a warp: lanes j, j + BS, ... (butterfly, same order every run).
  for (int64_t off = BS; off < 32; off *= 2)
    for (Value &v : sums)
      v = k.addf(v, gpu::ShuffleOp::create(k.b, v, static_cast<int32_t>(off),
                                           32, gpu::ShuffleMode::XOR)
                        .getShuffleResult());
  Value lane = k.rem(t.tid, k.idx(32)), warp = k.div(t.tid, k.idx(32));
  // gs: [warp][cos | sin][j][p].
  k.ifThen(k.lt(lane, k.idx(BS)), [&] {
    Value base = k.mul(k.add(k.mul(warp, k.idx(2 * BS)), lane), k.idx(P));
    for (int64_t p = 0; p < 2 * P; ++p) {
      int64_t off = (p / P) * BS * P + p % P;
      k.store(sums[p], t.gs, {k.add(base, k.idx(off))});
    }
  });
  k.barrier();
  int64_t T = sh.numBatchTiles();
  Value batchF = k.f32(static_cast<float>(N));
  k.forEach(t.tid, k.idx(BS * P), k.idx(kBlockThreads), [&](Value q) {
    Value tc = zero, ts = zero;
    for (int64_t w = 0; w < kWarps; ++w) {
      tc = k.addf(tc, k.load(t.gs, {k.add(q, k.idx(w * 2 * BS * P))}));
      ts = k.addf(ts, k.load(t.gs, {k.add(q, k.idx(w * 2 * BS * P + BS * P))}));
    }
    if (T == 1) {
      k.store(k.divf(tc, batchF), t.ecf, {q});
      k.store(k.divf(ts, batchF), t.ecf, {k.add(q, k.idx(BS * P))});
      return;
    }
    Value j = k.div(q, k.idx(P)), p = k.rem(q, k.idx(P));
    Value s = k.add(t.s0, j);
    k.ifThen(k.lt(s, k.idx(S)), [&] {
      k.store(tc, partC, {t.batchTile, t.v, s, p});
      k.store(ts, partS, {t.batchTile, t.v, s, p});
    });
  });
}

/// Stage 6 (several batch tiles, last block of the column): t.ecf = the
/// per-tile sums added in ascending tile order, divided by N.
void gatherBatchTiles(Tile &t, Value partC, Value partS) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints, S = sh.numSlices;
  Value batchF = k.f32(static_cast<float>(sh.batch));
  k.forEach(t.tid, k.idx(BS * P), k.idx(kBlockThreads), [&](Value q) {
    Value j = k.div(q, k.idx(P)), p = k.rem(q, k.idx(P));
    Value s = k.min(k.add(t.s0, j), k.idx(S - 1));
    SmallVector<Value> sums =
        k.forEach(k.idx(0), k.idx(sh.numBatchTiles()), k.idx(1),
                  {k.f32(0.0f), k.f32(0.0f)}, [&](Value bt, ValueRange acc) {
                    return SmallVector<Value>{
                        k.addf(acc[0], k.load(partC, {bt, t.v, s, p})),
                        k.addf(acc[1], k.load(partS, {bt, t.v, s, p}))};
                  });
    k.store(k.divf(sums[0], batchF), t.ecf, {q});
    k.store(k.divf(sums[1], batchF), t.ecf, {k.add(q, k.idx(BS * P))});
  });
}

/// Stage 7: T[v, s0 + j] from the ECF means, as buildEpilogueKernel computes
/// it (same operations, same order), to `out` [V, S] (reduction none) or
/// to the statistics workspace [V * S].
void emitTileStatistic(Tile &t, Value out, Value stats) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints, S = sh.numSlices;
  IntegrationGrid grid = computeIntegrationGrid(P, sh.tMax);
  k.barrier();
  Value s = k.add(t.s0, t.tid);
  k.ifThen(k.land(k.lt(t.tid, k.idx(BS)), k.lt(s, k.idx(S))), [&] {
    Value dot = k.f32(0.0f);
    Value base = k.mul(t.tid, k.idx(P));
    for (int64_t p = 0; p < P; ++p) {
      Value c = k.load(t.ecf, {k.add(base, k.idx(p))});
      Value sn = k.load(t.ecf, {k.add(base, k.idx(BS * P + p))});
      Value d = k.subf(c, k.f32(static_cast<float>(grid.phi[p])));
      Value err = k.addf(k.mulf(d, d), k.mulf(sn, sn));
      dot = k.addf(dot, k.mulf(err, k.f32(static_cast<float>(grid.w[p]))));
    }
    Value stat = k.mulf(dot, k.f32(static_cast<float>(sh.globalCount)));
    Value clipV = k.f32(static_cast<float>(sh.clipValue));
    if (sh.clip == ClipMode::clamp_min)
      stat = arith::MaximumFOp::create(k.b, stat, clipV);
    else if (sh.clip == ClipMode::zero_below)
      stat = k.select(
          arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, stat, clipV),
          k.f32(0.0f), stat);
    if (sh.reduction == Reduction::none)
      k.store(stat, out, {t.v, s});
    else
      k.store(stat, stats, {k.add(k.mul(t.v, k.idx(S)), s)});
  });
}

/// Stage 8 (mean/sum, last block of the grid): thread-strided sums of the
/// V * S statistics, then a shared-memory tree (the epilogue kernel's order).
void emitLastBlockReduction(Tile &t, Value stats, Value out) {
  KernelBuilder &k = t.k;
  int64_t VS = t.sh.numViews * t.sh.numSlices;
  SmallVector<Value> local =
      k.forEach(t.tid, k.idx(VS), k.idx(kBlockThreads), {k.f32(0.0f)},
                [&](Value e, ValueRange acc) {
                  return SmallVector<Value>{k.addf(acc[0], k.load(stats, {e}))};
                });
  k.store(local[0], t.gs, {t.tid});
  emitBlockTreeSum(k, t.tid, t.gs);
  k.ifThen(k.lt(t.tid, k.idx(1)), [&] {
    Value total = k.load(t.gs, {k.idx(0)});
    if (t.sh.reduction == Reduction::mean)
      total = k.divf(total, k.f32(static_cast<float>(VS)));
    k.store(total, out, {});
  });
}
} // namespace

int64_t mlir::sigreg::singleLaunchSharedFloats(const SingleLaunchShape &sh) {
  int64_t BS = sh.blockSlices;
  return std::max(
      {sh.featureDim * BS, kBlockThreads * BS, 2 * kWarps * BS * sh.numPoints});
}

gpu::GPUFuncOp
mlir::sigreg::buildSingleLaunchKernel(OpBuilder &b, Location loc,
                                      const SingleLaunchShape &sh) {
  int64_t V = sh.numViews, N = sh.batch, D = sh.featureDim, S = sh.numSlices,
          P = sh.numPoints, BS = sh.blockSlices, BM = sh.blockRows;
  int64_t T = sh.numBatchTiles();
  bool none = sh.reduction == Reduction::none;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  SmallVector<Type> args;
  args.push_back(sh.seeded ? Type(b.getI64Type())
                           : MemRefType::get({D, S}, sh.projectionElement));
  args.push_back(MemRefType::get({V, N, D}, sh.inputElement));
  args.push_back(none ? MemRefType::get({V, S}, f32)
                      : MemRefType::get({}, f32));
  args.push_back(MemRefType::get({sh.numCounters()}, i32));
  if (T > 1) {
    args.push_back(MemRefType::get({T, V, S, P}, f32));
    args.push_back(MemRefType::get({T, V, S, P}, f32));
  }
  if (!none)
    args.push_back(MemRefType::get({V * S}, f32));

  MLIRContext *ctx = b.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto wg = [&](int64_t n, Type e) -> Type {
    return MemRefType::get({n}, e, MemRefLayoutAttrInterface(), wgSpace);
  };
  int64_t C = (D + sh.chunkRows - 1) / sh.chunkRows;
  SmallVector<Type> workgroup = {wg(singleLaunchSharedFloats(sh), f32),
                                 wg(BM * BS, f32), wg((C + 1) * BS, f32),
                                 wg(2 * BS * P, f32), wg(1, i32)};
  auto func = gpu::GPUFuncOp::create(b, loc, "sigreg_single_launch",
                                     b.getFunctionType(args, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("sigreg.region", b.getStringAttr("single_launch"));
  // g is read as 16-byte vectors, and LLVM may merge neighbouring scalar
  // loads of any buffer into 16-byte ones (with BS = 1 a block-uniform
  // index folds to constants): every buffer is 16-byte aligned.
  for (unsigned i = 0; i < workgroup.size(); ++i)
    func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kBlockThreads), 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&func.getBody().front());

  KernelBuilder k(loc, b);
  auto attrs = func.getWorkgroupAttributions();
  Tile t{sh, k};
  t.gs = attrs[0];
  t.ys = attrs[1];
  t.norms = attrs[2];
  t.ecf = attrs[3];
  t.flag = attrs[4];
  t.tid = k.threadId(Dimension::x);
  t.sliceTile = k.blockId(Dimension::x);
  t.batchTile = k.blockId(Dimension::y);
  t.v = k.blockId(Dimension::z);
  t.s0 = k.mul(t.sliceTile, k.idx(BS));
  t.n0 = k.mul(t.batchTile, k.idx(BM));
  Value x = func.getArgument(1), out = func.getArgument(2),
        counters = func.getArgument(3);
  Value partC = T > 1 ? func.getArgument(4) : Value();
  Value partS = T > 1 ? func.getArgument(5) : Value();
  Value stats = none ? Value() : func.getArgument(args.size() - 1);

  generateProjectionTile(t, func.getArgument(0));
  k.barrier();
  if (sh.seeded)
    emitLocalColumnNorms(t); // ordered before its readers by stage 4's barriers
  SmallVector<Value> acc = multiplyTile(t, x);
  reduceKParts(t, acc);
  emitTileEcf(t, partC, partS);

  auto finish = [&] {
    emitTileStatistic(t, out, stats);
    if (none)
      return;
    Value last =
        arriveAtCounter(k, t.tid, t.flag, counters, k.idx(sh.numCounters() - 1),
                        V * sh.numSliceTiles());
    k.ifThen(last, [&] { emitLastBlockReduction(t, stats, out); });
  };
  if (T == 1) {
    finish();
    return func;
  }
  Value column = k.add(k.mul(t.v, k.idx(sh.numSliceTiles())), t.sliceTile);
  Value last = arriveAtCounter(k, t.tid, t.flag, counters, column, T);
  k.ifThen(last, [&] {
    gatherBatchTiles(t, partC, partS);
    finish();
  });
  return func;
}
