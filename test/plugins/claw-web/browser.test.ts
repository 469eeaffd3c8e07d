/** Which browser `xdog claw web open` starts: $BROWSER (a list, `%s` for the URL), `open` on macOS, xdg-open with a display, else none. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserCommands, openInBrowser } from '../../../plugins/claw-web/browser.js';
import { tempDir } from '../../support/temp.js';

const URL = 'http://127.0.0.1:7447/#token';

describe('claw web browser', () => {
  it('reads $BROWSER as sensible-browser does: a colon-separated list, %s standing for the URL', () => {
    expect(browserCommands(URL, { BROWSER: 'firefox --new-tab:chromium --app=%s' })).toEqual([
      { command: 'firefox', args: ['--new-tab', URL] },
      { command: 'chromium', args: [`--app=${URL}`] },
    ]);
    expect(browserCommands(URL, { BROWSER: 'whatever' }, 'darwin')).toEqual([{ command: 'whatever', args: [URL] }]);
  });

  it('without $BROWSER: open on macOS, xdg-open only with a display to show the page', () => {
    const bin = tempDir('xdog-browser-');
    const xdgOpen = path.join(bin, 'xdg-open');
    fs.writeFileSync(xdgOpen, '#!/bin/sh\n', { mode: 0o755 });
    expect(browserCommands(URL, { PATH: bin }, 'darwin')).toEqual([{ command: 'open', args: [URL] }]);
    expect(browserCommands(URL, { PATH: bin, DISPLAY: ':0' }, 'linux')).toEqual([{ command: xdgOpen, args: [URL] }]);
    expect(browserCommands(URL, { PATH: bin }, 'linux')).toEqual([]);
    expect(browserCommands(URL, { PATH: '/nonexistent', WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toEqual([]);
  });

  it('goes on to the next command when one cannot be started, and gives up (print the link) when none can', async () => {
    const bin = tempDir('xdog-browser-');
    const ok = path.join(bin, 'ok-browser');
    fs.writeFileSync(ok, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(await openInBrowser(URL, { PATH: bin, BROWSER: `${path.join(bin, 'missing')}:${ok}` })).toBe(ok);
    expect(await openInBrowser(URL, { PATH: bin, BROWSER: path.join(bin, 'missing') })).toBeNull();
  });
});
