//===- ArtifactTest.cpp - Manifest extraction from host IR ----------------===//
//
// extractArtifact on hand-written host IR in the form the GPU pipelines end
// with (memref + gpu.launch_func, kernels serialized into a gpu.binary):
// tensor-map arguments (nvgpu.tma.create.descriptor) and dynamic shared
// memory. The manifest each case produces is read back with the runtime's
// reader, so the two sides agree.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Compiler/Artifact.h"
#include "sigreg/Runtime/Manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <string>

using namespace mlir;

namespace {
/// The host function around `body` (which ends before the return).
/// %x: memref<1x8192x4096xbf16>, %out: memref<f32> (argument 2: an output).
std::string hostModule(const std::string &body,
                       const std::string &xType = "memref<1x8192x4096xbf16>") {
  return R"(module attributes {gpu.container_module} {
  gpu.binary @sigreg_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\n.target sm_90a\n">]
  func.func @sigreg(%x: )" +
         xType + R"(, %seed: i64, %out: memref<f32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
)" + body +
         R"(
    return
  }
})";
}

const char *const kTmaType =
    "!nvgpu.tensormap.descriptor<tensor = memref<1x128x64xbf16, 3>, swizzle "
    "= swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>";

/// The pattern of the brief: cast, descriptor, cast to !llvm.ptr, launch.
std::string tmaBody(const std::string &source = "%x",
                    const std::string &sourceType = "memref<1x8192x4096xbf16>",
                    const std::string &box = "%c1, %c128, %c64",
                    const std::string &type = kTmaType,
                    const std::string &smem = "%smem") {
  return R"(    %smem = arith.constant 98304 : i32
    %u = memref.cast )" +
         source + " : " + sourceType + R"( to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[)" +
         box + "] : memref<*xbf16> -> " + type + R"(
    %p = builtin.unrealized_conversion_cast %d : )" +
         type + R"( to !llvm.ptr
    gpu.launch_func @sigreg_kernels::@tma_kernel blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size )" +
         smem + R"( args(%p : !llvm.ptr, %seed : i64, %out : memref<f32>)
)";
}

class ArtifactTest : public ::testing::Test {
protected:
  ArtifactTest() {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    LLVM::LLVMDialect, NVVM::NVVMDialect, memref::MemRefDialect,
                    nvgpu::NVGPUDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses and extracts; returns the manifest JSON, or "" with the
  /// diagnostics in `diags`.
  std::string extract(const std::string &ir) {
    diags.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diags += d.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
    if (!module) {
      diags = "parse failed: " + diags;
      return "";
    }
    ::sigreg::runtime::ProblemDesc problem;
    problem.N = 8192;
    problem.D = 4096;
    problem.S = 1024;
    FailureOr<mlir::sigreg::Artifact> a = mlir::sigreg::extractArtifact(
        *module, "sigreg", problem, "fused", "sm_90a");
    if (failed(a))
      return "";
    return a->manifestJson;
  }

  MLIRContext context;
  std::string diags;
};

TEST_F(ArtifactTest, TensorMapArgumentAndSharedBytes) {
  std::string json = extract(hostModule(tmaBody()));
  ASSERT_FALSE(json.empty()) << diags;
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(json);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  const llvm::json::Object &root = *v->getAsObject();
  const llvm::json::Object &step = *(*root.getArray("steps"))[0].getAsObject();
  EXPECT_EQ(step.getInteger("shared_bytes"), 98304);
  const llvm::json::Array &args = *step.getArray("args");
  ASSERT_EQ(args.size(), 3u);
  llvm::json::Value expected = llvm::json::Object{
      {"tensor_map",
       llvm::json::Object{{"buffer", "x"},
                          {"offset", 0},
                          {"dtype", "bf16"},
                          {"dims", llvm::json::Array{4096, 8192, 1}},
                          {"strides", llvm::json::Array{8192, 67108864}},
                          {"box", llvm::json::Array{64, 128, 1}},
                          {"swizzle", "128b"},
                          {"l2_promotion", "256b"},
                          {"oob_fill", "zero"},
                          {"interleave", "none"}}}};
  EXPECT_EQ(args[0], expected) << json;
  EXPECT_EQ(args[1],
            (llvm::json::Value(llvm::json::Object{{"scalar", "seed"}})));
  EXPECT_EQ(args[2],
            (llvm::json::Value(llvm::json::Object{{"buffer", "out"}})));

  // The runtime's reader accepts it and sees the same map.
  ::sigreg::runtime::Manifest m;
  std::string err;
  ASSERT_TRUE(::sigreg::runtime::parseManifest(json, m, err)) << err;
  const ::sigreg::runtime::KernelArg &a = m.steps[0].args[0];
  EXPECT_EQ(a.kind, ::sigreg::runtime::KernelArg::Kind::TensorMap);
  EXPECT_EQ(a.tensorMap.box, (std::vector<uint32_t>{64, 128, 1}));
  EXPECT_EQ(m.steps[0].sharedBytes, 98304u);
}

TEST_F(ArtifactTest, TensorMapThroughReshapeAndWorkspace) {
  // Source is a collapse_shape of x (rank 2), f32 workspace with swizzle
  // none and nan fill.
  std::string body =
      R"(    %x2 = memref.collapse_shape %x [[0, 1], [2]] : memref<1x8192x4096xbf16> into memref<8192x4096xbf16>
)" + tmaBody("%x2", "memref<8192x4096xbf16>", "%c128, %c64",
             "!nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, "
             "swizzle = swizzle_128b, l2promo = none, oob = nan, interleave "
             "= none>");
  std::string json = extract(hostModule(body));
  ASSERT_FALSE(json.empty()) << diags;
  EXPECT_NE(json.find(R"("dims": [
              4096,
              8192
            ])"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("oob_fill": "nan")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("l2_promotion": "none")"), std::string::npos);

  std::string ws = R"(    %w = memref.alloc() : memref<256x32xf32>
    %smem = arith.constant 0 : i32
    %u = memref.cast %w : memref<256x32xf32> to memref<*xf32>
    %d = nvgpu.tma.create.descriptor %u box[%c128, %c32] : memref<*xf32> -> !nvgpu.tensormap.descriptor<tensor = memref<128x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
    %p = builtin.unrealized_conversion_cast %d : !nvgpu.tensormap.descriptor<tensor = memref<128x32xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none> to !llvm.ptr
    gpu.launch_func @sigreg_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) dynamic_shared_memory_size %smem args(%p : !llvm.ptr)
)";
  json = extract(hostModule(ws));
  ASSERT_FALSE(json.empty()) << diags;
  ::sigreg::runtime::Manifest m;
  std::string err;
  ASSERT_TRUE(::sigreg::runtime::parseManifest(json, m, err)) << err << json;
  const auto &t = m.steps[0].args[0].tensorMap;
  EXPECT_EQ(m.steps[0].args[0].name, "ws0");
  EXPECT_EQ(t.dtype, "f32");
  EXPECT_EQ(t.dims, (std::vector<uint64_t>{32, 256}));
  EXPECT_EQ(t.strides, (std::vector<uint64_t>{128}));
  EXPECT_EQ(t.box, (std::vector<uint32_t>{32, 128}));
  EXPECT_EQ(m.steps[0].sharedBytes, 0u);
}

TEST_F(ArtifactTest, LaunchWithoutSharedMemoryHasZero) {
  std::string body =
      R"(    gpu.launch_func @sigreg_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%x : memref<1x8192x4096xbf16>)
)";
  std::string json = extract(hostModule(body));
  ASSERT_FALSE(json.empty()) << diags;
  EXPECT_NE(json.find(R"("shared_bytes": 0)"), std::string::npos) << json;
}

struct BadIr {
  const char *what;
  std::string body;
  const char *expected;
  std::string xType = "memref<1x8192x4096xbf16>";
};

// (A non-constant box or dynamic_shared_memory_size is also an error at the
// op, but no host IR the builder accepts can produce one: any op computing it
// is rejected first.) Swizzle spans are also checked by nvgpu's verifier.
TEST_F(ArtifactTest, RejectsWhatTheDriverWouldRefuse) {
  auto tile = [](const std::string &shape, const std::string &swizzle,
                 const std::string &elem = "bf16",
                 const std::string &oob = "zero",
                 const std::string &interleave = "none") {
    return "!nvgpu.tensormap.descriptor<tensor = memref<" + shape + "x" + elem +
           ", 3>, swizzle = " + swizzle + ", l2promo = none, oob = " + oob +
           ", interleave = " + interleave + ">";
  };
  const BadIr cases[] = {
      {"box over 256",
       "    %c512 = arith.constant 512 : index\n" +
           tmaBody("%x", "memref<1x8192x4096xbf16>", "%c1, %c512, %c64",
                   tile("1x512x64", "swizzle_128b")),
       "256"},
      {"inner box over swizzle span",
       tmaBody("%x", "memref<1x8192x4096xbf16>", "%c1, %c128, %c128",
               tile("1x128x128", "swizzle_128b")),
       "256 bytes"},
      {"inner box over 64b span",
       tmaBody("%x", "memref<1x8192x4096xbf16>", "%c1, %c128, %c64",
               tile("1x128x64", "swizzle_64b")),
       "128 bytes"},
      {"box differs from the tile",
       tmaBody("%x", "memref<1x8192x4096xbf16>", "%c1, %c64, %c64", kTmaType),
       "box does not match the descriptor's tile"},
      {"row stride not a multiple of 16",
       tmaBody("%x", "memref<1x8192x4100xbf16>", "%c1, %c128, %c64", kTmaType),
       "stride of dimension 1 (8200 bytes) must be a multiple of 16",
       "memref<1x8192x4100xbf16>"},
      {"inner box not 16 bytes",
       tmaBody("%x", "memref<1x8192x4096xbf16>", "%c1, %c128, %c1",
               tile("1x128x1", "none")),
       "inner box of 2 bytes is not a multiple of 16"},
      {"non-identity layout",
       tmaBody("%x",
               "memref<1x8192x4096xbf16, strided<[33554432, 4096, 1], "
               "offset: 8>>",
               "%c1, %c128, %c64", kTmaType),
       "needs a static shape and identity layout",
       "memref<1x8192x4096xbf16, strided<[33554432, 4096, 1], offset: 8>>"},
  };
  for (const BadIr &c : cases) {
    std::string json = extract(hostModule(c.body, c.xType));
    EXPECT_TRUE(json.empty()) << c.what << ": " << json;
    EXPECT_NE(diags.find(c.expected), std::string::npos)
        << c.what << ": got \"" << diags << "\", expected \"" << c.expected
        << "\"";
  }
}
} // namespace
