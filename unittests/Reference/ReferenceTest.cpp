//===- ReferenceTest.cpp - Float64 reference of SIGReg --------------------===//

#include "sigreg/Reference/Reference.h"
#include "sigreg/Reference/Inputs.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace sigreg;

namespace {

std::vector<double> randomInput(uint64_t seed, int64_t count) {
  std::vector<float> f(count);
  fillNormal(seed, f.data(), count);
  return std::vector<double>(f.begin(), f.end());
}

double relL2(const std::vector<double> &a, const std::vector<double> &b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

TEST(Reference, IntegrationGrid) {
  IntegrationGrid g = integrationGrid(17, 3.0);
  ASSERT_EQ(g.t.size(), 17u);
  EXPECT_EQ(g.t[0], 0.0);
  EXPECT_DOUBLE_EQ(g.t[16], 3.0);
  EXPECT_DOUBLE_EQ(g.t[4], 0.75);
  EXPECT_EQ(g.phi[0], 1.0);
  EXPECT_DOUBLE_EQ(g.phi[16], std::exp(-4.5));
  const double dt = 3.0 / 16;
  EXPECT_DOUBLE_EQ(g.w[0], dt);
  EXPECT_DOUBLE_EQ(g.w[16], dt * std::exp(-4.5));
  EXPECT_DOUBLE_EQ(g.w[8], 2 * dt * std::exp(-0.5 * 1.5 * 1.5));
  // sum w ~ integral of 2 exp(-t^2/2) over [0, tMax].
  for (auto [P, tMax, tol] :
       {std::tuple{17, 3.0, 1e-3}, std::tuple{33, 2.0, 2e-4},
        std::tuple{2001, 3.0, 1e-7}}) {
    IntegrationGrid h = integrationGrid(P, tMax);
    double sum = 0.0;
    for (double w : h.w)
      sum += w;
    double exact = 2.0 * std::sqrt(3.141592653589793 / 2.0) *
                   std::erf(tMax / std::sqrt(2.0));
    EXPECT_NEAR(sum, exact, tol) << "P=" << P;
  }
  EXPECT_TRUE(integrationGrid(1, 3.0).t.empty());
}

TEST(Reference, IdenticalRowsClosedForm) {
  const int64_t N = 6, D = 5, S = 4;
  LossParams p;
  p.numSlices = S;
  p.numPoints = 9;
  p.tMax = 2.5;
  std::vector<double> A = referenceProjection(17, D, S);
  std::vector<double> row = randomInput(3, D);
  std::vector<double> x;
  for (int64_t n = 0; n < N; ++n)
    x.insert(x.end(), row.begin(), row.end());
  std::vector<double> T = referenceStatistics(x.data(), 1, N, D, A.data(), p);
  ASSERT_EQ(T.size(), size_t(S));
  IntegrationGrid g = integrationGrid(p.numPoints, p.tMax);
  for (int64_t s = 0; s < S; ++s) {
    double y = 0.0;
    for (int64_t d = 0; d < D; ++d)
      y += row[d] * A[d * S + s];
    double expected = 0.0;
    for (int64_t k = 0; k < p.numPoints; ++k) {
      double c = std::cos(g.t[k] * y) - g.phi[k], sn = std::sin(g.t[k] * y);
      expected += g.w[k] * (c * c + sn * sn);
    }
    expected *= N;
    EXPECT_NEAR(T[s], expected, 1e-12 * expected);
  }
}

TEST(Reference, ViewsAreIndependent) {
  const int64_t V = 3, N = 7, D = 6, S = 5;
  LossParams p;
  p.numSlices = S;
  std::vector<double> A = referenceProjection(1, D, S);
  std::vector<double> x = randomInput(8, V * N * D);
  std::vector<double> T = referenceStatistics(x.data(), V, N, D, A.data(), p);
  std::vector<double> G = referenceGradient(x.data(), V, N, D, A.data(), p);
  ASSERT_EQ(T.size(), size_t(V * S));
  for (int64_t v = 0; v < V; ++v) {
    const double *xv = x.data() + v * N * D;
    std::vector<double> Tv = referenceStatistics(xv, 1, N, D, A.data(), p);
    std::vector<double> Gv = referenceGradient(xv, 1, N, D, A.data(), p);
    for (int64_t s = 0; s < S; ++s)
      EXPECT_DOUBLE_EQ(T[v * S + s], Tv[s]);
    // The mean divides by V * S instead of S.
    for (int64_t i = 0; i < N * D; ++i)
      EXPECT_NEAR(G[v * N * D + i] * V, Gv[i],
                  1e-15 + 1e-12 * std::fabs(Gv[i]));
  }
}

// Issue 11: sizes whose products wrap are invalid arguments (an empty
// result), not a wrapped allocation.
TEST(Reference, OverflowingSizesAreInvalid) {
  double x = 1.0, a = 1.0;
  LossParams p;
  p.numSlices = 1;
  p.numPoints = 3;
  EXPECT_TRUE(referenceLoss(&x, 4, int64_t(1) << 62, 1, &a, p).empty());
  EXPECT_TRUE(referenceGradient(&x, 1, int64_t(1) << 62, 4, &a, p).empty());
  p.numSlices = int64_t(1) << 62;
  EXPECT_TRUE(referenceStatistics(&x, 1, 1, 8, &a, p).empty());
  EXPECT_TRUE(referenceProjection(0, 8, int64_t(1) << 62).empty());
}

TEST(Reference, Reductions) {
  const int64_t V = 2, N = 9, D = 4, S = 3;
  LossParams p;
  p.numSlices = S;
  std::vector<double> A = referenceProjection(2, D, S);
  std::vector<double> x = randomInput(4, V * N * D);
  std::vector<double> T = referenceStatistics(x.data(), V, N, D, A.data(), p);
  double sum = 0.0;
  for (double t : T)
    sum += t;
  p.reduction = Reduction::Mean;
  std::vector<double> mean = referenceLoss(x.data(), V, N, D, A.data(), p);
  ASSERT_EQ(mean.size(), 1u);
  EXPECT_NEAR(mean[0], sum / (V * S), 1e-14 * sum);
  p.reduction = Reduction::Sum;
  std::vector<double> total = referenceLoss(x.data(), V, N, D, A.data(), p);
  ASSERT_EQ(total.size(), 1u);
  EXPECT_NEAR(total[0], sum, 1e-14 * sum);
  p.reduction = Reduction::None;
  EXPECT_EQ(referenceLoss(x.data(), V, N, D, A.data(), p), T);
}

TEST(Reference, ClipModes) {
  const int64_t V = 2, N = 5, D = 4, S = 8;
  LossParams p;
  p.numSlices = S;
  p.reduction = Reduction::None;
  std::vector<double> A = referenceProjection(5, D, S);
  std::vector<double> x = randomInput(6, V * N * D);
  std::vector<double> T = referenceStatistics(x.data(), V, N, D, A.data(), p);
  std::vector<double> sorted = T;
  std::sort(sorted.begin(), sorted.end());
  const double clip = 0.5 * (sorted[7] + sorted[8]);
  p.clipValue = clip;
  p.clip = ClipMode::ZeroBelow;
  std::vector<double> Tz = referenceStatistics(x.data(), V, N, D, A.data(), p);
  p.clip = ClipMode::ClampMin;
  std::vector<double> Tc = referenceStatistics(x.data(), V, N, D, A.data(), p);
  int clipped = 0;
  for (size_t i = 0; i < T.size(); ++i) {
    if (T[i] < clip) {
      ++clipped;
      EXPECT_EQ(Tz[i], 0.0);
      EXPECT_EQ(Tc[i], clip);
    } else {
      EXPECT_EQ(Tz[i], T[i]);
      EXPECT_EQ(Tc[i], T[i]);
    }
  }
  EXPECT_EQ(clipped, 8);
  // Clipped slices carry no gradient: with every slice clipped, dL/dx = 0.
  p.clipValue = sorted.back() * 2;
  std::vector<double> G = referenceGradient(x.data(), V, N, D, A.data(), p);
  for (double g : G)
    EXPECT_EQ(g, 0.0);
}

TEST(Reference, WorldSizeScalesStatisticNotGradient) {
  const int64_t N = 5, D = 3, S = 4;
  LossParams p;
  p.numSlices = S;
  std::vector<double> A = referenceProjection(9, D, S);
  std::vector<double> x = randomInput(10, N * D);
  std::vector<double> T1 = referenceStatistics(x.data(), 1, N, D, A.data(), p);
  std::vector<double> G1 = referenceGradient(x.data(), 1, N, D, A.data(), p);
  p.worldSize = 4;
  std::vector<double> T4 = referenceStatistics(x.data(), 1, N, D, A.data(), p);
  std::vector<double> G4 = referenceGradient(x.data(), 1, N, D, A.data(), p);
  for (int64_t s = 0; s < S; ++s)
    EXPECT_NEAR(T4[s], 4 * T1[s], 1e-14 * T4[s]);
  EXPECT_EQ(G1, G4);
}

// Central finite differences of the loss against referenceGradient.
void checkGradient(LossParams p, int64_t V, int64_t N, int64_t D,
                   uint64_t seed) {
  std::vector<double> A = referenceProjection(seed, D, p.numSlices);
  std::vector<double> x = randomInput(seed + 100, V * N * D);
  std::vector<double> G = referenceGradient(x.data(), V, N, D, A.data(), p);
  ASSERT_EQ(G.size(), x.size());
  auto loss = [&](const std::vector<double> &xx) {
    std::vector<double> L = referenceLoss(xx.data(), V, N, D, A.data(), p);
    double sum = 0.0;
    for (double l : L)
      sum += l;
    return sum;
  };
  std::vector<double> fd(x.size());
  const double h = 1e-5;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    fd[i] = (loss(xp) - loss(xm)) / (2 * h);
  }
  // With W ranks holding the same x, perturbing x moves all W copies: the
  // finite difference is W times the per-rank partial derivative.
  for (double &g : G)
    g *= static_cast<double>(p.worldSize);
  EXPECT_LT(relL2(G, fd), 1e-5)
      << "reduction " << toString(p.reduction) << " clip " << toString(p.clip);
}

TEST(Reference, GradientMatchesFiniteDifferences) {
  LossParams p;
  p.numSlices = 3;
  p.numPoints = 5;
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
    p.reduction = r;
    checkGradient(p, 2, 5, 7, 21);
  }
  p.reduction = Reduction::Mean;
  p.numPoints = 17;
  p.worldSize = 3;
  checkGradient(p, 1, 8, 5, 22);
}

TEST(Reference, GradientWithClipping) {
  const int64_t V = 2, N = 5, D = 7;
  LossParams p;
  p.numSlices = 3;
  p.numPoints = 5;
  std::vector<double> A = referenceProjection(23, D, 3);
  std::vector<double> x = randomInput(123, V * N * D);
  std::vector<double> T = referenceStatistics(x.data(), V, N, D, A.data(), p);
  std::sort(T.begin(), T.end());
  p.clipValue = 0.5 * (T[2] + T[3]); // Half the slices clipped, far from ties.
  for (ClipMode c : {ClipMode::ZeroBelow, ClipMode::ClampMin}) {
    p.clip = c;
    checkGradient(p, V, N, D, 23);
  }
}

// The term a slice near the clip threshold adds to dL/dx, with the gate open,
// is what moving the threshold across its statistic changes.
TEST(Reference, GradientFlipNormsAreTheGatedTerm) {
  const int64_t V = 2, N = 6, D = 7, S = 4;
  LossParams p;
  p.numSlices = S;
  p.numPoints = 9;
  std::vector<double> A = referenceProjection(31, D, S);
  std::vector<double> x = randomInput(321, V * N * D);
  std::vector<double> T = referenceStatistics(x.data(), V, N, D, A.data(), p);
  const int64_t flip = 5; // view 1, slice 1
  for (ClipMode c : {ClipMode::ZeroBelow, ClipMode::ClampMin}) {
    p.clip = c;
    p.clipValue = T[flip] * (1 - 1e-9);
    std::vector<double> open =
        referenceGradient(x.data(), V, N, D, A.data(), p);
    p.clipValue = T[flip] * (1 + 1e-9);
    std::vector<double> shut =
        referenceGradient(x.data(), V, N, D, A.data(), p);
    double diff2 = 0.0;
    for (size_t i = 0; i < open.size(); ++i)
      diff2 += (open[i] - shut[i]) * (open[i] - shut[i]);
    p.clipValue = T[flip];
    std::vector<double> norms;
    referenceGradient(x.data(), V, N, D, A.data(), p, &norms, 1e-6);
    ASSERT_EQ(norms.size(), size_t(V * S));
    for (int64_t vs = 0; vs < V * S; ++vs) {
      if (vs != flip && std::fabs(T[vs] - T[flip]) > 1e-6 * T[vs])
        EXPECT_EQ(norms[vs], 0.0) << vs;
    }
    EXPECT_GT(norms[flip], 0.0);
    EXPECT_NEAR(norms[flip], std::sqrt(diff2), 1e-9 * norms[flip]);
  }
  p.clip = ClipMode::None;
  std::vector<double> none = {1.0};
  referenceGradient(x.data(), V, N, D, A.data(), p, &none, 1e-6);
  EXPECT_TRUE(none.empty());
}

TEST(Reference, Projection) {
  const int64_t D = 33, S = 9;
  std::vector<double> A = referenceProjection(77, D, S);
  ASSERT_EQ(A.size(), size_t(D * S));
  for (int64_t s = 0; s < S; ++s) {
    double norm = 0.0;
    for (int64_t d = 0; d < D; ++d)
      norm += A[d * S + s] * A[d * S + s];
    EXPECT_NEAR(norm, 1.0, 1e-14);
  }
  EXPECT_TRUE(referenceProjection(1, 0, 3).empty());
}

TEST(Reference, InvalidArguments) {
  LossParams p;
  p.numSlices = 2;
  std::vector<double> x(6, 1.0), A(6, 0.5);
  EXPECT_TRUE(referenceLoss(x.data(), 1, 0, 3, A.data(), p).empty());
  EXPECT_TRUE(referenceGradient(nullptr, 1, 2, 3, A.data(), p).empty());
  p.numPoints = 1;
  EXPECT_TRUE(referenceStatistics(x.data(), 1, 2, 3, A.data(), p).empty());
}

TEST(Reference, Strings) {
  for (ClipMode c : {ClipMode::None, ClipMode::ZeroBelow, ClipMode::ClampMin}) {
    ClipMode parsed = ClipMode::None;
    EXPECT_TRUE(parseClipMode(toString(c), parsed));
    EXPECT_EQ(parsed, c);
  }
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
    Reduction parsed = Reduction::Mean;
    EXPECT_TRUE(parseReduction(toString(r), parsed));
    EXPECT_EQ(parsed, r);
  }
  EXPECT_STREQ(toString(ClipMode::ZeroBelow), "zero_below");
  EXPECT_STREQ(toString(ClipMode::ClampMin), "clamp_min");
  ClipMode c = ClipMode::ClampMin;
  EXPECT_FALSE(parseClipMode("zero", c));
  EXPECT_EQ(c, ClipMode::ClampMin);
  Reduction r = Reduction::Sum;
  EXPECT_FALSE(parseReduction("Mean", r));
  EXPECT_FALSE(parseReduction("", r));
  EXPECT_EQ(r, Reduction::Sum);
}

} // namespace
