//===- CudaDriverTest.cpp - Driver loading with and without a GPU ---------===//

#include "sigreg/Runtime/CudaDriver.h"
#include "sigreg/Runtime/Executor.h"

#include <gtest/gtest.h>

using namespace sigreg::runtime;

namespace {
bool mentionsNoGpu(const std::string &err) {
  return err.find("no CUDA driver") != std::string::npos ||
         err.find("no CUDA device") != std::string::npos;
}

TEST(CudaDriver, GetReportsCleanly) {
  std::string err;
  CudaDriver *drv = CudaDriver::get(err);
  if (!drv) {
    // GPU-less machine: a clear message, no crash.
    EXPECT_TRUE(mentionsNoGpu(err) ||
                err.find("CUDA driver initialization failed") !=
                    std::string::npos)
        << err;
    // The answer is cached and stable.
    std::string again;
    EXPECT_EQ(CudaDriver::get(again), nullptr);
    EXPECT_EQ(again, err);
    return;
  }
  EXPECT_GT(drv->deviceCount(), 0);
  DeviceInfo info;
  Status s = drv->deviceInfo(0, info);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.ccMajor, 0);
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_EQ(CudaDriver::get(err), drv);
}

TEST(CudaDriver, ExecutorCreateFailsCleanlyWithoutGpu) {
  std::string err;
  if (CudaDriver::get(err))
    GTEST_SKIP() << "a CUDA device is present";
  Manifest m;
  std::string perr;
  ASSERT_TRUE(parseManifest(R"({"format":"sigreg-aot-v1","ptx":"k.ptx",
      "buffers":[{"name":"b","role":"output","bytes":4}],
      "steps":[{"op":"memset32","buffer":"b","count":1,"value":0}]})",
                            m, perr))
      << perr;
  std::unique_ptr<Executor> exec;
  Status s = Executor::create(m, ".version 8.0\n", exec);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(exec, nullptr);
  EXPECT_EQ(s.message(), err);
}

TEST(Status, Basics) {
  Status ok = Status::success();
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(ok.withContext("ctx").ok());
  Status bad = Status::error("boom");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.withContext("while testing").message(), "while testing: boom");
}
} // namespace

// A cooperative launch whose CTAs the device cannot hold at once is refused
// at load time with the step, the counts and the remedy (no GPU needed: the
// occupancy is an argument).
TEST(CooperativeGrid, RefusesAGridTheDeviceCannotHold) {
  DeviceInfo h100pcie;
  h100pcie.ordinal = 1;
  h100pcie.name = "NVIDIA H100 PCIe";
  h100pcie.multiprocessors = 114;
  std::string why =
      cooperativeGridError(0, "sigreg_fused_ecf_wgmma", 128, 1, h100pcie);
  EXPECT_NE(why.find("step 0 (launch sigreg_fused_ecf_wgmma)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("cooperative launch of 128 CTAs"), std::string::npos)
      << why;
  EXPECT_NE(why.find("device 1 (NVIDIA H100 PCIe, 114 multiprocessors) "
                     "holds 114"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("--wgmma-cooperative=0"), std::string::npos) << why;
  // Two CTAs per multiprocessor hold it; so do 132 multiprocessors.
  EXPECT_EQ(cooperativeGridError(0, "k", 128, 2, h100pcie), "");
  DeviceInfo h200;
  h200.multiprocessors = 132;
  EXPECT_EQ(cooperativeGridError(0, "k", 128, 1, h200), "");
  EXPECT_EQ(cooperativeGridError(0, "k", 132, 1, h200), "");
  EXPECT_NE(cooperativeGridError(0, "k", 133, 1, h200), "");
  // An unknown occupancy (no query in the driver) checks nothing.
  EXPECT_EQ(cooperativeGridError(0, "k", 1000, -1, h200), "");
}
