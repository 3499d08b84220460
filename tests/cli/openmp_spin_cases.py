#!/usr/bin/python3
"""The programs' OpenMP spin default (app/openmp_spin_default.cpp; docs/CLI.md, "threads"):

    openmp_spin_cases.py static|shared PROGRAM...

Each program (sparsity, and sparsity-workbench or sparsity-mpi where built), started as a user
starts it, runs libgomp with GOMP_SPINCOUNT 1000; a GOMP_SPINCOUNT or an OMP_WAIT_POLICY the
user sets is kept as given. libgomp prints the settings it took when OMP_DISPLAY_ENV=verbose.

Skipped (77), saying so, in a build whose OpenMP runtime is shared (SPARSITY_STATIC_OPENMP
off, or not GCC's): there no program can set the default."""
import os
import re
import sys

from memory_limit_cases import check, run

STATIC = sys.argv[1] == "static"


def settings(program, **env):
    """libgomp's settings in `program`, by name, with `env` set and any user setting cleared."""
    clean = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    clean.update(env, OMP_DISPLAY_ENV="verbose", QT_QPA_PLATFORM="offscreen")
    os.environ.clear()
    os.environ.update(clean)
    r = run(program, "--version" if "workbench" not in program else "--help")
    # The program's own runtime starts last. The desktop app also loads the shared libgomp,
    # which Qt's libb2 links; that copy prints its settings first and runs nothing: libb2's
    # OpenMP calls bind to the runtime the program exports (LD_DEBUG=bindings).
    blocks = r.stderr.split("OPENMP DISPLAY ENVIRONMENT BEGIN")
    found = dict(re.findall(r"^\s*(GOMP_SPINCOUNT|OMP_WAIT_POLICY) = '([^']*)'", blocks[-1], re.M))
    check(len(blocks) > 1 and len(found) == 2, f"{program}: no OpenMP settings in its output: {r.stderr[:400]}")
    return found


def main():
    if not STATIC:
        print("SKIP: this build links the shared OpenMP runtime, whose default spin no program can set")
        sys.exit(77)
    for program in sys.argv[2:]:
        default = settings(program)
        check(default["GOMP_SPINCOUNT"] == "1000", f"{program}: spins {default['GOMP_SPINCOUNT']} rounds by default, not 1000")
        users = settings(program, GOMP_SPINCOUNT="777")
        check(users["GOMP_SPINCOUNT"] == "777", f"{program}: the user's GOMP_SPINCOUNT=777 became {users['GOMP_SPINCOUNT']}")
        active = settings(program, OMP_WAIT_POLICY="active")
        check(active["OMP_WAIT_POLICY"] == "ACTIVE" and active["GOMP_SPINCOUNT"] != "1000",
              f"{program}: the user's OMP_WAIT_POLICY=active gave {active}")
        passive = settings(program, OMP_WAIT_POLICY="passive")
        check(passive["GOMP_SPINCOUNT"] == "0", f"{program}: the user's OMP_WAIT_POLICY=passive spins {passive['GOMP_SPINCOUNT']}")
        print(f"{program}: default {default}, GOMP_SPINCOUNT=777 {users}, active {active}, passive {passive}")


main()
