/**
 * JSON Schema on ajv, shared by every validator in xdog (tool arguments,
 * submit_result, MCP schemas): which dialect a schema declares, an engine per
 * dialect, and one way to describe violations. No engine ever loads a remote
 * schema (there is no `loadSchema`).
 */
import type { Ajv, AnySchemaObject, ErrorObject } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import { linearRegExpEngine } from './linear-regex.js';

interface AjvClasses {
  Ajv: typeof Ajv;
  Ajv2019: typeof Ajv2019;
  Ajv2020: typeof Ajv2020;
  AjvDraft04: typeof Ajv;
  addFormats: (ajv: Ajv) => Ajv;
  draft06MetaSchema: AnySchemaObject;
}

let classes: AjvClasses | undefined;

/**
 * ajv and its add-ons, loaded on the first engine rather than at import:
 * most commands never validate a JSON Schema, and ajv is one of the heavier
 * packages to load. All of them are CommonJS, so a synchronous require works.
 */
function ajvClasses(): AjvClasses {
  if (!classes) {
    const require = createRequire(import.meta.url);
    const draft04 = require('ajv-draft-04') as { default?: typeof Ajv } & typeof Ajv;
    const formats = require('ajv-formats') as { default?: AjvClasses['addFormats'] } & AjvClasses['addFormats'];
    classes = {
      Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
      Ajv2019: (require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019,
      Ajv2020: (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020,
      AjvDraft04: draft04.default ?? draft04,
      addFormats: formats.default ?? formats,
      draft06MetaSchema: require('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject,
    };
  }
  return classes;
}

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
  const { Ajv, Ajv2019, Ajv2020, AjvDraft04, addFormats, draft06MetaSchema } = ajvClasses();
  const options = { strict: false, allErrors: true, logger: false as const, code: { regExp: linearRegExpEngine } };
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
export function describeViolations(errors: readonly Pick<ErrorObject, 'keyword' | 'instancePath' | 'message' | 'params'>[] | null | undefined, root = '(root)'): string {
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
