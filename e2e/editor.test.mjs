// Building on the canvas in a real Chromium: blocks dragged from the palette,
// connections dragged between ports, refusals explained, undo and redo, and
// the keyboard alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, screenshot, centre, drag } from './harness.mjs';

let server, url, browser;

before(async () => {
  ({ server, url } = await serve());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function dropFromPalette(page, kind, at) {
  await drag(page, await centre(page.locator(`.palette-item[data-kind="${kind}"]`)), at);
}

async function connect(page, from, to) {
  await drag(page, await centre(page.locator(`[data-port="${from}"]`)), await centre(page.locator(`[data-node="${to}"] .body`)));
}

test('blocks dragged from the palette and connected make a scenario that runs', async () => {
  const { page, errors } = await open(browser, url);
  const canvas = await page.locator('svg.graph').boundingBox();
  await dropFromPalette(page, 'queue', { x: canvas.x + canvas.width * 0.3, y: canvas.y + canvas.height * 0.85 });
  await page.waitForSelector('[data-node="queue1"]');
  assert.match(await page.textContent('[data-testid="missing"]'), /queue1/);
  await dropFromPalette(page, 'consumer', { x: canvas.x + canvas.width * 0.7, y: canvas.y + canvas.height * 0.85 });
  await page.waitForSelector('[data-node="consumer1"]');

  // A connection into a producer is refused, and says why.
  await connect(page, 'consumer1', 'stream');
  assert.match(await page.textContent('[data-testid="notice"]'), /producer/);
  assert.equal(await page.locator('.edge').count(), 2);

  await connect(page, 'queue1', 'consumer1');
  assert.equal(await page.locator('.edge').count(), 3);
  assert.equal(await page.locator('[data-testid="missing"]').count(), 0, 'complete: it runs');
  assert.equal(await page.locator('[data-testid="notice"]').count(), 0);
  await screenshot(page, 'built-on-canvas');

  // Undo takes the connection back (queue1 lacks an output again); redo restores it.
  await page.click('[data-testid="undo"]');
  assert.equal(await page.locator('.edge').count(), 2);
  await page.waitForSelector('[data-testid="missing"]');
  await page.keyboard.press('Control+Shift+Z');
  assert.equal(await page.locator('.edge').count(), 3);
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
  assert.equal(await page.locator('.edge').count(), 2);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the keyboard alone adds, selects and moves a block', async () => {
  const { page, errors } = await open(browser, url);
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
  // Tab on to a node: focusing it selects it, and the inspector shows it.
  found = false;
  for (let i = 0; i < 60 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.dataset?.node === 'client');
  }
  assert.ok(found, 'nodes are reachable with Tab');
  assert.equal(await page.locator('[data-node="client"]').getAttribute('aria-pressed'), 'true');
  assert.match(await page.textContent('.inspector'), /client/);
  const label = await page.locator('[data-node="client"]').getAttribute('aria-label');
  assert.match(label, /^Consumer client, /);
  const before = await page.locator('[data-node="client"]').getAttribute('transform');
  await page.keyboard.press('ArrowDown');
  assert.notEqual(await page.locator('[data-node="client"]').getAttribute('transform'), before);
  await page.keyboard.press('Control+Z');
  assert.equal(await page.locator('[data-node="client"]').getAttribute('transform'), before);
  assert.deepEqual(errors, []);
  await page.close();
});
