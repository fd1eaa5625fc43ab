//===- HarnessTest.cpp - Inputs and validation (no GPU needed) ------------===//

#include "sigreg/Runtime/Harness.h"

#include "sigreg/Reference/Numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace sigreg::runtime;

namespace {
ProblemDesc smallProblem(const char *dtype, const char *reduction = "mean") {
  ProblemDesc p;
  p.N = 7;
  p.D = 5;
  p.S = 3;
  p.P = 9;
  p.dtype = dtype;
  p.reduction = reduction;
  return p;
}

float poison() {
  float f;
  uint32_t bits = kPoisonPattern;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(Harness, Tolerances) {
  EXPECT_DOUBLE_EQ(toleranceForDtype("f32"), 1e-4);
  EXPECT_DOUBLE_EQ(toleranceForDtype("bf16"), 2e-3);
  EXPECT_DOUBLE_EQ(toleranceForDtype("f16"), 2e-3);
}

TEST(Harness, ValidateScalarLoss) {
  ProblemDesc p = smallProblem("f32");
  std::vector<double> ref = {2.0};
  ValidationResult r = validateOutput(p, {2.0001f}, ref);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_NEAR(r.relError, 5e-5, 1e-6);
  r = validateOutput(p, {2.001f}, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("exceeds tolerance"), std::string::npos);
  // bf16 inputs get the looser bound.
  p.dtype = "bf16";
  EXPECT_TRUE(validateOutput(p, {2.001f}, ref).passed);
  r = validateOutput(p, {std::numeric_limits<float>::quiet_NaN()}, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.nonFinite, 1);
  r = validateOutput(p, {poison()}, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_NE(r.message.find("never written"), std::string::npos);
  r = validateOutput(p, {}, ref);
  EXPECT_FALSE(r.passed);
}

TEST(Harness, ValidateReductionNone) {
  ProblemDesc p = smallProblem("f32", "none");
  std::vector<double> ref = {1.0, 2.0, 0.0};
  ValidationResult r = validateOutput(p, {1.00001f, 2.0f, 0.0f}, ref);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.count, 3);
  EXPECT_NEAR(r.loss, 1.0, 1e-5);
  // Error at an exact zero is measured against the floor, a tenth of the
  // mean magnitude (1.0).
  r = validateOutput(p, {1.0f, 2.0f, 5e-6f}, ref);
  EXPECT_TRUE(r.passed) << r.message;
  r = validateOutput(p, {1.0f, 2.0f, 5e-5f}, ref);
  EXPECT_FALSE(r.passed);
  r = validateOutput(p, {1.0f, poison(), 0.0f}, ref);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.unwritten, 1);
}

// Issue 11: per-slice errors were scaled by the mean |reference|, so a
// slice with a small statistic could be off by far more than the tolerance.
TEST(Harness, PerSliceErrorsAreRelativeToEachSlice) {
  ProblemDesc p = smallProblem("bf16", "none");
  std::vector<double> ref = {10.0, 10.0, 2.0};
  // 1% off on the small slice: 0.02 / 2 = 1e-2 > 2e-3 (it was 0.02 / 7.3).
  ValidationResult r = validateOutput(p, {10.0f, 10.0f, 2.02f}, ref);
  EXPECT_FALSE(r.passed) << r.message;
  EXPECT_NEAR(r.relError, 1e-2, 1e-6);
  r = validateOutput(p, {10.0f, 10.0f, 2.002f}, ref);
  EXPECT_TRUE(r.passed) << r.message;
}

// Issue 11: when every slice is clipped, loss and reference are both exactly
// the clip value (or 0) and the check passed without testing anything.
TEST(Harness, AllClippedIsVacuous) {
  ProblemDesc p = smallProblem("f32", "none");
  p.S = 3;
  p.clip = "zero_below";
  p.clipValue = 1.0;
  std::vector<double> unclipped = {0.2, 0.3, 0.4};
  std::vector<double> ref = {0.0, 0.0, 0.0};
  ValidationResult r = validateOutput(p, {0.0f, 0.0f, 0.0f}, ref, &unclipped);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.vacuous);
  EXPECT_NE(r.message.find("vacuous check: every slice's statistic is "
                           "clipped"),
            std::string::npos)
      << r.message;
  p.clip = "clamp_min";
  p.reduction = "mean";
  r = validateOutput(p, {1.0f}, {1.0}, &unclipped);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.vacuous);
  // Without the unclipped statistics, a reference of exact zeros.
  p.clip = "zero_below";
  r = validateOutput(p, {0.0f}, {0.0});
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.message.find("the reference is exactly 0"), std::string::npos);
  // One unclipped slice makes the check meaningful.
  unclipped[2] = 3.0;
  p.reduction = "none";
  r = validateOutput(p, {0.0f, 0.0f, 3.0f}, {0.0, 0.0, 3.0}, &unclipped);
  EXPECT_TRUE(r.passed) << r.message;
}

// Issue 11: a statistic within rounding of a zero_below threshold may land
// on either side; that is not a mismatch. Far from it, it still is.
TEST(Harness, ClipThresholdMayFlip) {
  ProblemDesc p = smallProblem("f32", "none");
  p.S = 3;
  p.clip = "zero_below";
  p.clipValue = 1.0;
  std::vector<double> unclipped = {5.0, 1.00001, 3.0};
  std::vector<double> ref = {5.0, 1.00001, 3.0};
  ValidationResult r = validateOutput(p, {5.0f, 0.0f, 3.0f}, ref, &unclipped);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.ambiguous, 1);
  EXPECT_NE(r.message.find("1 slice within rounding of the clip threshold"),
            std::string::npos);
  unclipped[1] = ref[1] = 1.01;
  r = validateOutput(p, {5.0f, 0.0f, 3.0f}, ref, &unclipped);
  EXPECT_FALSE(r.passed) << r.message;
  // Reduced: the flip may change the mean by |1.00001 - 0| / 3.
  p.reduction = "mean";
  unclipped[1] = 1.00001;
  double mean = (5.0 + 1.00001 + 3.0) / 3.0;
  r = validateOutput(p, {static_cast<float>((5.0 + 3.0) / 3.0)}, {mean},
                     &unclipped);
  EXPECT_TRUE(r.passed) << r.message;
  r = validateOutput(p, {static_cast<float>((5.0 + 2.0) / 3.0)}, {mean},
                     &unclipped);
  EXPECT_FALSE(r.passed) << r.message;
}

TEST(Harness, GradientClipFlipSlack) {
  ProblemDesc p = smallProblem("bf16");
  p.gradient = true;
  p.clip = "clamp_min";
  p.clipValue = 1.0;
  // ||out - ref|| = 0.05 ||ref||, above the bf16 gradient tolerance (1e-2).
  std::vector<double> ref = {3.0, 4.0, 0.0, 0.0};
  std::vector<float> out = {3.0f, 4.0f, 0.25f, 0.0f};
  ValidationResult r = validateOutput(p, out, ref);
  EXPECT_FALSE(r.passed) << r.message;
  // A slice at the threshold whose term has norm 0.24 may have been gated
  // on: 0.01 of error remains (0.002 relative).
  std::vector<double> flipNorms = {0.0, 0.24, 0.0};
  r = validateOutput(p, out, ref, &flipNorms);
  EXPECT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.ambiguous, 1);
  EXPECT_NEAR(r.relError, 0.002, 1e-9);
  EXPECT_NEAR(r.l2RelError, 0.05, 1e-9);
  EXPECT_NE(r.message.find("1 slice within rounding of the clip threshold"),
            std::string::npos);
  // A smaller term cannot explain the error.
  flipNorms[1] = 0.1;
  r = validateOutput(p, out, ref, &flipNorms);
  EXPECT_FALSE(r.passed) << r.message;
}

TEST(Harness, GeneratesRoundedInputs) {
  for (const char *dtype : {"bf16", "f16", "f32"}) {
    ProblemDesc p = smallProblem(dtype);
    p.projection = "explicit";
    ProblemInputs in;
    Status s = generateInputs(p, 11, 12, in);
    ASSERT_TRUE(s.ok()) << s.message();
    size_t elem = dtypeBytes(dtype);
    ASSERT_EQ(in.x.size(), size_t(p.N * p.D) * elem);
    ASSERT_EQ(in.x64.size(), size_t(p.N * p.D));
    ASSERT_EQ(in.proj.size(), size_t(p.D * p.S) * elem);
    ASSERT_EQ(in.A64.size(), size_t(p.D * p.S));
    bool nonzero = false;
    for (size_t i = 0; i < in.x64.size(); ++i) {
      double v;
      if (elem == 2) {
        uint16_t h;
        std::memcpy(&h, in.x.data() + 2 * i, 2);
        v = std::string(dtype) == "bf16" ? sigreg::bf16ToFloat(h)
                                         : sigreg::halfToFloat(h);
      } else {
        float f;
        std::memcpy(&f, in.x.data() + 4 * i, 4);
        v = f;
      }
      EXPECT_EQ(v, in.x64[i]);
      nonzero |= v != 0.0;
    }
    EXPECT_TRUE(nonzero);
    std::vector<double> ref;
    s = computeReference(in, ref);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(ref.size(), 1u);
    EXPECT_TRUE(std::isfinite(ref[0]));
    EXPECT_GT(ref[0], 0.0);
  }
}

TEST(Harness, SeedProjectionAndViews) {
  ProblemDesc p = smallProblem("bf16", "none");
  p.V = 2;
  p.views = true;
  ProblemInputs in;
  ASSERT_TRUE(generateInputs(p, 3, 4, in).ok());
  EXPECT_TRUE(in.proj.empty());
  EXPECT_EQ(in.A64.size(), size_t(p.D * p.S));
  std::vector<double> ref;
  Status s = computeReference(in, ref);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(ref.size(), size_t(p.V * p.S));
  EXPECT_EQ(outputElementCount(p), p.V * p.S);
}

const char *const kArtifact = R"({"format":"sigreg-aot-v1","ptx":"k.ptx",
  "problem":{"N":32,"D":2048,"S":1024,"dtype":"bf16"},
  "buffers":[{"name":"x","role":"input","bytes":131072,"dtype":"bf16"},
             {"name":"out","role":"output","bytes":4,"dtype":"f32"}],
  "scalars":[{"name":"seed","type":"i64"}],
  "steps":[{"op":"memset32","buffer":"out","count":1,"value":0}]})";

Status check(const std::string &json) {
  Manifest m;
  std::string err;
  if (!parseManifest(json, m, err))
    return Status::error("parse: " + err);
  return checkProblemBuffers(m);
}

std::string with(const std::string &from, const std::string &to) {
  std::string s = kArtifact;
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return pos == std::string::npos ? s : s.replace(pos, from.size(), to);
}

// Issue 11: V*N*D wrapped in the host vectors (a malloc assertion), and
// t_max = 1e308 made t * y infinite (a NaN loss). Both are errors now,
// before anything is allocated.
TEST(Harness, RejectsOverflowingSizesAndHugeTMax) {
  ProblemDesc p = smallProblem("f32");
  p.V = 4;
  p.N = int64_t(1) << 62;
  p.D = 1;
  ProblemInputs in;
  Status st = generateInputs(p, 0, 1, in);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "problem too large: V*N*D = 4*4611686018427387904*1 overflows 64 "
            "bits");
  p = smallProblem("bf16");
  p.tMax = 1e308;
  st = generateInputs(p, 0, 1, in);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is not finite in f32"), std::string::npos)
      << st.message();
  p.tMax = 3.0;
  EXPECT_TRUE(generateInputs(p, 0, 1, in).ok());
}

TEST(Harness, ChecksProblemBuffers) {
  Status s = check(kArtifact);
  EXPECT_TRUE(s.ok()) << s.message();
  struct Case {
    std::string json;
    const char *expected;
  } cases[] = {
      {with("\"bytes\":131072", "\"bytes\":131070"),
       "buffer 'x' has 131070 bytes; the problem needs 131072"},
      {with("\"name\":\"x\"", "\"name\":\"xx\""), "lacks input buffer 'x'"},
      {with("\"dtype\":\"bf16\"}", "\"dtype\":\"f16\"}"),
       "buffer 'x' is bf16, problem dtype is f16"},
      {with("\"dtype\":\"bf16\"}",
            "\"dtype\":\"bf16\",\"projection\":\"explicit\"}"),
       "lacks input buffer 'proj'"},
      {with("\"bytes\":4,", "\"bytes\":8,"),
       "output buffer 'out' has 8 bytes; reduction mean needs 4"},
      {with("\"name\":\"seed\"", "\"name\":\"alpha\""),
       "unknown scalar 'alpha'"},
      {with("\"problem\":{\"N\":32,\"D\":2048,\"S\":1024,\"dtype\":\"bf16\"},",
            ""),
       "no \"problem\""},
  };
  for (const Case &c : cases) {
    Status r = check(c.json);
    EXPECT_FALSE(r.ok()) << c.expected;
    EXPECT_NE(r.message().find(c.expected), std::string::npos)
        << "got: " << r.message();
  }
}

// A training step: input grad, outputs out (the loss) and dx (dL/dx).
TEST(Harness, ChecksStepBuffers) {
  const std::string problem =
      "\"problem\":{\"N\":32,\"D\":2048,\"S\":1024,\"dtype\":\"bf16\"}";
  const std::string stepProblem =
      "\"problem\":{\"N\":32,\"D\":2048,\"S\":1024,\"dtype\":\"bf16\","
      "\"step\":true}";
  const std::string out =
      "{\"name\":\"out\",\"role\":\"output\",\"bytes\":4,\"dtype\":\"f32\"}";
  const std::string grad =
      "{\"name\":\"grad\",\"role\":\"input\",\"bytes\":4,\"dtype\":\"f32\"},";
  const std::string dx =
      ",{\"name\":\"dx\",\"role\":\"output\",\"bytes\":262144,\"dtype\":"
      "\"f32\"}";
  auto step = [&](const std::string &inputs, const std::string &outputs) {
    std::string s = with(problem, stepProblem);
    return s.replace(s.find(out), out.size(), inputs + outputs);
  };
  Status s = check(step(grad, out + dx));
  EXPECT_TRUE(s.ok()) << s.message();
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(step(grad, out + dx), m, err)) << err;
  EXPECT_TRUE(m.problem.step);
  EXPECT_EQ(outputBufferName(m), "out");
  EXPECT_EQ(outputElementCount(m.problem), 1);
  ProblemDesc g = stepGradientProblem(m.problem);
  EXPECT_TRUE(g.gradient);
  EXPECT_FALSE(g.step);
  EXPECT_EQ(outputElementCount(g), 32 * 2048);

  struct Case {
    std::string json;
    const char *expected;
  } cases[] = {
      {step("", out + dx), "needs an f32 input buffer 'grad' of 4 bytes"},
      {step(grad, out), "needs an f32 output buffer 'dx' of 262144 bytes"},
      {step(grad,
            out + ",{\"name\":\"dx\",\"role\":\"output\",\"bytes\":131072}"),
       "needs an f32 output buffer 'dx' of 262144 bytes"},
      {step(grad,
            out + dx + ",{\"name\":\"dy\",\"role\":\"output\",\"bytes\":4}"),
       "unexpected output buffer 'dy' in a step manifest"},
  };
  for (const Case &c : cases) {
    Status r = check(c.json);
    EXPECT_FALSE(r.ok()) << c.expected;
    EXPECT_NE(r.message().find(c.expected), std::string::npos)
        << "got: " << r.message();
  }
  // dL/dx rounded to x's dtype ("dx_dtype"): a bf16 dx of half the bytes.
  std::string rounded =
      step(grad, out + ",{\"name\":\"dx\",\"role\":\"output\",\"bytes\":131072,"
                       "\"dtype\":\"bf16\"}");
  rounded.replace(rounded.find("\"step\":true"), 11,
                  "\"step\":true,\"dx_dtype\":\"bf16\"");
  Status rs = check(rounded);
  EXPECT_TRUE(rs.ok()) << rs.message();
  std::string wrongSize = rounded;
  wrongSize.replace(wrongSize.rfind("131072"), 6, "262144");
  Status ws = check(wrongSize);
  EXPECT_NE(ws.message().find("needs a bf16 output buffer 'dx' of 131072"),
            std::string::npos)
      << ws.message();
  // Only a step's dx, and only in the problem's dtype.
  for (const char *bad :
       {"\"step\":true,\"dx_dtype\":\"f16\"", "\"dx_dtype\":\"bf16\""}) {
    std::string j = with(problem, stepProblem);
    j.replace(j.find("\"step\":true"), 11, bad);
    Manifest bm;
    EXPECT_FALSE(parseManifest(j, bm, err)) << bad;
    EXPECT_NE(err.find("problem.dx_dtype: must be \"f32\" or, for a step"),
              std::string::npos)
        << err;
  }
  // A step is neither a gradient nor an entry point.
  std::string both = with(problem, stepProblem);
  both.replace(both.find("\"step\":true"), 11,
               "\"step\":true,\"gradient\":true");
  EXPECT_FALSE(parseManifest(both, m, err));
  EXPECT_NE(err.find("problem.step"), std::string::npos) << err;
}

// The step's two references: the loss and the gradient of the same inputs,
// as computeReference gives them for the loss and the gradient problems; the
// step's gradient for its cotangent kStepCotangent, the gradient problem's
// for all ones.
// sigreg_aot_call's plan: x, the one other input and the one output by
// manifest index, the seed where declared; a precise refusal for the
// artifacts it does not fit (bind and run those).
TEST(Harness, PlansTheOneCallForm) {
  Manifest m;
  std::string err;
  CallPlan plan;
  ASSERT_TRUE(parseManifest(kArtifact, m, err)) << err;
  Status s = planCall(m, plan);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(plan.x, 0);
  EXPECT_EQ(plan.aux, -1);
  EXPECT_EQ(plan.out, 1);
  EXPECT_TRUE(plan.seeded);

  const std::string x =
      R"({"name":"x","role":"input","bytes":131072,"dtype":"bf16"},)";
  const std::string step = R"({"name":"step","role":"input","bytes":8},)";
  const std::string seed = R"({"name":"seed","type":"i64"})";
  std::string counter = with(x, step + x);
  counter.replace(counter.find(seed), seed.size(), "");
  ASSERT_TRUE(parseManifest(counter, m, err)) << err;
  s = planCall(m, plan);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(plan.x, 1);
  EXPECT_EQ(plan.aux, 0);
  EXPECT_EQ(plan.out, 2);
  EXPECT_FALSE(plan.seeded);

  struct Case {
    std::string json;
    const char *expected;
  };
  const std::string out =
      R"({"name":"out","role":"output","bytes":4,"dtype":"f32"})";
  const Case cases[] = {
      {with(x, ""), "no input 'x'"},
      {with(x, x + R"({"name":"dcos","role":"input","bytes":4},)" +
                   R"({"name":"dsin","role":"input","bytes":4},)"),
       "inputs 'dcos', 'dsin' besides 'x'"},
      {with(out, out + R"(,{"name":"dx","role":"output","bytes":4})"),
       "2 outputs"},
      {with(R"("name":"seed")", R"("name":"k")"), "the scalar 'k'"},
  };
  for (const Case &c : cases) {
    Manifest bad;
    ASSERT_TRUE(parseManifest(c.json, bad, err)) << err;
    Status r = planCall(bad, plan);
    EXPECT_FALSE(r.ok()) << c.expected;
    EXPECT_NE(r.message().find(c.expected), std::string::npos)
        << "got: " << r.message();
  }
}

TEST(Harness, StepReferences) {
  ProblemDesc p = smallProblem("f32");
  p.step = true;
  ProblemInputs in;
  ASSERT_TRUE(generateInputs(p, 3, 4, in).ok());
  std::vector<double> loss, grad, lossAlone, gradAlone;
  ASSERT_TRUE(computeReference(in, loss).ok());
  ASSERT_TRUE(computeGradientReference(in, grad).ok());
  ProblemInputs plain = in;
  plain.problem.step = false;
  ASSERT_TRUE(computeReference(plain, lossAlone).ok());
  plain.problem.gradient = true;
  ASSERT_TRUE(computeReference(plain, gradAlone).ok());
  EXPECT_EQ(loss, lossAlone);
  ASSERT_EQ(grad.size(), gradAlone.size());
  for (size_t i = 0; i < grad.size(); ++i)
    EXPECT_EQ(grad[i], gradAlone[i] * kStepCotangent) << i;
  EXPECT_EQ(grad.size(), size_t(p.V * p.N * p.D));
}
} // namespace
