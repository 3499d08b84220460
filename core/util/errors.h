#pragma once
// Error families of the engine (taco's User vs Internal split, CLI11-style exit codes).
//
//  InputError    bad arguments or bad data: shape mismatch, violated layout invariant,
//                index out of range, unknown name. CLI exit code 2.
//  IoError       a file that cannot be read or written: missing, not HDF5, truncated,
//                no permission. CLI exit code 3.
//  InternalError a bug in this program. CLI exit code 70.
//
// Messages follow "<what> must <constraint>, but got <actual>" and are built by the factories
// below, so each wording exists once and has a test that matches part of it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sparsity::core {

enum class ErrorKind { Input, Io, Internal };

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), m_kind(kind) {}
    ErrorKind kind() const noexcept { return m_kind; }
    int exitCode() const noexcept;

private:
    ErrorKind m_kind;
};

class InputError : public Error {
public:
    explicit InputError(const std::string &message) : Error(ErrorKind::Input, message) {}
};

class IoError : public Error {
public:
    explicit IoError(const std::string &message) : Error(ErrorKind::Io, message) {}
};

class InternalError : public Error {
public:
    explicit InternalError(const std::string &message) : Error(ErrorKind::Internal, message) {}
};

// Re-throws `error` with "where: " in front, keeping its family. `where` is "file" or
// "file:/dataset"; it is how every message gets to name the file and dataset. A message that
// already names `where`, or a place inside it ("file:/dataset/indices: ..."), is kept as it is:
// the place is said once.
[[noreturn]] void rethrowWithContext(const Error &error, std::string_view where);

namespace errors {

// "<layout> <id>: <condition>, but <detail>", e.g.
// "CSR I5: indptr must be non-decreasing, but indptr[4]=9 > indptr[5]=7".
InputError invariant(std::string_view layout, std::string_view id, std::string_view condition, std::string_view detail);
InputError mustBe(std::string_view what, std::string_view constraint, std::string_view actual);
InputError layoutCannotHold(std::string_view layout, std::string_view requirement, std::string_view actual);
// A number as messages show it: "0.5", "1e-08", "nan" (a stream's default, 6 significant digits).
std::string number(double value);

} // namespace errors
} // namespace sparsity::core
