#include "core/sparsify/data_sparsifier.h"

#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sparsity::core {
namespace {

} // namespace

std::pair<std::int64_t, std::int64_t> dataNormView(const Shape &shape)
{
    Shape squeezed;
    for (auto e : shape)
        if (e != 1)
            squeezed.push_back(e);
    if (squeezed.empty())
        return {1, 1};
    if (squeezed.size() == 1)
        return {1, squeezed[0]};
    return {numel(squeezed, 0, squeezed.size() - 1), squeezed.back()};
}

namespace {

template <class T>
std::int64_t maskFor(const DenseTensor<T> &d, Mask &mask, const SparsifierConfig &config)
{
    const auto count = d.numel();
    requireLeastRank(config.method, d.shape.size()); // before a method's own shape rules
    switch (config.method) {
    case SparsifierMethod::Threshold:
        thresholdMask(d.values.data(), mask.data(), count, static_cast<T>(config.threshold));
        return 0;
    case SparsifierMethod::NM: {
        const auto last = d.shape.back();
        if (last % config.m != 0)
            throw errors::mustBe("the last dim (" + std::to_string(last) + ")", "be a multiple of M=" + std::to_string(config.m),
                                 "shape " + shapeToString(d.shape));
        nmMask(d.values.data(), mask.data(), count / config.m, config.n, config.m);
        return 0;
    }
    case SparsifierMethod::RowNorm: {
        const auto rows = d.shape[0];
        const auto width = rows == 0 ? 0 : count / rows;
        std::vector<double> norms(static_cast<std::size_t>(rows));
        rowNorms(d.values.data(), norms.data(), rows, width);
        const auto kept = rowsKeptAcrossRanks(SoloRanks(), norms, config.keep);
        for (std::int64_t row = 0; row < rows; ++row)
            std::fill_n(mask.begin() + row * width, width, kept[static_cast<std::size_t>(row)]);
        return 0;
    }
    case SparsifierMethod::DataNorm: {
        const auto [height, width] = dataNormView(d.shape);
        return dataNormMask(d.values.data(), mask.data(), height, width, config);
    }
    }
    return 0;
}

class BuiltinSparsifier final : public DataSparsifier {
public:
    using DataSparsifier::DataSparsifier;

protected:
    std::int64_t updateMask(const Tensor &data, Mask &mask, const SparsifierConfig &config) override
    {
        std::int64_t blocks = 0;
        mask = computeMask(data, config, &blocks);
        return blocks;
    }
};

void requireValidName(const std::string &name)
{
    if (name.find('.') != std::string::npos)
        throw errors::mustBe("sparsifier data name", "not contain '.' (PyTorch's rule)", "'" + name + "'");
}

} // namespace

Mask computeMask(const Tensor &data, const SparsifierConfig &config, std::int64_t *blocksRemoved)
{
    config.validate();
    const Tensor dense = data.layout() == Layout::Dense && !data.isMasked() ? data : toLayout(data, Layout::Dense);
    Mask mask(static_cast<std::size_t>(numel(dense.shape())));
    std::int64_t blocks = 0;
    dense.visit([&](const auto &t) {
        if constexpr (std::is_same_v<std::decay_t<decltype(t)>, DenseTensor<ValueOf<decltype(t)>>>)
            blocks = maskFor(t, mask, config);
        else
            throw InternalError("computeMask: dense storage expected");
    });
    if (blocksRemoved)
        *blocksRemoved = blocks;
    return mask;
}

DataSparsifier::DataSparsifier(SparsifierConfig defaults) : m_defaults(defaults) { m_defaults.validate(); }

void DataSparsifier::addData(const std::string &name, const Tensor &data, std::optional<SparsifierConfig> config, bool reuseMask)
{
    requireValidName(name);
    if (config)
        config->validate();
    Entry fresh;
    fresh.data = data.layout() == Layout::Dense && !data.isMasked() ? data : toLayout(data, Layout::Dense);
    fresh.config = config.value_or(m_defaults);
    const auto existing = m_entries.find(name);
    if (existing != m_entries.end()) {
        if (!config)
            fresh.config = existing->second.config;
        if (reuseMask && existing->second.mask) {
            if (existing->second.data.shape() != fresh.data.shape())
                throw errors::mustBe("replacing data '" + name + "' with reuse_mask",
                                     "keep the shape " + shapeToString(existing->second.data.shape()),
                                     shapeToString(fresh.data.shape()));
            fresh.mask = existing->second.mask;
        }
    } else {
        m_order.push_back(name);
    }
    if (!fresh.mask)
        fresh.mask = Mask(static_cast<std::size_t>(numel(fresh.data.shape())), 1);
    m_entries[name] = std::move(fresh);
}

void DataSparsifier::step()
{
    for (const auto &name : m_order) {
        auto &e = m_entries.at(name);
        if (e.mask)
            e.blocksRemoved = updateMask(e.data, *e.mask, e.config);
    }
}

const DataSparsifier::Entry &DataSparsifier::entry(const std::string &name) const
{
    const auto it = m_entries.find(name);
    if (it == m_entries.end())
        throw InputError("sparsifier data '" + name + "' does not exist");
    return it->second;
}

const Mask &DataSparsifier::mask(const std::string &name) const
{
    const auto &e = entry(name);
    if (!e.mask)
        throw InputError("sparsifier data '" + name + "': mask squashed - original mask value does not exist");
    return *e.mask;
}

Tensor DataSparsifier::data(const std::string &name, bool returnOriginal) const
{
    const auto &e = entry(name);
    if (returnOriginal || !e.mask) {
        if (returnOriginal && !e.mask)
            throw InputError("sparsifier data '" + name + "': mask squashed - original mask value does not exist");
        return e.data;
    }
    Tensor masked = e.data;
    std::visit(
        [&](auto &t) {
            for (std::size_t k = 0; k < t.values.size(); ++k)
                if (!(*e.mask)[k])
                    t.values[k] = 0;
        },
        masked.storage());
    return masked;
}

void DataSparsifier::squashMask(const std::vector<std::string> &names, bool leaveParametrized)
{
    for (const auto &name : names.empty() ? m_order : names) {
        entry(name);
        auto &e = m_entries.at(name);
        if (!e.mask)
            continue;
        if (leaveParametrized)
            e.data = data(name, false);
        e.mask.reset();
    }
}

const SparsifierConfig &DataSparsifier::config(const std::string &name) const { return entry(name).config; }

std::int64_t DataSparsifier::blocksRemoved(const std::string &name) const { return entry(name).blocksRemoved; }

SparsifierState DataSparsifier::stateDict() const
{
    SparsifierState state;
    for (const auto &name : m_order) {
        const auto &e = m_entries.at(name);
        state.push_back({name, e.data, e.mask, e.config});
    }
    return state;
}

void DataSparsifier::loadStateDict(const SparsifierState &state, bool strict)
{
    if (strict) {
        m_entries.clear();
        m_order.clear();
    }
    for (const auto &s : state) {
        requireValidName(s.name);
        s.config.validate();
        if (s.mask && static_cast<std::int64_t>(s.mask->size()) != numel(s.data.shape()))
            throw errors::mustBe("state of '" + s.name + "': mask", "have one entry per element", std::to_string(s.mask->size()));
        if (!m_entries.count(s.name))
            m_order.push_back(s.name);
        m_entries[s.name] = Entry{s.data, s.mask, s.config, 0};
    }
}

std::unique_ptr<DataSparsifier> makeSparsifier(const SparsifierConfig &defaults)
{
    return std::make_unique<BuiltinSparsifier>(defaults);
}

} // namespace sparsity::core
