//===- GpuSmokeTest.cpp - Executor on a real GPU (skips without one) ------===//
//
// Uses the hand-written runtime test fixture in gpu_smoke/ (not compiler
// output) to check memsets, copies, every kernel argument kind, region
// timing, graph capture/replay, the benchmark loop and PTX error logs.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Harness.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace sigreg::runtime;

namespace {
class GpuSmoke : public ::testing::Test {
protected:
  void SetUp() override {
    std::string err;
    if (!CudaDriver::get(err))
      GTEST_SKIP() << err;
    std::string ptx;
    ASSERT_TRUE(loadArtifact(SIGREG_GPU_SMOKE_DIR, manifest, ptx, err)) << err;
    Status s = Executor::create(manifest, ptx, exec);
    ASSERT_TRUE(s.ok()) << s.message();
    in.resize(1000);
    for (int i = 0; i < 1000; ++i)
      in[i] = 0.5f * i - 100.0f;
    s = exec->upload("in", in.data(), in.size() * 4);
    ASSERT_TRUE(s.ok()) << s.message();
    s = exec->setScalarInt("k", 3);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  void expectOutput(float extra = 0.0f) {
    std::vector<float> out(1000);
    Status s = exec->download("out", out.data(), out.size() * 4);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(out[i], in[i] + 1.5f + 3.0f + 0.25f + extra) << "i=" << i;
  }

  Manifest manifest;
  std::unique_ptr<Executor> exec;
  std::vector<float> in;
};

TEST_F(GpuSmoke, RunsStepList) {
  ASSERT_TRUE(exec->poisonOutputs().ok());
  Status s = exec->run();
  ASSERT_TRUE(s.ok()) << s.message();
  expectOutput();
  ASSERT_EQ(exec->kernels().size(), 1u);
  EXPECT_GT(exec->kernels()[0].info.numRegisters, 0);
}

// A buffer whose manifest declares "align" 16 (x of a kernel that copies it
// into shared memory in 16-byte pieces): an address off that grain is
// refused at the binding, naming the buffer, before any kernel could fault
// on it; an aligned one binds. Without the declaration any address binds.
TEST_F(GpuSmoke, MisalignedBindIsAnError) {
  std::string ptx, err;
  Manifest m;
  ASSERT_TRUE(loadArtifact(SIGREG_GPU_SMOKE_DIR, m, ptx, err)) << err;
  for (BufferDesc &b : m.buffers)
    if (b.name == "in")
      b.align = 16;
  std::unique_ptr<Executor> e;
  ASSERT_TRUE(Executor::create(m, ptx, e).ok());
  CUdeviceptr base = 0;
  ASSERT_TRUE(e->bufferPointer("in", base).ok());
  for (CUdeviceptr off : {2u, 4u, 8u}) {
    Status s = e->bindBuffer("in", base + off);
    ASSERT_FALSE(s.ok()) << off;
    EXPECT_NE(s.message().find("buffer 'in'"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos)
        << s.message();
  }
  EXPECT_TRUE(e->bindBuffer("in", base).ok());
  CUdeviceptr fixtureBase = 0;
  ASSERT_TRUE(exec->bufferPointer("in", fixtureBase).ok());
  EXPECT_TRUE(exec->bindBuffer("in", fixtureBase + 4).ok());
  EXPECT_TRUE(exec->bindBuffer("in", 0).ok());
}

TEST_F(GpuSmoke, PoisonIsVisible) {
  ASSERT_TRUE(exec->poisonOutputs().ok());
  std::vector<uint32_t> out(1000);
  Status s = exec->download("out", out.data(), out.size() * 4);
  ASSERT_TRUE(s.ok()) << s.message();
  for (uint32_t bits : out)
    ASSERT_EQ(bits, kPoisonPattern);
}

TEST_F(GpuSmoke, ScalarsMustBeSet) {
  std::string ptx, err;
  ASSERT_TRUE(loadArtifact(SIGREG_GPU_SMOKE_DIR, manifest, ptx, err));
  std::unique_ptr<Executor> fresh;
  ASSERT_TRUE(Executor::create(manifest, ptx, fresh).ok());
  Status s = fresh->run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("scalar 'k' was not set"), std::string::npos)
      << s.message();
  EXPECT_FALSE(fresh->setScalarFloat("k", 1.0).ok());
  EXPECT_FALSE(fresh->setScalarInt("nope", 1).ok());
}

TEST_F(GpuSmoke, TimedRunSumsRegions) {
  std::vector<RegionTime> times;
  Status s = exec->runTimed(times);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].region, "setup");
  EXPECT_EQ(times[1].region, "trig_reduction");
  EXPECT_GT(times[1].ms, 0.0);
  expectOutput();
}

TEST_F(GpuSmoke, GraphReplay) {
  CudaGraph graph;
  Status s = exec->captureGraph(graph);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(exec->poisonOutputs().ok());
  s = graph.launch(exec->stream());
  ASSERT_TRUE(s.ok()) << s.message();
  expectOutput();
  // The graph froze k = 3; a new capture sees k = 4.
  ASSERT_TRUE(exec->setScalarInt("k", 4).ok());
  ASSERT_TRUE(exec->poisonOutputs().ok());
  ASSERT_TRUE(graph.launch(exec->stream()).ok());
  expectOutput();
  CudaGraph graph4;
  ASSERT_TRUE(exec->captureGraph(graph4).ok());
  ASSERT_TRUE(graph4.launch(exec->stream()).ok());
  expectOutput(1.0f);
}

TEST_F(GpuSmoke, BenchmarkLoop) {
  BenchOptions opt;
  opt.warmup = 2;
  opt.iters = 5;
  BenchResult res;
  Status s = runBenchmark(*exec, opt, res);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(res.inputCopies, 1); // 4 KB of input fits in L2
  EXPECT_GT(res.fullForwardMs, 0.0);
  EXPECT_GT(res.fullForwardGraphMs, 0.0);
  ASSERT_GE(res.regions.size(), 5u); // 4 seed regions + "setup"
  EXPECT_EQ(res.regions[2].name, "trig_reduction");
  EXPECT_GT(res.regions[2].ms, 0.0);
  EXPECT_EQ(res.regions[4].name, "setup");
  printBenchTable(res, stdout);
  // Bindings restored: the original input still gives the right answer.
  ASSERT_TRUE(exec->poisonOutputs().ok());
  ASSERT_TRUE(exec->run().ok());
  expectOutput();
}

// A workspace that may share an output's allocation ("shares") gets one
// allocation with it while neither is bound, its own once the output is the
// caller's; the step list still runs.
TEST_F(GpuSmoke, SharedWorkspaceAllocation) {
  Manifest m = manifest;
  BufferDesc big, part;
  big.name = "big";
  big.role = BufferRole::Output;
  big.bytes = 4096;
  part.name = "part";
  part.bytes = 2048;
  part.sharesWith = "big";
  part.sharesOffset = 3072;
  m.buffers.push_back(big);
  m.buffers.push_back(part);
  std::string ptx, err;
  Manifest unused;
  ASSERT_TRUE(loadArtifact(SIGREG_GPU_SMOKE_DIR, unused, ptx, err)) << err;
  for (bool bindFirst : {false, true}) {
    std::unique_ptr<Executor> e;
    ASSERT_TRUE(Executor::create(m, ptx, e).ok());
    uint64_t before = e->ownedBytes();
    CUdeviceptr mine = 0, bigPtr = 0, partPtr = 0;
    if (bindFirst) {
      ASSERT_TRUE(e->bufferPointer("in", mine).ok());
      ASSERT_TRUE(e->bindBuffer("big", mine).ok());
    }
    ASSERT_TRUE(e->bufferPointer("part", partPtr).ok());
    ASSERT_TRUE(e->bufferPointer("big", bigPtr).ok());
    uint64_t grown = e->ownedBytes() - before - (bindFirst ? 4096 : 0);
    if (bindFirst) {
      EXPECT_EQ(bigPtr, mine);
      EXPECT_NE(partPtr, mine + 3072);
      EXPECT_EQ(grown, 2048u);
    } else {
      EXPECT_EQ(partPtr, bigPtr + 3072);
      EXPECT_EQ(grown, 5120u); // max(4096, 3072 + 2048)
    }
  }
}

TEST_F(GpuSmoke, BadPtxShowsPtxasLog) {
  CUmodule module = nullptr;
  std::string bad = ".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry broken()\n{\n  frobnicate.u32 %r1;\n}\n";
  Status s = exec->driver().loadModulePtx(bad, module);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cuModuleLoadDataEx"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("ptxas"), std::string::npos) << s.message();
}

// A launch the driver refuses (more threads per block than any GPU allows)
// fails with the step it was: the executor names it only on an error.
TEST_F(GpuSmoke, LaunchErrorNamesTheStep) {
  Manifest m = manifest;
  m.steps.back().block = {4096, 1, 1};
  std::string ptx, err;
  ASSERT_TRUE(readFile(std::string(SIGREG_GPU_SMOKE_DIR) + "/add_values.ptx",
                       ptx, err));
  std::unique_ptr<Executor> e;
  ASSERT_TRUE(Executor::create(m, ptx, e).ok());
  ASSERT_TRUE(e->setScalarInt("k", 3).ok());
  Status s = e->run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("step 3 (launch add_values)"), std::string::npos)
      << s.message();
  // The steps before it ran, and a valid run still works afterwards.
  ASSERT_TRUE(exec->run().ok());
  expectOutput();
}

TEST_F(GpuSmoke, UnknownKernelIsReported) {
  Manifest m = manifest;
  m.steps.back().kernel = "no_such_kernel";
  std::string ptx, err;
  ASSERT_TRUE(readFile(std::string(SIGREG_GPU_SMOKE_DIR) + "/add_values.ptx",
                       ptx, err));
  std::unique_ptr<Executor> e;
  Status s = Executor::create(m, ptx, e);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no_such_kernel"), std::string::npos)
      << s.message();
}
} // namespace
