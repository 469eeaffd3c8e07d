import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../core/config.js';

describe('mcp_servers config', () => {
  it('accepts stdio (transport defaults to stdio) and http servers', () => {
    const config = parseConfig(
      'mcp_servers:\n  files: { command: node, args: [x], env: { TOKEN: secret }, allow_tools: true, timeout: 5 }\n' +
        '  remote: { transport: http, url: "http://127.0.0.1:3/mcp", headers_env: { Authorization: TOK } }\n',
    );
    expect(config.mcp_servers?.files).toMatchObject({ transport: 'stdio', command: 'node', allow_tools: true });
    expect(config.mcp_servers?.remote).toMatchObject({ transport: 'http', headers_env: { Authorization: 'TOK' } });
  });

  it('names the line and key of an unknown key', () => {
    expect(() => parseConfig('mcp_servers:\n  a:\n    command: node\n    bogus: 1\n', 'c.yaml')).toThrow(
      /c\.yaml:4: mcp_servers\.a\.bogus: unknown key/,
    );
  });

  it('rejects bad server ids, unknown transports, missing urls and relative roots', () => {
    expect(() => parseConfig('mcp_servers:\n  "bad id!": { command: x }\n')).toThrow(/mcp_servers.*ASCII letters/);
    expect(() => parseConfig('mcp_servers:\n  a: { transport: ws, url: x }\n')).toThrow(/mcp_servers\.a\.transport/);
    expect(() => parseConfig('mcp_servers:\n  a: { transport: http }\n')).toThrow(/mcp_servers\.a\.url/);
    expect(() => parseConfig('mcp_servers:\n  a: { command: x, roots: [{ uri: "file:relative" }] }\n')).toThrow(
      /mcp_servers\.a\.roots\.0\.uri: must be an absolute file/,
    );
  });
});
