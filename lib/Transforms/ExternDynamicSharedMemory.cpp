//===- ExternDynamicSharedMemory.cpp - .extern .shared dynamic buffer -----===//
//
// Rewrites the zero-sized address-space-3 globals that convert-gpu-to-nvvm
// makes for gpu.dynamic_shared_memory into external declarations with a
// large alignment (the pass description in Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "sigreg/Transforms/Passes.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGEXTERNDYNAMICSHAREDMEMORY
#include "sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;

namespace {
/// NVVM's shared memory address space.
constexpr unsigned kSharedAddressSpace = 3;

bool isDynamicSharedBuffer(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == kSharedAddressSpace && array &&
         array.getNumElements() == 0 && !global.getValueOrNull() &&
         global.getInitializerRegion().empty();
}

struct ExternDynamicSharedMemoryPass
    : sigreg::impl::SigregExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError("alignment must be a power of two, got ")
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    getOperation().walk([&](LLVM::GlobalOp global) {
      if (!isDynamicSharedBuffer(global))
        return;
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(static_cast<uint64_t>(alignment));
      global.setDsoLocal(false);
    });
  }
};
} // namespace
