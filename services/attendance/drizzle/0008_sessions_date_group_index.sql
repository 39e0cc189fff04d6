CREATE INDEX "sessions_church_date_group_idx" ON "sessions" USING btree ("church_id","session_date","group_id","id");--> statement-breakpoint
DROP INDEX "sessions_church_date_idx";
