// `xdog hello greet NAME`: a CLI command this plugin adds through oclif's plugin mechanism.
import { Args, XdogCommand } from 'xdog/command';

export default class HelloGreet extends XdogCommand {
  static summary = 'Greet someone by name';
  static args = { name: Args.string({ description: 'who to greet', required: true }) };
  static examples = ['<%= config.bin %> hello greet Ada'];

  async run() {
    const { args } = await this.parse(HelloGreet);
    this.log(`Hello, ${args.name}!`);
  }
}
