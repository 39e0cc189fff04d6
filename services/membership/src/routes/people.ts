// The people table's routes live in routes/people/ (one file per concern); this keeps routes/index.ts' import.
export { default } from './people/index';
