import fastJson from 'fast-json-stringify';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema';
import { z } from 'zod';
import type { ErrorItem } from './errors';

const LOCATIONS: Record<string, string> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' };

/** A failed request validation, carrying zod's issues for the error handler. */
export class RequestValidationError extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_VALIDATION';
  constructor(
    readonly issues: z.core.$ZodIssue[],
    readonly location: string,
    /** what was sent, to tell a missing field from a wrong one */
    readonly input?: unknown,
  ) {
    super('request validation failed');
  }

  /** The spec's validation body: one `{msg, param, location}` per problem, in words a person can act on. */
  toErrors(): ErrorItem[] {
    return this.issues.flatMap(unwrapUnion).map((issue) => {
      const param = paramName(issue);
      return { msg: isMissing(issue, this.input) ? `${param || this.location} is required` : issue.message, param, location: this.location };
    });
  }
}

/** A type error about a field that was not sent at all ("`firstName` is required", not "expected string"). */
function isMissing(issue: z.core.$ZodIssue, input: unknown): boolean {
  if (issue.code !== 'invalid_type') return false;
  let value = input;
  for (const key of issue.path) {
    if (value === null || typeof value !== 'object') return false;
    value = (value as Record<PropertyKey, unknown>)[key as PropertyKey];
  }
  return value === undefined;
}

/**
 * A batch body (`batchOf`: an array or one object) fails as a union; report the issues of the branch the
 * input was shaped like (the one that got past the top-level type check), so `param` names the field.
 */
function unwrapUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  const branch = issue.errors.find((errs) => errs.length && !errs.every((e) => e.code === 'invalid_type' && e.path.length === 0));
  if (!branch) return [issue];
  return branch.flatMap((e) => unwrapUnion({ ...e, path: [...issue.path, ...e.path] } as z.core.$ZodIssue));
}

/** `[0].firstName` for batch items, `contactInfo.email` for nested fields, like express-validator. */
function paramName(issue: z.core.$ZodIssue): string {
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]!);
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** Validates params, query and body with the route's zod schemas (and applies their transforms). */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const location = LOCATIONS[httpPart ?? 'body'] ?? 'body';
  return (data: unknown) => {
    const result = schema.safeParse(data);
    return result.success ? { value: result.data } : { error: new RequestValidationError(result.error.issues, location, data) };
  };
};

const exactSchemas = new WeakSet<z.ZodType>();

/**
 * Marks a response schema whose values the route builds field by field in the schema's own order (a mapper
 * such as `toPerson` whose return type is the schema's output): they are written with `JSON.stringify`,
 * which gives the same text as the compiled serializer for such values. On large lists fast-json-stringify
 * builds the text from hundreds of thousands of small strings: 10,000 people took 190 ms, 140 of them
 * garbage collection, against 65 ms for `JSON.stringify`. Under Jest (`NODE_ENV=test`) every such response
 * is also written by the compiled serializer and a difference fails the request, so tests keep the promise.
 */
export function exactShape<T extends z.ZodType>(schema: T): T {
  exactSchemas.add(schema);
  return schema;
}

/**
 * Serializes responses with a stringifier compiled from the zod schema (fast-json-stringify): only declared
 * fields leave the service, so a password hash or a gateway secret never leaks by accident.
 */
export const zodSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  const compiled = fastJson(responseJsonSchema(schema) as Parameters<typeof fastJson>[0]);
  if (!exactSchemas.has(schema)) return compiled;
  if (process.env.NODE_ENV !== 'test') return (value: unknown) => JSON.stringify(value);
  return (value: unknown) => {
    const text = JSON.stringify(value);
    if (text !== compiled(value)) throw new Error('response does not have the exact shape of its schema (exactShape)');
    return text;
  };
};

/** The JSON Schema a response serializer is compiled from (exported for tests). */
export function responseJsonSchema(schema: z.ZodType): unknown {
  const jsonSchema = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    target: 'draft-7',
    // zod's `date` has no JSON Schema form; as a date-time string fast-json-stringify writes `toISOString()`.
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
    },
  });
  return relax(jsonSchema);
}

/**
 * Drops `required` so an absent optional column is omitted rather than failing the response, and turns
 * `anyOf: [{type: X}, {type: 'null'}]` (a nullable date, object or array) into `type: [X, 'null']`:
 * fast-json-stringify serializes an `anyOf` by running ajv on every value, many times slower.
 */
function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    // `required` as a keyword is a list of names; a property that happens to be called `required` is an object.
    if ((k === 'required' && Array.isArray(v)) || k === '$schema') continue;
    out[k] = relax(v);
  }
  return nullableType(out);
}

function nullableType(node: Record<string, unknown>): Record<string, unknown> {
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length !== 2 || Object.keys(node).length !== 1) return node;
  const isNull = (o: Record<string, unknown>) => o.type === 'null' && Object.keys(o).length === 1;
  const [a, b] = options as Array<Record<string, unknown>>;
  const value = isNull(b!) ? a! : isNull(a!) ? b! : undefined;
  if (!value || typeof value.type !== 'string' || value.anyOf || value.oneOf || value.allOf) return node;
  return { ...value, type: [value.type, 'null'] };
}
