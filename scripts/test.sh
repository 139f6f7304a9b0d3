#!/usr/bin/env bash
# Runs every test stage, keeps going past a failing one, and ends with one
# summary line over all of them. Exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp -d)
passed=0
failed=0
broken=()

stage() {
  local name=$1; shift
  printf '\n\033[1m== %s\033[0m\n' "$name"
  "$@" 2>&1 | tee "$log/$name.out"
  local rc=${PIPESTATUS[0]}
  local p f
  # cargo: "test result: ok. 7 passed; 0 failed"; node: "ℹ pass 3" / "ℹ fail 0".
  p=$(grep -Eo '([0-9]+) passed;' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '([0-9]+) failed;' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  p=$((p + $(grep -Eo '^ℹ pass [0-9]+' "$log/$name.out" | awk '{s+=$3} END {print s+0}')))
  f=$((f + $(grep -Eo '^ℹ fail [0-9]+' "$log/$name.out" | awk '{s+=$3} END {print s+0}')))
  passed=$((passed + p))
  failed=$((failed + f))
  if [ "$rc" -ne 0 ]; then
    broken+=("$name")
    # A stage that died before reporting still counts as a failure.
    [ "$f" -eq 0 ] && failed=$((failed + 1))
  fi
}

# The page crate too: its pure parts (the inspector's field table and edits)
# have unit tests that run natively.
stage native cargo test --workspace
# The fuzz targets again, in release and for longer: random graphs of every
# block and damaged scenario files.
stage fuzz env PROPTEST_CASES="${FUZZ_CASES:-20000}" cargo test --release -p sluice-engine --test fuzz
stage wasm bash -c 'cd engine && cargo test --target wasm32-unknown-unknown --test wasm'
stage bundle trunk build --release --offline
if [[ " ${broken[*]} " == *" bundle "* ]]; then
  echo "skipping the end-to-end tests: the bundle did not build"
else
  stage e2e npm run --silent e2e
fi

echo
if [ ${#broken[@]} -gt 0 ]; then
  echo "failing stages: ${broken[*]}"
fi
echo "summary: $passed passed, $failed failed"
[ ${#broken[@]} -eq 0 ]
