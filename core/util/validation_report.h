#pragma once
// Non-fatal findings made while reading or validating data: unsorted but valid indices that
// were sorted, duplicates that were summed, dtypes converted on read. The CLI prints them as
// "note:" lines; the GUI lists them in its Issues dock as Notes (ui/models/issue_from_core).
#include <cstdint>
#include <string>
#include <vector>

namespace sparsity::core {

enum class Severity { Notice, Warning };

struct Finding {
    Severity severity = Severity::Notice;
    std::string invariant; // e.g. "CSR I7", empty for conversions
    std::string location;  // "file:/dataset"
    std::string detail;
    std::int64_t count = 0; // what `detail` counts, where findings made in parts add up (I7's duplicates)
};

class ValidationReport {
public:
    void add(Severity severity, std::string invariant, std::string location, std::string detail, std::int64_t count = 0)
    {
        m_findings.push_back({severity, std::move(invariant), std::move(location), std::move(detail), count});
    }
    void add(Finding finding) { m_findings.push_back(std::move(finding)); }
    // Puts `finding` in place of the one at `index` (a finding made in parts, told whole).
    void replace(std::size_t index, Finding finding) { m_findings.at(index) = std::move(finding); }
    const std::vector<Finding> &findings() const { return m_findings; }
    bool isEmpty() const { return m_findings.empty(); }
    void append(const ValidationReport &other)
    {
        m_findings.insert(m_findings.end(), other.m_findings.begin(), other.m_findings.end());
    }

private:
    std::vector<Finding> m_findings;
};

} // namespace sparsity::core
