import type { AgentTool, XdogPlugin } from 'xdog';

export declare function helloTool(): AgentTool<{ name: string }>;
declare const plugin: Readonly<XdogPlugin>;
export default plugin;
