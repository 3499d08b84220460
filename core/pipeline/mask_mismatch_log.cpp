#include "core/pipeline/mask_mismatch_log.h"

#include <sstream>

namespace sparsity::core {
namespace {

void numberInEvaluationOrder(const Expression &node,
                             std::map<const Expression *, int> &order,
                             std::vector<const Expression *> &ops)
{
    for (const auto &operand : node.operands)
        numberInEvaluationOrder(*operand, order, ops);
    order[&node] = static_cast<int>(ops.size());
    ops.push_back(&node);
}

std::int64_t elementsPerRow(const Shape &shape) { return shape.empty() || shape[0] == 0 ? 0 : numel(shape) / shape[0]; }

} // namespace

MaskMismatchLog::MaskMismatchLog(const Expression &evaluated, std::string_view source) : m_source(source)
{
    numberInEvaluationOrder(evaluated, m_order, m_ops);
}

void MaskMismatchLog::note(const MaskMismatch &mismatch, std::int64_t firstRow)
{
    const int order = m_order.at(&mismatch.node());
    if (m_first && order > m_first->order)
        return; // the op this block failed at comes after one another block failed at
    if (!m_first || order < m_first->order)
        m_first = Failure{order, mismatch.op(), mismatch.shape(), {}};
    m_first->difference.append(mismatch.difference(), firstRow * elementsPerRow(mismatch.shape()));
}

std::string MaskMismatchLog::serialized(const std::optional<Failure> &failure)
{
    if (!failure)
        return {};
    std::ostringstream out;
    const auto &d = failure->difference;
    out << failure->order << ' ' << d.leftOnly << ' ' << d.firstLeft << ' ' << d.rightOnly << ' ' << d.firstRight << ' '
        << failure->shape.size();
    for (const auto extent : failure->shape)
        out << ' ' << extent;
    out << '\n' << failure->what;
    return out.str();
}

std::optional<MaskMismatchLog::Failure> MaskMismatchLog::deserialized(const std::string &bytes)
{
    if (bytes.empty())
        return std::nullopt;
    std::istringstream in(bytes);
    Failure failure;
    auto &d = failure.difference;
    std::size_t dims = 0;
    in >> failure.order >> d.leftOnly >> d.firstLeft >> d.rightOnly >> d.firstRight >> dims;
    failure.shape.resize(dims);
    for (auto &extent : failure.shape)
        in >> extent;
    in.ignore(1);
    std::getline(in, failure.what);
    return failure;
}

void MaskMismatchLog::raiseAcrossRanks(const RankGroup &group, std::int64_t rows) const
{
    // Each rank's earliest failure, folded on the root in rank order: rows ascend with ranks.
    const auto parts = group.gatherToRoot(serialized(m_first));
    std::exception_ptr failure;
    if (group.isRoot()) {
        std::optional<Failure> first;
        for (const auto &part : parts) {
            const auto failed = deserialized(part);
            if (!failed || (first && failed->order > first->order))
                continue;
            if (!first || failed->order < first->order)
                first = Failure{failed->order, failed->what, failed->shape, {}};
            first->difference.append(failed->difference, 0);
        }
        if (first) {
            Shape whole = first->shape;
            whole[0] = rows;
            failure = std::make_exception_ptr(
                MaskMismatch(m_source, *m_ops[static_cast<std::size_t>(first->order)], first->what, first->difference, whole));
        }
    }
    group.agree(failure);
}

} // namespace sparsity::core
