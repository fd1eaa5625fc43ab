//===- KernelUtils.h - helpers of the kernel builders ----------*- C++ -*-===//
//
// Small helpers shared by the kernel families of --convert-sigreg-to-gpu
// (ProjectionKernels.cpp, SimtEcfKernel.cpp, MmaEcfKernel.cpp,
// EpilogueKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H
#define SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace sigreg {

/// Creates an empty kernel `name` (region attribute `region`) with `args` and
/// workgroup buffers of f32 and i32 of the given sizes, ending in a return.
gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc, StringRef name,
                            StringRef region, TypeRange args,
                            ArrayRef<int64_t> workgroupF32Sizes,
                            ArrayRef<int64_t> workgroupI32Sizes = {});

/// memref<shape x f32>.
MemRefType f32Memref(OpBuilder &b, ArrayRef<int64_t> shape);

/// index -> i32 (unsigned cast).
Value toI32(KernelBuilder &k, Value index);

/// Packs two 16-bit floats (lo at the lower address) into an i32 word.
Value packPair(KernelBuilder &k, Value lo, Value hi);

/// Column norms of a seeded projection for the slices of a tile: thread
/// `tid < tileSlices` sums the per-chunk g^2 of slice s0 + tid in chunk order
/// and stores the square root in `norm[tid]`.
void emitColumnNorms(KernelBuilder &k, Value sumSq, Value norm, Value tid,
                     Value s0, int64_t tileSlices, int64_t normChunks,
                     Value lastS);

/// Adds the kBlockThreads values of the workgroup buffer `red` (thread
/// `tid` stored red[tid] before the call) in a fixed-order tree, barriers
/// included (`barrier`, else the block's); the sum ends in red[0].
void emitBlockTreeSum(KernelBuilder &k, Value tid, Value red,
                      function_ref<void()> barrier = nullptr);

/// Publishes this block's global writes and counts it at `counters[index]`
/// (i32, zero before the first launch); returns whether it is the
/// `expected`-th (the last) to arrive, uniform over the block (thread `tid`
/// 0 passes it through the workgroup i32 `flag[0]`). The last block resets
/// the counter to zero for the next launch and sees every other block's
/// writes. `barrier` synchronizes the threads taking part (the whole block
/// when null).
Value arriveAtCounter(KernelBuilder &k, Value tid, Value flag, Value counters,
                      Value index, int64_t expected,
                      function_ref<void()> barrier = nullptr);

/// An i32 word of two 16-bit values of type `elem` as an mma.sync operand
/// (bf16 operands stay i32 words; f16 ones are vector<2xf16>).
Value mmaSyncOperand(KernelBuilder &k, Type elem, Value word);

/// acc[0..3] += A x B by one mma.sync.m16n8k16 (row-major A, column-major
/// B, 16-bit operands of type `elem` made by mmaSyncOperand, f32
/// accumulators): the 4 A and 2 B registers of the lane's fragments.
void emitMmaSync16816(KernelBuilder &k, Type elem, ArrayRef<Value> a,
                      ArrayRef<Value> b, MutableArrayRef<Value> acc);

/// sin and cos of `theta` on the special-function unit (sin.approx,
/// cos.approx: about 2^-21 absolute in [-pi, pi]) after a Cody-Waite
/// reduction to [-pi, pi] (2 pi = 6.28125 + 1.9353071795864769e-3, the first
/// part exact in 8 bits). For the 16-bit inputs' ECFs; f32 inputs keep
/// libdevice's sinf/cosf.
std::pair<Value, Value> reducedSinCos(KernelBuilder &k, Value theta);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H
