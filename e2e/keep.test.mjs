// Keeping and sharing work in a real Chromium: export then import, a share
// link opened in another browser profile, autosave across a reload, broken
// and hostile imports refused with the work kept; the run controls (step,
// as fast as possible, the seed); and the error panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { withBrowser, open, screenshot, clock, clockPasses, stands } from './harness.mjs';

const env = withBrowser();

/** Adds a block from the palette with the keyboard. */
async function addBlock(page, kind) {
  await page.focus(`.palette-item[data-kind="${kind}"]`);
  await page.keyboard.press('Enter');
}

const nodeIds = (page) => page.$$eval('[data-node]', (nodes) => nodes.map((n) => n.dataset.node).sort());

/** The clock's simulated seconds and events processed. */
test('an exported scenario file imports into a fresh page', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await addBlock(page, 'link');
  await page.waitForSelector('[data-node="link1"]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export"]')]);
  assert.match(download.suggestedFilename(), /^[a-z0-9-]+\.sluice\.json$/);
  const text = await readFile(await download.path(), 'utf8');
  const exported = JSON.parse(text);
  assert.equal(exported.version, 1);
  assert.ok(exported.nodes.some((n) => n.id === 'link1' && n.kind === 'link'), 'the export holds the new block');
  const ids = await nodeIds(page);

  // Another browser profile: its own storage, the built-in scenario.
  const fresh = await open(env.browser, env.url);
  assert.equal(await fresh.page.locator('[data-node="link1"]').count(), 0);
  await fresh.page.setInputFiles('[data-testid="import-file"]', {
    name: 'mine.sluice.json', mimeType: 'application/json', buffer: Buffer.from(text),
  });
  await fresh.page.waitForSelector('[data-node="link1"]');
  assert.deepEqual(await nodeIds(fresh.page), ids);
  assert.match(await fresh.page.textContent('[data-testid="status"]'), /Opened mine\.sluice\.json/);
  // The same file again changes nothing, and says so rather than
  // promising an undo.
  await fresh.page.setInputFiles('[data-testid="import-file"]', {
    name: 'again.sluice.json', mimeType: 'application/json', buffer: Buffer.from(text),
  });
  await fresh.page.waitForFunction(() => /again\.sluice\.json/.test(document.querySelector('[data-testid="status"]')?.textContent));
  assert.equal(await fresh.page.textContent('[data-testid="status"]'), 'again.sluice.json is the scenario already here: nothing changed.');
  // The first import is one edit: undo brings back what was there.
  await fresh.page.click('[data-testid="undo"]');
  assert.equal(await fresh.page.locator('[data-node="link1"]').count(), 0);
  assert.equal(await fresh.page.isDisabled('[data-testid="undo"]'), true);
  assert.deepEqual([...errors, ...fresh.errors], []);
  await page.close();
  await fresh.page.close();
});

test('broken and hostile imports are refused and the work is kept', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await addBlock(page, 'window');
  await page.waitForSelector('[data-node="window1"]');
  const ids = await nodeIds(page);
  const edges = await page.locator('.edge').count();
  const valid = JSON.stringify({
    version: 1,
    nodes: [
      { id: 'p', kind: 'producer', arrivals: { process: 'poisson', rate_per_s: 5 } },
      { id: 'c', kind: 'consumer', service_time: { dist: 'fixed', value: 0.1 } },
    ],
    edges: [{ from: 'p', to: 'c' }],
  });
  const cases = [
    ['malformed.json', '{"version": 1, "nodes": [', /not valid JSON/],
    ['unknown-field.json', valid.replace('"kind":"consumer"', '"kind":"consumer","colour":"red"'), /colour/],
    ['top-level-field.json', valid.replace('"version":1', '"version":1,"colour":"purple"'), /colour: unknown field `colour`/],
    ['huge-number.json', valid.replace('"rate_per_s":5', '"rate_per_s":1e300'), /rate_per_s: must be between 0 and 1e9, got 1e300/],
    ['unknown-kind.json', valid.replace('"kind":"consumer"', '"kind":"blender"'), /blender/],
    ['future.json', valid.replace('"version":1', '"version":99'), /version/],
    ['megabytes.json', `{"version": 1, "name": "${'x'.repeat(5 * 1024 * 1024)}", "nodes": []}`, /5\.0 MB; a scenario file may be at most 4 MB/],
  ];
  for (const [name, text, reason] of cases) {
    await page.setInputFiles('[data-testid="import-file"]', { name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForSelector('[data-testid="notice"]');
    const notice = await page.textContent('[data-testid="notice"]');
    assert.match(notice, reason, `${name}: ${notice}`);
    assert.match(notice, new RegExp(`^${name.replace('.', '\\.')} was not imported: .*Your work is unchanged\\.$`));
    // Said once, with one full stop.
    assert.doesNotMatch(notice, /\.\.|Nothing was changed/, notice);
    assert.deepEqual(await nodeIds(page), ids, `${name} left the blocks as they were`);
    assert.equal(await page.locator('.edge').count(), edges);
  }
  await screenshot(page, 'import-refused');
  // Nothing was lost from the history either: undo still takes back the window.
  await page.click('[data-testid="undo"]');
  assert.equal(await page.locator('[data-node="window1"]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a share link carries the scenario to another browser', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await addBlock(page, 'credit');
  await page.waitForSelector('[data-node="credit1"]');
  await page.fill('[data-testid="seed"]', '9');
  await page.press('[data-testid="seed"]', 'Enter');
  await page.click('[data-testid="share"]');
  const link = await page.inputValue('[data-testid="share-link"]');
  assert.ok(link.startsWith(env.url), link);
  assert.match(link, /#s=2\.[A-Za-z0-9_-]+$/);
  await screenshot(page, 'share-link');

  const other = await open(env.browser, link);
  await other.page.waitForSelector('[data-node="credit1"]');
  assert.deepEqual(await nodeIds(other.page), await nodeIds(page));
  assert.equal(await other.page.inputValue('[data-testid="seed"]'), '9');
  assert.match(await other.page.textContent('[data-testid="status"]'), /from the share link/);
  // The fragment is spent: a reload shows later edits, not the link's original.
  assert.equal(new URL(other.page.url()).hash, '');

  // A damaged link says so and opens the built-in scenario.
  const cut = await open(env.browser, link.slice(0, link.length - 40));
  assert.match(await cut.page.textContent('[data-testid="notice"]'), /share link could not be opened: .*damaged/);
  assert.equal(await cut.page.locator('[data-node="credit1"]').count(), 0);
  assert.deepEqual([...errors, ...other.errors, ...cut.errors], []);
  await Promise.all([page.close(), other.page.close(), cut.page.close()]);
});

test('work is saved in the browser and restored on reload', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await addBlock(page, 'router');
  await page.waitForSelector('[data-node="router1"]');
  await page.reload();
  await page.waitForSelector('[data-node="router1"]');
  assert.match(await page.textContent('[data-testid="status"]'), /restored/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link pasted into an open tab opens, the work before it is kept to restore, and a save the browser refuses is said', async () => {
  // A link made elsewhere (another profile).
  const maker = await open(env.browser, env.url);
  await addBlock(maker.page, 'credit');
  await maker.page.waitForSelector('[data-node="credit1"]');
  await maker.page.click('[data-testid="share"]');
  const link = await maker.page.inputValue('[data-testid="share-link"]');

  const { page, errors } = await open(env.browser, env.url);
  await addBlock(page, 'router');
  await page.waitForSelector('[data-node="router1"]');
  const mine = await nodeIds(page);
  // Pasted into the address bar of this tab: only the fragment changes.
  await page.evaluate((hash) => { window.location.hash = hash; }, new URL(link).hash);
  await page.waitForSelector('[data-node="credit1"]');
  assert.equal(await page.locator('[data-node="router1"]').count(), 0);
  assert.match(await page.textContent('[data-testid="status"]'), /from the share link/);
  assert.equal(new URL(page.url()).hash, '', 'the fragment is spent');
  // An edit of the shared scenario is saved over the old work: that is kept.
  await addBlock(page, 'queue');
  await page.waitForSelector('[data-node="queue1"]');
  await page.reload();
  await page.waitForSelector('[data-node="credit1"]');
  // After a reload the kept work is still there to restore (by the link's
  // banner at opening, or here from the storage).
  assert.ok(await page.evaluate(() => localStorage.getItem('sluice.scenario.v1.earlier') !== null), 'the earlier work is kept');
  // Opened from a link again, the banner offers it back.
  await page.evaluate((hash) => { window.location.hash = hash; }, new URL(link).hash);
  await page.getByTestId('restore-earlier').waitFor();
  await screenshot(page, 'earlier-work');
  await page.getByTestId('restore-earlier').click();
  await page.waitForSelector('[data-node="router1"]');
  assert.deepEqual(await nodeIds(page), mine);
  assert.match(await page.textContent('[data-testid="status"]'), /earlier work is back/);
  assert.equal(await page.getByTestId('restore-earlier').count(), 0);
  // The save is compact JSON.
  const saved = await page.evaluate(() => localStorage.getItem('sluice.scenario.v1'));
  assert.ok(!saved.includes('\n'), 'saved without pretty-printing');

  // A browser whose storage is full: the page says the change was not kept.
  await page.evaluate(() => {
    Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); };
  });
  await addBlock(page, 'window');
  await page.waitForSelector('[data-node="window1"]');
  assert.match(await page.textContent('[data-testid="notice"]'), /not saved in this browser: .*storage for the page is full.*export the scenario/);
  assert.deepEqual([...errors, ...maker.errors], []);
  await Promise.all([page.close(), maker.page.close()]);
});

test('step, as fast as possible, and the seed', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="play"]'); // pause
  assert.equal(await page.isDisabled('[data-testid="step"]'), false);
  const before = await stands(page);
  await page.click('[data-testid="step"]');
  // The step shows once the page has redrawn.
  await page.waitForFunction(
    (n) => Number(/(\d+) events/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]) !== n,
    before.events,
  );
  const after = await clock(page);
  assert.equal(after.events, before.events + 1, 'one step is one event');
  assert.ok(after.t >= before.t);

  await page.selectOption('[data-testid="speed"]', 'max');
  await page.click('[data-testid="play"]');
  assert.equal(await page.isDisabled('[data-testid="step"]'), true, 'no stepping while playing');
  // At 1× this would take 200 real seconds; flat out, a few at most.
  const started = Date.now();
  await clockPasses(page, 200, 30000);
  assert.ok(Date.now() - started < 30000);

  // A new seed starts the run again from time zero.
  await page.click('[data-testid="play"]'); // pause, to read a still clock
  await page.fill('[data-testid="seed"]', '12345');
  await page.press('[data-testid="seed"]', 'Enter');
  // The page redraws after the key's events (on a loaded machine, after
  // the read that follows them): wait for the clock to say zero, then check.
  await page.waitForFunction(() => /t = 0\.000 s · 0 events/.test(document.querySelector('[data-testid="clock"]')?.textContent ?? ''), null, { timeout: 5000 });
  assert.deepEqual(await clock(page), { t: 0, events: 0 }, 'restarted');
  // A seed that is not a whole number is refused, saying why.
  await page.fill('[data-testid="seed"]', '1.5');
  await page.press('[data-testid="seed"]', 'Enter');
  assert.match(await page.textContent('[data-testid="notice"]'), /seed must be a whole number/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a panic shows the error panel instead of a dead page', async () => {
  // The picker stays untouched: the panel is over it, and it keeps the focus.
  const { page } = await open(env.browser, `${env.url}?crash-test`, { picker: true });
  await page.waitForSelector('[data-testid="panic"]');
  const text = await page.textContent('[data-testid="panic"]');
  assert.match(text, /Sluice stopped working/);
  assert.match(text, /crash test requested/);
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Reload the page');
  await screenshot(page, 'panic-panel');
  await page.close();
});

test('two tabs of one browser do not silently overwrite each other\'s saved work', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const openTab = async () => {
    const tab = await context.newPage();
    await tab.goto(env.url);
    await tab.waitForSelector('[data-node]');
    const close = tab.getByTestId('picker-close');
    if ((await close.count()) > 0) await close.click();
    return tab;
  };
  const first = await openTab();
  const second = await openTab();
  // The second tab builds something and it is saved...
  await addBlock(second, 'window');
  await second.waitForSelector('[data-node="window1"]');
  const theirs = await nodeIds(second);
  // ...then the first tab, which never saw it, makes an edit of its own.
  await addBlock(first, 'credit');
  await first.waitForSelector('[data-node="credit1"]');
  // The second tab's work was kept aside, and the first says so.
  await first.getByTestId('restore-earlier').waitFor();
  assert.match(await first.textContent('[data-testid="status"]'), /Another tab had saved its scenario/);
  await screenshot(first, 'two-tabs');
  await first.getByTestId('restore-earlier').click();
  await first.waitForSelector('[data-node="window1"]');
  assert.deepEqual(await nodeIds(first), theirs);
  // A tab saving again over its own save displaces nothing.
  await addBlock(second, 'router');
  await second.waitForSelector('[data-node="router1"]');
  await addBlock(second, 'queue');
  await second.waitForSelector('[data-node="queue1"]');
  assert.equal(await second.getByTestId('restore-earlier').count(), 0);
  await context.close();
});
