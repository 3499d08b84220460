#pragma once
// SPARSITY_ASSERT checks internal assumptions in debug builds only (like eigen_assert).
// User data is validated at the boundary and never relies on it.
#include <cassert>

#define SPARSITY_ASSERT(condition) assert(condition)
