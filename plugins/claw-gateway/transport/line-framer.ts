/** The gateway frames its socket with the shared bounded framer (also used by extension workers). */
export { LineFramer, type LineFramerEvents } from '../../../core/line-framer.js';
