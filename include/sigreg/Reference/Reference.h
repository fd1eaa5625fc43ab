//===- Reference.h - Float64 reference of SIGReg ----------------*- C++ -*-===//
//
// Independent float64 implementation of docs/CONTRACT.md section 1 (the
// math contract). Used to validate every compiled path; shares no code with
// the compiler.
//
// Distributed model: worldSize = W > 1 models W ranks that each hold the same
// local batch x, so the rank-averaged ECF equals the local one and
// N_global = N * W scales the statistic. The gradient is the formula of
// docs/CONTRACT.md section 2, i.e. the partial derivative of the global loss
// with respect to the local samples (N_global cancels, so it does not depend
// on W).
//
// Multithreaded (SIGREG_REFERENCE_THREADS threads if set to a positive
// integer, else std::thread::hardware_concurrency() capped at 64) and
// vectorized, but every float64 value is computed by the same operations in
// the same order as the textbook loops: projections sum over the inner index
// in ascending order, ECF sums over n in ascending order per (v, s, k), without
// contraction into fused multiply-adds. Results are therefore bitwise identical
// run to run, for any thread count and any instruction set.
//
// Invalid arguments (non-positive V, N, D, numSlices or worldSize, numPoints
// < 2, null pointers, sizes whose products overflow 64 bits: Limits.h) make
// the functions return an empty vector.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_REFERENCE_REFERENCE_H
#define SIGREG_REFERENCE_REFERENCE_H

#include <cstdint>
#include <string_view>
#include <vector>

namespace sigreg {

enum class ClipMode { None, ZeroBelow, ClampMin };
enum class Reduction { Mean, Sum, None };

struct LossParams {
  int64_t numSlices = 1024;
  int64_t numPoints = 17;
  double tMax = 3.0;
  ClipMode clip = ClipMode::None;
  double clipValue = 0.0;
  Reduction reduction = Reduction::Mean;
  int64_t worldSize = 1;
};

/// Integration points, phi and doubled trapezoid weights (docs/CONTRACT.md
/// section 1.3). Empty if P < 2.
struct IntegrationGrid {
  std::vector<double> t, phi, w;
};
IntegrationGrid integrationGrid(int64_t P, double tMax);

/// x: [V, N, D] row-major, A: [D, S] row-major with S = p.numSlices. Returns
/// T[v * S + s] after clipping (docs/CONTRACT.md sections 1.6-1.7),
/// N_global = N * worldSize. zero_below: T < clipValue becomes 0;
/// clamp_min: T = max(T, clipValue).
std::vector<double> referenceStatistics(const double *x, int64_t V, int64_t N,
                                        int64_t D, const double *A,
                                        const LossParams &p);

/// Applies the reduction: size 1 for mean (divides by V * S) and sum, V * S
/// for none.
std::vector<double> referenceLoss(const double *x, int64_t V, int64_t N,
                                  int64_t D, const double *A,
                                  const LossParams &p);

/// dL/dx, [V, N, D] row-major, per the gradient formula of docs/CONTRACT.md
/// section 2. The clip gate is 0 where clipping replaced T (T < clipValue, for
/// both clip modes). For Reduction::None this is the gradient of sum(T) (an
/// all-ones upstream).
///
/// `flipNorms` (optional), from the same forward: for each of the V * S
/// slices whose unclipped statistic T lies within relTolerance |T| of the
/// clip threshold (a rounded computation may land on either side of it, so
/// the slice's term of dL/dx may rightly be there or not), the norm of that
/// term with the gate open: ||dL/dy[v, :, s]|| ||A[:, s]|| (the term is an
/// outer product); 0 for the other slices. Empty without clipping.
std::vector<double> referenceGradient(const double *x, int64_t V, int64_t N,
                                      int64_t D, const double *A,
                                      const LossParams &p,
                                      std::vector<double> *flipNorms = nullptr,
                                      double relTolerance = 0.0);

/// Projection in float64 from the bit-exact raw g of the host generator,
/// normalized in double. [D, S] row-major.
std::vector<double> referenceProjection(uint64_t seed, int64_t D, int64_t S);

const char *toString(ClipMode mode);
const char *toString(Reduction reduction);
/// "none", "zero_below", "clamp_min". Returns false (out untouched) otherwise.
bool parseClipMode(std::string_view text, ClipMode &out);
/// "mean", "sum", "none". Returns false (out untouched) otherwise.
bool parseReduction(std::string_view text, Reduction &out);

} // namespace sigreg

#endif // SIGREG_REFERENCE_REFERENCE_H
