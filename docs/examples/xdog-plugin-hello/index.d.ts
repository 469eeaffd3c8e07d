import type { Token, XdogPlugin } from 'xdog';

export declare class GreeterImpl {
  agentsCreated: number;
  greet(name: string): string;
}
export declare const Greeter: Token<GreeterImpl>;
declare const plugin: Readonly<XdogPlugin>;
export default plugin;
