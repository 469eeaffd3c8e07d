/**
 * Secrets taken out of text before it leaves the process (TUI transcripts shown,
 * copied, exported or shared; telemetry content; diagnostics bundles):
 * well-known credential shapes, and the values
 * of environment variables whose names say they hold one. This is a safety
 * net for the usual leaks, not a guarantee: review what you share.
 */
const PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g,
];

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** Values of secret-named environment variables (8 characters or more, so common words are never hit). */
export function environmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value!)
    .sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  for (const pattern of PATTERNS) out = out.replace(pattern, (match, scheme?: string) => (scheme && /^(Bearer|Basic)$/.test(scheme) ? `${scheme} [redacted]` : '[redacted]'));
  return out;
}

/**
 * Secret values a config leads to: the values of the environment variables
 * its `*_env` keys name, header values, and any value under a secret-named
 * key. Walked generically, so a new section's `api_key_env` is covered too.
 */
export function configSecrets(config: unknown, env: NodeJS.ProcessEnv = process.env): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > 12 || value === null || value === undefined) return;
    if (typeof value === 'string') {
      if (/_env$/i.test(key) && env[value] && env[value]!.length >= 8) found.add(env[value]!);
      else if (SECRET_NAME.test(key.replace(/[-_]/g, '')) || /^(authorization|x-api-key|cookie)$/i.test(key)) found.add(value);
      return;
    }
    if (Array.isArray(value)) return value.forEach((item) => visit(item, key, depth + 1));
    if (typeof value === 'object') {
      for (const [child, item] of Object.entries(value)) {
        // Under headers_env / url_env records the values are variable names.
        visit(item, /_env$/i.test(key) && typeof item === 'string' ? key : child, depth + 1);
        if (/^headers$/i.test(key) && typeof item === 'string' && item.length >= 8) found.add(item);
      }
    }
  };
  visit(config, '', 0);
  return [...found].filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
}
