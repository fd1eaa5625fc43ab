//===- PhiloxTest.cpp - Philox4x32-10 and the projection mapping ----------===//

#include "sigreg/Reference/Philox.h"
#include "sigreg/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace sigreg;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

using Words4 = std::array<uint32_t, 4>;

// Random123 tests/kat_vectors, the three "philox4x32 10" lines.
TEST(Philox, Random123KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (Words4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                          {0xffffffff, 0xffffffff}),
            (Words4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                          {0xa4093822, 0x299f31d0}),
            (Words4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Projection, CounterAndKeyLayout) {
  const uint64_t seed = 0x0123456789ABCDEFull;
  // Rows 76..79 share the counter (19, 5, 0, 0): 76 is the cosine and 77 the
  // sine of the pair (x0, x1); 78, 79 those of (x2, x3).
  Words4 x = philox4x32_10({19, 5, 0, 0}, {0x89ABCDEFu, 0x01234567u});
  EXPECT_EQ(bitsOf(projectionGaussian(seed, 76, 5)),
            bitsOf(gaussianFromPhiloxWords(x[0], x[1])));
  EXPECT_EQ(bitsOf(projectionGaussian(seed, 77, 5)),
            bitsOf(gaussianFromPhiloxWords(x[0], x[1], /*sine=*/true)));
  EXPECT_EQ(bitsOf(projectionGaussian(seed, 78, 5)),
            bitsOf(gaussianFromPhiloxWords(x[2], x[3])));
  EXPECT_EQ(bitsOf(projectionGaussian(seed, 79, 5)),
            bitsOf(gaussianFromPhiloxWords(x[2], x[3], /*sine=*/true)));
  // The sine is the cosine of the quadrant before: sin(a) = cos(a - pi/2).
  for (uint32_t q = 0; q < 4; ++q) {
    uint32_t x1 = (q << 30) | 0x12345600u;
    uint32_t before = (((q + 3u) & 3u) << 30) | 0x12345600u;
    EXPECT_EQ(bitsOf(gaussianFromPhiloxWords(0x9ABCDE00u, x1, true)),
              bitsOf(gaussianFromPhiloxWords(0x9ABCDE00u, before)));
  }
  // The two key halves and the two indices all matter.
  float g = projectionGaussian(seed, 77, 5);
  EXPECT_NE(g, projectionGaussian(seed ^ 1u, 77, 5));
  EXPECT_NE(g, projectionGaussian(seed ^ (1ull << 40), 77, 5));
  EXPECT_NE(g, projectionGaussian(seed, 5, 77));
}

TEST(Projection, GaussianStatistics) {
  double sum = 0.0, sumSq = 0.0, sum4 = 0.0;
  int64_t tail = 0, count = 0;
  for (uint64_t seed : {7ull, 0xFFFFFFFFFFFFFFFFull})
    for (uint32_t d = 0; d < 500; ++d)
      for (uint32_t s = 0; s < 200; ++s) {
        float g = projectionGaussian(seed, d * 7919u, s);
        ASSERT_TRUE(std::isfinite(g));
        sum += g;
        sumSq += double(g) * g;
        sum4 += double(g) * g * g * g;
        tail += std::fabs(g) > 1.959964f;
        ++count;
      }
  double mean = sum / count, var = sumSq / count - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.02);
  EXPECT_NEAR(sum4 / count, 3.0, 0.1); // Normal kurtosis.
  EXPECT_NEAR(double(tail) / count, 0.05, 0.003);
}

TEST(Projection, RadiusZeroWhenUniformIsOne) {
  // n = (x0 >> 8) + 1 = 2^24 gives u1 = 1, ln u1 = 0 and r = 0.
  EXPECT_EQ(projectionLogUniform(1u << 24), 0.0f);
  for (uint32_t x1 : {0u, 0x40000000u, 0x80000000u, 0xC0000000u, 0xFFFFFFFFu})
    EXPECT_EQ(gaussianFromPhiloxWords(0xFFFFFF00u | (x1 & 0xFFu), x1), 0.0f);
  // Real elements where this happens (found by search): r = -0 from
  // sqrt(-2 * +0), so the sign of the zero follows -c.
  // Seed 0, rows 9320226 and 9320227: counter 2330056, words (x2, x3).
  Words4 x = philox4x32_10({2330056u, 0, 0, 0}, {0, 0});
  EXPECT_EQ(x[2] >> 8, 0xFFFFFFu);
  EXPECT_EQ(bitsOf(projectionGaussian(0, 9320227u, 0)), 0x00000000u);
  EXPECT_EQ(bitsOf(projectionGaussian(0, 9320226u, 0)), 0x80000000u);
  EXPECT_EQ(bitsOf(projectionGaussian(42, 12542120u, 0)), 0x80000000u);
  // The smallest n gives the largest radius, sqrt(48 ln 2) = 5.7678...
  float lnu = projectionLogUniform(1);
  EXPECT_NEAR(lnu, -24.0 * std::log(2.0), 2e-6);
  EXPECT_NEAR(gaussianFromPhiloxWords(0, 0), std::sqrt(48.0 * std::log(2.0)),
              1e-6);
}

TEST(Projection, GenerateProjectionColumnsAndRawG) {
  const int64_t D = 129, S = 77;
  for (uint64_t seed : {3ull, 0x8000000000000005ull}) {
    std::vector<float> A(D * S), G(D * S);
    generateProjection(seed, D, S, A.data(), G.data());
    std::vector<double> ref = referenceProjection(seed, D, S);
    for (int64_t s = 0; s < S; ++s) {
      double norm = 0.0;
      for (int64_t d = 0; d < D; ++d) {
        double a = A[d * S + s];
        norm += a * a;
        ASSERT_EQ(bitsOf(G[d * S + s]),
                  bitsOf(projectionGaussian(seed, uint32_t(d), uint32_t(s))));
        EXPECT_NEAR(a, ref[d * S + s],
                    1e-6 * (std::fabs(ref[d * S + s]) + 1e-3));
      }
      EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-6);
    }
    // G is optional and does not change A.
    std::vector<float> A2(D * S);
    generateProjection(seed, D, S, A2.data());
    EXPECT_EQ(0, std::memcmp(A.data(), A2.data(), A.size() * sizeof(float)));
  }
}

// The claim of PROJECTION.md: the polynomials are within about 1e-7 of the
// true functions. Checked exhaustively over their f32 domains.
TEST(ProjectionAccuracy, LogPolynomial) {
  double maxErr = 0.0;
  for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
    uint32_t bits = 0x3F800000u | mant;
    float m;
    std::memcpy(&m, &bits, sizeof(m));
    double err =
        std::fabs(double(projectionLogMantissa(m)) - std::log(double(m)));
    maxErr = std::max(maxErr, err);
  }
  EXPECT_LE(maxErr, 2e-7);
  // ln u1 adds e * LN2 in one fma: the error stays within 2e-7 plus half an
  // ulp of the result (|ln u1| <= 16.7, ulp 2^-19 at most).
  double maxExcess = 0.0;
  for (uint32_t n = 1; n <= (1u << 24); n += 3) {
    double exact = std::log(double(n) * 0x1p-24);
    double err = std::fabs(double(projectionLogUniform(n)) - exact);
    double halfUlp = std::ldexp(1.0, std::ilogb(exact == 0 ? 1.0 : exact) - 24);
    maxExcess = std::max(maxExcess, err - halfUlp);
  }
  EXPECT_LE(maxExcess, 2e-7);
}

TEST(ProjectionAccuracy, CosSinPolynomial) {
  const float halfPi = static_cast<float>(1.5707963267948966);
  double maxCos = 0.0, maxSin = 0.0;
  for (uint32_t i = 0; i < (1u << 22); ++i) {
    float theta = static_cast<float>(i) * 0x1p-22f * halfPi;
    float c, s;
    projectionCosSin(theta, c, s);
    maxCos = std::max(maxCos, std::fabs(c - std::cos(double(theta))));
    maxSin = std::max(maxSin, std::fabs(s - std::sin(double(theta))));
  }
  EXPECT_LE(maxCos, 2e-7);
  EXPECT_LE(maxSin, 2e-7);
  // End to end: the quadrant mapping of g equals r * cos(2 pi u2), r = 1
  // (x0 chosen so that ln u1 = -1/2 is not exact; compare g / r instead).
  const double twoPi = 6.283185307179586;
  double maxErr = 0.0;
  const uint32_t x0 = 0x12345600u;
  const double r =
      std::sqrt(-2.0 * double(projectionLogUniform((x0 >> 8) + 1)));
  for (uint32_t j = 0; j < (1u << 24); j += 5) {
    double g = gaussianFromPhiloxWords(x0, j << 8);
    maxErr = std::max(maxErr, std::fabs(g / r - std::cos(twoPi * j * 0x1p-24)));
  }
  EXPECT_LE(maxErr, 2e-7 + 1e-7); // + the rounding of r * c.
}

} // namespace
