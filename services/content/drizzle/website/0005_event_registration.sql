ALTER TABLE "events" ADD COLUMN "registration_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "capacity" integer;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "waitlist_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "registration_open_date" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "registration_close_date" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "tags" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "form_id" uuid;--> statement-breakpoint
CREATE INDEX "events_church_registration_idx" ON "events" USING btree ("church_id","start") WHERE "events"."registration_enabled";