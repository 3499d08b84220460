#pragma once
// Non-fatal findings made while reading or validating data: unsorted but valid indices that
// were sorted, duplicates that were summed, dtypes converted on read. The CLI prints them as
// "note:" lines; the GUI lists them in its Issues dock as Notes (ui/models/issue_from_core).
#include <string>
#include <vector>

namespace sparsity::core {

enum class Severity { Notice, Warning };

struct Finding {
    Severity severity = Severity::Notice;
    std::string invariant; // e.g. "CSR I7", empty for conversions
    std::string location;  // "file:/dataset"
    std::string detail;
};

class ValidationReport {
public:
    void add(Severity severity, std::string invariant, std::string location, std::string detail)
    {
        m_findings.push_back({severity, std::move(invariant), std::move(location), std::move(detail)});
    }
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
