// The programs' default for how long libgomp's idle threads spin before they sleep. Compiled
// into each program a user runs (sparsity, sparsity-mpi, sparsity-workbench) by
// sparsity_openmp_program() (cmake/OpenMpRuntime.cmake).
//
// Between two parallel loops libgomp's threads spin 300,000 rounds before they sleep. The
// commands read and write on one more thread while the OpenMP threads compute, so where there
// are as many OpenMP threads as cores, the spinning threads take the core that the I/O thread
// needs. 1,000 rounds, the count libgomp itself takes when threads outnumber cores,
// cost little in loops that follow each other closely and give that core back
// (docs/PERFORMANCE.md, stop 61). A user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins.
//
// libgomp reads the variable once, in its constructor. Linked statically, that constructor is
// in the program's .init_array, which runs after the C library has started and lists
// constructors with a priority first; with the shared runtime this runs too late and does
// nothing.
#include <cstdlib>

namespace {

[[gnu::constructor(101)]] void defaultOpenMpSpin()
{
    if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr)
        ::setenv("GOMP_SPINCOUNT", "1000", 0);
}

} // namespace
