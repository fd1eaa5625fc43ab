//===- CApiTest.cpp - the C ABI of the AOT runtime ------------------------===//

#include "sigreg/Runtime/CApi.h"
#include "sigreg/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <string>

namespace {
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
