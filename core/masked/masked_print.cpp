#include "core/masked/masked_print.h"

#include <cstdio>

namespace sparsity::core {
namespace {

template <class T>
void appendLevel(const MaskedValue<T> &value, std::size_t dim, std::int64_t offset, int decimals, std::string &out)
{
    if (dim == value.shape.size()) {
        const bool masked = value.kind == ValueKind::Masked;
        if (masked && !value.specified(offset)) {
            out += "--";
            return;
        }
        char text[64];
        std::snprintf(text, sizeof text, "%.*f", decimals, static_cast<double>(value.values[static_cast<std::size_t>(offset)]));
        out += text;
        return;
    }
    const std::int64_t stride = numel(value.shape, dim + 1, value.shape.size());
    out += '[';
    for (std::int64_t i = 0; i < value.shape[dim]; ++i) {
        if (i > 0)
            out += ", ";
        appendLevel(value, dim + 1, offset + i * stride, decimals, out);
    }
    out += ']';
}

} // namespace

template <class T>
std::string formatValue(const MaskedValue<T> &value, int decimals)
{
    std::string out;
    appendLevel(value, 0, 0, decimals, out);
    return out;
}

template std::string formatValue<float>(const MaskedValue<float> &, int);
template std::string formatValue<double>(const MaskedValue<double> &, int);

} // namespace sparsity::core
