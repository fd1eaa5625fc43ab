//===- KernelUtils.h - helpers of the kernel builders ----------*- C++ -*-===//
//
// Small helpers shared by the kernel families of --convert-sigreg-to-gpu
// (ProjectionKernels.cpp, SimtEcfKernel.cpp, MmaEcfKernel.cpp,
// WgmmaEcfKernel.cpp, SingleLaunchKernel.cpp, EpilogueKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H
#define SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H

#include "Kernels.h"

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace sigreg {

/// Creates an empty kernel `name` (region attribute `region`) with `args` and
/// workgroup buffers of f32 and i32 of the given sizes, ending in a return.
gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc, StringRef name,
                            StringRef region, TypeRange args,
                            ArrayRef<int64_t> workgroupF32Sizes,
                            ArrayRef<int64_t> workgroupI32Sizes = {});

/// step[] = seed + 1 for a step counter (memref<i64>, sigreg.advance_step),
/// by the calling thread: a kernel of the forward after every reader of the
/// step. `seed` is the counter's value where the kernel has it, else it is
/// loaded.
void emitStepAdvance(KernelBuilder &k, Value step, Value seed = Value());

/// memref<shape x f32>.
MemRefType f32Memref(OpBuilder &b, ArrayRef<int64_t> shape);

/// index -> i32 (unsigned cast).
Value toI32(KernelBuilder &k, Value index);
/// i32 -> index (unsigned cast).
Value fromI32(KernelBuilder &k, Value value);
/// An i32 constant.
Value constI32(KernelBuilder &k, int32_t value);

/// Packs two 16-bit floats (lo at the lower address) into an i32 word.
Value packPair(KernelBuilder &k, Value lo, Value hi);

/// Two f32 values rounded to the 16-bit float `elem` together, as one
/// vector<2xelem> (one `cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32`: the same
/// bits as two scalar roundings, half the instructions), and that vector as
/// the i32 word packPair would make (lo = element 0 at the lower address).
struct RoundedPair {
  Value vector, word;
  /// Element `i` (0 or 1) as a scalar of `elem`.
  Value element(KernelBuilder &k, int64_t i) const;
};
RoundedPair roundPair(KernelBuilder &k, Value lo, Value hi, Type elem);

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

/// A barrier of the whole grid, `ctas` CTAs that are all resident (a
/// cooperative launch), on the i64 counter `counter[0]` (zero before the
/// first launch, never reset: every launch adds `ctas`, so an arrival that
/// found the value a waits until the counter reaches the next multiple of
/// `ctas` above a). Thread `tid` 0 of each CTA arrives and polls with
/// relaxed atomics, between acq_rel fences at GPU scope that release the
/// CTA's global writes (ordered before it by a CTA barrier) and acquire the
/// other CTAs'; a second CTA barrier then holds the CTA's other threads.
void emitGridBarrier(KernelBuilder &k, Value tid, Value counter, int64_t ctas);

/// bar.sync on named barrier `id` (an index) for `threads` threads, or
/// bar.arrive with `arriveOnly`: the arriving warps go on, their earlier
/// shared-memory writes visible to the warps that sync on it.
void namedBarrier(KernelBuilder &k, Value id, int64_t threads,
                  bool arriveOnly = false);

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
/// With `inRange` (theta known to lie in [-pi, pi], a decodePhase angle) the
/// reduction is skipped.
std::pair<Value, Value> reducedSinCos(KernelBuilder &k, Value theta,
                                      bool inRange = false);

/// The phase of the angle `theta` (f32) as an i16 fraction of a turn:
/// round(65536 r / (2 pi)) wrapped to 16 bits, r = theta reduced to
/// [-pi, pi] as reducedSinCos does (so the phase keeps the angle to
/// pi / 65536, about 4.8e-5, whatever its size). The saved slices of 16-bit
/// problems (--sigreg-save-slices=phase): every harmonic p of the ECF is a
/// function of dt y modulo 2 pi, known from the phase to p x 4.8e-5.
Value encodePhase(KernelBuilder &k, Value theta);
/// The angle in [-pi, pi) of an encodePhase code (i16).
Value decodePhase(KernelBuilder &k, Value code);

/// Points per segment of forEachHarmonic's recurrence.
constexpr int64_t kHarmonicSegment = 16;

/// The harmonics of an angle: one range-reduced sincos of `theta`
/// (reducedSinCos), then the Chebyshev recurrence c_{p+1} = 2 c_1 c_p -
/// c_{p-1} (same for sin); `point(p, cos(p theta), sin(p theta))` is called
/// for p = 1..P-1 in order, each before the next harmonic is formed. The
/// recurrence amplifies the error of the approximate c_1 about p^2-fold
/// (dT_p/dx = p^2 at x = 1), so every kHarmonicSegment points it restarts
/// from a fresh sincos of p theta (and cos, sin of (p - 1) theta by angle
/// subtraction): P <= 17 never restarts; at P = 65 per-slice statistics
/// missed the f16 tolerance without the restarts (2.5e-3,
/// docs/PERF-NOTES.md m3). For the 16-bit inputs' ECFs.
/// `inRange`: theta lies in [-pi, pi] (its first sincos needs no
/// reduction; the restarts' p theta still do).
/// Where the i1 `swapped` is given and true, c and s trade places (point
/// gets c = sin(p theta), s = cos(p theta)), as in forEachHarmonicPair.
void forEachHarmonic(KernelBuilder &k, int64_t P, Value theta,
                     function_ref<void(int64_t, Value, Value)> point,
                     bool inRange = false, Value swapped = {});

/// The harmonics of two elements' angles a = 2 h y_a and b = 2 h y_b
/// together (`halfScale` h: half the angle per unit of y), for sums over
/// elements: with u = (y_a + y_b) h and v = (y_a - y_b) h, cos(p a) +
/// cos(p b) = 2 cos(p u) cos(p v) and sin(p a) + sin(p b) = 2 sin(p u)
/// cos(p v). `point(p, c, s, w)` gets c = cos(p u), s = sin(p u) and
/// w = 2 cos(p v), so that the two elements' sums are c w and s w (one fma
/// each), for p = 1..P-1 in order. Three Chebyshev recurrences (c, s, and w
/// from w_0 = 2, w_1 = 2 cos v) and two fmas per point for both elements,
/// against two recurrences and two adds per point for each element in
/// forEachHarmonic; restarts every kHarmonicSegment points as there. For
/// the 16-bit inputs' ECFs. Where the i1 `swapped` is given and true, c and
/// s trade places (point gets c = sin(p u), s = cos(p u)): the recurrences
/// start from each other's values (selects at the start and at each
/// restart), the same operations otherwise.
void forEachHarmonicPair(KernelBuilder &k, int64_t P, Value ya, Value yb,
                         Value halfScale,
                         function_ref<void(int64_t, Value, Value, Value)> point,
                         Value swapped = {});

/// The coefficients of dL/dy / ||g_s|| for one slice (docs/BACKWARD.md):
/// a_p = t_p dsin_p / (N ||g_s||) and -b_p = -t_p dcos_p / (N ||g_s||),
/// p = 1..P-1 (no norm for an explicit projection).
struct GradCoefficients {
  SmallVector<Value> a, negB;
};
/// The coefficients from the slice's cotangents dcosP[p], dsinP[p] (p =
/// 0..P-1; p = 0 does not enter) of a batch of N rows; `scale` is the
/// column's dt / ||g_s|| (or dt for an explicit projection).
GradCoefficients gradCoefficientsFrom(KernelBuilder &k, int64_t P, double tMax,
                                      int64_t N, Value scale,
                                      ArrayRef<Value> dcosP,
                                      ArrayRef<Value> dsinP);
/// G = sum_p a_p cos(p theta) - b_p sin(p theta) (forEachHarmonic): dL/dy /
/// ||g_s|| of the element whose first angle is `theta` = dt y.
Value emitGradValue(KernelBuilder &k, int64_t P, Value theta,
                    const GradCoefficients &c, bool inRange = false);

/// value + value of the lane `offset` away (xor), one step of a warp's
/// butterfly sum (every lane of the warp takes part).
Value addXorShuffled(KernelBuilder &k, Value value, int32_t offset);

/// The sums of `values` over the lanes that differ in the bits `offsets`
/// (powers of two below 32, in the order given), each lane keeping a part:
/// at each offset the lane whose bit is clear keeps the lower half of what it
/// holds and sends the upper half to the lane `offset` away, which keeps the
/// upper half; both add what they receive to what they keep. The lane ends
/// with values.size() / 2^n sums (n offsets; values.size() a multiple of
/// 2^n): part halvedPart(lane, offsets) of the list. The shuffles are
/// values.size() (1 - 1/2^n) where addXorShuffled level by level takes
/// values.size() n, and each sum has the same bits as that butterfly in the
/// same order of offsets (both add the same two values at every level).
/// Every lane of the warp takes part.
SmallVector<Value> addXorHalving(KernelBuilder &k, Value lane,
                                 ArrayRef<Value> values,
                                 ArrayRef<int32_t> offsets);

/// keep[i] + send[i] of the lane `offset` away (xor), for lists laid out so
/// that what that lane sends is what this one keeps: the first level of
/// addXorHalving without its selects (the same sums, the same bits, where
/// the lanes whose bit `offset` is set hold their list's halves swapped).
SmallVector<Value> addXorSent(KernelBuilder &k, ArrayRef<Value> keep,
                              ArrayRef<Value> send, int32_t offset);

/// Whether `lane`'s bit `offset` is set (i1).
Value laneBit(KernelBuilder &k, Value lane, int32_t offset);

/// Which part of addXorHalving's list `lane` keeps: its bits `offsets`,
/// the first the most significant.
Value halvedPart(KernelBuilder &k, Value lane, ArrayRef<int32_t> offsets);

/// The sum of `value` over the `threads` threads (kBlockThreads unless
/// given), in a fixed order: an xor butterfly of shuffles inside each warp,
/// then thread 0 adds the warps' sums in ascending order (through the
/// workgroup f32 buffer `scratch`, at least threads / 32 words; one
/// barrier). The result is valid in thread 0 only. Fewer barriers than
/// emitBlockTreeSum (1 against 9). `barrier` synchronizes the threads taking
/// part (the block's when null).
Value emitBlockShuffleSum(KernelBuilder &k, Value tid, Value value,
                          Value scratch, function_ref<void()> barrier = nullptr,
                          int64_t threads = kBlockThreads);

/// The descriptor type of a tensor map whose boxes are `box` (outermost
/// first) of `elem`, with the 128-byte swizzle (an inner box of 128 bytes),
/// 256-byte L2 promotion and zero fill: the form every TMA load of the
/// kernels uses.
nvgpu::TensorMapDescriptorType swizzledBoxMap(MLIRContext *ctx,
                                              ArrayRef<int64_t> box, Type elem);

/// Prefetches the line of `memref`[index] (a rank-1 global memref of offset
/// 0) to L2: prefetch.global.L2, nothing returned, nothing waited for.
void prefetchToL2(KernelBuilder &k, Value memref, Value index);

/// Adds this block's part `sum` (f32, thread-local: call it from one
/// thread) of a mean/sum loss to the 64-bit word `acc` (memref<1xi64>, zero
/// before the first launch) laid out as `layout`: in fixed point, with one
/// to the arrival count, by one relaxed atom.add. Integer addition does not
/// depend on the order in which the blocks arrive, so the sum is the same
/// bits every run, and the block that brings the count to `arrivals` has the
/// whole sum in the word its atomic returned: no fence and no other memory
/// to read. It writes the loss to `out` (memref<f32>; the sum over
/// `statistics` for a mean; NaN if a part was not finite: the poison
/// count), resets the word to 0, then runs `onLoss`.
void emitPackedLossAdd(KernelBuilder &k, const LossSumLayout &layout, Value sum,
                       Value acc, Value out, int64_t arrivals,
                       Reduction reduction, int64_t statistics,
                       function_ref<void()> onLoss = nullptr);

/// `value` (f32) as its addend to a word laid out as `layout` (i64, no
/// arrival): in fixed point, rounded to nearest even, where it lies in
/// [0, 2^(sumBits - fractionBits)); else one poison count (NaN, infinities,
/// negative values and values past the layout's bound).
Value toPackedContribution(KernelBuilder &k, const LossSumLayout &layout,
                           Value value);

/// emitPackedLossAdd from a `contribution` already in the word's layout (the
/// sum and poison fields; the arrival is added here).
void emitPackedWordAdd(KernelBuilder &k, const LossSumLayout &layout,
                       Value contribution, Value acc, Value out,
                       int64_t arrivals, Reduction reduction,
                       int64_t statistics,
                       function_ref<void()> onLoss = nullptr);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_LIB_CONVERSION_SIGREGTOGPU_KERNELUTILS_H
