CREATE TABLE "job_deliveries" (
	"job_key" text PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"state" text NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone
);
