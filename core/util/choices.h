#pragma once
// Parsing a name into one of a fixed set of values, with the one error message for all
// option enums: "rule must be one of torch, mxnet, but got 'caffe'".
#include "core/util/errors.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace sparsity::core {

template <class E>
E parseChoice(std::string_view what, std::string_view name, std::initializer_list<std::pair<std::string_view, E>> choices)
{
    std::string valid;
    for (const auto &[text, value] : choices) {
        if (text == name)
            return value;
        valid += (valid.empty() ? "" : ", ") + std::string(text);
    }
    throw errors::mustBe(what, "be one of " + valid, "'" + std::string(name) + "'");
}

} // namespace sparsity::core
