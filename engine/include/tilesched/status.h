// Status and StatusOr: expected failures (bad input, infeasible graph, I/O)
// are values with a reason, never exceptions across the engine's API.
// Invariant violations inside the engine are assertions instead.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace tilesched {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // malformed graph or schedule file: exit status 2
  kInfeasible,    // no legal schedule found / illegal schedule: exit status 1
  kIoError,       // cannot read or write a file: exit status 2
};

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidInput(std::string msg) {
    return Status(StatusCode::kInvalidInput, std::move(msg));
  }
  static Status Infeasible(std::string msg) {
    return Status(StatusCode::kInfeasible, std::move(msg));
  }
  static Status IoError(std::string msg) {
    return Status(StatusCode::kIoError, std::move(msg));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Exit status of the command line for this status (docs/CONTRACT.md).
  int exit_code() const;

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the reason there is none.
template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "StatusOr needs a value or an error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace tilesched
