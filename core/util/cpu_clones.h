#pragma once
// SPARSITY_CPU_CLONES: compile a hot loop twice, for AVX2 and for baseline x86-64, and pick
// one at load time (GCC target_clones, an ifunc). The package runs on any x86-64 machine and
// still uses 8-wide vectors where they exist. Apply it to small non-template functions whose
// loops are written out (templates are instantiated inside them with always_inline), so only
// code GCC vectorises itself gets the wider target; Eigen code keeps its baseline packets.
//
// SPARSITY_CPU_CLONES_ANY_WIDTH adds a third, for AVX-512 (x86-64-v4: 16 floats a vector), to
// loops whose results cannot depend on the vector width: compares, selects, integer counts,
// minimum and maximum. Not to sums (a sum kept in 16 lanes rounds otherwise than one in 8) nor
// to calls of the vector math library (its AVX-512 variants are other code). The sparsify
// report's range pass took 0.0065 s instead of 0.0098 s, its tally 0.028 s instead of 0.030 s,
// for 8192 x 8192 floats on this project's AVX-512 machine (docs/PERFORMANCE.md, stop 65).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SPARSITY_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#define SPARSITY_CPU_CLONES_ANY_WIDTH __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define SPARSITY_CPU_CLONES
#define SPARSITY_CPU_CLONES_ANY_WIDTH
#endif
#define SPARSITY_ALWAYS_INLINE [[gnu::always_inline]] inline
