#include "core/pipeline/repair_notices.h"

#include "core/parallel/rank_group.h"
#include "core/tensor/compressed_tensor.h"

#include <algorithm>
#include <sstream>
#include <string>

namespace sparsity::core {
namespace {

std::string_view tagOf(std::string_view invariant) { return invariant.substr(0, invariant.size() - 3); } // "CSR" of "CSR I7"

} // namespace

void RepairNotices::tell(const Finding &finding)
{
    if (!m_report)
        return;
    const auto told = std::find_if(m_told.begin(), m_told.end(), [&](std::size_t at) {
        const auto &f = m_report->findings()[at];
        return f.invariant == finding.invariant && f.location == finding.location;
    });
    if (told == m_told.end()) {
        m_told.push_back(m_report->findings().size());
        m_report->add(finding);
        return;
    }
    // The notice a whole read gives, for the duplicates of both.
    const auto &before = m_report->findings()[*told];
    ValidationReport whole;
    noteCanonicalized(&whole, tagOf(before.invariant), before.location, before.count + finding.count);
    m_report->replace(*told, whole.findings().front());
}

void RepairNotices::gatherAcrossRanks()
{
    const auto &group = ranks();
    if (group.isSolo())
        return;
    // Each notice as a line: invariant, place, duplicates (neither an invariant nor a place this
    // reader names holds a tab or a newline).
    std::string mine;
    if (m_report)
        for (const auto at : m_told) {
            const auto &f = m_report->findings()[at];
            mine += f.invariant + '\t' + f.location + '\t' + std::to_string(f.count) + '\n';
        }
    const auto told = group.gatherToRoot(mine);
    if (!group.isRoot())
        return;
    for (std::size_t rank = 1; rank < told.size(); ++rank) {
        std::istringstream lines(told[rank]);
        for (std::string invariant, location, count;
             std::getline(lines, invariant, '\t') && std::getline(lines, location, '\t') && std::getline(lines, count);) {
            ValidationReport one;
            noteCanonicalized(&one, tagOf(invariant), location, std::stoll(count));
            tell(one.findings().front());
        }
    }
}

} // namespace sparsity::core
