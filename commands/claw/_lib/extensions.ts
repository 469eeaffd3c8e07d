/** Renders extension states for people (shared with the TUI and the chat's `/extensions`). */
export { renderExtensions } from '../../../plugins/extensions/index.js';
