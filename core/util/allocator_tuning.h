#pragma once
// Process-wide heap policy for the programs (CLI, GUI, benchmarks), called once from main().
//
// glibc returns freed memory at the top of the heap to the system as soon as 128 KiB are free
// and serves blocks over 128 KiB with fresh mappings, so a loop that allocates and frees a few
// hundred KiB per iteration (gradcheck's batched backward passes, an expression evaluated
// thousands of times) page-faults its memory in again on every iteration. A first-touch
// fault costs ~11 µs per 4 KiB page on the VMs this runs on (docs/PERFORMANCE.md), which made
// gradcheck 4x slower. Keeping up to 256 MiB of freed heap for reuse is what tcmalloc and
// jemalloc do by default. Tensors of 1 MiB and more are unaffected: Buffer maps them itself.
namespace sparsity::core {

void retainFreedHeapMemory();

} // namespace sparsity::core
