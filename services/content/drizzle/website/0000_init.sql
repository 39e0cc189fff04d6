-- The website half of content: its first migration; its tables arrive with its routes.
SELECT 1;
