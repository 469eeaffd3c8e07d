/**
 * Secrets taken out of text before it leaves the TUI (transcripts shown,
 * copied, exported or shared): well-known credential shapes, and the values
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
