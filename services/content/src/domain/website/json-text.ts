import { z } from 'zod';

/**
 * Sections and elements keep `answers`, `styles` and `animations` as JSON objects; the apps' site editor reads
 * and writes them as JSON text too (`answersJSON`, `stylesJSON`, `animationsJSON`). Answers carry both forms;
 * saves take either.
 */
const FIELDS = ['answers', 'styles', 'animations'] as const;
type Field = (typeof FIELDS)[number];
export type JsonText = { answersJSON: string | null; stylesJSON: string | null; animationsJSON: string | null };

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/**
 * A save schema that also reads the JSON text forms: a non-empty `answersJSON` (...) is parsed and wins over
 * `answers` (the editor sends both, and some of its saves change only the text, such as the spacing handles'
 * `stylesJSON`); an empty or null one clears the field unless the object is given. Text that is not a JSON
 * object is a 400 naming it. A null object is an empty one.
 */
export function jsonTextInput<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = { ...value };
    for (const field of FIELDS) {
      const key = `${field}JSON`;
      if (out[field] === null) out[field] = {};
      if (!(key in out)) continue;
      const text = out[key];
      delete out[key];
      if (text === undefined) continue;
      if (text === null || (typeof text === 'string' && text.trim() === '')) {
        out[field] ??= {};
        continue;
      }
      let parsed: unknown;
      try {
        parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (isObject(parsed)) out[field] = parsed;
      else ctx.addIssue({ code: 'custom', message: 'must be JSON text of an object', path: [key], input: text });
    }
    return out;
  }, schema);
}

/** JSON text of a settings object as the editor compares it: `null` when empty. */
const text = (value: unknown): string | null => (isObject(value) && Object.keys(value).length ? JSON.stringify(value) : null);

/** A section or element with the JSON text forms of its settings beside the objects. */
export function withJsonText<T extends Partial<Record<Field, unknown>>>(node: T): T & JsonText {
  return { ...node, answersJSON: text(node.answers), stylesJSON: text(node.styles), animationsJSON: text(node.animations) };
}

/**
 * A whole tree (a page or block with `sections`, sections with `elements`, nested block `sections`) with the
 * text forms at every level. The public site's tree (`lean`) leaves out the elements' `answersJSON`, which its
 * renderer never reads (it reads their `answers`, and the sections' `answersJSON` and elements' `stylesJSON`).
 */
export function treeWithJsonText<T>(value: T, lean = false, element = false): T {
  if (Array.isArray(value)) return value.map((v) => treeWithJsonText(v, lean, element)) as T;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = 'answers' in value ? withJsonText(value) : { ...value };
  if (lean && element) delete out.answersJSON;
  if (Array.isArray(out.sections)) out.sections = treeWithJsonText(out.sections, lean, false);
  if (Array.isArray(out.elements)) out.elements = treeWithJsonText(out.elements, lean, true);
  return out as T;
}
