//===- SingleLaunchKernel.cpp - the whole forward in one launch -----------===//
//
// sigreg.projection -> sigreg.fused_ecf -> sigreg.all_reduce_mean (one rank)
// -> sigreg.fused_epilogue as one kernel, for problems that do not fill the
// GPU (usesSingleLaunch in EcfSchedule.cpp). Block = (BS slices, BM batch
// rows, view), 4, 8 or 16 warps (the schedule's warps); grid (ceil(S / BS),
// ceil(N / BM), V). Stages, one function each:
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
//   1-4 on tensor cores (tensorCores, a bf16/f16 input and a seeded g read
//      as projection = rounded or split): emitMmaSteps generates each
//      thread's mma.sync B fragments in registers (one Philox call per
//      fragment of a column), loads its A fragments of x straight from
//      global memory and runs mma.sync.m16n8k16 over the warp's k steps;
//      storeMmaPartials and reduceMmaPartials add the warps' k groups and
//      the sums of g^2 in a fixed order: the y tile [BM][BS].
//   5. emitTileEcf: thread = (row, slice); one sincos, the angle-addition
//      recurrence over the points; rows added by xor shuffles inside each
//      warp (on tensor cores a halving butterfly: each lane of a slice
//      keeps part of its sums), then the warps in order (gatherWarpSums).
//   3-5 from the accumulators (ecfFromFragments: tensor cores, one k group,
//      single-launch-fragment-ecf): emitFragmentEcf forms y and the ECF
//      sums in registers, adds them over a column's lanes by a halving
//      butterfly, and leaves the warps' sums for gatherWarpSums.
//      Transposed (transposesFragments, single-launch-transposed-ecf):
//      emitTransposedMmaStep multiplies g^T x^T, so each lane's elements are
//      of one slice, and emitTransposedFragmentEcf adds them over that
//      slice's four lanes.
//   6. (several batch tiles) the per-tile sums go to a workspace; the last
//      block of each column (slice tile, view), found with a self-resetting
//      atomic counter, adds them in ascending tile order.
//   7. computeSliceStatistic: T[v, s] exactly as the epilogue kernel
//      computes it; emitTileStatistic stores it (reduction none, or the
//      fallback below).
//   8. mean/sum: emitPackedLossSum: each block adds its statistics, in
//      fixed point, and one arrival to one 64-bit word with a relaxed
//      atomic (lossSumLayout); the block that completes the count writes
//      the loss from the value its atomic returned. Where the bound leaves
//      too few fraction bits: emitLastBlockReduction, the last block of the
//      grid (a fenced counter) adds the stored T[v, s] in a fixed order.
// Seeded from a step counter in device memory (deviceStep,
// sigreg.advance_step), every thread reads the seed from it first, and with
// a scalar loss the block that writes the loss also advances the counter
// (advanceStep): the forward stays one launch.
// A training step (stepCotangent: tensor cores, g rounded, one batch tile)
// also writes what the backward GEMM reads: stage 1 stores g rounded to the
// input's type (the B fragments of view 0's first row group), and
//   7b. emitTileGradient: the means to global memory, each slice's
//      cotangent (emitSliceCotangent) and G = dL/dy / ||g_s|| of the y tile,
//      stored in the input's type.
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
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using gpu::Dimension;

/// The kernel's values shared by the stages.
struct Tile {
  const SingleLaunchShape &sh;
  KernelBuilder &k;
  Value tid, s0, n0, v, sliceTile, batchTile;
  /// Shared memory: g (reused for the k-part partials, the warp sums and
  /// the final tree), y, chunk sums + norms, ECF means, flag.
  Value gs, ys, norms, ecf, flag;
  /// termSums = 1 with termSumWarps > 1: the warps' 64-bit sums in shared
  /// memory (one slot per warp; a single warp adds its sum to the loss word
  /// itself, as with termSums = 2).
  Value warpSlots;
  /// A training step (tensor cores): g's global copy [D, S], the predicate
  /// of the warps that write it (view 0, row group 0), and the thread's
  /// column norm ||g_{s0 + tid % BS}|| (reduceMmaPartials).
  Value gOut, gWriter, norm;
  /// advancesStep: the step counter and the seed read from it at the entry.
  Value step, seed;
  /// stagesX: the staged x rows (dynamic shared memory, i8) and one
  /// mbarrier per step group of the walk.
  Value xStage, xBars;
  /// stagesXByTma: x's tensor map (the descriptor of the last argument).
  Value xMap;

  /// `body` on the threads of the stages after the k loop (ecfThreads: a
  /// warp-uniform branch where the block has more).
  void ecfOnly(function_ref<void()> body) const {
    if (sh.ecfThreads() < sh.threads())
      k.ifThen(k.lt(tid, k.idx(sh.ecfThreads())), body);
    else
      body();
  }

  /// Index of g[d, s0 + j] in gs (padded rows: padsProjectionTile).
  Value gIndex(Value d, Value j) const {
    Value row = k.mul(d, k.idx(sh.blockSlices));
    if (sh.padsProjectionTile())
      row = k.add(row, k.mul(k.div(d, k.idx(8)), k.idx(4)));
    return k.add(row, j);
  }
};

/// The last block's advance of a device step (advancesStep), by thread 0 of
/// the threads that reach it: seed + 1, the value every block read. Every
/// other block read the counter before it arrived (stage 6's fenced
/// counter, stage 8's word: its atomic adds a statistic computed from g,
/// which the seed generated), so the counter is written after its last read.
void advanceStep(Tile &t) {
  if (!t.step)
    return;
  KernelBuilder &k = t.k;
  k.ifThen(k.lt(t.tid, k.idx(1)), [&] { emitStepAdvance(k, t.step, t.seed); });
}

/// f32 elements of g's shared-memory tile, padding included.
int64_t projectionTileFloats(const SingleLaunchShape &sh) {
  int64_t D = sh.featureDim;
  return D * sh.blockSlices + (sh.padsProjectionTile() ? (D + 7) / 8 * 4 : 0);
}

/// Stage 0 (prefetchTail): thread 0 prefetches to L2 the words the block's
/// last step adds to atomically: its column's counter (several batch
/// tiles), then the packed loss word or the grid's counter. Every launch
/// writes them at its end, and whatever evicts them from L2 between launches
/// (here the benchmark's flush) would leave the first block's atomic waiting
/// on DRAM, with the others queued behind it on the kernel's critical path.
void prefetchTailWords(Tile &t, Value counters, Value stats, bool packed) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  SmallVector<std::pair<Value, Value>> words;
  if (sh.numBatchTiles() > 1)
    words.push_back(
        {counters, k.add(k.mul(t.v, k.idx(sh.numSliceTiles())), t.sliceTile)});
  if (packed)
    words.push_back({stats, k.idx(0)});
  else if (sh.reduction != Reduction::none)
    words.push_back({counters, k.idx(sh.numCounters() - 1)});
  if (words.empty())
    return;
  k.ifThen(k.lt(t.tid, k.idx(1)), [&] {
    for (auto [memref, index] : words)
      prefetchToL2(k, memref, index);
  });
}

/// Stage 1: gs[gIndex(d, j)] = g[d, s0 + j] (0 beyond S). Seeded: one Philox
/// call per four rows of a column (buildProjectionGaussianGroup).
void generateProjectionTile(Tile &t, Value seedOrA) {
  KernelBuilder &k = t.k;
  int64_t D = t.sh.featureDim, S = t.sh.numSlices, BS = t.sh.blockSlices;
  if (t.sh.seeded) {
    int64_t groups = (D + 3) / 4;
    k.forEach(t.tid, k.idx(groups * BS), k.idx(t.sh.threads()), [&](Value lin) {
      Value j = k.rem(lin, k.idx(BS)), q = k.div(lin, k.idx(BS));
      Value s = k.add(t.s0, j);
      Value sc = k.min(s, k.idx(S - 1));
      std::array<Value, 4> g =
          buildProjectionGaussianGroup(k.b, seedOrA, toI32(k, q), toI32(k, sc));
      Value inS = k.lt(s, k.idx(S));
      for (int64_t i = 0; i < 4; ++i) {
        Value d = k.add(k.mul(q, k.idx(4)), k.idx(i));
        auto store = [&] {
          k.store(k.select(inS, g[i], k.f32(0.0f)), t.gs, {t.gIndex(d, j)});
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
  k.forEach(t.tid, k.idx(D * BS), k.idx(t.sh.threads()), [&](Value lin) {
    Value j = k.rem(lin, k.idx(BS)), d = k.div(lin, k.idx(BS));
    Value s = k.add(t.s0, j);
    Value sc = k.min(s, k.idx(S - 1));
    Value g = k.toF32(k.load(seedOrA, {d, sc}));
    k.store(k.select(k.lt(s, k.idx(S)), g, k.f32(0.0f)), t.gs,
            {t.gIndex(d, j)});
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
  k.forEach(t.tid, k.idx(C * BS), k.idx(t.sh.threads()), [&](Value pair) {
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
            Value g = k.load(t.gs, {t.gIndex(k.min(di, k.idx(D - 1)), j)});
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

/// Stage 3: thread (rt = tid % (BM / RG), kp = tid / (BM / RG)) sums
/// x[n0 + r, d] g[d, j] over its k part (blocks of W features, kp + i * KP)
/// for its RG rows r = rt + i * BM / RG and the BS slices: one 16-byte g
/// load feeds 4 * RG FMAs. When every thread has the same number of blocks,
/// they go U at a time: the x loads are issued before the FMAs that use
/// them, so a thread waits for one L2 round trip per U blocks instead of one
/// per block (the loop was latency-bound on them, docs/PERF-NOTES.md).
/// Returns acc[i * BS + j].
SmallVector<Value> multiplyTile(Tile &t, Value x) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t D = sh.featureDim, BS = sh.blockSlices, BM = sh.blockRows;
  int64_t RG = sh.gemmRowsPerThread(), BMR = BM / RG;
  int64_t KP = sh.threads() / BMR;
  int64_t W = D % 8 == 0 ? 8 : 1;
  int64_t blocks = D / W;
  int64_t U = 1;
  if (blocks % KP == 0)
    for (int64_t u : {4, 2})
      if ((blocks / KP) % u == 0 && u * RG <= 8) {
        U = u;
        break;
      }
  Value rt = k.rem(t.tid, k.idx(BMR)), kp = k.div(t.tid, k.idx(BMR));
  // Rows past the batch read the last row; the ECF masks them out.
  SmallVector<Value> rows;
  for (int64_t i = 0; i < RG; ++i)
    rows.push_back(
        k.min(k.add(t.n0, k.add(rt, k.idx(i * BMR))), k.idx(sh.batch - 1)));
  Type f32 = k.b.getF32Type();
  auto g4 = VectorType::get({4}, f32);
  // The W features of block `blk` of row n as f32 scalars.
  auto loadBlock = [&](Value n, Value blk) {
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
  // acc[i * BS + j] += sum over the block's W features of x[i] * g[d, j].
  auto multiplyBlock = [&](Value blk, ArrayRef<SmallVector<Value>> xs,
                           SmallVector<Value> &acc) {
    Value d0 = k.mul(blk, k.idx(W));
    for (int64_t w = 0; w < W; ++w) {
      Value d = k.add(d0, k.idx(w));
      for (int64_t j = 0; j < BS; j += 4) {
        SmallVector<Value> g;
        if (BS % 4 == 0) {
          Value gv = vector::LoadOp::create(
              k.b, g4, t.gs, ValueRange{t.gIndex(d, k.idx(j))},
              /*nontemporal=*/false, llvm::MaybeAlign(16));
          for (int64_t i = 0; i < 4; ++i)
            g.push_back(
                vector::ExtractOp::create(k.b, gv, ArrayRef<int64_t>{i}));
        } else {
          for (int64_t i = j; i < std::min(j + 4, BS); ++i)
            g.push_back(k.load(t.gs, {t.gIndex(d, k.idx(i))}));
        }
        for (int64_t i = 0; i < RG; ++i)
          for (auto [c, gc] : llvm::enumerate(g))
            acc[i * BS + j + c] = k.fma(xs[i][w], gc, acc[i * BS + j + c]);
      }
    }
  };
  SmallVector<Value> zeros(RG * BS, k.f32(0.0f));
  return k.forEach(
      kp, k.idx(blocks), k.idx(KP * U), zeros, [&](Value blk, ValueRange acc) {
        // xs[u][i]: block blk + u * KP of row i.
        SmallVector<SmallVector<SmallVector<Value>>> xs(U);
        for (int64_t u = 0; u < U; ++u)
          for (int64_t i = 0; i < RG; ++i)
            xs[u].push_back(loadBlock(rows[i], k.add(blk, k.idx(u * KP))));
        SmallVector<Value> next(acc.begin(), acc.end());
        for (int64_t u = 0; u < U; ++u)
          multiplyBlock(k.add(blk, k.idx(u * KP)), xs[u], next);
        return next;
      });
}

/// Stage 4: ys[r * BS + j] = (sum over kp ascending of the partials) /
/// norm[j]; the partials go through gs (free after the GEMM) as
/// [kp][r][j].
void reduceKParts(Tile &t, ArrayRef<Value> acc) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows;
  int64_t RG = sh.gemmRowsPerThread(), BMR = BM / RG;
  int64_t KP = sh.threads() / BMR;
  int64_t C = (sh.featureDim + sh.chunkRows - 1) / sh.chunkRows;
  k.barrier(); // every thread is done reading g
  Value rt = k.rem(t.tid, k.idx(BMR)), kp = k.div(t.tid, k.idx(BMR));
  for (int64_t i = 0; i < RG; ++i) {
    Value row = k.add(k.mul(kp, k.idx(BM)), k.add(rt, k.idx(i * BMR)));
    for (int64_t j = 0; j < BS; ++j)
      k.store(acc[i * BS + j], t.gs, {k.add(k.mul(row, k.idx(BS)), k.idx(j))});
  }
  k.barrier();
  k.forEach(t.tid, k.idx(BM * BS), k.idx(t.sh.threads()), [&](Value e) {
    Value j = k.rem(e, k.idx(BS));
    Value y = k.f32(0.0f);
    for (int64_t p = 0; p < KP; ++p)
      y = k.addf(y, k.load(t.gs, {k.add(e, k.idx(p * BM * BS))}));
    if (sh.seeded)
      y = k.divf(y, k.load(t.norms, {k.add(k.idx(C * BS), j)}));
    k.store(y, t.ys, {e});
  });
  k.barrier();
}

//===----------------------------------------------------------------------===//
// Stages 1-4 on tensor cores (tensorCores: bf16/f16 input, seeded g rounded
// to the input's type or split into hi + lo parts). Lane = (q = lane / 4,
// t = lane % 4) of the mma.sync.m16n8k16 fragments. The k slots of a
// fragment, 2t, 2t + 1, 2t + 8, 2t + 9, are mapped to the features
// 4t .. 4t + 3 of the 16-deep k step (in A and in B alike, so the product
// is unchanged): a thread's B fragment of column s is then exactly the four
// Gaussians of one Philox call (buildProjectionGaussianGroup, group
// 4 * step + t), generated in registers, and its A fragment of a row is one
// 8-byte load of x. g never exists in memory.
//===----------------------------------------------------------------------===//

/// The lane and warp coordinates of the tensor-core stages.
struct MmaLanes {
  Value q, t, wk, wm;
};

MmaLanes mmaLanes(Tile &tile) {
  KernelBuilder &k = tile.k;
  int64_t WK = tile.sh.mmaWarpsK();
  Value lane = k.rem(tile.tid, k.idx(32)), warp = k.div(tile.tid, k.idx(32));
  return {k.div(lane, k.idx(4)), k.rem(lane, k.idx(4)), k.rem(warp, k.idx(WK)),
          k.div(warp, k.idx(WK))};
}

/// The input's pairs x[row, f0 + 0, 1] and x[row, f0 + 2, 3] as i32 words
/// (mmaOperand makes them operands): one 8-byte vector load when D % 4 == 0,
/// else four scalar loads; features past D read as 0.
/// The two i32 words of the four 16-bit elements at `indices` of `source`
/// (one 8-byte vector load).
std::array<Value, 2> loadWordPair(KernelBuilder &k, Type elem, Value source,
                                  ValueRange indices) {
  Value vec =
      vector::LoadOp::create(k.b, VectorType::get({4}, elem), source, indices,
                             /*nontemporal=*/false, llvm::MaybeAlign(8));
  Value pairs = vector::BitCastOp::create(
      k.b, VectorType::get({2}, k.b.getI32Type()), vec);
  std::array<Value, 2> words;
  for (int64_t w = 0; w < 2; ++w)
    words[w] = vector::ExtractOp::create(k.b, pairs, ArrayRef<int64_t>{w});
  return words;
}

std::array<Value, 2> loadInputWords(Tile &tile, Value x, Value row, Value f0) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t D = sh.featureDim;
  Type elem = sh.inputElement;
  Value zeroWord = arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(0));
  std::array<Value, 2> words;
  if (D % 4 == 0) {
    Value fc = D % 16 == 0 ? f0 : k.min(f0, k.idx(D - 4));
    words = loadWordPair(k, elem, x, ValueRange{tile.v, row, fc});
    if (D % 16 != 0)
      for (Value &word : words)
        word = k.select(k.lt(f0, k.idx(D)), word, zeroWord);
  } else {
    Value zero = arith::ConstantOp::create(k.b, k.b.getZeroAttr(elem));
    SmallVector<Value> xs;
    for (int64_t i = 0; i < 4; ++i) {
      Value d = k.add(f0, k.idx(i));
      Value xi = k.load(x, {tile.v, row, k.min(d, k.idx(D - 1))});
      xs.push_back(k.select(k.lt(d, k.idx(D)), xi, zero));
    }
    words = {packPair(k, xs[0], xs[1]), packPair(k, xs[2], xs[3])};
  }
  return words;
}

/// stagesXByTma: the element of the staged x ([D / 64][BM][64], swizzled:
/// emitXStageBoxes) where lane t's four features of k step `step` start in
/// the tile's row r (stepFeatureGroup): block step / 4, row r, 16-byte
/// chunk (step % 4 + 4 (t / 2)) ^ r % 8, element 4 (t % 2). `stepMod4` and
/// t are loop-invariant: all but the block's offset leave the loop.
Value stagedWordIndex(Tile &tile, Value r, Value step, Value stepMod4,
                      Value t) {
  KernelBuilder &k = tile.k;
  Value chunk = arith::XOrIOp::create(
      k.b, k.add(stepMod4, k.mul(k.div(t, k.idx(2)), k.idx(4))),
      k.rem(r, k.idx(8)));
  Value inRow =
      k.add(k.mul(chunk, k.idx(8)), k.mul(k.rem(t, k.idx(2)), k.idx(4)));
  Value block = k.mul(k.div(step, k.idx(4)), k.idx(tile.sh.blockRows * 64));
  return k.add(block, k.add(k.mul(r, k.idx(64)), inRow));
}

Value mmaOperand(Tile &tile, Value word) {
  return mmaSyncOperand(tile.k, tile.sh.inputElement, word);
}

/// The group (features 4 group .. 4 group + 3) that lane t takes in k step
/// `step`: 4 step + t, or with stagesXByTma 16 (step / 4) + 2 (step % 4) +
/// 8 (t / 2) + t % 2, the 16 groups of a 64-feature block over its 4 steps
/// in the order that puts a step's 8-byte loads of the 8 rows q in
/// different banks of the swizzled rows (stagedWordIndex). In the loop's
/// type, as `step` and `t` are; `stepMod4`, where given, is step % 4 (the
/// loop's steps of one unrolled place keep it: emitMmaSteps).
Value stepFeatureGroup(Tile &tile, Value step, Value t, Value stepMod4) {
  KernelBuilder &k = tile.k;
  bool narrow = step.getType().isInteger(32);
  auto c = [&](int64_t v) {
    return narrow ? constI32(k, static_cast<int32_t>(v)) : k.idx(v);
  };
  if (!tile.sh.stagesXByTma())
    return k.add(k.mul(step, c(4)), t);
  if (!stepMod4)
    stepMod4 = k.rem(step, c(4));
  Value inBlock = k.add(k.mul(stepMod4, c(2)),
                        k.add(k.mul(k.div(t, c(2)), c(8)), k.rem(t, c(2))));
  return k.add(k.mul(k.div(step, c(4)), c(16)), inBlock);
}

/// Stage 1 (tensor cores): the four Gaussians g[16 step + 4t + i, s] of the
/// thread's B fragment of column s (0 past D; columns past S repeat S - 1,
/// whose results are dropped), their squares added to `sumSq`, and the
/// fragment's words: g rounded to the input's type, then (split) the
/// rounded remainders. `step` and `t` are of the k loop's type (index, or
/// i32 where narrowKLoop).
SmallVector<std::array<Value, 2>>
generateProjectionFragment(Tile &tile, Value seed, Value step, Value t, Value s,
                           Value &sumSq, Value stepMod4 = Value()) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t D = sh.featureDim, S = sh.numSlices;
  bool narrow = step.getType().isInteger(32);
  Value group = stepFeatureGroup(tile, step, t, stepMod4);
  Value group32 = narrow ? group : toI32(k, group);
  if (narrow)
    group = fromI32(k, group);
  Value sc = k.min(s, k.idx(S - 1));
  std::array<Value, 4> g = buildProjectionGaussianGroup(
      k.b, seed, group32, toI32(k, sc), sh.normals);
  Type elem = sh.inputElement;
  for (int64_t i = 0; i < 4; ++i) {
    if (D % 16 != 0)
      g[i] = k.select(k.lt(k.add(k.mul(group, k.idx(4)), k.idx(i)), k.idx(D)),
                      g[i], k.f32(0.0f));
    sumSq = k.fma(g[i], g[i], sumSq);
  }
  // Rows (0, 1) and (2, 3) rounded in pairs (roundPair): a word each.
  std::array<RoundedPair, 2> hi = {roundPair(k, g[0], g[1], elem),
                                   roundPair(k, g[2], g[3], elem)};
  SmallVector<std::array<Value, 2>> parts = {{hi[0].word, hi[1].word}};
  if (!tile.gOut && !sh.splitProjection)
    return parts;
  std::array<Value, 4> his;
  for (int64_t i = 0; i < 4; ++i)
    his[i] = hi[i / 2].element(k, i % 2);
  if (tile.gOut)
    for (int64_t i = 0; i < 4; ++i) {
      Value d = k.add(k.mul(group, k.idx(4)), k.idx(i));
      k.ifThen(
          k.land(tile.gWriter, k.land(k.lt(d, k.idx(D)), k.lt(s, k.idx(S)))),
          [&] {
            k.store(his[i], tile.gOut, {d, s});
          });
    }
  // The split: the remainders g - hi, rounded in pairs too.
  if (sh.splitProjection) {
    auto rest = [&](int64_t i) { return k.subf(g[i], k.toF32(his[i])); };
    parts.push_back({roundPair(k, rest(0), rest(1), elem).word,
                     roundPair(k, rest(2), rest(3), elem).word});
  }
  return parts;
}

/// Stage 2a by TMA (stagesXByTma, from emitXStageCopies once its mbarriers
/// expect their spans): the copies of the block, stageTmaBoxes() B per span
/// in the walk's order (`walkGroup`), go to the warps in turn (copy m to
/// lane 0 of warp m % warps), or with stageTma 2 all to thread 0. Box j of span
/// c is the 64-feature block b = c F / 64 + B rank + j of the tile's BM rows (x
/// viewed as [V N, D], rows v N + n0 ..), landing at b BM 128 bytes of
/// t.xStage: the staged x is [D / 64][BM][64], each row's 16-byte chunks
/// swizzled (chunk ^ row % 8: the 128-byte swizzle, whose 1024-byte period is 8
/// rows of a box). In a cluster each box is multicast to every block of it, as
/// the bulk copies are.
void emitXStageBoxes(Tile &tile, Value rank, Value mask,
                     function_ref<Value(Value)> walkGroup) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t B = sh.stageTmaBoxes(), groups = sh.stageSpans();
  int64_t BM = sh.blockRows;
  int64_t blocksPerSpan = B * sh.stageCluster();
  Value lane = k.rem(tile.tid, k.idx(32)), warp = k.div(tile.tid, k.idx(32));
  Value row0 = k.add(k.mul(tile.v, k.idx(sh.batch)), tile.n0);
  MemRefType box =
      MemRefType::get({BM, 64}, sh.inputElement, MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(k.b.getContext(),
                                                 gpu::AddressSpace::Workgroup));
  // stageTma 2: thread 0 issues every box.
  bool one = sh.stageTmaIssue() == 2;
  k.ifThen(k.lt(one ? tile.tid : lane, k.idx(1)), [&] {
    k.forEach(
        one ? k.idx(0) : warp, k.idx(groups * B), k.idx(one ? 1 : sh.warps),
        [&](Value m) {
          Value c = walkGroup(k.div(m, k.idx(B)));
          Value b = k.add(k.mul(c, k.idx(blocksPerSpan)),
                          k.add(k.mul(rank, k.idx(B)), k.rem(m, k.idx(B))));
          Value dst = memref::ViewOp::create(
              k.b, box, tile.xStage, k.mul(b, k.idx(BM * 128)), ValueRange{});
          nvgpu::TmaAsyncLoadOp::create(k.b, dst, tile.xBars, tile.xMap,
                                        ValueRange{k.mul(b, k.idx(64)), row0},
                                        c, mask, Value());
        });
  });
}

/// Stage 2a (stagesX): the block's BM rows of x copied into t.xStage, row r
/// at r * stageRowBytes(), by bulk copies
/// (cp.async.bulk.shared::cluster.global) in the walk's order, one mbarrier
/// per span of stageSpan() step groups (features c F .. (c + 1) F - 1, F =
/// 16 WK U stageSpan()): thread 0 initializes them, and after a barrier
/// arrives on each with its span's bytes expected; lane 0 of each warp w
/// then copies rows w, w + warps, ... span by span (a copy's operands are
/// warp-uniform: one lane per warp issues them, no loop over the lanes).
/// The copies go out at the kernel's start and hold no registers; the loop
/// waits on its span's mbarrier (phase 0: each is used once) before reading
/// its words from shared memory.
///
/// In a cluster (stageCluster() = CL blocks sharing the rows) the block of
/// rank q copies the rows w + warps (q + CL j) and multicasts each copy to
/// every block of the cluster: each mbarrier still expects the span's whole
/// bytes, of which its own block copies 1 / CL. The mbarriers are
/// initialized cluster-wide (fence.mbarrier_init by thread 0, then a cluster
/// barrier arrived relaxed) before any peer's copy can reach them. A block
/// may exit without another
/// cluster barrier: every multicast write it receives is one its own loop
/// waits for.
void emitXStageCopies(Tile &tile, Value x, Value rotation) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  MLIRContext *ctx = k.b.getContext();
  int64_t WK = sh.mmaWarpsK(), U = sh.mmaStepGroup();
  int64_t G = sh.stageSpan(), groups = sh.stageSpans();
  int64_t F = sh.stageSpanFeatures();
  int64_t BM = sh.blockRows, D = sh.featureDim, RS = sh.stageRowBytes();
  int64_t CL = sh.stageCluster();
  Value lane = k.rem(tile.tid, k.idx(32)), warp = k.div(tile.tid, k.idx(32));
  k.ifThen(k.lt(tile.tid, k.idx(1)), [&] {
    if (tile.xMap)
      nvgpu::TmaPrefetchOp::create(k.b, tile.xMap, Value());
    for (int64_t c = 0; c < groups; ++c)
      nvgpu::MBarrierInitOp::create(k.b, tile.xBars, k.idx(1), k.idx(c),
                                    Value());
    if (CL > 1)
      NVVM::FenceMbarrierInitOp::create(k.b);
  });
  Value firstRow = warp, mask, rank = k.idx(0);
  if (CL > 1) {
    // Relaxed: thread 0's fence.mbarrier_init orders the initialization;
    // the default release arrive cost every warp a cluster-scope fence
    // (ERRBAR: 8% of blog's warp time, docs/PERF-NOTES.md thirty-first
    // session).
    NVVM::ClusterArriveRelaxedOp::create(k.b, k.b.getUnitAttr());
    NVVM::ClusterWaitOp::create(k.b, k.b.getUnitAttr());
    rank = arith::IndexCastUIOp::create(
        k.b, k.b.getIndexType(),
        NVVM::ClusterId::create(k.b, k.b.getI32Type()).getResult());
    firstRow = k.add(warp, k.mul(rank, k.idx(sh.warps)));
    mask = arith::ConstantOp::create(
        k.b, k.b.getI16IntegerAttr(static_cast<int16_t>((1 << CL) - 1)));
  } else {
    k.barrier();
  }
  // The bulk copies' operands (unused by the boxes, whose path LLVM drops
  // them from; built here, moving them after the boxes' return reorders the
  // measured PTX of the bulk copies).
  Type i64 = k.b.getI64Type(), i32 = k.b.getI32Type();
  auto ptrTo = [&](unsigned space) {
    return LLVM::LLVMPointerType::get(ctx, space);
  };
  auto asI64 = [&](Value index) {
    return arith::IndexCastUIOp::create(k.b, i64, index).getResult();
  };
  Value stageBase =
      asI64(memref::ExtractAlignedPointerAsIndexOp::create(k.b, tile.xStage));
  Value xBase = asI64(memref::ExtractAlignedPointerAsIndexOp::create(k.b, x));
  // The block's first row of x: ((v N + n0) D) elements in.
  Value rowsBase =
      k.mul(k.add(k.mul(tile.v, k.idx(sh.batch)), tile.n0), k.idx(D));
  Value groupShift = k.div(fromI32(k, rotation), k.idx(WK * U * G));
  auto walkGroup = [&](Value i) {
    return k.rem(k.add(i, groupShift), k.idx(groups));
  };
  k.ifThen(k.lt(tile.tid, k.idx(1)), [&] {
    k.forEach(k.idx(0), k.idx(groups), k.idx(1), [&](Value i) {
      nvgpu::MBarrierArriveExpectTxOp::create(
          k.b, tile.xBars, k.idx(BM * F * 2), walkGroup(i), Value());
    });
  });
  if (tile.xMap) {
    emitXStageBoxes(tile, rank, mask, walkGroup);
    return;
  }
  k.ifThen(k.lt(lane, k.idx(1)), [&] {
    k.forEach(k.idx(0), k.idx(groups), k.idx(1), [&](Value i) {
      Value c = walkGroup(i);
      Value bar = LLVM::IntToPtrOp::create(
          k.b, ptrTo(3),
          nvgpu::MBarrierGetOp::create(k.b, i32, tile.xBars, c).getResult());
      Value f0 = k.mul(c, k.idx(F));
      k.forEach(firstRow, k.idx(BM), k.idx(sh.warps * CL), [&](Value r) {
        Value dst = arith::AddIOp::create(
            k.b, stageBase,
            asI64(k.add(k.mul(r, k.idx(RS)), k.mul(f0, k.idx(2)))));
        Value src = arith::AddIOp::create(
            k.b, xBase,
            asI64(k.mul(k.add(k.add(rowsBase, k.mul(r, k.idx(D))), f0),
                        k.idx(2))));
        Value srcGlobal = LLVM::AddrSpaceCastOp::create(
            k.b, ptrTo(1), LLVM::IntToPtrOp::create(k.b, ptrTo(0), src));
        // The CTA's shared window as a shared::cluster address (the form
        // of the copy that sm_90's PTX has).
        Value dstCluster = LLVM::AddrSpaceCastOp::create(
            k.b, ptrTo(7), LLVM::IntToPtrOp::create(k.b, ptrTo(3), dst));
        NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
            k.b, dstCluster, srcGlobal, bar,
            constI32(k, static_cast<int32_t>(F * 2)), mask, Value());
      });
    });
  });
}

/// A step group's B fragments: [u][n][part] = the two operands of a part
/// (part 1: the lo words).
using GroupFragments =
    SmallVector<SmallVector<SmallVector<SmallVector<Value>>>>;

/// The operands of `groups` in order, flat (scf.for carries values).
void flattenGroups(ArrayRef<GroupFragments> groups, SmallVector<Value> &out) {
  for (const GroupFragments &g : groups)
    for (const auto &step : g)
      for (const auto &column : step)
        for (const auto &part : column)
          llvm::append_range(out, part);
}

/// `count` groups shaped like `like`, taken from `flat` in flattenGroups'
/// order.
SmallVector<GroupFragments> unflattenGroups(const GroupFragments &like,
                                            int64_t count, ValueRange flat) {
  SmallVector<GroupFragments> groups(count, like);
  size_t next = 0;
  for (GroupFragments &g : groups)
    for (auto &step : g)
      for (auto &column : step)
        for (auto &part : column)
          for (Value &v : part)
            v = flat[next++];
  assert(next == flat.size() && "unflattenGroups: every value taken");
  return groups;
}

/// Stage 2's k loop with g generated `ahead` step groups early
/// (SingleLaunchShape::genAheadGroups): the warp's groups start at `wk` and
/// go `span` (WK U) steps apart up to `steps`. The prologue generates groups
/// 0 .. ahead - 1; iteration j generates group j + ahead, then consumes group
/// j (its span's wait, x loads and MMAs) with the fragments generated ahead
/// of it, carried in registers; the last `ahead` groups are consumed after
/// the loop. Generation stays in ascending group order, so the squares add
/// up as in the plain loop. `turn` maps a step of the walk to the staggered
/// one. Returns the accumulators then the sums of squares (`inits`' layout).
SmallVector<Value> emitGenerateAheadLoop(
    KernelBuilder &k, int64_t ahead, Value wk, int64_t steps, int64_t span,
    ArrayRef<Value> inits, function_ref<Value(int64_t)> loopConst,
    function_ref<Value(Value)> turn,
    function_ref<GroupFragments(Value, SmallVector<Value> &)> generateGroup,
    function_ref<void(Value, const GroupFragments &, SmallVector<Value> &)>
        consumeGroup) {
  size_t numAcc = inits.size();
  SmallVector<Value> acc(inits);
  SmallVector<GroupFragments> queue;
  for (int64_t j = 0; j < ahead; ++j)
    queue.push_back(generateGroup(turn(k.add(wk, loopConst(j * span))), acc));
  GroupFragments like = queue.front();
  flattenGroups(queue, acc);
  SmallVector<Value> results = k.forEach(
      wk, loopConst(steps - ahead * span), loopConst(span), acc,
      [&](Value step, ValueRange carried) {
        SmallVector<Value> next(carried.begin(), carried.begin() + numAcc);
        SmallVector<GroupFragments> q =
            unflattenGroups(like, ahead, carried.drop_front(numAcc));
        q.push_back(
            generateGroup(turn(k.add(step, loopConst(ahead * span))), next));
        consumeGroup(turn(step), q.front(), next);
        flattenGroups(ArrayRef<GroupFragments>(q).drop_front(), next);
        return next;
      });
  SmallVector<Value> out(results.begin(), results.begin() + numAcc);
  SmallVector<GroupFragments> q =
      unflattenGroups(like, ahead, ValueRange(results).drop_front(numAcc));
  for (int64_t j = 0; j < ahead; ++j)
    consumeGroup(turn(k.add(wk, loopConst(steps - (ahead - j) * span))), q[j],
                 out);
  return out;
}

/// Stage 2 (tensor cores): the warp's k steps (wk, wk + WK, ...): per step
/// the A fragments of its MT row fragments (rows past N read row N - 1; the
/// ECF masks them), the B fragments of the NT = BS / 8 column fragments
/// generated in registers, MT x NT (x 2 when split) mma.sync. When every
/// warp has the same number of steps they go U at a time (mmaStepGroup):
/// the x loads of the U steps are issued before the first step's Philox
/// work, so a warp waits for one L2 round trip per U steps; one step at a
/// time, the wait for its loads outlasted the step's Philox work (ncu: 42%
/// of the blog kernel's samples, docs/PERF-NOTES.md n1). The loads are not
/// carried across iterations: LLVM folds a loop-carried load back into the
/// loop (a phi of loads becomes a load of a phi). Returns the accumulators
/// acc[(i * NT + n) * 4 + c] followed by the NT sums of g^2 of the
/// thread's columns.
SmallVector<Value> emitMmaSteps(Tile &tile, const MmaLanes &l, Value seed,
                                Value x) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t MT = sh.mmaRowFragments(), NT = sh.blockSlices / 8;
  int64_t WK = sh.mmaWarpsK(), U = sh.mmaStepGroup();
  if (tile.gOut)
    tile.gWriter = k.land(k.lt(tile.v, k.idx(1)), k.lt(l.wm, k.idx(1)));
  // narrowKLoop: the loop counts in i32 (steps, groups and features are far
  // below 2^31), so the rotation, the feature offsets and the Philox groups
  // are 32-bit arithmetic where index math costs a carry chain per add (the
  // x offset is widened once, at the loads), and the rows, all in the
  // batch, are one base apart by constants, which LLVM folds into the
  // loads' immediate offsets. Elsewhere rows past N read row N - 1.
  bool narrow = sh.narrowKLoop();
  auto loopConst = [&](int64_t v) {
    return narrow ? constI32(k, static_cast<int32_t>(v)) : k.idx(v);
  };
  auto toLoop = [&](Value index) { return narrow ? toI32(k, index) : index; };
  auto toIndex = [&](Value v) { return narrow ? fromI32(k, v) : v; };
  SmallVector<Value> rows;
  for (int64_t i = 0; i < MT; ++i)
    for (int64_t h = 0; h < 2; ++h) {
      Value r = k.add(k.mul(k.add(k.mul(l.wm, k.idx(MT)), k.idx(i)), k.idx(16)),
                      k.add(l.q, k.idx(8 * h)));
      Value row = k.add(tile.n0, r);
      rows.push_back(narrow ? row : k.min(row, k.idx(sh.batch - 1)));
    }
  // The A registers of row fragment i: a0a1 = (row q, features 4t, 4t + 1),
  // a2a3 = (row q + 8, same), a4a5 = (row q, 4t + 2, 4t + 3), a6a7 = (row
  // q + 8, same).
  // As i32 words, 4 per row fragment in that order.
  // stagesX: the staged rows (row - n0 of the tile), else x itself.
  Value tL = toLoop(l.t), stageRows;
  // stagesXByTma: step % 4 of the loop's step u of a group, (wk + u WK) % 4
  // (WK U, the rotation and the steps are multiples of 4).
  bool boxes = sh.stagesXByTma();
  SmallVector<Value> stepMod4;
  for (int64_t u = 0; u < U && boxes; ++u)
    stepMod4.push_back(k.rem(k.add(l.wk, k.idx(u * WK)), k.idx(4)));
  auto loadStepWords = [&](Value step, int64_t u) {
    Value f0 = boxes ? Value()
                     : toIndex(k.add(k.mul(step, loopConst(16)),
                                     k.mul(tL, loopConst(4))));
    auto rowWords = [&](Value row) {
      if (boxes)
        return loadWordPair(
            k, sh.inputElement, stageRows,
            ValueRange{stagedWordIndex(tile, k.sub(row, tile.n0), toIndex(step),
                                       stepMod4[u], l.t)});
      if (stageRows)
        return loadWordPair(k, sh.inputElement, stageRows,
                            ValueRange{k.sub(row, tile.n0), f0});
      return loadInputWords(tile, x, row, f0);
    };
    SmallVector<Value> words;
    for (int64_t i = 0; i < MT; ++i) {
      std::array<Value, 2> top = rowWords(rows[2 * i]);
      std::array<Value, 2> bottom = rowWords(rows[2 * i + 1]);
      words.append({top[0], bottom[0], top[1], bottom[1]});
    }
    return words;
  };
  auto operandsOf = [&](ArrayRef<Value> words) {
    SmallVector<SmallVector<Value>> a(MT);
    for (int64_t i = 0; i < MT; ++i)
      for (int64_t w = 0; w < 4; ++w)
        a[i].push_back(mmaOperand(tile, words[4 * i + w]));
    return a;
  };
  // The B fragments of one step: [n][part] (part 1: the lo words).
  auto generateStep = [&](Value step, SmallVector<Value> &acc, int64_t u) {
    SmallVector<SmallVector<SmallVector<Value>>> b(NT);
    for (int64_t n = 0; n < NT; ++n) {
      Value s = k.add(tile.s0, k.add(k.idx(8 * n), l.q));
      for (const std::array<Value, 2> &part : generateProjectionFragment(
               tile, seed, step, tL, s, acc[MT * NT * 4 + n],
               boxes ? toLoop(stepMod4[u]) : Value()))
        b[n].push_back({mmaOperand(tile, part[0]), mmaOperand(tile, part[1])});
    }
    return b;
  };
  auto multiplyStep = [&](ArrayRef<SmallVector<Value>> a,
                          ArrayRef<SmallVector<SmallVector<Value>>> b,
                          SmallVector<Value> &acc) {
    for (int64_t n = 0; n < NT; ++n)
      for (ArrayRef<Value> bFrag : b[n])
        for (int64_t i = 0; i < MT; ++i)
          emitMmaSync16816(
              k, sh.inputElement, a[i], bFrag,
              MutableArrayRef<Value>(acc).slice((i * NT + n) * 4, 4));
  };
  // staggerSteps: block b starts at step group b mod groups and wraps
  // around (every warp has whole groups: U > 1, or WK dividing the steps);
  // the blocks of a stageCluster() cluster walk alike (b / CL), so that
  // their copies of a span go out together.
  int64_t steps = sh.mmaSteps(), groups = steps / (WK * U);
  Value rotation;
  if (sh.staggersSteps())
    rotation = toLoop(k.mul(
        k.rem(k.div(k.blockId(gpu::Dimension::x), k.idx(sh.stageCluster())),
              k.idx(groups)),
        k.idx(WK * U)));
  auto turn = [&](Value step) {
    if (!rotation)
      return step;
    Value turned = k.add(step, rotation);
    return k.select(k.lt(turned, loopConst(steps)), turned,
                    k.sub(turned, loopConst(steps)));
  };
  // stagesX: the copies go out first; the group's words are then read from
  // the staged rows after its mbarrier's wait.
  if (sh.stagesX()) {
    emitXStageCopies(tile, x, rotation);
    int64_t rowElems = sh.stageRowBytes() / 2;
    SmallVector<int64_t> shape = {sh.blockRows, rowElems};
    if (boxes)
      shape = {sh.blockRows * sh.featureDim};
    auto view =
        MemRefType::get(shape, sh.inputElement, MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            k.b.getContext(), gpu::AddressSpace::Workgroup));
    stageRows =
        memref::ViewOp::create(k.b, view, tile.xStage, k.idx(0), ValueRange{});
  }
  // The x words of the group whose (turned) first step is `first`, as one
  // vector<U x MT x 4 x i32> (prefetchX carries it).
  int64_t groupWords = U * MT * 4;
  VectorType wordsType = VectorType::get({groupWords}, k.b.getI32Type());
  auto loadGroup = [&](Value first) {
    SmallVector<Value> words;
    for (int64_t u = 0; u < U; ++u)
      words.append(loadStepWords(k.add(first, loopConst(u * WK)), u));
    return vector::FromElementsOp::create(k.b, wordsType, words).getResult();
  };
  // The wait for the span of the group whose first step is `first` (phase
  // 0: each span's mbarrier is used once).
  auto waitSpan = [&](Value first) {
    nvgpu::MBarrierTryWaitParityOp::create(
        k.b, tile.xBars, arith::ConstantOp::create(k.b, k.b.getBoolAttr(false)),
        k.idx(10000000),
        k.div(fromI32(k, first), k.idx(WK * U * sh.stageSpan())));
  };
  // The group's x loads (prefetchX: the next group's, carried to it), then
  // its Philox work (independent of the loads, so it covers their latency),
  // then its MMAs.
  int64_t numAcc = MT * NT * 4 + NT;
  SmallVector<Value> inits(numAcc, k.f32(0.0f));
  Value zeroWords;
  if (sh.prefetchX) {
    inits.push_back(loadGroup(turn(toLoop(l.wk))));
    zeroWords = arith::ConstantOp::create(
        k.b,
        DenseElementsAttr::get(wordsType, k.b.getI32IntegerAttr(0).getValue()));
  }
  if (int64_t ahead = sh.genAheadGroups()) {
    // genAheadGroups (x staged, so no prefetchX): the group whose first
    // step is `first` generated (its squares added to acc), or waited for,
    // loaded and multiplied.
    auto generateGroup = [&](Value first, SmallVector<Value> &acc) {
      GroupFragments g;
      for (int64_t u = 0; u < U; ++u)
        g.push_back(generateStep(k.add(first, loopConst(u * WK)), acc, u));
      return g;
    };
    auto consumeGroup = [&](Value first, const GroupFragments &g,
                            SmallVector<Value> &acc) {
      waitSpan(first);
      SmallVector<SmallVector<SmallVector<Value>>> a;
      for (int64_t u = 0; u < U; ++u)
        a.push_back(
            operandsOf(loadStepWords(k.add(first, loopConst(u * WK)), u)));
      for (int64_t u = 0; u < U; ++u)
        multiplyStep(a[u], g[u], acc);
    };
    return emitGenerateAheadLoop(k, ahead, toLoop(l.wk), steps, WK * U, inits,
                                 loopConst, turn, generateGroup, consumeGroup);
  }
  SmallVector<Value> results = k.forEach(
      toLoop(l.wk), loopConst(steps), loopConst(WK * U), inits,
      [&](Value step, ValueRange carried) {
        Value first = turn(step);
        SmallVector<Value> next(carried.begin(), carried.begin() + numAcc);
        Value nextWords;
        if (sh.prefetchX) {
          Value after = k.add(step, loopConst(WK * U));
          nextWords = k.ifElse(
              k.lt(after, loopConst(steps)),
              [&] { return loadGroup(turn(after)); }, zeroWords);
        }
        SmallVector<SmallVector<SmallVector<Value>>> a;
        SmallVector<SmallVector<SmallVector<SmallVector<Value>>>> b;
        bool late = stageRows && sh.stageLateWait();
        if (late)
          for (int64_t u = 0; u < U; ++u)
            b.push_back(generateStep(k.add(first, loopConst(u * WK)), next, u));
        if (stageRows)
          waitSpan(first);
        for (int64_t u = 0; u < U; ++u) {
          SmallVector<Value> words;
          if (sh.prefetchX) {
            for (int64_t w = 0; w < MT * 4; ++w)
              words.push_back(vector::ExtractOp::create(
                  k.b, carried.back(), ArrayRef<int64_t>{u * MT * 4 + w}));
          } else {
            words = loadStepWords(k.add(first, loopConst(u * WK)), u);
          }
          a.push_back(operandsOf(words));
        }
        for (int64_t u = 0; u < U && !late; ++u)
          b.push_back(generateStep(k.add(first, loopConst(u * WK)), next, u));
        for (int64_t u = 0; u < U; ++u)
          multiplyStep(a[u], b[u], next);
        if (nextWords)
          next.push_back(nextWords);
        return next;
      });
  results.resize(numAcc);
  return results;
}

/// The sums over a lane's elements `ys` (y, one column) of cos and sin of
/// (t_p y), p = 1..P-1, as [cos | sin] (the sines first where `sinesFirst`
/// is true): pairs of elements by forEachHarmonicPair where `valid` is
/// empty (no row masked), else one element at a time, each masked by its
/// `valid`, then the halves swapped by selects.
SmallVector<Value> laneHarmonicSums(KernelBuilder &k, int64_t P,
                                    ArrayRef<Value> ys, ArrayRef<Value> valid,
                                    Value halfDt, Value dt, Value sinesFirst) {
  Value zero = k.f32(0.0f);
  bool allValid = valid.empty();
  SmallVector<Value> sum(2 * (P - 1), zero);
  for (size_t a = 0; a < ys.size(); a += allValid ? 2 : 1) {
    if (allValid) {
      forEachHarmonicPair(
          k, P, ys[a], ys[a + 1], halfDt,
          [&](int64_t p, Value c, Value sn, Value w) {
            Value &sc = sum[p - 1], &ss = sum[P - 2 + p];
            sc = a == 0 ? k.mulf(c, w) : k.fma(c, w, sc);
            ss = a == 0 ? k.mulf(sn, w) : k.fma(sn, w, ss);
          },
          sinesFirst);
      continue;
    }
    forEachHarmonic(k, P, k.mulf(ys[a], dt), [&](int64_t p, Value c, Value sn) {
      Value &sc = sum[p - 1], &ss = sum[P - 2 + p];
      sc = k.addf(sc, k.select(valid[a], c, zero));
      ss = k.addf(ss, k.select(valid[a], sn, zero));
    });
  }
  // Masked rows went one element at a time: the sines first by selects.
  if (!allValid)
    for (int64_t i = 0; i < P - 1; ++i) {
      Value c = sum[i], sn = sum[P - 1 + i];
      sum[i] = k.select(sinesFirst, sn, c);
      sum[P - 1 + i] = k.select(sinesFirst, c, sn);
    }
  return sum;
}

/// The lane's part `part` of column j's halved [cos | sin] list, `kept`
/// (its sums R part + i, R = kept.size()), to gs[((warp 2 + cs) BS + j) P
/// + p] for gatherWarpSums.
void storeLaneSums(Tile &tile, ArrayRef<Value> kept, Value part, Value warp,
                   Value j) {
  KernelBuilder &k = tile.k;
  int64_t BS = tile.sh.blockSlices, P = tile.sh.numPoints;
  int64_t R = static_cast<int64_t>(kept.size());
  for (int64_t i = 0; i < R; ++i) {
    Value at = k.add(k.mul(part, k.idx(R)), k.idx(i));
    Value cs = k.div(at, k.idx(P - 1));
    Value p = k.add(k.rem(at, k.idx(P - 1)), k.idx(1));
    Value row = k.add(k.mul(k.add(k.mul(warp, k.idx(2)), cs), k.idx(BS)), j);
    k.store(kept[i], tile.gs, {k.add(k.mul(row, k.idx(P)), p)});
  }
}

/// Stages 1-3 transposed (transposesFragments: the ECF from the
/// accumulators, one k step, 8 slices): y^T = g^T x^T by mma.sync with g^T
/// as A (slices on m; the thread's a0a1, a4a5 words are the four Gaussians
/// of its B fragment in emitMmaSteps, generateProjectionFragment for column
/// s0 + q; rows q + 8 of A, slices past the tile, are zero words) and x^T
/// as B (the warp's rows on n: fragment f holds rows 8 f .. 8 f + 7 of the
/// warp's 16 MT, b0b1 and b2b3 the two words of row 8 f + q, as
/// loadInputWords reads them). Each lane's accumulators c0, c1 of fragment
/// f are then y[row 8 f + 2 t (+ 1), slice q] (c2, c3 are the zero rows):
/// every element a thread holds is of one slice. Returns acc[4 f + c] for
/// the 2 MT fragments, then the thread's sum of g^2.
SmallVector<Value> emitTransposedMmaStep(Tile &tile, const MmaLanes &l,
                                         Value seed, Value x) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t F = 2 * sh.mmaRowFragments();
  Value sumSq = k.f32(0.0f);
  SmallVector<std::array<Value, 2>> parts = generateProjectionFragment(
      tile, seed, k.idx(0), l.t, k.add(tile.s0, l.q), sumSq);
  Value zero = mmaOperand(
      tile, arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(0)));
  Value rowBase = k.mul(k.mul(l.wm, k.idx(sh.mmaRowFragments())), k.idx(16));
  SmallVector<Value> acc(4 * F, k.f32(0.0f));
  for (int64_t f = 0; f < F; ++f) {
    Value row = k.add(tile.n0, k.add(rowBase, k.add(k.idx(8 * f), l.q)));
    if (!sh.mmaRowsInBatch())
      row = k.min(row, k.idx(sh.batch - 1));
    std::array<Value, 2> words =
        loadInputWords(tile, x, row, k.mul(l.t, k.idx(4)));
    SmallVector<Value> b = {mmaOperand(tile, words[0]),
                            mmaOperand(tile, words[1])};
    for (const std::array<Value, 2> &part : parts) {
      SmallVector<Value> a = {mmaOperand(tile, part[0]), zero,
                              mmaOperand(tile, part[1]), zero};
      emitMmaSync16816(k, sh.inputElement, a, b,
                       MutableArrayRef<Value>(acc).slice(4 * f, 4));
    }
  }
  acc.push_back(sumSq);
  return acc;
}

/// Stage 3 (tensor cores): the warps' partial accumulators to gs as
/// [wk][row][slice] and the sums of g^2 of row group 0, added over the four
/// lanes t of a column (xor butterfly), to norms as [wk][slice]; warps past
/// the tile's rows store nothing.
void storeMmaPartials(Tile &tile, const MmaLanes &l, ArrayRef<Value> acc) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t MT = sh.mmaRowFragments(), NT = sh.blockSlices / 8;
  int64_t BS = sh.blockSlices, BM = sh.blockRows;
  SmallVector<Value> sumSq(acc.begin() + MT * NT * 4, acc.end());
  for (Value &v : sumSq)
    for (int32_t off : {1, 2})
      v = addXorShuffled(k, v, off);
  Value rowBase = k.mul(k.mul(l.wm, k.idx(MT)), k.idx(16));
  k.ifThen(k.lt(rowBase, k.idx(BM)), [&] {
    for (int64_t i = 0; i < MT; ++i)
      for (int64_t n = 0; n < NT; ++n)
        for (int64_t c = 0; c < 4; ++c) {
          Value r = k.add(k.add(rowBase, k.idx(16 * i + 8 * (c / 2))), l.q);
          Value j = k.add(k.idx(8 * n + c % 2), k.mul(l.t, k.idx(2)));
          Value e =
              k.add(k.mul(k.add(k.mul(l.wk, k.idx(BM)), r), k.idx(BS)), j);
          k.store(acc[(i * NT + n) * 4 + c], tile.gs, {e});
        }
  });
  k.ifThen(k.land(k.lt(l.wm, k.idx(1)), k.lt(l.t, k.idx(1))), [&] {
    for (int64_t n = 0; n < NT; ++n)
      k.store(sumSq[n], tile.norms,
              {k.add(k.mul(l.wk, k.idx(BS)), k.add(k.idx(8 * n), l.q))});
  });
  k.barrier();
}

/// Stage 4 (tensor cores): ys[r * BS + j] = (the k groups' partials added
/// in ascending order) x 1 / sqrt(their sums of g^2 added in ascending
/// order). A thread's elements tid + T i (T threads) share one column (BS
/// divides T), so its norm and its reciprocal are formed once and each
/// element is one multiply (a correctly rounded division each, with its
/// slow-path branch, was 8 of minimal's per-thread divisions); the elements
/// are unrolled, their loads issued together (a loop of dependent load, sqrt
/// and division per element was 12% of minimal's stall samples,
/// docs/PERF-NOTES.md n5).
void reduceMmaPartials(Tile &tile) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, WK = sh.mmaWarpsK();
  Value j = k.rem(tile.tid, k.idx(BS));
  Value sq = k.load(tile.norms, {j});
  for (int64_t w = 1; w < WK; ++w)
    sq = k.addf(sq, k.load(tile.norms, {k.add(j, k.idx(w * BS))}));
  Value norm = math::SqrtOp::create(k.b, sq);
  tile.norm = norm;
  Value inverse = k.divf(k.f32(1.0f), norm);
  int64_t ET = sh.ecfThreads();
  tile.ecfOnly([&] {
    for (int64_t i = 0; i * ET < BM * BS; ++i) {
      auto element = [&] {
        Value e = k.add(tile.tid, k.idx(i * ET));
        Value y = k.load(tile.gs, {e});
        for (int64_t w = 1; w < WK; ++w)
          y = k.addf(y, k.load(tile.gs, {k.add(e, k.idx(w * BM * BS))}));
        k.store(k.mulf(y, inverse), tile.ys, {e});
      };
      if ((i + 1) * ET <= BM * BS)
        element();
      else
        k.ifThen(k.lt(tile.tid, k.idx(BM * BS - i * ET)), element);
    }
  });
  k.barrier();
}

/// Stages 1-4 on tensor cores: the y tile in ys.
void multiplyTileMma(Tile &tile, Value seed, Value x) {
  MmaLanes l = mmaLanes(tile);
  SmallVector<Value> acc = emitMmaSteps(tile, l, seed, x);
  storeMmaPartials(tile, l, acc);
  reduceMmaPartials(tile);
}

/// Stage 5's harmonics for 16-bit inputs whose tile is the batch, two
/// elements of the y tile at a time: elements tid + T i and tid + T (i +
/// 1) (T threads: rows r + i T / BS and the next, one slice) through
/// forEachHarmonicPair (angles dt y_a and dt y_b); the first pair's products
/// start `sums` (cos, then sin, p = 1..P-1), the others add theirs by fma.
void addElementPairs(Tile &t, MutableArrayRef<Value> sums, Value swapped) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t P = sh.numPoints, RT = sh.ecfRowsPerThread();
  Value halfDt =
      k.f32(static_cast<float>(0.5 * sh.tMax / static_cast<double>(P - 1)));
  for (int64_t i = 0; i < RT; i += 2) {
    Value ya = k.load(t.ys, {k.add(t.tid, k.idx(i * sh.ecfThreads()))});
    Value yb = k.load(t.ys, {k.add(t.tid, k.idx((i + 1) * sh.ecfThreads()))});
    forEachHarmonicPair(
        k, P, ya, yb, halfDt,
        [&](int64_t p, Value c, Value sn, Value w) {
          Value &sc = sums[p - 1], &ss = sums[P - 1 + p - 1];
          sc = i == 0 ? k.mulf(c, w) : k.fma(c, w, sc);
          ss = i == 0 ? k.mulf(sn, w) : k.fma(sn, w, ss);
        },
        swapped);
  }
}

/// Entry q = j P + p's cos and sin sums over the warps (in ascending warp
/// order), read from gs at qc (storeLaneSums' layout).
std::pair<Value, Value> addWarpSums(Tile &t, Value qc) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints;
  Value tc = k.f32(0.0f), ts = k.f32(0.0f);
  for (int64_t w = 0; w < sh.ecfWarps(); ++w) {
    tc = k.addf(tc, k.load(t.gs, {k.add(qc, k.idx(w * 2 * BS * P))}));
    ts = k.addf(ts, k.load(t.gs, {k.add(qc, k.idx(w * 2 * BS * P + BS * P))}));
  }
  return {tc, ts};
}

/// The end of stage 5: the warps' sums in gs ([warp][cos | sin][j][p], p = 0
/// left out) added in warp order, to t.ecf as means with one batch tile,
/// else to the per-tile workspaces. In blocks of 4 warps whose threads cover
/// the BS (P - 1) sums but not the BS P entries with p = 0 (P 17: 128
/// against 136), the threads take p >= 1 only and the first BS threads also
/// write p = 0, so that the entries take one pass instead of two (the same
/// sums; not yet on the 8-warp kernels where it would apply, BS 16 at P 17,
/// which keep their measured form until it has run there).
void gatherWarpSums(Tile &t, Value partC, Value partS) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, P = sh.numPoints;
  int64_t N = sh.batch, S = sh.numSlices;
  Value zero = k.f32(0.0f);
  k.barrier();
  int64_t T = sh.numBatchTiles();
  Value batchF = k.f32(static_cast<float>(N));
  // The tile's rows of the batch: the sum of cos 0 over them.
  Value rowCount = T == 1
                       ? batchF
                       : arith::UIToFPOp::create(
                             k.b, k.b.getF32Type(),
                             toI32(k, k.min(k.idx(BM), k.sub(k.idx(N), t.n0))));
  auto store = [&](Value q, Value p, Value tc, Value ts) {
    if (T == 1) {
      k.store(k.divf(tc, batchF), t.ecf, {q});
      k.store(k.divf(ts, batchF), t.ecf, {k.add(q, k.idx(BS * P))});
      return;
    }
    Value j = k.div(q, k.idx(P));
    Value s = k.add(t.s0, j);
    k.ifThen(k.lt(s, k.idx(S)), [&] {
      k.store(tc, partC, {t.batchTile, t.v, s, p});
      k.store(ts, partS, {t.batchTile, t.v, s, p});
    });
  };
  int64_t threads = sh.threads();
  if (sh.warps != 4 || BS * P <= threads || BS * (P - 1) > threads) {
    k.forEach(t.tid, k.idx(BS * P), k.idx(threads), [&](Value q) {
      Value p = k.rem(q, k.idx(P));
      Value first =
          arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, p, k.idx(0));
      // p = 0 has no warp sums in gs: its loads read p = 1's (written), and
      // the row count and 0 replace the results.
      auto [tc, ts] = addWarpSums(t, k.select(first, k.add(q, k.idx(1)), q));
      Value c = k.select(first, rowCount, tc);
      Value sn = k.select(first, zero, ts);
      store(q, p, c, sn);
    });
    return;
  }
  k.ifThen(k.lt(t.tid, k.idx(BS * (P - 1))), [&] {
    Value p = k.add(k.rem(t.tid, k.idx(P - 1)), k.idx(1));
    Value q = k.add(k.mul(k.div(t.tid, k.idx(P - 1)), k.idx(P)), p);
    auto [tc, ts] = addWarpSums(t, q);
    store(q, p, tc, ts);
  });
  k.ifThen(k.lt(t.tid, k.idx(BS)),
           [&] { store(k.mul(t.tid, k.idx(P)), k.idx(0), rowCount, zero); });
}

/// Stage 5: the block's sums over its rows of cos/sin(t_p y) per (slice,
/// point): to t.ecf as means ([cos | sin][j][p]) with one batch tile, else
/// to the per-tile workspaces. p = 0 is not summed: cos 0 = 1 and sin 0 = 0,
/// so its sums are the tile's row count and 0 (the values the sums of ones
/// and zeros give, exact in f32).
void emitTileEcf(Tile &t, Value partC, Value partS) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, P = sh.numPoints;
  int64_t N = sh.batch;
  int64_t RT = sh.ecfRowsPerThread();
  int64_t ET = sh.ecfThreads();
  // The threads of the stage (ecfThreads): the others go to the barrier.
  t.ecfOnly([&] {
    Value r = k.div(t.tid, k.idx(BS));
    Value dt = k.f32(static_cast<float>(sh.tMax / static_cast<double>(P - 1)));
    Value zero = k.f32(0.0f);
    // sums[p - 1] (cos) and sums[P - 1 + p - 1] (sin), p = 1..P-1.
    SmallVector<Value> sums(2 * (P - 1), zero);
    // Every element is a row of the batch when the tile divides N and the
    // threads divide the tile: no masks.
    bool allValid = N % BM == 0 && (BM * BS) % ET == 0;
    // 16-bit inputs with every element valid and an even count: elements i
    // and i + 1 (one slice) together (addElementPairs).
    bool paired = !sh.inputElement.isF32() && allValid && RT % 2 == 0;
    // The halving butterfly (addXorHalving) on the tensor-core GEMM's
    // kernels, where it was measured with single-launch-minctasm's rule; the
    // SIMT kernels keep the full butterfly (the halving moved their loop's x
    // loads later and was never timed there: docs/PERF-NOTES.md, thirtieth
    // session). At its first offset (BS) the lanes whose bit BS is set keep
    // the sines: they list them first (the recurrences start from each
    // other's values), so every lane keeps the first half and sends the
    // second, with no select per sum.
    bool halving = t.sh.tensorCores && !sh.inputElement.isF32() &&
                   32 % BS == 0 && sums.size() % (32 / BS) == 0;
    Value lane = halving ? k.rem(t.tid, k.idx(32)) : Value();
    Value sinesFirst =
        halving ? laneBit(k, lane, static_cast<int32_t>(BS)) : Value();
    if (paired)
      addElementPairs(t, sums, sinesFirst);
    for (int64_t i = 0; i < RT && !paired; ++i) {
      Value e = k.add(t.tid, k.idx(i * ET));
      Value row = k.add(r, k.idx(i * ET / BS));
      Value valid = allValid ? Value()
                             : k.land(k.lt(e, k.idx(BM * BS)),
                                      k.lt(k.add(t.n0, row), k.idx(N)));
      Value y = k.load(t.ys, {allValid ? e : k.min(e, k.idx(BM * BS - 1))});
      Value theta = k.mulf(y, dt);
      auto add = [&](int64_t p, Value c, Value sn) {
        Value vc = valid ? k.select(valid, c, zero) : c;
        Value vs = valid ? k.select(valid, sn, zero) : sn;
        sums[p - 1] = i == 0 ? vc : k.addf(sums[p - 1], vc);
        sums[P - 1 + p - 1] = i == 0 ? vs : k.addf(sums[P - 1 + p - 1], vs);
      };
      // 16-bit inputs: sin.approx / cos.approx after a Cody-Waite reduction
      // and the Chebyshev recurrence (the Hopper kernels' harmonics); f32
      // inputs: libdevice's sinf / cosf and angle addition.
      if (!sh.inputElement.isF32()) {
        forEachHarmonic(k, P, theta, add, /*inRange=*/false, sinesFirst);
        continue;
      }
      Value c1 = math::CosOp::create(k.b, theta);
      Value s1 = math::SinOp::create(k.b, theta);
      Value c = c1, sn = s1;
      for (int64_t p = 1; p < P; ++p) {
        add(p, c, sn);
        if (p + 1 < P) {
          Value nc = k.subf(k.mulf(c, c1), k.mulf(sn, s1));
          sn = k.addf(k.mulf(sn, c1), k.mulf(c, s1));
          c = nc;
        }
      }
    }
    // Rows of a warp: lanes j, j + BS, ... (butterfly, same order every run).
    SmallVector<int32_t> offsets;
    for (int64_t off = BS; off < 32; off *= 2)
      offsets.push_back(static_cast<int32_t>(off));
    // gs: [warp][cos | sin][j][p], p = 0 left out; `kept` holds the sums
    // part * R .. part * R + R - 1 of the list of slice j.
    auto store = [&](ArrayRef<Value> kept, Value part, Value warp, Value j) {
      int64_t R = static_cast<int64_t>(kept.size());
      Value base = k.mul(k.add(k.mul(warp, k.idx(2 * BS)), j), k.idx(P));
      for (int64_t r = 0; r < R; ++r) {
        Value q = k.add(k.mul(part, k.idx(R)), k.idx(r));
        Value cs = k.div(q, k.idx(P - 1));
        Value at = k.add(k.mul(cs, k.idx(BS * P)),
                         k.add(k.rem(q, k.idx(P - 1)), k.idx(1)));
        k.store(kept[r], t.gs, {k.add(base, at)});
      }
    };
    if (halving) {
      // Lane j + BS c keeps part c of the list, the same sums (same bits)
      // in 32 / BS lanes instead of one.
      Value warp = k.div(t.tid, k.idx(32));
      size_t half = sums.size() / 2;
      SmallVector<Value> kept =
          addXorSent(k, ArrayRef(sums).take_front(half),
                     ArrayRef(sums).drop_front(half), offsets.front());
      kept = addXorHalving(k, lane, kept, ArrayRef(offsets).drop_front());
      Value part = halvedPart(k, lane, offsets);
      store(kept, part, warp, k.rem(lane, k.idx(BS)));
      return;
    }
    for (int32_t off : offsets)
      for (Value &v : sums)
        v = addXorShuffled(k, v, off);
    lane = k.rem(t.tid, k.idx(32));
    Value warp = k.div(t.tid, k.idx(32));
    k.ifThen(k.lt(lane, k.idx(BS)), [&] { store(sums, k.idx(0), warp, lane); });
  });
  gatherWarpSums(t, partC, partS);
}

/// What both accumulator ECF forms (emitTransposedFragmentEcf,
/// emitFragmentEcf) start from: the thread's lane and warp, the warp's first
/// row in the tile, the harmonics' half step and step, and whether every row
/// of the warps' fragments is a row of the batch (no masks).
struct FragmentEcfFrame {
  Value lane, warp, rowBase, halfDt, dt;
  bool allValid;

  FragmentEcfFrame(Tile &tile, const MmaLanes &l) {
    KernelBuilder &k = tile.k;
    const SingleLaunchShape &sh = tile.sh;
    double step = sh.tMax / static_cast<double>(sh.numPoints - 1);
    lane = k.rem(tile.tid, k.idx(32));
    warp = k.div(tile.tid, k.idx(32));
    allValid = sh.mmaRowsInBatch();
    rowBase = k.mul(k.mul(l.wm, k.idx(sh.mmaRowFragments())), k.idx(16));
    halfDt = k.f32(static_cast<float>(0.5 * step));
    dt = k.f32(static_cast<float>(step));
  }

  /// Whether the warp's row `row` (from rowBase) is in the tile and the
  /// batch.
  Value rowValid(Tile &tile, Value row) const {
    KernelBuilder &k = tile.k;
    Value r = k.add(rowBase, row);
    return k.land(k.lt(r, k.idx(tile.sh.blockRows)),
                  k.lt(k.add(tile.n0, r), k.idx(tile.sh.batch)));
  }
};

/// Stages 3-5 from emitTransposedMmaStep's accumulators: the lane's
/// elements are all of slice q (rows 8 f + 2 t, 8 f + 2 t + 1 of the warp's
/// for its 2 MT fragments), so its sum of g^2 added over the four lanes t
/// is that slice's norm, its 2 (P - 1) sums over its 4 MT rows are formed
/// as in emitFragmentEcf (pairs c0, c1 by forEachHarmonicPair where no row
/// is masked), and the four lanes of the slice add them by a halving
/// butterfly at offsets 2 (the lanes whose bit 2 is set list their sines
/// first, addXorSent: no selects) and 1: 24 shuffles for P = 17, where
/// emitFragmentEcf's two columns per lane take 56. The lane keeps the sums
/// (P - 1) / 2 r .. (P - 1) / 2 (r + 1) - 1 (r its bits 2, 1) of [cos p =
/// 1..P-1 | sin p = 1..P-1] and stores them to gs as emitFragmentEcf does.
void emitTransposedFragmentEcf(Tile &tile, const MmaLanes &l,
                               ArrayRef<Value> acc) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t F = 2 * sh.mmaRowFragments(), P = sh.numPoints;
  assert(sh.transposesFragments() && (P - 1) % 2 == 0 &&
         "transposed ECF applies");
  FragmentEcfFrame fr(tile, l);
  Value lane = fr.lane;
  Value sumSq = acc.back();
  for (int32_t off : {1, 2})
    sumSq = addXorShuffled(k, sumSq, off);
  Value inverse = k.divf(k.f32(1.0f), math::SqrtOp::create(k.b, sumSq));
  Value sinesFirst = laneBit(k, lane, 2);
  SmallVector<Value> ys, valid;
  for (int64_t f = 0; f < F; ++f)
    for (int64_t c = 0; c < 2; ++c) {
      ys.push_back(k.mulf(acc[4 * f + c], inverse));
      if (!fr.allValid)
        valid.push_back(
            fr.rowValid(tile, k.add(k.idx(8 * f + c), k.mul(l.t, k.idx(2)))));
    }
  SmallVector<Value> sum =
      laneHarmonicSums(k, P, ys, valid, fr.halfDt, fr.dt, sinesFirst);
  size_t half = sum.size() / 2;
  SmallVector<Value> kept = addXorSent(k, ArrayRef(sum).take_front(half),
                                       ArrayRef(sum).drop_front(half), 2);
  kept = addXorHalving(k, lane, kept, {1});
  Value part = halvedPart(k, lane, {2, 1});
  storeLaneSums(tile, kept, part, fr.warp, l.q);
}

/// Stages 3-5 from the registers (ecfFromFragments: one k group, so each
/// warp's accumulators are whole sums): the warp's elements are its
/// mma.sync accumulators, element c of fragment (i, n) being row 16 (wm MT +
/// i) + q + 8 (c / 2) and column 8 n + 2 t + c % 2 of the tile. Per column
/// the thread forms y = acc x 1 / ||g_s|| (the norm's sum of g^2 from lane
/// 4 (2 t + c % 2) after the butterfly over t, as reduceMmaPartials forms
/// it), the sums over its 2 MT rows of cos/sin(t_p y), p = 1..P-1 (rows q
/// and q + 8 of a fragment as a pair, addElementPairs' identity, where no
/// row is masked), then the 8 lanes of a column (same t) add those
/// 2 (P - 1) sums by a halving butterfly. At offset 16 the lane gives up a
/// whole column: the lanes whose bit 16 is set form their two columns'
/// sums in swapped roles (the kept column 2 t + b, b that bit, the sent one
/// 2 t + 1 - b; selects on the accumulators, not on the sums), so each
/// sends all of one column and adds what it gets to the other, with no
/// select per sum. At offset 8 likewise the second half of the list: the
/// lanes whose bit 8 is set list their sines first (forEachHarmonicPair's
/// recurrences start from each other's values there). At offset 4 each
/// lane sends the half it gives up (picked by selects) and adds the other
/// lane's to the half it keeps, so the lane ends with the sums (P - 1) / 2
/// r .. (P - 1) / 2 (r + 1) - 1 (r its bits 8, 4) of [cos p = 1..P-1 | sin
/// p = 1..P-1] of column 2 t + b: 56 shuffles and 16 selects on the sums
/// for P = 17 where halving each column took 56 and 112, a full butterfly
/// 192 shuffles; the same additions in the same order, so the same bits.
/// They go to gs as emitTileEcf leaves them
/// ([warp][cos | sin][j][p]; warps past the tile's rows store zeros), for
/// gatherWarpSums. Neither the partials nor the y tile pass through shared
/// memory, and stages 3 and 4's two barriers are gone.
void emitFragmentEcf(Tile &tile, const MmaLanes &l, ArrayRef<Value> acc) {
  KernelBuilder &k = tile.k;
  const SingleLaunchShape &sh = tile.sh;
  int64_t MT = sh.mmaRowFragments(), NT = sh.blockSlices / 8;
  int64_t P = sh.numPoints;
  assert(sh.ecfFromFragments() && (P - 1) % 4 == 0 &&
         "emitFragmentEcf applies");
  FragmentEcfFrame fr(tile, l);
  Value lane = fr.lane;
  // The column norms' sums of g^2: column 8 n + q after the lanes t.
  SmallVector<Value> sumSq(acc.begin() + MT * NT * 4, acc.end());
  for (Value &v : sumSq)
    for (int32_t off : {1, 2})
      v = addXorShuffled(k, v, off);
  // Bit 16 of the lane: the lane's kept column of a pair is 2 t + b. Bit 8:
  // the lane keeps the sines at offset 8, and lists them first.
  Value b = k.rem(k.div(lane, k.idx(16)), k.idx(2));
  Value swapped = laneBit(k, lane, 16), sinesFirst = laneBit(k, lane, 8);
  // The two columns of a column fragment n together: their harmonics first
  // (four independent recurrences per thread for minimal's 2 MT = 4 rows),
  // then the butterfly.
  for (int64_t n = 0; n < NT; ++n) {
    // sums[0]: column 2 t + b (kept), sums[1]: column 2 t + 1 - b (sent).
    std::array<SmallVector<Value>, 2> sums;
    for (int64_t e = 0; e < 2; ++e) {
      // The column of role e: 2 t + (e xor b); its accumulator element.
      Value column =
          k.add(k.mul(l.t, k.idx(2)), e == 0 ? b : k.sub(k.idx(1), b));
      Value from = toI32(k, k.mul(column, k.idx(4)));
      Value sq = gpu::ShuffleOp::create(
                     k.b, sumSq[n], from,
                     arith::ConstantOp::create(k.b, k.b.getI32IntegerAttr(32)),
                     gpu::ShuffleMode::IDX)
                     .getShuffleResult();
      Value inverse = k.divf(k.f32(1.0f), math::SqrtOp::create(k.b, sq));
      // The column's elements (i, h): row 16 i + 8 h + q of the warp's.
      SmallVector<Value> ys, valid;
      for (int64_t i = 0; i < MT; ++i)
        for (int64_t h = 0; h < 2; ++h) {
          Value own = acc[(i * NT + n) * 4 + 2 * h + e];
          Value other = acc[(i * NT + n) * 4 + 2 * h + 1 - e];
          ys.push_back(k.mulf(k.select(swapped, other, own), inverse));
          if (!fr.allValid)
            valid.push_back(
                fr.rowValid(tile, k.add(k.idx(16 * i + 8 * h), l.q)));
        }
      // sums[e][p - 1] (cos) and sums[e][P - 1 + p - 1] (sin), p = 1..P-1;
      // sin first, then cos, where bit 8 is set (sinesFirst).
      sums[e] = laneHarmonicSums(k, P, ys, valid, fr.halfDt, fr.dt, sinesFirst);
    }
    // Offset 16: the sent column to the lane 16 away, whose kept column it
    // is. Offset 8: every lane keeps the first half of its list (the sines
    // where bit 8 is set) and sends the second, the other lane's kept half.
    // Then the halving butterfly over bit 4 (part r of the list: bits 8, 4).
    SmallVector<Value> kept = addXorSent(k, sums[0], sums[1], 16);
    size_t half = kept.size() / 2;
    SmallVector<Value> quarter = addXorSent(k, ArrayRef(kept).take_front(half),
                                            ArrayRef(kept).drop_front(half), 8);
    SmallVector<Value> sum = addXorHalving(k, lane, quarter, {4});
    Value part = halvedPart(k, lane, {8, 4});
    storeLaneSums(tile, sum, part, fr.warp,
                  k.add(k.idx(8 * n), k.add(k.mul(l.t, k.idx(2)), b)));
  }
}

/// Stage 6 (several batch tiles, last block of the column): t.ecf = the
/// per-tile sums added in ascending tile order, divided by N.
void gatherBatchTiles(Tile &t, Value partC, Value partS) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints, S = sh.numSlices;
  Value batchF = k.f32(static_cast<float>(sh.batch));
  k.forEach(t.tid, k.idx(BS * P), k.idx(t.sh.threads()), [&](Value q) {
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

/// The statistic from its sum over points: scaled by the global count, then
/// clipped, as buildEpilogueKernel does.
Value finishSliceStatistic(Tile &t, Value dot) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  Value stat = k.mulf(dot, k.f32(static_cast<float>(sh.globalCount)));
  Value clipV = k.f32(static_cast<float>(sh.clipValue));
  if (sh.clip == ClipMode::clamp_min)
    stat = arith::MaximumFOp::create(k.b, stat, clipV);
  else if (sh.clip == ClipMode::zero_below)
    stat = k.select(
        arith::CmpFOp::create(k.b, arith::CmpFPredicate::OLT, stat, clipV),
        k.f32(0.0f), stat);
  return stat;
}

/// Lanes of warp 0 per column in emitPackedLossSum: the largest power of
/// two L <= 8 with L BS <= 32.
int64_t statisticLanes(int64_t blockSlices) {
  int64_t lanes = 1;
  while (lanes < 8 && 2 * lanes * blockSlices <= 32)
    lanes *= 2;
  return lanes;
}

/// Lane g's share (g < L) of column j's sum over points, w_p ((c_p -
/// phi_p)^2 + s_p^2) from the ECF means (t.ecf): the points p = g, g + L,
/// g + 2 L, ... below P, in ascending p (phi_p and w_p chosen by g; w = 0
/// past P). With L = 1 the whole sum in ascending p.
Value computeSliceDotShare(Tile &t, Value j, Value g, int64_t L) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints;
  IntegrationGrid grid = computeIntegrationGrid(P, sh.tMax);
  auto constantAt = [&](const std::vector<double> &table, int64_t i) {
    auto at = [&](int64_t r) {
      int64_t p = r + L * i;
      return k.f32(p < P ? static_cast<float>(table[p]) : 0.0f);
    };
    Value v = at(L - 1);
    for (int64_t r = L - 2; r >= 0; --r)
      v = k.select(k.lt(g, k.idx(r + 1)), at(r), v);
    return v;
  };
  Value dot = k.f32(0.0f);
  Value base = k.mul(j, k.idx(P));
  for (int64_t i = 0; i * L < P; ++i) {
    Value p = k.min(k.add(g, k.idx(L * i)), k.idx(P - 1));
    Value c = k.load(t.ecf, {k.add(base, p)});
    Value sn = k.load(t.ecf, {k.add(base, k.add(p, k.idx(BS * P)))});
    Value d = k.subf(c, constantAt(grid.phi, i));
    Value err = k.addf(k.mulf(d, d), k.mulf(sn, sn));
    dot = k.addf(dot, k.mulf(err, constantAt(grid.w, i)));
  }
  return dot;
}

/// T[v, s0 + j] of the block's column j < BS (s0 + j < S) from the ECF
/// means, as buildEpilogueKernel computes it (same operations, same order).
Value computeSliceStatistic(Tile &t, Value j) {
  return finishSliceStatistic(t,
                              computeSliceDotShare(t, j, t.k.idx(0), /*L=*/1));
}

/// Stage 7: T[v, s0 + j] (computeSliceStatistic) to `out` [V, S] (reduction
/// none) or to the statistics workspace [V * S] (mean/sum without
/// lossSumLayout).
void emitTileStatistic(Tile &t, Value out, Value stats) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, S = sh.numSlices;
  k.barrier();
  Value s = k.add(t.s0, t.tid);
  k.ifThen(k.land(k.lt(t.tid, k.idx(BS)), k.lt(s, k.idx(S))), [&] {
    Value stat = computeSliceStatistic(t, t.tid);
    if (sh.reduction == Reduction::none)
      k.store(stat, out, {t.v, s});
    else
      k.store(stat, stats, {k.add(k.mul(t.v, k.idx(S)), s)});
  });
}

/// Stages 7 and 8 for mean/sum with lossSumLayout: warp 0 forms the block's
/// statistics, L = statisticLanes(BS) lanes per column (lane = j L + g; each
/// adds its share of the points, computeSliceDotShare, then the L lanes add
/// theirs by an xor butterfly: a chain of P / L terms instead of P), and
/// adds the columns' statistics by an xor butterfly over the lanes g = 0
/// (offsets 16 .. L); thread 0 adds that block sum, in fixed point, with one to
/// the arrival count, to the 64-bit word `acc` (one relaxed atom.add). Integer
/// addition does not depend on the order in which the blocks arrive, so the
/// sum is the same bits every run, and the block that brings the count to
/// numLossArrivals has the whole sum in the word its atomic returned: no
/// fence and no other memory to read. It writes the loss (NaN if a block's
/// sum was not finite: the poison count) and resets the word to 0.
void emitPackedLossSum(Tile &t, Value acc, Value out) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, S = sh.numSlices;
  k.barrier();
  k.ifThen(k.lt(t.tid, k.idx(32)), [&] {
    int64_t L = statisticLanes(BS);
    Value j = k.div(t.tid, k.idx(L)), g = k.rem(t.tid, k.idx(L));
    Value s = k.add(t.s0, j);
    Value valid = k.land(k.lt(j, k.idx(BS)), k.lt(s, k.idx(S)));
    Value dot = computeSliceDotShare(t, k.min(j, k.idx(BS - 1)), g, L);
    for (int64_t off = L / 2; off >= 1; off /= 2)
      dot = addXorShuffled(k, dot, static_cast<int32_t>(off));
    Value sum = k.select(valid, finishSliceStatistic(t, dot), k.f32(0.0f));
    for (int64_t off = 16; off >= L; off /= 2)
      sum = addXorShuffled(k, sum, static_cast<int32_t>(off));
    k.ifThen(k.lt(t.tid, k.idx(1)), [&] {
      emitPackedLossAdd(k, *sh.lossSumLayout(), sum, acc, out,
                        sh.numLossArrivals(), sh.reduction, sh.numViews * S,
                        [&] { advanceStep(t); });
    });
  });
}

/// table[index] for an index (index type) below table.size(): selects on
/// the index's bits, least significant first, so bit_width(size - 1)
/// selects deep.
Value selectByIndex(KernelBuilder &k, ArrayRef<double> table, Value index) {
  SmallVector<Value> level;
  for (double v : table)
    level.push_back(k.f32(static_cast<float>(v)));
  Value i = toI32(k, index);
  Type i32 = k.b.getI32Type();
  auto c32 = [&](int32_t v) {
    return arith::ConstantOp::create(k.b, k.b.getIntegerAttr(i32, v));
  };
  for (int32_t bit = 0; level.size() > 1; ++bit) {
    Value set = arith::CmpIOp::create(
        k.b, arith::CmpIPredicate::ne,
        arith::AndIOp::create(k.b, i, c32(1 << bit)), c32(0));
    SmallVector<Value> next;
    for (size_t e = 0; e < level.size(); e += 2)
      next.push_back(e + 1 < level.size()
                         ? k.select(set, level[e + 1], level[e])
                         : level[e]);
    level = std::move(next);
  }
  return level.front();
}

/// The sum over the warp's 32 lanes (all taking part) of `value`, an i64
/// below 2^bits: redux.sync.add of its 26-bit parts (32 of them stay below
/// 2^31), put back together in 64 bits. Exact, so the same bits whatever
/// the order.
Value addWarpFixed(KernelBuilder &k, Value value, int64_t bits) {
  constexpr int64_t kPart = 26;
  Type i32 = k.b.getI32Type(), i64 = k.b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantOp::create(k.b, k.b.getI64IntegerAttr(v));
  };
  Value all = arith::ConstantOp::create(k.b, k.b.getIntegerAttr(i32, -1));
  Value sum;
  for (int64_t low = 0; low < bits; low += kPart) {
    Value part = arith::TruncIOp::create(
        k.b, i32,
        arith::AndIOp::create(k.b, arith::ShRUIOp::create(k.b, value, c64(low)),
                              c64((int64_t(1) << kPart) - 1)));
    Value partSum =
        NVVM::ReduxOp::create(k.b, i32, part, NVVM::ReduxKind::ADD, all);
    Value wide = arith::ShLIOp::create(
        k.b, arith::ExtUIOp::create(k.b, i64, partSum), c64(low));
    sum = sum ? arith::AddIOp::create(k.b, sum, wide).getResult() : wide;
  }
  return sum;
}

/// Stages 5-8 with termSums (termSumWarps): thread j (P - 1) + p - 1 <
/// BS (P - 1) of warps 0 .. W - 1 gathers entry (j, p)'s warp sums
/// (addWarpSums; p >= 1: with the whole batch in the block, p = 0's term is
/// exactly 0, cos 0 = 1 = phi_0 and sin 0 = 0), forms its
/// term w_p ((c_p - phi_p)^2 + s_p^2) globalCount of column j's statistic
/// (the same operations as computeSliceDotShare and finishSliceStatistic,
/// phi_p and w_p selected by the bits of p - 1) in the loss word's fixed point
/// (toPackedContribution; 0 past the block's entries or S), and the warp
/// adds its lanes' terms exactly (addWarpFixed). A warp sum past the sum
/// field (some lane's poison) keeps one poison count. Then lane 0 of each
/// warp: termSums = 2, adds it to the loss word as one arrival
/// (emitPackedWordAdd); termSums = 1, stores it to its slot in shared
/// memory, warps 1 .. W - 1 arrive at named barrier 1 (bar.arrive: they do
/// not wait) and warp 0 syncs on it, then adds the slots (one poison count
/// if any) to the loss word. Integer sums: the loss is the same bits every
/// run. Each term is rounded to the word's resolution, so the sum carries
/// V S (P - 1) roundings of at most 2^-(fractionBits + 1) where
/// emitPackedLossSum's carries one per block.
void emitTermLossSum(Tile &t, Value acc, Value out) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, P = sh.numPoints, S = sh.numSlices;
  int64_t entries = BS * (P - 1), W = sh.termSumWarps();
  LossSumLayout layout = *sh.lossSumLayout();
  int64_t F = layout.sumBits;
  auto c64 = [&](uint64_t v) {
    return arith::ConstantOp::create(
        k.b, k.b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  k.barrier();
  IntegrationGrid grid = computeIntegrationGrid(P, sh.tMax);
  Value batchF = k.f32(static_cast<float>(sh.batch));
  // The word's sum field, and one poison count if anything lies above it.
  auto keepOnePoison = [&](Value word) {
    Value poisoned = arith::CmpIOp::create(
        k.b, arith::CmpIPredicate::ne,
        arith::ShRUIOp::create(k.b, word, c64(F)), c64(0));
    return arith::OrIOp::create(
        k.b, arith::AndIOp::create(k.b, word, c64((uint64_t(1) << F) - 1)),
        arith::SelectOp::create(k.b, poisoned, c64(uint64_t(1) << F), c64(0)));
  };
  auto addToLoss = [&](Value contribution) {
    emitPackedWordAdd(k, layout, contribution, acc, out, sh.numLossArrivals(),
                      sh.reduction, sh.numViews * S, [&] {
                        if (t.step)
                          emitStepAdvance(k, t.step, t.seed);
                      });
  };
  k.ifThen(k.lt(t.tid, k.idx(W * 32)), [&] {
    // Entry (j, p = i + 1) of thread j (P - 1) + i.
    Value e = k.min(t.tid, k.idx(entries - 1));
    Value i = k.rem(e, k.idx(P - 1)), j = k.div(e, k.idx(P - 1));
    auto [tc, ts] =
        addWarpSums(t, k.add(k.mul(j, k.idx(P)), k.add(i, k.idx(1))));
    Value c = k.divf(tc, batchF), sn = k.divf(ts, batchF);
    ArrayRef<double> phi(grid.phi), weights(grid.w);
    Value d = k.subf(c, selectByIndex(k, phi.drop_front(), i));
    Value err = k.addf(k.mulf(d, d), k.mulf(sn, sn));
    Value term = k.mulf(k.mulf(err, selectByIndex(k, weights.drop_front(), i)),
                        k.f32(static_cast<float>(sh.globalCount)));
    Value valid =
        k.land(k.lt(t.tid, k.idx(entries)), k.lt(k.add(t.s0, j), k.idx(S)));
    Value fixed = arith::SelectOp::create(
        k.b, valid, toPackedContribution(k, layout, term), c64(0));
    // Each lane's addend is at most 2^F (one poison count), so the warp's
    // sum stays below 2^(F + 6) (termSumWarps: F <= 58).
    Value warpSum = keepOnePoison(addWarpFixed(k, fixed, F + 1));
    Value lane0 = k.lt(k.rem(t.tid, k.idx(32)), k.idx(1));
    if (!t.warpSlots) {
      k.ifThen(lane0, [&] { addToLoss(warpSum); });
      return;
    }
    Value warp = k.div(t.tid, k.idx(32));
    k.ifThen(lane0, [&] { k.store(warpSum, t.warpSlots, {warp}); });
    Value barrierId = k.idx(1);
    k.ifThen(k.lt(k.idx(0), warp),
             [&] { namedBarrier(k, barrierId, W * 32, /*arriveOnly=*/true); });
    k.ifThen(k.lt(warp, k.idx(1)), [&] {
      namedBarrier(k, barrierId, W * 32);
      k.ifThen(lane0, [&] {
        Value total = c64(0);
        for (int64_t w = 0; w < W; ++w)
          total = arith::AddIOp::create(k.b, total,
                                        k.load(t.warpSlots, {k.idx(w)}));
        addToLoss(keepOnePoison(total));
      });
    });
  });
}

/// Stage 7b (a training step, one batch tile): the tile's means (t.ecf) to
/// cosOut, sinOut [V, S, P]; then, as sigreg_ecf_grad_slices computes it
/// from saved slices, each slice's cotangent from those means and the loss's
/// cotangent `lossGrad` (emitSliceCotangent: the statistic, its gate, the
/// reduction), and for each element of the y tile (thread = (row, slice) as
/// in emitTileEcf) G = dL/dy / ||g_s|| (emitGradValue), stored in the
/// input's type at [v N + n0 + row, s] of gradOut [V * N, S]: the backward
/// GEMM's operand.
void emitTileGradient(Tile &t, Value cosOut, Value sinOut, Value lossGrad,
                      Value gradOut) {
  KernelBuilder &k = t.k;
  const SingleLaunchShape &sh = t.sh;
  int64_t BS = sh.blockSlices, BM = sh.blockRows, P = sh.numPoints;
  int64_t N = sh.batch, S = sh.numSlices;
  k.forEach(t.tid, k.idx(BS * P), k.idx(t.sh.threads()), [&](Value q) {
    Value s = k.add(t.s0, k.div(q, k.idx(P))), p = k.rem(q, k.idx(P));
    k.ifThen(k.lt(s, k.idx(S)), [&] {
      k.store(k.load(t.ecf, {q}), cosOut, {t.v, s, p});
      k.store(k.load(t.ecf, {k.add(q, k.idx(BS * P))}), sinOut, {t.v, s, p});
    });
  });
  // The block's global stores are visible to its threads after the barrier.
  k.barrier();
  Value j = k.rem(t.tid, k.idx(BS)), r = k.div(t.tid, k.idx(BS));
  Value s = k.add(t.s0, j);
  Value sc = k.min(s, k.idx(S - 1));
  SliceCotangent c = emitSliceCotangent(k, *sh.stepCotangent, cosOut, sinOut,
                                        lossGrad, t.v, sc);
  Value dt = k.f32(static_cast<float>(sh.tMax / static_cast<double>(P - 1)));
  GradCoefficients coef = gradCoefficientsFrom(
      k, P, sh.tMax, N, k.divf(dt, t.norm), c.dcos, c.dsin);
  Value inSlices = k.lt(s, k.idx(S));
  Value row0 = k.add(k.mul(t.v, k.idx(N)), t.n0);
  int64_t ET = sh.ecfThreads();
  t.ecfOnly([&] {
    for (int64_t i = 0; i < sh.ecfRowsPerThread(); ++i) {
      Value e = k.add(t.tid, k.idx(i * ET));
      Value row = k.add(r, k.idx(i * ET / BS));
      Value y = k.load(t.ys, {k.min(e, k.idx(BM * BS - 1))});
      Value g = emitGradValue(k, P, k.mulf(y, dt), coef);
      Value valid = k.land(inSlices, k.land(k.lt(e, k.idx(BM * BS)),
                                            k.lt(k.add(t.n0, row), k.idx(N))));
      k.ifThen(valid, [&] {
        k.store(arith::TruncFOp::create(k.b, sh.inputElement, g), gradOut,
                {k.add(row0, row), s});
      });
    }
  });
}

/// Stage 8 (mean/sum, last block of the grid): thread-strided sums of the
/// V * S statistics, then the block's sum (emitBlockShuffleSum: shuffles
/// inside the warps, the warps in order; fixed, so bitwise reproducible,
/// though not the epilogue kernel's tree order).
void emitLastBlockReduction(Tile &t, Value stats, Value out) {
  KernelBuilder &k = t.k;
  int64_t VS = t.sh.numViews * t.sh.numSlices;
  SmallVector<Value> local =
      k.forEach(t.tid, k.idx(VS), k.idx(t.sh.threads()), {k.f32(0.0f)},
                [&](Value e, ValueRange acc) {
                  return SmallVector<Value>{k.addf(acc[0], k.load(stats, {e}))};
                });
  Value total = emitBlockShuffleSum(k, t.tid, local[0], t.gs,
                                    /*barrier=*/nullptr, t.sh.threads());
  k.ifThen(k.lt(t.tid, k.idx(1)), [&] {
    Value result = total;
    if (t.sh.reduction == Reduction::mean)
      result = k.divf(total, k.f32(static_cast<float>(VS)));
    k.store(result, out, {});
  });
}
} // namespace

std::optional<mlir::sigreg::LossSumLayout>
mlir::sigreg::SingleLaunchShape::lossSumLayout() const {
  return packedLossSumLayout(reduction, numLossArrivals(), numViews * numSlices,
                             numPoints, tMax, globalCount, clip, clipValue);
}

int64_t mlir::sigreg::SingleLaunchShape::gemmRowsPerThread() const {
  int64_t blocks = featureDim % 8 == 0 ? featureDim / 8 : featureDim;
  // The most rows (4 or 2) that leave every k part a block to multiply and
  // the partials within 16 per thread; else one.
  for (int64_t rg : {4, 2})
    if (blockRows % rg == 0 && rg * blockSlices <= 16 &&
        threads() / (blockRows / rg) <= blocks)
      return rg;
  return 1;
}

int64_t mlir::sigreg::SingleLaunchShape::ecfWarps() const {
  if (tensorCores && !ecfFromFragments() && warps > 8 &&
      blockRows * blockSlices <= 8 * 32)
    return 8;
  return warps;
}

int64_t mlir::sigreg::SingleLaunchShape::mmaWarpsK() const {
  // As many k groups as steps (up to the block's warps), fewer where the
  // row groups would hold more than 8 fragments each or the partials more
  // than 8192 floats.
  int64_t wk = std::min<int64_t>(
      warps,
      static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(mmaSteps()))));
  while (wk > 1 && (blockRows / 16 / (warps / wk) > 8 ||
                    wk * blockRows * blockSlices > 8192))
    wk /= 2;
  return wk;
}

bool mlir::sigreg::SingleLaunchShape::stagesX() const {
  return stagesXIf(narrowKLoop());
}

bool mlir::sigreg::SingleLaunchShape::stagesXIf(bool narrow) const {
  // By rule a forward stages only with 32 rows or more and D >= 2048, or D
  // >= 1024 where the slice tiles pair up into the rule's clusters
  // (stageCluster): in single blocks 16 rows or D = 1024 measured the same
  // or 0.1-0.2 us slower on the H200; in clusters of 2 N 32 and N 64 at D =
  // 1024 measured 0.15-0.3 us faster, 16 rows at D = 2048 0.5 us slower
  // (H100, docs/PERF-NOTES.md thirty-first session).
  bool forwardByRule = !stepCotangent && stageX == -1;
  int64_t minDim =
      numSliceTiles() % kSingleLaunchStageRuleCluster == 0 ? 1024 : 2048;
  if (forwardByRule && (featureDim < minDim || blockRows < 32))
    return false;
  if (stageX == 0 || prefetchX || !narrow || !staggersSteps() ||
      featureDim % 16 != 0)
    return false;
  int64_t blocks = numSliceTiles() * numBatchTiles() * numViews;
  return blocks <= kMultiprocessors &&
         blockRows * stageRowBytes() <= kSingleLaunchStageMaxBytes;
}

int64_t mlir::sigreg::SingleLaunchShape::stageSpan() const {
  int64_t groups = mmaSteps() / (mmaWarpsK() * mmaStepGroup());
  return groups % 2 == 0 ? 2 : 1;
}

int64_t mlir::sigreg::SingleLaunchShape::stageSpans() const {
  return mmaSteps() / (mmaWarpsK() * mmaStepGroup() * stageSpan());
}

int64_t mlir::sigreg::SingleLaunchShape::stageSpanFeatures() const {
  return 16 * mmaWarpsK() * mmaStepGroup() * stageSpan();
}

bool mlir::sigreg::SingleLaunchShape::stagesXByTma() const {
  if (!stageTmaIssue() || !stagesX() || inputElement.isF32() ||
      featureDim % 64 != 0 || blockRows % 8 != 0 || blockRows > 256)
    return false;
  return (mmaWarpsK() * mmaStepGroup()) % 4 == 0 &&
         (stageSpanFeatures() / 64) % stageCluster() == 0;
}

int64_t mlir::sigreg::SingleLaunchShape::stageTmaBoxes() const {
  return stageSpanFeatures() / 64 / stageCluster();
}

int64_t mlir::sigreg::SingleLaunchShape::stageCluster() const {
  int64_t cluster = stageX == -1 ? kSingleLaunchStageRuleCluster : stageX;
  if (cluster < 2 || !stagesX() || numSliceTiles() % cluster != 0)
    return 1;
  return cluster;
}

bool mlir::sigreg::SingleLaunchShape::stageLateWait() const {
  return !stepCotangent.has_value();
}

int64_t mlir::sigreg::SingleLaunchShape::stageTmaIssue() const {
  if (stageTma >= 0)
    return stageTma;
  return stageLateWait() && featureDim >= kSingleLaunchTmaRuleMinDim ? 1 : 0;
}

int64_t mlir::sigreg::SingleLaunchShape::genAheadGroups() const {
  if (genAhead == 0 || !stagesX() || (genAhead < 0 && !stageLateWait()))
    return 0;
  // stagesX walks staggered, so every warp has mmaSteps() / (WK U) groups.
  int64_t groups = mmaSteps() / (mmaWarpsK() * mmaStepGroup());
  int64_t ahead = genAhead > 0
                      ? genAhead
                      : std::min(groups - 2, kSingleLaunchGenAheadRuleMax);
  return ahead > 0 && ahead < groups ? ahead : 0;
}

int64_t mlir::sigreg::SingleLaunchShape::termSumWarps() const {
  int64_t entries = blockSlices * (numPoints - 1);
  if (termSums == 0 || entries < 1 || !ecfFromFragments() ||
      numBatchTiles() != 1 || clip != ClipMode::none ||
      reduction == Reduction::none || entries > threads())
    return 0;
  int64_t warps = (entries + 31) / 32;
  int64_t blocks = numViews * numSliceTiles();
  std::optional<LossSumLayout> layout = packedLossSumLayout(
      reduction, termSums == 2 ? blocks * warps : blocks, numViews * numSlices,
      numPoints, tMax, globalCount, clip, clipValue);
  // A warp's sum of 32 addends of up to 2^sumBits each stays in 64 bits.
  if (!layout || layout->sumBits > 58)
    return 0;
  return warps;
}

int64_t mlir::sigreg::SingleLaunchShape::stageRowBytes() const {
  return 2 * featureDim + 32;
}

int64_t
mlir::sigreg::singleLaunchDynamicSharedBytes(const SingleLaunchShape &sh) {
  if (sh.stagesXByTma())
    return sh.blockRows * sh.featureDim * 2;
  return sh.stagesX() ? sh.blockRows * sh.stageRowBytes() : 0;
}

bool mlir::sigreg::SingleLaunchShape::narrowKLoop() const {
  if (!tensorCores || !mmaRowsInBatch())
    return false;
  return !deviceStep || stagesXIf(true);
}

bool mlir::sigreg::SingleLaunchShape::staggersSteps() const {
  if (!staggerSteps || !tensorCores)
    return false;
  int64_t span = mmaWarpsK() * mmaStepGroup();
  return mmaSteps() % span == 0 && mmaSteps() / span > 1;
}

int64_t mlir::sigreg::SingleLaunchShape::mmaStepGroup() const {
  int64_t wk = mmaWarpsK(), steps = mmaSteps();
  if (steps % wk != 0)
    return 1;
  if (stepGroup > 0 && (steps / wk) % stepGroup == 0)
    return stepGroup;
  for (int64_t u : {4, 2})
    if ((steps / wk) % u == 0)
      return u;
  return 1;
}

int64_t mlir::sigreg::singleLaunchSharedFloats(const SingleLaunchShape &sh) {
  int64_t BS = sh.blockSlices;
  if (sh.tensorCores)
    return std::max({sh.mmaWarpsK() * sh.blockRows * BS, sh.threads(),
                     2 * sh.warps * BS * sh.numPoints});
  return std::max({projectionTileFloats(sh),
                   sh.threads() * sh.gemmRowsPerThread() * BS,
                   2 * sh.warps * BS * sh.numPoints});
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
  assert((!sh.deviceStep || sh.seeded) && "a device step seeds g");
  args.push_back(sh.deviceStep ? Type(MemRefType::get({}, b.getI64Type()))
                 : sh.seeded   ? Type(b.getI64Type())
                               : MemRefType::get({D, S}, sh.projectionElement));
  args.push_back(MemRefType::get({V, N, D}, sh.inputElement));
  args.push_back(none ? MemRefType::get({V, S}, f32)
                      : MemRefType::get({}, f32));
  args.push_back(MemRefType::get({sh.numCounters()}, i32));
  if (T > 1) {
    args.push_back(MemRefType::get({T, V, S, P}, f32));
    args.push_back(MemRefType::get({T, V, S, P}, f32));
  }
  std::optional<LossSumLayout> packed = sh.lossSumLayout();
  if (!none)
    args.push_back(packed ? MemRefType::get({1}, b.getI64Type())
                          : MemRefType::get({V * S}, f32));
  bool step = sh.stepCotangent.has_value();
  unsigned stepArgs = args.size();
  // The loss's cotangent, unless it is deferred (read as 1).
  bool lossGradArg = step && !sh.stepCotangent->unitCotangent;
  if (step) {
    args.append(2, MemRefType::get({V, S, P}, f32));
    if (lossGradArg)
      args.push_back(none ? MemRefType::get({V, S}, f32)
                          : MemRefType::get({}, f32));
    args.push_back(MemRefType::get({V * N, S}, sh.inputElement));
    args.push_back(MemRefType::get({D, S}, sh.inputElement));
  }
  // stagesXByTma: x's tensor map, last (a 128-byte grid constant).
  unsigned xMapArg = args.size();
  if (sh.stagesXByTma())
    args.push_back(LLVM::LLVMPointerType::get(b.getContext()));

  MLIRContext *ctx = b.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto wg = [&](int64_t n, Type e) -> Type {
    return MemRefType::get({n}, e, MemRefLayoutAttrInterface(), wgSpace);
  };
  int64_t C = (D + sh.chunkRows - 1) / sh.chunkRows;
  SmallVector<Type> workgroup = {
      wg(singleLaunchSharedFloats(sh), f32), wg(BM * BS, f32),
      wg(sh.tensorCores ? sh.mmaWarpsK() * BS : (C + 1) * BS, f32),
      wg(2 * BS * P, f32), wg(1, i32)};
  if (sh.termSums == 1 && sh.termSumWarps() > 1)
    workgroup.push_back(wg(sh.termSumWarps(), b.getI64Type()));
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
      b.getDenseI32ArrayAttr({static_cast<int32_t>(sh.threads()), 1, 1}));
  if (sh.minctasm > 0)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(static_cast<int32_t>(sh.minctasm)));
  // stageCluster: `.reqnctapercluster CL, 1, 1` along the slice tiles.
  if (int64_t cl = sh.stageCluster(); cl > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({static_cast<int32_t>(cl), 1, 1}));
  if (sh.stagesXByTma())
    func->setAttr(kGridConstantAttrName,
                  b.getDenseI64ArrayAttr({static_cast<int64_t>(xMapArg)}));
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
  if (attrs.size() > 5)
    t.warpSlots = attrs[5];
  t.tid = k.threadId(Dimension::x);
  t.sliceTile = k.blockId(Dimension::x);
  t.batchTile = k.blockId(Dimension::y);
  t.v = k.blockId(Dimension::z);
  t.s0 = k.mul(t.sliceTile, k.idx(BS));
  t.n0 = k.mul(t.batchTile, k.idx(BM));
  if (sh.stagesX()) {
    t.xStage = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wgSpace));
    t.xBars = nvgpu::MBarrierCreateOp::create(
        b, loc, nvgpu::MBarrierGroupType::get(ctx, wgSpace, sh.stageSpans()));
  }
  if (sh.stagesXByTma()) {
    t.xMap = UnrealizedConversionCastOp::create(
                 b, loc, swizzledBoxMap(ctx, {BM, 64}, sh.inputElement),
                 func.getArgument(xMapArg))
                 .getResult(0);
  }
  Value x = func.getArgument(1), out = func.getArgument(2),
        counters = func.getArgument(3);
  Value partC = T > 1 ? func.getArgument(4) : Value();
  Value partS = T > 1 ? func.getArgument(5) : Value();
  Value stats = none ? Value() : func.getArgument(stepArgs - 1);
  if (step)
    t.gOut = func.getArgument(stepArgs + (lossGradArg ? 4 : 3));
  // The seed, the projection, or the step counter's value (read once per
  // thread, before anything else).
  Value seedOrA = func.getArgument(0);
  if (sh.deviceStep) {
    seedOrA = k.load(seedOrA, {});
    if (sh.advancesStep()) {
      t.step = func.getArgument(0);
      t.seed = seedOrA;
    }
  }

  if (sh.prefetchTail)
    prefetchTailWords(t, counters, stats, bool(packed));

  if (sh.transposesFragments()) {
    MmaLanes l = mmaLanes(t);
    SmallVector<Value> acc = emitTransposedMmaStep(t, l, seedOrA, x);
    emitTransposedFragmentEcf(t, l, acc);
  } else if (sh.ecfFromFragments()) {
    MmaLanes l = mmaLanes(t);
    SmallVector<Value> acc = emitMmaSteps(t, l, seedOrA, x);
    emitFragmentEcf(t, l, acc);
  } else if (sh.tensorCores) {
    multiplyTileMma(t, seedOrA, x);
  } else {
    generateProjectionTile(t, seedOrA);
    k.barrier();
    if (sh.seeded)
      emitLocalColumnNorms(t); // ordered before its readers by stage 4's
                               // barriers
    SmallVector<Value> acc = multiplyTile(t, x);
    reduceKParts(t, acc);
  }
  if (sh.termSumWarps()) {
    emitTermLossSum(t, stats, out);
    return func;
  }
  if (sh.ecfFromFragments())
    gatherWarpSums(t, partC, partS);
  else
    emitTileEcf(t, partC, partS);

  auto finish = [&] {
    if (packed)
      emitPackedLossSum(t, stats, out);
    else
      emitTileStatistic(t, out, stats);
    if (step)
      emitTileGradient(t, func.getArgument(stepArgs),
                       func.getArgument(stepArgs + 1),
                       lossGradArg ? func.getArgument(stepArgs + 2) : Value(),
                       func.getArgument(stepArgs + (lossGradArg ? 3 : 2)));
    if (none || packed)
      return;
    Value last =
        arriveAtCounter(k, t.tid, t.flag, counters, k.idx(sh.numCounters() - 1),
                        V * sh.numSliceTiles());
    k.ifThen(last, [&] {
      emitLastBlockReduction(t, stats, out);
      advanceStep(t);
    });
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
