/** The commands' import path for the core's durable file publishing (the TUI's saved drafts use it too). */
export { writeAll, writeFileAtomic, type AtomicWriteOptions } from '../../../core/atomic-file.js';
