//===- Inputs.h - Seeded random inputs --------------------------*- C++ -*-===//

#ifndef SIGREG_REFERENCE_INPUTS_H
#define SIGREG_REFERENCE_INPUTS_H

#include <cstdint>

namespace sigreg {

/// Fills out[0..count) with deterministic N(0, scale^2) samples from `seed`
/// (std::mt19937_64 and a Box-Muller transform in double). The same seed gives
/// the same values on every platform up to libm's last-bit differences in
/// log/cos/sin. Never produces an all-zero buffer.
void fillNormal(uint64_t seed, float *out, int64_t count, float scale = 1.0f);

} // namespace sigreg

#endif // SIGREG_REFERENCE_INPUTS_H
