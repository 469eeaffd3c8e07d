/**
 * What the daemon answers for eyes_look, eyes_read and eyes_console: a
 * screenshot (viewport, full page or one element) with the title and URL, the
 * page's text or accessibility outline, and the events since the last call.
 * Every output is bounded; over a bound is an error that says how to ask for
 * less, never a cut.
 */
import type { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { EyesBrowser, PageEvent } from './browser.js';
import type { LookParams, ReadParams } from './protocol.js';

export interface LookResult {
  target: string;
  url: string;
  title: string;
  /** The PNG, base64. */
  png: string;
  width: number;
  height: number;
}

export async function look(browser: EyesBrowser, params: z.infer<typeof LookParams>, allowHosts: readonly string[]): Promise<LookResult> {
  const target = await browser.target(params.target, { allowHosts, workspace: params.workspace });
  if (params.viewport) await browser.act(target, 'resizing the viewport', target.page.setViewportSize(params.viewport));
  if (params.url !== undefined) await browser.navigate(target, params.url);
  browser.assertAllowed(target);
  const { page } = target;
  if (params.full_page) {
    const height = await browser.act(target, 'measuring the page', page.evaluate('document.documentElement.scrollHeight') as Promise<number>);
    if (height > LIMITS.eyesFullPageHeight) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the page is ${height} px tall, over the ${LIMITS.eyesFullPageHeight} px limit of a full-page screenshot`, { hint: 'take the viewport, or one element with a CSS selector' });
    }
  }
  const shot = params.selector
    ? browser.act(target, `taking a screenshot of ${params.selector}`, page.locator(params.selector).first().screenshot({ type: 'png', timeout: LIMITS.eyesActionMs }))
    : browser.act(target, 'taking a screenshot', page.screenshot({ type: 'png', fullPage: params.full_page ?? false, timeout: LIMITS.eyesActionMs }));
  const png = await shot;
  const limit = Math.min(LIMITS.eyesScreenshotBytes, params.max_bytes ?? Infinity);
  if (png.length > limit) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the screenshot is ${png.length} bytes, over the ${limit}-byte limit${params.max_bytes !== undefined && params.max_bytes < LIMITS.eyesScreenshotBytes ? ' of this model' : ''}`, {
      hint: 'ask for a smaller viewport, or one element with a CSS selector',
    });
  }
  const title = await browser.act(target, 'reading the title', page.title());
  return { target: target.name, url: page.url(), title, png: png.toString('base64'), width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export interface ReadResult {
  target: string;
  url: string;
  title: string;
  format: 'text' | 'outline';
  text: string;
}

export async function read(browser: EyesBrowser, params: z.infer<typeof ReadParams>, allowHosts: readonly string[]): Promise<ReadResult> {
  const target = params.url === undefined ? browser.existing(params.target) : await browser.target(params.target, { allowHosts, workspace: params.workspace });
  if (params.url !== undefined) await browser.navigate(target, params.url);
  browser.assertAllowed(target);
  const locator = target.page.locator(params.selector ?? 'body').first();
  const text =
    params.format === 'outline'
      ? await browser.act(target, 'reading the accessibility outline', locator.ariaSnapshot({ timeout: LIMITS.eyesActionMs }))
      : await browser.act(target, 'reading the text', locator.innerText({ timeout: LIMITS.eyesActionMs }));
  if (text.length > LIMITS.eyesReadChars) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the page's ${params.format} is ${text.length} characters, over the ${LIMITS.eyesReadChars}-character limit of one read`, {
      hint: 'read one part of it with a CSS selector',
    });
  }
  return { target: target.name, url: target.page.url(), title: await browser.act(target, 'reading the title', target.page.title()), format: params.format, text };
}

export function consoleEvents(browser: EyesBrowser, name: string): { target: string; status: 'open' | 'crashed'; events: PageEvent[]; dropped: number } {
  const target = browser.existing(name);
  return { target: name, status: target.status, ...browser.drainEvents(name) };
}
