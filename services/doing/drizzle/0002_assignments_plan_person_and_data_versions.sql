CREATE TABLE "data_versions" (
	"church_id" uuid PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DROP INDEX "assignments_church_plan_idx";--> statement-breakpoint
CREATE INDEX "assignments_church_plan_person_idx" ON "assignments" USING btree ("church_id","plan_id","person_id");