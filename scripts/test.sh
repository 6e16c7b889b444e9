#!/usr/bin/env bash
# Runs every test of the workspace: unit tests, end-to-end tests on fixtures/, the
# SV-COMP corpus walk (skipped with a message when ../shared/svcomp is absent).
set -euo pipefail
cd "$(dirname "$0")/.."
# The end-to-end tests run the release binary's semantics in debug builds; build once.
cargo test --workspace "$@"
