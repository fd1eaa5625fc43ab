//===- ReferenceThreadsTest.cpp - Multithreaded float64 reference ---------===//
//
// The reference is blocked, vectorized and multithreaded but must compute the
// same float64 values as the textbook loops, bitwise identically for any
// thread count (SIGREG_REFERENCE_THREADS).
//
//===----------------------------------------------------------------------===//

#include "sigreg/Reference/Inputs.h"
#include "sigreg/Reference/Philox.h"
#include "sigreg/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace sigreg;

namespace {

std::vector<double> randomInput(uint64_t seed, int64_t count) {
  std::vector<float> f(count);
  fillNormal(seed, f.data(), count);
  return std::vector<double>(f.begin(), f.end());
}

bool bitwiseEqual(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

double maxRelErr(const std::vector<double> &a, const std::vector<double> &b) {
  double scale = 0.0, err = 0.0;
  for (size_t i = 0; i < b.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    err = std::max(err, std::abs(a[i] - b[i]));
  }
  return scale > 0.0 ? err / scale : err;
}

/// Sets SIGREG_REFERENCE_THREADS for its lifetime.
class ScopedThreads {
public:
  explicit ScopedThreads(int threads) {
    if (const char *old = std::getenv("SIGREG_REFERENCE_THREADS")) {
      hadOld = true;
      oldValue = old;
    }
    setenv("SIGREG_REFERENCE_THREADS", std::to_string(threads).c_str(), 1);
  }
  ~ScopedThreads() {
    if (hadOld)
      setenv("SIGREG_REFERENCE_THREADS", oldValue.c_str(), 1);
    else
      unsetenv("SIGREG_REFERENCE_THREADS");
  }

private:
  bool hadOld = false;
  std::string oldValue;
};

/// Textbook triple loops of docs/CONTRACT.md sections 1-2: statistics and
/// gradient.
struct Naive {
  std::vector<double> T, dx;
};

Naive naiveReference(const std::vector<double> &x, int64_t V, int64_t N,
                     int64_t D, const std::vector<double> &A,
                     const LossParams &p) {
  const int64_t S = p.numSlices, P = p.numPoints;
  IntegrationGrid g = integrationGrid(P, p.tMax);
  std::vector<double> y(V * N * S), c(V * S * P), sn(V * S * P);
  for (int64_t vn = 0; vn < V * N; ++vn)
    for (int64_t s = 0; s < S; ++s) {
      double acc = 0.0;
      for (int64_t d = 0; d < D; ++d)
        acc += x[vn * D + d] * A[d * S + s];
      y[vn * S + s] = acc;
    }
  Naive out;
  out.T.resize(V * S);
  std::vector<double> gate(V * S, 1.0);
  for (int64_t v = 0; v < V; ++v)
    for (int64_t s = 0; s < S; ++s) {
      double T = 0.0;
      for (int64_t k = 0; k < P; ++k) {
        double cs = 0.0, ss = 0.0;
        for (int64_t n = 0; n < N; ++n) {
          cs += std::cos(g.t[k] * y[(v * N + n) * S + s]);
          ss += std::sin(g.t[k] * y[(v * N + n) * S + s]);
        }
        c[(v * S + s) * P + k] = cs / N;
        sn[(v * S + s) * P + k] = ss / N;
        double dc = cs / N - g.phi[k];
        T += g.w[k] * (dc * dc + (ss / N) * (ss / N));
      }
      T *= static_cast<double>(N * p.worldSize);
      if (p.clip != ClipMode::None && T < p.clipValue) {
        T = p.clip == ClipMode::ZeroBelow ? 0.0 : p.clipValue;
        gate[v * S + s] = 0.0;
      }
      out.T[v * S + s] = T;
    }
  const double r = p.reduction == Reduction::Mean ? 1.0 / (V * S) : 1.0;
  out.dx.assign(V * N * D, 0.0);
  for (int64_t v = 0; v < V; ++v)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t vs = v * S + s, vn = v * N + n;
        double dy = 0.0;
        for (int64_t k = 0; k < P; ++k) {
          double arg = g.t[k] * y[vn * S + s];
          dy += g.w[k] * g.t[k] *
                (-(c[vs * P + k] - g.phi[k]) * std::sin(arg) +
                 sn[vs * P + k] * std::cos(arg));
        }
        dy *= 2.0 * r * gate[vs];
        for (int64_t d = 0; d < D; ++d)
          out.dx[vn * D + d] += dy * A[d * S + s];
      }
  return out;
}

struct Results {
  std::vector<double> T, loss, dx, A;
};

Results runReference(int threads, const std::vector<double> &x, int64_t V,
                     int64_t N, int64_t D, int64_t S, const LossParams &p) {
  ScopedThreads scoped(threads);
  Results r;
  r.A = referenceProjection(99, D, S);
  r.T = referenceStatistics(x.data(), V, N, D, r.A.data(), p);
  r.loss = referenceLoss(x.data(), V, N, D, r.A.data(), p);
  r.dx = referenceGradient(x.data(), V, N, D, r.A.data(), p);
  return r;
}

// Ragged everywhere: rows, slices and D are not multiples of any block size.
TEST(ReferenceThreads, IdenticalForAnyThreadCount) {
  const int64_t V = 2, N = 67, D = 37, S = 29;
  LossParams p;
  p.numSlices = S;
  p.numPoints = 9;
  p.tMax = 2.5;
  std::vector<double> x = randomInput(5, V * N * D);
  Results one = runReference(1, x, V, N, D, S, p);
  ASSERT_EQ(one.T.size(), size_t(V * S));
  ASSERT_EQ(one.dx.size(), size_t(V * N * D));
  for (int threads : {2, 3, 4, 7}) {
    Results many = runReference(threads, x, V, N, D, S, p);
    EXPECT_TRUE(bitwiseEqual(one.A, many.A)) << threads;
    EXPECT_TRUE(bitwiseEqual(one.T, many.T)) << threads;
    EXPECT_TRUE(bitwiseEqual(one.loss, many.loss)) << threads;
    EXPECT_TRUE(bitwiseEqual(one.dx, many.dx)) << threads;
  }
  // Repeatable run to run.
  Results again = runReference(4, x, V, N, D, S, p);
  EXPECT_TRUE(bitwiseEqual(one.T, again.T));
  EXPECT_TRUE(bitwiseEqual(one.dx, again.dx));
}

// The AVX-512, AVX2 and generic micro kernels give the same bits.
TEST(ReferenceThreads, IdenticalForAnyKernel) {
  const int64_t V = 1, N = 45, D = 70, S = 23;
  LossParams p;
  p.numSlices = S;
  std::vector<double> x = randomInput(8, V * N * D);
  Results best = runReference(3, x, V, N, D, S, p);
  for (const char *isa : {"avx2", "generic"}) {
    setenv("SIGREG_REFERENCE_ISA", isa, 1);
    Results other = runReference(3, x, V, N, D, S, p);
    unsetenv("SIGREG_REFERENCE_ISA");
    EXPECT_TRUE(bitwiseEqual(best.T, other.T)) << isa;
    EXPECT_TRUE(bitwiseEqual(best.dx, other.dx)) << isa;
  }
}

TEST(ReferenceThreads, MatchesTripleLoops) {
  const int64_t V = 2, N = 53, D = 45, S = 19;
  for (ClipMode clip : {ClipMode::None, ClipMode::ClampMin}) {
    LossParams p;
    p.numSlices = S;
    p.numPoints = 17;
    p.tMax = 3.0;
    p.clip = clip;
    p.clipValue = 0.5;
    std::vector<double> x = randomInput(11, V * N * D);
    Results fast = runReference(4, x, V, N, D, S, p);
    // The projection against its definition: raw Gaussians, column-normalized.
    std::vector<double> A(D * S);
    for (int64_t s = 0; s < S; ++s) {
      double sumSq = 0.0;
      for (int64_t d = 0; d < D; ++d) {
        double gv = projectionGaussian(99, d, s);
        sumSq += gv * gv;
      }
      for (int64_t d = 0; d < D; ++d)
        A[d * S + s] = projectionGaussian(99, d, s) / std::sqrt(sumSq);
    }
    EXPECT_LT(maxRelErr(fast.A, A), 1e-14);
    Naive naive = naiveReference(x, V, N, D, fast.A, p);
    EXPECT_LT(maxRelErr(fast.T, naive.T), 1e-12);
    EXPECT_LT(maxRelErr(fast.dx, naive.dx), 1e-12);
    double mean = 0.0;
    for (double t : naive.T)
      mean += t;
    mean /= V * S;
    ASSERT_EQ(fast.loss.size(), 1u);
    EXPECT_NEAR(fast.loss[0], mean, 1e-12 * std::abs(mean));
  }
}

TEST(ReferenceThreads, BadThreadEnvFallsBack) {
  const int64_t N = 9, D = 6, S = 5;
  LossParams p;
  p.numSlices = S;
  std::vector<double> x = randomInput(2, N * D);
  Results base = runReference(1, x, 1, N, D, S, p);
  setenv("SIGREG_REFERENCE_THREADS", "zero", 1);
  std::vector<double> T =
      referenceStatistics(x.data(), 1, N, D, base.A.data(), p);
  unsetenv("SIGREG_REFERENCE_THREADS");
  EXPECT_TRUE(bitwiseEqual(base.T, T));
}

} // namespace
