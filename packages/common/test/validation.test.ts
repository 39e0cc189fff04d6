import { z } from 'zod';
import { RequestValidationError, exactShape, responseJsonSchema, zodSerializerCompiler, zodValidatorCompiler } from '../src/validation';
import { Id, IdArray, batchOf } from '../src/schemas';

const Thing = z.object({
  name: z.string(),
  born: z.date().nullish(),
  seen: z.date(),
  note: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
  owner: z.object({ id: z.string() }).nullable(),
});
const serialize = (schema: z.ZodType, value: unknown) =>
  (zodSerializerCompiler as unknown as (o: { schema: z.ZodType }) => (v: unknown) => string)({ schema })(value);

describe('response serializers', () => {
  it('compile nullable fields to type lists, never anyOf (which fast-json-stringify checks with ajv per value)', () => {
    const schema = responseJsonSchema(z.array(Thing)) as { items: { properties: Record<string, unknown> } };
    expect(JSON.stringify(schema)).not.toMatch(/anyOf|oneOf/);
    expect(schema.items.properties).toMatchObject({
      born: { type: ['string', 'null'], format: 'date-time' },
      seen: { type: 'string', format: 'date-time' },
      note: { type: ['string', 'null'] },
      tags: { type: ['array', 'null'], items: { type: 'string' } },
      owner: { type: ['object', 'null'], properties: { id: { type: 'string' } } },
    });
  });

  it('write dates as ISO strings, nulls as null, and only declared fields', () => {
    const value = {
      name: 'A',
      born: new Date('1980-02-29T00:00:00Z'),
      seen: new Date('2024-05-06T07:08:09.123Z'),
      note: null,
      tags: ['x'],
      owner: { id: 'o1', secret: 'never leaves' },
      extra: 'never leaves',
    };
    expect(JSON.parse(serialize(Thing, value))).toEqual({
      name: 'A',
      born: '1980-02-29T00:00:00.000Z',
      seen: '2024-05-06T07:08:09.123Z',
      note: null,
      tags: ['x'],
      owner: { id: 'o1' },
    });
    expect(JSON.parse(serialize(Thing, { ...value, born: null, tags: null, owner: null }))).toMatchObject({ born: null, tags: null, owner: null });
    expect(JSON.parse(serialize(Thing, { name: 'B', seen: value.seen }))).toEqual({ name: 'B', seen: '2024-05-06T07:08:09.123Z' });
  });
});

describe('exactShape', () => {
  const Item = z.object({ name: z.string(), born: z.date().nullable(), tags: z.array(z.string()) });
  const exact = exactShape(z.array(Item));
  const item = { name: 'A "quoted" \\ name', born: new Date('1980-02-29T00:00:00Z'), tags: ['x'] };

  it('writes values of the schema’s exact shape as the compiled serializer does', () => {
    const compiled = serialize(z.array(Item), [item, { ...item, born: null, tags: [] }]);
    expect(serialize(exact, [item, { ...item, born: null, tags: [] }])).toBe(compiled);
  });

  it('fails (under Jest) a value with an undeclared field or fields out of order', () => {
    expect(() => serialize(exact, [{ ...item, secret: 'x' }])).toThrow(/exact shape/);
    expect(() => serialize(exact, [{ born: item.born, name: 'A', tags: [] }])).toThrow(/exact shape/);
  });
});

describe('IdArray', () => {
  const ids = IdArray(3);
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';

  it('accepts exactly what z.array(Id) accepts, and keeps the list as sent', () => {
    const samples: unknown[] = [[], [id], [id.toUpperCase(), '00000000-0000-0000-0000-000000000000'], ['nope'], [id, 7], 'nope', null, [id, `${id}x`]];
    for (const sample of samples) expect(ids.safeParse(sample).success).toBe(z.array(Id).max(3).safeParse(sample).success);
    expect(ids.parse([id, id])).toEqual([id, id]);
  });

  it('reports each bad id at its place with Id\'s message, a non-list, and a list over its size', () => {
    expect(ids.safeParse([id, 'nope', 7]).error!.issues.map((i) => [i.path, i.message])).toEqual([
      [[1], 'must be a UUID'],
      [[2], 'must be a UUID'],
    ]);
    expect(ids.safeParse('nope').error!.issues.map((i) => i.message)).toEqual(['must be a list of UUIDs']);
    expect(ids.safeParse([id, id, id, id]).error!.issues.map((i) => i.message)).toEqual(['must have at most 3 items']);
  });
});

describe('the apps’ ways of writing values (zodValidatorCompiler)', () => {
  const validator = (schema: z.ZodType, httpPart = 'body') =>
    (zodValidatorCompiler as unknown as (o: { schema: z.ZodType; httpPart: string }) => (d: unknown) => { value?: unknown; error?: RequestValidationError })({ schema, httpPart });
  const Campus = z.object({ id: Id.optional(), name: z.string().min(1), personId: Id.nullish(), active: z.boolean().optional(), minutes: z.number().int().optional() });
  const save = validator(batchOf(Campus));

  it('reads id "" and id null as a new row, in an array and in a single object', () => {
    expect(save([{ id: '', name: 'North' }, { id: null, name: 'South' }]).value).toEqual([{ name: 'North' }, { name: 'South' }]);
    expect(save({ id: '', name: 'East' }).value).toEqual([{ name: 'East' }]);
  });

  it('reads "" for another id as none, 0/1 and "true"/"false" as booleans, and a number written as text', () => {
    expect(save({ name: 'A', personId: '', active: 1, minutes: '45' }).value).toEqual([{ name: 'A', personId: null, active: true, minutes: 45 }]);
    expect(save({ name: 'B', active: '0' }).value).toEqual([{ name: 'B', active: false }]);
  });

  it('still refuses what is wrong, naming the field, and calls a blank required field missing', () => {
    const bad = save([{ id: 'nope', name: 'A' }, { name: '', active: 2 }]).error!;
    expect(bad.toErrors()).toEqual([
      { msg: 'must be a UUID', param: '[0].id', location: 'body' },
      { msg: '[1].name is required', param: '[1].name', location: 'body' },
      expect.objectContaining({ param: '[1].active', location: 'body' }),
    ]);
  });

  it('leaves valid input untouched', () => {
    const body = { id: '0b6f7c8e-3f7a-4d3e-9c1a-2b5d6e7f8a9b', name: 'A', active: false };
    expect(save(body).value).toEqual([body]);
  });
});
