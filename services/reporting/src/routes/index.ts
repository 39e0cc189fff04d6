// The reporting module has one spec table (`/reporting/reports`); its routes are built over the report
// catalog by `reportingModule` in ../app.ts.
export { reportRoutes } from './reports';
