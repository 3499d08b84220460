// The RankSession of `sparsity`: one process, no MPI.
#include "core/io/temporary_file.h"
#include "core/parallel/rank_session.h"

#include <cstdlib>
#include <iostream>

namespace sparsity::core {

RankSession::RankSession(int &, char **&) {}

RankSession::~RankSession() = default;

const char *RankSession::programName() { return "sparsity"; }

std::string RankSession::description() { return {}; }

int RankSession::failWith(int code, const std::string &message)
{
    std::cerr << "error: " << message << '\n';
    return code;
}

void endJob(int code, const std::string &message)
{
    std::cerr << "error: " << message << '\n' << std::flush;
    removeTemporaryFilesNow();
    std::_Exit(code);
}

} // namespace sparsity::core
