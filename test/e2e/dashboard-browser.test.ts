import type { Locator, Page } from 'playwright-core';
import { SystemChromium } from '../support/system-chromium';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/** Long enough for a noisy shared machine; every wait below ends as soon as its condition holds. */
const WAIT_MS = 30_000;

describe('the dashboard page in a real browser (Debian chromium, real processes)', () => {
  let fx: SystemFixture;
  let browser: SystemChromium;
  let page: Page;
  let url: string;
  let token: string;
  const done = ['brw-ok-1', 'brw-ok-2', 'brw-ok-3'];
  const held = 'brw-held-1';

  /** The texts of a table's body rows inside `#<id>`. */
  const rows = (id: string): Promise<string[]> => page.locator(`#${id} tbody tr`).allInnerTexts();
  /** Waits until `probe` gives a truthy value, failing with `description` and the last value seen. */
  const until = <T>(description: string, probe: () => Promise<T>): Promise<NonNullable<T>> =>
    fx.stack.waitFor(probe, { timeoutMs: WAIT_MS, intervalMs: 100, description });
  const text = (locator: Locator): Promise<string> => locator.innerText();

  beforeAll(async () => {
    const env = fastRoleEnv();
    // Every transition reads the pauses afresh, so a pause holds the very next dispatch (the default
    // cache lets a dispatch leave for up to a second after a pause; see "Pausing a remote service").
    fx = await SystemFixture.start('dashboard-browser', { schedulers: 1, supervisors: 1, dashboard: 1 }, { ...env, scheduler: { ...env['scheduler'], PAUSE_CACHE_MS: '1' } });
    // The dashboard consumes `alerts`; the fixture's own collector would take some of them.
    await fx.alerts.close();
    const [dashboard] = fx.system.byRole('dashboard');
    url = String(dashboard?.lines.find((l) => l.json?.['msg'] === 'dashboard ready')?.json?.['url']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    token = String(fx.system.dashboardToken);

    await fx.submit(done.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    await fx.waitForStates(done, ['Processed'], WAIT_MS);
    // Inventory never answers and `hold-fulfilment` never reaches its threshold: the order stays
    // unfinished, re-sent every 2 s, until the operator in the browser cancels it.
    await fx.setFaults('inventory', { hang: true });
    await fx.submit([fx.order(held, { workflow: 'hold-fulfilment' })]);
    await fx.waitForStates([held], ['Processing'], WAIT_MS);

    browser = await SystemChromium.launch('dashboard-browser');
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
  });

  it('signs in through the login link and shows the counts by state', async () => {
    await page.goto(`${url}/login?token=${token}`);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await browser.hasCookie(`sas_dashboard_${new URL(url).port}`)).toBe(true);
    const card = (label: string): Locator => page.locator('#summary .card', { has: page.locator('span', { hasText: new RegExp(`^${label}$`) }) });
    await card('Processed').locator('b', { hasText: /^3$/ }).waitFor();
    expect(await text(card('processes').locator('b'))).toBe('4');
    expect(await text(card('Canceled').locator('b'))).toBe('0');
    expect(await text(page.locator('#who'))).toBe('operator:local');
  });

  it('filters the process list by orderId', async () => {
    await until('the four orders in the process list', async () => ((await rows('processes')).length === 4 ? true : null));
    await page.fill('#f-order', held);
    await page.click('#filters button[type=submit]');
    const listed = await until(`only ${held} in the list`, async () => {
      const r = await rows('processes');
      return r.length === 1 ? r : null;
    });
    expect(listed[0]).toContain(held);
    expect(listed[0]).toMatch(/Processing|Pending/);
    expect(listed[0]).toContain('hold-fulfilment v1');
  });

  it('opens the process and shows its steps and its timeline', async () => {
    await page.locator('#processes tbody tr', { hasText: held }).click();
    await page.locator('#detail h2', { hasText: `Order ${held}` }).waitFor();
    expect(new URL(page.url()).hash).toMatch(/^#\/process\/.+/);
    const steps = await until('the three steps with reserve-inventory dispatched', async () => {
      const r = await rows('detail');
      return r.length === 3 && /reserve-inventory\tinventory\.reserve\t(Running|NotStarted)\t[1-9]/.test(r[0]!) ? r : null;
    });
    expect(steps.map((s) => s.split('\t').slice(1, 3).join(' '))).toEqual([
      'reserve-inventory inventory.reserve',
      'charge-payment payment.charge',
      'create-shipment shipping.create',
    ]);
    const timeline = await page.locator('#detail ol.timeline li').allInnerTexts();
    expect(timeline[0]).toMatch(/new\s*→\s*Pending/);
    expect(timeline.some((t) => /Pending\s*→\s*Processing/.test(t))).toBe(true);
    await browser.screenshot('1-process-running');
  });

  it('cancels the running order and shows it end Canceled', async () => {
    await page.fill('#a-reason', 'customer called');
    await page.click('#b-cancel');
    // The page marks the answer ok or error once the scheduler answered.
    const answer = await text(page.locator('#answer.ok, #answer.error'));
    expect(answer).toMatch(/^Done: canceled by operator:local: customer called/);
    // The remote comes back, so the in-doubt reservation can be released.
    await fx.remote('/admin/faults/inventory', { method: 'DELETE' });
    await page.locator('#detail h2 .badge', { hasText: /^Canceled$/ }).waitFor({ timeout: WAIT_MS });
    const timeline = await page.locator('#detail ol.timeline li').allInnerTexts();
    expect(timeline.at(-1)).toMatch(/→\s*Canceled/);
    expect(timeline.some((t) => t.includes('canceled by operator:local: customer called'))).toBe(true);
    expect((await rows('detail'))[0]).toMatch(/reserve-inventory\tinventory\.reserve\tCompensated/);
    const [doc] = await fx.processes({ orderId: held });
    expect(doc?.state).toBe('Canceled');
    // The audit panel (operators only) names who canceled which order, from where, and how it ended.
    const audited = await until('the cancel in the audit panel', async () => (await rows('audit')).find((r) => r.includes('process.cancel')));
    expect(audited.split('\t')).toEqual([expect.any(String), 'operator:local', 'process.cancel', `process ${doc!._id}`, held, 'ok 200', '127.0.0.1', 'customer called']);
    await page.fill('#f-order', '');
    await page.click('#filters button[type=submit]');
    await until('every order in the list again', async () => ((await rows('processes')).length === 4 ? true : null));
    await browser.screenshot('2-process-canceled');
  });

  it('pauses payment from the Remote services panel, holds a new order for it, and releases it on resume', async () => {
    const payment = page.locator('#agents tr[data-agent="payment"]');
    await page.fill('#ag-reason', 'PSP maintenance');
    await payment.locator('button', { hasText: /^Pause$/ }).click();
    await payment.locator('.badge', { hasText: /^paused$/ }).waitFor({ timeout: WAIT_MS });
    expect(await text(payment)).toContain('operator:local');
    expect(await text(payment)).toContain('PSP maintenance');

    const order = 'brw-paused-1';
    await fx.submit([fx.order(order, { workflow: 'fast-fulfilment' })]);
    const heldDoc = await until(`${order} held for payment`, async () => {
      const [doc] = await fx.processes({ orderId: order });
      return doc?.heldFor === 'payment' ? doc : null;
    });
    expect(heldDoc.state).toBe('Pending');
    expect(heldDoc.failureCount).toBe(0);
    // The panel counts it (its third column) at its next refresh.
    await until('one held process in the payment row', async () => ((await payment.locator('td').nth(2).innerText()) === '1' ? true : null));
    await browser.screenshot('2b-agent-paused');

    await payment.locator('button', { hasText: /^Resume$/ }).click();
    await payment.locator('.badge', { hasText: /^running$/ }).waitFor({ timeout: WAIT_MS });
    await fx.waitForStates([order], ['Processed'], WAIT_MS);
    const [doc] = await fx.processes({ orderId: order });
    expect(doc?.heldFor ?? null).toBeNull();
  });

  it('signs out: the sign-in page shows and the cookie is gone', async () => {
    await page.click('#sign-out');
    await page.locator('h1', { hasText: /^Sign in$/ }).waitFor();
    expect(await text(page.locator('body'))).toContain('This dashboard needs a token.');
    expect(await browser.hasCookie(`sas_dashboard_${new URL(url).port}`)).toBe(false);
    const api = await page.evaluate(async () => (await fetch('/api/summary')).status);
    expect(api).toBe(401);
    await browser.screenshot('3-signed-out');
  });

  it('shows the sign-in page at the next refresh when the session ends behind the page', async () => {
    await page.goto(`${url}/login?token=${token}`);
    await page.locator('#sign-out').waitFor();
    await browser.clearCookies();
    // The page refreshes every 3 s; its next API call answers 401 and it turns to the sign-in page.
    await page.locator('h1', { hasText: /^Sign in$/ }).waitFor({ timeout: WAIT_MS });
    expect(await text(page.locator('body'))).toContain('This dashboard needs a token.');
  });
});
