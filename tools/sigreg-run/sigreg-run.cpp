//===- sigreg-run.cpp - compile, run, validate and time sigreg code -------===//

#include "sigreg/Tools/SigregRunMain.h"

int main(int argc, char **argv) {
  return mlir::sigreg::sigregRunMain(argc, argv);
}
