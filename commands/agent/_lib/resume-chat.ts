/**
 * `agent chat --session NAME|ID`: resumes the saved chat of that name or id
 * (its conversation and read-only scope), or starts a new one under NAME,
 * written at its first save. The model given on the command line is the one
 * used; a different saved model is named, never silently switched back to.
 */
import type { Agent } from '../../../core/index.js';
import type { MemoryAccessScope } from '../../../plugins/access/index.js';
import type { Output } from './render.js';
import { SavedChats, type ChatHeader } from './saved-chats.js';

export async function resumeChat(key: string, agent: Agent, access: MemoryAccessScope, output: Output): Promise<{ store: SavedChats; header: ChatHeader }> {
  const store = new SavedChats();
  const found = store.find(key);
  if (!found) {
    const header = store.create(key, agent.config.model);
    output.stderr(`new chat "${header.name}": kept in ${store.fileOf(header.id)} after each run\n`);
    return { store, header };
  }
  const { header, snapshot } = store.read(found.id);
  const model = agent.config.model;
  agent.restore(snapshot);
  agent.setModel(model);
  access.set(header.readOnly ? 'read-only' : 'full');
  const switched = header.model === model ? '' : `; it was saved with ${header.model}, this run uses ${model}`;
  output.stderr(`resumed chat "${header.name}" (${header.messages} message(s), last used ${header.updatedAt}${header.readOnly ? ', read-only scope on' : ''}${switched})\n`);
  return { store, header };
}
