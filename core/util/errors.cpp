#include "core/util/errors.h"

#include <sstream>

namespace sparsity::core {

int Error::exitCode() const noexcept
{
    switch (m_kind) {
    case ErrorKind::Input:
        return 2;
    case ErrorKind::Io:
        return 3;
    case ErrorKind::Internal:
        return 70;
    }
    return 70;
}

namespace {

bool namesPlaceWithin(std::string_view message, std::string_view where)
{
    return !where.empty() && message.starts_with(where) && message.size() > where.size()
           && (message[where.size()] == ':' || message[where.size()] == '/');
}

} // namespace

void rethrowWithContext(const Error &error, std::string_view where)
{
    const std::string_view said = error.what();
    std::string message = namesPlaceWithin(said, where) ? std::string(said) : std::string(where) + ": " + std::string(said);
    switch (error.kind()) {
    case ErrorKind::Input:
        throw InputError(message);
    case ErrorKind::Io:
        throw IoError(message);
    case ErrorKind::Internal:
        throw InternalError(message);
    }
    throw InternalError(message);
}

namespace errors {

std::string number(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

InputError invariant(std::string_view layout, std::string_view id, std::string_view condition, std::string_view detail)
{
    return InputError(std::string(layout) + " " + std::string(id) + ": " + std::string(condition) + ", but "
                      + std::string(detail));
}

InputError mustBe(std::string_view what, std::string_view constraint, std::string_view actual)
{
    return InputError(std::string(what) + " must " + std::string(constraint) + ", but got " + std::string(actual));
}

InputError layoutCannotHold(std::string_view layout, std::string_view requirement, std::string_view actual)
{
    return InputError("layout " + std::string(layout) + " " + std::string(requirement) + ", but got " + std::string(actual));
}

} // namespace errors
} // namespace sparsity::core
