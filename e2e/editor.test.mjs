// Building on the canvas in a real Chromium: blocks dragged from the palette,
// connections dragged between ports, refusals explained, undo and redo, and
// the keyboard alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, open, screenshot, centre, drag, clockMoves, clockPasses, made, madePasses } from './harness.mjs';

const env = withBrowser();

async function dropFromPalette(page, kind, at) {
  await drag(page, await centre(page.locator(`.palette-item[data-kind="${kind}"]`)), at);
}

/**
 * How many elements `selector` finds once the page has drawn what the last
 * input changed: waits (up to 5 s) for `expected`, then counts.
 */
async function settled(page, selector, expected) {
  await page.waitForFunction(([s, n]) => document.querySelectorAll(s).length === n, [selector, expected], { timeout: 5000 }).catch(() => {});
  return page.locator(selector).count();
}

async function connect(page, from, to) {
  await drag(page, await centre(page.locator(`[data-port="${from}"]`)), await centre(page.locator(`[data-node="${to}"] .body`)));
}

test('blocks dragged from the palette and connected make a scenario that runs', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // The default scenario's own edges, before anything is connected.
  const base = await page.locator('.edge').count();
  const canvas = await page.locator('svg.graph').boundingBox();
  await dropFromPalette(page, 'queue', { x: canvas.x + canvas.width * 0.3, y: canvas.y + canvas.height * 0.85 });
  await page.waitForSelector('[data-node="queue1"]');
  assert.match(await page.textContent('[data-testid="missing"]'), /^Not connected yet \(the rest runs\): .*queue1/);
  // The stray block waits, marked; the rest runs on.
  assert.match(await page.getAttribute('[data-node="queue1"]', 'class'), /\bheld\b/);
  assert.match(await page.getAttribute('[data-node="queue1"]', 'aria-label'), /not connected/);
  await clockMoves(page);
  await madePasses(page, 'stream', await made(page, 'stream'));
  await dropFromPalette(page, 'consumer', { x: canvas.x + canvas.width * 0.5, y: canvas.y + canvas.height * 0.95 });
  await page.waitForSelector('[data-node="consumer1"]');

  // A connection into a producer is refused, and says why.
  await connect(page, 'consumer1', 'stream');
  assert.match(await page.textContent('[data-testid="notice"]'), /producer/);
  assert.equal(await page.locator('.edge').count(), base);

  await connect(page, 'queue1', 'consumer1');
  assert.equal(await page.locator('.edge').count(), base + 1);
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0, 'complete: it runs');
  assert.equal(await page.locator('[data-testid="notice"]').count(), 0);
  await screenshot(page, 'built-on-canvas');

  // Undo takes the connection back (queue1 lacks an output again); redo restores it.
  await page.click('[data-testid="undo"]');
  assert.equal(await page.locator('.edge').count(), base);
  await page.waitForSelector('[data-testid="missing"]');
  await page.keyboard.press('Control+Shift+Z');
  assert.equal(await page.locator('.edge').count(), base + 1);
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0);

  // Moving a node is one edit: undo puts it back.
  const before = await page.locator('[data-node="consumer1"]').getAttribute('transform');
  const c = await centre(page.locator('[data-node="consumer1"] .body'));
  await drag(page, c, { x: c.x - 60, y: c.y - 40 });
  assert.notEqual(await page.locator('[data-node="consumer1"]').getAttribute('transform'), before);
  await page.keyboard.press('Control+Z');
  assert.equal(await page.locator('[data-node="consumer1"]').getAttribute('transform'), before);

  // Delete removes the selected block and its edges.
  await page.click('[data-node="consumer1"]');
  await page.click('[data-testid="delete"]');
  assert.equal(await page.locator('[data-node="consumer1"]').count(), 0);
  assert.equal(await page.locator('.edge').count(), base);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the keyboard alone adds, selects and moves a block', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause: the figures stay still
  // Tab to the palette's "Link" and add it with Enter.
  let found = false;
  for (let i = 0; i < 40 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.dataset?.kind === 'link');
  }
  assert.ok(found, 'the palette is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="link1"]');
  // Tab on to a node: passing over blocks selects none of them; Enter
  // selects the one with the focus, and the inspector shows it. (Escape
  // first lets go of the link just added.)
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('[data-node][aria-pressed="true"]').count(), 0);
  found = false;
  for (let i = 0; i < 60 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.dataset?.node === 'client');
  }
  assert.ok(found, 'nodes are reachable with Tab');
  assert.equal(await page.locator('[data-node="client"]').getAttribute('aria-pressed'), 'false', 'focus alone does not select');
  assert.equal(await page.locator('[data-node="stream"]').getAttribute('aria-pressed'), 'false', 'nor did passing over another block');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('[data-node="client"]').getAttribute('aria-pressed'), 'true');
  assert.match(await page.textContent('.inspector'), /client/);
  const label = await page.locator('[data-node="client"]').getAttribute('aria-label');
  // Its kind and name (drawn small, the words drawn come first).
  assert.match(label, /^Consumer client, |^client, .*: Consumer\b/);
  const before = await page.locator('[data-node="client"]').getAttribute('transform');
  await page.keyboard.press('ArrowDown');
  assert.notEqual(await page.locator('[data-node="client"]').getAttribute('transform'), before);
  await page.keyboard.press('Control+Z');
  assert.equal(await page.locator('[data-node="client"]').getAttribute('transform'), before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('pan, zoom and fit; several blocks selected, moved and deleted together', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause: a still page
  const box = async () => (await page.getAttribute('svg.graph', 'viewBox')).split(' ').map(Number);
  const fitted = await box();
  assert.equal(await page.getAttribute('[data-testid="fit"]', 'aria-pressed'), 'true');

  await page.click('[data-testid="zoom-in"]');
  const zoomed = await box();
  assert.ok(zoomed[2] < fitted[2], `zoom in narrows the view: ${zoomed[2]} < ${fitted[2]}`);
  assert.equal(await page.getAttribute('[data-testid="fit"]', 'aria-pressed'), 'false');

  // The wheel zooms about the pointer; the page does not scroll.
  const canvas = await page.locator('svg.graph').boundingBox();
  await page.mouse.move(canvas.x + 20, canvas.y + canvas.height - 20);
  await page.mouse.wheel(0, 400);
  const out = await box();
  assert.ok(out[2] > zoomed[2], 'wheel down zooms out');
  assert.equal(await page.evaluate(() => window.scrollY), 0);

  // Dragging the empty canvas pans.
  const empty = { x: canvas.x + 30, y: canvas.y + canvas.height - 30 };
  await drag(page, empty, { x: empty.x + 120, y: empty.y - 40 });
  const panned = await box();
  assert.ok(panned[0] < out[0], 'dragging right shows what lies to the left');
  assert.equal(panned[2], out[2], 'panning keeps the zoom');

  await page.click('[data-testid="fit"]');
  assert.deepEqual(await box(), fitted);

  // Shift-click builds a selection; dragging one of its blocks moves all.
  await page.click('[data-node="stream"] .body');
  await page.click('[data-node="client"] .body', { modifiers: ['Shift'] });
  for (const id of ['stream', 'client']) {
    assert.equal(await page.getAttribute(`[data-node="${id}"]`, 'aria-pressed'), 'true', `${id} selected`);
  }
  assert.equal(await page.getAttribute('[data-node="sender"]', 'aria-pressed'), 'false');
  const where = async (id) => page.getAttribute(`[data-node="${id}"]`, 'transform');
  const [s0, c0, q0] = [await where('stream'), await where('client'), await where('sender')];
  const from = await centre(page.locator('[data-node="stream"] .body'));
  await drag(page, from, { x: from.x, y: from.y + 60 });
  assert.notEqual(await where('stream'), s0);
  assert.notEqual(await where('client'), c0);
  assert.equal(await where('sender'), q0, 'an unselected block stays');
  // Shift-click again takes one out.
  await page.click('[data-node="client"] .body', { modifiers: ['Shift'] });
  assert.equal(await page.getAttribute('[data-node="client"]', 'aria-pressed'), 'false');
  await page.click('[data-node="client"] .body', { modifiers: ['Shift'] });
  await page.click('[data-testid="delete"]');
  assert.equal(await page.locator('[data-node="stream"], [data-node="client"]').count(), 0);
  await page.keyboard.press('Control+Z');
  assert.equal(await page.locator('[data-node="stream"], [data-node="client"]').count(), 2);
  await screenshot(page, 'multi-select');
  assert.deepEqual(errors, []);
  await page.close();
});

test("New starts from an empty canvas, Ctrl+A selects every block, and one's own scenario gets its own name", async () => {
  const { page, errors } = await open(env.browser, env.url);
  const nodes = await page.locator('[data-node]').count();
  // Ctrl+A selects every block (not the page's text); deleting them all is allowed and undone in one step.
  await page.locator('svg.graph').click({ position: { x: 8, y: 8 } });
  await page.keyboard.press('Control+A');
  assert.equal(await settled(page, '[data-node][aria-pressed="true"]', nodes), nodes);
  assert.equal(await page.evaluate(() => String(window.getSelection())), '', 'no page text selected');
  await page.keyboard.press('Delete');
  assert.equal(await settled(page, '[data-node]', 0), 0);
  await page.keyboard.press('Control+Z');
  assert.equal(await settled(page, '[data-node]', nodes), nodes);

  // New: an empty canvas with no name, which cannot run, and says how to begin.
  await page.click('[data-testid="new"]');
  assert.equal(await settled(page, '[data-node]', 0), 0);
  assert.equal(await page.textContent('[data-testid="scenario-title"]'), 'Untitled');
  assert.match(await page.textContent('[data-testid="missing"]'), /canvas is empty: add a producer/);
  assert.match(await page.textContent('[data-testid="status"]'), /Undo/);
  assert.ok(await page.isDisabled('[data-testid="step"]'), 'nothing to step');
  // Undo brings the scenario back; Redo empties it again.
  await page.click('[data-testid="undo"]');
  assert.equal(await settled(page, '[data-node]', nodes), nodes);
  assert.notEqual(await page.textContent('[data-testid="scenario-title"]'), 'Untitled');
  await page.click('[data-testid="redo"]');
  assert.equal(await settled(page, '[data-node]', 0), 0);

  // Built from nothing, it runs.
  const canvas = await page.locator('svg.graph').boundingBox();
  const y = canvas.y + canvas.height / 2;
  await dropFromPalette(page, 'producer', { x: canvas.x + canvas.width * 0.2, y });
  await dropFromPalette(page, 'queue', { x: canvas.x + canvas.width * 0.5, y });
  await dropFromPalette(page, 'consumer', { x: canvas.x + canvas.width * 0.8, y });
  await page.waitForSelector('[data-node="consumer1"]');
  await connect(page, 'producer1', 'queue1');
  await connect(page, 'queue1', 'consumer1');
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0);
  if (await page.getAttribute('[data-testid="play"]', 'aria-pressed') !== 'true') await page.click('[data-testid="play"]');
  await madePasses(page, 'producer1', 1);

  // With nothing selected, the inspector names and describes the scenario.
  await page.keyboard.press('Escape');
  await page.locator('svg.graph').click({ position: { x: 8, y: 8 } });
  await page.fill('[data-testid="scenario-name"]', 'My first pipeline');
  // What is typed stays while the run goes on, before it is handed on.
  await clockMoves(page);
  assert.equal(await page.inputValue('[data-testid="scenario-name"]'), 'My first pipeline');
  await page.press('[data-testid="scenario-name"]', 'Enter');
  assert.equal(await page.textContent('[data-testid="scenario-title"]'), 'My first pipeline');
  await page.fill('[data-testid="scenario-description"]', 'A producer, a queue and a consumer.');
  await page.locator('[data-testid="scenario-name"]').focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export"]')]);
  assert.equal(download.suggestedFilename(), 'my-first-pipeline.sluice.json');
  const saved = JSON.parse(await (await import('node:fs/promises')).readFile(await download.path(), 'utf8'));
  assert.equal(saved.name, 'My first pipeline');
  assert.equal(saved.description, 'A producer, a queue and a consumer.');
  // A rename is one edit.
  await page.click('[data-testid="undo"]');
  await page.click('[data-testid="undo"]');
  assert.equal(await page.textContent('[data-testid="scenario-title"]'), 'Untitled');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Presses Tab (or Shift+Tab) until the focused element passes `test`. */
async function tabTo(page, test, arg, { back = false, limit = 120 } = {}) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate(test, arg)) return;
  }
  assert.fail(`not reached with ${back ? 'Shift+Tab' : 'Tab'}: ${test} ${arg ?? ''}`);
}

const focusedTestId = (id) => document.activeElement?.dataset?.testid === id;
const focusedKind = (kind) => document.activeElement?.dataset?.kind === kind;
const focusedNode = (id) => document.activeElement?.dataset?.node === id;

test('the keyboard alone builds producer → queue → consumer and runs it', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.locator('body').focus();
  await tabTo(page, focusedTestId, 'new');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('[data-node]').count(), 0);
  for (const kind of ['producer', 'queue', 'consumer']) {
    await tabTo(page, focusedKind, kind, { back: true });
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-node="${kind}1"]`);
  }
  // Each block: Enter selects it, "Connect to" in the inspector wires it.
  for (const [from, to] of [['producer1', 'queue1'], ['queue1', 'consumer1']]) {
    await tabTo(page, focusedNode, from);
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute(`[data-node="${from}"]`, 'aria-pressed'), 'true');
    await tabTo(page, focusedTestId, 'connect-to');
    await page.keyboard.press('Home');
    for (let i = 0; i < 10 && (await page.inputValue('[data-testid="connect-to"]')) !== to; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue('[data-testid="connect-to"]'), to);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-testid="disconnect-${to}"]`);
    // Back to the top of the page for the next block.
    await page.locator('body').focus();
  }
  assert.equal(await page.locator('.edge').count(), 2);
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0, 'complete: it runs');
  if (await page.getAttribute('[data-testid="play"]', 'aria-pressed') !== 'true') {
    await tabTo(page, focusedTestId, 'play');
    await page.keyboard.press('Enter');
  }
  await madePasses(page, 'producer1', 1);
  await page.waitForFunction(() => [...document.querySelectorAll('.figure-box')]
    .some((box) => /delivered/.test(box.textContent) && Number(box.querySelector('.figure-value').textContent.replace(/\D/g, '')) > 0));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a 6,000-block import is drawn whole from afar and in words up close, and a click still selects', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const nodes = [];
  const edges = [];
  for (let k = 0; k < 2000; k++) {
    const [x, y] = [120 + 760 * (k % 20), 120 + 160 * Math.floor(k / 20)];
    nodes.push({ id: `p${k}`, kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 2 }, position: { x, y } });
    nodes.push({ id: `q${k}`, kind: 'queue', position: { x: x + 240, y } });
    nodes.push({ id: `c${k}`, kind: 'consumer', service_time: { dist: 'exponential', mean: 0.3 }, position: { x: x + 480, y } });
    edges.push({ from: `p${k}`, to: `q${k}` }, { from: `q${k}`, to: `c${k}` });
  }
  const text = JSON.stringify({ version: 1, name: 'six thousand', nodes, edges });
  await page.setInputFiles('[data-testid="import-file"]', { name: 'large.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.waitForSelector('[data-node="c1999"]', { timeout: 60_000 });
  // Fitted: every block is there, as a shape (not dots floating without blocks).
  assert.equal(await page.locator('[data-node]').count(), 6000);
  assert.equal(await page.locator('.node-shape').count(), 6000);
  await page.locator('[data-node="q0"]').click();
  assert.match(await page.getAttribute('[data-node="q0"]', 'class'), /\bselected\b/);
  assert.match(await page.textContent('.inspector h2'), /q0/);
  // Up close: only the blocks in view, with their words.
  for (let i = 0; i < 16; i++) await page.click('[data-testid="zoom-in"]');
  await page.waitForFunction(() => document.querySelectorAll('g.node').length > 0);
  const drawn = await page.locator('g.node').count();
  assert.ok(drawn > 0 && drawn < 1000, `${drawn} blocks drawn in words`);
  assert.equal(await page.locator('.node-shape').count(), 0);
  // A block whose middle is on screen (those just outside the view are drawn too).
  const id = await page.evaluate(() => {
    const svg = document.querySelector('svg.graph').getBoundingClientRect();
    return [...document.querySelectorAll('g.node')].find((g) => {
      const r = g.querySelector('.body').getBoundingClientRect();
      const [x, y] = [r.x + r.width / 2, r.y + r.height / 2];
      return x > svg.left && x < svg.right && y > svg.top && y < svg.bottom;
    })?.dataset.node;
  });
  await page.locator(`[data-node="${id}"] .body`).click();
  assert.equal(await page.getAttribute(`[data-node="${id}"]`, 'aria-pressed'), 'true');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a limiter dropped on a running edge goes between its ends, live, as one edit', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await clockMoves(page);
  const edges = await page.locator('.edge').count();
  // The middle of the edge from the stream to the sender, as drawn.
  const line = page.locator('[data-testid="edge-stream-sender"]');
  const box = await line.boundingBox();
  await clockPasses(page, 1);
  const before = await made(page, 'stream');
  // While dragged over the edge, the block says where it would go.
  const from = await centre(page.locator('.palette-item[data-kind="rate_limiter"]'));
  const to = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(from.x + ((to.x - from.x) * i) / 8, from.y + ((to.y - from.y) * i) / 8);
  assert.match(await page.getByTestId('palette-ghost').textContent(), /Rate limiter · between stream and sender/);
  assert.match(await line.getAttribute('class'), /\bdrop-target\b/, 'the edge is marked while the block is over it');
  // The ghost is drawn over the canvas, not clipped to the palette.
  // (Hit testing follows painting and clipping; the ghost lets the pointer
  // through, so it is made to take it for the look.)
  const seen = await page.getByTestId('palette-ghost').evaluate((g) => {
    const r = g.getBoundingClientRect();
    g.style.pointerEvents = 'auto';
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    g.style.pointerEvents = '';
    return { shown: g.contains(hit), over: r.x + r.width / 2 > document.querySelector('svg.graph').getBoundingClientRect().x };
  });
  assert.ok(seen.shown && seen.over, `the ghost is seen over the canvas: ${JSON.stringify(seen)}`);
  await page.mouse.up();
  await page.waitForSelector('[data-node="rate_limiter1"]');
  assert.equal(await page.locator('.edge').count(), edges + 1, 'one edge became two');
  assert.equal(await page.locator('[data-testid="edge-stream-rate_limiter1"]').count(), 1);
  assert.equal(await page.locator('[data-testid="edge-rate_limiter1-sender"]').count(), 1);
  // Live: what the stream made is not reset.
  assert.ok((await made(page, 'stream')) >= before, 'the run went on');
  await madePasses(page, 'stream', before + 1);
  assert.equal(await page.locator('.edge.drop-target').count(), 0, 'no edge stays marked after the drop');
  await screenshot(page, 'inserted-on-edge');
  // One undo takes it back out.
  await page.click('[data-testid="undo"]');
  await page.waitForSelector('[data-node="rate_limiter1"]', { state: 'detached' });
  assert.equal(await page.locator('.edge').count(), edges);
  assert.equal(await page.locator('[data-testid="edge-stream-sender"]').count(), 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the selection follows its block through an undo that moves the blocks before it', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const pressed = (id) => page.getAttribute(`[data-node="${id}"]`, 'aria-pressed');
  // The default scenario's first block, stream, goes; client is selected.
  await page.click('[data-node="stream"] .body');
  await page.click('[data-testid="delete"]');
  await page.waitForSelector('[data-node="stream"]', { state: 'detached' });
  await page.click('[data-node="client"] .body');
  assert.equal(await pressed('client'), 'true');
  // Undo puts stream back in the first place: client is still the one selected.
  await page.click('[data-testid="undo"]');
  await page.waitForSelector('[data-node="stream"]');
  assert.equal(await pressed('client'), 'true');
  assert.equal(await pressed('stream'), 'false');
  assert.match(await page.textContent('[data-testid="inspector"] h2'), /^client /);
  assert.deepEqual(errors, []);
  await page.close();
});
