/**
 * YAML documents turned into plain data, for every file a person writes
 * (config, Flow): aliases may not multiply data without bound (an alias bomb),
 * and a `__proto__` key is refused rather than dropped, since a JavaScript
 * object cannot hold it as data. Each problem comes with its line.
 */
import { isPair, isScalar, visit, type Document, type Node } from 'yaml';
import { LIMITS } from './limits.js';

/** Why a document could not become data, and where. */
export interface YamlDataProblem {
  /** The map keys leading to the problem (sequence positions left out), for a caller that names key paths. */
  path: PropertyKey[];
  /** Character offset in the text, for the caller's line counter. */
  offset: number;
  message: string;
  /** What to do about it. */
  hint: string;
}

/** The document's data, or the first problem that stops it from being data. */
export function yamlData(doc: Document): { data: unknown } | { problem: YamlDataProblem } {
  let problem: YamlDataProblem | undefined;
  visit(doc, {
    Pair(_key, pair, path) {
      if (!isScalar(pair.key) || pair.key.value !== '__proto__') return undefined;
      const keys = path.flatMap((node) => (isPair(node) && isScalar(node.key) ? [String(node.key.value)] : []));
      problem = {
        path: [...keys, '__proto__'],
        offset: pair.key.range?.[0] ?? 0,
        message: '"__proto__" cannot be used as a key',
        hint: 'rename that key',
      };
      return visit.BREAK;
    },
  });
  if (problem) return { problem };
  try {
    return { data: doc.toJS({ maxAliasCount: LIMITS.yamlAliasExpansions }) ?? {} };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let offset = 0;
    visit(doc, {
      Alias(_key, alias: Node) {
        offset = alias.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const bomb = /excessive alias count/i.test(error.message);
    return {
      problem: {
        path: [],
        offset,
        message: bomb ? `YAML aliases from this line on expand to more than ${LIMITS.yamlAliasExpansions} copies (an alias bomb)` : `YAML alias: ${error.message}`,
        hint: bomb ? 'write the data out instead of multiplying it through aliases' : 'fix the aliases from that line on',
      },
    };
  }
}
