#pragma once
// The expression language of `eval`, `gradcheck` and the GUI (docs/SEMANTICS.md, "Expressions"):
//   expr    := term (('+' | '-') term)*          left-associative
//   term    := unary (('*' | '/') unary)*        left-associative
//   unary   := '-' unary | primary
//   primary := NUMBER | NAME | NAME '(' [expr (',' expr)*] ')' | '(' expr ')'
// NUMBER is 2, 1.5, 1e-3, .5; integer literals (no '.', no exponent) are marked, for dims.
// parseExpression() returns the syntax tree; every node knows its 1-based source column, so
// errors (syntax, unknown function, arity) point at it.
#include "core/util/errors.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsity::core {

struct Expression {
    enum class Kind { Number, Name, Negate, Binary, Call };
    Kind kind = Kind::Number;
    int column = 1;                                    // where the node starts in the source (1-based)
    double number = 0.0;                               // Number
    bool integer = false;                              // Number written without '.' or exponent
    std::string name;                                  // Name, Call: the identifier
    char op = 0;                                       // Binary: + - * /
    std::vector<std::unique_ptr<Expression>> operands; // Negate: 1, Binary: 2, Call: the arguments

    // Canonical text with full parentheses, e.g. "(a + (b * c))": for tests and messages.
    std::string toString() const;
    // Input names used, in first-appearance order.
    std::vector<std::string> inputNames() const;
};

// The value of an integer literal, negated or not (a dim argument such as `-1`); nullopt for
// any other node.
std::optional<std::int64_t> integerLiteral(const Expression &node);

// Throws InputError "expression 'SRC': column C: <what>" for syntax errors, unknown functions
// and wrong argument counts (see function_table.h).
std::unique_ptr<Expression> parseExpression(std::string_view source);

// NAME's rule: a letter or '_', then letters, digits and '_'. What an input may be bound as.
bool isIdentifierStart(char c);
bool isIdentifierPart(char c);
bool isIdentifier(std::string_view name);

// The error every stage after parsing throws about a node: "expression 'SRC': column C: what".
InputError expressionError(std::string_view source, int column, const std::string &what);

} // namespace sparsity::core
