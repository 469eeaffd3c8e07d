import fs from 'node:fs';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { writePrivateFile } from '../../../core/private-file.js';
import type { ChildInputRecord, ChildInputSource } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, inputNumber, readChildInput, renderInputs, withAgents } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export default class ClawAgentsRemoveInput extends XdogCommand {
  static override summary = "Take a running child's steer or follow-up out of its queue before its model takes it in";
  static override description =
    'The journal keeps it as removed. Refused (nothing changed) once the child took it in. With --return DIR its text and images are first read back whole (checked against their SHA-256) and written to new files in DIR, so nothing of it is lost.';
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }),
    input: Args.string({ description: 'the input number (#N in xdog claw agents inspect)', required: true }),
  };
  static override flags = {
    group: groupFlag,
    return: Flags.directory({ description: 'write its text (input-N.txt) and images (input-N-K.png|jpg|webp) to new files in this existing directory before removing it', exists: true }),
  };
  static override examples = ['<%= config.bin %> claw agents remove-input c-1a2b3c4d 3', '<%= config.bin %> claw agents remove-input --return ./returned c-1a2b3c4d 3'];

  async run(): Promise<ChildInputRecord[]> {
    const { args, flags } = await this.parse(ClawAgentsRemoveInput);
    const params = { group: flags.group, id: args.id, input: inputNumber(args.input) };
    if (!flags.return) {
      const inputs = await callAgents<ChildInputRecord[]>('agents.remove_input', params);
      if (!this.jsonEnabled()) this.log(renderInputs(inputs));
      return inputs;
    }
    const dir = flags.return;
    return withAgents(async (gateway) => {
      // The copy first, verified and on disk; only then the removal (a refused removal leaves the input queued and the copy kept).
      const written = writeReturned(dir, await readChildInput(gateway, flags.group, args.id, params.input));
      if (!this.jsonEnabled()) this.log(`input #${params.input} copied to ${written.join(', ')}`);
      const inputs = (await gateway.callService('agents.remove_input', params)) as ChildInputRecord[];
      if (!this.jsonEnabled()) this.log(renderInputs(inputs));
      return inputs;
    });
  }
}

/** The input's text and images as new private files in `dir` (none overwritten: an existing name refuses before anything is removed). */
function writeReturned(dir: string, source: ChildInputSource): string[] {
  const base = path.join(dir, `input-${source.input.id}`);
  const files = [{ file: `${base}.txt`, bytes: Buffer.from(source.input.text) }, ...source.input.images.map((image, index) => ({ file: `${base}-${index + 1}.${EXTENSIONS[image.mimeType] ?? 'bin'}`, bytes: Buffer.from(image.data, 'base64') }))];
  const written: string[] = [];
  try {
    for (const { file, bytes } of files) written.push(writePrivateFile(file, bytes));
  } catch (error) {
    // All or nothing: a partial copy would look like the whole input.
    for (const file of written) fs.rmSync(file, { force: true });
    throw error;
  }
  return written;
}
