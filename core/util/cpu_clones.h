#pragma once
// SPARSITY_CPU_CLONES: compile a hot loop twice, for AVX2 and for baseline x86-64, and pick
// one at load time (GCC target_clones, an ifunc). The package runs on any x86-64 machine and
// still uses 8-wide vectors where they exist. Apply it to small non-template functions whose
// loops are written out (templates are instantiated inside them with always_inline), so only
// code GCC vectorises itself gets the wider target; Eigen code keeps its baseline packets.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SPARSITY_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SPARSITY_CPU_CLONES
#endif
#define SPARSITY_ALWAYS_INLINE [[gnu::always_inline]] inline
