// The engine as WebAssembly against the engine natively, in one run, then
// a long run seen again at instants spread over it, in the page (`make
// bench` runs it after the native benchmark; not a test). Run after
// `make web` and `cargo build --release -p sluice-cli`:
//
//   node e2e/bench-wasm.mjs [SLUICE_BIN] [SCALE]
//
// The WebAssembly side is the page's own module, the one a visitor loads
// (`window.wasmBindings.bench_mm1k`, src/bench.rs): the same engine, the
// same build profile, on Chromium's main thread. The native side is
// `sluice bench --mm1k` (SLUICE_BIN, default target/release/sluice). Both
// simulate the same M/M/1/K (engine/src/bench_model.rs) for the same
// simulated time from the same seed, so they do the same work. They take
// turns, five rounds, each keeping its fastest turn by the wall clock (a
// browser has no clock of a thread's time): other work on the machine only
// slows a turn down, and taking turns exposes both to the same spells.
import { spawnSync } from 'node:child_process';
import { serve, launch, root } from './harness.mjs';
import { join } from 'node:path';

const bin = process.argv[2] || join(root, 'target', 'release', 'sluice');
const scale = Number(process.argv[3] || 1);
const ROUNDS = 5;
const TURNS = 3;

function native() {
  const run = spawnSync(bin, ['bench', '--mm1k', '--scale', String(scale)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${bin} bench --mm1k failed: ${run.stderr || run.error}`);
  return JSON.parse(run.stdout);
}

const { server, url } = await serve();
const browser = await launch();
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.wasmBindings && typeof window.wasmBindings.bench_mm1k === 'function', null, { timeout: 60000 });
  // The native turn's length, as `sluice bench` chose it for this scale.
  const untilS = native().simulated_s;
  const wasm = () =>
    page.evaluate(
      ({ untilS, turns }) => {
        // Warm up (the first call compiles the optimised tier), then time.
        window.wasmBindings.bench_mm1k(untilS / 20);
        let best = null;
        for (let i = 0; i < turns; i++) {
          const t0 = performance.now();
          const arrivals = window.wasmBindings.bench_mm1k(untilS);
          const seconds = (performance.now() - t0) / 1000;
          if (!best || seconds < best.wall_seconds) best = { arrivals, wall_seconds: seconds };
        }
        best.arrivals_per_s = best.arrivals / best.wall_seconds;
        return best;
      },
      { untilS, turns: TURNS },
    );
  let bestNative = null;
  let bestWasm = null;
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const n = native();
    const w = await wasm();
    if (n.arrivals !== w.arrivals) throw new Error(`native simulated ${n.arrivals} arrivals, WebAssembly ${w.arrivals}: not the same work`);
    rounds.push(w.arrivals_per_s / n.arrivals_per_s);
    if (!bestNative || n.arrivals_per_s > bestNative.arrivals_per_s) bestNative = n;
    if (!bestWasm || w.arrivals_per_s > bestWasm.arrivals_per_s) bestWasm = w;
  }
  const f = (x) => Math.round(x).toLocaleString('en');
  console.log(`M/M/1/K, ${f(bestNative.arrivals)} arrivals a turn, fastest turn of ${ROUNDS} rounds each, by the wall clock:`);
  console.log(`  native (${bin.replace(root + '/', '')}): ${f(bestNative.arrivals_per_s)} arrivals/s`);
  console.log(`  WebAssembly in Chromium (the page's module): ${f(bestWasm.arrivals_per_s)} arrivals/s`);
  console.log(`WebAssembly / native: ${(bestWasm.arrivals_per_s / bestNative.arrivals_per_s).toFixed(3)} (goal at least 0.5); round by round: ${rounds.map((x) => x.toFixed(3)).join(' ')}`);

  // Scrubbing in the page: ten million events of the opening scenario
  // (times the scale), kept as the page keeps a run, then forty instants
  // over it reached one by one (src/bench.rs, `bench_scrub`).
  const scrub = JSON.parse(await page.evaluate(({ events }) => window.wasmBindings.bench_scrub(events, 40), { events: Math.round(1e7 * scale) }));
  const reach = [...scrub.reach_ms].sort((a, b) => a - b);
  const mb = (b) => (b / 1e6).toFixed(1);
  console.log(`Scrubbing in Chromium: ${f(scrub.events)} events (${f(scrub.simulated_s)} simulated s) run and kept in ${(scrub.run_ms / 1000).toFixed(2)} s:`);
  console.log(`  ${scrub.checkpoints} checkpoints at most ${f(scrub.widest)} events apart, ${mb(scrub.bytes)} MB of ${mb(scrub.budget)} MB`);
  console.log(`  an instant reached in ${reach[reach.length >> 1].toFixed(1)} ms at the median, ${reach[reach.length - 1].toFixed(1)} ms at the slowest of ${reach.length} (goal at most 250 ms)`);
} finally {
  await browser.close();
  server.close();
}
