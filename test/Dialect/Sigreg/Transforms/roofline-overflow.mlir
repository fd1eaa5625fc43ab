// Issue 11: --sigreg-roofline printed negative FLOP and byte counts when its
// products overflowed. They are overflow-checked now: an error, exit 1.
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-roofline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAIVE --implicit-check-not=flops=-
// A dynamic batch given as a huge batch= option, naive and fused paths.
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-roofline=batch=4611686018427387904 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --sigreg-roofline=batch=4611686018427387904 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BATCH

// The verifier accepts this one (V*N*S*P*4 bytes fit in 64 bits), but
// 24 V*N*S*P bytes of the naive ECF do not.
// NAIVE: error: roofline: the FLOP or byte counts of @big overflow 64 bits
func.func @big(%x: tensor<32768x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1099511627776 : tensor<32768x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// BATCH: error: roofline: the FLOP or byte counts of @dynamic overflow 64 bits
// BATCH-NOT: flops=-
func.func @dynamic(%x: tensor<?x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<?x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
