//===- Philox.cpp - Philox4x32-10 and the projection generator ------------===//
//
// Implements docs/PROJECTION.md. This file must be compiled without
// floating-point contraction (-ffp-contract=off, set in CMakeLists.txt):
// every fused multiply-add of the mapping is an explicit std::fma.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Reference/Philox.h"
#include "sigreg/Reference/Numeric.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace sigreg;

namespace {

constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;
constexpr uint32_t kW1 = 0xBB67AE85u;

double factorial(int n) {
  double r = 1.0;
  for (int i = 2; i <= n; ++i)
    r *= i;
  return r;
}

struct Coefficients {
  float logC[9]; // C[k] = float(1 / (2k + 1))
  float cosC[8]; // KC[k] = float((-1)^k / (2k)!)
  float sinC[8]; // KS[k] = float((-1)^k / (2k + 1)!)
  float ln2;     // float(0.6931471805599453)
  float halfPi;  // float(1.5707963267948966)
  Coefficients() {
    for (int k = 0; k < 9; ++k)
      logC[k] = static_cast<float>(1.0 / (2 * k + 1));
    for (int k = 0; k < 8; ++k) {
      double sign = (k % 2) ? -1.0 : 1.0;
      cosC[k] = static_cast<float>(sign / factorial(2 * k));
      sinC[k] = static_cast<float>(sign / factorial(2 * k + 1));
    }
    ln2 = static_cast<float>(0.6931471805599453);
    halfPi = static_cast<float>(1.5707963267948966);
  }
};

const Coefficients &coefficients() {
  static const Coefficients c;
  return c;
}

} // namespace

std::array<uint32_t, 4> sigreg::philox4x32_10(std::array<uint32_t, 4> ctr,
                                              std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
    uint32_t lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
    uint32_t lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

float sigreg::projectionLogMantissa(float m) {
  const Coefficients &k = coefficients();
  float s = (m - 1.0f) / (m + 1.0f);
  float z = s * s;
  float p = k.logC[8];
  for (int i = 7; i >= 0; --i)
    p = std::fma(p, z, k.logC[i]);
  return (s + s) * p;
}

float sigreg::projectionLogUniform(uint32_t n) {
  float nf = static_cast<float>(n);
  uint32_t bits = floatBits(nf);
  int e = static_cast<int>(bits >> 23) - 127;
  float m = bitsFloat((bits & 0x7FFFFFu) | 0x3F800000u);
  float lnm = projectionLogMantissa(m);
  return std::fma(static_cast<float>(e - 24), coefficients().ln2, lnm);
}

void sigreg::projectionCosSin(float theta, float &cosv, float &sinv) {
  const Coefficients &k = coefficients();
  float t2 = theta * theta;
  float pc = k.cosC[7];
  for (int i = 6; i >= 0; --i)
    pc = std::fma(pc, t2, k.cosC[i]);
  float ps = k.sinC[7];
  for (int i = 6; i >= 0; --i)
    ps = std::fma(ps, t2, k.sinC[i]);
  cosv = pc;
  sinv = theta * ps;
}

float sigreg::gaussianFromPhiloxWords(uint32_t x0, uint32_t x1, bool sine) {
  // Section 3: uniforms.
  uint32_t n = (x0 >> 8) + 1u;
  uint32_t j = x1 >> 8;
  uint32_t q = j >> 22;
  // Scaling by 2^-22 is exact.
  float f = static_cast<float>(j & 0x3FFFFFu) * 0x1p-22f;
  // Section 4: r = sqrt(-2 ln u1).
  float lnu = projectionLogUniform(n);
  float r = std::sqrt(-2.0f * lnu);
  // Section 5: cos(2 pi u2) by quadrant; sin(2 pi u2) = cos(2 pi u2 - pi/2)
  // is the quadrant before.
  float theta = f * coefficients().halfPi;
  float cosv, sinv;
  projectionCosSin(theta, cosv, sinv);
  if (sine)
    q = (q + 3u) & 3u;
  float c;
  switch (q) {
  case 0:
    c = cosv;
    break;
  case 1:
    c = -sinv;
    break;
  case 2:
    c = -cosv;
    break;
  default:
    c = sinv;
    break;
  }
  return r * c;
}

float sigreg::projectionGaussian(uint64_t seed, uint32_t d, uint32_t s) {
  std::array<uint32_t, 2> key = {static_cast<uint32_t>(seed & 0xFFFFFFFFu),
                                 static_cast<uint32_t>(seed >> 32)};
  // Section 2: one Philox call gives the four rows 4 (d / 4) .. + 3 of
  // column s: rows 0, 1 from words (x0, x1), rows 2, 3 from (x2, x3); odd rows
  // take the sine of the Box-Muller pair.
  std::array<uint32_t, 4> x = philox4x32_10({d >> 2, s, 0u, 0u}, key);
  bool second = (d & 2u) != 0;
  return gaussianFromPhiloxWords(second ? x[2] : x[0], second ? x[3] : x[1],
                                 (d & 1u) != 0);
}

void sigreg::generateProjection(uint64_t seed, int64_t D, int64_t S, float *A,
                                float *G) {
  if (D <= 0 || S <= 0 || !A)
    return;
  std::vector<float> sumSq(static_cast<size_t>(S), 0.0f);
  for (int64_t d = 0; d < D; ++d) {
    for (int64_t s = 0; s < S; ++s) {
      float g = projectionGaussian(seed, static_cast<uint32_t>(d),
                                   static_cast<uint32_t>(s));
      A[d * S + s] = g;
      if (G)
        G[d * S + s] = g;
      float sq = g * g;
      sumSq[s] = sumSq[s] + sq;
    }
  }
  for (int64_t s = 0; s < S; ++s)
    sumSq[s] = std::sqrt(sumSq[s]);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t s = 0; s < S; ++s)
      A[d * S + s] = A[d * S + s] / sumSq[s];
}
