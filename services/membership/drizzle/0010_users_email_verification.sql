ALTER TABLE "users" ADD COLUMN "email_verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "pending_email" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_guid_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_guid_expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "users_email_guid_idx" ON "users" USING btree ("email_guid_hash");