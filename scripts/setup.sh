#!/usr/bin/env bash
# Installs what building and testing Sluice needs, skipping what is already
# there at the right version. Everything comes from the package registries
# (crates.io, npm, Debian); nothing is downloaded from anywhere else.
#
#   scripts/setup.sh          tools to build and serve the page
#   scripts/setup.sh test     the same, plus Chromium and its driver
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

# The wasm-bindgen CLI must equal the wasm-bindgen library in Cargo.lock.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "${1:-}" = test ] && ! cargo clippy --version >/dev/null 2>&1; then
  say "adding clippy"
  rustup component add clippy
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (a few minutes)"
  # trunk 0.22 needs a newer rustc than this toolchain.
  cargo install "trunk@$TRUNK_VERSION" --locked
fi

want=$(wasm_bindgen_version)
if [ -z "$want" ]; then
  say "Cargo.lock names no wasm-bindgen version"; exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]; then
  say "installing wasm-bindgen-cli $want"
  # Without --locked: its lock file pins a crate the registry may lack.
  cargo install "wasm-bindgen-cli@$want" --force
fi

# playwright-core, axe-core and binaryen (wasm-opt 132) from npm, as package-lock.json pins them.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund
fi

# Installs Debian packages; a service among them does not start as it
# installs (the tests start their own): policy-rc.d says no while apt runs.
install_unstarted() {
  local SUDO="" made_policy=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    made_policy=yes
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"
  if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
}

if [ "${1:-}" = test ]; then
  # The real servers the limiters are held to (cli/tests/real_servers.rs).
  if [ ! -x /usr/sbin/nginx ] || [ ! -x /usr/sbin/haproxy ]; then
    say "installing Debian's nginx-light and haproxy (not started: the tests start their own)"
    install_unstarted nginx-light haproxy
  fi
  if [ ! -x /usr/bin/go ] || [ ! -f /usr/share/gocode/src/golang.org/x/time/rate/rate.go ]; then
    say "installing Debian's Go and golang.org/x/time (the Go limiter is held to them)"
    install_unstarted --no-install-recommends golang-go golang-golang-x-time-dev
  fi
  if [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/slurmd ] || [ ! -x /usr/sbin/munged ]; then
    say "installing Debian's slurm-wlm and munge (not started: the cluster test starts its own)"
    install_unstarted --no-install-recommends slurm-wlm munge
  fi
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Debian's chromium and chromium-driver"
    install_unstarted chromium chromium-driver
  fi
fi
say "ready"
