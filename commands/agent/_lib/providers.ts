/** A kernel with only the provider plugins, for commands that list or log in to providers. */
import { CredentialStoreToken, FileCredentialStore, bootKernel, modelRegistryFor, type CredentialStore, type Kernel, type ModelRegistry } from '../../../core/index.js';

/** The credential store a kernel uses (a host may bind its own), else the file store. */
export function credentialStoreOf(kernel: Kernel): CredentialStore {
  return kernel.isBound(CredentialStoreToken) ? kernel.get(CredentialStoreToken) : new FileCredentialStore();
}

export async function withProviders<T>(configFile: string | undefined, use: (registry: ModelRegistry, kernel: Kernel) => Promise<T> | T): Promise<T> {
  const kernel = await bootKernel({ configFile, filter: (plugin) => plugin.provides.providers.length > 0 });
  try {
    return await use(modelRegistryFor(kernel), kernel);
  } finally {
    await kernel.close();
  }
}
