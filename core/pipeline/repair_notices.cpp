#include "core/pipeline/repair_notices.h"

#include "core/parallel/rank_group.h"
#include "core/tensor/compressed_tensor.h"

#include <algorithm>
#include <string>

namespace sparsity::core {
namespace {

std::string_view tagOf(std::string_view invariant) { return invariant.substr(0, invariant.size() - 3); } // "CSR" of "CSR I7"

// A field sent to the root: its length, a colon, then its bytes (a place names a file, whose
// name may hold any byte but NUL).
void put(std::string &out, std::string_view field)
{
    out += std::to_string(field.size());
    out += ':';
    out += field;
}

// The next field of `in`, which put() wrote, moved past.
std::string take(std::string_view &in)
{
    const auto colon = in.find(':');
    const auto size = static_cast<std::size_t>(std::stoull(std::string(in.substr(0, colon))));
    std::string field(in.substr(colon + 1, size));
    in.remove_prefix(colon + 1 + size);
    return field;
}

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
    // Each notice as three fields: invariant, place, duplicates.
    std::string mine;
    if (m_report)
        for (const auto at : m_told) {
            const auto &f = m_report->findings()[at];
            put(mine, f.invariant);
            put(mine, f.location);
            put(mine, std::to_string(f.count));
        }
    const auto told = group.gatherToRoot(mine);
    if (!group.isRoot())
        return;
    for (std::size_t rank = 1; rank < told.size(); ++rank)
        for (std::string_view rest = told[rank]; !rest.empty();) {
            const auto invariant = take(rest);
            const auto location = take(rest);
            const auto count = std::stoll(take(rest));
            ValidationReport one;
            noteCanonicalized(&one, tagOf(invariant), location, count);
            tell(one.findings().front());
        }
}

} // namespace sparsity::core
