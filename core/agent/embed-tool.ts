/**
 * The `embed` tool: turns texts into embedding vectors through a function
 * the host injects (a provider's embeddings API). An Agent gets it only when
 * `AgentOptions.embed` is given; nothing here knows a vendor or a key.
 */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { AgentTool, AgentToolResult } from './tool-types.js';

/** Embeds `texts` in one request: one vector per text, in order. Rejects with an XdogError the model may read. */
export interface EmbedFunction {
  (texts: readonly string[], options: { signal: AbortSignal }): Promise<number[][]>;
  /** "provider/model", shown to the model in results. */
  readonly model: string;
}

/** What an `embed` call returns beside its text. */
export interface EmbedDetails {
  model: string;
  dimensions: number;
  vectors: number[][];
  /** Cosine similarity of every pair (i, j), when asked for. */
  similarity?: number[][];
}

const EmbedArgs = z.object({
  texts: z
    .array(z.string().min(1).refine((text) => Buffer.byteLength(text) <= LIMITS.embedTextBytes, `a text is at most ${LIMITS.embedTextBytes} bytes`))
    .min(1)
    .max(LIMITS.embedTexts)
    .describe(`The texts to embed (at most ${LIMITS.embedTexts}).`),
  similarity: z.boolean().optional().describe('Return the cosine similarity of every pair instead of the raw vectors (default false).'),
});

export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! ** 2;
    normB += b[index]! ** 2;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** The answer is checked before the model sees it: a vendor that returns the wrong count or ragged vectors fails the call. */
function checkVectors(vectors: unknown, count: number, model: string): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new XdogError(ErrorCodes.TOOL_FAILED, `${model} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${count} texts`);
  }
  const dimensions = Array.isArray(vectors[0]) ? vectors[0].length : 0;
  for (const vector of vectors) {
    if (!Array.isArray(vector) || vector.length === 0 || vector.length !== dimensions || !vector.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw new XdogError(ErrorCodes.TOOL_FAILED, `${model} returned a malformed vector (each must be ${dimensions || 'some'} finite numbers)`);
    }
  }
  return vectors as number[][];
}

const round = (value: number): number => Number(value.toPrecision(6));

export function createEmbedTool(embed: EmbedFunction): AgentTool<z.infer<typeof EmbedArgs>, EmbedDetails> {
  return {
    name: 'embed',
    description: `Turn texts into embedding vectors with ${embed.model}. With similarity: true, returns the cosine similarity of every pair (for ranking or de-duplicating texts) instead of the vectors.`,
    parameters: EmbedArgs,
    async execute(args, context): Promise<AgentToolResult<EmbedDetails>> {
      let vectors: number[][];
      try {
        vectors = checkVectors(await embed(args.texts, { signal: context.signal }), args.texts.length, embed.model);
      } catch (error) {
        return { content: [{ type: 'text', text: `Error: embedding with ${embed.model} failed: ${(error as Error).message}` }], isError: true };
      }
      const details: EmbedDetails = { model: embed.model, dimensions: vectors[0]!.length, vectors };
      if (args.similarity) {
        details.similarity = vectors.map((a) => vectors.map((b) => round(cosineSimilarity(a, b))));
        const text = JSON.stringify({ model: embed.model, dimensions: details.dimensions, similarity: details.similarity });
        return { content: [{ type: 'text', text }], details };
      }
      const text = JSON.stringify({ model: embed.model, dimensions: details.dimensions, vectors: vectors.map((vector) => vector.map(round)) });
      return { content: [{ type: 'text', text }], details };
    },
  };
}
