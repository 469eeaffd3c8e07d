import { Flags } from '@oclif/core';
import fs from 'node:fs';
import { eyesLocations } from '../../plugins/eyes/index.js';
import { XdogCommand } from '../base-command.js';

export default class EyesLogs extends XdogCommand {
  static override summary = "Print the end of the Eyes daemon's log";
  static override enableJsonFlag = true;
  static override flags = { lines: Flags.integer({ description: 'lines to print', default: 50, min: 1, max: 5000 }) };
  static override examples = ['<%= config.bin %> eyes logs', '<%= config.bin %> eyes logs --lines 200'];

  async run(): Promise<{ file: string; lines: string[] }> {
    const { flags } = await this.parse(EyesLogs);
    const file = eyesLocations().logFile;
    const lines = tailLines(file, flags.lines);
    if (!this.jsonEnabled()) this.log(lines.length ? lines.join('\n') : `(${file} is empty or missing)`);
    return { file, lines };
  }
}

/** The last `count` lines of `file`, read from at most its last 1 MiB (a missing file has none). */
function tailLines(file: string, count: number): string[] {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - 1024 * 1024);
    const buffer = Buffer.alloc(size - start);
    fs.readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').trimEnd().split('\n');
    return (start > 0 ? lines.slice(1) : lines).slice(-count).filter((line) => line !== '');
  } finally {
    fs.closeSync(fd);
  }
}
