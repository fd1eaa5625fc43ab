//===- NumericTest.cpp - bf16 and f16 conversions -------------------------===//

#include "sigreg/Reference/Numeric.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace sigreg;

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

TEST(BF16, RoundToNearestEven) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000);
  EXPECT_EQ(floatToBF16(0.0f), 0x0000);
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  // 1 + 2^-8 is the tie between 0x3F80 and 0x3F81: to even.
  EXPECT_EQ(floatToBF16(fromBits(0x3F808000)), 0x3F80);
  // 1 + 3 * 2^-8 is the tie between 0x3F81 and 0x3F82: to even.
  EXPECT_EQ(floatToBF16(fromBits(0x3F818000)), 0x3F82);
  // Just above / below a tie.
  EXPECT_EQ(floatToBF16(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16(fromBits(0x3F807FFF)), 0x3F80);
  // pi = 0x40490FDB rounds down to 3.140625.
  EXPECT_EQ(floatToBF16(fromBits(0x40490FDB)), 0x4049);
  // Mantissa carry into the exponent: 0x3FFF8000 -> 2.0.
  EXPECT_EQ(floatToBF16(fromBits(0x3FFF8000)), 0x4000);
  // FLT_MAX is beyond the largest bf16 plus half an ulp: infinity.
  EXPECT_EQ(floatToBF16(fromBits(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(floatToBF16(fromBits(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(floatToBF16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBF16(-INFINITY), 0xFF80);
  // Subnormals round like everything else.
  EXPECT_EQ(floatToBF16(fromBits(0x00000001)), 0x0000);
  EXPECT_EQ(floatToBF16(fromBits(0x00018000)), 0x0002);
}

TEST(BF16, NaNPreserved) {
  EXPECT_EQ(floatToBF16(fromBits(0x7FC00000)), 0x7FC0);
  EXPECT_EQ(floatToBF16(fromBits(0xFFC00000)), 0xFFC0);
  // A signaling NaN whose payload lives in the low bits must not become inf.
  uint16_t h = floatToBF16(fromBits(0x7F800001));
  EXPECT_TRUE(std::isnan(bf16ToFloat(h)));
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(fromBits(0x7FFFFFFF)))));
}

TEST(BF16, ToFloat) {
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x7F7F), 3.38953139e38f);
  EXPECT_EQ(bitsOf(bf16ToFloat(0x0001)), 0x00010000u);
  EXPECT_TRUE(std::isinf(bf16ToFloat(0xFF80)));
}

TEST(BF16, RoundTripAllPatterns) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = bf16ToFloat(uint16_t(h));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(f))));
    else
      EXPECT_EQ(floatToBF16(f), h);
  }
}

TEST(Half, RoundToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(0.5f), 0x3800);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f / 3.0f), 0x3555);
  // 1 + 2^-11 is the tie between 0x3C00 and 0x3C01: to even.
  EXPECT_EQ(floatToHalf(fromBits(0x3F801000)), 0x3C00);
  EXPECT_EQ(floatToHalf(fromBits(0x3F801001)), 0x3C01);
  // 1 + 3 * 2^-11: tie between 0x3C01 and 0x3C02: to even.
  EXPECT_EQ(floatToHalf(fromBits(0x3F803000)), 0x3C02);
  // Largest finite, the overflow tie (65520) and just below it.
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.996f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  // Smallest normal 2^-14 and the largest subnormal (1023 * 2^-24).
  EXPECT_EQ(floatToHalf(fromBits(0x38800000)), 0x0400);
  EXPECT_EQ(floatToHalf(1023.0f * 0x1p-24f), 0x03FF);
  // 1023.5 * 2^-24 ties between 0x03FF and 0x0400: to even (0x0400).
  EXPECT_EQ(floatToHalf(1023.5f * 0x1p-24f), 0x0400);
  // Smallest subnormal 2^-24; 2^-25 ties to zero; just above rounds up.
  EXPECT_EQ(floatToHalf(fromBits(0x33800000)), 0x0001);
  EXPECT_EQ(floatToHalf(fromBits(0x33000000)), 0x0000);
  EXPECT_EQ(floatToHalf(fromBits(0xB3000000)), 0x8000);
  EXPECT_EQ(floatToHalf(fromBits(0x33000001)), 0x0001);
  // 1.5 * 2^-24 ties between 1 and 2 ulps: to even (2); 2.5 -> 2.
  EXPECT_EQ(floatToHalf(1.5f * 0x1p-24f), 0x0002);
  EXPECT_EQ(floatToHalf(2.5f * 0x1p-24f), 0x0002);
  EXPECT_EQ(floatToHalf(fromBits(0x00000001)), 0x0000);
}

TEST(Half, ToFloat) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x03FF), 1023.0f * 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x0400), 0x1p-14f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(bitsOf(halfToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(halfToFloat(0x8001), -0x1p-24f);
  EXPECT_EQ(halfToFloat(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7C01)));
}

TEST(Half, NaNPreserved) {
  EXPECT_EQ(floatToHalf(fromBits(0x7FC00000)), 0x7E00);
  EXPECT_EQ(floatToHalf(fromBits(0xFFC00000)), 0xFE00);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(fromBits(0x7F800001)))));
}

TEST(Half, RoundTripAllPatterns) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(uint16_t(h));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
    else
      EXPECT_EQ(floatToHalf(f), h);
  }
}

// Sampled floats from 2^-25 up to the overflow tie: the result is a nearest
// half value (ties are covered above).
TEST(Half, NearestValue) {
  for (uint32_t u = 0x33000000u; u < 0x477FF000u; u += 97) {
    float f = fromBits(u);
    float back = halfToFloat(floatToHalf(f));
    // Neighbours of `back` in half precision.
    uint16_t h = floatToHalf(f);
    double lo = h > 0 ? halfToFloat(uint16_t(h - 1)) : 0.0;
    double hi = h < 0x7BFF ? halfToFloat(uint16_t(h + 1)) : 65536.0;
    double err = std::fabs(double(f) - back);
    ASSERT_LE(err, std::fabs(double(f) - lo)) << std::hex << u;
    ASSERT_LE(err, std::fabs(double(f) - hi)) << std::hex << u;
  }
}

} // namespace
