/**
 * Adds or replaces one `claw.groups.NAME` in the config file through the YAML
 * Document API, so comments, key order and every other key and group stay as
 * they were. The result is validated as a whole before the file is replaced
 * atomically (0600, parent 0700); a refused change leaves the file untouched.
 */
import fs from 'node:fs';
import { parseDocument } from 'yaml';
import { parseConfig, type ClawGroupConfig } from '../../../core/config.js';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import { writeAll, writeFileAtomic } from './atomic-file.js';

export interface GroupWrite {
  file: string;
  name: string;
  group: ClawGroupConfig;
  /** Sets `claw.image_model` too (it serves every group). */
  imageModel?: string;
}

export interface GroupWriteResult {
  file: string;
  group: string;
  /** True when claw.default_group was set to this group (it is the first). */
  madeDefault: boolean;
  /** True when a group of that name was there before and was replaced. */
  replaced: boolean;
  /** The `claw.image_model` written, when one was. */
  imageModel?: string;
}

/** The config text after the change, validated; throws CONFIG_INVALID without writing anything. */
export function withGroup(text: string, change: GroupWrite): { text: string; madeDefault: boolean; replaced: boolean } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) parseConfig(text, change.file); // reports the syntax error with its line
  if (doc.contents !== null && typeof doc.toJS() !== 'object') {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `${change.file} is not a YAML mapping`, { hint: 'fix the file first' });
  }
  const replaced = doc.hasIn(['claw', 'groups', change.name]);
  const groups = doc.getIn(['claw', 'groups']) as { items?: unknown[] } | undefined;
  const madeDefault = !doc.hasIn(['claw', 'default_group']) && (groups?.items?.length ?? 0) === (replaced ? 1 : 0);
  doc.setIn(['claw', 'groups', change.name], doc.createNode(change.group));
  if (madeDefault) doc.setIn(['claw', 'default_group'], change.name);
  if (change.imageModel !== undefined) doc.setIn(['claw', 'image_model'], change.imageModel);
  const next = doc.toString();
  parseConfig(next, change.file);
  return { text: next, madeDefault, replaced };
}

export function readConfigText(file: string): string {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return '';
  if (stat.size > LIMITS.configFileBytes) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `${file} is ${stat.size} bytes, over the ${LIMITS.configFileBytes}-byte limit for a config file`);
  }
  return fs.readFileSync(file, 'utf8');
}

/** Writes the group into the file (created when missing). */
export async function writeGroup(change: GroupWrite): Promise<GroupWriteResult> {
  const before = readConfigText(change.file);
  const { text, madeDefault, replaced } = withGroup(before, change);
  await writeFileAtomic(change.file, (fd) => writeAll(fd, Buffer.from(text)), { overwrite: true, createParent: true });
  return { file: change.file, group: change.name, madeDefault, replaced, ...(change.imageModel !== undefined ? { imageModel: change.imageModel } : {}) };
}
