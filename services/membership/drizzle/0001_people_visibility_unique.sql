DROP INDEX "visibility_preferences_person_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "visibility_preferences_person_uq" ON "visibility_preferences" USING btree ("church_id","person_id");