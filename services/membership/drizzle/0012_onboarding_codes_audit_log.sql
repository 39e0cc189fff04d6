CREATE TABLE "audit_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid,
	"category" text NOT NULL,
	"action" text NOT NULL,
	"entity_type" text,
	"entity_id" text,
	"details" text,
	"ip_address" text,
	"module" text DEFAULT 'membership' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "verify_code_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "verify_code_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "verify_code_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_logs_church_created_idx" ON "audit_logs" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_church_entity_idx" ON "audit_logs" USING btree ("church_id","entity_type","entity_id");