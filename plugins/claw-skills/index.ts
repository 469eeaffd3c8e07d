/**
 * The `claw-skills` plugin: skills per claw session. The user lists, loads
 * and unloads skills (gateway methods `skills.*`, `xdog claw skills`); the
 * selection is stored with the session (a fork starts with its parent's)
 * and put into each run: session skills in the system prefix of every
 * request, turn skills in the next run only (docs/skills.md).
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { createSkillsService } from './service.js';

export { SkillsNotifications, createSkillsService, type SkillSummary, type SkillsView } from './service.js';
export { loadSkills, unloadSkills, type SkillSelection } from './selection.js';

export default definePlugin({
  name: 'claw-skills',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createSkillsService());
  }),
});
