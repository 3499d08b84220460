#!/usr/bin/python3
"""Runs a CLI command that must fail cleanly:

    expect_failure.py --code N --message REGEX [--output OUT] [--input IN]... -- COMMAND...

Passes when the command exits with N, prints exactly one stderr line "error: ..." matching
REGEX and nothing on stdout, leaves no OUT (nor a temporary file beside it), and leaves every
IN byte-for-byte unchanged."""
import argparse
import hashlib
import os
import re
import subprocess
import sys


def digest(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=int, required=True)
    parser.add_argument("--message", required=True)
    parser.add_argument("--output")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command and args.command[0] == "--" else args.command

    before = {path: digest(path) for path in args.input}
    if args.output and os.path.exists(args.output):
        os.remove(args.output)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = process.communicate(timeout=120)
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    problems = []
    if result.returncode != args.code:
        problems.append(f"exit code {result.returncode}, expected {args.code}")
    lines = result.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    if len(errors) != 1 or len([l for l in lines if not l.startswith("note: ")]) != 1:
        problems.append(f"stderr must be one 'error:' line, got {lines!r}")
    elif not re.search(args.message, errors[0]):
        problems.append(f"message {errors[0]!r} does not match {args.message!r}")
    if result.stdout:
        problems.append(f"stdout must be empty, got {result.stdout!r}")
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        if os.path.exists(args.output):
            problems.append(f"output {args.output} was written")
        if os.path.isdir(folder):
            # Our writers' temporary files are named .sw-tmp-<pid>-<n>-<host> (core/io/temporary_file.h).
            leftovers = [n for n in os.listdir(folder) if n.startswith(f".sw-tmp-{process.pid}-")]
            if leftovers:
                problems.append(f"temporary files left: {leftovers}")
    for path, old in before.items():
        if digest(path) != old:
            problems.append(f"input {path} was modified")
    if problems:
        print("command:", " ".join(command))
        print("stderr:", result.stderr)
        print("\n".join(problems))
        sys.exit(1)
    print("ok:", errors[0])


if __name__ == "__main__":
    main()
