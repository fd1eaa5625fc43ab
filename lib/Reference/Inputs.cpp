//===- Inputs.cpp - Seeded random inputs ----------------------------------===//

#include "sigreg/Reference/Inputs.h"

#include <cmath>
#include <random>

using namespace sigreg;

void sigreg::fillNormal(uint64_t seed, float *out, int64_t count, float scale) {
  if (!out || count <= 0)
    return;
  std::mt19937_64 rng(seed);
  const double twoPi = 6.283185307179586;
  bool anyNonZero = false;
  for (int64_t i = 0; i < count; i += 2) {
    // u1 in (0, 1], u2 in [0, 1), 53-bit resolution.
    double u1 = static_cast<double>((rng() >> 11) + 1) * 0x1p-53;
    double u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
    double r = std::sqrt(-2.0 * std::log(u1));
    out[i] = static_cast<float>(r * std::cos(twoPi * u2)) * scale;
    anyNonZero |= out[i] != 0.0f;
    if (i + 1 < count) {
      out[i + 1] = static_cast<float>(r * std::sin(twoPi * u2)) * scale;
      anyNonZero |= out[i + 1] != 0.0f;
    }
  }
  // Practically unreachable (needs u1 == 1 everywhere or scale == 0), but the
  // contract is "never all zeros".
  if (!anyNonZero)
    out[0] = scale != 0.0f ? scale : 1.0f;
}
