// The MCP conformance runner's client under test: xdog's McpRegistry (from
// dist/) over Streamable HTTP. The runner passes the server URL as the last
// argument and the scenario in MCP_CONFORMANCE_SCENARIO. The client connects,
// calls every tool it discovers once with arguments made from the tool's
// required properties, and disconnects. An elicitation is accepted as the form
// offers it (a person pressing Enter on every field: xdog fills the defaults);
// it grants nothing else: no sampling or OAuth (see expected-failures.yml).
import { McpRegistry } from '../../../../dist/plugins/mcp/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)';

const SAMPLE = { number: 1, integer: 1, string: 'xdog', boolean: true, array: [], object: {} };

function argumentsFor(schema) {
  const args = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = SAMPLE[Array.isArray(type) ? type[0] : type] ?? null;
  }
  return args;
}

const registry = new McpRegistry({ handlers: { elicit: async () => ({ action: 'accept', content: {} }) } });
registry.register('peer', { transport: 'http', url, timeout: 20 });
let failed = false;
try {
  await registry.connect('peer');
  for (const tool of registry.tools('peer')) {
    const result = await registry.callTool('peer', tool.name, argumentsFor(tool.inputSchema));
    process.stdout.write(`[${scenario}] ${tool.name}: ${result.isError ? 'error result' : 'ok'}\n`);
  }
} catch (error) {
  failed = true;
  process.stderr.write(`[${scenario}] ${error.message}\n`);
} finally {
  await registry.close();
}
process.exit(failed ? 1 : 0);
