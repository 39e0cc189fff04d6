import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'drizzle-orm';
import RandExp from 'randexp';
import { z } from 'zod';
import { rowsOf } from './db';
import type { RegisteredRoute } from './service';

/**
 * The reference walk: every write route of a module (POST, PUT, PATCH; public ones too), sent by a caller with
 * every permission of church A a body built from the route's own schema in which every field that names a record
 * carries another church's id. Whatever each route answers (never a 500), afterwards no row of church A in the
 * module's database holds one of those ids: a route either refused the body or dropped the id.
 */

/** Ids the walk hands out as another church's: a fake module's `owned` answer (testing.ts) leaves them out. */
export const foreignIds = new Set<string>();

/** A fresh id that the test fakes of other modules answer as another church's record. */
export function foreignId(): string {
  const id = randomUUID();
  foreignIds.add(id);
  return id;
}

/**
 * Id-named fields that name no record of a church: a user (users belong to no church), the church itself (routes
 * take the caller's), a queue job, a socket, a device, and the ids of outside providers.
 */
export const NOT_REFERENCES = [
  'id',
  'churchId',
  'userId',
  'jobId',
  'socketId',
  'providerId',
  'gatewayId',
  'customerId',
  'transactionId',
  'subscriptionId',
  'paymentMethodId',
  'methodId',
  'productId',
  'providerCustomerId',
  'providerSubscriptionId',
  'providerMessageId',
  'videoHostAVideoId',
  'musicBrainzId',
  'praiseChartsId',
  'sheetMusicId',
  'presenterAppId',
  'presenterAppIds',
  'clientId',
];

export interface ReferenceWalkOptions {
  /** church A: the walk's token and the `:churchId` of public routes */
  churchId: string;
  /** a token of church A with every permission (and a person of A) */
  token: string;
  /**
   * another church's records by the body field that names them: real rows of another church for this module's own
   * tables, any fresh UUID for another module's kinds (the fake's `owned` answer refuses it). A field ending in
   * `Ids` gets `[id]`. Every id-named body field of every route must be here or in `notReferences`.
   */
  foreign: Record<string, string>;
  /** id-named fields of this module's bodies that name no church record (beside `NOT_REFERENCES`), with why in a comment */
  notReferences?: string[];
}

export interface ReferenceWalkReport {
  /** requests sent (a few bodies per write route with a body schema) */
  walked: number;
  /** of them, answered 400 naming a reference field */
  refused: number;
  /** answered 2xx (the id must then have been dropped: the scan checks) */
  accepted: number;
  /** the reference fields the bodies carried, sorted */
  fields: string[];
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  minItems?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  pattern?: string;
};

const ID_FIELD = /Ids?$/;

function jsonSchemaOf(schema: unknown): JsonSchema | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return undefined;
  }
}

/** The schema's first concrete option (unions: the first that is not null). */
function concrete(schema: JsonSchema): JsonSchema {
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) return concrete(options.find((o) => o.type !== 'null') ?? options[0]!);
  if (schema.allOf?.length) return concrete(schema.allOf[0]!);
  return schema;
}

/** Does a value of this schema hold an id-named field somewhere (optional subtrees are filled only then)? */
function holdsIds(schema: JsonSchema, depth = 0): boolean {
  if (depth > 6) return false;
  const s = concrete(schema);
  if (s.items) return holdsIds(s.items, depth + 1);
  return Object.entries(s.properties ?? {}).some(([name, child]) => ID_FIELD.test(name) || holdsIds(child, depth + 1));
}

interface Build {
  /** `minimal`: the schema's required fields and the reference fields; `full`: every field */
  fill: 'minimal' | 'full';
  /** one reference field alone: the others are left out where the schema lets them be */
  only?: string;
  foreign: Record<string, string>;
  skip: Set<string>;
  churchId: string;
  fields: Set<string>;
  unclassified: Set<string>;
}

function valueOf(schema: JsonSchema, name: string | undefined, b: Build, depth = 0): unknown {
  const s = concrete(schema);
  if (name && ID_FIELD.test(name)) {
    if (name === 'churchId') return b.churchId;
    if (Object.hasOwn(b.foreign, name)) {
      b.fields.add(name);
      const id = b.foreign[name]!;
      return s.type === 'array' || /Ids$/.test(name) ? [id] : id;
    }
    if (!b.skip.has(name)) b.unclassified.add(name);
    return s.type === 'array' ? [] : randomUUID();
  }
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  // Dates the schema cannot describe (coerced to `Date`) are named like dates.
  if ((type === undefined || type === 'string') && !s.format && !s.pattern && name && /(Date|At|Time)$/.test(name)) return new Date().toISOString();
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(s.required ?? []);
      for (const [key, child] of Object.entries(s.properties ?? {})) {
        if (key === 'id' || depth > 6) continue;
        const reference = ID_FIELD.test(key) && key !== 'churchId';
        const wanted = required.has(key) || (reference ? !b.only || b.only === key : b.fill === 'full' || holdsIds(child));
        if (wanted) out[key] = valueOf(child, key, b, depth + 1);
      }
      return out;
    }
    case 'array':
      return s.items ? Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => valueOf(s.items!, undefined, b, depth + 1)) : [];
    case 'string':
      if (s.format === 'uuid') return randomUUID();
      if (s.format === 'email') return 'walk@example.test';
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'date') return new Date().toISOString().slice(0, 10);
      if (s.format === 'uri' || s.format === 'url') return 'https://example.test/walk';
      if (s.pattern) {
        // a day as most day patterns take it; otherwise the pattern's first string (the walk is the same every run)
        if (s.pattern.includes('\\d{4}-\\d{2}-\\d{2}')) return new Date().toISOString().slice(0, 10);
        const text = new RandExp(s.pattern);
        text.randInt = (low: number) => low;
        return text.gen();
      }
      return 'walk'.padEnd(Math.max(1, s.minLength ?? 1), 'x');
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1));
    case 'boolean':
      return false;
    default:
      return 'walk';
  }
}

/** Rows of church A, in every table of the module that has a `church_id`, that hold one of the ids. */
async function rowsHolding(app: FastifyInstance, churchId: string, ids: string[], reported: Set<string>): Promise<string[]> {
  const tables = rowsOf<{ table_name: string }>(
    await app.db.execute(sql`select distinct table_name from information_schema.columns where column_name = 'church_id' and table_schema = current_schema()`),
  );
  const found: string[] = [];
  for (const { table_name } of tables) {
    const rows = rowsOf<{ row: string }>(await app.db.execute(sql`select t::text as row from ${sql.identifier(table_name)} t where church_id = ${churchId}`));
    for (const { row } of rows) {
      const id = ids.find((candidate) => row.includes(candidate));
      if (!id || reported.has(row)) continue;
      reported.add(row);
      found.push(`${table_name} holds ${id}: ${row.slice(0, 300)}`);
    }
  }
  return found;
}

/**
 * Walks every write route with another church's ids in its body (see the file's comment) and fails listing each
 * route that answered 500, each id-named field not declared either way, and each row of church A that kept an id.
 * `REFERENCE_WALK_LOG=1` prints every request it sends and the answer.
 */
export async function expectForeignReferencesRefused(app: FastifyInstance, opts: ReferenceWalkOptions): Promise<ReferenceWalkReport> {
  await app.ready();
  const ids = [...new Set(Object.values(opts.foreign))];
  for (const id of ids) foreignIds.add(id);
  const skip = new Set([...NOT_REFERENCES, ...(opts.notReferences ?? [])]);
  const fields = new Set<string>();
  /** rows already reported, so each kept id is named once, by the route that kept it */
  const reported = new Set<string>();
  const report: ReferenceWalkReport = { walked: 0, refused: 0, accepted: 0, fields: [] };
  const failures: string[] = [];
  const routes: RegisteredRoute[] = app.routeList.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.access !== 'internal');
  const send = async (route: RegisteredRoute, body: unknown, query: Record<string, unknown> | undefined) => {
    const url = route.url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => (name === 'churchId' ? opts.churchId : /id$/i.test(name) ? randomUUID() : 'x'));
    const res = await app.inject({
      method: route.method as InjectOptions['method'],
      url,
      query: Object.fromEntries(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])),
      payload: body as object,
      headers: { authorization: `Bearer ${opts.token}` },
    });
    report.walked++;
    if (process.env.REFERENCE_WALK_LOG) console.log(`${route.method} ${url} ${JSON.stringify(body)} → ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 500 && res.statusCode !== 502 && res.statusCode !== 503) failures.push(`${route.method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    else if (res.statusCode < 300) {
      report.accepted++;
      // the route took the body: a kept id is its doing (each table of the church scanned)
      for (const row of await rowsHolding(app, opts.churchId, ids, reported)) failures.push(`${route.method} ${route.url} kept another church's id: ${row}`);
    } else if (res.statusCode === 400 && /not an? [\w ]+ of this church/.test(res.body)) report.refused++;
  };
  for (const route of routes) {
    const schema = jsonSchemaOf(route.body);
    if (!schema) continue;
    // The body as a whole (its required fields, then every field), then each reference field alone: a route that
    // refuses one field must not hide that it keeps another.
    const build = (fill: Build['fill'], only?: string): { body: unknown; carried: Set<string> } => {
      const b: Build = { fill, only, foreign: opts.foreign, skip, churchId: opts.churchId, fields: new Set(), unclassified: new Set() };
      const body = valueOf(schema, undefined, b);
      if (b.unclassified.size && !only) failures.push(`${route.method} ${route.url}: declare ${[...b.unclassified].join(', ')} as foreign or notReferences`);
      return { body, carried: b.fields };
    };
    const querySchema = jsonSchemaOf(route.query);
    const query = querySchema ? (valueOf(querySchema, undefined, { fill: 'minimal', foreign: opts.foreign, skip, churchId: opts.churchId, fields, unclassified: new Set() }) as Record<string, unknown>) : undefined;
    const minimal = build('minimal');
    for (const field of minimal.carried) fields.add(field);
    await send(route, minimal.body, query);
    await send(route, build('full').body, query);
    if (minimal.carried.size > 1) {
      for (const field of minimal.carried) for (const fill of ['minimal', 'full'] as const) await send(route, build(fill, field).body, query);
    }
  }
  failures.push(...(await rowsHolding(app, opts.churchId, ids, reported)).map((row) => `kept another church's id (after the walk): ${row}`));
  report.fields = [...fields].sort();
  const distinct = [...new Set(failures)];
  if (distinct.length) throw new Error(`${distinct.length} reference failures:\n${distinct.join('\n')}`);
  return report;
}
