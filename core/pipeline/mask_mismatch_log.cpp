#include "core/pipeline/mask_mismatch_log.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace sparsity::core {
namespace {

void inEvaluationOrder(const Expression &node, std::vector<const Expression *> &ops)
{
    for (const auto &operand : node.operands)
        inEvaluationOrder(*operand, ops);
    ops.push_back(&node);
}

std::int64_t elementsPerRow(const Shape &shape) { return shape.empty() || shape[0] == 0 ? 0 : numel(shape) / shape[0]; }

} // namespace

MaskMismatchLog::MaskMismatchLog(const Expression &evaluated, std::string_view source) : m_source(source)
{
    inEvaluationOrder(evaluated, m_ops);
}

void MaskMismatchLog::merge(std::optional<Failure> &first, const Failure &failure, std::int64_t offset)
{
    const auto key = [](const Failure &f) { return std::pair(f.order, f.operand); };
    if (first && key(failure) > key(*first))
        return; // it failed at an op (or pair) after one another block failed at
    if (!first || key(failure) < key(*first))
        first = Failure{failure.order, failure.operand, failure.what, failure.shape, {}};
    first->difference.append(failure.difference, offset);
}

void MaskMismatchLog::note(const MaskMismatch &mismatch, std::int64_t firstRow)
{
    const auto order = static_cast<int>(std::find(m_ops.begin(), m_ops.end(), &mismatch.node()) - m_ops.begin());
    merge(m_first, Failure{order, mismatch.operand(), mismatch.op(), mismatch.shape(), mismatch.difference()},
          firstRow * elementsPerRow(mismatch.shape()));
}

std::string MaskMismatchLog::serialized(const std::optional<Failure> &failure)
{
    if (!failure)
        return {};
    std::ostringstream out;
    const auto &d = failure->difference;
    out << failure->order << ' ' << failure->operand << ' ' << d.leftOnly << ' ' << d.firstLeft << ' ' << d.rightOnly << ' '
        << d.firstRight << ' ' << failure->shape.size();
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
    in >> failure.order >> failure.operand >> d.leftOnly >> d.firstLeft >> d.rightOnly >> d.firstRight >> dims;
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
        for (const auto &part : parts)
            if (const auto failed = deserialized(part))
                merge(first, *failed, 0);
        if (first) {
            Shape whole = first->shape;
            whole[0] = rows;
            failure = std::make_exception_ptr(MaskMismatch(m_source, *m_ops[static_cast<std::size_t>(first->order)], first->what,
                                                           first->operand, first->difference, whole));
        }
    }
    group.agree(failure);
}

} // namespace sparsity::core
