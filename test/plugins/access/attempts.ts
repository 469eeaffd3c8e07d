/** The attempts both policy suites (read-only scope, plan mode) make, and a workspace snapshot to compare. */
import fs from 'node:fs';
import path from 'node:path';
import { REWRITE_MARK, type ToolAttempt } from './harness.js';

/** Mutating (or not allow-listed) attempts; each must be denied by the read-only gate. */
export function mutatingAttempts(workspace: string): Array<[string, ToolAttempt]> {
  const inside = (file: string) => path.join(workspace, file);
  return [
    ['bash writing a file', { name: 'bash', arguments: { command: 'echo pwned > pwned.txt' } }],
    ['bash that only reads', { name: 'bash', arguments: { command: 'cat notes.txt' } }],
    ['bash removing files', { name: 'bash', arguments: { command: 'rm -rf src' } }],
    ['write of a new file', { name: 'write', arguments: { path: 'pwned.txt', content: 'x' } }],
    ['write over an existing file', { name: 'write', arguments: { path: 'notes.txt', content: 'gone' } }],
    ['write outside the workspace', { name: 'write', arguments: { path: '../escape.txt', content: 'x' } }],
    ['write by absolute path', { name: 'write', arguments: { path: inside('abs.txt'), content: 'x' } }],
    ['edit of a file', { name: 'edit', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }],
    ['edit of source', { name: 'edit', arguments: { path: 'src/main.ts', old_text: 'needle', new_text: 'pin' } }],
    ['MCP write_file', { name: 'fs__write_file', arguments: { path: inside('mcp.txt'), content: 'x' } }],
    ['MCP edit_file', { name: 'fs__edit_file', arguments: { path: inside('notes.txt'), edits: [{ oldText: 'alpha', newText: 'beta' }] } }],
    ['MCP create_directory', { name: 'fs__create_directory', arguments: { path: inside('newdir') } }],
    ['MCP move_file', { name: 'fs__move_file', arguments: { source: inside('notes.txt'), destination: inside('moved.txt') } }],
    ['MCP tool the server marks read-only but the user did not list', { name: 'fs__list_allowed_directories', arguments: {} }],
    ['MCP read tool the user did not list', { name: 'fs__read_multiple_files', arguments: { paths: [inside('notes.txt')] } }],
    ['an extension tool', { name: 'touch', arguments: { file: 'touched.txt' } }],
    ['bash whose arguments a pre-hook rewrote to look harmless', { name: 'bash', arguments: { command: `echo pwned > rewritten.txt # ${REWRITE_MARK}` } }],
    ['MCP write whose arguments a pre-hook rewrote', { name: 'fs__write_file', arguments: { path: inside(`rw${REWRITE_MARK}.txt`), content: 'x' } }],
    ['bash in the background', { name: 'bash', arguments: { command: '(sleep 0; touch late.txt) &' } }],
    ['write of an empty file', { name: 'write', arguments: { path: 'empty.txt', content: '' } }],
    ['edit by absolute path', { name: 'edit', arguments: { path: inside('notes.txt'), old_text: 'needle', new_text: 'x' } }],
  ];
}

/** Reads that the scope allows, with a text each result must contain. */
export function allowedReads(workspace: string): Array<[ToolAttempt, string]> {
  return [
    [{ name: 'read', arguments: { path: 'notes.txt' } }, 'needle here'],
    [{ name: 'ls', arguments: { path: '.' } }, 'src/'],
    [{ name: 'grep', arguments: { pattern: 'needle' } }, 'main.ts'],
    [{ name: 'find', arguments: { pattern: '**/*.ts' } }, 'main.ts'],
    [{ name: 'current_time', arguments: {} }, '20'],
    [{ name: 'fs__read_text_file', arguments: { path: path.join(workspace, 'notes.txt') } }, 'needle here'],
    [{ name: 'fs__list_directory', arguments: { path: workspace } }, 'notes.txt'],
  ];
}

export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, entry);
    files[entry] = fs.statSync(full).isDirectory() ? '<dir>' : fs.readFileSync(full, 'utf8');
  }
  return files;
}
