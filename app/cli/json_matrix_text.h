#pragma once
// Large matrices in a --json report, written straight from their buffers. Through nlohmann,
// each entry is a node of its own and, indented, a line of its own: a gradcheck report of two
// 24 x 24 inputs (four 576 x 576 Jacobians) took 0.66 s and 33 MB. Here a matrix stands in the
// tree as a placeholder until write(), which writes it a row per line, each number the shortest
// text that reads back to the same double (std::to_chars), with nlohmann's conventions: a
// fraction or exponent always ("1.0", not "1"), null for a NaN or an infinity.
#include "core/tensor/buffer.h"

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sparsity::cli {

class JsonMatrixText {
public:
    // A placeholder for the rows x cols row-major matrix `values` (kept by reference: it must
    // outlive write()).
    nlohmann::ordered_json matrix(const core::Buffer<double> &values, std::int64_t rows, std::int64_t cols);
    // `json` as json.dump(2) writes it, with every placeholder replaced by its matrix.
    void write(std::ostream &stream, const nlohmann::ordered_json &json) const;

private:
    struct Matrix {
        const core::Buffer<double> *values;
        std::int64_t rows, cols;
    };
    std::vector<Matrix> m_matrices;
};

} // namespace sparsity::cli
