/** Column helpers shared by the claw entities. */
import type { ValueTransformer } from 'typeorm';

/** PostgreSQL returns bigint as a string; the store works in epoch-ms numbers. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
