#!/usr/bin/env bash
# Runs every test stage, keeps going past a failing one, and ends with one
# summary line over all of them. Exits non-zero if anything failed.
#
# A stage passes only if all of these hold (docs/testing.md):
# - it ends within its time limit (a hang is killed and named);
# - it exits 0;
# - it reports at least its expected number of tests (a stage that ran
#   nothing, or printed nothing, fails);
# - it reports no failed test, whatever its exit status;
# - where the stage has a list of its tests (scripts/tests/STAGE.txt), every
#   test listed passed, and no test ran that the list lacks: a test that
#   vanishes (a file no longer compiled, a binary not run, a loop that makes
#   fewer) is named, not lost in a count.
#
#   scripts/test.sh                 every stage of the project
#   scripts/test.sh --only A,B      stages A and B alone
#   scripts/test.sh --stages FILE   the stages FILE declares instead (the
#                                   runner's own tests, scripts/test-runner.sh)
#   SLUICE_TEST_LISTS=write scripts/test.sh ...
#                                   writes each stage's list from what passed
#                                   (after adding, renaming or removing tests)
set -uo pipefail
cd "$(dirname "$0")/.."

lists=${SLUICE_TEST_LIST_DIR:-scripts/tests}
# Plain text, whatever the terminal: the names below are read from it.
export CARGO_TERM_COLOR=never FORCE_COLOR=0
only=""
if [ "${1:-}" = --only ]; then
  only=",$2,"
fi

# The names of the tests that passed, one a line, from cargo's output
# ("test NAME ... ok", under "Running ... (.../deps/BINARY-HASH)" or
# "Doc-tests CRATE") and node's spec reporter ("✔ NAME (12ms)").
passed_names() {
  awk '
    /^ *Running .*\/deps\/[^\/]*\)$/ {
      n = split($0, parts, "/"); bin = parts[n]
      sub(/\)$/, "", bin); sub(/\.(wasm|exe)$/, "", bin); sub(/-[0-9a-f]+$/, "", bin); next
    }
    /^ *Doc-tests / { bin = "doc:" $2; next }
    /^test .* \.\.\. ok$/ { name = $0; sub(/^test /, "", name); sub(/ \.\.\. ok$/, "", name); print bin "::" name; next }
    /^ *✔ / { name = $0; sub(/^ *✔ /, "", name); sub(/ \([0-9.]+m?s\)$/, "", name); print "e2e::" name }
  ' "$1" | LC_ALL=C sort
}

log=$(mktemp -d)
passed=0
failed=0
broken=()

# stage NAME MIN_TESTS LIMIT_SECONDS COMMAND...
stage() {
  local name=$1 min=$2 limit=$3; shift 3
  if [ -n "$only" ] && [[ "$only" != *",$name,"* ]]; then
    return
  fi
  printf '\n\033[1m== %s\033[0m (at least %s tests, at most %s s)\n' "$name" "$min" "$limit"
  timeout --kill-after=30 "$limit" "$@" 2>&1 | tee "$log/$name.out"
  local rc=${PIPESTATUS[0]}
  local p f why=()
  # cargo: "test result: ok. 7 passed; 0 failed"; node: "ℹ pass 3" / "ℹ fail 0".
  p=$(grep -aEo '([0-9]+) passed;' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  f=$(grep -aEo '([0-9]+) failed;' "$log/$name.out" | awk '{s+=$1} END {print s+0}')
  p=$((p + $(grep -aEo '^ℹ pass [0-9]+' "$log/$name.out" | awk '{s+=$3} END {print s+0}')))
  f=$((f + $(grep -aEo '^ℹ fail [0-9]+' "$log/$name.out" | awk '{s+=$3} END {print s+0}')))
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    why+=("did not end within its limit of $limit s")
  elif [ "$rc" -ne 0 ]; then
    why+=("exited with status $rc")
  fi
  [ -s "$log/$name.out" ] || why+=("printed nothing")
  [ "$f" -gt 0 ] && why+=("reported $f failed test(s)")
  [ "$p" -lt "$min" ] && why+=("reported $p passing test(s), expected at least $min")
  local list="$lists/$name.txt"
  if [ "${SLUICE_TEST_LISTS:-}" = write ] && [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then
    passed_names "$log/$name.out" > "$log/$name.names"
    if [ -s "$log/$name.names" ]; then
      cp "$log/$name.names" "$list"
      echo "wrote $list: $(wc -l < "$list") tests"
    fi
  elif [ ! -f "$list" ] && [[ " ${LISTED:-} " == *" $name "* ]]; then
    why+=("has no list of its tests ($list)")
  elif [ -f "$list" ]; then
    passed_names "$log/$name.out" > "$log/$name.names"
    local missing extra
    missing=$(LC_ALL=C comm -23 <(LC_ALL=C sort "$list") "$log/$name.names")
    extra=$(LC_ALL=C comm -13 <(LC_ALL=C sort "$list") "$log/$name.names")
    if [ -n "$missing" ]; then
      why+=("$(wc -l <<<"$missing") listed test(s) did not pass: $(head -n 5 <<<"$missing" | paste -sd ';' -)")
    fi
    if [ -n "$extra" ]; then
      why+=("$(wc -l <<<"$extra") test(s) passed that $list lacks (SLUICE_TEST_LISTS=write rewrites it): $(head -n 5 <<<"$extra" | paste -sd ';' -)")
    fi
  fi
  passed=$((passed + p))
  failed=$((failed + f))
  if [ ${#why[@]} -gt 0 ]; then
    broken+=("$name")
    # A stage that failed without naming a failed test still counts as one.
    [ "$f" -eq 0 ] && failed=$((failed + 1))
    local line="stage $name failed: ${why[0]}" reason
    for reason in "${why[@]:1}"; do line+="; $reason"; done
    echo "$line" >> "$log/reasons"
    printf '\033[1;31m%s\033[0m\n' "$line"
  fi
}

if [ "${1:-}" = --stages ]; then
  # shellcheck source=/dev/null
  source "$2"
else
  # Golden files are rewritten by hand only (SLUICE_BLESS=1), never here.
  unset SLUICE_BLESS
  # The stages whose tests are listed (scripts/tests/STAGE.txt).
  LISTED="native fuzz explain wasm e2e real slurm"
  # The runner's own rules first: a runner that passes on nothing would
  # make every figure below meaningless.
  stage runner 9 300 scripts/test-runner.sh
  # The page crate too: its pure parts (the inspector's edits, the sweep
  # form) have unit tests that run natively. --no-fail-fast: a failing
  # test binary does not hide the ones after it.
  stage native 500 900 cargo test --workspace --no-fail-fast
  # The compiler's help: every lint of clippy's default set, as errors.
  stage clippy 0 900 cargo clippy --workspace --all-targets -- -D warnings
  # The fuzz targets again, in release and for longer: random graphs of
  # every block and damaged scenario files.
  stage fuzz 5 900 env PROPTEST_CASES="${FUZZ_CASES:-20000}" cargo test --release --no-fail-fast -p sluice-engine --test fuzz
  # The cause chains of every drop and state change of every shipped
  # scenario and lesson, each fact checked: too slow for a debug build.
  stage explain 2 600 cargo test --release -p sluice-engine --test explain
  stage wasm 4 900 bash -c 'cd engine && cargo test --target wasm32-unknown-unknown --test wasm'
  # The real servers (Debian's nginx), fed traffic at its instants: what
  # each logged it saw, replayed through sluice run, decision by decision;
  # and Go's x/time/rate, built from what sluice export go writes, called
  # at the very instants sluice replays.
  stage real 1 900 cargo test --release -p sluice-cli --test real_servers -- --ignored --nocapture
  # A real scheduler: a single-node Slurm started as root, the job array
  # of docs/sweep.md submitted as written there, its shards merged into
  # the unsharded sweep byte for byte.
  stage slurm 1 600 cargo test --release -p sluice-cli --test slurm -- --ignored --nocapture
  stage bundle 0 900 trunk build --release --offline
  if [[ " ${broken[*]} " == *" bundle "* ]]; then
    echo "skipping the end-to-end tests: the bundle did not build"
    broken+=("e2e")
    failed=$((failed + 1))
  else
    stage bundle-size 0 120 scripts/bundle-size.sh
    stage e2e 80 1200 node --test --test-concurrency=1 --test-reporter=spec e2e/*.test.mjs
  fi
fi

echo
if [ ${#broken[@]} -gt 0 ]; then
  [ -f "$log/reasons" ] && cat "$log/reasons"
  echo "failing stages: ${broken[*]}"
fi
echo "summary: $passed passed, $failed failed"
[ ${#broken[@]} -eq 0 ]
