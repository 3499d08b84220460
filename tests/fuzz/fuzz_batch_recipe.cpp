// libFuzzer target: BATCH.json as `sparsity run` reads it (core/pipeline/batch_recipe).
//
// The bytes are written to a file (in TMPDIR, one per fuzzer process) and read with
// parseBatch(), the product's own entry point. They must either parse or be refused with the
// product's error (InputError: the CLI's exit 2). Anything else escaping -- a JSON library
// exception, a crash, a sanitizer report -- is a bug. A recipe that parses must also survive
// the round trip the GUI's "Save as batch" relies on: batchJson() writes text that parses
// back to the same recipe. planBatch() is not run: it expands globs on the real disk.
#include "core/pipeline/batch_recipe.h"
#include "core/util/errors.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

const std::string &batchPath()
{
    static const std::string path = [] {
        const char *tmp = std::getenv("TMPDIR");
        const std::filesystem::path folder = tmp && *tmp ? tmp : "/tmp";
        return (folder / ("sparsity-fuzz-batch-" + std::to_string(::getpid()) + ".json")).string();
    }();
    static const bool removedAtExit = std::atexit([] { std::remove(batchPath().c_str()); }) == 0;
    (void)removedAtExit;
    return path;
}

void writeBatch(const char *data, std::size_t size)
{
    std::ofstream out(batchPath(), std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
    if (!out.flush()) {
        std::fprintf(stderr, "cannot write %s\n", batchPath().c_str());
        std::abort();
    }
}

void requireRoundTrip(const sparsity::core::BatchRecipe &recipe)
{
    const std::string written = sparsity::core::batchJson(recipe);
    writeBatch(written.data(), written.size());
    std::string rewritten;
    try {
        rewritten = sparsity::core::batchJson(sparsity::core::parseBatch(batchPath()));
    } catch (const sparsity::core::Error &error) {
        std::fprintf(stderr, "batchJson() wrote a recipe parseBatch() refuses: %s\n%s\n", error.what(), written.c_str());
        std::abort();
    }
    if (rewritten != written) {
        std::fprintf(stderr, "batch recipe changed in a round trip:\n%s\n---\n%s\n", written.c_str(), rewritten.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    writeBatch(reinterpret_cast<const char *>(data), size);
    try {
        requireRoundTrip(sparsity::core::parseBatch(batchPath()));
    } catch (const sparsity::core::InputError &) {
        // A refusal naming the JSON path: what the contract asks for.
    }
    return 0;
}
