//===- ProjectionBuilder.h - IR for the projection generator ----*- C++ -*-===//
//
// Builds the scalar IR of docs/PROJECTION.md (Philox4x32-10 + Box-Muller with
// fixed polynomials) so that every lowering that generates the projection
// (naive linalg, fused GPU kernels) emits the same, bit-exact computation;
// the GPU projection kernels may ask for the fast Box-Muller step of its
// section 7 instead (NormalMapping::Fast).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_DIALECT_SIGREG_UTILS_PROJECTIONBUILDER_H
#define SIGREG_DIALECT_SIGREG_UTILS_PROJECTIONBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>
#include <vector>

namespace mlir {
namespace sigreg {

/// Philox4x32-10 on i32 values: returns the four output words.
std::array<Value, 4> buildPhilox4x32_10(ImplicitLocOpBuilder &b,
                                        std::array<Value, 4> counter,
                                        std::array<Value, 2> key);

/// How the Box-Muller step of the mapping turns Philox words into normals
/// (docs/PROJECTION.md).
enum class NormalMapping {
  /// Sections 3-5: integer operations, correctly rounded f32 arithmetic and
  /// fixed polynomials; bit-exact with the host C++ and NumPy.
  Exact,
  /// Section 7: the same uniforms through the GPU's approximate log2, sine
  /// and cosine (`math.log2`, `math.sin`, `math.cos` with the `afn` flag:
  /// lg2/sin/cos.approx.f32) and a square root; within about 1e-5 of the
  /// exact mapping, for GPU kernels only.
  Fast,
};

/// The raw Gaussian g[d, s] (f32) of the exact mapping for an i64 `seed` and
/// i32 indices `d`, `s` (one Philox call, the row's pair and its cosine or
/// sine selected).
Value buildProjectionGaussian(ImplicitLocOpBuilder &b, Value seed, Value d,
                              Value s);

/// The four raw Gaussians g[4 group + i, s], i < 4, of one Philox call (i32
/// `group` and `s`): two Box-Muller pairs, each giving a cosine and a sine.
/// About a third of the work of four buildProjectionGaussian calls.
std::array<Value, 4>
buildProjectionGaussianGroup(ImplicitLocOpBuilder &b, Value seed, Value group,
                             Value s,
                             NormalMapping mapping = NormalMapping::Exact);

/// Integration grid of docs/CONTRACT.md section 1.3 in double precision.
struct IntegrationGrid {
  std::vector<double> t, phi, w;
};
IntegrationGrid computeIntegrationGrid(int64_t numPoints, double tMax);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_DIALECT_SIGREG_UTILS_PROJECTIONBUILDER_H
