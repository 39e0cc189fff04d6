/**
 * The OpenAPI document every module serves at `/<module>/docs/json` (and the gateway's Swagger UI lists at `/docs`).
 *
 * The routes already carry what a document needs: zod schemas (converted here to JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1, recursive schemas hoisted under `components.schemas`) and their access (`config.access`).
 * The spec supplies the rest (`spec-routes.json`, written from the spec's `routes.json` by `scripts/spec-routes.ts`):
 * each route gets its spec table as tag, a summary and description from the spec's Description cell, its access in
 * words, an `operationId`, the bearer security requirement (Swagger UI's Authorize button) or `security: []` when
 * public, and the error responses (400, 401, 404) in the one error shape `{errors:[{msg,param,location}]}`.
 * Internal routes (`access: 'internal'`, signed, never forwarded by the gateway) stay out of the document.
 *
 * `scripts/lint-openapi.ts` lints every module's document with Redocly's recommended rules.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Access } from '@church/auth';
import specRouteRows from './spec-routes.json';

/** A spec row as `scripts/spec-routes.ts` writes it. */
export interface SpecRoute {
  method: string;
  path: string;
  /** the spec table the route is listed in: the document's tag */
  table: string;
  description: string;
  auth: 'JWT' | 'Public' | 'Internal';
  permission: string | null;
}

export const specRoutes = specRouteRows as SpecRoute[];

type Json = Record<string, unknown>;
type Operation = OpenAPIV3_1.OperationObject;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export const BEARER = 'bearer';
export const ERROR_SCHEMA = 'Errors';
const MESSAGE_SCHEMA = 'ErrorMessages';
const ERROR_RESPONSES = { 400: 'BadRequest', 401: 'Unauthorized', 404: 'NotFound' } as const;

/** The reusable parts every module's document shares: the error body, its responses, the bearer scheme. */
export function sharedComponents(): OpenAPIV3_1.ComponentsObject {
  return {
    securitySchemes: {
      [BEARER]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'The `token` of the login response (`POST /membership/users/login`), sent as `Authorization: Bearer <token>`.',
      },
    },
    schemas: {
      ErrorItem: {
        type: 'object',
        description: 'One problem with the request.',
        properties: {
          msg: { type: 'string', description: 'What is wrong, in words.' },
          param: { type: 'string', description: 'The field at fault: `email`, `[2].campusId` for the third item of a batch, `id` for a path parameter.' },
          location: { type: 'string', description: 'Where the field is: `body`, `query` or `params`.' },
        },
        required: ['msg'],
      },
      [ERROR_SCHEMA]: {
        type: 'object',
        description: 'The body of a 400 answer: one item per problem, each naming its field.',
        properties: { errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorItem' } } },
        required: ['errors'],
      },
      [MESSAGE_SCHEMA]: {
        type: 'object',
        description: 'The body of every other error answer: sentences to show the person, the first one first.',
        properties: { errors: { type: 'array', items: { type: 'string' } } },
        required: ['errors'],
      },
    },
    responses: {
      [ERROR_RESPONSES[400]]: errorResponse('Bad input: the errors name each field at fault (`param`, `location`).'),
      [ERROR_RESPONSES[401]]: errorResponse('No valid bearer token, or the token lacks the permission the route requires.', MESSAGE_SCHEMA),
      [ERROR_RESPONSES[404]]: errorResponse('Not found: the record named in the path or body does not exist in your church.', MESSAGE_SCHEMA),
    },
  };
}

function errorResponse(description: string, schema = ERROR_SCHEMA): OpenAPIV3_1.ResponseObject {
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
}

// ---------------------------------------------------------------------------------------------------------------
// The spec lookup

const paramShape = (path: string) =>
  path
    .toLowerCase()
    .split('/')
    .map((segment) => (segment.includes(':') ? ':' : segment))
    .join('/');

let index: { exact: Map<string, SpecRoute>; shape: Map<string, SpecRoute>; bySegment: Map<string, string>; tableOrder: Map<string, number> } | undefined;

function specIndex() {
  if (index) return index;
  const exact = new Map<string, SpecRoute>();
  const shape = new Map<string, SpecRoute>();
  const segmentTables = new Map<string, Map<string, number>>();
  for (const row of specRoutes) {
    exact.set(`${row.method} ${row.path.toLowerCase()}`, row);
    const key = `${row.method} ${paramShape(row.path)}`;
    if (!shape.has(key)) shape.set(key, row);
    const segment = firstSegments(row.path);
    const counts = segmentTables.get(segment) ?? new Map<string, number>();
    counts.set(row.table, (counts.get(row.table) ?? 0) + 1);
    segmentTables.set(segment, counts);
  }
  // a route the spec does not list is tagged with the table most of its resource's routes are in
  const bySegment = new Map([...segmentTables].map(([segment, counts]) => [segment, [...counts].sort((a, b) => b[1] - a[1])[0][0]]));
  const tableOrder = new Map<string, number>();
  for (const row of specRoutes) if (!tableOrder.has(row.table)) tableOrder.set(row.table, tableOrder.size);
  index = { exact, shape, bySegment, tableOrder };
  return index;
}

/** `/membership/people/:id` → `/membership/people`: the module and resource a route belongs to. */
const firstSegments = (path: string) => path.toLowerCase().split('/').slice(0, 3).join('/');

/**
 * The spec row of a registered route: by method and path case-insensitively, then by the path's shape where only
 * the parameter names differ (`:startVerseKey-:endVerseKey` against `:range`).
 */
export function specRouteOf(method: string, url: string): SpecRoute | undefined {
  const { exact, shape } = specIndex();
  const m = method.toUpperCase();
  const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
  return exact.get(`${m} ${path.toLowerCase()}`) ?? shape.get(`${m} ${paramShape(path)}`);
}

/** The tag of a route the spec does not list: its resource's table, else its resource (second path segment). */
export function fallbackTag(url: string): string {
  const { bySegment } = specIndex();
  const table = bySegment.get(firstSegments(url));
  if (table) return table;
  const segment = url.split('/').filter(Boolean)[1] ?? url.split('/').filter(Boolean)[0] ?? 'default';
  // The same resource served under another module's prefix too (the apps' `/membership/campuses`): its spec table.
  const elsewhere = [...bySegment].find(([path]) => path.split('/')[2] === segment.toLowerCase());
  return elsewhere ? elsewhere[1] : segment.replace(/^:/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Words: summaries, descriptions, access, operation ids

/** Descriptions that say nothing without their table: `by id`, `of a plan`, `all`, `create or update`, `current user's`. */
const GENERIC = /^(?:(?:by|of)\b.*|all|list|delete(?: by id| record)?|search|save(?: \(batch\))?|create or update|partial update|current user's)$/i;

/**
 * A short summary from the spec's Description cell: its first clause that says what the route does; a terse one
 * (`by id`, `create or update`) is prefixed by what it is about (`Campuses: by id`).
 */
export function summaryOf(description: string, table?: string, url?: string): string {
  const clauses = description
    .split(/;\s+|\.\s+(?=[A-Z])/)
    .map((c) => c.trim().replace(/\.$/, ''))
    .filter(Boolean);
  const clause = clauses.find((c) => !/^(body|query|params?|path|returns?|answers?)\b/i.test(c)) ?? clauses[0] ?? description;
  const short = clause.length <= 120 ? clause : `${clause.slice(0, 117).replace(/\s+\S*$/, '')}…`;
  const about = table && !table.includes(',') ? table : url?.split('/').filter(Boolean)[1];
  const text = about && GENERIC.test(short) ? `${about}: ${short}` : short;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The route's access in words, as the document's description says it. */
export function accessInWords(access: Access | undefined): string {
  if (access === 'public') return '**Access:** public; no token needed.';
  if (access === 'internal') return '**Access:** internal; signed service-to-service calls only.';
  if (!access || access.text === '—' || access.text === '') return '**Access:** any signed-in user of the church (bearer token; no particular permission).';
  return `**Access:** bearer token with permission \`${access.text}\`.`;
}

/** `GET /membership/people/:id` → `getMembershipPeopleById`. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const params = segment.match(/:[A-Za-z0-9_]+/g);
      if (params) return `By${params.map((p) => pascal(p.slice(1))).join('')}${pascal(segment.replace(/:[A-Za-z0-9_]+/g, ''))}`;
      return pascal(segment);
    });
  return `${method.toLowerCase()}${words.join('')}`;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

const singular = (word: string) => (/children$/i.test(word) ? word.replace(/ren$/i, '') : /ies$/i.test(word) ? word.replace(/ies$/i, 'y') : word.replace(/([^s])s$/i, '$1'));

// ---------------------------------------------------------------------------------------------------------------
// zod → JSON Schema 2020-12, with recursive and named schemas hoisted under components.schemas

type Io = 'input' | 'output';

/** Schemas hoisted out of route schemas while one document is built; taken by `transformObject`. */
class Hoisted {
  readonly schemas: Record<string, Json> = {};
  private readonly bySignature = new Map<string, string>();

  /** Moves a converted schema's `$defs` to `components.schemas` (deduplicated) and rewrites its references. */
  take(schema: Json, io: Io, hint: string): Json {
    const defs = schema.$defs as Record<string, Json> | undefined;
    delete schema.$defs;
    delete schema.$schema;
    delete schema.$id;
    if (JSON.stringify(schema).includes('"$ref":"#"')) return this.takeRecursiveRoot(schema, defs, io, hint);
    if (!defs) return schema;
    const whole = JSON.stringify(defs);
    const names = new Map<string, string>();
    for (const local of Object.keys(defs)) {
      const signature = `${io} ${local} ${whole}`;
      let name = this.bySignature.get(signature);
      if (!name) {
        const base = /^__schema\d+$/.test(local) ? pascal(singular(referencingKey(schema, local) ?? hint)) || 'Schema' : pascal(local);
        name = `${base}${io === 'input' ? 'Input' : ''}`;
        for (let n = 2; this.schemas[name]; n++) name = `${base}${n}${io === 'input' ? 'Input' : ''}`;
        this.schemas[name] = {};
        this.bySignature.set(signature, name);
      }
      names.set(local, name);
    }
    const rewrite = (text: string) =>
      JSON.parse(text.replace(/"#\/\$defs\/([^"]+)"/g, (_m, local: string) => JSON.stringify(`#/components/schemas/${names.get(decodeURIComponent(local)) ?? local}`))) as Json;
    for (const [local, def] of Object.entries(defs)) {
      const name = names.get(local)!;
      if (!Object.keys(this.schemas[name]).length) this.schemas[name] = rewrite(JSON.stringify(def));
    }
    return rewrite(JSON.stringify(schema));
  }

  /** A schema that refers to itself as a whole (`$ref: "#"`): hoisted itself, and referred to. */
  private takeRecursiveRoot(schema: Json, defs: Record<string, Json> | undefined, io: Io, hint: string): Json {
    const signature = `${io} # ${JSON.stringify(schema)} ${JSON.stringify(defs ?? {})}`;
    let name = this.bySignature.get(signature);
    if (!name) {
      const base = pascal(singular(hint)) || 'Schema';
      name = `${base}${io === 'input' ? 'Input' : ''}`;
      for (let n = 2; this.schemas[name]; n++) name = `${base}${n}${io === 'input' ? 'Input' : ''}`;
      this.bySignature.set(signature, name);
      const ref = JSON.stringify(`#/components/schemas/${name}`);
      const self = JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#"/g, `"$ref":${ref}`)) as Json;
      if (defs) self.$defs = JSON.parse(JSON.stringify(defs).replace(/"\$ref":"#"/g, `"$ref":${ref}`));
      this.schemas[name] = {};
      this.schemas[name] = this.take(self, io, hint);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

/** The property under which a local definition is first referenced (`elements` of a page tree). */
function referencingKey(node: unknown, local: string, name?: string): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = referencingKey(item, local, name);
      if (found) return found;
    }
    return undefined;
  }
  const obj = node as Json;
  if (obj.$ref === `#/$defs/${local}`) return name;
  for (const [key, value] of Object.entries(obj)) {
    if (key === '$defs') continue;
    const found =
      key === 'properties' && value && typeof value === 'object'
        ? Object.entries(value as Json).reduce<string | undefined>((hit, [prop, s]) => hit ?? referencingKey(s, local, prop), undefined)
        : referencingKey(value, local, name);
    if (found) return found;
  }
  return undefined;
}

function isZod(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType || (!!value && typeof value === 'object' && '_zod' in value);
}

/** A route's zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect); other values pass through. */
function toJsonSchema(value: unknown, io: Io, hoisted: Hoisted, hint: string): Json {
  if (!isZod(value)) return value as Json;
  const json = z.toJSONSchema(value, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
    override(ctx) {
      const def = (ctx.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      // dates travel as ISO strings both ways
      if (def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
      if (def.type === 'undefined' && io === 'output') ctx.jsonSchema.type = 'null';
    },
  }) as Json;
  return hoisted.take(anyValue(json) as Json, io, hint);
}

/** A union with an "any value" branch (`unknown().nullable()`) accepts any value: say so plainly (`{}`). */
function anyValue(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anyValue);
  if (!node || typeof node !== 'object') return node;
  const obj = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, anyValue(v)])) as Json;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(obj[key]) && (obj[key] as Json[]).some((b) => b && typeof b === 'object' && Object.keys(b).length === 0)) delete obj[key];
  }
  return obj;
}

/**
 * Fastify's parameter containers (path, query, headers) must be an object of named properties. A union of
 * objects becomes the object of all their properties (required where every branch requires it); a free-form
 * record (`?anything=`) becomes one exploded object parameter.
 */
function asParameterObject(schema: Json, name: string): Json {
  if (schema.properties) return schema;
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Json[] | undefined;
  if (branches?.every((b) => b.properties)) {
    const properties = Object.assign({}, ...branches.map((b) => b.properties)) as Json;
    const requiredSets = branches.map((b) => new Set((b.required as string[] | undefined) ?? []));
    const required = schema.allOf
      ? [...new Set(requiredSets.flatMap((s) => [...s]))]
      : Object.keys(properties).filter((p) => requiredSets.every((s) => s.has(p)));
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  }
  return { type: 'object', properties: { [name]: { ...schema, type: 'object', description: schema.description ?? `Any ${name} as name=value pairs.` } } };
}

// ---------------------------------------------------------------------------------------------------------------
// The @fastify/swagger hooks

type TransformInput = Parameters<NonNullable<FastifyDynamicSwaggerOptions['transform']>>[0];
type TransformObjectInput = Parameters<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>[0];

/** The `app.register(swagger, …)` options of a module's app. */
export function swaggerOptions(module: string, tagDescriptions: Readonly<Record<string, string>> = {}): FastifyDynamicSwaggerOptions {
  let hoisted = new Hoisted();
  const tags = new Map<string, string>();
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${module} API`,
        version: '1.0.0',
        description:
          `The ${module} module of the church-management API. Every path is served by the gateway under \`/${module}\`. ` +
          'Routes marked with a lock need `Authorization: Bearer <token>` (the `token` of `POST /membership/users/login`): ' +
          'use **Authorize** to send it with Try it out. A 400 answers `{"errors":[{"msg","param","location"}]}`, every other ' +
          'error `{"errors":["a sentence to show"]}`.',
      },
      servers: [{ url: '/', description: 'The gateway (every module under its own path prefix)' }],
      components: sharedComponents() as never,
      security: [{ [BEARER]: [] }],
    },
    transform(input: TransformInput) {
      const { schema, url, route } = input as TransformInput & { route: { method: string | string[]; config?: { access?: Access } } };
      const access = route.config?.access;
      const given = (schema ?? {}) as Record<string, unknown>;
      if (given.hide || access === 'internal') return { schema: { hide: true } as never, url };
      const method = [route.method].flat().find((m) => m !== 'HEAD') ?? 'GET';
      const spec = specRouteOf(method, url);
      const hint = url.split('/').filter(Boolean)[1] ?? module;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(given)) {
        if (key === 'response' && value && typeof value === 'object') {
          out.response = Object.fromEntries(
            Object.entries(value as Json).map(([code, r]) => {
              const zod = isZod(r) ? r : isZod((r as Json)?.properties) ? (r as Json).properties : r;
              const json = toJsonSchema(zod, 'output', hoisted, hint);
              const description = (r as Json)?.description ?? json.description;
              return [code, description ? { ...json, description } : json];
            }),
          );
        } else if (key === 'body') out.body = toJsonSchema(value, 'input', hoisted, hint);
        else if (key === 'querystring' || key === 'params' || key === 'headers')
          out[key] = asParameterObject(toJsonSchema(value, 'input', hoisted, hint), key === 'querystring' ? 'query' : key);
        else out[key] = value;
      }
      const tag = spec?.table ?? fallbackTag(url);
      if (!tags.has(tag)) tags.set(tag, tagDescriptions[tag] ?? `Routes under \`${firstSegments(url)}\`.`);
      const words = spec?.description ?? (typeof given.description === 'string' ? given.description : undefined);
      out.tags = (given.tags as string[] | undefined) ?? [tag];
      out.summary = given.summary ?? (words ? summaryOf(words, tag, url) : `${method} ${url}`);
      out.description = [given.description ?? spec?.description, accessInWords(access)].filter(Boolean).join('\n\n');
      out.operationId = given.operationId ?? operationIdOf(method, url);
      out.security = given.security ?? (access === 'public' ? [] : [{ [BEARER]: [] }]);
      return { schema: out as never, url };
    },
    transformObject(input: TransformObjectInput) {
      const doc = (input as { openapiObject: OpenAPIV3_1.Document }).openapiObject;
      const taken = hoisted;
      hoisted = new Hoisted();
      const components = (doc.components ??= {});
      components.schemas = { ...components.schemas, ...(taken.schemas as Record<string, OpenAPIV3_1.SchemaObject>) };
      const used = new Set<string>();
      for (const [path, item] of Object.entries(doc.paths ?? {})) {
        for (const method of METHODS) {
          const op = item?.[method] as Operation | undefined;
          if (!op) continue;
          completeOperation(op, method, path);
          // operation ids are unique within the document
          const base = op.operationId ?? operationIdOf(method, path);
          let id = base;
          for (let n = 2; used.has(id.toLowerCase()); n++) id = `${base}${n}`;
          used.add(id.toLowerCase());
          op.operationId = id;
        }
      }
      const listed = new Set(Object.values(doc.paths ?? {}).flatMap((item) => METHODS.flatMap((m) => ((item?.[m] as Operation | undefined)?.tags ?? []))));
      // in the spec's table order; tags of routes the spec does not list come last
      const order = (name: string) => specIndex().tableOrder.get(name) ?? Number.MAX_SAFE_INTEGER;
      doc.tags = [...tags]
        .filter(([name]) => listed.has(name))
        .sort(([a], [b]) => order(a) - order(b))
        .map(([name, description]) => ({ name, description }));
      return doc as never;
    },
  };
}

/** Error responses, and path parameters exactly as the path names them. */
function completeOperation(op: Operation, method: string, path: string): void {
  const responses = (op.responses ??= {});
  const jwt = !!op.security?.length;
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const wanted: Array<keyof typeof ERROR_RESPONSES> = [400];
  if (jwt) wanted.push(401);
  if (names.length || method !== 'get') wanted.push(404);
  for (const code of wanted) responses[code] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[code]}` };
  // @fastify/swagger's placeholder wording, for a response that says nothing of itself
  for (const [code, response] of Object.entries(responses)) {
    if ((response as OpenAPIV3_1.ResponseObject).description === 'Default Response') (response as OpenAPIV3_1.ResponseObject).description = STATUS_CODES[code] ?? 'Response';
  }

  const parameters = ((op.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter((p) => p.in !== 'path' || names.includes(p.name));
  for (const name of names) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) parameters.push({ in: 'path', name, required: true, schema: { type: 'string' } });
  }
  if (parameters.length) op.parameters = parameters;
}
