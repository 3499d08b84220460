#!/usr/bin/python3
"""Checks that scripts/install-deps.sh installs everything a configured and built tree uses.

A fresh Debian 12 machine gets exactly what install-deps.sh names plus those packages'
Depends/Pre-Depends closure: `--no-install-recommends` leaves Recommends out, and so may a
user's apt configuration. A package that the development machine happens to have (say, through
a Recommends, as libqt6opengl6-dev came with qt6-base-dev) makes a build that passes here and
fails there. This script lists the files the build really used and fails when one of them
belongs to a package outside that closure:

  * every CMake file the configure step read (build.ninja's RERUN_CMAKE dependencies: the
    package config files of Qt, HDF5, Eigen, CLI11, nlohmann-json and their own dependencies),
  * every header a compiled translation unit included (`ninja -t deps`),
  * every library a target links (the LINK_LIBRARIES of build.ninja, symlinks resolved).

Files outside any Debian package (the CUDA toolkit in /usr/local/cuda, the repository and the
build tree) are not checked. Usage: scripts/check-deps-closure.py BUILD_DIR [--verbose]
"""

import glob
import os
import re
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install_list():
    """The packages install-deps.sh names for a build and its tests (`--print --test`)."""
    out = subprocess.run(["bash", os.path.join(REPO, "scripts/install-deps.sh"), "--print", "--test"],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def installed_packages():
    """name -> (depends field, provides field) for every installed package (dpkg's view, no apt lists needed)."""
    fmt = "${Package}\\t${Status}\\t${Depends}\\t${Pre-Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f=" + fmt], check=True, capture_output=True, text=True).stdout
    packages, providers = {}, {}
    for line in out.splitlines():
        name, status, depends, predepends, provides = (line.split("\t") + [""] * 5)[:5]
        if not status.endswith("installed"):
            continue
        packages[name] = ", ".join(f for f in (depends, predepends) if f)
        for virtual in provides.split(","):
            virtual = virtual.split("(")[0].strip()
            if virtual:
                providers.setdefault(virtual, set()).add(name)
    return packages, providers


def alternatives(field):
    """'a (>= 1) | b, c:any' -> [['a', 'b'], ['c']]"""
    groups = []
    for clause in field.split(","):
        names = [re.split(r"[\s(:]", alt.strip(), maxsplit=1)[0] for alt in clause.split("|")]
        names = [n for n in names if n]
        if names:
            groups.append(names)
    return groups


def depends_closure(roots, packages, providers):
    """Every installed package reachable from roots through Depends/Pre-Depends (an alternative or a
    virtual package counts through whichever of its providers is installed)."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for group in alternatives(packages.get(name, "")):
            for alt in group:
                for real in ([alt] if alt in packages else []) + sorted(providers.get(alt, ())):
                    if real not in seen:
                        todo.append(real)
    return seen


def owners():
    """path -> package, from dpkg's file lists (much faster than one `dpkg -S` per file)."""
    table = {}
    for listing in glob.glob("/var/lib/dpkg/info/*.list"):
        package = os.path.basename(listing)[: -len(".list")].split(":")[0]
        with open(listing, encoding="utf-8", errors="replace") as f:
            for path in f:
                table[path.rstrip("\n")] = package
    return table


def owner_of(path, table):
    """The package owning path, trying the path as given and with symlinks resolved (usrmerge, alternatives)."""
    for candidate in (path, os.path.realpath(path)):
        if candidate in table:
            return table[candidate]
        parent, name = os.path.split(candidate)
        real_parent = os.path.realpath(parent)
        for alias in (real_parent, real_parent.replace("/usr/lib", "/lib", 1), "/usr" + real_parent):
            if os.path.join(alias, name) in table:
                return table[os.path.join(alias, name)]
    return None


def used_files(build_dir):
    """(why, path) for every system file the configured and built tree used."""
    with open(os.path.join(build_dir, "build.ninja"), encoding="utf-8") as f:
        ninja = f.read()
    used = []
    rerun = re.search(r"^build build\.ninja[^\n]*?: RERUN_CMAKE \| (.*?)(?<!\$)\n", ninja, re.S | re.M)
    if not rerun:
        sys.exit(f"check-deps-closure: no RERUN_CMAKE rule in {build_dir}/build.ninja (not a Ninja build?)")
    used += [("CMake file", p) for p in rerun.group(1).replace("$\n", " ").split() if p.startswith("/")]
    deps = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], check=True, capture_output=True, text=True).stdout
    used += [("header", line.strip()) for line in deps.splitlines() if line.startswith("    /")]
    for libs in re.findall(r"^\s*LINK_LIBRARIES = (.*)$", ninja, re.M):
        for word in shlex.split(libs):
            if word.startswith("/") and (".so" in word or word.endswith(".a")):
                used.append(("library", word))
    return [(why, os.path.normpath(p)) for why, p in used if not p.startswith(("/usr/local/", REPO + "/", os.path.abspath(build_dir)))]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build_dir, verbose = sys.argv[1], "--verbose" in sys.argv
    packages, providers = installed_packages()
    wanted = install_list()
    not_installed = sorted(p for p in wanted if p not in packages)
    if not_installed:
        sys.exit("check-deps-closure: install-deps.sh names packages that are not installed: " + " ".join(not_installed))
    closure = depends_closure(wanted, packages, providers)
    table = owners()
    missing, unowned, checked = {}, 0, set()
    for why, path in used_files(build_dir):
        package = owner_of(path, table)
        if package is None:
            unowned += 1
            continue
        checked.add(package)
        if package not in closure:
            missing.setdefault(package, (why, path))
    if verbose:
        print("packages the build used:", " ".join(sorted(checked)))
    if missing:
        print("check-deps-closure: the build uses packages that install-deps.sh neither names nor gets through Depends:")
        for package, (why, path) in sorted(missing.items()):
            print(f"  {package}  ({why} {path})")
        print("name them in scripts/install-deps.sh (a Recommends is not installed on a fresh machine)")
        return 1
    print(f"check-deps-closure: {len(checked)} packages used by {build_dir}, all installed by install-deps.sh "
          f"or its Depends closure ({len(closure)} packages; {unowned} files outside Debian packages not checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
