//===- SplitKernel.cpp - f32 operands split into bf16 hi + lo parts -------===//
//
// `sigreg_split_operand`: the Hopper kernel multiplies 16-bit operands; an
// f32 problem runs on it as bf16 hi + lo parts (wgmmaSplitsInput in
// EcfSchedule.h says why that meets the f32 tolerance). One thread takes
// four consecutive columns of the padded hi part:
//
//   in[r, c..c+3]  -> hi = bf16(v), lo = bf16(v - hi)
//   along columns: out[r, c + i] = hi, out[r, Cp + c + i] = lo
//   along rows:    out[r, c + i] = hi, out[Rp + r, c + i] = lo
//
// Elements past the input (the padding up to Cp or Rp) are stored as 0, so
// that the GEMM's k-tiles of one part never read the other's values.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sigreg;

MemRefType SplitOperandShape::outType(MLIRContext *ctx) const {
  Type bf16 = BFloat16Type::get(ctx);
  if (alongRows)
    return MemRefType::get({2 * paddedExtent, cols}, bf16);
  return MemRefType::get({rows, 2 * paddedExtent}, bf16);
}

int64_t SplitOperandShape::items() const {
  return alongRows ? paddedExtent * cols / 4 : rows * paddedExtent / 4;
}

namespace {
using gpu::Dimension;

/// Four consecutive f32 values of row `r` from column `c`, 0 past the
/// input: one 16-byte load when every row starts 16-byte aligned (C % 4 ==
/// 0, so four columns are all in or all out), else four guarded loads.
Value loadFour(KernelBuilder &k, Value in, int64_t R, int64_t C, Value r,
               Value c) {
  auto f32x4 = VectorType::get({4}, k.b.getF32Type());
  Value zero = arith::ConstantOp::create(k.b, f32x4,
                                         DenseElementsAttr::get(f32x4, 0.0f));
  Value rowOk = k.lt(r, k.idx(R));
  Value rClamped = k.min(r, k.idx(R - 1));
  if (C % 4 == 0) {
    Value ok = k.land(rowOk, k.lt(c, k.idx(C)));
    Value v = vector::LoadOp::create(
        k.b, f32x4, in, ValueRange{rClamped, k.min(c, k.idx(C - 4))},
        /*nontemporal=*/false, llvm::MaybeAlign(16));
    return k.select(ok, v, zero);
  }
  Value v = zero;
  for (int64_t i = 0; i < 4; ++i) {
    Value ci = k.add(c, k.idx(i));
    Value ok = k.land(rowOk, k.lt(ci, k.idx(C)));
    Value e = k.load(in, {rClamped, k.min(ci, k.idx(C - 1))});
    v = vector::InsertOp::create(k.b, k.select(ok, e, k.f32(0.0f)), v,
                                 ArrayRef<int64_t>{i});
  }
  return v;
}
} // namespace

gpu::GPUFuncOp
mlir::sigreg::buildSplitOperandKernel(OpBuilder &b, Location loc,
                                      const SplitOperandShape &shape) {
  int64_t R = shape.rows, C = shape.cols, P = shape.paddedExtent;
  MemRefType outType = shape.outType(b.getContext());
  Type bf16 = outType.getElementType();
  auto func = createKernel(b, loc, "sigreg_split_operand", "projection_gemm",
                           {f32Memref(b, {R, C}), outType}, {});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, b);
  Value in = func.getArgument(0), out = func.getArgument(1);
  // Item e: row e / (width / 4), columns 4 (e % (width / 4)) + [0, 4) of
  // the padded hi part [R, Cp] (columns) or [Rp, C] (rows).
  int64_t width = shape.alongRows ? C : P;
  Value e = k.add(k.mul(k.blockId(Dimension::x), k.idx(kBlockThreads)),
                  k.threadId(Dimension::x));
  k.ifThen(k.lt(e, k.idx(shape.items())), [&] {
    Value r = k.div(e, k.idx(width / 4));
    Value c = k.mul(k.rem(e, k.idx(width / 4)), k.idx(4));
    Value v = loadFour(k, in, R, C, r, c);
    auto bf16x4 = VectorType::get({4}, bf16);
    auto f32x4 = VectorType::get({4}, k.b.getF32Type());
    Value hi = arith::TruncFOp::create(k.b, bf16x4, v);
    Value lo = arith::TruncFOp::create(
        k.b, bf16x4, k.subf(v, arith::ExtFOp::create(k.b, f32x4, hi)));
    SmallVector<Value> loAt = shape.alongRows
                                  ? SmallVector<Value>{k.add(r, k.idx(P)), c}
                                  : SmallVector<Value>{r, k.add(c, k.idx(P))};
    vector::StoreOp::create(k.b, hi, out, ValueRange{r, c},
                            /*nontemporal=*/false, llvm::MaybeAlign(8));
    vector::StoreOp::create(k.b, lo, out, loAt, /*nontemporal=*/false,
                            llvm::MaybeAlign(8));
  });
  return func;
}
