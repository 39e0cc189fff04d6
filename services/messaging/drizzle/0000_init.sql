-- The messaging module's first migration: its tables arrive with its routes.
SELECT 1;
