/** How claw commands reach the gateway: one connection per command, closed when it is done. */
import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { connectGateway, type GatewayConnection } from '../../../plugins/claw-gateway/client.js';
import type { GroupStatus } from '../../../plugins/claw-gateway/protocol.js';

/** `--group`, shared by the commands that act on one group. */
export const groupFlag = Flags.string({ char: 'g', description: 'the group (default: claw.default_group, else the only group)' });

/** `--expect`, for controls that change the active session. */
export const expectFlag = Flags.string({
  description: 'the active-session id you expect (default: the one group.status reports just before); "none" when there is none',
});

/** The gateway's `hello` answer. */
export type GatewayHello = GatewayConnection['hello'];

/**
 * Connects to the gateway (its socket and token are found from the XDG
 * directories, not the config file), runs `use`, closes.
 */
export async function withGateway<T>(use: (gateway: GatewayConnection) => Promise<T>): Promise<T> {
  const gateway = await connectGateway();
  try {
    return await use(gateway);
  } finally {
    await gateway.close();
  }
}

export async function groupStatus(gateway: GatewayConnection, group: string | undefined): Promise<GroupStatus> {
  return (await gateway.call('group.status', { group })) as GroupStatus;
}

/**
 * The active-session id a state-changing control must carry: `--expect` when
 * given ("none" for no active session), else the one the gateway reports now.
 * A control that races another client is then refused (STALE), never applied
 * to a session the user did not see.
 */
export async function expectedSession(gateway: GatewayConnection, group: string | undefined, expect: string | undefined): Promise<string | null> {
  if (expect !== undefined) return expect === 'none' ? null : expect;
  return (await groupStatus(gateway, group)).activeSessionId;
}

/** A `hello` probe for start: the gateway's answer, or undefined while none answers (UNAVAILABLE). */
export function helloProbe(): () => Promise<GatewayHello | undefined> {
  return async () => {
    try {
      const gateway = await connectGateway();
      await gateway.close();
      return gateway.hello;
    } catch (error) {
      if (XdogError.is(error, ErrorCodes.UNAVAILABLE)) return undefined;
      throw error;
    }
  };
}
