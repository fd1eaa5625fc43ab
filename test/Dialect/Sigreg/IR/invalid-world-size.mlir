// RUN: sigreg-opt %s -split-input-file -verify-diagnostics

// BUG: AllReduceMeanOp::verify compares getWorldSize() (uint64_t, the ODS
// accessor of an I64Attr) with 1, so a negative world_size wraps to a huge
// unsigned value and passes the `world_size must be >= 1` check. The op is
// accepted and printed back with world_size = -4. Remove the XFAIL once the
// verifier compares the signed value.
// XFAIL: *

func.func @all_reduce_world_negative(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op world_size must be >= 1, got -4}}
  %r:3 = sigreg.all_reduce_mean %c, %c, %n world_size = -4 : tensor<1x8x5xf32>
  return %r#0 : tensor<1x8x5xf32>
}
