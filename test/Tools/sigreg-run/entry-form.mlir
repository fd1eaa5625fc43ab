// Entry functions of a form sigreg-run does not compile: (x, seed : i64) or
// (x, projection) -> sigreg.loss, with the loss operands being the function
// arguments in that order and the loss result returned. Each is rejected
// with exit code 2 before anything runs.

// RUN: not sigreg-run --target=cpu --entry=swapped %s 2>&1 | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: entry-form.mlir:[[@LINE+26]]:8: error: sigreg-run expects the loss operands to be the entry function's arguments, in order (x, seed)
// RUN: not sigreg-run --target=cpu --entry=extra_arg %s 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: entry-form.mlir:[[@LINE+29]]:8: error: sigreg-run expects the loss operands to be the entry function's arguments, in order (x, projection)
// RUN: not sigreg-run --target=cpu --entry=constant_seed %s 2>&1 | FileCheck %s --check-prefix=CONST
// CONST: entry-form.mlir:[[@LINE+33]]:8: error: sigreg-run expects the loss operands to be the entry function's arguments, in order (x, seed)
// RUN: not sigreg-run --target=cpu --entry=not_returned %s 2>&1 | FileCheck %s --check-prefix=NOTRET
// NOTRET: entry-form.mlir:[[@LINE+35]]:1: error: entry function 'not_returned' must return the result of a sigreg.loss
// RUN: not sigreg-run --target=cpu --entry=two_results %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: entry-form.mlir:[[@LINE+38]]:1: error: entry function 'two_results' must return the result of a sigreg.loss
// RUN: not sigreg-run --target=cpu --entry=external %s 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// EXTERNAL: entry-form.mlir:[[@LINE+41]]:1: error: entry function 'external' must return the result of a sigreg.loss
// A loss nested in a region is found (so the function is the one candidate)
// but is not returned by the function.
// RUN: not sigreg-run --target=cpu %s --entry=nested 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: entry function 'nested' must return the result of a sigreg.loss
// Exit codes.
// RUN: (sigreg-run --target=cpu --entry=swapped %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: (sigreg-run --target=cpu --entry=not_returned %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: (sigreg-run --target=cpu --entry=external %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// EXIT2: exit=2

// None of them prints anything on stdout.
// RUN: not sigreg-run --target=cpu --entry=swapped %s 2>/dev/null | count 0
// RUN: not sigreg-run --target=cpu --entry=not_returned %s 2>/dev/null | count 0

func.func @swapped(%seed: i64, %x: tensor<4x16xf32>) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @extra_arg(%x: tensor<4x16xf32>, %a: tensor<16x8xf32>, %y: f32) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<16x8xf32>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @constant_seed(%x: tensor<4x16xf32>) -> tensor<f32> {
  %seed = arith.constant 3 : i64
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @not_returned(%x: tensor<4x16xf32>, %seed: i64) -> tensor<4x16xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %x : tensor<4x16xf32>
}

func.func @two_results(%x: tensor<4x16xf32>, %seed: i64) -> (tensor<f32>, tensor<f32>) {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}

func.func private @external(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32>

func.func @nested(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %r = scf.execute_region -> tensor<f32> {
    %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
    scf.yield %l : tensor<f32>
  }
  return %r : tensor<f32>
}
