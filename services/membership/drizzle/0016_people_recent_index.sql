DROP INDEX "people_church_created_idx";--> statement-breakpoint
CREATE INDEX "people_church_created_idx" ON "people" USING btree ("church_id","created_at","id");