#pragma once
// DataSparsifier: PyTorch's BaseDataSparsifier for tensors held by name. It owns each tensor,
// its mask (one byte per element, 1 = kept) and its config; subclasses implement only
// updateMask(). Embedding tables are plain 2-d tensors here (rows are the embedding rows).
//
// API parity (torch.ao.sparsity._experimental.data_sparsifier):
//   addData(name, data, config, reuseMask)  adds or replaces; replacing keeps the old config
//                                           unless one is given, and the old mask when
//                                           reuseMask (then shapes must match)
//   step()                                  updateMask for every name still parametrized
//   mask(name), data(name, returnOriginal)  data(name, false) is data * mask
//   squashMask(names, leaveParametrized)    applies the mask (or not) and drops it
//   stateDict() / loadStateDict()
// Names containing '.' are rejected, as PyTorch's container does.
#include "core/sparsify/sparsifier_config.h"
#include "core/tensor/tensor.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sparsity::core {

struct SparsifierStateEntry {
    std::string name;
    Tensor data;              // the original data (dense)
    std::optional<Mask> mask; // absent once squashed
    SparsifierConfig config;
};
using SparsifierState = std::vector<SparsifierStateEntry>;

class DataSparsifier {
public:
    explicit DataSparsifier(SparsifierConfig defaults);
    virtual ~DataSparsifier() = default;
    DataSparsifier(const DataSparsifier &) = delete;
    DataSparsifier &operator=(const DataSparsifier &) = delete;

    const SparsifierConfig &defaults() const { return m_defaults; }
    void addData(const std::string &name,
                 const Tensor &data,
                 std::optional<SparsifierConfig> config = std::nullopt,
                 bool reuseMask = true);
    void step();
    const Mask &mask(const std::string &name) const;
    Tensor data(const std::string &name, bool returnOriginal = true) const;
    void squashMask(const std::vector<std::string> &names = {}, bool leaveParametrized = true);
    const SparsifierConfig &config(const std::string &name) const;
    std::vector<std::string> names() const { return m_order; }
    // Blocks sparsified by the last step (data-norm); 0 for other methods.
    std::int64_t blocksRemoved(const std::string &name) const;

    SparsifierState stateDict() const;
    // strict: forget current data first (PyTorch's default).
    void loadStateDict(const SparsifierState &state, bool strict = true);

protected:
    // Recomputes `mask` for `data` (dense, the original values). Returns blocks sparsified.
    virtual std::int64_t updateMask(const Tensor &data, Mask &mask, const SparsifierConfig &config) = 0;

private:
    struct Entry {
        Tensor data;
        std::optional<Mask> mask;
        SparsifierConfig config;
        std::int64_t blocksRemoved = 0;
    };
    const Entry &entry(const std::string &name) const;

    SparsifierConfig m_defaults;
    std::map<std::string, Entry> m_entries;
    std::vector<std::string> m_order;
};

// The built-in sparsifier for `defaults.method` (threshold, data-norm, n-m, row-norm).
std::unique_ptr<DataSparsifier> makeSparsifier(const SparsifierConfig &defaults);
// The 2-d view data-norm works on: PyTorch squeezes extents of 1, a 1-d tensor becomes
// [1, n]; more than 2 remaining dims are flattened to [prod(leading), last] (our extension).
std::pair<std::int64_t, std::int64_t> dataNormView(const Shape &shape);

// The mask a method computes for `data` (dense), without a sparsifier object.
Mask computeMask(const Tensor &data, const SparsifierConfig &config, std::int64_t *blocksRemoved = nullptr);

} // namespace sparsity::core
