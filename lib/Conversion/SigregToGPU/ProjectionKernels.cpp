//===- ProjectionKernels.cpp - the projection generator kernels ----------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"
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
} // namespace

#include <functional>

//===----------------------------------------------------------------------===//
// Projection: thread = one slice column s, block row = one chunk of D (a
// multiple of 4 rows).
//   grid (ceil(S / 256), ceil(D / chunk)), block 256.
//   g[d, s] for d in the chunk, four rows per Philox call
//   (buildProjectionGaussianGroup), sumSq[chunk, s] = sum g^2 in ascending d.
// Consecutive threads write consecutive s: stores are coalesced.
//===----------------------------------------------------------------------===//

namespace {
/// Philox calls (groups of four rows) per iteration of the generator loop:
/// their chains of dependent integer multiplies interleave instead of
/// running one after the other. Measured on the H200 (docs/PERF-NOTES.md,
/// p2): 2 groups took the kernel from 46-47 to 41-43 us at large and from
/// 24.2 to 22.2 us at V = 2, N = 512, D = 2048, S = 4096; 4 groups were no
/// faster and spilled (ptxas, D = 200).
constexpr int64_t kGroupsPerStep = 2;

} // namespace

/// kGroupsPerStep groups per iteration while whole steps fit below d1, then
/// one group per iteration.
Value mlir::sigreg::emitProjectionRows(
    KernelBuilder &k, Value seed, Value s, Value d0, Value d1, int64_t D,
    NormalMapping normals,
    const std::function<void(Value, ArrayRef<Value>)> &body) {
  Value sI32 = toI32(k, s);
  // Adds group `d`'s squares to `sum`; rows past D add 0 (exact), so the
  // sum is the ascending-d sum of the rows below D.
  auto addSquares = [&](Value d, ArrayRef<Value> g, Value sum) {
    for (int64_t i = 0; i < 4; ++i) {
      Value sq = k.mulf(g[i], g[i]);
      if (i > 0)
        sq = k.select(k.lt(k.add(d, k.idx(i)), k.idx(D)), sq, k.f32(0.0f));
      sum = k.addf(sum, sq);
    }
    return sum;
  };
  auto group = [&](Value d) {
    return buildProjectionGaussianGroup(k.b, seed, toI32(k, k.div(d, k.idx(4))),
                                        sI32, normals);
  };
  // `groups` Philox calls per iteration over [lb, ub) (a multiple of 4 *
  // groups rows), all of them before the rows' bodies, added to `sum`.
  auto rowLoop = [&](Value lb, Value ub, int64_t groups, Value sum) {
    return k.forEach(lb, ub, k.idx(4 * groups), {sum},
                     [&](Value d, ValueRange carried) {
                       SmallVector<Value> rows;
                       SmallVector<std::array<Value, 4>> gs;
                       for (int64_t j = 0; j < groups; ++j) {
                         rows.push_back(j == 0 ? d : k.add(d, k.idx(4 * j)));
                         gs.push_back(group(rows.back()));
                       }
                       Value acc = carried[0];
                       for (int64_t j = 0; j < groups; ++j) {
                         body(rows[j], gs[j]);
                         acc = addSquares(rows[j], gs[j], acc);
                       }
                       return SmallVector<Value>{acc};
                     })[0];
  };
  int64_t stepRows = 4 * kGroupsPerStep;
  // d0 + whole steps of stepRows rows that end at or below d1.
  Value stepsEnd =
      k.add(d0, k.mul(k.div(k.sub(d1, d0), k.idx(stepRows)), k.idx(stepRows)));
  Value sum = rowLoop(d0, stepsEnd, kGroupsPerStep, k.f32(0.0f));
  return rowLoop(stepsEnd, d1, 1, sum);
}

Value mlir::sigreg::emitProjectionColumnChunk(KernelBuilder &k, Value seed,
                                              Value s, Value d0, Value d1,
                                              int64_t D, NormalMapping normals,
                                              Value g, Type storeType,
                                              int64_t splitRows) {
  bool rounded = storeType && !storeType.isF32();
  return emitProjectionRows(
      k, seed, s, d0, d1, D, normals, [&](Value d, ArrayRef<Value> rows) {
        for (int64_t i = 0; i < 4; ++i) {
          Value gv = rows[i], di = k.add(d, k.idx(i));
          auto store = [&] {
            if (!rounded) {
              k.store(gv, g, {di, s});
              return;
            }
            Value hi = arith::TruncFOp::create(k.b, storeType, gv);
            k.store(hi, g, {di, s});
            if (splitRows) {
              Value rest =
                  k.subf(gv, arith::ExtFOp::create(k.b, k.b.getF32Type(), hi));
              k.store(arith::TruncFOp::create(k.b, storeType, rest), g,
                      {k.add(di, k.idx(splitRows)), s});
            }
          };
          // The group's first row is below D (d < d1 <= D).
          if (i == 0)
            store();
          else
            k.ifThen(k.lt(di, k.idx(D)), store);
        }
      });
}

void mlir::sigreg::readSeedFromStep(gpu::GPUFuncOp kernel, unsigned index) {
  MLIRContext *ctx = kernel.getContext();
  auto stepType = MemRefType::get({}, IntegerType::get(ctx, 64));
  SmallVector<Type> inputs(kernel.getFunctionType().getInputs());
  assert(inputs[index].isInteger(64) && "the seed argument is not an i64");
  inputs[index] = stepType;
  kernel.setFunctionType(FunctionType::get(ctx, inputs, {}));
  Block &entry = kernel.getBody().front();
  BlockArgument arg = entry.getArgument(index);
  arg.setType(stepType);
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto seed = memref::LoadOp::create(b, kernel.getLoc(), arg, ValueRange{});
  arg.replaceAllUsesExcept(seed.getResult(), seed);
}

gpu::GPUFuncOp mlir::sigreg::buildAdvanceStepKernel(OpBuilder &b,
                                                    Location loc) {
  auto i64 = b.getI64Type();
  auto func = createKernel(b, loc, "sigreg_advance_step", "advance_step",
                           {MemRefType::get({}, i64)}, {});
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({1, 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  emitStepAdvance(k, func.getArgument(0));
  return func;
}

gpu::GPUFuncOp
mlir::sigreg::buildProjectionKernel(OpBuilder &b, Location loc,
                                    const ProjectionKernelShape &shape,
                                    Type storeType, int64_t splitRows) {
  int64_t D = shape.featureDim, S = shape.numSlices;
  bool rounded = storeType && !storeType.isF32();
  assert((!splitRows || (rounded && splitRows >= D)) && "bad split layout");
  StringRef name = splitRows ? "sigreg_projection_split_rows"
                   : rounded ? "sigreg_projection_rows"
                             : "sigreg_projection";
  int64_t gRows = splitRows ? 2 * splitRows : D;
  auto func = createKernel(
      b, loc, name, "projection_generation",
      {b.getI64Type(),
       MemRefType::get({gRows, S}, rounded ? storeType : b.getF32Type()),
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
    Value sum = emitProjectionColumnChunk(k, seed, s, d0, d1, D, shape.normals,
                                          g, storeType, splitRows);
    k.store(sum, sumSq, {chunk, s});
    // Split layout: the last chunk's threads zero the padding rows of both
    // parts (rows [D, Dp) and [Dp + D, 2 Dp)).
    if (splitRows > D)
      k.ifThen(arith::CmpIOp::create(k.b, arith::CmpIPredicate::eq, chunk,
                                     k.idx(shape.numChunks() - 1)),
               [&] {
                 Value zero = arith::ConstantOp::create(
                     k.b, storeType, k.b.getFloatAttr(storeType, 0.0));
                 k.forEach(k.idx(D), k.idx(splitRows), k.idx(1), [&](Value d) {
                   k.store(zero, g, {d, s});
                   k.store(zero, g, {k.add(d, k.idx(splitRows)), s});
                 });
               });
  });
  // The Hopper kernel that reads the 16-bit g is launched as a programmatic
  // dependent (kProgrammaticLaunchAttrName): once every block's stores are
  // issued it may start; its griddepcontrol.wait still waits for them.
  if (rounded)
    NVVM::GriddepcontrolOp::create(k.b,
                                   NVVM::GridDepActionKind::launch_dependents);
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
        k, seed, s, d0, d1, D, shape.normals,
        [&](Value d, ArrayRef<Value> rows) {
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
