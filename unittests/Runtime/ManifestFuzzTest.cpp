//===- ManifestFuzzTest.cpp - the manifest reader on mutated input --------===//
//
// A corrupted or hand-edited artifact must give an error, never a crash or a
// manifest whose steps reach outside their buffers: the executor trusts what
// parseManifest accepted (names resolved at creation, copies and memsets
// enqueued as given). Seeded mutations of real manifests (manifest_corpus/
// and the gpu_smoke fixture): byte flips, deleted, repeated and truncated
// spans, numbers replaced by boundary values and names by other names. Each
// rejected input has a message; each accepted one keeps the invariants the
// executor relies on.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace sigreg::runtime;

namespace {

std::string readCorpusFile(const std::string &path) {
  std::string text, err;
  EXPECT_TRUE(readFile(path, text, err)) << err;
  return text;
}

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const char *name : {"phased-large-bf16.json", "coop-mid-step-bf16.json",
                           "grad-n300-f32-explicit-naive.json"})
    out.push_back(
        readCorpusFile(std::string(SIGREG_MANIFEST_CORPUS_DIR) + "/" + name));
  out.push_back(
      readCorpusFile(std::string(SIGREG_GPU_SMOKE_DIR) + "/manifest.json"));
  return out;
}

/// Positions [begin, end) of the JSON number tokens and of the string
/// tokens' contents of `s` (a rough scan: good enough to aim mutations).
void tokens(const std::string &s, std::vector<std::pair<size_t, size_t>> &nums,
            std::vector<std::pair<size_t, size_t>> &strs) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '"') {
      size_t j = s.find('"', i + 1);
      if (j == std::string::npos)
        return;
      strs.push_back({i + 1, j});
      i = j + 1;
    } else if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
      size_t j = i + 1;
      while (j < s.size() &&
             (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
              s[j] == 'e' || s[j] == 'E' || s[j] == '+' || s[j] == '-'))
        ++j;
      nums.push_back({i, j});
      i = j;
    } else {
      ++i;
    }
  }
}

const char *const kNumbers[] = {"0",
                                "-1",
                                "1",
                                "-0",
                                "0.5",
                                "1e308",
                                "-1e308",
                                "1e999",
                                "2147483647",
                                "2147483648",
                                "4294967295",
                                "4294967296",
                                "9223372036854775807",
                                "9223372036854775808",
                                "18446744073709551615",
                                "18446744073709551616",
                                "65536",
                                "1025",
                                "1024",
                                "128",
                                "3"};

std::string mutate(std::string s, std::mt19937_64 &rng) {
  // rng() % n: the same draws with any standard library (a distribution's
  // are not specified).
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  std::vector<std::pair<size_t, size_t>> nums, strs;
  tokens(s, nums, strs);
  switch (pick(7)) {
  case 0: // a byte flipped to a printable character or a brace
    if (!s.empty())
      s[pick(s.size())] = " {}[],:\"0-9aetrunlfx\\"[pick(22)];
    break;
  case 1: { // a span deleted
    size_t at = pick(s.size() + 1), n = std::min(pick(40) + 1, s.size() - at);
    s.erase(at, n);
    break;
  }
  case 2: { // a span repeated
    size_t at = pick(s.size() + 1), n = std::min(pick(80) + 1, s.size() - at);
    s.insert(at, s.substr(at, n));
    break;
  }
  case 3: // truncated
    s.resize(pick(s.size() + 1));
    break;
  case 4: // a number replaced by a boundary value
  case 5:
    if (!nums.empty()) {
      auto [b, e] = nums[pick(nums.size())];
      s.replace(b, e - b, kNumbers[pick(std::size(kNumbers))]);
    }
    break;
  default: // a string replaced by another string of the same manifest
    if (strs.size() > 1) {
      auto [b, e] = strs[pick(strs.size())];
      auto [ob, oe] = strs[pick(strs.size())];
      s.replace(b, e - b, s.substr(ob, oe - ob));
    }
    break;
  }
  return s;
}

const BufferDesc *findBuffer(const Manifest &m, const std::string &name) {
  for (const BufferDesc &b : m.buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

/// What the executor relies on in an accepted manifest; "" when it holds.
std::string brokenInvariant(const Manifest &m) {
  auto inside = [](const BufferDesc *b, uint64_t offset, uint64_t bytes) {
    return b && offset <= b->bytes && bytes <= b->bytes - offset;
  };
  // A shared workspace lives in its output's allocation, which the runtime
  // makes max(the output's bytes, offset + the workspace's bytes) long.
  for (const BufferDesc &b : m.buffers) {
    const BufferDesc *with =
        b.sharesWith.empty() ? nullptr : findBuffer(m, b.sharesWith);
    if (!b.sharesWith.empty() && (!with || with->role != BufferRole::Output ||
                                  b.role != BufferRole::Workspace))
      return "buffer '" + b.name + "' shares with '" + b.sharesWith +
             "', not an output";
  }
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step &s = m.steps[i];
    std::string where = "step " + std::to_string(i);
    switch (s.op) {
    case StepOp::Memset32:
    case StepOp::Memset8: {
      uint64_t unit = s.op == StepOp::Memset32 ? 4 : 1;
      if (s.count > UINT64_MAX / unit ||
          !inside(findBuffer(m, s.buffer), s.offset, s.count * unit))
        return where + ": memset outside its buffer";
      break;
    }
    case StepOp::Copy:
      if (!inside(findBuffer(m, s.src), s.srcOffset, s.bytes) ||
          !inside(findBuffer(m, s.dst), s.dstOffset, s.bytes))
        return where + ": copy outside its buffers";
      break;
    case StepOp::Launch:
      for (unsigned d = 0; d < 3; ++d)
        if (s.grid[d] == 0 || s.block[d] == 0)
          return where + ": an empty grid or block";
      for (const KernelArg &a : s.args) {
        if ((a.kind == KernelArg::Kind::Buffer ||
             a.kind == KernelArg::Kind::TensorMap) &&
            !inside(findBuffer(m, a.name), a.offset, 0))
          return where + ": argument of unknown buffer '" + a.name + "'";
        if (a.kind == KernelArg::Kind::Scalar &&
            std::none_of(m.scalars.begin(), m.scalars.end(),
                         [&](const ScalarDesc &d) { return d.name == a.name; }))
          return where + ": unknown scalar '" + a.name + "'";
      }
      break;
    }
  }
  return "";
}

TEST(ManifestFuzz, MutatedManifestsAreRejectedOrSound) {
  std::vector<std::string> seeds = corpus();
  ASSERT_EQ(seeds.size(), 4u);
  for (const std::string &seed : seeds) {
    Manifest m;
    std::string err;
    ASSERT_TRUE(parseManifest(seed, m, err)) << err;
    ASSERT_EQ(brokenInvariant(m), "");
  }
  std::mt19937_64 rng(11);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = seeds[i % seeds.size()];
    int rounds = 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < rounds; ++r)
      text = mutate(std::move(text), rng);
    Manifest m;
    std::string err;
    if (parseManifest(text, m, err)) {
      ++accepted;
      std::string broken = brokenInvariant(m);
      ASSERT_EQ(broken, "") << "mutation " << i << " accepted:\n" << text;
    } else {
      ++rejected;
      ASSERT_FALSE(err.empty()) << "mutation " << i << " rejected silently";
    }
  }
  // Both outcomes occur (the mutations neither always break the manifest
  // nor never do), so each side of the check above was exercised.
  EXPECT_GT(accepted, 500);
  EXPECT_GT(rejected, 10000);
}
} // namespace
