CREATE TABLE IF NOT EXISTS "job_outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"name" text NOT NULL,
	"data" jsonb NOT NULL,
	"job_key" text,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 5 NOT NULL,
	"backoff_ms" integer DEFAULT 1000 NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"claimed_by" text,
	"sent_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "job_outbox_job_key_idx" ON "job_outbox" USING btree ("job_key");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_outbox_state_run_at_idx" ON "job_outbox" USING btree ("state","run_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_outbox_state_sent_at_idx" ON "job_outbox" USING btree ("state","sent_at");
