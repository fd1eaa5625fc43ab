//===- ManifestTest.cpp - sigreg-aot-v1 manifest reader tests -------------===//

#include "sigreg/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <string>

using namespace sigreg::runtime;

namespace {
// The example of the format specification.
const char *const kValid = R"({
  "format": "sigreg-aot-v1",
  "function": "sigreg", "pipeline": "fused", "chip": "sm_90", "ptx": "sigreg.ptx",
  "problem": {"V":1,"N":32,"D":2048,"S":1024,"P":17,"t_max":3.0,"clip":"none","clip_value":0.0,
              "reduction":"mean","dtype":"bf16","projection":"seed","views":false},
  "buffers": [
    {"name":"x","role":"input","bytes":131072,"dtype":"bf16","shape":[32,2048]},
    {"name":"out","role":"output","bytes":4,"dtype":"f32","shape":[]},
    {"name":"ws0","role":"workspace","bytes":139264}
  ],
  "scalars": [{"name":"seed","type":"i64"}],
  "steps": [
    {"op":"memset32","buffer":"ws0","offset":0,"count":1024,"value":0},
    {"op":"copy","src":"ws0","src_offset":0,"dst":"out","dst_offset":0,"bytes":4},
    {"op":"launch","kernel":"sigreg_ecf","region":"trig_reduction","grid":[32,1,1],"block":[256,1,1],
     "shared_bytes":0,"args":[{"buffer":"x"},{"buffer":"ws0","offset":64},{"scalar":"seed"},{"i32":17},{"i64":5},{"f32":1.5},{"f64":2.0}]}
  ]
})";

std::string replaced(const std::string &from, const std::string &to) {
  std::string s = kValid;
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "fixture lacks: " << from;
  if (pos != std::string::npos)
    s.replace(pos, from.size(), to);
  return s;
}

TEST(Manifest, ParsesSpecExample) {
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(kValid, m, err)) << err;
  EXPECT_EQ(m.format, "sigreg-aot-v1");
  EXPECT_EQ(m.function, "sigreg");
  EXPECT_EQ(m.pipeline, "fused");
  EXPECT_EQ(m.chip, "sm_90");
  EXPECT_EQ(m.ptx, "sigreg.ptx");
  ASSERT_TRUE(m.hasProblem);
  EXPECT_EQ(m.problem.N, 32);
  EXPECT_EQ(m.problem.D, 2048);
  EXPECT_EQ(m.problem.S, 1024);
  EXPECT_EQ(m.problem.P, 17);
  EXPECT_DOUBLE_EQ(m.problem.tMax, 3.0);
  EXPECT_EQ(m.problem.dtype, "bf16");
  EXPECT_EQ(m.problem.projection, "seed");
  EXPECT_FALSE(m.problem.views);

  ASSERT_EQ(m.buffers.size(), 3u);
  EXPECT_EQ(m.buffers[0].role, BufferRole::Input);
  EXPECT_EQ(m.buffers[0].bytes, 131072u);
  EXPECT_EQ(m.buffers[0].shape, (std::vector<int64_t>{32, 2048}));
  EXPECT_TRUE(m.buffers[1].hasShape);
  EXPECT_TRUE(m.buffers[1].shape.empty());
  EXPECT_EQ(m.buffers[2].role, BufferRole::Workspace);
  EXPECT_FALSE(m.buffers[2].hasShape);
  EXPECT_FALSE(m.buffers[2].zeroInit);
  EXPECT_EQ(m.findBuffer("ws0"), 2);
  EXPECT_EQ(m.findBuffer("nope"), -1);

  ASSERT_EQ(m.scalars.size(), 1u);
  EXPECT_EQ(m.scalars[0].type, ScalarType::I64);

  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[0].op, StepOp::Memset32);
  EXPECT_EQ(m.steps[0].count, 1024u);
  EXPECT_EQ(m.steps[0].region, "other");
  EXPECT_EQ(m.steps[1].op, StepOp::Copy);
  EXPECT_EQ(m.steps[1].dst, "out");
  const Step &l = m.steps[2];
  EXPECT_EQ(l.op, StepOp::Launch);
  EXPECT_EQ(l.kernel, "sigreg_ecf");
  EXPECT_EQ(l.region, "trig_reduction");
  EXPECT_EQ(l.grid[0], 32u);
  EXPECT_EQ(l.block[0], 256u);
  ASSERT_EQ(l.args.size(), 7u);
  EXPECT_EQ(l.args[0].kind, KernelArg::Kind::Buffer);
  EXPECT_EQ(l.args[1].offset, 64u);
  EXPECT_EQ(l.args[2].kind, KernelArg::Kind::Scalar);
  EXPECT_EQ(l.args[2].name, "seed");
  EXPECT_EQ(l.args[3].kind, KernelArg::Kind::I32);
  EXPECT_EQ(l.args[3].intValue, 17);
  EXPECT_EQ(l.args[4].kind, KernelArg::Kind::I64);
  EXPECT_EQ(l.args[5].kind, KernelArg::Kind::F32);
  EXPECT_DOUBLE_EQ(l.args[5].floatValue, 1.5);
  EXPECT_EQ(l.args[6].kind, KernelArg::Kind::F64);
}

TEST(Manifest, DefaultsAndExtras) {
  // Optional problem keys default; top-level metadata keys are ignored; big
  // i64 literals stay exact; memset8 and string escapes parse.
  const char *json =
      R"({"format":"sigreg-aot-v1","ptx":"k\u002eptx","note":{"x":[1,2]},
    "problem":{"N":5,"D":3,"S":7,"dtype":"f32","views":true,"V":2,"reduction":"none"},
    "buffers":[{"name":"b","role":"output","bytes":56}],
    "steps":[{"op":"memset8","buffer":"b","count":56,"value":255},
             {"op":"launch","kernel":"k","grid":[1,1,1],"block":[1,1,1],
              "args":[{"i64":9007199254740993},{"i64":-5},{"f64":-1.25e-3}]}]})";
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(json, m, err)) << err;
  EXPECT_EQ(m.ptx, "k.ptx");
  EXPECT_EQ(m.problem.V, 2);
  EXPECT_EQ(m.problem.P, 17);
  EXPECT_DOUBLE_EQ(m.problem.tMax, 3.0);
  EXPECT_EQ(m.problem.clip, "none");
  EXPECT_EQ(m.problem.projection, "seed");
  EXPECT_EQ(m.problem.reduction, "none");
  EXPECT_EQ(m.steps[0].op, StepOp::Memset8);
  EXPECT_EQ(m.steps[0].value, 255u);
  EXPECT_EQ(m.steps[1].args[0].intValue, 9007199254740993LL);
  EXPECT_EQ(m.steps[1].args[1].intValue, -5);
  EXPECT_DOUBLE_EQ(m.steps[1].args[2].floatValue, -1.25e-3);
  EXPECT_EQ(m.steps[1].sharedBytes, 0u);
}

struct BadCase {
  const char *what;
  std::string json;
  const char *expected; // substring of the error message
};

TEST(Manifest, ZeroInitWorkspace) {
  std::string text =
      replaced("\"bytes\":139264", "\"bytes\":139264,\"zero_init\":true");
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  EXPECT_TRUE(m.buffers[2].zeroInit);
  EXPECT_FALSE(m.buffers[0].zeroInit);
}

TEST(Manifest, L2PersistBuffer) {
  // A hint on any buffer; absent means false.
  std::string text =
      replaced("\"bytes\":139264", "\"bytes\":139264,\"l2_persist\":true");
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  EXPECT_TRUE(m.buffers[2].l2Persist);
  EXPECT_FALSE(m.buffers[0].l2Persist);
}

TEST(Manifest, BufferAlignment) {
  // The alignment a bound address needs; absent means 1.
  std::string text =
      replaced("\"shape\":[32,2048]", "\"shape\":[32,2048],\"align\":16");
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  EXPECT_EQ(m.buffers[0].align, 16u);
  EXPECT_EQ(m.buffers[2].align, 1u);
}

TEST(Manifest, WorkspaceSharesOutput) {
  std::string text = replaced(
      "\"bytes\":139264",
      "\"bytes\":139264,\"shares\":{\"buffer\":\"out\",\"offset\":1024}");
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  EXPECT_EQ(m.buffers[2].sharesWith, "out");
  EXPECT_EQ(m.buffers[2].sharesOffset, 1024u);
  EXPECT_TRUE(m.buffers[0].sharesWith.empty());
}

TEST(Manifest, ProgrammaticLaunch) {
  // A second launch after the fixture's may overlap it.
  std::string text = kValid;
  std::string last = "{\"f64\":2.0}]}";
  size_t pos = text.rfind(last);
  ASSERT_NE(pos, std::string::npos);
  text.insert(pos + last.size(),
              ",\n{\"op\":\"launch\",\"kernel\":\"k2\",\"grid\":[1,1,1],"
              "\"block\":[32,1,1],\"programmatic\":true,\"args\":[]}");
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  ASSERT_EQ(m.steps.size(), 4u);
  EXPECT_TRUE(m.steps[3].programmatic);
  EXPECT_FALSE(m.steps[2].programmatic);
  // Not after a memset or a copy (the fixture's launch follows a copy).
  std::string bad = replaced("\"shared_bytes\":0,",
                             "\"shared_bytes\":0,\"programmatic\":true,");
  EXPECT_FALSE(parseManifest(bad, m, err));
  EXPECT_NE(err.find("steps[2].programmatic: a programmatic launch must follow "
                     "a kernel launch"),
            std::string::npos)
      << err;
  std::string notBool =
      replaced("\"shared_bytes\":0,", "\"shared_bytes\":0,\"programmatic\":1,");
  EXPECT_FALSE(parseManifest(notBool, m, err));
  EXPECT_NE(err.find("steps[2].programmatic"), std::string::npos) << err;
}

TEST(Manifest, CooperativeLaunch) {
  // The fixture's launch as a cooperative one (a kernel with a grid barrier).
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(kValid, m, err)) << err;
  EXPECT_FALSE(m.steps[2].cooperative);
  std::string text = replaced("\"shared_bytes\":0,",
                              "\"shared_bytes\":0,\"cooperative\":true,");
  ASSERT_TRUE(parseManifest(text, m, err)) << err;
  EXPECT_TRUE(m.steps[2].cooperative);
  EXPECT_FALSE(m.steps[2].programmatic);
  std::string notBool =
      replaced("\"shared_bytes\":0,", "\"shared_bytes\":0,\"cooperative\":1,");
  EXPECT_FALSE(parseManifest(notBool, m, err));
  EXPECT_NE(err.find("steps[2].cooperative"), std::string::npos) << err;
}

TEST(Manifest, Phases) {
  // A backward launch after the fixture's steps; the forward ones keep the
  // default phase.
  std::string text = kValid;
  std::string last = "{\"f64\":2.0}]}";
  size_t pos = text.rfind(last);
  ASSERT_NE(pos, std::string::npos);
  auto withTail = [&](const std::string &tail) {
    std::string t = text;
    t.insert(pos + last.size(), tail);
    return t;
  };
  const std::string backward =
      ",\n{\"op\":\"launch\",\"kernel\":\"k2\",\"grid\":[1,1,1],"
      "\"block\":[32,1,1],\"phase\":\"backward\",\"args\":[{\"buffer\":"
      "\"ws0\"}]}";
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(withTail(backward), m, err)) << err;
  ASSERT_EQ(m.steps.size(), 4u);
  EXPECT_TRUE(m.steps[3].backward);
  EXPECT_FALSE(m.steps[2].backward);
  EXPECT_FALSE(m.steps[0].backward);

  const BadCase cases[] = {
      {"a forward step after the backward ones",
       withTail(backward + ",{\"op\":\"copy\",\"src\":\"ws0\",\"dst\":"
                           "\"out\",\"bytes\":4}"),
       "steps[4].phase: a forward step after the backward phase began"},
      {"the backward phase first",
       replaced("{\"op\":\"memset32\",",
                "{\"op\":\"memset32\",\"phase\":\"backward\","),
       "steps[0].phase: the backward phase needs a forward step before it"},
      {"a programmatic first backward launch",
       withTail(",{\"op\":\"launch\",\"kernel\":\"k2\",\"grid\":[1,1,1],"
                "\"block\":[32,1,1],\"phase\":\"backward\",\"programmatic\":"
                "true,\"args\":[]}"),
       "steps[3].phase: the first backward step cannot be programmatic"},
      {"an unknown phase",
       withTail(",{\"op\":\"launch\",\"kernel\":\"k2\",\"grid\":[1,1,1],"
                "\"block\":[32,1,1],\"phase\":\"later\",\"args\":[]}"),
       "steps[3].phase"},
  };
  for (const BadCase &c : cases) {
    EXPECT_FALSE(parseManifest(c.json, m, err)) << c.what;
    EXPECT_NE(err.find(c.expected), std::string::npos) << c.what << ": " << err;
  }
  // A forward step may not read the cotangent: it does not exist yet.
  std::string withGrad = withTail(backward);
  std::string buffers = "{\"name\":\"ws0\",\"role\":\"workspace\"";
  withGrad.replace(withGrad.find(buffers), 0,
                   "{\"name\":\"grad\",\"role\":\"input\",\"bytes\":4},");
  ASSERT_TRUE(parseManifest(withGrad, m, err)) << err;
  std::string gradForward = withGrad;
  gradForward.replace(gradForward.find("{\"buffer\":\"x\"}"), 14,
                      "{\"buffer\":\"grad\"}");
  EXPECT_FALSE(parseManifest(gradForward, m, err));
  EXPECT_NE(err.find("steps[2]: a forward-phase step reads the input 'grad'"),
            std::string::npos)
      << err;
}

TEST(Manifest, RejectsMalformedInput) {
  const BadCase cases[] = {
      {"empty", "", "line 1, column 1"},
      {"not an object", "[1]", "manifest: expected an object"},
      {"syntax error position",
       replaced("\"chip\": \"sm_90\",", "\"chip\" \"sm_90\","), "line 3"},
      {"unterminated string", "{\"format\": \"sigreg", "unterminated string"},
      {"trailing garbage", std::string(kValid) + " x", "trailing characters"},
      {"duplicate key", replaced("\"pipeline\": \"fused\"", "\"ptx\": \"a\""),
       "duplicate key 'ptx'"},
      {"bad literal", replaced("\"views\":false", "\"views\":fals"),
       "invalid literal"},
      {"bad number", replaced("\"N\":32", "\"N\":-"), "invalid number"},
      {"deep nesting", std::string(100, '[') + std::string(100, ']'),
       "nesting deeper"},
      {"wrong format", replaced("sigreg-aot-v1", "sigreg-aot-v2"),
       "format: unsupported format \"sigreg-aot-v2\""},
      {"missing format", replaced("\"format\": \"sigreg-aot-v1\",", ""),
       "format: missing required key"},
      {"missing ptx", replaced("\"ptx\": \"sigreg.ptx\"", "\"x\": 1"),
       "ptx: missing required key"},
      {"ptx not a string", replaced("\"ptx\": \"sigreg.ptx\"", "\"ptx\": 3"),
       "ptx: expected a string, got a number"},
      {"missing N", replaced("\"N\":32,", ""),
       "problem.N: missing required key"},
      {"N zero", replaced("\"N\":32", "\"N\":0"),
       "problem.N: value 0 out of range"},
      {"N fraction", replaced("\"N\":32", "\"N\":32.5"),
       "problem.N: expected an integer, got 32.5"},
      {"bad dtype",
       replaced("\"dtype\":\"bf16\",\"projection\"",
                "\"dtype\":\"f8\",\"projection\""),
       "problem.dtype: invalid value \"f8\""},
      {"bad clip", replaced("\"clip\":\"none\"", "\"clip\":\"clamp\""),
       "problem.clip: invalid value \"clamp\""},
      {"bad reduction",
       replaced("\"reduction\":\"mean\"", "\"reduction\":\"avg\""),
       "problem.reduction: invalid value"},
      {"V without views", replaced("\"V\":1", "\"V\":2"),
       "problem.V: V=2 requires \"views\": true"},
      {"unknown problem key", replaced("\"P\":17", "\"Q\":17"),
       "problem.Q: unknown key"},
      {"scalars not array",
       replaced("[{\"name\":\"seed\",\"type\":\"i64\"}]",
                "{\"name\":\"seed\"}"),
       "scalars: expected an array, got an object"},
      {"zero_init on an input",
       replaced("\"shape\":[32,2048]",
                "\"shape\":[32,2048],\"zero_init\":true"),
       "buffers[0].zero_init: only a workspace may be zero_init"},
      {"zero_init not a bool",
       replaced("\"bytes\":139264", "\"bytes\":139264,\"zero_init\":1"),
       "buffers[2].zero_init: expected a bool"},
      {"align not a power of two",
       replaced("\"shape\":[32,2048]", "\"shape\":[32,2048],\"align\":24"),
       "buffers[0].align: must be a power of two up to 256, got 24"},
      {"align past 256",
       replaced("\"shape\":[32,2048]", "\"shape\":[32,2048],\"align\":512"),
       "buffers[0].align: must be a power of two up to 256, got 512"},
      {"align zero",
       replaced("\"shape\":[32,2048]", "\"shape\":[32,2048],\"align\":0"),
       "buffers[0].align"},
      {"l2_persist not a bool",
       replaced("\"bytes\":139264", "\"bytes\":139264,\"l2_persist\":\"yes\""),
       "buffers[2].l2_persist: expected a bool"},
      {"shares on an input",
       replaced("\"shape\":[32,2048]",
                "\"shape\":[32,2048],\"shares\":{\"buffer\":\"out\","
                "\"offset\":0}"),
       "buffers[0].shares: only a workspace that is not zero_init may share"},
      {"shares an input",
       replaced("\"bytes\":139264",
                "\"bytes\":139264,\"shares\":{\"buffer\":\"x\","
                "\"offset\":0}"),
       "buffers[2].shares.buffer: 'x' is not an output buffer"},
      {"shares without offset",
       replaced("\"bytes\":139264",
                "\"bytes\":139264,\"shares\":{\"buffer\":\"out\"}"),
       "buffers[2].shares.offset: missing required key"},
      {"bad role", replaced("\"role\":\"workspace\"", "\"role\":\"scratch\""),
       "buffers[2].role: invalid value \"scratch\""},
      {"zero bytes", replaced("\"bytes\":139264", "\"bytes\":0"),
       "buffers[2].bytes: value 0 out of range"},
      {"shape mismatch", replaced("\"shape\":[32,2048]", "\"shape\":[32,2047]"),
       "buffers[0].bytes: 131072 bytes does not match shape"},
      {"duplicate buffer", replaced("\"name\":\"ws0\"", "\"name\":\"x\""),
       "buffers[2].name: duplicate buffer name 'x'"},
      {"unknown buffer key", replaced("\"bytes\":139264", "\"bytez\":139264"),
       "buffers[2].bytez: unknown key"},
      {"bad scalar type", replaced("\"type\":\"i64\"", "\"type\":\"u64\""),
       "scalars[0].type: invalid value \"u64\""},
      {"unknown op", replaced("\"op\":\"copy\"", "\"op\":\"move\""),
       "steps[1].op: invalid value \"move\""},
      {"unknown step key",
       replaced("\"count\":1024", "\"count\":1024,\"stride\":2"),
       "steps[0].stride: unknown key"},
      {"memset out of bounds", replaced("\"count\":1024", "\"count\":40000"),
       "steps[0].buffer: range [0, 160000) exceeds buffer 'ws0'"},
      {"memset32 misaligned",
       replaced("\"buffer\":\"ws0\",\"offset\":0",
                "\"buffer\":\"ws0\",\"offset\":2"),
       "steps[0].offset: memset32 offset 2 is not a multiple of 4"},
      {"memset unknown buffer",
       replaced("\"buffer\":\"ws0\",\"offset\":0",
                "\"buffer\":\"w\",\"offset\":0"),
       "steps[0].buffer: unknown buffer 'w'"},
      {"copy out of bounds", replaced("\"dst_offset\":0", "\"dst_offset\":4"),
       "steps[1].dst: range [4, 8) exceeds buffer 'out'"},
      {"grid length", replaced("\"grid\":[32,1,1]", "\"grid\":[32,1]"),
       "steps[2].grid: expected 3 integers, got 2"},
      {"grid zero", replaced("\"grid\":[32,1,1]", "\"grid\":[32,0,1]"),
       "steps[2].grid[1]: value 0 out of range"},
      {"block too big", replaced("\"block\":[256,1,1]", "\"block\":[256,8,1]"),
       "steps[2].block: 2048 threads per block exceeds 1024"},
      {"missing kernel", replaced("\"kernel\":\"sigreg_ecf\",", ""),
       "steps[2].kernel: missing required key"},
      {"misspelt args", replaced("\"args\":[", "\"argz\":["),
       "steps[2].argz: unknown key"},
      {"unknown arg buffer",
       replaced("{\"buffer\":\"x\"}", "{\"buffer\":\"y\"}"),
       "steps[2].args[0]: unknown buffer 'y'"},
      {"arg offset outside", replaced("\"offset\":64", "\"offset\":139264"),
       "steps[2].args[1].offset: offset 139264 is outside buffer 'ws0'"},
      {"unknown scalar",
       replaced("{\"scalar\":\"seed\"}", "{\"scalar\":\"sed\"}"),
       "steps[2].args[2]: unknown scalar 'sed'"},
      {"two kinds", replaced("{\"i32\":17}", "{\"i32\":17,\"i64\":1}"),
       "steps[2].args[3]: expected exactly one of"},
      {"unknown arg kind", replaced("{\"i32\":17}", "{\"u32\":17}"),
       "steps[2].args[3].u32: unknown argument kind"},
      {"i32 out of range", replaced("{\"i32\":17}", "{\"i32\":5000000000}"),
       "steps[2].args[3].i32: value 5000000000 out of range"},
      {"f32 not a number", replaced("{\"f32\":1.5}", "{\"f32\":\"1.5\"}"),
       "steps[2].args[5].f32: expected a number, got a string"},
      {"no steps", replaced("\"steps\": [", "\"steps\": [], \"old\": ["),
       "steps: no steps"},
  };
  for (const BadCase &c : cases) {
    Manifest m;
    std::string err;
    EXPECT_FALSE(parseManifest(c.json, m, err)) << c.what;
    EXPECT_NE(err.find(c.expected), std::string::npos)
        << c.what << ": got \"" << err << "\", expected \"" << c.expected
        << "\"";
  }
}

TEST(Manifest, LoadArtifactReportsMissingFiles) {
  Manifest m;
  std::string ptx, err;
  EXPECT_FALSE(loadArtifact("/nonexistent/artifact", m, ptx, err));
  EXPECT_NE(err.find("cannot open '/nonexistent/artifact/manifest.json'"),
            std::string::npos)
      << err;
}

TEST(Manifest, LoadsGpuSmokeFixture) {
  Manifest m;
  std::string ptx, err;
  ASSERT_TRUE(loadArtifact(SIGREG_GPU_SMOKE_DIR, m, ptx, err)) << err;
  EXPECT_FALSE(m.hasProblem);
  EXPECT_EQ(m.steps.size(), 4u);
  EXPECT_NE(ptx.find(".entry add_values"), std::string::npos);
}

TEST(Manifest, DtypeBytes) {
  EXPECT_EQ(dtypeBytes("bf16"), 2);
  EXPECT_EQ(dtypeBytes("f16"), 2);
  EXPECT_EQ(dtypeBytes("f32"), 4);
  EXPECT_EQ(dtypeBytes("f64"), 8);
  EXPECT_EQ(dtypeBytes("q7"), 0);
}
} // namespace
