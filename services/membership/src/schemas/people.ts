import { z } from 'zod';
import { rule } from '@church/auth';
import { Person } from '../domain/people/person';

export const BASE = '/membership/people';

/** Spec "own record": the `:id` in the path is the caller's own person. */
export const ownRecord = rule('own record', (req, auth) => {
  const id = (req.params as { id?: string }).id;
  return Boolean(id && auth.personId && id.toLowerCase() === auth.personId.toLowerCase());
});

const Answer = z.object({ id: z.string(), questionId: z.string(), questionTitle: z.string().nullish(), value: z.string().nullish() });
export const PersonWithForms = Person.extend({
  formSubmissions: z.array(
    z.object({
      id: z.string(),
      formId: z.string(),
      formName: z.string().nullish(),
      submissionDate: z.date().nullish(),
      revisionDate: z.date().nullish(),
      submittedBy: z.string().nullish(),
      answers: z.array(Answer),
    }),
  ),
});

/** A search term from the query string or a body. */
export const SearchInput = z.object({
  term: z.string().trim().max(200).optional(),
  email: z.string().trim().max(200).optional(),
});
