// Result<T>: a value or an error message, the way library code reports failure.
//
// Library code never exits or asserts on user input; it returns an Error whose
// message names the field and the limit it breaks, e.g.
//   "tile 256x256 with head-dim 128 needs 196608 B of shared memory per block; a100-40gb allows 166912 B".
// Only a main() turns an Error into an exit code and one line on stderr.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tilescope {

struct Error {
    std::string message;
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
    Result(Error error) : v_(std::move(error)) {}       // NOLINT(google-explicit-constructor)

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<0>(v_); }
    T& value() & { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

// A Result with no value: success or an Error.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT
    static Status success() { return {}; }
    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    Error error() const { return Error{error_}; }

private:
    std::string error_;
    bool failed_ = false;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace tilescope
