// Measures the page in Chromium and prints figures (not a test: the machines
// are shared and noisy). Run after `make web`: `node e2e/measure.mjs`
// (`SLUICE_DIST=dir` measures another bundle, to compare two in one sitting;
// `SLUICE_RUNS=n` measures the frame rate n times and prints each run, the
// best and the median: on a shared machine other work only ever costs
// frames, so the best run is the least disturbed; `SLUICE_BUSY=1` keeps
// one core busy in a worker thread while the frame rate is measured, a
// neighbour of known weight, to compare two bundles under the same load).
//
// - the gzipped size of the bundle's wasm and JS;
// - the time from navigation to the first interactive frame (nodes drawn,
//   the clock moving), median of five loads;
// - a 40-node scenario at 10,000 simulated messages per second: how many
//   frames per second the browser paints (requestAnimationFrame), how
//   many times per second the clock changes, how much processor time the
//   browser's processes spend per second and per frame (from /proc, on
//   Linux: a figure that other work on the machine disturbs far less than
//   the frame rate, to compare two bundles), and where the
//   page's main thread spends each frame (from a Chromium trace), and how
//   often the SVG canvas changes (the dots are on a layer of their own);
// - the ceiling: how many frames per second the same browser paints for a
//   blank page doing nothing but count them, measured in the same run.
import { readdir, readFile } from 'node:fs/promises';
import { loadavg, platform } from 'node:os';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { serve, launch, dist } from './harness.mjs';

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

async function bundleSizes() {
  // The page's own module and glue (what a first visit downloads), apart
  // from the sweep worker's (fetched when a sweep starts).
  const out = { page: { wasm: null, js: null }, worker: { wasm: null, js: null } };
  for (const file of await readdir(dist)) {
    const ext = file.split('.').pop();
    if (ext !== 'wasm' && ext !== 'js') continue;
    const body = await readFile(join(dist, file));
    const who = file.startsWith('sweep-worker') ? out.worker : out.page;
    const size = { raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
    if (!who[ext] || size.raw > who[ext].raw) who[ext] = size;
  }
  return out;
}

/** Ten chains of producer (1,000 a second) → window → queue → consumer. */
function fortyNodes() {
  const nodes = [];
  const edges = [];
  for (let k = 0; k < 10; k++) {
    const ids = [`p${k}`, `w${k}`, `q${k}`, `c${k}`];
    nodes.push({ id: ids[0], kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 1000 }, position: { x: 120, y: 120 + 140 * k } });
    nodes.push({ id: ids[1], kind: 'window', max_messages: 32, position: { x: 360, y: 120 + 140 * k } });
    nodes.push({ id: ids[2], kind: 'queue', soft_limit: { messages: 50 }, hard_limit: { messages: 200 }, position: { x: 600, y: 120 + 140 * k } });
    nodes.push({ id: ids[3], kind: 'consumer', service_time: { dist: 'exponential', mean: 0.00095 }, position: { x: 840, y: 120 + 140 * k } });
    for (let i = 0; i < 3; i++) edges.push({ from: ids[i], to: ids[i + 1] });
  }
  return { version: 1, name: '40 nodes at 10,000 messages per second', nodes, edges };
}

/**
 * Frames painted (requestAnimationFrame) over `seconds`, and how many times
 * the page's clock changed meanwhile (none on a page without one).
 */
async function countFrames(page, seconds) {
  return page.evaluate(async (seconds) => {
    let painted = 0;
    let updates = 0;
    let redraws = 0;
    const clock = document.querySelector('[data-testid="clock"]');
    const observer = new MutationObserver(() => updates++);
    if (clock) observer.observe(clock, { characterData: true, childList: true, subtree: true });
    // How often the SVG canvas itself changes (its blocks and edges).
    const svg = document.querySelector('svg.graph');
    const svgObserver = new MutationObserver(() => redraws++);
    if (svg) svgObserver.observe(svg, { attributes: true, characterData: true, childList: true, subtree: true });
    const start = performance.now();
    const t0 = clock?.textContent;
    await new Promise((done) => {
      const frame = () => {
        painted++;
        if (performance.now() - start < seconds * 1000) requestAnimationFrame(frame);
        else done();
      };
      requestAnimationFrame(frame);
    });
    observer.disconnect();
    svgObserver.disconnect();
    return { painted, updates, redraws, elapsed: (performance.now() - start) / 1000, t0, t1: clock?.textContent };
  }, seconds);
}

/**
 * Processor time so far of each of the browser's processes, in ms, by
 * process type (browser, renderer, gpu-process, …), read from /proc; null
 * where there is no /proc.
 */
async function browserCpuMs() {
  if (platform() !== 'linux') return null;
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const byType = {};
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (!/chrom/i.test(cmdline.split(' ')[0])) continue;
      const type = cmdline.match(/--type=([\w-]+)/)?.[1] ?? 'browser';
      // Fields 14 and 15 (utime, stime), counted after the command name's ')'.
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
      byType[type] = (byType[type] ?? 0) + (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
    } catch {
      // The process ended meanwhile.
    }
  }
  return byType;
}

/** What `browserCpuMs` counted between `before` and `after`, per second and per frame. */
function cpuSpent(before, after, seconds, frames) {
  if (!before || !after) return 'processor time: not measured here (no /proc)';
  const spent = Object.entries(after).map(([type, ms]) => [type, ms - (before[type] ?? 0)]).filter(([, ms]) => ms > 0);
  const total = spent.reduce((sum, [, ms]) => sum + ms, 0);
  return `processor time ${(total / seconds).toFixed(0)} ms per second, ${(total / frames).toFixed(1)} ms per frame (` +
    spent.sort((a, b) => b[1] - a[1]).map(([type, ms]) => `${type} ${(ms / seconds).toFixed(0)}`).join(', ') + ')';
}

/** `countFrames`, with the processor time the browser spent meanwhile, written out. */
async function countFramesAndCpu(page, seconds) {
  const before = await browserCpuMs();
  const result = await countFrames(page, seconds);
  const after = await browserCpuMs();
  return { ...result, cpu: cpuSpent(before, after, result.elapsed, result.painted) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { server, url } = await serve();
const browser = await launch();
try {
  const sizes = await bundleSizes();
  for (const [who, { wasm, js }] of Object.entries(sizes)) {
    if (wasm && js) console.log(`bundle, ${who}: wasm ${kib(wasm.raw)} (${kib(wasm.gzip)} gzipped), JS ${kib(js.raw)} (${kib(js.gzip)} gzipped)`);
  }

  const loads = [];
  for (let i = 0; i < 5; i++) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    await page.waitForSelector('[data-node]');
    await page.waitForFunction(() => !/t = 0\.000 s/.test(document.querySelector('[data-testid="clock"]')?.textContent ?? 't = 0.000 s'));
    loads.push(await page.evaluate(() => performance.now()));
    await page.close();
  }
  console.log(`first interactive frame: ${median(loads).toFixed(0)} ms after navigation (median of ${loads.length}: ${loads.map((t) => t.toFixed(0)).join(', ')}; goal at most 500 ms); the machine's load average over 1, 5 and 15 minutes: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('[data-node]');
  await page.setInputFiles('[data-testid="import-file"]', {
    name: 'forty.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(fortyNodes())),
  });
  await page.waitForSelector('[data-node="c9"]');
  await page.waitForTimeout(1000);
  const runs = Math.max(1, Number(process.env.SLUICE_RUNS) || 1);
  const busy = process.env.SLUICE_BUSY === '1' ? new Worker('for (;;) {}', { eval: true }) : null;
  busy?.unref();
  if (busy) console.log('one core kept busy by a worker thread while the frame rate is measured');
  const rates = [];
  for (let run = 0; run < runs; run++) {
    const result = await countFramesAndCpu(page, 5);
    const produced = await page.textContent('[data-testid="total-produced"]');
    rates.push(result.painted / result.elapsed);
    console.log(`40 nodes at 10,000 messages/s: ${rates.at(-1).toFixed(1)} frames/s painted, ` +
      `clock changed ${(result.updates / result.elapsed).toFixed(1)} times/s, SVG canvas ${(result.redraws / result.elapsed).toFixed(1)} times/s; clock ${result.t0} → ${result.t1}; ${produced} produced`);
    console.log(`  ${result.cpu}`);
  }
  if (runs > 1) {
    console.log(`40 nodes, ${runs} runs: best ${Math.max(...rates).toFixed(1)} frames/s, median ${median(rates).toFixed(1)}`);
  }
  await busy?.terminate();
  // Where the page's main thread spends a frame, from a 3-second trace.
  await browser.startTracing(page, { categories: ['devtools.timeline'] });
  await page.waitForTimeout(3000);
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
  const main = new Set(traceEvents.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain').map((e) => e.tid));
  const spent = {};
  for (const e of traceEvents) {
    if (main.has(e.tid) && e.ph === 'X' && e.dur) spent[e.name] = (spent[e.name] ?? 0) + e.dur / 1000;
  }
  const frames = traceEvents.filter((e) => main.has(e.tid) && e.name === 'FireAnimationFrame').length || 1;
  const per = (name) => ((spent[name] ?? 0) / frames).toFixed(1);
  console.log(`main thread per frame (${frames} frames traced): script ${per('FireAnimationFrame')} ms, style ${per('UpdateLayoutTree')} ms, ` +
    `layout ${per('Layout')} ms, pre-paint ${per('PrePaint')} ms, paint ${per('Paint')} ms`);
  await page.close();

  const blank = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await blank.setContent('<!DOCTYPE html><title>blank</title><p>frames</p>');
  const idle = await countFramesAndCpu(blank, 5);
  console.log(`ceiling: a blank page in the same browser paints ${(idle.painted / idle.elapsed).toFixed(1)} frames/s; ${idle.cpu}`);
  await blank.close();
} finally {
  await browser.close();
  server.close();
}
