#!/usr/bin/env bash
# The test runner's own tests: scripts/test.sh must fail, with a line that
# says why, on every way a stage can pass on nothing. Each case runs the
# real runner on one small stage (`scripts/test.sh --stages FILE`) and reads
# its exit status and its reasons. The inner output is kept, not printed:
# its failure lines are the point of the cases, not failures of this stage.
set -uo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The stages' lists of tests, for the cases below that have one.
export SLUICE_TEST_LIST_DIR=$dir
unset SLUICE_TEST_LISTS
passed=0
failed=0

# expect NAME STATUS(pass|fail) REASON STAGE-LINE
expect() {
  local name=$1 want=$2 reason=$3 line=$4
  printf '%s\n' "$line" > "$dir/$name.stages"
  local out rc
  out=$(scripts/test.sh --stages "$dir/$name.stages" 2>&1)
  rc=$?
  local ok=1
  if [ "$want" = pass ]; then
    [ "$rc" -eq 0 ] || ok=0
  else
    [ "$rc" -ne 0 ] && grep -qF -- "$reason" <<<"$out" || ok=0
  fi
  if [ "$ok" -eq 1 ]; then
    echo "ok - $name"
    passed=$((passed + 1))
  else
    echo "not ok - $name: expected to $want${reason:+ with \"$reason\"}, exit status $rc; the runner said:"
    sed 's/^/    | /' <<<"$out" | tail -n 15
    failed=$((failed + 1))
  fi
}

expect "a stage that reports its tests passes" pass "" \
  "stage fine 2 20 bash -c 'echo \"test result: ok. 2 passed; 0 failed; 0 ignored\"'"
expect "a silent stage fails" fail "stage silent failed: printed nothing" \
  "stage silent 1 20 true"
expect "a stage with zero tests fails" fail "reported 0 passing test(s), expected at least 1" \
  "stage empty 1 20 bash -c 'echo \"ℹ tests 0\"; echo \"ℹ pass 0\"; echo \"ℹ fail 0\"'"
expect "a stage that reports a failure but exits 0 fails" fail "reported 2 failed test(s)" \
  "stage liar 1 20 bash -c 'echo \"test result: FAILED. 3 passed; 2 failed; 0 ignored\"; exit 0'"
expect "a stage that hangs is stopped and fails" fail "did not end within its limit of 2 s" \
  "stage hang 1 2 sleep 120"
expect "a stage that exits non-zero fails" fail "exited with status 3" \
  "stage crash 0 20 bash -c 'echo \"test result: ok. 4 passed; 0 failed;\"; exit 3'"

# A stage with a list of its tests: cargo's and node's names.
printf '%s\n' 'x::a' 'x::b' 'e2e::it works' > "$dir/listed.txt"
cp "$dir/listed.txt" "$dir/short.txt"
cp "$dir/listed.txt" "$dir/long.txt"
run_x="echo \"     Running tests/x.rs (target/debug/deps/x-0a1b2c)\"; echo \"test a ... ok\""
expect "a stage that passes every listed test passes" pass "" \
  "stage listed 3 20 bash -c '$run_x; echo \"test b ... ok\"; echo \"test result: ok. 2 passed; 0 failed;\"; echo \"✔ it works (12.5ms)\"; echo \"ℹ pass 1\"'"
expect "a stage whose listed test did not run fails, naming it" fail "1 listed test(s) did not pass: x::b" \
  "stage short 0 20 bash -c '$run_x; echo \"test result: ok. 1 passed; 0 failed;\"; echo \"✔ it works (1s)\"; echo \"ℹ pass 1\"'"
expect "a stage that ran a test its list lacks fails, naming it" fail "test(s) passed that $dir/long.txt lacks (SLUICE_TEST_LISTS=write rewrites it): x::c" \
  "stage long 0 20 bash -c '$run_x; echo \"test b ... ok\"; echo \"test c ... ok\"; echo \"test result: ok. 3 passed; 0 failed;\"; echo \"✔ it works (3ms)\"; echo \"ℹ pass 1\"'"

# In the format the runner counts (cargo's), for the stage that runs this.
echo "test result: $([ "$failed" -eq 0 ] && echo ok || echo FAILED). $passed passed; $failed failed;"
[ "$failed" -eq 0 ]
