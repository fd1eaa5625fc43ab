//===- CApiTest.cpp - the C ABI of the AOT runtime ------------------------===//

#include "sigreg/Runtime/CApi.h"
#include "sigreg/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <sys/stat.h>

namespace {
/// A fresh directory under the test temp dir holding `manifest` as
/// manifest.json (and no PTX).
std::string writeArtifact(const std::string &name,
                          const std::string &manifest) {
  std::string dir = testing::TempDir() + "capi-" + name;
  mkdir(dir.c_str(), 0755);
  FILE *f = std::fopen((dir + "/manifest.json").c_str(), "wb");
  EXPECT_NE(f, nullptr) << dir;
  if (f) {
    std::fwrite(manifest.data(), 1, manifest.size(), f);
    std::fclose(f);
  }
  return dir;
}

/// A loss manifest: views, f32, reduction none, every other problem key left
/// to its default, one buffer of each role.
std::string lossManifest(const std::string &xBytes = "120") {
  return R"({"format": "sigreg-aot-v1", "function": "a\"b\\c\n",
  "ptx": "k.ptx", "built_by": "anyone",
  "problem": {"V": 2, "N": 5, "D": 3, "S": 4, "dtype": "f32", "views": true,
              "reduction": "none"},
  "buffers": [
    {"name": "x", "role": "input", "bytes": )" +
         xBytes + R"(, "dtype": "f32", "shape": [2, 5, 3], "align": 16},
    {"name": "out", "role": "output", "bytes": 32},
    {"name": "ws0", "role": "workspace", "bytes": 64, "zero_init": true}],
  "scalars": [{"name": "seed", "type": "i32"}],
  "steps": [
    {"op": "memset32", "buffer": "ws0", "count": 4, "value": 0},
    {"op": "launch", "kernel": "k1", "region": "trig", "grid": [1, 1, 1],
     "block": [32, 1, 1], "args": [{"buffer": "x"}, {"scalar": "seed"}]}]})";
}

void expectHas(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos)
      << "missing: " << part << "\nin: " << text;
}

TEST(CApi, DescribeWritesTheParsedManifest) {
  std::string dir = writeArtifact("describe", lossManifest());
  const char *json = nullptr;
  ASSERT_EQ(sigreg_aot_describe(dir.c_str(), &json), 0)
      << sigreg_aot_load_error();
  ASSERT_NE(json, nullptr);
  std::string d = json;
  EXPECT_EQ(d.front(), '{');
  EXPECT_EQ(d.back(), '}');
  // The function name's quote, backslash and newline come back escaped.
  expectHas(d, R"("format":"sigreg-aot-v1","function":"a\"b\\c\u000a",)"
               R"("pipeline":"","chip":"","ptx":"k.ptx",)");
  // Defaults filled in: P, t_max, clip, projection, gradient, entry point.
  expectHas(
      d, R"("problem":{"V":2,"N":5,"D":3,"S":4,"P":17,"t_max":3,)"
         R"("clip":"none","clip_value":0,"reduction":"none",)"
         R"("dtype":"f32","projection":"seed","views":true,)"
         R"("gradient":false,"step":false,"dx_dtype":"f32","entry_point":""})");
  expectHas(d, R"("conventions_error":null,"output":"out",)");
  expectHas(d, R"("buffers":[{"name":"x","role":"input","bytes":120,)"
               R"("dtype":"f32","shape":[2,5,3],"zero_init":false,)"
               R"("align":16,"shares":null},)"
               R"({"name":"out","role":"output","bytes":32,"dtype":null,)"
               R"("shape":null,"zero_init":false,"align":1,"shares":null},)"
               R"({"name":"ws0","role":"workspace","bytes":64,"dtype":null,)"
               R"("shape":null,"zero_init":true,"align":1,"shares":null}])");
  expectHas(d, R"("scalars":[{"name":"seed","type":"i32"}])");
  expectHas(d,
            R"("steps":[{"op":"memset32","region":"other","phase":"forward"},)"
            R"({"op":"launch","region":"trig","phase":"forward","kernel":"k1",)"
            R"("buffers":["x"]}]})");
  EXPECT_EQ(d.find("built_by"), std::string::npos);
}

TEST(CApi, DescribeReportsBrokenConventions) {
  // x of 124 bytes, not [2, 5, 3] f32: the reader accepts it (without a
  // shape there is nothing to check the bytes against), the harness does not.
  std::string m = lossManifest("124");
  m.replace(m.find(R"(, "dtype": "f32", "shape": [2, 5, 3])"),
            std::string(R"(, "dtype": "f32", "shape": [2, 5, 3])").size(), "");
  std::string dir = writeArtifact("conventions", m);
  const char *json = nullptr;
  ASSERT_EQ(sigreg_aot_describe(dir.c_str(), &json), 0)
      << sigreg_aot_load_error();
  expectHas(json, R"("conventions_error":"buffer 'x' has 124 bytes; )"
                  R"(the problem needs 120")");
}

TEST(CApi, DescribeOfAFixtureWithoutProblem) {
  const char *json = nullptr;
  ASSERT_EQ(sigreg_aot_describe(SIGREG_GPU_SMOKE_DIR, &json), 0)
      << sigreg_aot_load_error();
  std::string d = json;
  expectHas(d, R"("problem":null,"conventions_error":"manifest has no )");
  expectHas(d, R"("output":"out")");
  expectHas(d, R"({"op":"copy","region":"setup","phase":"forward"})");
  expectHas(d, R"({"op":"launch","region":"trig_reduction","phase":"forward",)"
               R"("kernel":"add_values","buffers":["ws","out"]})");
}

TEST(CApi, DescribeReportsReaderErrors) {
  const char *json = "unchanged";
  EXPECT_NE(sigreg_aot_describe("/nonexistent/artifact", &json), 0);
  EXPECT_EQ(json, nullptr);
  expectHas(sigreg_aot_load_error(),
            "cannot open '/nonexistent/artifact/manifest.json'");

  std::string m = lossManifest();
  m.replace(m.find(R"("grid": [1, 1, 1])"), 17, R"("grid": [1, 0, 1])");
  std::string dir = writeArtifact("bad-grid", m);
  json = "unchanged";
  EXPECT_NE(sigreg_aot_describe(dir.c_str(), &json), 0);
  EXPECT_EQ(json, nullptr);
  expectHas(sigreg_aot_load_error(), dir + "/manifest.json: steps[1].grid[1]");

  dir = writeArtifact("syntax", "{\"format\": \"sigreg-aot-v1\",\n \"ptx\": }");
  EXPECT_NE(sigreg_aot_describe(dir.c_str(), &json), 0);
  expectHas(sigreg_aot_load_error(), "syntax error at line 2, column 9");

  EXPECT_NE(sigreg_aot_describe(SIGREG_GPU_SMOKE_DIR, nullptr), 0);
  expectHas(sigreg_aot_load_error(), "NULL");
}

TEST(CApi, NullArgumentsAreErrors) {
  EXPECT_NE(sigreg_aot_load(SIGREG_GPU_SMOKE_DIR, nullptr), 0);
  expectHas(sigreg_aot_load_error(), "NULL");
}

TEST(CApi, MissingArtifactIsAnError) {
  sigreg_aot *f = reinterpret_cast<sigreg_aot *>(1);
  EXPECT_NE(sigreg_aot_load("/nonexistent/artifact", &f), 0);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(std::string(sigreg_aot_load_error()).find("manifest.json"),
            std::string::npos)
      << sigreg_aot_load_error();
}

TEST(CApi, LoadsOrSaysThereIsNoGpu) {
  sigreg_aot *f = nullptr;
  int rc = sigreg_aot_load(SIGREG_GPU_SMOKE_DIR, &f);
  std::string why;
  if (!sigreg::runtime::CudaDriver::get(why)) {
    EXPECT_NE(rc, 0);
    EXPECT_NE(std::string(sigreg_aot_load_error()).find("no CUDA"),
              std::string::npos)
        << sigreg_aot_load_error();
    return;
  }
  ASSERT_EQ(rc, 0) << sigreg_aot_load_error();
  uint64_t bytes = 0;
  EXPECT_EQ(sigreg_aot_buffer_bytes(f, "out", &bytes), 0);
  EXPECT_EQ(bytes, 4000u);
  EXPECT_NE(sigreg_aot_buffer_bytes(f, "nope", &bytes), 0);
  EXPECT_NE(std::string(sigreg_aot_last_error(f)).find("nope"),
            std::string::npos);
  // The fixture's scalar is "k", not "seed": both calls must fail cleanly.
  EXPECT_NE(sigreg_aot_set_seed(f, 1), 0);
  EXPECT_NE(sigreg_aot_run(f, nullptr), 0);
  EXPECT_NE(std::string(sigreg_aot_last_error(f)).find("k"), std::string::npos)
      << sigreg_aot_last_error(f);
  sigreg_aot_destroy(f);
}
} // namespace

namespace {
// sigreg_aot_load_device: an ordinal past the last device (or negative) is an
// error that says how many there are; without a driver, that there is none.
// On a machine with two or more GPUs, artifacts load on device 1 and on
// device 0 in one process.
TEST(CApi, LoadsOnADeviceByOrdinal) {
  std::string why;
  sigreg::runtime::CudaDriver *drv = sigreg::runtime::CudaDriver::get(why);
  for (int bad : {-1, drv ? drv->deviceCount() : 64}) {
    sigreg_aot *f = reinterpret_cast<sigreg_aot *>(1);
    EXPECT_NE(sigreg_aot_load_device(SIGREG_GPU_SMOKE_DIR, bad, &f), 0);
    EXPECT_EQ(f, nullptr);
    expectHas(sigreg_aot_load_error(),
              drv ? "CUDA device ordinal " + std::to_string(bad) +
                        " out of range (" + std::to_string(drv->deviceCount()) +
                        " device(s))"
                  : std::string("no CUDA"));
  }
  if (!drv || drv->deviceCount() < 2)
    GTEST_SKIP() << "one device or none: " << why;
  sigreg_aot *one = nullptr, *zero = nullptr;
  ASSERT_EQ(sigreg_aot_load_device(SIGREG_GPU_SMOKE_DIR, 1, &one), 0)
      << sigreg_aot_load_error();
  ASSERT_EQ(sigreg_aot_load_device(SIGREG_GPU_SMOKE_DIR, 0, &zero), 0)
      << sigreg_aot_load_error();
  sigreg_aot_destroy(one);
  sigreg_aot_destroy(zero);
}
} // namespace
