//===- KernelBuilder.cpp - terse IR building for GPU kernels --------------===//

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sigreg;

Value KernelBuilder::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
Value KernelBuilder::f32(float v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}

Value KernelBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, x, y);
}
Value KernelBuilder::sub(Value x, Value y) {
  return arith::SubIOp::create(b, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return arith::MulIOp::create(b, x, y);
}
Value KernelBuilder::div(Value x, Value y) {
  return arith::DivUIOp::create(b, x, y);
}
Value KernelBuilder::rem(Value x, Value y) {
  return arith::RemUIOp::create(b, x, y);
}
Value KernelBuilder::min(Value x, Value y) {
  return arith::MinUIOp::create(b, x, y);
}
Value KernelBuilder::lt(Value x, Value y) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
}
Value KernelBuilder::land(Value x, Value y) {
  return arith::AndIOp::create(b, x, y);
}

Value KernelBuilder::addf(Value x, Value y) {
  return arith::AddFOp::create(b, x, y);
}
Value KernelBuilder::subf(Value x, Value y) {
  return arith::SubFOp::create(b, x, y);
}
Value KernelBuilder::mulf(Value x, Value y) {
  return arith::MulFOp::create(b, x, y);
}
Value KernelBuilder::divf(Value x, Value y) {
  return arith::DivFOp::create(b, x, y);
}
Value KernelBuilder::fma(Value x, Value y, Value z) {
  return math::FmaOp::create(b, x, y, z);
}
Value KernelBuilder::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, c, x, y);
}
Value KernelBuilder::toF32(Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, b.getF32Type(), v);
}

Value KernelBuilder::threadId(gpu::Dimension d) {
  return gpu::ThreadIdOp::create(b, d);
}
Value KernelBuilder::blockId(gpu::Dimension d) {
  return gpu::BlockIdOp::create(b, d);
}
void KernelBuilder::barrier() { gpu::BarrierOp::create(b); }

Value KernelBuilder::load(Value memref, ValueRange indices) {
  return memref::LoadOp::create(b, memref, indices);
}
void KernelBuilder::store(Value value, Value memref, ValueRange indices) {
  memref::StoreOp::create(b, value, memref, indices);
}

void KernelBuilder::forEach(Value lb, Value ub, Value step,
                            const std::function<void(Value)> &body) {
  forEach(lb, ub, step, {}, [&](Value iv, ValueRange) {
    body(iv);
    return SmallVector<Value>();
  });
}

SmallVector<Value> KernelBuilder::forEach(
    Value lb, Value ub, Value step, ValueRange inits,
    const std::function<SmallVector<Value>(Value, ValueRange)> &body) {
  auto loop = scf::ForOp::create(
      b, lb, ub, step, inits,
      [&](OpBuilder &nb, Location loc, Value iv, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        SmallVector<Value> results = body(iv, args);
        scf::YieldOp::create(b, results);
      });
  return SmallVector<Value>(loop.getResults());
}

void KernelBuilder::ifThen(Value cond, const std::function<void()> &body) {
  auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

Value KernelBuilder::ifElse(Value cond, const std::function<Value()> &then,
                            Value otherwise) {
  auto ifOp = scf::IfOp::create(b, TypeRange{otherwise.getType()}, cond,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, then());
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, otherwise);
  return ifOp.getResult(0);
}

gpu::GPUModuleOp mlir::sigreg::getOrCreateKernelModule(ModuleOp module) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  if (auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("sigreg_kernels"))
    return kernels;
  return gpu::GPUModuleOp::create(b, module.getLoc(), "sigreg_kernels");
}

gpu::LaunchFuncOp
mlir::sigreg::createLaunch(OpBuilder &b, Location loc, gpu::GPUFuncOp kernel,
                           std::array<int64_t, 3> grid, int64_t blockThreads,
                           ValueRange args, int64_t dynamicSharedBytes) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{c(grid[0]), c(grid[1]), c(grid[2])},
      gpu::KernelDim3{c(blockThreads), c(1), c(1)},
      dynamicSharedBytes ? arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                        dynamicSharedBytes)
                               .getResult()
                         : Value(),
      args);
  if (Attribute region = kernel->getAttr("sigreg.region"))
    launch->setAttr("sigreg.region", region);
  return launch;
}
