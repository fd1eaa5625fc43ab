//===- LimitsTest.cpp - overflow-checked sizes and the memory budget ------===//

#include "sigreg/Reference/Limits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using namespace sigreg;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(Limits, CheckedArithmetic) {
  EXPECT_EQ(checkedMul(3, 7), 21);
  EXPECT_EQ(checkedMul(0, kMax), 0);
  EXPECT_EQ(checkedMul(kMax, 1), kMax);
  EXPECT_FALSE(checkedMul(kMax, 2));
  EXPECT_FALSE(checkedMul(int64_t(1) << 32, int64_t(1) << 31));
  EXPECT_FALSE(checkedMul(-1, 2));
  EXPECT_EQ(checkedAdd(kMax - 1, 1), kMax);
  EXPECT_FALSE(checkedAdd(kMax, 1));
}

TEST(Limits, FootprintOfTheBlogShape) {
  ProblemSizes p;
  p.N = 32;
  p.D = 2048;
  p.S = 1024;
  p.P = 17;
  p.inputBytes = 2;
  Footprint f;
  ASSERT_EQ(computeFootprint(p, f), "");
  EXPECT_EQ(f.input, 32 * 2048 * 2);
  EXPECT_EQ(f.projection, 2048 * 1024 * 4);
  EXPECT_EQ(f.ecf, 2 * 1024 * 17 * 4);
  EXPECT_EQ(f.fusedWorkspace, 2 * 2 * 1024 * 17 * 4); // ceil(32 / 16) tiles
  EXPECT_EQ(f.naiveWorkspace, int64_t(32) * 1024 * 17 * 4);
  // x (bf16 and f64), A (f64 and bf16), y f64, cos/sin f64.
  EXPECT_EQ(f.host, 32 * 2048 * (2 + 8) + 2048 * 1024 * (8 + 2) +
                        32 * 1024 * 8 + 2 * 1024 * 17 * 8);
  EXPECT_EQ(checkMemoryBudget(f, RunKind(), kDefaultMemoryBudget), "");
}

// The heap corruption of issue 11: V*N*D wrapped to a small number.
TEST(Limits, OverflowNamesTheProduct) {
  ProblemSizes p;
  p.V = 4;
  p.N = int64_t(1) << 62;
  p.D = 1;
  Footprint f;
  EXPECT_EQ(computeFootprint(p, f),
            "V*N*D = 4*4611686018427387904*1 overflows 64 bits");
  EXPECT_EQ(f.input, 0);
  p = ProblemSizes();
  p.D = 16;
  p.S = kMax;
  EXPECT_EQ(computeFootprint(p, f), "D*S = 16*9223372036854775807 overflows "
                                    "64 bits");
  // Bytes overflow although the element count does not.
  p = ProblemSizes();
  p.D = 2;
  p.S = int64_t(1) << 60;
  EXPECT_EQ(computeFootprint(p, f),
            "projection bytes D*S*4 = 2305843009213693952*4 overflows 64 bits");
  p.S = 0;
  EXPECT_EQ(computeFootprint(p, f), "sizes must be positive");
}

TEST(Limits, Budget) {
  ProblemSizes p;
  p.N = 600;
  p.D = 16;
  p.S = 8;
  p.P = 17;
  Footprint f;
  ASSERT_EQ(computeFootprint(p, f), "");
  RunKind cpu;
  cpu.naiveCpu = true;
  EXPECT_EQ(checkMemoryBudget(f, cpu, 1 << 20), "");
  std::string e = checkMemoryBudget(f, cpu, 300 << 10);
  EXPECT_EQ(e, "the naive CPU path's [V, N, S, P] workspace need 326400 bytes "
               "(0.0 GiB), more than the memory budget of 307200 bytes (0.0 "
               "GiB) (raise it with --max-memory)");
  RunKind compileOnly;
  compileOnly.hostInputs = false;
  EXPECT_EQ(checkMemoryBudget(f, compileOnly, 1), "");
}

TEST(Limits, ParseByteSize) {
  uint64_t v = 0;
  EXPECT_TRUE(parseByteSize("1000", v));
  EXPECT_EQ(v, 1000u);
  EXPECT_TRUE(parseByteSize("16G", v));
  EXPECT_EQ(v, 16ull << 30);
  EXPECT_TRUE(parseByteSize("3k", v));
  EXPECT_EQ(v, 3072u);
  EXPECT_TRUE(parseByteSize("2T", v));
  EXPECT_EQ(v, 2ull << 40);
  for (const char *bad : {"", "G", "0", "-1", "1.5G", "12Q",
                          "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(parseByteSize(bad, v)) << bad;
}

TEST(Limits, SliceArgument) {
  EXPECT_TRUE(sliceArgumentRepresentable(3.0, 10.0));
  EXPECT_TRUE(sliceArgumentRepresentable(kMaxTMax, 1e32));
  EXPECT_FALSE(sliceArgumentRepresentable(kMaxTMax, 1e33));
  EXPECT_FALSE(sliceArgumentRepresentable(1e308, 10.0));
}

} // namespace
