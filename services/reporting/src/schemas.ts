import { z } from 'zod';

// Request and answer shapes of `/reporting/reports`.

export const KeyNameParams = z.object({ keyName: z.string().min(1).max(100) });

/** A run's parameters are the definition's own: checked by the engine against the definition, not here. */
export const RunQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const OutputColumn = z.object({ header: z.string(), value: z.string(), formatter: z.string() });

const Output = z.object({
  outputType: z.enum(['table', 'barChart', 'tree']),
  columns: z.array(OutputColumn),
  groupings: z.array(z.string()).optional(),
  /** tree outputs: rows nested by the groupings (`{column, value, children | rows}`) */
  nodes: z.array(z.unknown()).optional(),
});

const Parameter = z.object({
  keyName: z.string(),
  source: z.enum(['token', 'query', 'result']),
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
  permissions: z.array(z.object({ requireOne: z.array(z.string()) })),
});

/** A run's answer: the table's rows and how to show them. */
export const ReportResultView = z.object({
  keyName: z.string(),
  displayName: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  table: z.array(z.record(z.string(), z.unknown())),
  outputs: z.array(Output),
});
