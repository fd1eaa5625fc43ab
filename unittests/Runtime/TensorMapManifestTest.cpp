//===- TensorMapManifestTest.cpp - tensor_map kernel arguments ------------===//

#include "sigreg/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <string>

using namespace sigreg::runtime;

namespace {
// x is [1, 8192, 4096] bf16 (64 MiB); the map tiles it by [1, 128, 64].
const char *const kTensorMapValid = R"({
  "format": "sigreg-aot-v1", "ptx": "k.ptx",
  "buffers": [
    {"name":"x","role":"input","bytes":67108864,"dtype":"bf16","shape":[1,8192,4096]},
    {"name":"out","role":"output","bytes":4}
  ],
  "steps": [
    {"op":"launch","kernel":"tma","grid":[64,1,1],"block":[128,1,1],"shared_bytes":98304,
     "args":[{"tensor_map":{"buffer":"x","offset":0,"dtype":"bf16","dims":[4096,8192,1],
                            "strides":[8192,67108864],"box":[64,128,1],"swizzle":"128b",
                            "l2_promotion":"256b","oob_fill":"zero","interleave":"none"}},
             {"buffer":"out"}]}
  ]
})";

std::string tmReplaced(const std::string &from, const std::string &to) {
  std::string s = kTensorMapValid;
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "fixture lacks: " << from;
  if (pos != std::string::npos)
    s.replace(pos, from.size(), to);
  return s;
}

TEST(ManifestTensorMap, ParsesValid) {
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(kTensorMapValid, m, err)) << err;
  const Step &s = m.steps[0];
  EXPECT_EQ(s.sharedBytes, 98304u);
  ASSERT_EQ(s.args.size(), 2u);
  const KernelArg &a = s.args[0];
  EXPECT_EQ(a.kind, KernelArg::Kind::TensorMap);
  EXPECT_EQ(a.name, "x");
  EXPECT_EQ(a.offset, 0u);
  const TensorMapDesc &t = a.tensorMap;
  EXPECT_EQ(t.dtype, "bf16");
  EXPECT_EQ(t.dims, (std::vector<uint64_t>{4096, 8192, 1}));
  EXPECT_EQ(t.strides, (std::vector<uint64_t>{8192, 67108864}));
  EXPECT_EQ(t.box, (std::vector<uint32_t>{64, 128, 1}));
  EXPECT_EQ(t.swizzle, TensorMapSwizzle::B128);
  EXPECT_EQ(t.l2Promotion, TensorMapL2Promotion::B256);
  EXPECT_EQ(t.oobFill, TensorMapOobFill::Zero);
  EXPECT_EQ(t.interleave, TensorMapInterleave::None);
  EXPECT_EQ(s.args[1].kind, KernelArg::Kind::Buffer);
}

TEST(ManifestTensorMap, Defaults) {
  // Rank 1, no optional keys: offset 0, no swizzle/promotion/interleave,
  // zero fill; f32 inner box of 64 bytes.
  const char *json = R"({"format":"sigreg-aot-v1","ptx":"k.ptx",
    "buffers":[{"name":"w","role":"workspace","bytes":4096}],
    "steps":[{"op":"launch","kernel":"k","grid":[1,1,1],"block":[32,1,1],
      "args":[{"tensor_map":{"buffer":"w","dtype":"f32","dims":[1024],
                             "strides":[],"box":[16]}}]}]})";
  Manifest m;
  std::string err;
  ASSERT_TRUE(parseManifest(json, m, err)) << err;
  const KernelArg &a = m.steps[0].args[0];
  EXPECT_EQ(a.kind, KernelArg::Kind::TensorMap);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(a.tensorMap.swizzle, TensorMapSwizzle::None);
  EXPECT_EQ(a.tensorMap.l2Promotion, TensorMapL2Promotion::None);
  EXPECT_EQ(a.tensorMap.oobFill, TensorMapOobFill::Zero);
  EXPECT_EQ(a.tensorMap.interleave, TensorMapInterleave::None);
  EXPECT_TRUE(a.tensorMap.strides.empty());
}

TEST(ManifestTensorMap, OffsetSubTensor) {
  // Offset 16 into x, one row less: inside the buffer.
  Manifest m;
  std::string err;
  std::string json =
      tmReplaced("\"offset\":0,\"dtype\":\"bf16\",\"dims\":[4096,8192,1]",
                 "\"offset\":16,\"dtype\":\"bf16\",\"dims\":[4088,8191,1]");
  ASSERT_TRUE(parseManifest(json, m, err)) << err;
  EXPECT_EQ(m.steps[0].args[0].offset, 16u);
}

/// The fixture with other dims, strides and box.
std::string tmShape(const std::string &dims, const std::string &strides,
                    const std::string &box) {
  std::string s = kTensorMapValid;
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"[4096,8192,1]", dims},
        {"[8192,67108864]", strides},
        {"[64,128,1]", box}})
    s.replace(s.find(from), from.size(), to);
  return s;
}

struct TmBadCase {
  const char *what;
  std::string json;
  const char *expected;
};

TEST(ManifestTensorMap, RejectsInvalid) {
  const TmBadCase cases[] = {
      {"unknown key",
       tmReplaced("\"interleave\":\"none\"",
                  "\"interleave\":\"none\",\"mode\":1"),
       "steps[0].args[0].tensor_map.mode: unknown key"},
      {"not an object",
       tmReplaced("{\"buffer\":\"x\",\"offset\":0,",
                  "[{\"buffer\":\"x\",\"offset\":0,"),
       "JSON syntax error"},
      {"missing buffer",
       tmReplaced("\"buffer\":\"x\",\"offset\":0,", "\"offset\":0,"),
       "steps[0].args[0].tensor_map.buffer: missing required key"},
      {"unknown buffer",
       tmReplaced("{\"buffer\":\"x\",\"offset\":0,",
                  "{\"buffer\":\"y\",\"offset\":0,"),
       "steps[0].args[0].tensor_map.buffer: unknown buffer 'y'"},
      {"missing dtype", tmReplaced("\"dtype\":\"bf16\",\"dims\"", "\"dims\""),
       "steps[0].args[0].tensor_map.dtype: missing required key"},
      {"bad dtype",
       tmReplaced("\"dtype\":\"bf16\",\"dims\"", "\"dtype\":\"f64\",\"dims\""),
       "steps[0].args[0].tensor_map.dtype: invalid value \"f64\""},
      {"rank 0", tmShape("[]", "[]", "[]"),
       "steps[0].args[0].tensor_map.dims: rank 0 out of range [1, 5]"},
      {"rank 6", tmShape("[8,1,1,1,1,1]", "[16,16,16,16,16]", "[8,1,1,1,1,1]"),
       "steps[0].args[0].tensor_map.dims: rank 6 out of range [1, 5]"},
      {"dim zero", tmReplaced("[4096,8192,1]", "[4096,0,1]"),
       "steps[0].args[0].tensor_map.dims[1]: value 0 out of range"},
      {"dim too big", tmReplaced("[4096,8192,1]", "[4096,8192,4294967297]"),
       "steps[0].args[0].tensor_map.dims[2]: value 4294967297 out of range"},
      {"strides length", tmReplaced("[8192,67108864]", "[8192]"),
       "steps[0].args[0].tensor_map.strides: expected 2 strides"},
      {"stride not multiple of 16",
       tmReplaced("[8192,67108864]", "[8200,67108864]"),
       "steps[0].args[0].tensor_map.strides[0]: stride 8200 is not a multiple "
       "of 16"},
      {"stride too small", tmReplaced("[8192,67108864]", "[4096,67108864]"),
       "steps[0].args[0].tensor_map.strides[0]: stride 4096 is smaller than "
       "the 8192 bytes"},
      {"stride too big", tmReplaced("[8192,67108864]", "[8192,1099511627776]"),
       "steps[0].args[0].tensor_map.strides[1]: value 1099511627776 out of "
       "range"},
      {"box length", tmReplaced("[64,128,1]", "[64,128]"),
       "steps[0].args[0].tensor_map.box: expected 3 box sizes"},
      {"box zero", tmReplaced("[64,128,1]", "[64,0,1]"),
       "steps[0].args[0].tensor_map.box[1]: value 0 out of range [1, 256]"},
      {"box too big", tmReplaced("[64,128,1]", "[64,257,1]"),
       "steps[0].args[0].tensor_map.box[1]: value 257 out of range [1, 256]"},
      {"inner box not 16 bytes", tmReplaced("[64,128,1]", "[4,128,1]"),
       "steps[0].args[0].tensor_map.box[0]: inner box of 8 bytes is not a "
       "multiple of 16"},
      {"inner box over swizzle span", tmReplaced("[64,128,1]", "[128,128,1]"),
       "steps[0].args[0].tensor_map.box[0]: inner box of 256 bytes exceeds the "
       "128-byte swizzle span"},
      {"inner box over 64b span",
       tmReplaced("\"swizzle\":\"128b\"", "\"swizzle\":\"64b\""),
       "steps[0].args[0].tensor_map.box[0]: inner box of 128 bytes exceeds the "
       "64-byte swizzle span"},
      {"bad swizzle",
       tmReplaced("\"swizzle\":\"128b\"", "\"swizzle\":\"256b\""),
       "steps[0].args[0].tensor_map.swizzle: invalid value \"256b\""},
      {"bad l2 promotion",
       tmReplaced("\"l2_promotion\":\"256b\"", "\"l2_promotion\":\"512b\""),
       "steps[0].args[0].tensor_map.l2_promotion: invalid value \"512b\""},
      {"bad oob fill",
       tmReplaced("\"oob_fill\":\"zero\"", "\"oob_fill\":\"one\""),
       "steps[0].args[0].tensor_map.oob_fill: invalid value \"one\""},
      {"oob fill not a string",
       tmReplaced("\"oob_fill\":\"zero\"", "\"oob_fill\":0"),
       "steps[0].args[0].tensor_map.oob_fill: expected a string, got a number"},
      {"bad interleave",
       tmReplaced("\"interleave\":\"none\"", "\"interleave\":\"8b\""),
       "steps[0].args[0].tensor_map.interleave: invalid value \"8b\""},
      {"32b interleave needs 32b swizzle",
       tmReplaced("\"interleave\":\"none\"", "\"interleave\":\"32b\""),
       "steps[0].args[0].tensor_map.swizzle: 32b interleave requires 32b "
       "swizzle"},
      {"misaligned offset", tmReplaced("\"offset\":0,", "\"offset\":8,"),
       "steps[0].args[0].tensor_map.offset: offset 8 is not a multiple of 16"},
      {"outside the buffer", tmReplaced("[4096,8192,1]", "[4096,8192,2]"),
       "steps[0].args[0].tensor_map.dims: the tensor (134217728 bytes from "
       "offset 0) exceeds buffer 'x' of 67108864 bytes"},
      {"offset pushes it outside",
       tmReplaced("\"offset\":0,", "\"offset\":16,"),
       "steps[0].args[0].tensor_map.dims: the tensor (67108864 bytes from "
       "offset 16) exceeds buffer 'x'"},
      {"two kinds",
       tmReplaced("{\"tensor_map\":{", "{\"i32\":1,\"tensor_map\":{"),
       "steps[0].args[0]: expected exactly one of"},
  };
  for (const TmBadCase &c : cases) {
    Manifest m;
    std::string err;
    EXPECT_FALSE(parseManifest(c.json, m, err)) << c.what;
    EXPECT_NE(err.find(c.expected), std::string::npos)
        << c.what << ": got \"" << err << "\", expected \"" << c.expected
        << "\"";
  }
}

TEST(ManifestTensorMap, InterleaveAndNanRules) {
  // Interleaved maps need rank >= 3; nan fill needs a float dtype.
  const char *rank2 = R"({"format":"sigreg-aot-v1","ptx":"k.ptx",
    "buffers":[{"name":"w","role":"workspace","bytes":65536}],
    "steps":[{"op":"launch","kernel":"k","grid":[1,1,1],"block":[32,1,1],
      "args":[{"tensor_map":{"buffer":"w","dtype":"f16","dims":[64,64],
                             "strides":[128],"box":[8,8],"interleave":"16b"}}]}]})";
  Manifest m;
  std::string err;
  EXPECT_FALSE(parseManifest(rank2, m, err));
  EXPECT_NE(err.find("steps[0].args[0].tensor_map.interleave: interleaved "
                     "layouts need rank >= 3"),
            std::string::npos)
      << err;
  const char *nanInt = R"({"format":"sigreg-aot-v1","ptx":"k.ptx",
    "buffers":[{"name":"w","role":"workspace","bytes":65536}],
    "steps":[{"op":"launch","kernel":"k","grid":[1,1,1],"block":[32,1,1],
      "args":[{"tensor_map":{"buffer":"w","dtype":"i32","dims":[64,64],
                             "strides":[256],"box":[8,8],"oob_fill":"nan"}}]}]})";
  EXPECT_FALSE(parseManifest(nanInt, m, err));
  EXPECT_NE(err.find("steps[0].args[0].tensor_map.oob_fill: nan fill needs "
                     "a floating-point dtype"),
            std::string::npos)
      << err;
  // The same with f32 parses.
  std::string nanFloat = nanInt;
  nanFloat.replace(nanFloat.find("\"i32\""), 5, "\"f32\"");
  EXPECT_TRUE(parseManifest(nanFloat, m, err)) << err;
}
} // namespace
