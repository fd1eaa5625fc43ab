//===- Philox.h - Philox4x32-10 and the projection generator ----*- C++ -*-===//
//
// Host implementation of the exact projection mapping of docs/PROJECTION.md.
// Every function here is bit exact with the IR lowering and with
// python/sigreg/philox.py.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_REFERENCE_PHILOX_H
#define SIGREG_REFERENCE_PHILOX_H

#include <array>
#include <cstdint>

namespace sigreg {

/// Philox4x32 with 10 rounds (Random123), PROJECTION.md section 1.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr,
                                      std::array<uint32_t, 2> key);

/// The raw standard-normal sample g[d, s] for `seed`, PROJECTION.md sections
/// 2-5. Bit exact.
float projectionGaussian(uint64_t seed, uint32_t d, uint32_t s);

/// A row-major [D, S] (A[d * S + s]); G (nullable) receives the raw g, same
/// layout. Normalization per PROJECTION.md section 6: norm[s] = sqrtf of the
/// f32 sum over ascending d of (g * g rounded to f32), A = g / norm (f32
/// division). Does nothing if D or S is not positive.
void generateProjection(uint64_t seed, int64_t D, int64_t S, float *A,
                        float *G = nullptr);

//===----------------------------------------------------------------------===//
// Building blocks of the mapping, exposed for tests and for cross-checks.
//===----------------------------------------------------------------------===//

/// g from a pair of Philox output words (x0, x1) or (x2, x3): sections 3-5;
/// `sine` selects the second normal of the Box-Muller pair (odd rows).
float gaussianFromPhiloxWords(uint32_t x0, uint32_t x1, bool sine = false);

/// The section 4 polynomial ln(m) for m in [1, 2) (the value `lnm`).
float projectionLogMantissa(float m);

/// ln(n * 2^-24) for n in [1, 2^24] as computed in section 4 (`lnu`).
float projectionLogUniform(uint32_t n);

/// The section 5 polynomials cos(theta), sin(theta) for theta in [0, pi/2).
void projectionCosSin(float theta, float &cosv, float &sinv);

} // namespace sigreg

#endif // SIGREG_REFERENCE_PHILOX_H
