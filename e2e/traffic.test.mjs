// An access log in the page: dropped on the canvas (or chosen with
// "Log…"), it is read in the engine's worker and becomes a producer that
// replays its requests, with their keys and durations, in one undoable
// edit; a long log is shown in words in the inspector, a bad one refused
// naming its line, and a million lines are read without stopping the
// canvas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBrowser, open, screenshot, clockPasses, root } from './harness.mjs';

const env = withBrowser();

/// An nginx log in the format docs/traffic.md asks for: `n` requests, 20
/// a second, from three clients, each taking 50 or 150 ms.
function nginxLog(n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const took = i % 2 === 0 ? 0.05 : 0.15;
    const ended = 1700000000 + i * 0.05 + took;
    lines.push(`${ended.toFixed(3)} ${took.toFixed(3)} 10.0.0.${i % 3 + 1} shop.example "GET /items/${i % 7} HTTP/1.1" 200`);
  }
  return lines.join('\n') + '\n';
}

/// Drops a file of `text` named `name` on A's canvas, as a person dragging
/// it from their desktop does.
async function dropFile(page, name, text) {
  await page.evaluate(({ name, text }) => {
    const target = document.querySelector('.log-drop svg, .log-drop canvas, .log-drop') ;
    const data = new DataTransfer();
    data.items.add(new File([text], name, { type: 'text/plain' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, { name, text });
}

test('a log dropped on the canvas becomes a producer replaying it, in one undoable edit', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const before = await page.locator('[data-node]').count();
  await dropFile(page, 'access.log', nginxLog(1500));
  await page.waitForSelector('[data-node="log"]', { timeout: 30_000 });
  assert.equal(await page.locator('[data-node]').count(), before + 1);
  const status = await page.textContent('body');
  assert.match(status, /access\.log \(nginx\): 1,500 requests, 3 keys, each served for the time it took, now replayed by "log"/);
  // Selected, its trace is said in words, not listed.
  assert.match(await page.textContent('.inspector h2'), /^log /);
  const inspector = await page.textContent('.inspector');
  assert.match(inspector, /1,500 instants, from 0\.000 s to 74\.950 s/);
  assert.match(inspector, /3 distinct keys, on 1,500 of the 1,500 messages/);
  assert.match(inspector, /1,500 service times, 0\.1000 s on average, 0\.150 s at most/);
  await screenshot(page, 'log-dropped');
  // One undo takes it back.
  await page.click('[data-testid="undo"]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n, before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a log dropped on a selected producer feeds its limiter, and the panel names the keys refused', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.setInputFiles('[data-testid="import-file"]', join(root, 'scenarios', 'real-limits.json'));
  await page.waitForSelector('[data-node="clients_nginx"]');
  await page.click('[data-node="clients_nginx"] .body');
  // A minute of a log: 10.0.0.1 sends 15 a second, two others 2.5 each,
  // to nginx's limit of 10 a second (burst 4): only 10.0.0.1 is refused.
  const lines = [];
  for (let i = 0; i < 1200; i++) {
    const client = i % 4 === 3 ? (i % 8 === 3 ? '10.0.0.2' : '10.0.0.3') : '10.0.0.1';
    const ended = 1700000000 + i * 0.05 + 0.01;
    lines.push(`${ended.toFixed(3)} 0.010 ${client} shop.example "GET / HTTP/1.1" 200`);
  }
  await dropFile(page, 'hot.log', lines.join('\n') + '\n');
  await page.waitForFunction(() => /hot\.log \(nginx\): 1,200 requests, 3 keys/.test(document.body.textContent), null, { timeout: 30_000 });
  assert.match(await page.textContent('body'), /now replayed by "clients_nginx"/);
  await page.selectOption('[data-testid="speed"]', 'max');
  await clockPasses(page, 30, 60_000);
  await page.waitForSelector('[data-testid="shadow-keys"]');
  const rows = await page.$$eval('[data-testid="shadow-keys"] tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(rows[0][0], '10.0.0.1', JSON.stringify(rows));
  // 15 a second against 10: about 5 a second refused over the minute.
  const refused = Number(rows[0][1].replaceAll(',', ''));
  assert.ok(refused > 200 && refused < 400, `${refused} refused`);
  assert.ok(!rows.some((r) => r[0] === '10.0.0.2' || r[0] === '10.0.0.3'), JSON.stringify(rows));
  const bars = await page.locator('[data-testid="shadow-timeline"] rect').count();
  assert.ok(bars >= 5, `${bars} bars of refusals`);
  await screenshot(page, 'shadow-panel');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Envoy and HAR logs become producers too, each format told from its first line', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const envoy = [
    '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0" "locations" "tcp://10.0.2.1:80"',
    '[2016-04-15T20:17:00.300Z] "GET /api/v1/x?y=2 HTTP/2" 200 - 0 10 5 4 "-" "curl" "ab12" "other" "tcp://10.0.2.1:80"',
  ].join('\n') + '\n';
  await dropFile(page, 'envoy.log', envoy);
  // Written as each request ended: the second began first, and the status says so.
  await page.waitForFunction(() => /envoy\.log \(envoy\): 2 requests, 1 key, each served for the time it took/.test(document.body.textContent), null, { timeout: 30_000 });
  assert.match(await page.textContent('body'), /1 line comes before the line above \(the first: line 2\)/);
  await page.click('[data-testid="undo"]');
  const har = JSON.stringify({ log: { version: '1.2', entries: [
    { startedDateTime: '2024-05-01T10:00:00.250+02:00', time: 120.5, request: { method: 'GET', url: 'https://api.example/items/3', headers: [] } },
    { startedDateTime: '2024-05-01T08:00:01.100Z', time: 30, request: { method: 'GET', url: 'https://api.example/logo.png', headers: [] } },
    { startedDateTime: '2024-05-01T08:00:02.100Z', time: 10, request: { method: 'GET', url: 'https://api.example/', headers: [] } },
  ] } });
  await dropFile(page, 'browser.har', har);
  await page.waitForFunction(() => /browser\.har \(har\): 3 requests, no keys, each served for the time it took/.test(document.body.textContent), null, { timeout: 30_000 });
  await page.click('[data-node="log"] .body');
  // 10:00:00.250+02:00 is 08:00:00.250Z: the first of the three.
  assert.equal(await page.inputValue('[data-testid="param-arrivals-times_s"]'), '[0.25,1.1,2.1]');
  assert.equal(await page.inputValue('[data-testid="param-arrivals-service_s"]'), '[0.1205,0.03,0.01]');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a log that does not read is refused naming its line, and nothing changes', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const before = await page.locator('[data-node]').count();
  const text = nginxLog(3) + '1700000001.000 oops 10.0.0.1 shop.example "GET / HTTP/1.1" 200\n';
  await page.setInputFiles('[data-testid="log-file"]', { name: 'broken.log', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction(() => /broken\.log was not read: line 4/.test(document.body.textContent), null, { timeout: 30_000 });
  assert.match(await page.textContent('body'), /Your work is unchanged/);
  assert.equal(await page.locator('[data-node]').count(), before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a million-line log is read while the canvas runs on', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await clockPasses(page, 0.5);
  // The longest gap between two frames while the log is read and applied.
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    const tick = (now) => { window.__gaps.push(now - last); last = now; window.__frames = requestAnimationFrame(tick); };
    window.__frames = requestAnimationFrame(tick);
  });
  const lines = [];
  for (let i = 0; i < 1_000_000; i++) lines.push(`${(i / 1000).toFixed(3)},10.0.${(i >> 8) & 255}.${i & 255},0.002`);
  // Given by its path, as a person's chosen file is: not through the page's
  // own script, which would hold its thread to make the file.
  const dir = mkdtempSync(join(tmpdir(), 'sluice-log-'));
  const path = join(dir, 'million.csv');
  writeFileSync(path, lines.join('\n') + '\n');
  const started = Date.now();
  await page.setInputFiles('[data-testid="log-file"]', path);
  await page.waitForFunction(() => /million\.csv \(csv\): 1,000,000 requests/.test(document.body.textContent), null, { timeout: 120_000 });
  const took = (Date.now() - started) / 1000;
  rmSync(dir, { recursive: true, force: true });
  const gaps = await page.evaluate(() => { cancelAnimationFrame(window.__frames); return window.__gaps; });
  const sorted = [...gaps].sort((a, b) => b - a);
  console.log(`1,000,000 lines read and replayed in ${took.toFixed(1)} s; frames ${gaps.length}, longest gaps ${sorted.slice(0, 3).map((g) => g.toFixed(0)).join(', ')} ms`);
  // Read in the worker: the canvas draws on meanwhile. Applying the lines
  // (one edit, the run rebuilt, then drawn) takes the page's thread
  // briefly.
  assert.ok(gaps.length > 10, `the canvas drew ${gaps.length} frames while the log was read`);
  assert.ok(sorted[2] < 250, `no more than two frame gaps (the edit, and the first frame that draws it) longer than 250 ms: ${sorted.slice(0, 3)}`);
  assert.ok(sorted[0] < 2000, `the edit itself holds the page less than 2 s: ${sorted[0]}`);
  await clockPasses(page, 0.5);
  assert.deepEqual(errors, []);
  await page.close();
});
