import { existsSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { z } from 'zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { anyUser, requires } from '@church/auth';
import type { TestApp } from '../src/testing';
import type { RegisteredRoute } from '../src';
import { accessInWords, fallbackTag, operationIdOf, specRouteOf, specRoutes, summaryOf, swaggerOptions } from '../src/docs';
import { zodSerializerCompiler, zodValidatorCompiler } from '../src/validation';
import { render, specRoutes as readSpec } from '../../../scripts/spec-routes';
import { startMembership } from '../../../services/membership/test/setup';
import { startAttendance } from '../../../services/attendance/test/setup';

type Doc = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;

const INFRA = ['/health', '/ready', '/metrics'];
const documented = (routes: RegisteredRoute[]) => routes.filter((r) => r.access !== 'internal' && !INFRA.includes(r.url) && !r.url.endsWith('/docs/json'));
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Follows a local `$ref` (`#/components/...`) in the document. */
function deref<T>(doc: Doc, value: unknown): T {
  let node = value as { $ref?: string };
  while (node && typeof node.$ref === 'string') {
    node = node.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as { $ref?: string };
  }
  return node as T;
}

function errorSchemaRef(doc: Doc, response: unknown): string | undefined {
  const resolved = deref<OpenAPIV3_1.ResponseObject>(doc, response);
  return (resolved?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
}

describe('the OpenAPI documents of membership and attendance', () => {
  const apps: Record<string, TestApp> = {};
  const docs: Record<string, Doc> = {};
  beforeAll(async () => {
    apps.membership = await startMembership();
    apps.attendance = await startAttendance();
    for (const [module, t] of Object.entries(apps)) {
      const res = await t.app.inject({ method: 'GET', url: `/${module}/docs/json` });
      expect(res.statusCode).toBe(200);
      docs[module] = res.json();
    }
  });
  afterAll(async () => {
    for (const t of Object.values(apps)) await t.close();
  });

  /** Every documented operation of both documents: [module, route, operation]. */
  function operations(): Array<[string, RegisteredRoute, Operation]> {
    const all: Array<[string, RegisteredRoute, Operation]> = [];
    for (const [module, t] of Object.entries(apps)) {
      for (const route of documented(t.app.routeList)) {
        const op = docs[module].paths?.[openapiPath(route.url)]?.[route.method.toLowerCase() as OpenAPIV3_1.HttpMethods];
        if (op) all.push([module, route, op]);
      }
    }
    return all;
  }

  it('cover every registered route but the internal ones, and nothing else', () => {
    for (const [module, t] of Object.entries(apps)) {
      const routes = documented(t.app.routeList);
      const missing = routes.filter((r) => !docs[module].paths?.[openapiPath(r.url)]?.[r.method.toLowerCase() as OpenAPIV3_1.HttpMethods]);
      expect(missing).toEqual([]);
      const count = Object.values(docs[module].paths ?? {}).reduce((n, item) => n + Object.keys(item ?? {}).filter((k) => k !== 'parameters').length, 0);
      expect(count).toBe(routes.length);
      expect(Object.keys(docs[module].paths ?? {}).filter((p) => p.includes('/internal/'))).toEqual([]);
    }
    // the spec's rows of both modules are all documented (membership's internal ones aside)
    expect(operations().length).toBeGreaterThanOrEqual(specRoutes.filter((r) => /^\/(membership|attendance)\//.test(r.path) && r.auth !== 'Internal').length);
  });

  it('name the gateway as server and share the bearer scheme and the error body as components', () => {
    for (const doc of Object.values(docs)) {
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
      expect(doc.components?.securitySchemes?.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }));
      const errors = doc.components?.schemas?.Errors as OpenAPIV3_1.SchemaObject;
      expect(errors.required).toEqual(['errors']);
      const item = deref<OpenAPIV3_1.SchemaObject>(doc, (errors.properties?.errors as OpenAPIV3_1.ArraySchemaObject).items);
      expect(Object.keys(item.properties ?? {})).toEqual(['msg', 'param', 'location']);
    }
  });

  it('declare the bearer scheme on every JWT route and no security on public ones, with the access in words', () => {
    const seen = { jwt: 0, public: 0 };
    for (const [, route, op] of operations()) {
      if (route.access === 'public') {
        seen.public++;
        expect([route.url, op.security]).toEqual([route.url, []]);
        expect(op.description).toContain('public');
      } else if (route.access !== 'internal') {
        seen.jwt++;
        expect([route.url, op.security]).toEqual([route.url, [{ bearer: [] }]]);
        expect(op.description).toContain(route.access.text === '—' ? 'any signed-in user' : `\`${route.access.text}\``);
        expect(errorSchemaRef(docs.membership, op.responses?.['401'])).toBe('#/components/schemas/ErrorMessages');
      }
    }
    expect(seen.jwt).toBeGreaterThan(150);
    expect(seen.public).toBeGreaterThan(10);
  });

  it('give every route a unique operationId, a summary, its spec table as tag and a 400 in the error shape', () => {
    const ids = new Set<string>();
    const ownErrors: string[] = [];
    for (const [module, route, op] of operations()) {
      const where = `${route.method} ${route.url}`;
      expect([where, typeof op.operationId]).toEqual([where, 'string']);
      expect(ids.has(op.operationId!)).toBe(false);
      ids.add(op.operationId!);
      expect([where, (op.summary ?? '').length > 0]).toEqual([where, true]);
      const row = specRouteOf(route.method, route.url);
      expect([where, op.tags]).toEqual([where, [row?.table ?? fallbackTag(route.url)]]);
      if (row) expect(op.description).toContain(row.description);
      // a route may declare an error body of its own (the OAuth token routes answer RFC 6749's `{error, error_description}`)
      if ('$ref' in (op.responses?.['400'] ?? {})) expect(errorSchemaRef(docs[module], op.responses?.['400'])).toBe('#/components/schemas/Errors');
      else ownErrors.push(where);
      expect(deref<OpenAPIV3_1.ResponseObject>(docs[module], op.responses?.['400']).content?.['application/json'].schema).toBeDefined();
      if (route.url.includes(':')) expect(errorSchemaRef(docs[module], op.responses?.['404'])).toBe('#/components/schemas/ErrorMessages');
    }
    expect(ownErrors).toEqual(['POST /membership/oauth/token', 'POST /membership/oauth/device/authorize']);
  });

  it('lists the tags in the spec’s table order', () => {
    // the spec's tables first, in its order; resources the apps call beyond the spec come after
    expect(docs.attendance.tags?.map((t) => t.name).slice(0, 9)).toEqual(['Campuses', 'Services', 'Service times', 'Group service times', 'Attendance records', 'Sessions', 'Visits', 'Visit sessions', 'Streaks']);
    const membershipTags = docs.membership.tags?.map((t) => t.name) ?? [];
    expect(membershipTags.slice(0, 3)).toEqual(['Users and login', 'OAuth', 'People']);
    const spec = docs.membership.paths?.['/membership/users/login']?.post;
    expect(spec).toEqual(expect.objectContaining({ tags: ['Users and login'], summary: 'Log in', security: [], operationId: 'postMembershipUsersLogin' }));
    // A tag says what its routes are about, for whoever calls the API.
    expect(docs.attendance.tags?.find((t) => t.name === 'Campuses')?.description).toBe('A church’s campuses: the places it meets.');
  });
});

describe('documenting a route', () => {
  it('finds its spec row by method and path case-insensitively, or by shape when parameter names differ', () => {
    expect(specRouteOf('GET', '/membership/groupMembers')?.path).toBe('/membership/groupmembers');
    expect(specRouteOf('get', '/attendance/campuses/')?.table).toBe('Campuses');
    expect(specRouteOf('GET', '/content/bibles/:translation/verses/:range')?.path).toBe('/content/bibles/:translationKey/verses/:startVerseKey-:endVerseKey');
    expect(specRouteOf('GET', '/attendance/nothing')).toBeUndefined();
    expect(fallbackTag('/attendance/campuses/extra/:id')).toBe('Campuses');
    expect(fallbackTag('/attendance/novel')).toBe('novel');
  });

  it('words summaries, access and operation ids', () => {
    expect(summaryOf('log in; body is one of: `email`+`password`')).toBe('Log in');
    expect(summaryOf('body `email`, `firstName`; creates user and sends welcome message')).toBe('Creates user and sends welcome message');
    expect(summaryOf('by id', 'Campuses', '/attendance/campuses/:id')).toBe('Campuses: by id');
    expect(summaryOf('x'.repeat(200)).length).toBeLessThanOrEqual(120);
    expect(accessInWords('public')).toContain('public');
    expect(accessInWords(anyUser)).toContain('any signed-in user');
    expect(accessInWords(requires('People.View or Member'))).toContain('`People.View or Member`');
    expect(operationIdOf('GET', '/content/bibles/:translationKey/verses/:startVerseKey-:endVerseKey')).toBe('getContentBiblesByTranslationKeyVersesByStartVerseKeyEndVerseKey');
  });

  it('hoists recursive schemas under components and keeps internal routes out', async () => {
    interface Node {
      name: string;
      children?: Node[];
    }
    const Tree: z.ZodType<Node> = z.object({ name: z.string(), get children() { return z.array(Tree).optional(); } });
    const app = Fastify({ logger: false });
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(zodSerializerCompiler);
    await app.register(swagger, swaggerOptions('content'));
    app.post('/content/trees', { config: { access: 'public' }, schema: { body: z.object({ roots: z.array(Tree), when: z.date().nullable(), extra: z.unknown().nullable() }) } }, async () => ({}));
    app.get('/content/trees/:id', { config: { access: anyUser }, schema: { params: z.object({ id: z.string() }), querystring: z.record(z.string(), z.string()), response: { 200: Tree } } }, async () => ({ name: 'x' }));
    app.post('/content/internal/trees', { config: { access: 'internal' }, schema: { body: Tree } }, async () => ({}));
    await app.ready();
    const doc = app.swagger() as Doc;
    const body = (doc.paths?.['/content/trees']?.post?.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json'].schema as OpenAPIV3_1.SchemaObject;
    const roots = body.properties?.roots as OpenAPIV3_1.ArraySchemaObject;
    expect(roots.items).toEqual({ $ref: '#/components/schemas/RootInput' });
    expect(doc.components?.schemas?.RootInput).toEqual(expect.objectContaining({ type: 'object', properties: expect.objectContaining({ children: expect.anything() }) }));
    expect(JSON.stringify(doc.components?.schemas?.RootInput)).toContain('#/components/schemas/RootInput');
    expect(body.properties?.when).toEqual({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
    expect(body.properties?.extra).toEqual({});
    const get = doc.paths?.['/content/trees/{id}']?.get as Operation;
    expect((get.responses!['200'] as OpenAPIV3_1.ResponseObject).content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/Tree' });
    expect(get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'query', schema: expect.objectContaining({ type: 'object' }) }), expect.objectContaining({ in: 'path', name: 'id', required: true })]),
    );
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths ?? {})).toEqual(['/content/trees', '/content/trees/{id}']);
    await app.close();
  });
});

const SPEC = path.join(__dirname, '../../../../shared/spec');
(existsSync(path.join(SPEC, 'routes.json')) ? describe : describe.skip)('spec-routes.json', () => {
  it('is what scripts/spec-routes.ts writes from the spec (rerun it after the spec changes)', async () => {
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(path.join(__dirname, '../src/spec-routes.json'), 'utf8')).toBe(render(readSpec(SPEC)));
  });
});
