# Sluice: `make serve` to play, `make test` to check everything.
# Both install what is missing first (scripts/setup.sh).

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)
export CARGO_TARGET_DIR ?= $(CURDIR)/target
# wasm-bindgen-test-runner drives Chromium through chromedriver.
export CHROMEDRIVER ?= /usr/bin/chromedriver
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER := wasm-bindgen-test-runner
export WASM_BINDGEN_TEST_TIMEOUT ?= 120

.PHONY: setup setup-test serve build web bench test test-native test-wasm test-e2e screenshot clean

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh test

## Serves the page at http://127.0.0.1:8080 and rebuilds on change.
serve: setup
	trunk serve --offline --address 127.0.0.1 --port 8080

## The release bundle in dist/.
web: setup
	trunk build --release --offline

build: setup
	cargo build --release -p sluice-cli

## `sluice bench` on a profile-guided build, then the engine as WebAssembly
## in Chromium against that build, and what a node costs in memory
## (scripts/bench.sh); ARGS go to `sluice bench`, e.g.
## `make bench ARGS="--scale 0.5"`.
bench: web setup-test
	@scripts/bench.sh $(ARGS)

## Every test: native Rust, the engine as wasm in Chromium, the release
## bundle, and the page end to end in Chromium. Ends with a summary.
test: setup-test
	@scripts/test.sh

test-native:
	cargo test --workspace

test-wasm: setup-test
	cd engine && cargo test --target wasm32-unknown-unknown --test wasm

test-e2e: web
	npm run --silent e2e

## Regenerates the README's screenshot from the release bundle.
screenshot: web setup-test
	node e2e/screenshot.mjs

clean:
	rm -rf dist e2e/artifacts
	cargo clean
