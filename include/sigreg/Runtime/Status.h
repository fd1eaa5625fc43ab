//===- Status.h - Error-or-success result for the runtime -------*- C++ -*-===//
//
// The runtime is built without C++ exceptions: every fallible call returns a
// Status carrying a human-readable message on failure.
//
//===----------------------------------------------------------------------===//

#ifndef SIGREG_RUNTIME_STATUS_H
#define SIGREG_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace sigreg {
namespace runtime {

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.msg = std::move(message);
    return s;
  }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return msg; }

  /// Returns this status with `context: ` prepended to the message.
  Status withContext(const std::string &context) const {
    if (ok())
      return *this;
    return error(context + ": " + msg);
  }

private:
  bool failed = false;
  std::string msg;
};

} // namespace runtime
} // namespace sigreg

/// Returns early from the enclosing function when `expr` fails.
#define SIGREG_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    ::sigreg::runtime::Status sigregStatus_ = (expr);                          \
    if (!sigregStatus_.ok())                                                   \
      return sigregStatus_;                                                    \
  } while (false)

#endif // SIGREG_RUNTIME_STATUS_H
