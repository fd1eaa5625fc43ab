// Issue 11: sizes are checked before anything is allocated. A product that
// overflows 64 bits is a verifier error at the op; a problem that does not
// fit in the memory budget (default 16 GiB, --max-memory) is an error at the
// entry function; both exit 2, never a crash (134/139).

// The same product from --shape.
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=99999999999999999x16 %s 2>&1 | FileCheck %s --check-prefix=SHAPEWRAP
// SHAPEWRAP: error: 'sigreg.loss' op problem too large: V*N*S*P = 1*99999999999999999*8*17 overflows 64 bits
// RUN: (sigreg-run --target=cpu --entry=dynamic --shape=99999999999999999x16 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --shape=99999999999x16 ran out of memory (LLVM ERROR, exit 134).
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=99999999999x16 %s 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: problem too large: the host inputs and the float64 reference need 25600000003456 bytes (23841.9 GiB), more than the memory budget of 17179869184 bytes (16.0 GiB) (raise it with --max-memory)
// RUN: (sigreg-run --target=cpu --entry=dynamic --shape=99999999999x16 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// Slices near 2^40.
// RUN: not sigreg-run --target=cpu --entry=many_slices --shape=4x16 %s 2>&1 | FileCheck %s --check-prefix=SLICES
// SLICES: error: problem too large: the host inputs and the float64 reference need {{[0-9]+}} bytes

// The budget is a flag: the same small problem passes with the default and
// fails with 64K (the CPU path's [V, N, S, P] workspace: 1*600*8*17*4 bytes).
// RUN: sigreg-run --target=cpu --entry=dynamic --shape=600x16 %s | FileCheck %s --check-prefix=SMALL
// SMALL: PASS
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=600x16 --max-memory=300K %s 2>&1 | FileCheck %s --check-prefix=TIGHT
// TIGHT: error: problem too large: the naive CPU path's [V, N, S, P] workspace need 326400 bytes (0.0 GiB), more than the memory budget of 307200 bytes (0.0 GiB) (raise it with --max-memory)
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=600x16 --max-memory=12Q %s 2>&1 | FileCheck %s --check-prefix=BADMEM
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=600x16 --max-memory=0 %s 2>&1 | FileCheck %s --check-prefix=BADMEM
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=600x16 --max-memory=99999999999999999999 %s 2>&1 | FileCheck %s --check-prefix=BADMEM
// BADMEM: must be a positive byte count, optionally with a K, M, G or T suffix

// Nothing was printed on stdout (no header, nothing run).
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=99999999999x16 %s 2>/dev/null | count 0

// EXIT2: exit=2

func.func @dynamic(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @many_slices(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1099511627776 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
