#!/usr/bin/env bash
# `make bench`: `sluice bench` on a build optimised with the profile of a
# typical workload (profile-guided optimisation), as a release would ship.
#
#   1. an instrumented build of `sluice` (`-Cprofile-generate`);
#   2. the training run: every lesson followed step by step, every
#      ready-made scenario run, and a short `sluice bench`, so that the
#      hand-specialised loop is trained as the engine is;
#   3. the profiles merged (`llvm-profdata`, from rustup's `llvm-tools`);
#   4. the optimised build (`-Cprofile-use`), which runs the benchmark.
#
# Both sides of the engine / hand-loop ratio come from the same binary.
#
# Then, in the same run:
#   5. the engine as WebAssembly, the page's own module (dist/, `make web`)
#      in headless Chromium, against the optimised build on the same
#      M/M/1/K, turn by turn (e2e/bench-wasm.mjs): the ratio of arrivals
#      per second;
#   6. what a node costs in memory: a 10,000-node chain's heap
#      (engine/examples/chain_memory.rs);
#   7. what the editor's undo history keeps at 6,000 blocks
#      (engine/examples/undo_memory.rs);
#   8. the simulated events a tuning spends against the grid sweep it
#      replaces (engine/examples/tune_vs_grid.rs);
#   9. a million-line access log read (engine/examples/read_log.rs).
# The plain release build's figures: `cargo run --release -p sluice-cli -- bench`.
# Arguments go to `sluice bench` (e.g. `make bench ARGS="--scale 0.5"`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1mbench:\033[0m %s\n' "$*" >&2; }

if ! rustup component list --installed 2>/dev/null | grep -q '^llvm-tools'; then
  say "adding rustup's llvm-tools (llvm-profdata)"
  rustup component add llvm-tools
fi
profdata="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | awk '/^host:/ { print $2 }')/bin/llvm-profdata"

# Own target directories: other RUSTFLAGS would otherwise rebuild the shared one.
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say "instrumented build"
RUSTFLAGS="-Cprofile-generate=$work/raw" cargo build --release -q -p sluice-cli --target-dir "$target/pgo-train"
trained="$target/pgo-train/release/sluice"

say "training on the lessons, the scenarios and a short benchmark"
lesson=1
while "$trained" lesson "$lesson" > /dev/null 2>&1; do
  lesson=$((lesson + 1))
done
if [ "$lesson" -eq 1 ]; then
  say "the instrumented build could not follow lesson 1"; exit 1
fi
for scenario in scenarios/*.json; do
  "$trained" run "$scenario" > /dev/null
done
"$trained" bench --scale 0.01 > /dev/null

"$profdata" merge -o "$work/sluice.profdata" "$work/raw"

say "optimised build"
RUSTFLAGS="-Cprofile-use=$work/sluice.profdata" cargo build --release -q -p sluice-cli --target-dir "$target/pgo"
"$target/pgo/release/sluice" bench "$@"
"$target/pgo/release/sluice" bench --scrub "$@"

echo
say "the engine as WebAssembly in Chromium against the optimised build"
node e2e/bench-wasm.mjs "$target/pgo/release/sluice"

for example in "chain_memory:what a node costs in memory" "undo_memory:what undo keeps at 6,000 blocks" \
    "tune_vs_grid:a tuning's events against the grid's" "read_log:a million-line log read"; do
  echo
  say "${example#*:}"
  cargo run --release -q -p sluice-engine --example "${example%%:*}"
done
