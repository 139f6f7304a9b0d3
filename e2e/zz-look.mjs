import { serve, launch, open } from './harness.mjs';
const { server, url } = await serve();
const browser = await launch();
const { page } = await open(browser, url);
await page.click('[data-node="sender"] .body');
await page.screenshot({ path: '/tmp/look1.png' });
await page.keyboard.press('Escape');
await page.screenshot({ path: '/tmp/look2.png' });
await browser.close(); server.close();
