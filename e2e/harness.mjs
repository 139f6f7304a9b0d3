// Serves the release bundle (dist/) on a free loopback port and opens it in
// Debian's Chromium through playwright-core.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every lesson file of `lessons/`, in the picker's order, as JSON. */
export function lessonFiles() {
  const dir = join(root, 'lessons');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}
// SLUICE_DIST serves another bundle (to compare two builds in one sitting).
export const dist = process.env.SLUICE_DIST || join(root, 'dist');
export const artifacts = join(root, 'e2e', 'artifacts');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * Serves the bundle at `under` (a path ending in `/`), as a course site
 * would host it under a sub-path: anything asked for outside it is not
 * found, so an asset asked for from `/` fails.
 */
export async function serve({ under = '/' } = {}) {
  const server = createServer(async (req, res) => {
    const asked = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!asked.startsWith(under)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const path = normalize(`/${asked.slice(under.length)}`).replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}${under}` };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Opens the page, collecting console errors and uncaught exceptions. A first
 * visit opens on the lesson picker; it is closed ("Just the playground")
 * unless `{ picker: true }` asks to keep it. The window is 1440 × 900
 * unless `width` and `height` say otherwise.
 */
export async function open(browser, url, { picker = false, width = 1440, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(url);
  await page.waitForSelector('[data-node]');
  const close = page.getByTestId('picker-close');
  if (!picker && (await close.count()) > 0) await close.click();
  return { page, errors };
}

/** Scenario `file`'s run opened at instant `t`, paused, by the link
 * `sluice share --at` prints. */
export async function openAt(env, file, t, { width = 1440, height = 900 } = {}) {
  const link = execFileSync(sluice(), ['share', file, '--at', String(t), '--page', env.url], { encoding: 'utf8' }).trim();
  return open(env.browser, link, { width, height });
}

export async function screenshot(page, name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

export async function number(page, selector) {
  return Number((await page.textContent(selector)).trim());
}

/** The centre of a drawn element, in page coordinates. */
export async function centre(locator) {
  const b = await locator.boundingBox();
  assert.ok(b, 'element is drawn');
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** A pointer drag in small steps, as a hand would make it. */
export async function drag(page, from, to) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) {
    await page.mouse.move(from.x + ((to.x - from.x) * i) / 8, from.y + ((to.y - from.y) * i) / 8);
  }
  await page.mouse.up();
}

/**
 * Serves the bundle and launches Chromium once for a test file: call at its
 * top level; `browser` and `url` are set before the first test runs.
 */
/** The `sluice` command (a debug build), built if it is not there yet. */
export function sluice() {
  const path = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'debug', 'sluice');
  if (!existsSync(path)) execFileSync('cargo', ['build', '-q', '-p', 'sluice-cli'], { cwd: root, stdio: 'inherit' });
  return path;
}

export function withBrowser() {
  const env = { browser: null, url: null, server: null };
  before(async () => {
    ({ server: env.server, url: env.url } = await serve());
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.close();
  });
  return env;
}

/** The clock as the page shows it: simulated seconds and events handled. */
export async function clock(page) {
  const text = await page.textContent('[data-testid="clock"]');
  const m = text.match(/t = ([\d.]+) s · (\d+) events/);
  assert.ok(m, `clock reads "${text}"`);
  return { t: Number(m[1]), events: Number(m[2]) };
}

/** Waits until the clock reads more than `seconds` of simulated time. */
export async function clockPasses(page, seconds, timeout = 20000) {
  await page.waitForFunction(
    (s) => Number(/t = ([\d.]+) s/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]) > s,
    seconds,
    { timeout },
  );
}

/**
 * Pauses as soon as the clock reads more than `seconds`: the page itself
 * watches the clock and presses Pause in the same task, so that no round
 * trip of a busy machine lets the run go on past an instant a test needs
 * to come before.
 */
export async function pauseAfter(page, seconds, timeout = 20000) {
  await page.evaluate(([s, limit]) => new Promise((resolve, reject) => {
    const started = Date.now();
    const look = () => {
      const t = Number(/t = ([\d.]+) s/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]);
      if (t > s) {
        document.querySelector('[data-testid="play"]').click();
        resolve();
      } else if (Date.now() - started > limit) {
        reject(new Error(`the clock did not pass ${s} s within ${limit} ms`));
      } else {
        setTimeout(look, 5);
      }
    };
    look();
  }), [seconds, timeout]);
}

/** Waits until the number shown by `selector` exceeds `value`. */
export async function numberPasses(page, selector, value, timeout = 20000) {
  await page.waitForFunction(
    ([sel, v]) => Number(document.querySelector(sel)?.textContent?.trim()) > v,
    [selector, value],
    { timeout },
  );
}

/** How many messages producer `id` has made, from its label ("Producer stream, producing, 812 made"). */
export async function made(page, id) {
  const label = await page.locator(`[data-node="${id}"]`).getAttribute('aria-label');
  return Number(/, (\d+) made/.exec(label)[1]);
}

/** Waits until producer `id` has made more than `value` messages. */
export async function madePasses(page, id, value, timeout = 20000) {
  await page.waitForFunction(
    ([node, v]) => Number(/, (\d+) made/.exec(document.querySelector(`[data-node="${node}"]`)?.getAttribute('aria-label') ?? '')?.[1]) > v,
    [id, value],
    { timeout },
  );
}

/**
 * Whether a running simulation is running: the clock moves on within
 * `timeout` (read from the clock, not from a button's look).
 */
export async function clockMoves(page, timeout = 10000) {
  const { t } = await clock(page);
  await clockPasses(page, t, timeout);
}

/**
 * After a pause: waits until the clock stands still, so that what the page
 * shows is the paused run (the click returns before the page redraws, and
 * the clock is read out at most every 45 ms while playing).
 */
export async function stands(page, timeout = 5000) {
  let last = await clock(page);
  for (const started = Date.now(); Date.now() - started < timeout;) {
    await page.waitForTimeout(150);
    const now = await clock(page);
    if (now.events === last.events) return now;
    last = now;
  }
  assert.fail(`the clock did not stand still within ${timeout} ms (at ${last.t} s)`);
}

/**
 * axe-core's WCAG 2.x A and AA findings inside `selector`, each as
 * "rule: what it says (where)". Empty when axe finds nothing wrong.
 */
export async function accessibilityProblems(page, selector) {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.addScriptTag({ path: join(root, 'node_modules', 'axe-core', 'axe.min.js') });
  }
  const violations = await page.evaluate(
    async (selector) =>
      (await window.axe.run(selector, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations.map((v) => ({
        id: v.id,
        help: v.help,
        where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
      })),
    selector,
  );
  return violations.map((v) => `${v.id}: ${v.help} (${v.where.join(', ')})`);
}
