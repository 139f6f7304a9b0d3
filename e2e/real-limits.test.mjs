// A real server's configuration in the page: nginx's limit_req pasted into
// "Import configuration…" joins the canvas as blocks in one undoable edit,
// what is not modelled is said with its line, a bad file is refused in the
// dialog naming its line, and a product limiter exports back to nginx, or,
// made Go's, as Go code. The dialog works from the keyboard alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { withBrowser, open, screenshot, accessibilityProblems } from './harness.mjs';

const env = withBrowser();

const CONF = `user www-data;
http {
    limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;
    limit_req_status 429;
    server {
        location / { limit_req zone=perip burst=4 nodelay; }
    }
}
`;

test('an nginx configuration imports as blocks, undoably, and a limiter exports back', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const before = await page.locator('[data-node]').count();
  await page.click('[data-testid="import-config"]');
  await page.waitForSelector('[data-testid="config-import"]');
  // The focus starts in the text, and the dialog passes axe.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'config-text');
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="config-import"]'), []);
  // A configuration it cannot read: refused in the dialog, naming the line.
  await page.fill('[data-testid="config-text"]', 'http {\n    limit_req zone=perip\n}\n');
  await page.click('[data-testid="config-import-go"]');
  assert.match(await page.textContent('[data-testid="config-error"]'), /line 3: a ; ending "limit_req" \(line 2\) before this \}/);
  assert.equal(await page.locator('[data-node]').count(), before, 'nothing changed');
  await page.fill('[data-testid="config-text"]', CONF);
  // The refusal was of the text before: mended, it is no longer shown.
  assert.equal(await page.locator('[data-testid="config-error"]').count(), 0, 'the refusal goes with the text it was about');
  await screenshot(page, 'config-import');
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="perip"]');
  assert.equal(await page.locator('[data-testid="config-import"]').count(), 0, 'the dialog closed');
  assert.equal(await page.locator('[data-node]').count(), before + 3, 'clients, the limiter and the application');
  assert.match(await page.textContent('body'), /Not modelled: line 1: user: not a limit Sluice models/);
  // The imported limiter is selected; its configuration comes back out.
  assert.match(await page.textContent('.inspector h2'), /^perip /);
  await page.click('[data-testid="config-export"]');
  // Written in the engine's worker, fetched when first needed.
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  const exported = await page.inputValue('[data-testid="config-out"]');
  assert.match(exported, /limit_req_zone \$binary_remote_addr zone=perip:10m rate=10r\/s;/);
  assert.match(exported, /limit_req zone=perip burst=4 nodelay;/);
  assert.match(exported, /limit_req_status 429;/);
  await screenshot(page, 'config-export');
  // One undo takes the whole import back.
  await page.click('[data-testid="undo"]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n, before);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a product limiter made Go's shows Go's fields and exports Go code", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="import-config"]');
  await page.fill('[data-testid="config-text"]', CONF);
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="perip"]');
  // Choosing the product makes the block a working limiter of it.
  await page.selectOption('[data-testid="param-product"]', 'go_rate');
  await page.waitForSelector('[data-testid="param-call"]');
  assert.equal(await page.locator('[data-testid="param-nodelay"]').count(), 0, "nginx's fields are gone");
  assert.equal(await page.locator('[data-testid="param-timeout_s-number"]').count(), 0, 'no deadline for Allow');
  // Wait brings its deadline.
  await page.selectOption('[data-testid="param-call"]', 'wait');
  await page.waitForSelector('[data-testid="param-timeout_s-number"]');
  await page.fill('[data-testid="param-timeout_s-number"]', '0.25');
  await page.click('[data-testid="config-export"]');
  // Written in the engine's worker, fetched when first needed.
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  assert.match(await page.textContent('[data-testid="config-export"]'), /Hide the Go code/);
  const code = await page.inputValue('[data-testid="config-out"]');
  assert.match(code, /return rate\.NewLimiter\(rate\.Limit\(10\), 5\)/);
  assert.match(code, /context\.WithTimeout\(r\.Context\(\), 250\*time\.Millisecond\)/);
  assert.match(code, /if err := lim\.Wait\(ctx\); err != nil \{/);
  await screenshot(page, 'config-export-go');
  assert.deepEqual(errors, []);
  await page.close();
});

test("a product limiter made Netflix's adapts its limit: the block and the chart show it, and it exports as Java", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="import-config"]');
  await page.fill('[data-testid="config-text"]', CONF);
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="perip"]');
  await page.selectOption('[data-testid="param-product"]', 'netflix_aimd');
  await page.waitForSelector('[data-testid="param-initial_limit-number"]');
  assert.equal(await page.locator('[data-testid="param-burst-number"]').count(), 0, "nginx's fields are gone");
  await page.fill('[data-testid="param-initial_limit-number"]', '3');
  await page.press('[data-testid="param-initial_limit-number"]', 'Enter');
  // The block says what it has in flight of its limit, as the run goes
  // (its accessible name holds what a small face cuts short).
  await page.waitForFunction(() => /\d+\/\d+ in flight/.test(document.querySelector('[data-node="perip"]')?.getAttribute('aria-label') ?? ''), null, { timeout: 20_000 });
  assert.match(await page.getAttribute('[data-node="perip"]', 'aria-label'), /Netflix AIMD 20\.\.200/);
  // The Depth chart of it draws what is in flight under its limit.
  await page.click('[data-testid="chart-tab-depth"]');
  await page.waitForFunction(() => /perip limit \(\d+\)/.test(document.querySelector('[data-testid="chart-legend"]')?.textContent ?? ''), null, { timeout: 20_000 });
  assert.match(await page.textContent('[data-testid="chart-legend"]'), /perip in flight/);
  await page.click('[data-testid="config-export"]');
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  assert.match(await page.textContent('[data-testid="config-export"]'), /Hide the Java code \(concurrency-limits\)/);
  const code = await page.inputValue('[data-testid="config-out"]');
  assert.match(code, /SimpleLimiter<Void> peripLimiter = SimpleLimiter\.newBuilder\(\)\n    \.limit\(AIMDLimit\.newBuilder\(\)\n        \.initialLimit\(3\)/);
  await screenshot(page, 'config-export-netflix');
  assert.deepEqual(errors, []);
  await page.close();
});

test('an HAProxy configuration imports as its rate-limited frontend and exports back', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="import-config"]');
  await page.selectOption('[data-testid="config-product"]', 'haproxy');
  assert.match(await page.textContent('[data-testid="config-import"]'), /stick tables storing http_req_rate/);
  await page.fill('[data-testid="config-text"]', 'frontend web\n    bind :80\n    stick-table type ip size 100k expire 30s store http_req_rate(10s)\n    http-request track-sc0 src\n    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }\n');
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="web"]');
  assert.match(await page.textContent('body'), /Not modelled: line 2: bind: not a limit Sluice models/);
  await page.click('[data-testid="config-export"]');
  // Written in the engine's worker, fetched when first needed.
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  const exported = await page.inputValue('[data-testid="config-out"]');
  assert.match(exported, /stick-table type ipv6 size 100k expire 30s store http_req_rate\(10s\)/);
  assert.match(exported, /http-request deny deny_status 429 if \{ sc_http_req_rate\(0\) gt 10 \}/);
  await screenshot(page, 'config-export-haproxy');
  assert.deepEqual(errors, []);
  await page.close();
});

test("an Envoy filter in YAML imports as a block and exports back", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="import-config"]');
  await page.selectOption('[data-testid="config-product"]', 'envoy');
  await page.fill('[data-testid="config-text"]', '- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    stat_prefix: api\n    token_bucket:\n      max_tokens: 20\n      tokens_per_fill: 10\n      fill_interval: 0.5s\n    filter_enabled:\n      default_value: {numerator: 100}\n');
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="api"]', { timeout: 20_000 });
  // filter_enforced left out: Envoy's 0%, shadow mode, said by the block
  // (in its label whole, on its face as far as the canvas's scale allows).
  assert.match(await page.getAttribute('[data-node="api"]', 'aria-label'), /envoy 10\/20 per 0.5s atomic \(shadow\)/);
  await page.click('[data-testid="config-export"]');
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  const exported = await page.inputValue('[data-testid="config-out"]');
  assert.match(exported, /max_tokens: 20\n      tokens_per_fill: 10\n      fill_interval: 0.5s/);
  assert.match(exported, /filter_enforced:\n      runtime_key: "api_enforced"\n      default_value:\n        numerator: 0/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a server's maxconn imports as a limit of requests in progress, and a breaker exports as an Envoy cluster", async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.click('[data-testid="import-config"]');
  await page.selectOption('[data-testid="config-product"]', 'haproxy');
  assert.match(await page.textContent('[data-testid="config-import"]'), /a server's maxconn and maxqueue/);
  await page.fill('[data-testid="config-text"]', 'defaults\n    timeout queue 2s\nfrontend web\n    bind :80\n    default_backend app\nbackend app\n    server s1 10.0.0.1:80 maxconn 2\n');
  await page.click('[data-testid="config-import-go"]');
  await page.waitForSelector('[data-node="app"]', { timeout: 20_000 });
  // Its face says what it counts: requests in progress, and those waiting.
  assert.match(await page.getAttribute('[data-node="app"]', 'aria-label'), /haproxy maxconn 2 queue 2s/);
  assert.match(await page.getAttribute('[data-node="app"]', 'aria-label'), /\d+ in progress · \d+ waiting/);
  // HAProxy's own fields, the balance among them.
  await page.waitForSelector('[data-testid="param-balance"]');
  assert.equal(await page.inputValue('[data-testid="param-timeout_queue_s-number"]'), '2');
  // Made Envoy's circuit breaker: its thresholds, and the cluster it exports as.
  await page.selectOption('[data-testid="param-product"]', 'envoy_circuit_breaker');
  await page.waitForSelector('[data-testid="param-protocol"]');
  assert.equal(await page.locator('[data-testid="param-balance"]').count(), 0, "HAProxy's fields are gone");
  await page.click('[data-testid="config-export"]');
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  const exported = await page.inputValue('[data-testid="config-out"]');
  assert.match(exported, /circuit_breakers:\n    thresholds:\n    - priority: DEFAULT\n      max_connections: 10\n      max_pending_requests: 10/);
  assert.match(exported, /route: \{cluster: "app", timeout: 15s\}/);
  await screenshot(page, 'config-export-envoy-breaker');
  assert.deepEqual(errors, []);
  await page.close();
});

test("resilience4j's circuit breaker over a dead server opens: its face, its state strip and its application.yml say so", async () => {
  const scenario = {
    version: 1,
    name: 'A breaker before a dead server',
    nodes: [
      { id: 'clients', kind: 'producer', arrivals: { process: 'constant', rate_per_s: 10 } },
      { id: 'guard', kind: 'product_limiter', product: 'resilience4j_circuit_breaker', sliding_window_size: 10, minimum_number_of_calls: 10,
        wait_duration_in_open_state_s: 2, permitted_number_of_calls_in_half_open_state: 3 },
      { id: 'line', kind: 'queue', capacity: { messages: 1 } },
      { id: 'server', kind: 'consumer', service_time: { dist: 'fixed', value: 0.01 }, outages: [{ from_s: 0, to_s: 1000 }] },
    ],
    edges: [{ from: 'clients', to: 'guard' }, { from: 'guard', to: 'line' }, { from: 'line', to: 'server' }],
  };
  const link = `${env.url}#s=2.${deflateSync(Buffer.from(JSON.stringify(scenario))).toString('base64url')}`;
  const { page, errors } = await open(env.browser, link);
  await page.click('[data-node="guard"] .body');
  await page.selectOption('[data-testid="speed"]', '10');
  // Every call fails (the line is full, the server out): the breaker opens
  // after its window of 10, and its face says how many of them failed.
  await page.waitForFunction(() => document.querySelector('[data-node="guard"]')?.dataset.state === 'OPEN', null, { timeout: 20_000 });
  assert.match(await page.getAttribute('[data-node="guard"]', 'aria-label'), /state: OPEN, \d+ of \d+ failed/);
  // Its strip draws CLOSED, then OPEN and HALF_OPEN as it cycles.
  await page.waitForFunction(() => /HALF_OPEN/.test(document.querySelector('[data-testid="strip-guard"] svg')?.getAttribute('aria-label') ?? ''), null, { timeout: 20_000 });
  const strip = await page.getAttribute('[data-testid="strip-guard"] svg', 'aria-label');
  assert.match(strip, /^Circuit breaker state of guard over time: CLOSED [\d.]+ s \(\d+ %\), HALF_OPEN .*OPEN /);
  assert.match(await page.textContent('.strips .legend'), /CLOSED.*HALF_OPEN.*OPEN/);
  // Its inspector (the breaker's eleven settings) passes axe, and each
  // setting is reached from the keyboard.
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="inspector"]'), []);
  await page.focus('[data-testid="param-failure_rate_threshold-number"]');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.ok(await page.evaluate(() => document.querySelector('[data-testid="inspector"]').contains(document.activeElement)), 'Tab moves on within the inspector');
  // Refusals are counted under their own reason.
  assert.match(await page.getAttribute('[data-node="guard"]', 'aria-label') + await page.textContent('body'), /not_permitted|not permitted/i);
  await page.click('[data-testid="config-export"]');
  await page.waitForSelector('[data-testid="config-out"]', { timeout: 20_000 });
  const yml = await page.inputValue('[data-testid="config-out"]');
  assert.match(yml, /resilience4j:\n  circuitbreaker:\n    instances:\n/);
  assert.match(yml, /      guard:\n        failure-rate-threshold: 50\n/);
  assert.match(yml, /wait-duration-in-open-state: 2s/);
  await screenshot(page, 'breaker-open');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the import dialog works from the keyboard alone: open, choose the server, paste, import, and Escape', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const before = await page.locator('[data-node]').count();
  const focused = () => page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName);
  await page.focus('[data-testid="import-config"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="config-import"]');
  assert.equal(await focused(), 'config-text', 'the focus starts in the text');
  // Back to the server's menu, and down to the next server: HAProxy.
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focused(), 'config-product');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.inputValue('[data-testid="config-product"]'), 'haproxy');
  assert.match(await page.textContent('[data-testid="config-import"]'), /haproxy\.cfg/);
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'config-text');
  await page.keyboard.insertText('backend app\n    server s1 127.0.0.1:8080 maxconn 2 maxqueue 5\n');
  // On past the file chooser to Import, pressed with the space bar.
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'config-file');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'config-import-go');
  await page.keyboard.press(' ');
  await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n + 3, before, { timeout: 20_000 });
  assert.match(await page.getAttribute('[data-node="app"]', 'aria-label'), /haproxy maxconn 2/);
  assert.equal(await page.locator('[data-testid="config-import"]').count(), 0, 'the dialog closed');
  // Opened again, Escape closes it and gives the focus back.
  await page.focus('[data-testid="import-config"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="config-import"]');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="config-import"]', { state: 'detached' });
  assert.equal(await focused(), 'import-config', 'the focus is back on the button that opened it');
  // The focus stays inside while it is open: Tab from Import wraps to Close.
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="config-import"]');
  await page.keyboard.insertText('x');
  for (const _ of [1, 2]) await page.keyboard.press('Tab');
  assert.equal(await focused(), 'config-import-go');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'config-import-close', 'the focus wraps inside the dialog');
  assert.deepEqual(errors, []);
  await page.close();
});
