import { badRequest, type DbOrTx } from '@church/common';
import { childElements, deleteElementsById, insertChildElement, placeChildElement, type ElementRow } from '../../repos/website/tree';

/**
 * Rows own one `column` child per entry of `answers.columns` (widths on a 12-column grid, as "6,6" or [6,6]),
 * each with `answers.size`; carousels own `answers.slides` children of type `slide` (`answers.slide` = index).
 * Saving a row or carousel adds, updates or removes children to match, keeping what sits inside the kept ones.
 */
export const ROW = 'row';
export const CAROUSEL = 'carousel';
const DEFAULT_COLUMNS = [6, 6];

/** The widths a row asks for; undefined when it says nothing; a 400 naming the field when malformed. */
export function columnSizes(answers: Record<string, unknown>, param: string): number[] | undefined {
  const raw = answers.columns;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const list = Array.isArray(raw) ? raw : String(raw).split(',');
  const sizes = list.map((x) => Number(String(x).trim()));
  if (!sizes.length || sizes.length > 12 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 12)) {
    throw badRequest(`${param}.columns`, 'must be 1 to 12 column widths from 1 to 12, such as "6,6"');
  }
  return sizes;
}

export function slideCount(answers: Record<string, unknown>, param: string): number | undefined {
  const raw = answers.slides;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw badRequest(`${param}.slides`, 'must be a whole number from 1 to 50');
  return n;
}

/** Checks a row's or carousel's settings before anything is written. */
export function checkLayout(elementType: string | undefined, answers: Record<string, unknown> | undefined, param: string): void {
  if (!answers) return;
  if (elementType === ROW) columnSizes(answers, param);
  if (elementType === CAROUSEL) slideCount(answers, param);
}

/** Brings a row's columns or a carousel's slides in step with its settings. */
export async function syncChildren(tx: DbOrTx, el: ElementRow): Promise<void> {
  if (el.elementType !== ROW && el.elementType !== CAROUSEL) return;
  const childType = el.elementType === ROW ? 'column' : 'slide';
  const children = await childElements(tx, el.churchId, el.id, childType);
  const wanted: Array<Record<string, unknown>> =
    el.elementType === ROW
      ? (columnSizes(el.answers, 'answers') ?? (children.length ? children.map((c) => Number(c.answers.size) || 6) : DEFAULT_COLUMNS)).map((size) => ({ size }))
      : Array.from({ length: slideCount(el.answers, 'answers') ?? Math.max(children.length, 1) }, (_, i) => ({ slide: i }));
  for (const [i, answers] of wanted.entries()) {
    const child = children[i];
    if (child) {
      const merged = { ...child.answers, ...answers };
      if (child.sort !== i + 1 || JSON.stringify(merged) !== JSON.stringify(child.answers)) {
        await placeChildElement(tx, child.id, merged, i + 1);
      }
    } else {
      await insertChildElement(tx, el, childType, i + 1, answers);
    }
  }
  await deleteElementsById(tx, children.slice(wanted.length).map((c) => c.id));
}
