//===- InputsTest.cpp - Seeded random inputs ------------------------------===//

#include "sigreg/Reference/Inputs.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace sigreg;

namespace {

TEST(Inputs, DeterministicAndSeeded) {
  std::vector<float> a(1001), b(1001), c(1001);
  fillNormal(5, a.data(), 1001);
  fillNormal(5, b.data(), 1001);
  fillNormal(6, c.data(), 1001);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Inputs, StandardNormal) {
  const int64_t n = 200001;
  std::vector<float> v(n);
  fillNormal(123, v.data(), n, 2.0f);
  double sum = 0.0, sumSq = 0.0;
  for (float f : v) {
    ASSERT_TRUE(std::isfinite(f));
    sum += f;
    sumSq += double(f) * f;
  }
  double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(sumSq / n - mean * mean, 4.0, 0.06);
}

TEST(Inputs, NeverAllZero) {
  for (int64_t count : {1, 2, 3}) {
    std::vector<float> v(count, 0.0f);
    fillNormal(0, v.data(), count);
    bool any = false;
    for (float f : v)
      any |= f != 0.0f;
    EXPECT_TRUE(any);
  }
  float one = 0.0f;
  fillNormal(9, &one, 1, 0.0f);
  EXPECT_NE(one, 0.0f);
}

} // namespace
