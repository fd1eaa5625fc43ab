// --json=<file> writes the results (problem, validation, bench) as JSON.
//
// BUG: the CPU target ignores --json: SigregRunMain.cpp declares the option
// but runOnCpu never writes the file (the option is silently dropped; the run
// itself passes). Remove the XFAIL once the CPU path writes the report.
// XFAIL: *

// RUN: rm -f %t.json
// RUN: sigreg-run --target=cpu --json=%t.json %s | FileCheck %s --check-prefix=STDOUT
// STDOUT: PASS
// RUN: FileCheck %s --input-file=%t.json
// CHECK: "problem": {"V": 2, "N": 5, "D": 16, "S": 4, "P": 17
// CHECK: "validation": {"passed": true

func.func @f(%x: tensor<2x5x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<2x5x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
