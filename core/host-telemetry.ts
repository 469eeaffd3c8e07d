/**
 * Handing a host's own telemetry on to inner kernels. Apart from telemetry.ts,
 * which gateway clients load (trace-context parsing) and which must not bring
 * the DI container with it.
 */
import { ContainerModule } from 'inversify';
import type { Kernel } from './kernel.js';
import { TelemetryHolderToken, type TelemetryHolder } from './telemetry.js';

/**
 * A module for a kernel built inside `kernel` for part of its work (a claw
 * group's kernel) that hands on the telemetry a host brought to `kernel`, in
 * a holder of its own, so the inner kernel's telemetry plugin can scope it
 * (the group). Undefined when `kernel` has no host telemetry: the inner
 * kernel then builds the config's pipeline itself (shared by reference count).
 */
export function hostTelemetryModule(kernel: Pick<Kernel, 'isBound' | 'get'>): ContainerModule | undefined {
  const holder = kernel.isBound(TelemetryHolderToken) ? kernel.get(TelemetryHolderToken) : undefined;
  const telemetry = holder?.hostProvided ? holder.current : undefined;
  if (!telemetry) return undefined;
  return new ContainerModule(({ bind, isBound, rebind }) => {
    const inner: TelemetryHolder = { current: telemetry, hostProvided: true };
    if (isBound(TelemetryHolderToken)) rebind(TelemetryHolderToken).toConstantValue(inner);
    else bind(TelemetryHolderToken).toConstantValue(inner);
  });
}
