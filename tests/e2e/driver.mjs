// Drives code-server (VS Code 1.100 in the browser) with headless Debian Chromium through
// playwright-core, as a user would: open the kernel, Profile from the lens, hover the kernel entry,
// run "AscendOptimizer: Optimize operator" from the palette, Review the suggestion, then Accept or
// Reject it in the diff editor's title. Called by test_vscode.py, which starts code-server and
// checks the files on disk. Prints one JSON object per line: {"event": ..., ...}.
//
//   node driver.mjs --url http://127.0.0.1:PORT --folder /ws --decision accept|reject
//                   --shots DIR [--profile] [--sidebar] [--first-run] [--timeout-s 150] [--lens-timeout-s 60]
//   node driver.mjs --url … --folder /ws --decision quickfix --shots DIR --bad-line N
//     (Verify a kernel with a misaligned DataCopy on line N, apply the quick fix, save, Verify again)
//   node driver.mjs --url … --folder /ws --decision nogain|cancel --shots DIR
//     (Optimize; let it end without a gain, or press Cancel on its progress; read the outcome's
//     notification, then open its episode report webview from the "Show report" button; nogain
//     then shows it in the dark and the light colour theme)
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : true]);
    return acc;
  }, []),
);
const require = createRequire(join(process.env.ASCENDOPT_E2E_HOME ?? '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

const t0 = Date.now();
const emit = (event, more = {}) => console.log(JSON.stringify({ event, t: +((Date.now() - t0) / 1000).toFixed(1), ...more }));
const timeout = Number(args['timeout-s'] ?? 150) * 1000;
mkdirSync(args.shots, { recursive: true });
const shot = async (page, name) => {
  const path = join(args.shots, `${args.decision}-${name}.png`);
  await page.screenshot({ path });
  emit('screenshot', { name, path });
};

// Chromium as root, on a machine whose network is closed.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
});

let failed = false;
const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
page.setDefaultTimeout(30_000);
try {
  const url = `${args.url}/?folder=${encodeURIComponent(args.folder)}`;
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor();
  emit('workbench');

  if (args['first-run']) {
    // No interpreter configured: the extension asks to create its private environment.
    const consent = page.locator('.notification-toast').filter({ hasText: 'Create a private Python environment' });
    await consent.first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(500);
    emit('consent', { text: (await consent.first().innerText()).replace(/\s+/g, ' ') });
    await shot(page, 'first-run-consent');
    await consent.first().getByRole('button', { name: 'Create environment' }).click();
    const setup = page.locator('.notification-toast').filter({ hasText: 'setting up the Python server' });
    await setup.first().waitFor({ timeout: 30_000 });
    await setup.filter({ hasText: /collecting|downloading|installing/ }).first().waitFor({ timeout: 60_000 }).catch(() => undefined);
    emit('setup', { text: (await setup.first().innerText()).replace(/\s+/g, ' ') });
    await shot(page, 'first-run-setup');
    await setup.first().waitFor({ state: 'detached', timeout: 600_000 });
    emit('setup-done');
  }

  // Notifications as the tests read them: message text and buttons.
  const toast = (text) => page.locator('.notification-toast').filter({ hasText: text });
  const palette = async (command) => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${command}`);
    const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: command }).first();
    await row.waitFor();
    await input.press('Enter');
  };

  // Open the kernel through Quick Open ("F1", then drop the ">" to search files).
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill('op_kernel/add_custom.cpp');
  await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'add_custom.cpp' }).first().waitFor();
  await input.press('Enter');
  await page.locator('.tab.active').filter({ hasText: 'add_custom.cpp' }).waitFor();
  emit('kernel-open');

  // Go to the kernel entry (`extern "C" __global__ …`): its lens and hover live there.
  const kernelLines = readFileSync(join(args.folder, 'op_kernel', 'add_custom.cpp'), 'utf8').split('\n');
  const entryLine = kernelLines.findIndex((l) => l.includes('__global__')) + 1;
  await page.keyboard.press('F1');
  await input.waitFor();
  await input.fill(`:${entryLine}`);
  await input.press('Enter');
  await page.waitForTimeout(300);

  // The server's lens over the kernel entry: proof that the extension started `ascendopt serve`.
  const lens = (text) => page.locator('.codelens-decoration a').filter({ hasText: text }).first();
  await lens('Optimize').waitFor({ timeout: Number(args['lens-timeout-s'] ?? 60) * 1000 });
  emit('lens', { text: await page.locator('.codelens-decoration').first().innerText() });

  flow: {
  if (args.decision === 'quickfix') {
    // A misaligned DataCopy: Verify puts a diagnostic on its line, the light bulb's quick fix
    // rewrites it as DataCopyPad, and the save re-verifies (the diagnostic goes away).
    await lens('Verify').click();
    const verified = toast('Verify:');
    await verified.first().waitFor({ timeout });
    emit('verified', { text: (await verified.first().innerText()).replace(/\s+/g, ' ') });
    const bad = Number(args['bad-line']);
    const col = kernelLines[bad - 1].indexOf('DataCopy') + 3;
    await page.keyboard.press('F1');
    await input.waitFor();
    await input.fill(`:${bad}:${col}`);
    await input.press('Enter');
    await page.locator('.squiggly-error').first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(500);
    await palette('Quick Fix...');
    const fix = page.locator('.action-widget .monaco-list-row').filter({ hasText: 'Use DataCopyPad' });
    await fix.first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(400);
    emit('quickfix-offered', { text: (await fix.first().innerText()).replace(/\s+/g, ' ') });
    await shot(page, 'menu');
    await page.keyboard.press('Enter'); // the preferred (first) fix is focused; the widget re-renders under a mouse click
    await page.locator('.view-line').filter({ hasText: 'DataCopyExtParams{1' }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await page.waitForTimeout(400);
    await shot(page, 'applied');
    await page.keyboard.press('Control+S');
    const clean = page.locator('.notification-toast').filter({ hasText: /Verify: .* (\d+)\/\1 case\(s\) correct/ });
    await clean.first().waitFor({ timeout });
    emit('reverified', { text: (await clean.first().innerText()).replace(/\s+/g, ' ') });
    await page.waitForTimeout(600);
    await shot(page, 'verified');
    break flow;
  }

  if (args.decision === 'nogain' || args.decision === 'cancel') {
    await palette('AscendOptimizer: Optimize operator');
    emit('optimize-started');
    if (args.decision === 'cancel') {
      const progress = page.locator('.notification-toast').filter({ hasText: 'Optimize add_custom' });
      await progress.first().waitFor({ timeout: 30_000 });
      await progress.first().getByRole('button', { name: 'Cancel' }).click();
      emit('cancel-clicked');
    }
    const ended = toast(args.decision === 'cancel' ? 'add_custom: cancelled' : 'add_custom: no gain');
    await ended.first().waitFor({ timeout });
    await page.waitForTimeout(600); // the toast fades in
    emit('outcome', { text: (await ended.first().innerText()).replace(/\s+/g, ' ') });
    await shot(page, 'outcome');
    await ended.first().getByRole('button', { name: 'Show report' }).click();
    // The webview's page sits two frames down (VS Code's webview host, then the page itself).
    const report = page.frameLocator('iframe.webview').frameLocator('iframe').locator('body');
    await report.locator('h1').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(800);
    emit('report', { text: (await report.innerText()).replace(/\s+/g, ' ').slice(0, 1500) });
    await shot(page, 'report');
    if (args.decision === 'nogain') {
      // The page follows the editor's theme (its --vscode-* variables): pick the dark colour theme,
      // then the light one, from the palette as a user would; read the page's colours and take the
      // webview alone in each.
      const webview = page.locator('iframe.webview').first();
      const rows = page.locator('.quick-input-list .monaco-list-row');
      for (const [name, theme] of [['dark', 'Dark Modern'], ['light', 'Light Modern']]) {
        await page.keyboard.press('F1');
        const pick = page.locator('.quick-input-widget input');
        await pick.fill('>Preferences: Color Theme');
        await rows.filter({ hasText: 'Preferences: Color Theme' }).first().click();
        await pick.fill(theme);
        await rows.filter({ hasText: theme }).first().click();
        await page.locator(`.monaco-workbench.${name === 'dark' ? 'vs-dark' : 'vs'}`).waitFor({ timeout: 15_000 });
        await page.waitForTimeout(1200); // the webview takes the new variables
        emit('report-colours', {
          theme: name,
          ...(await report.evaluate((body) => {
            const style = getComputedStyle(body);
            const tick = body.ownerDocument.querySelector('.ao-tick');
            return { kind: body.className, color: style.color, background: style.backgroundColor, tick: tick ? getComputedStyle(tick).fill : null };
          })),
        });
        await webview.screenshot({ path: join(args.shots, `nogain-report-${name}.png`) });
      }
    }
    break flow;
  }

  if (args.profile) {
    await lens('Profile').click();
    await toast('Profile:').waitFor({ timeout });
    emit('profiled', { message: await toast('Profile:').first().innerText() });
    // Hover the kernel entry's name for the per-case profile. The cursor goes to the name and the
    // hover is asked for from the keyboard: under load Monaco may not have split the line into
    // tokens yet, so there is no span of the name alone to point the mouse at.
    const nameColumn = kernelLines[entryLine - 1].indexOf('add_custom(') + 1;
    await page.keyboard.press('F1');
    await input.waitFor();
    await input.fill(`:${entryLine}:${nameColumn + 2}`);
    await input.press('Enter');
    await palette('Show or Focus Hover');
    const hover = page.locator('.monaco-hover').filter({ hasText: 'Last profile' });
    await hover.first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(600); // the hover fades in
    emit('hover', { text: (await hover.first().innerText()).slice(0, 600) });
    await shot(page, 'profile-hover');
    await page.keyboard.press('Escape');
  }

  // Optimize from the command palette (the extension's own command, not the lens).
  await palette('AscendOptimizer: Optimize operator');
  emit('optimize-started');
  const progress = page.locator('.notification-toast').filter({ hasText: 'Optimize add_custom' });
  await progress.first().waitFor({ timeout: 30_000 }).then(
    async () => {
      // Wait for a first "n/6 evaluations" report, so the screenshot shows real progress.
      await progress.filter({ hasText: 'evaluations' }).first().waitFor({ timeout: 20_000 }).catch(() => undefined);
      await page.waitForTimeout(500); // the toast fades in
      emit('progress', { text: (await progress.first().innerText()).replace(/\s+/g, ' ').slice(0, 200) });
      await shot(page, 'progress');
      // The status-bar entry during the episode: operator, percentage, evaluations.
      const running = page.locator('.statusbar-item').filter({ hasText: /add_custom \d+%/ });
      // Past the baseline if the episode gets there in time, so the entry shows real progress.
      await page.locator('.statusbar-item').filter({ hasText: /add_custom [1-9]\d*%/ }).first().waitFor({ timeout: 20_000 }).catch(() => undefined);
      await running.first().waitFor({ timeout: 10_000 }).then(
        async () => {
          emit('status-episode', { text: (await running.first().innerText()).replace(/\s+/g, ' ') });
          await shot(page, 'status-episode');
        },
        () => emit('status-episode-missed'),
      );
    },
    () => emit('progress-missed'),
  );

  // The suggestion: a notification with Review / Accept / Reject, and a status-bar entry that
  // stays while it is pending (info toasts time out into the notification center).
  const offer = toast('Review the paired diff');
  const entry = page.locator('.statusbar-item').filter({ hasText: '— Review' });
  await entry.first().waitFor({ timeout });
  if (args.sidebar) {
    // The AscendOptimizer view while the suggestion is pending: operators, the suggestion with
    // Review/Accept/Reject, the episodes, the bank.
    await page.locator('.activitybar a.action-label[aria-label="AscendOptimizer"]').first().click();
    const view = page.locator('.pane').filter({ hasText: 'Pending suggestions' });
    await view.first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(800);
    emit('sidebar', { text: (await view.first().innerText()).replace(/\s+/g, ' ').slice(0, 600) });
    await shot(page, 'sidebar');
  }
  const viaToast = await offer.first().waitFor({ timeout: 5_000 }).then(() => true, () => false);
  if (viaToast) {
    emit('suggestion', { via: 'notification', text: (await offer.first().innerText()).replace(/\s+/g, ' ') });
    await offer.first().getByRole('button', { name: 'Review' }).click();
  } else {
    emit('suggestion', { via: 'status bar', text: (await entry.first().innerText()).replace(/\s+/g, ' ') });
    await entry.first().click();
  }

  const diff = page.locator('.monaco-diff-editor');
  await diff.first().waitFor();
  const tabs = page.locator('.tab').filter({ hasText: 'current ↔ proposed' });
  await tabs.first().waitFor();
  emit('diff', { tabs: await tabs.allInnerTexts() });
  await page.waitForTimeout(800); // let the diff computation paint
  await shot(page, 'diff');

  const name = args.decision === 'accept' ? 'Accept suggestion' : 'Reject suggestion';
  await page.locator(`.editor-actions a.action-label[aria-label="${name}"]`).first().click();
  emit('clicked', { action: name });
  const done = args.decision === 'accept' ? toast('applied to') : toast('suggestion rejected');
  await done.first().waitFor({ timeout: 30_000 });
  emit('decided', { text: (await done.first().innerText()).replace(/\s+/g, ' ') });
  await tabs.first().waitFor({ state: 'detached', timeout: 10_000 });
  emit('diffs-closed');
  await shot(page, 'after');
  }
} catch (err) {
  failed = true;
  emit('error', { message: String(err && err.message ? err.message : err).slice(0, 2000) });
  await shot(page, 'failure').catch(() => undefined);
} finally {
  await browser.close();
}
emit('done', { ok: !failed });
process.exit(failed ? 1 : 0);
