#pragma once
// I7's notices (a compressed element's unsorted or duplicated indices, repaired) of an element
// read in parts, told as one whole read tells them: one notice per place, at the place in the
// report of the first part's, its duplicates summed over every part. The parts are blocks of
// rows (sparsify, step and convert read a csr element by rows) and, under sparsity-mpi, ranks.
#include "core/util/validation_report.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace sparsity::core {

class RepairNotices {
public:
    // Tells into `report`; null for none (a state read without notes).
    explicit RepairNotices(ValidationReport *report) : m_report(report) {}

    // Whether `finding` is one of them (its invariant is I7).
    static bool isRepair(const Finding &finding) { return finding.invariant.ends_with(" I7"); }
    // Adds a part's notice: as it is, or its duplicates added into the notice told before for
    // the same place.
    void tell(const Finding &finding);
    // Each rank's notices (each told for its own rows), told in the root's report, every rank's
    // duplicates counted. Collective: every rank calls it once its parts are read.
    void gatherAcrossRanks();

private:
    ValidationReport *m_report;
    std::vector<std::size_t> m_told; // where in the report each place's notice is
};

} // namespace sparsity::core
