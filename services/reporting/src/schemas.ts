import { z } from 'zod';

// Request and answer shapes of `/reporting/reports`.

export const KeyNameParams = z.object({ keyName: z.string().min(1).max(100) });

/** A run's parameters are the definition's own: checked by the engine against the definition, not here. */
export const RunQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const OutputColumn = z.object({ header: z.string(), value: z.string(), formatter: z.string() });

const Output = z.object({
  outputType: z.enum(['table', 'barChart', 'tree']),
  /** a tree's grouping columns first */
  columns: z.array(OutputColumn),
  /** a tree's levels, as the staff app reads them: how many columns (from the first) each level heads */
  groupings: z.array(z.number().int()).optional(),
  /** a tree's grouping columns, by name */
  groupBy: z.array(z.string()).optional(),
  /** tree outputs: rows nested by the groupings (`{column, value, children | rows}`) */
  nodes: z.array(z.unknown()).optional(),
});

const Parameter = z.object({
  keyName: z.string(),
  /** where the value comes from: the caller's token, the query string, or an earlier query's rows */
  origin: z.enum(['token', 'query', 'result']),
  /** the same in the staff app's words: `au` (the token), `date` and `dropdown` (fields it shows), `text`, `query` */
  source: z.enum(['au', 'date', 'dropdown', 'text', 'query']),
  /** the staff app's list a dropdown picks from (`campus`, `service`, `serviceTime`, `group`, `fund`, `month`, `provided`), or the claim, or `query.column` */
  sourceKey: z.string(),
  /** the default worked out for today (a date as `YYYY-MM-DD`), as the app fills its field */
  value: z.string().optional(),
  list: z.string().optional(),
  claim: z.string().optional(),
  displayName: z.string().optional(),
  type: z.string().optional(),
  required: z.boolean().optional(),
  default: z.union([z.string(), z.number()]).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.object({ value: z.string(), text: z.string() })).optional(),
  query: z.string().optional(),
  column: z.string().optional(),
  as: z.enum(['list', 'value']).optional(),
});

/** A definition as clients load it: parameters, the queries' names and sources (never their SQL), outputs, permissions. */
export const ReportDefinitionView = z.object({
  keyName: z.string(),
  displayName: z.string(),
  description: z.string(),
  parameters: z.array(Parameter),
  queries: z.array(z.object({ keyName: z.string(), module: z.string(), params: z.array(z.string()) })),
  outputs: z.array(Output),
  /** every group must be met, by any one of its permissions (as the staff app tests them: `{api, contentType, action}`) */
  permissions: z.array(z.object({ requireOne: z.array(z.object({ api: z.string(), contentType: z.string(), action: z.string() })) })),
});
export const ReportDefinitionList = z.array(ReportDefinitionView);

/** A run's answer: the table's rows and how to show them. */
export const ReportResultView = z.object({
  keyName: z.string(),
  displayName: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  table: z.array(z.record(z.string(), z.unknown())),
  outputs: z.array(Output),
});
