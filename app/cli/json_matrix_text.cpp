#include "app/cli/json_matrix_text.h"

#include <charconv>
#include <cmath>
#include <ostream>
#include <stdexcept>

namespace sparsity::cli {
namespace {

// A control character cannot come from the report's own text unescaped, and nlohmann writes
// it as \u0001: the dumped placeholder is "\u0001matrix <k>".
constexpr const char *kMarker = "\x01matrix ";
constexpr const char *kDumpedMarker = "\"\\u0001matrix ";

void appendNumber(std::string &out, double value)
{
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    const std::string_view written(text, static_cast<std::size_t>(end - text));
    out += written;
    if (written.find_first_of(".e") == std::string_view::npos)
        out += ".0";
}

} // namespace

nlohmann::ordered_json JsonMatrixText::matrix(const core::Buffer<double> &values, std::int64_t rows, std::int64_t cols)
{
    m_matrices.push_back({&values, rows, cols});
    return kMarker + std::to_string(m_matrices.size() - 1);
}

void JsonMatrixText::write(std::ostream &stream, const nlohmann::ordered_json &json) const
{
    const std::string tree = json.dump(2);
    std::string out;        // a row at a time, then to `stream`
    std::size_t from = 0;   // the text is written up to here
    std::size_t search = 0; // markers are looked for from here
    for (std::size_t at = tree.find(kDumpedMarker); at != std::string::npos; at = tree.find(kDumpedMarker, search)) {
        search = at + 1;
        // An escaped quote inside some other string, not a placeholder's opening quote.
        if (at > 0 && tree[at - 1] == '\\')
            continue;
        const std::size_t digits = at + std::char_traits<char>::length(kDumpedMarker);
        std::size_t k = 0;
        const auto [afterDigits, ec] = std::from_chars(tree.data() + digits, tree.data() + tree.size(), k);
        if (ec != std::errc() || k >= m_matrices.size() || *afterDigits != '"')
            throw std::logic_error("JsonMatrixText: a placeholder that it did not make");
        stream.write(tree.data() + from, static_cast<std::streamsize>(at - from));
        // The placeholder's line is indented by the depth of its key; rows go one level deeper.
        const std::size_t lineStart = tree.rfind('\n', at) + 1;
        const std::string indent(tree.find_first_not_of(' ', lineStart) - lineStart, ' ');
        const Matrix &m = m_matrices[k];
        stream << '[';
        for (std::int64_t r = 0; r < m.rows; ++r) {
            out = r == 0 ? "\n" : ",\n";
            out += indent;
            out += "  [";
            for (std::int64_t c = 0; c < m.cols; ++c) {
                if (c > 0)
                    out += ", ";
                appendNumber(out, (*m.values)[static_cast<std::size_t>(r * m.cols + c)]);
            }
            out += ']';
            stream << out;
        }
        if (m.rows > 0)
            stream << '\n' << indent;
        stream << ']';
        from = search = static_cast<std::size_t>(afterDigits - tree.data()) + 1;
    }
    stream.write(tree.data() + from, static_cast<std::streamsize>(tree.size() - from));
}

} // namespace sparsity::cli
