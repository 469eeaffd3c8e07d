/**
 * JSON Schema on ajv, shared by every validator in xdog (tool arguments,
 * submit_result, MCP schemas): which dialect a schema declares, an engine per
 * dialect, and one way to describe violations. No engine ever loads a remote
 * schema (there is no `loadSchema`).
 */
import { Ajv, type AnySchemaObject, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { createRequire } from 'node:module';

// Both packages are CommonJS: under NodeNext a default import may be the module object.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ?? AjvDraft04Module) as unknown as typeof Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
const draft06MetaSchema = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject;

export type SchemaDialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';

const DIALECT_IDS: ReadonlyArray<[string, SchemaDialect]> = [
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft-06/schema', 'draft-06'],
  ['json-schema.org/draft-04/schema', 'draft-04'],
];

/** The dialect a `$schema` URI names (http or https, with or without a trailing `#`), or undefined for an unknown one. */
export function dialectOfUri(uri: string): SchemaDialect | undefined {
  const id = uri.replace(/^https?:\/\//, '').replace(/#$/, '');
  return DIALECT_IDS.find(([known]) => known === id)?.[1];
}

/**
 * A fresh engine for one dialect: every error reported (allErrors), formats
 * checked, and `strict: false` because real schemas carry annotations ajv
 * does not know (title, examples, vendor keys).
 */
export function createAjv(dialect: SchemaDialect): Ajv {
  const options = { strict: false, allErrors: true, logger: false as const };
  switch (dialect) {
    case '2020-12':
      return addFormats(new Ajv2020(options));
    case '2019-09':
      return addFormats(new Ajv2019(options));
    case 'draft-07':
      return addFormats(new Ajv(options));
    case 'draft-06': {
      const ajv = new Ajv(options);
      ajv.addMetaSchema(draft06MetaSchema);
      return addFormats(ajv);
    }
    case 'draft-04':
      return addFormats(new AjvDraft04(options));
  }
}

/** Violations shown before "and N more problems". */
const SHOWN_VIOLATIONS = 8;

/**
 * The first violations ajv found, one per `;`, and how many more there are
 * (never cut silently). `root` names the validated value when the path is empty.
 */
export function describeViolations(errors: readonly ErrorObject[] | null | undefined, root = '(root)'): string {
  const all = errors ?? [];
  const listed = all
    .slice(0, SHOWN_VIOLATIONS)
    .map((error) => {
      const extra = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : '';
      return `${error.instancePath || root} ${error.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
  return all.length > SHOWN_VIOLATIONS ? `${listed}; and ${all.length - SHOWN_VIOLATIONS} more problems` : listed;
}
