//===- Numeric.h - bf16 and f16 conversions ---------------------*- C++ -*-===//
//
// Float to/from bfloat16 and IEEE binary16 bit patterns. Rounding is to
// nearest, ties to even; overflow rounds to infinity; NaN stays NaN (quieted,
// sign and leading payload bits kept).
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_REFERENCE_NUMERIC_H
#define SIGREG_REFERENCE_NUMERIC_H

#include <cstdint>
#include <cstring>

namespace sigreg {

/// The bit pattern of an f32, and the f32 of a bit pattern.
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint16_t floatToBF16(float f);
float bf16ToFloat(uint16_t h);

/// IEEE binary16, with subnormals, infinities and NaN.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);

} // namespace sigreg

#endif // SIGREG_REFERENCE_NUMERIC_H
