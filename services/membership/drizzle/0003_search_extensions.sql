-- Name search: trigram matching (pg_trgm) and btree operator classes in GIN (btree_gin), so one GIN index
-- can lead with church_id. Both are trusted extensions (a database owner may create them since PostgreSQL 13).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;
