//===- Limits.h - problem size limits, overflow-checked sizes ---*- C++ -*-===//
//
// The one size check that the op verifiers, the runner (sigreg-run, --shape)
// and the host harness share. MLIR-free, so the runtime uses it too.
//
// Every size a tool computes from a problem (V, N, D, S, P and the input
// element width) is a product of those numbers. computeFootprint forms each
// product with overflow checks and fails with a message naming the product
// ("V*N*D = 4*4611686018427387904*1 overflows 64 bits") instead of letting
// it wrap. checkMemoryBudget then compares the bytes a run would allocate
// with a budget (kDefaultMemoryBudget, overridable with sigreg-run
// --max-memory), before anything is allocated.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_REFERENCE_LIMITS_H
#define SIGREG_REFERENCE_LIMITS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sigreg {

/// Largest number of integration points P. The fused GPU kernels unroll the
/// P points (each thread keeps 2P f32 accumulators in registers and the
/// kernel body grows linearly in P): past 65 points the accumulators alone
/// take 130 of a thread's 255 registers, the kernels spill, and compile time
/// grows with the unrolled body (9 s at P = 257, over a minute at 1025). The
/// trapezoid rule on [0, t_max] with the Gaussian weight converges long
/// before that (LeJEPA uses 17).
constexpr int64_t kMaxPoints = 65;

/// Largest t_max. Past t = 40 the Gaussian weight exp(-t^2 / 2) of the
/// integrand is 0 even in double, so a larger t_max only coarsens the grid;
/// the bound keeps the kernels' f32 argument t * y finite for every
/// |y| < FLT_MAX / kMaxTMax (about 3e32). The runner also checks t_max times
/// its inputs' bound on |y| (maxAbsSliceBound) before running.
constexpr double kMaxTMax = 1.0e6;

/// True when t_max * maxAbsY is finite in f32 (the kernels' cos/sin
/// argument).
bool sliceArgumentRepresentable(double tMax, double maxAbsY);

/// Memory a run may use unless told otherwise (sigreg-run --max-memory): the
/// host arrays of the inputs and the float64 reference, the naive CPU
/// path's [V, N, S, P] workspace, and the estimated device buffers. 16 GiB:
/// below the 23 GiB of the CI machine, 20x the largest anchor.
constexpr uint64_t kDefaultMemoryBudget = 16ull << 30;

/// a * b for non-negative a, b, or nullopt when the product overflows int64.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
/// a + b for non-negative a, b, or nullopt on overflow.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);

/// The sizes of one problem. N may be 1 for a dynamic batch (the verifiers
/// check what is static).
struct ProblemSizes {
  int64_t V = 1, N = 1, D = 1, S = 1, P = 3;
  /// Bytes per element of x and of an explicit projection (2 or 4).
  int64_t inputBytes = 4;
};

/// Bytes of the arrays a problem needs, each an overflow-checked product.
struct Footprint {
  int64_t input = 0;      ///< x: V*N*D elements of the input type
  int64_t projection = 0; ///< A or g: D*S f32
  int64_t ecf = 0;        ///< cos and sin: 2*V*S*P f32
  /// The fused GPU path's ECF partials, 2*ceil(N/16)*V*S*P f32 (an upper
  /// bound: the smallest batch tile is 16 rows).
  int64_t fusedWorkspace = 0;
  /// The naive path's [V, N, S, P] f32 tensor (the eager PyTorch one).
  int64_t naiveWorkspace = 0;
  /// The runner's host arrays: x in its dtype and in f64, A in f64 (and in
  /// its dtype), the reference's y [V, N, S] f64 and cos/sin [V, S, P] f64.
  int64_t host = 0;
  /// Device buffers of the fused path: x, A, g, ECF, partials.
  int64_t device = 0;
};

/// Fills `out`. Returns an empty string on success, else one line naming
/// the first product that overflows 64 bits, e.g.
/// "V*N*D = 4*4611686018427387904*1 overflows 64 bits".
std::string computeFootprint(const ProblemSizes &sizes, Footprint &out);

/// What a run allocates, for checkMemoryBudget.
struct RunKind {
  bool hostInputs = true;   ///< inputs and the float64 reference (not for
                            ///< --compile-only)
  bool naiveCpu = false;    ///< the CPU target's naive [V, N, S, P] workspace
  bool device = false;      ///< the CUDA target's device buffers
  bool naiveDevice = false; ///< the naive GPU pipeline's workspace
};

/// Empty when every amount `run` needs fits in `budget` bytes, else one
/// line naming the amount and the budget.
std::string checkMemoryBudget(const Footprint &footprint, const RunKind &run,
                              uint64_t budget);

/// Parses a byte count: digits with an optional K, M, G or T suffix (powers
/// of 1024). False on a syntax error, zero or overflow.
bool parseByteSize(std::string_view text, uint64_t &out);

/// "17179869184 bytes (16.0 GiB)".
std::string formatBytes(uint64_t bytes);

} // namespace sigreg

#endif // SIGREG_REFERENCE_LIMITS_H
