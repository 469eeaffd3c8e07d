import path from 'node:path';
import { Flags } from '@oclif/core';
import { describeError } from '../../core/errors.js';
import { gatewayLocations } from '../../plugins/claw-gateway/locations.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/client.js';
import { XdogCommand } from '../base-command.js';
import { withGateway } from './_lib/gateway.js';

export interface ClawDoctorResult {
  file: string;
  gatewayRunning: boolean;
}

type RecentRun = { group: string; status: string; startedAt: number; endedAt: number; sessionId: string };

async function gatewayFacts(): Promise<{ status?: unknown; runs?: RecentRun[]; error?: string }> {
  try {
    return await withGateway(async (gateway: GatewayConnection) => {
      const status = await gateway.call('gateway.status', {});
      const groups = (status as { groups?: Array<{ name: string }> }).groups ?? [];
      const runs: RecentRun[] = [];
      if (gateway.hello.capabilities.some((capability) => capability.startsWith('runs:'))) {
        for (const group of groups) runs.push(...((await gateway.callService('runs.list', { group: group.name, limit: 50 })) as { runs: RecentRun[] }).runs);
      }
      return { status, runs };
    });
  } catch (error) {
    return { error: describeError(error) };
  }
}

export default class ClawDoctor extends XdogCommand {
  static override summary = 'Write a diagnostics bundle to attach to an issue: versions, config (secrets redacted), gateway status, log tail, store integrity, slowest runs';
  static override description =
    'The bundle is a JSON file created with mode 0600 (never over an existing file). Values of the environment variables the config names, secret-named config values and credential-shaped strings are replaced by [redacted]; read it before you share it.';
  static override aliases = ['bug-report'];
  static override enableJsonFlag = true;
  static override flags = {
    output: Flags.string({ char: 'o', description: 'the file to write (default: ./xdog-diagnostics-<time>.json)' }),
  };
  static override examples = ['<%= config.bin %> claw doctor', '<%= config.bin %> bug-report --output /tmp/xdog-bug.json'];

  async run(): Promise<ClawDoctorResult> {
    const { flags } = await this.parse(ClawDoctor);
    const { config, file: configFile } = await this.loadConfig(flags);
    const { collectDiagnostics, bundleText, writeBundle } = await import('../../plugins/telemetry/diagnostics.js');
    const { clawStoreLocation, describeClawStore } = await import('../../entities/claw-store-location.js');
    let store: { type: 'sqlite'; file: string } | { type: 'postgres'; described: string };
    try {
      const location = clawStoreLocation(config.claw?.store);
      store = location.type === 'sqlite' ? location : { type: 'postgres', described: describeClawStore(location) };
    } catch (error) {
      store = { type: 'postgres', described: `unreadable: ${describeError(error)}` };
    }
    const gateway = await gatewayFacts();
    const bundle = await collectDiagnostics({ config, ...(configFile ? { configFile } : {}), gateway, logFile: gatewayLocations().logFile, store });
    const file = path.resolve(flags.output ?? `xdog-diagnostics-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeBundle(file, bundleText(bundle, config));
    if (!this.jsonEnabled()) this.log(`wrote ${file} (mode 0600); read it before you attach it to an issue`);
    return { file, gatewayRunning: gateway.error === undefined };
  }
}
