// Measures a large scenario in the page and prints figures (not a test:
// the machines are shared and noisy). Run after `make web`:
// `node e2e/measure-large.mjs [BLOCKS]` (default 6,000).
//
// The scenario: BLOCKS / 3 chains of producer → queue → consumer, in a grid.
// Printed: the time from choosing the file to import to the first frame
// that draws its blocks; then, while it plays, the time from a click on a
// block to the frame that shows it selected (median of five clicks), and
// the frames per second painted; then the same after Fit.
import { serve, launch } from './harness.mjs';

const blocks = Number(process.argv[2] ?? 6000);

function chains(count) {
  const nodes = [];
  const edges = [];
  const columns = 20;
  for (let k = 0; k < count; k++) {
    const x = 120 + 760 * (k % columns);
    const y = 120 + 160 * Math.floor(k / columns);
    const [p, q, c] = [`p${k}`, `q${k}`, `c${k}`];
    nodes.push({ id: p, kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 2 }, position: { x, y } });
    nodes.push({ id: q, kind: 'queue', soft_limit: { messages: 20 }, hard_limit: { messages: 60 }, position: { x: x + 240, y } });
    nodes.push({ id: c, kind: 'consumer', service_time: { dist: 'exponential', mean: 0.3 }, position: { x: x + 480, y } });
    edges.push({ from: p, to: q }, { from: q, to: c });
  }
  return JSON.stringify({ version: 1, name: `${count * 3} blocks`, seed: 1, nodes, edges });
}

/** Milliseconds from now until `predicate` holds in the page, checked every frame. */
async function until(page, predicate, arg) {
  return page.evaluate(
    ([source, arg]) =>
      new Promise((resolve) => {
        const test = new Function('arg', `return (${source})(arg)`);
        const start = performance.now();
        const check = () => (test(arg) ? resolve(performance.now() - start) : requestAnimationFrame(check));
        check();
      }),
    [predicate.toString(), arg],
  );
}

async function framesPerSecond(page, seconds = 3) {
  return page.evaluate(
    (seconds) =>
      new Promise((resolve) => {
        let n = 0;
        const start = performance.now();
        const tick = (t) => (t - start < seconds * 1000 ? (n++, requestAnimationFrame(tick)) : resolve(n / ((t - start) / 1000)));
        requestAnimationFrame(tick);
      }),
    seconds,
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { server, url } = await serve();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('[data-node]');
  const close = page.getByTestId('picker-close');
  if (await close.count()) await close.click();
  const text = chains(Math.round(blocks / 3));
  const t0 = Date.now();
  await page.setInputFiles('[data-testid="import-file"]', { name: 'large.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.waitForFunction(() => document.querySelector('[data-node="c0"]'), null, { timeout: 600_000, polling: 50 });
  const firstFrame = Date.now() - t0;
  console.log(`${blocks} blocks (${(text.length / 1024).toFixed(0)} KiB): first frame with the blocks ${firstFrame} ms after the file was chosen`);

  const clicks = async (ids) => {
    const times = [];
    for (const id of ids) {
      const el = page.locator(`[data-node="${id}"]`);
      const box = await el.boundingBox();
      if (!box) return null;
      // Dispatched in the page, then the frames counted until it shows.
      const ms = await page.evaluate(
        ([id, x, y]) =>
          new Promise((resolve) => {
            const start = performance.now();
            const target = document.querySelector(`[data-node="${id}"] .body`) ?? document.querySelector(`[data-node="${id}"]`);
            const opts = { bubbles: true, clientX: x, clientY: y, button: 0, pointerId: 1, isPrimary: true };
            target.dispatchEvent(new PointerEvent('pointerdown', opts));
            target.dispatchEvent(new PointerEvent('pointerup', opts));
            const selected = () => document.querySelector(`[data-node="${id}"]`)?.classList.contains('selected');
            const check = () => (selected() ? resolve(performance.now() - start) : requestAnimationFrame(check));
            check();
          }),
        [id, box.x + box.width / 2, box.y + box.height / 2],
      );
      times.push(ms);
    }
    return times;
  };
  const report = async (what) => {
    const ids = (await page.locator('[data-node]').evaluateAll((els) => els.map((el) => el.dataset.node))).filter((id, k, all) => k % Math.max(1, Math.floor(all.length / 5)) === 0).slice(0, 5);
    const times = await clicks(ids);
    console.log(`  ${what}: ${await page.locator('[data-node]').count()} blocks drawn; a click answered in ${times ? `${median(times).toFixed(0)} ms (median of ${times.map((t) => t.toFixed(0)).join(', ')})` : '–'}; ${(await framesPerSecond(page)).toFixed(1)} frames/s painted while playing`);
  };
  await report('fitted (every block, as shapes)');
  for (let i = 0; i < 16; i++) await page.click('[data-testid="zoom-in"]');
  await page.waitForTimeout(500);
  await report('zoomed in (the blocks in view, with their words)');
} finally {
  await browser.close();
  server.close();
}
