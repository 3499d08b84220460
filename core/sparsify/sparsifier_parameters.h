#pragma once
// Each sparsifier parameter's facts, in one table: the method that takes it, its key (in
// BATCH.json, WORKSPACE.json and the sparsifier state; the CLI's flag is the key with '-' for
// '_'), the kind of value those forms write, its label and help, its range or choices, and how
// SparsifierConfig holds it. The CLI's options, the JSON reader and writer, the state's
// attributes, SparsifierConfig::validate() and the desktop app's Sparsifier panel loop over this
// table, so a method's parameters are listed here once. Rules between parameters (n <= m, the
// zeros within the block) stay in validate().
#include "core/sparsify/sparsifier_config.h"

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace sparsity::core {

// What a parameter is written as: a JSON number or double attribute, a JSON integer or int64
// attribute, or text (the block "RxC", the norm "L1"/"L2").
enum class ParameterKind { Number, Integer, Text };
using ParameterValue = std::variant<double, std::int64_t, std::string>;

// The closed range of a number's or integer's values; `most` is infinite for none above.
struct ParameterRange {
    double least = 0.0;
    double most = std::numeric_limits<double>::infinity();
};

struct SparsifierParameter {
    SparsifierMethod method;
    std::string_view key;
    ParameterKind kind;
    std::string_view label;    // the desktop app's form label
    std::string_view help;     // the CLI's help (after the method's name) and the app's tool tip
    ParameterRange range = {}; // a number's or integer's; unused for text
    // Text with fixed choices (the norm's), in the order messages and menus list them; empty for
    // text of another form (the block's "RxC").
    std::span<const std::string_view> choices = {};
    // What a parameter that may be left unset means then ("whole block"); empty for one always set.
    std::string_view unsetMeaning = {};
    // The config's value; none for one left to its default that depends on others
    // (zeros_per_block: the whole block).
    std::optional<ParameterValue> (*get)(const SparsifierConfig &);
    // Sets the config's value from one of this kind; an InputError naming the key for text it
    // cannot read (a block that is not RxC, a norm other than L1 or L2).
    void (*set)(SparsifierConfig &, const ParameterValue &);
};

std::span<const SparsifierParameter> sparsifierParameters();

// The parameter with this key; nullptr for a key no method takes.
const SparsifierParameter *parameterOf(std::string_view key);

// InputError "<key> must be in [a, b]" (or ">= a") for a number's or integer's value in `config`
// outside its range; nothing for text or an unset value.
void requireInRange(const SparsifierParameter &parameter, const SparsifierConfig &config);

// "--zeros-per-block" for zeros_per_block.
std::string flagOf(const SparsifierParameter &parameter);

// InputError "<where> must not be given for <method>, but it is given (a parameter of
// <other>)" when `parameter` is not one of `method`'s. `where` is the key's place: "--keep",
// "$.sparsify.keep".
void requireParameterOf(SparsifierMethod method, const SparsifierParameter &parameter, std::string_view where);

} // namespace sparsity::core
