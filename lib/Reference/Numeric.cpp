//===- Numeric.cpp - bf16 and f16 conversions -----------------------------===//

#include "sigreg/Reference/Numeric.h"

using namespace sigreg;

uint16_t sigreg::floatToBF16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((u >> 16) | 0x0040u); // Quiet NaN.
  // Round to nearest even; a carry out of the mantissa bumps the exponent,
  // which is the correct result (up to infinity).
  uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

float sigreg::bf16ToFloat(uint16_t h) {
  return bitsFloat(static_cast<uint32_t>(h) << 16);
}

uint16_t sigreg::floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) {
    if (a == 0x7F800000u)
      return sign | 0x7C00u;
    return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  }
  // 65520 = halfway between 65504 (max half) and 2^16: ties to even, i.e. up.
  if (a >= 0x477FF000u)
    return sign | 0x7C00u;
  if (a >= 0x38800000u) {
    // Normal result: rebias the exponent (127 -> 15) and round 13 bits away.
    uint32_t h = (a >> 13) - (112u << 10);
    uint32_t rem = a & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
      ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // Subnormal or zero result. 2^-25 is the tie between 0 and 2^-24: to even.
  if (a <= 0x33000000u)
    return sign;
  uint32_t exp = a >> 23;
  uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 126u - exp; // 14..24
  uint32_t h = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (h & 1u)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

float sigreg::halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exp == 31)
    return bitsFloat(sign | 0x7F800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}
