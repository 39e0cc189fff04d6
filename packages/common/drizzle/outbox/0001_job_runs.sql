CREATE TABLE IF NOT EXISTS "job_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"finished_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_runs_finished_at_idx" ON "job_runs" USING btree ("finished_at");
