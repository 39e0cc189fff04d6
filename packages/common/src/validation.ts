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
  // `null` and `""` are how the apps leave a field empty (`appForms`): for a field that needs a value, it is missing.
  return value === undefined || value === null || value === '';
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

/**
 * Validates params, query and body with the route's zod schemas (and applies their transforms). Input that fails
 * only because of how the apps write values is read as they mean it, once, in this one place (`appForms`).
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const location = LOCATIONS[httpPart ?? 'body'] ?? 'body';
  return (data: unknown) => {
    let result = schema.safeParse(data);
    let input = data;
    for (let round = 0; !result.success && round < 3; round++) {
      const read = appForms(input, result.error.issues);
      if (read === undefined) break;
      input = read;
      result = schema.safeParse(input);
    }
    return result.success ? { value: result.data } : { error: new RequestValidationError(result.error.issues, location, input) };
  };
};

const isIdKey = (key: PropertyKey | undefined) => typeof key === 'string' && (key === 'id' || key.endsWith('Id'));

const BOOLEAN_FORMS = new Map<unknown, boolean>([[0, false], [1, true], ['0', false], ['1', true], ['false', false], ['true', true]]);

/**
 * The apps' ways of writing values (DESIGN.md, the real apps' wire format), read where the schema refuses them:
 * `""` for an absent value (a new row's `id: ""`, an anonymous gift's `personId: ""`) becomes `null`, and an id
 * (`id`, `…Id`) that is `null` where the field takes none becomes absent, so `id: null` is a new row; `0`/`1` (and
 * `"true"`/`"false"`) are booleans; a number written as text is the number. Only the failing fields are touched, on a copy; `undefined` when none could be read so.
 * Valid input never comes here, so this costs nothing on the way of a well-formed request.
 */
function appForms(input: unknown, issues: z.core.$ZodIssue[]): unknown {
  let copy: unknown;
  let changed = false;
  for (const issue of issues.flatMap(allBranches)) {
    const path = issue.path;
    const value = valueAt(input, path);
    let next: unknown = value;
    if (value === '' && path.length) next = null;
    else if (value === null && isIdKey(path[path.length - 1])) next = undefined;
    else if (issue.code === 'invalid_type' && issue.expected === 'boolean' && BOOLEAN_FORMS.has(value)) next = BOOLEAN_FORMS.get(value);
    else if (issue.code === 'invalid_type' && issue.expected === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) next = Number(value);
    if (next === value) continue;
    copy ??= structuredClone(input);
    changed = setAt(copy, path, next) || changed;
  }
  return changed ? copy : undefined;
}

/** Every branch's issues of a union (a batch body's array and object forms), with paths from the root. */
function allBranches(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  return issue.errors.flat().flatMap((e) => allBranches({ ...e, path: [...issue.path, ...e.path] } as z.core.$ZodIssue));
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Sets (or, for `undefined`, removes) the value at `path`; false when the path does not lead to an object's own field. */
function setAt(root: unknown, path: PropertyKey[], value: unknown): boolean {
  let parent = root;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, last)) return false;
  if (value === undefined && !Array.isArray(parent)) delete (parent as Record<PropertyKey, unknown>)[last];
  else (parent as Record<PropertyKey, unknown>)[last] = value;
  return true;
}

const exactSchemas = new WeakSet<z.ZodType>();

/**
 * Marks a response schema whose values the route builds field by field in the schema's own order (a mapper
 * such as `toPerson` whose return type is the schema's output): they are written with `JSON.stringify`,
 * which gives the same text as the compiled serializer for such values. On large lists fast-json-stringify
 * builds the text from hundreds of thousands of small strings, several times slower (bench/results/
 * design-measurements.md). Under Jest (`NODE_ENV=test`) every such response
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
