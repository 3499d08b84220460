#include "core/expr/expression.h"

#include "core/expr/function_table.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace sparsity::core {
namespace {

struct Token {
    enum class Kind { Number, Name, Symbol, End };
    Kind kind = Kind::End;
    std::string text;
    int column = 1;
};

std::string describe(const Token &t)
{
    switch (t.kind) {
    case Token::Kind::End:
        return "end of input";
    case Token::Kind::Number:
        return "number " + t.text;
    case Token::Kind::Name:
        return "name '" + t.text + "'";
    case Token::Kind::Symbol:
        return "'" + t.text + "'";
    }
    return "?";
}

class Parser {
public:
    explicit Parser(std::string_view source) : m_source(source) { advance(); }

    std::unique_ptr<Expression> parse()
    {
        auto e = expression();
        if (m_token.kind != Token::Kind::End)
            fail(m_token.column, "expected an operator or the end, but got " + describe(m_token));
        return e;
    }

private:
    [[noreturn]] void fail(int column, const std::string &what) const { throw expressionError(m_source, column, what); }

    void advance()
    {
        while (m_pos < m_source.size() && std::isspace(static_cast<unsigned char>(m_source[m_pos])))
            ++m_pos;
        m_token = Token{};
        m_token.column = static_cast<int>(m_pos) + 1;
        if (m_pos >= m_source.size())
            return;
        const char c = m_source[m_pos];
        if (std::isdigit(static_cast<unsigned char>(c))
            || (c == '.' && m_pos + 1 < m_source.size() && std::isdigit(static_cast<unsigned char>(m_source[m_pos + 1])))) {
            const auto start = m_pos;
            while (m_pos < m_source.size()
                   && (std::isdigit(static_cast<unsigned char>(m_source[m_pos])) || m_source[m_pos] == '.'))
                ++m_pos;
            if (m_pos < m_source.size() && (m_source[m_pos] == 'e' || m_source[m_pos] == 'E')) {
                ++m_pos;
                if (m_pos < m_source.size() && (m_source[m_pos] == '+' || m_source[m_pos] == '-'))
                    ++m_pos;
                while (m_pos < m_source.size() && std::isdigit(static_cast<unsigned char>(m_source[m_pos])))
                    ++m_pos;
            }
            m_token = {Token::Kind::Number, std::string(m_source.substr(start, m_pos - start)), static_cast<int>(start) + 1};
            return;
        }
        if (isIdentifierStart(c)) {
            const auto start = m_pos;
            while (m_pos < m_source.size() && isIdentifierPart(m_source[m_pos]))
                ++m_pos;
            m_token = {Token::Kind::Name, std::string(m_source.substr(start, m_pos - start)), static_cast<int>(start) + 1};
            return;
        }
        if (std::string_view("+-*/(),").find(c) != std::string_view::npos) {
            m_token = {Token::Kind::Symbol, std::string(1, c), static_cast<int>(m_pos) + 1};
            ++m_pos;
            return;
        }
        fail(static_cast<int>(m_pos) + 1, std::string("unexpected character '") + c + "'");
    }

    bool isSymbol(char c) const { return m_token.kind == Token::Kind::Symbol && m_token.text[0] == c; }

    void expect(char c)
    {
        if (!isSymbol(c))
            fail(m_token.column, std::string("expected '") + c + "', but got " + describe(m_token));
        advance();
    }

    std::unique_ptr<Expression> binaryLevel(bool additive)
    {
        auto left = additive ? binaryLevel(false) : unary();
        while (additive ? (isSymbol('+') || isSymbol('-')) : (isSymbol('*') || isSymbol('/'))) {
            auto node = std::make_unique<Expression>();
            node->kind = Expression::Kind::Binary;
            node->op = m_token.text[0];
            node->column = left->column;
            advance();
            node->operands.push_back(std::move(left));
            node->operands.push_back(additive ? binaryLevel(false) : unary());
            left = std::move(node);
        }
        return left;
    }

    std::unique_ptr<Expression> expression() { return binaryLevel(true); }

    std::unique_ptr<Expression> unary()
    {
        if (!isSymbol('-'))
            return primary();
        auto node = std::make_unique<Expression>();
        node->kind = Expression::Kind::Negate;
        node->column = m_token.column;
        advance();
        node->operands.push_back(unary());
        return node;
    }

    std::unique_ptr<Expression> primary()
    {
        auto node = std::make_unique<Expression>();
        node->column = m_token.column;
        if (m_token.kind == Token::Kind::Number) {
            const auto &text = m_token.text;
            const auto end = text.data() + text.size();
            const auto parsed = std::from_chars(text.data(), end, node->number);
            if (parsed.ec != std::errc{} || parsed.ptr != end)
                fail(m_token.column, "malformed number '" + text + "'");
            node->kind = Expression::Kind::Number;
            node->integer = text.find_first_of(".eE") == std::string::npos;
            advance();
            return node;
        }
        if (m_token.kind == Token::Kind::Name) {
            node->name = m_token.text;
            advance();
            if (!isSymbol('(')) {
                node->kind = Expression::Kind::Name;
                return node;
            }
            node->kind = Expression::Kind::Call;
            const auto *signature = findFunction(node->name);
            if (!signature)
                fail(node->column, "unknown function '" + node->name + "'");
            advance();
            if (!isSymbol(')')) {
                node->operands.push_back(expression());
                while (isSymbol(',')) {
                    advance();
                    node->operands.push_back(expression());
                }
            }
            expect(')');
            const int count = static_cast<int>(node->operands.size());
            if (count < signature->minArgs || count > signature->maxArgs) {
                const auto range = signature->minArgs == signature->maxArgs
                                       ? std::to_string(signature->minArgs)
                                       : std::to_string(signature->minArgs) + " or " + std::to_string(signature->maxArgs);
                fail(node->column, node->name + " takes " + range + " argument" + (signature->maxArgs == 1 ? "" : "s") + " ("
                                       + std::string(signature->usage) + "), but got " + std::to_string(count));
            }
            return node;
        }
        if (isSymbol('(')) {
            advance();
            auto inner = expression();
            expect(')');
            return inner;
        }
        fail(m_token.column, "expected a number, a name, a call or '(', but got " + describe(m_token));
    }

    std::string_view m_source;
    std::size_t m_pos = 0;
    Token m_token;
};

void collectNames(const Expression &e, std::vector<std::string> &out)
{
    if (e.kind == Expression::Kind::Name && std::find(out.begin(), out.end(), e.name) == out.end())
        out.push_back(e.name);
    for (const auto &operand : e.operands)
        collectNames(*operand, out);
}

} // namespace

std::string Expression::toString() const
{
    switch (kind) {
    case Kind::Number: {
        if (integer)
            return std::to_string(static_cast<long long>(number));
        char buffer[32];
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, number);
        return std::string(buffer, r.ptr);
    }
    case Kind::Name:
        return name;
    case Kind::Negate:
        return "(-" + operands[0]->toString() + ")";
    case Kind::Binary:
        return "(" + operands[0]->toString() + " " + op + " " + operands[1]->toString() + ")";
    case Kind::Call: {
        std::string text = name + "(";
        for (std::size_t i = 0; i < operands.size(); ++i)
            text += (i ? ", " : "") + operands[i]->toString();
        return text + ")";
    }
    }
    return "?";
}

std::vector<std::string> Expression::inputNames() const
{
    std::vector<std::string> names;
    collectNames(*this, names);
    return names;
}

bool isIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifierPart(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifier(std::string_view name)
{
    return !name.empty() && isIdentifierStart(name[0]) && std::all_of(name.begin(), name.end(), isIdentifierPart);
}

std::unique_ptr<Expression> parseExpression(std::string_view source) { return Parser(source).parse(); }

InputError expressionError(std::string_view source, int column, const std::string &what)
{
    return InputError("expression '" + std::string(source) + "': column " + std::to_string(column) + ": " + what);
}

std::optional<std::int64_t> integerLiteral(const Expression &node)
{
    const bool negative = node.kind == Expression::Kind::Negate;
    const Expression &literal = negative ? *node.operands[0] : node;
    if (literal.kind != Expression::Kind::Number || !literal.integer)
        return std::nullopt;
    return static_cast<std::int64_t>(literal.number) * (negative ? -1 : 1);
}

} // namespace sparsity::core
