CREATE TABLE "job_deliveries" (
	"job_key" text NOT NULL,
	"recipient" text NOT NULL,
	"served_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_deliveries_job_key_recipient_pk" PRIMARY KEY("job_key","recipient")
);
--> statement-breakpoint
CREATE INDEX "job_deliveries_served_idx" ON "job_deliveries" USING btree ("served_at");