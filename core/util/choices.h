#pragma once
// Parsing a name into one of a fixed set of values, with the one error message for all
// option enums: "rule must be one of torch, mxnet, but got 'caffe'".
#include "core/util/errors.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace sparsity::core {

// The value of the choice named `name`, from a table of choices (in the order the message
// lists them) whose names and values `nameOf` and `valueOf` give.
template <class Choices, class NameOf, class ValueOf>
auto parseChoice(std::string_view what, std::string_view name, const Choices &choices, NameOf nameOf, ValueOf valueOf)
{
    std::string valid;
    for (const auto &choice : choices) {
        if (std::string_view(nameOf(choice)) == name)
            return valueOf(choice);
        valid += (valid.empty() ? "" : ", ") + std::string(nameOf(choice));
    }
    throw errors::mustBe(what, "be one of " + valid, "'" + std::string(name) + "'");
}

template <class E>
E parseChoice(std::string_view what, std::string_view name, std::initializer_list<std::pair<std::string_view, E>> choices)
{
    return parseChoice(
        what, name, choices, [](const auto &c) { return c.first; }, [](const auto &c) { return c.second; });
}

} // namespace sparsity::core
