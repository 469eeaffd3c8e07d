// Extensions, channels and MCP servers of the gateway: each read only when hello lists its method.
import { call, type Hello } from '../api';
import { ErrorLine, useLoad } from '../ui';

function Rows({ rows, columns }: { rows: any[]; columns: string[] }) {
  if (!rows.length) return <p>None.</p>;
  return (
    <table>
      <thead><tr>{columns.map((column) => <th key={column}>{column}</th>)}</tr></thead>
      <tbody>{rows.map((row, index) => <tr key={index}>{columns.map((column) => <td key={column}>{typeof row[column] === 'object' && row[column] !== null ? JSON.stringify(row[column]) : String(row[column] ?? '')}</td>)}</tr>)}</tbody>
    </table>
  );
}

export function StatusPage({ group, hello }: { group: string; hello: Hello }) {
  const has = (method: string): boolean => hello.methods.includes(method);
  const extensions = useLoad(() => (has('extensions.list') ? call<any[]>('extensions.list', { group }) : Promise.resolve(null)), [group]);
  const channels = useLoad(() => (has('channels.status') ? call<any[]>('channels.status', {}) : Promise.resolve(null)), []);
  const mcp = useLoad(() => (has('mcp.list') ? call<any[]>('mcp.list', { group }) : Promise.resolve(null)), [group]);
  return (
    <section aria-label="extensions and channels">
      <h1>Extensions, channels and MCP servers</h1>
      <ErrorLine error={extensions.error ?? channels.error ?? mcp.error} />
      <h2>Extensions of {group}</h2>
      {extensions.value ? <Rows rows={extensions.value} columns={['id', 'state', 'source', 'error']} /> : <p>Not offered by this gateway.</p>}
      <h2>Channels</h2>
      {channels.value ? <Rows rows={channels.value} columns={['id', 'type', 'state', 'group', 'error']} /> : <p>Not offered by this gateway.</p>}
      <h2>MCP servers of {group}</h2>
      {mcp.value ? <Rows rows={mcp.value} columns={['id', 'transport', 'state', 'tools', 'error']} /> : <p>Not offered by this gateway.</p>}
      <h2>Capabilities</h2>
      <p>{hello.capabilities.join(', ')}</p>
    </section>
  );
}
