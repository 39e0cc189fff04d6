import ical, { type ParameterValue, type VEvent } from 'node-ical';
import { badRequest } from '@church/common';
import { normalizeRule } from './events';

export interface ImportedEvent {
  title: string;
  description: string | null;
  start: Date;
  end: Date;
  allDay: boolean;
  recurrenceRule: string | null;
  exceptionDates: Date[];
}

const text = (v: ParameterValue | undefined): string | null => {
  const s = typeof v === 'string' ? v : (v as { val?: string } | undefined)?.val;
  return s?.trim() ? s.trim() : null;
};

/**
 * The VEVENTs of an ICS calendar (node-ical reads the text, time zones included). Overrides of single
 * occurrences (RECURRENCE-ID) are left out: the series they belong to carries them. An event without an end
 * lasts an hour (a day when it is all-day); a rule the recurrence check refuses imports the event as one-off.
 */
export function parseIcs(body: string, param: string): ImportedEvent[] {
  let parsed: ReturnType<typeof ical.sync.parseICS>;
  try {
    parsed = ical.sync.parseICS(body);
  } catch {
    throw badRequest(param, 'must be an ICS calendar (RFC 5545)');
  }
  const vevents = Object.values(parsed).filter((c): c is VEvent => c?.type === 'VEVENT' && !c.recurrenceid && c.start instanceof Date && !Number.isNaN(c.start.getTime()));
  if (!vevents.length && !/BEGIN:VCALENDAR/i.test(body)) throw badRequest(param, 'must be an ICS calendar (RFC 5545)');
  return vevents.map((e) => {
    const allDay = e.datetype === 'date';
    const start = new Date(e.start.getTime());
    const endRaw = e.end instanceof Date && !Number.isNaN(e.end.getTime()) ? new Date(e.end.getTime()) : undefined;
    const end = endRaw && endRaw >= start ? endRaw : new Date(start.getTime() + (allDay ? 86_400_000 : 3_600_000));
    const ruleLine = e.rrule?.toString().split('\n').find((l) => /^RRULE:/i.test(l));
    let recurrenceRule: string | null = null;
    try {
      recurrenceRule = ruleLine ? normalizeRule(ruleLine, param) : null;
    } catch {
      recurrenceRule = null;
    }
    const exceptionDates = recurrenceRule ? [...new Map(Object.values(e.exdate ?? {}).map((d) => [new Date(d).getTime(), new Date(d)])).values()] : [];
    return { title: (text(e.summary) ?? '(untitled)').slice(0, 500), description: text(e.description)?.slice(0, 20_000) ?? null, start, end, allDay, recurrenceRule, exceptionDates };
  });
}
