//===- ProjectionBuilder.h - IR for the projection generator ----*- C++ -*-===//
//
// Builds the scalar IR of docs/PROJECTION.md (Philox4x32-10 + Box-Muller with
// fixed polynomials) so that every lowering that generates the projection
// (naive linalg, fused GPU kernels) emits the same, bit-exact computation.
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

/// The raw Gaussian g[d, s] (f32) for an i64 `seed` and i32 indices `d`, `s`
/// (one Philox call, the row's pair and its cosine or sine selected).
Value buildProjectionGaussian(ImplicitLocOpBuilder &b, Value seed, Value d,
                              Value s);

/// The four raw Gaussians g[4 group + i, s], i < 4, of one Philox call (i32
/// `group` and `s`): two Box-Muller pairs, each giving a cosine and a sine.
/// About a third of the work of four buildProjectionGaussian calls.
std::array<Value, 4> buildProjectionGaussianGroup(ImplicitLocOpBuilder &b,
                                                  Value seed, Value group,
                                                  Value s);

/// Integration grid of docs/CONTRACT.md section 1.3 in double precision.
struct IntegrationGrid {
  std::vector<double> t, phi, w;
};
IntegrationGrid computeIntegrationGrid(int64_t numPoints, double tMax);

} // namespace sigreg
} // namespace mlir

#endif // SIGREG_DIALECT_SIGREG_UTILS_PROJECTIONBUILDER_H
