#!/bin/sh
# The incremental differential on N generated programs (default 50): every mutant kind
# of bench::mutate per program, `agx verify --since OLD` against a search from scratch
# (same verdict and violated locations), release build. Prints the number compared.
set -eu
cd "$(dirname "$0")/.."
AGX_INCREMENTAL_PROGRAMS="${1:-50}" exec cargo test --release --test incremental \
    mutants_of_generated_programs_agree_with_scratch -- --nocapture
