import { z } from 'zod';

const jsonSchemaCache = new WeakMap<object, Record<string, unknown>>();

/**
 * True when `value` is a zod 4 schema (classic or mini): every zod 4 schema carries the `_zod` internals.
 *
 * @example
 * isZodSchema(z.object({})); // true
 * isZodSchema({ type: 'object' }); // false
 */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/**
 * The JSON Schema a model sees for a zod schema (input side, `$schema` removed), or `undefined` when the
 * schema cannot be represented (dates, functions, …) or is not an object schema. Memoized per schema.
 *
 * @example
 * toObjectJsonSchema(z.object({ city: z.string() })); // { type: 'object', properties: { city: … }, … }
 */
export function toObjectJsonSchema(schema: z.ZodType): Record<string, unknown> | undefined {
  const cached = jsonSchemaCache.get(schema);
  if (cached !== undefined) return cached;
  let converted: Record<string, unknown>;
  try {
    converted = { ...(z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>) };
  } catch {
    return undefined;
  }
  delete converted.$schema;
  if (converted.type !== 'object') return undefined;
  jsonSchemaCache.set(schema, converted);
  return converted;
}
